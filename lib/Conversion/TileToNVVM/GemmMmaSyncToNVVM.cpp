//===- GemmMmaSyncToNVVM.cpp - tile.gemm to ldmatrix + mma.sync ------------===//
//
// tile.gemm in kernels without an mma engine: each warp owns the block of
// the accumulator's #tile.mma warp grid and, per k16 step, loads its A and B
// fragments from (swizzled) shared memory with ldmatrix.x4 (.trans for
// MN-major operands) and issues mma.sync.m16n8k16 with f32 accumulators in
// the registers of the mma fragment layout.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

namespace mlir::gdn {
namespace {
using namespace mlir::gdn::tile;

/// tile.gemm -> ldmatrix + mma.sync.m16n8k16 per warp.
struct GemmMmaSyncLowering : TilePattern<GemmOp> {
  using TilePattern::TilePattern;

  LogicalResult
  matchAndRewrite(GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto aT = cast<BufferType>(op.getA().getType());
    auto bT = cast<BufferType>(op.getB().getType());
    auto cT = cast<BufferType>(op.getC().getType());
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(cT.getLayout());
    if (!mma)
      return op.emitOpError("accumulator needs an mma layout; run "
                            "tile-assign-layouts first");
    if (mma.getEngine() != MmaEngine::MmaSync)
      return rewriter.notifyMatchFailure(op, "a wgmma accumulator");
    // The blocks above B's block diagonal may hold anything; this lowering
    // multiplies whole tiles.
    if (op.getBBlockLower())
      return op.emitOpError("b_block_lower needs the wgmma engine");
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    int64_t m = cT.getShape()[0], n = cT.getShape()[1];
    int64_t k = op.getTransposeA() ? aT.getShape()[0] : aT.getShape()[1];
    int64_t wm = mma.getWarps()[0], wn = mma.getWarps()[1];
    int64_t bm = m / wm, bn = n / wn;
    if (bn % 16 != 0)
      return op.emitOpError("each warp's N block (")
             << bn << ") must be a multiple of 16 for ldmatrix.x4";
    bool bf16 = aT.getElementType().isBF16();
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    auto x4 = LLVM::LLVMStructType::getLiteral(getContext(),
                                               {i32, i32, i32, i32});
    auto acc4 =
        LLVM::LLVMStructType::getLiteral(getContext(), {f32, f32, f32, f32});

    Value tid = ix.tid();
    Value warp = ix.div(tid, 32), lane = ix.rem(tid, 32);
    Value mBase = ix.mul(ix.div(warp, wn), bm);
    Value nBase = ix.mul(ix.rem(warp, wn), bn);
    Value l8 = ix.rem(lane, 8), l16 = ix.rem(lane, 16);
    Value hi8 = ix.mul(ix.div(lane, 16), 8);           // 8 * (lane / 16)
    Value mid8 = ix.mul(ix.rem(ix.div(lane, 8), 2), 8); // 8 * ((lane/8) % 2)

    auto ldmatrix = [&](BufferType t, Value base, Value row, Value col,
                        bool trans) {
      Value ptr = ix.gep(base, rewriter.getI8Type(),
                         sharedByteOffset(ix, t, {row, col}));
      Value res = rewriter.create<NVVM::LdMatrixOp>(
          loc, x4, ptr, 4,
          trans ? NVVM::MMALayout::col : NVVM::MMALayout::row);
      SmallVector<Value, 4> out;
      for (int64_t i = 0; i < 4; ++i)
        out.push_back(rewriter.create<LLVM::ExtractValueOp>(loc, res, i));
      return out;
    };

    Regs cRegs{adaptor.getC(), f32};
    int64_t atomsM = bm / 16, atomsN = bn / 8;
    // zero_init: C = A B, from zero accumulators (mma.sync has no scale-d).
    SmallVector<Value> acc;
    Value zero = op.getZeroInit()
                     ? rewriter.create<LLVM::ConstantOp>(
                           loc, f32, rewriter.getF32FloatAttr(0))
                     : Value();
    for (int64_t r = 0; r < atomsM * atomsN * 4; ++r)
      acc.push_back(zero ? zero : cRegs.load(ix, r));

    std::string asmStr = std::string("mma.sync.aligned.m16n8k16.row.col.f32.") +
                         (bf16 ? "bf16.bf16" : "f16.f16") +
                         ".f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, "
                         "{$10,$11,$12,$13};";
    for (int64_t kk = 0; kk < k / 16; ++kk) {
      // A fragments: matrices (m0-7,k0-7), (m8-15,k0-7), (m0-7,k8-15),
      // (m8-15,k8-15); lanes 8i..8i+7 address matrix i.
      SmallVector<SmallVector<Value, 4>> aFrag;
      for (int64_t am = 0; am < atomsM; ++am) {
        if (!op.getTransposeA())
          aFrag.push_back(ldmatrix(aT, adaptor.getA(),
                                   ix.add(mBase, ix.add(l16, am * 16)),
                                   ix.add(hi8, kk * 16), false));
        else // A stored [K][M]: rows are k.
          aFrag.push_back(ldmatrix(aT, adaptor.getA(),
                                   ix.add(ix.add(hi8, l8), kk * 16),
                                   ix.add(mBase, ix.add(mid8, am * 16)), true));
      }
      // B fragments for two n8 atoms at a time: (k0-7,n0-7), (k8-15,n0-7),
      // (k0-7,n8-15), (k8-15,n8-15).
      SmallVector<std::array<Value, 2>> bFrag;
      for (int64_t an = 0; an < atomsN; an += 2) {
        SmallVector<Value, 4> r;
        if (!op.getTransposeB()) // B stored [K][N]: transpose on load.
          r = ldmatrix(bT, adaptor.getB(), ix.add(ix.add(l8, mid8), kk * 16),
                       ix.add(nBase, ix.add(hi8, an * 8)), true);
        else // B stored [N][K]: rows are n.
          r = ldmatrix(bT, adaptor.getB(),
                       ix.add(nBase, ix.add(ix.add(l8, hi8), an * 8)),
                       ix.add(mid8, kk * 16), false);
        bFrag.push_back({r[0], r[1]});
        bFrag.push_back({r[2], r[3]});
      }
      for (int64_t am = 0; am < atomsM; ++am)
        for (int64_t an = 0; an < atomsN; ++an) {
          int64_t base = (am * atomsN + an) * 4;
          SmallVector<Value> operands(aFrag[am].begin(), aFrag[am].end());
          operands.append({bFrag[an][0], bFrag[an][1]});
          operands.append(acc.begin() + base, acc.begin() + base + 4);
          Value res = emitInlineAsm(rewriter, loc, acc4, operands, asmStr,
                                    "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3",
                                    /*hasSideEffects=*/false);
          for (int64_t i = 0; i < 4; ++i)
            acc[base + i] =
                rewriter.create<LLVM::ExtractValueOp>(loc, res, i);
        }
    }
    for (auto [r, v] : llvm::enumerate(acc))
      cRegs.store(ix, r, v);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateGemmMmaSyncToNVVMPatterns(LLVMTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<GemmMmaSyncLowering>(converter);
}

} // namespace mlir::gdn
