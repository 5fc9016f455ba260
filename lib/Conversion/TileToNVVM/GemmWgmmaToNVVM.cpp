//===- GemmWgmmaToNVVM.cpp - tile.gemm to wgmma.mma_async ------------------===//
//
// tile.gemm in kernels with tile.mma_engine = "wgmma": one wgmma.mma_async
// m64nNk16 per warpgroup and k16 step, operands read by the tensor cores
// from 32-, 64- or 128-byte swizzled shared memory through hand-built
// descriptors. The
// accumulator is the #tile.mma<warps = [4k, n], engine = wgmma> fragment,
// whose register order (layout::mmaFragmentRuns) is the wgmma accumulator
// layout of each warpgroup's m64 x N/n tile.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

namespace mlir::gdn {
namespace {
using namespace mlir::gdn::tile;

/// tile.gemm -> wgmma.mma_async per warpgroup.
struct GemmWgmmaLowering : TilePattern<GemmOp> {
  using TilePattern::TilePattern;

  /// wgmma.mma_async m64nNk16 per warpgroup, operands from swizzled shared
  /// memory through descriptors (docs/hopper-codegen.md §5.2): desc =
  /// (addr >> 4) | LBO << 16 | SBO << 32 | mode << 62. A K-major tile
  /// (A [M][K], B^T [N][K]) is cut into boxes of `swz` bytes along K: a k16
  /// step moves 32 bytes inside a box (or jumps one, every swz / 32
  /// steps). An MN-major tile (B [K][N], A^T [K][M]) has rows of K: a k16
  /// step moves 16 rows and LBO is the distance between boxes along N/M.
  LogicalResult
  matchAndRewrite(GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto aT = cast<BufferType>(op.getA().getType());
    auto bT = cast<BufferType>(op.getB().getType());
    auto cT = cast<BufferType>(op.getC().getType());
    // The accumulator's layout says which instruction produces it.
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(cT.getLayout());
    if (!mma || mma.getEngine() != MmaEngine::Wgmma)
      return rewriter.notifyMatchFailure(op, "not a wgmma accumulator");
    bool aInRegisters = aT.isFragment();
    // Each shared operand's swizzle width (32, 64 or 128 bytes): the rows
    // of its boxes, and its descriptor's layout mode.
    int64_t swzA = 0, swzB = 0;
    for (auto [t, swzOut] : {std::pair<BufferType, int64_t *>{aT, &swzA},
                             {bT, &swzB}}) {
      if (t.isFragment())
        continue;
      auto swz = dyn_cast_or_null<SwizzleAttr>(t.getLayout());
      if (!swz)
        return op.emitOpError("wgmma operands must be swizzled "
                              "(#tile.swizzle<32|64|128>)");
      *swzOut = swz.getBytes();
    }
    if (aInRegisters && aT.getLayout() != cT.getLayout())
      return op.emitOpError("a fragment A must have the accumulator's "
                            "layout; run tile-assign-layouts first");
    int64_t m = cT.getShape()[0], n = cT.getShape()[1];
    int64_t k = op.getTransposeA() ? aT.getShape()[0] : aT.getShape()[1];
    // Warpgroups: wm / 4 along M (one m64 block each), wn along N (each
    // issues m64 x n / wn); see MmaLayoutAttr.
    int64_t wm = mma.getWarps()[0], wn = mma.getWarps()[1];
    int64_t groupsM = wm / 4, nwg = n / wn;
    if (m != 16 * wm || wm % 4 != 0 || nwg % 8 != 0 || nwg > 256)
      return op.emitOpError("wgmma needs the accumulator layout "
                            "#tile.mma<warps = [4k, n]> with 16 rows per "
                            "warp and N / n a multiple of 8 up to 256");
    if (aInRegisters && wn != 1)
      return op.emitOpError("a fragment A (register operand) needs warps "
                            "[4k, 1]");
    // b_block_lower = S: one wgmma chain per S-column block of C, each over
    // the k-steps up to its diagonal block only (B^T is zero above its
    // S x S block diagonal; the verifier checks transpose_b, a square B and
    // S | N, 16 | S; N <= 256 above bounds S).
    std::optional<int64_t> blockLower = op.getBBlockLower();
    if (blockLower && wn != 1)
      return op.emitOpError("b_block_lower needs warps [4k, 1]");
    int64_t blk = blockLower ? *blockLower : nwg;
    Location loc = op.getLoc();
    // Descriptors are 64-bit (a shared address in their low bits): this
    // lowering's index arithmetic is i64 whatever the kernel's index type.
    Type i64 = rewriter.getI64Type(), f32 = rewriter.getF32Type();
    Idx ix(rewriter, loc, i64);
    bool bf16 = aT.getElementType().isBF16();
    auto elemType = bf16 ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;

    Value wg = rewriter.create<LLVM::ZExtOp>(
        loc, i64, createWarpUniformIndex(rewriter, loc, 128));
    // This warpgroup's 64-row block (along M) and column block (along N).
    Value rowGroup = groupsM == 1 ? ix.c(0) : ix.rem(wg, groupsM);
    Value colGroup = wn == 1 ? ix.c(0) : ix.div(wg, groupsM);
    auto addrOf = [&](Value base) -> Value {
      return rewriter.create<LLVM::PtrToIntOp>(loc, i64, base);
    };
    // desc = (addr >> 4) | LBO << 16 | SBO << 32 | mode << 62: SBO is the
    // distance of 8-row groups (8 box rows of `swz` bytes), mode 1, 2, 3
    // for the 128-, 64- and 32-byte swizzles.
    auto descriptor = [&](Value addr, int64_t lbo, int64_t swz) -> Value {
      Value a = rewriter.create<LLVM::AndOp>(loc, addr, ix.c(0x3FFFF));
      a = rewriter.create<LLVM::LShrOp>(loc, a, ix.c(4));
      int64_t mode = swz == 128 ? 1 : swz == 64 ? 2 : 3;
      int64_t bits = (lbo << 16) | (((8 * swz) >> 4) << 32) | (mode << 62);
      return rewriter.create<LLVM::OrOp>(loc, a, ix.c(bits));
    };
    // Byte offset of k-step kk in a K-major tile [rows][k] (row 0, column
    // 16 kk) and in an MN-major tile [k][cols] (row 16 kk, column 0).
    int64_t eb = aT.getElementBytes();
    auto kMajor = [&](int64_t rows, int64_t kk, int64_t swz) {
      return swizzledOffset(0, kk * 16, rows, k, eb, swz);
    };
    auto mnMajor = [&](int64_t cols, int64_t kk, int64_t swz) {
      return swizzledOffset(kk * 16, 0, k, cols, eb, swz);
    };
    // B's column block: K-major B^T [N][K] moves nwg rows (swzB bytes each
    // inside a box); MN-major B [K][N] moves nwg columns, a whole number of
    // swzB-byte boxes (k rows of swzB bytes each) or a 16-byte-aligned
    // offset inside one box, which the hardware swizzles like any other
    // address bits (as a K-major k-step inside a box).
    Value bBase = addrOf(adaptor.getB());
    if (wn != 1) {
      Value off;
      if (op.getTransposeB()) {
        off = ix.mul(colGroup, nwg * swzB);
      } else {
        int64_t colBytes = nwg * eb;
        if (colBytes % swzB == 0) {
          off = ix.mul(colGroup, (colBytes / swzB) * k * swzB);
        } else if (swzB % colBytes == 0 && colBytes % 16 == 0) {
          Value byteCol = ix.mul(colGroup, colBytes);
          off = ix.add(ix.mul(ix.div(byteCol, swzB), k * swzB),
                       ix.rem(byteCol, swzB));
        } else {
          return op.emitOpError("wgmma column block of ")
                 << colBytes << " bytes does not tile " << swzB
                 << "-byte boxes";
        }
      }
      bBase = ix.add(bBase, off);
    }
    Value aBase = aInRegisters ? Value() : addrOf(adaptor.getA());
    // This warpgroup's 64 rows of A: K-major, 64 box rows; MN-major, the
    // boxes that hold its 64 M elements (64 * eb / swzA of them, K rows of
    // swzA bytes each).
    Value aRows;
    int64_t aRowsTotal = op.getTransposeA() ? aT.getShape()[0] : m;
    if (!aInRegisters) {
      if (!op.getTransposeA())
        aRows = ix.mul(rowGroup, 64 * swzA);
      else
        aRows = ix.mul(rowGroup, (64 * eb / swzA) * aRowsTotal * swzA);
    }

    // One accumulator chain per column block of `blk` columns (the whole
    // nwg unless b_block_lower): the wgmma D fragment holds columns 8i ..
    // 8i + 7 in registers 4i .. 4i + 3, so block b is registers b blk / 2
    // .. (b + 1) blk / 2 - 1, an m64 x blk accumulator of its own.
    int64_t numBlocks = nwg / blk;
    auto structTy = LLVM::LLVMStructType::getLiteral(
        getContext(), SmallVector<Type>(blk / 2, f32));
    Regs cRegs{adaptor.getC(), f32};
    // zero_init: C's prior contents are not read; the first k-step does not
    // accumulate (scale-d 0) and takes undefined accumulator inputs, so no
    // register is zeroed for it.
    bool zeroInit = op.getZeroInit();
    SmallVector<Value> accs;
    for (int64_t b = 0; b < numBlocks; ++b) {
      Value acc = rewriter.create<LLVM::UndefOp>(loc, structTy);
      for (int64_t r = 0; r < blk / 2 && !zeroInit; ++r)
        acc = rewriter.create<LLVM::InsertValueOp>(
            loc, acc, cRegs.load(ix, b * blk / 2 + r), r);
      accs.push_back(acc);
    }
    // Register A: k-slice kk of the [4k, 1] accumulator-layout fragment is
    // its registers 8 kk .. 8 kk + 7 (atoms 2 kk and 2 kk + 1, rows g and
    // g + 8), packed pairwise: a0 = (g, 16kk + 2q..), a1 = (g + 8, ..),
    // a2 = (g, 16kk + 8 + 2q..), a3 = (g + 8, 16kk + 8 + 2q..), the wgmma
    // A fragment. Packed before wgmma.fence, as the fence requires.
    SmallVector<std::array<Value, 4>> aPacked;
    if (aInRegisters) {
      Type half = aT.getElementType();
      Regs aRegs{adaptor.getA(), half};
      auto pairTy = VectorType::get({2}, half);
      Type i32 = rewriter.getI32Type();
      for (int64_t kk = 0; kk < k / 16; ++kk) {
        std::array<Value, 4> packed;
        for (int64_t p = 0; p < 4; ++p) {
          int64_t reg = 8 * kk + 2 * p;
          Value v = rewriter.create<LLVM::UndefOp>(loc, pairTy);
          v = rewriter.create<LLVM::InsertElementOp>(loc, v,
                                                     aRegs.load(ix, reg),
                                                     ix.c32(0));
          v = rewriter.create<LLVM::InsertElementOp>(loc, v,
                                                     aRegs.load(ix, reg + 1),
                                                     ix.c32(1));
          packed[p] = rewriter.create<LLVM::BitcastOp>(loc, i32, v);
        }
        aPacked.push_back(packed);
      }
    }
    rewriter.create<NVVM::WgmmaFenceAlignedOp>(loc);
    auto shape = NVVM::MMAShapeAttr::get(getContext(), 64, blk, 16);
    // The descriptors are built once per operand; k-step kk adds its byte
    // offset >> 4 to the 14-bit start-address field. Every address of the
    // operand lies in the shared window (< 2^18 bytes), so the sum never
    // carries out of the field, and each k-step's descriptor is one add
    // of a constant: no mask/shift/or per wgmma between the tensor-core
    // instructions.
    // LBO: K-major operands need none; MN-major ones step between boxes
    // along M/N (k rows of swz bytes apart).
    int64_t bLbo = op.getTransposeB() ? 1 : (k * swzB) >> 4;
    int64_t aLbo = op.getTransposeA() ? (k * swzA) >> 4 : 1;
    Value descB0 = descriptor(bBase, bLbo, swzB);
    Value descA0 = aInRegisters
                       ? Value()
                       : descriptor(ix.add(aBase, aRows), aLbo, swzA);
    auto stepped = [&](Value desc0, int64_t offsetBytes) -> Value {
      if (offsetBytes == 0)
        return desc0;
      assert(offsetBytes % 16 == 0 && "k-step offsets are 16-byte chunks");
      return ix.add(desc0, offsetBytes >> 4);
    };
    // Column block b of a K-major B^T starts b blk rows down (a multiple
    // of 16 rows: whole 8-row swizzle atoms).
    auto bOffset = [&](int64_t b, int64_t kk) {
      if (!op.getTransposeB())
        return mnMajor(n, kk, swzB);
      return swizzledOffset(b * blk, kk * 16, n, k, eb, swzB);
    };
    for (int64_t b = 0; b < numBlocks; ++b) {
      Value &acc = accs[b];
      int64_t kSteps = blockLower ? (b + 1) * blk / 16 : k / 16;
      for (int64_t kk = 0; kk < kSteps; ++kk) {
        if (aInRegisters) {
          // wgmma with A from registers: no NVVM op in MLIR 19 (upstream
          // #133733), so inline PTX. Operands: the accumulators (tied), the
          // four A registers, B's descriptor; scale-d is a predicate (1:
          // accumulate); the immediates are scale-a, scale-b and B's
          // transpose (1: B stored [K][N], MN-major).
          std::string ty = bf16 ? "bf16" : "f16";
          std::string text =
              "{\n.reg .pred p;\nsetp.ne.b32 p, $" + std::to_string(blk + 5) +
              ", 0;\nwgmma.mma_async.sync.aligned.m64n" + std::to_string(blk) +
              "k16.f32." + ty + "." + ty + " {";
          std::string constraints;
          for (int64_t r = 0; r < blk / 2; ++r) {
            text += (r ? ", $" : "$") + std::to_string(r);
            constraints += (r ? ",=f" : "=f");
          }
          text += "}, {$" + std::to_string(blk) + ", $" +
                  std::to_string(blk + 1) + ", $" + std::to_string(blk + 2) +
                  ", $" + std::to_string(blk + 3) + "}, $" +
                  std::to_string(blk + 4) + ", p, 1, 1, " +
                  (op.getTransposeB() ? "0" : "1") + ";\n}\n";
          SmallVector<Value> operands;
          for (int64_t r = 0; r < blk / 2; ++r) {
            operands.push_back(
                rewriter.create<LLVM::ExtractValueOp>(loc, acc, r));
            constraints += "," + std::to_string(r);
          }
          for (Value a : aPacked[kk])
            operands.push_back(a);
          operands.push_back(stepped(descB0, bOffset(b, kk)));
          operands.push_back(ix.c32(zeroInit && kk == 0 ? 0 : 1));
          constraints += ",r,r,r,r,l,n";
          acc = emitInlineAsm(rewriter, loc, structTy, operands, text,
                              constraints, /*hasSideEffects=*/true);
          continue;
        }
        Value descA = stepped(descA0, op.getTransposeA() ? mnMajor(m, kk, swzA)
                                                         : kMajor(m, kk, swzA));
        Value descB = stepped(descB0, bOffset(b, kk));
        acc = rewriter.create<NVVM::WgmmaMmaAsyncOp>(
            loc, structTy, acc, descA, descB, shape, elemType, elemType,
            NVVM::WGMMATypes::f32,
            zeroInit && kk == 0 ? NVVM::WGMMAScaleOut::zero
                                : NVVM::WGMMAScaleOut::one,
            NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
            op.getTransposeA() ? NVVM::MMALayout::col : NVVM::MMALayout::row,
            op.getTransposeB() ? NVVM::MMALayout::col : NVVM::MMALayout::row,
            NVVM::MMAIntOverflowAttr());
      }
    }
    rewriter.create<NVVM::WgmmaGroupSyncAlignedOp>(loc);
    // An async gemm leaves its group in flight; a tile.gemm_wait retires it.
    if (!op.getAsync())
      rewriter.create<NVVM::WgmmaWaitGroupSyncOp>(loc, 0);
    for (int64_t b = 0; b < numBlocks; ++b)
      for (int64_t r = 0; r < blk / 2; ++r)
        cRegs.store(ix, b * blk / 2 + r,
                    rewriter.create<LLVM::ExtractValueOp>(loc, accs[b], r));
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateGemmWgmmaToNVVMPatterns(LLVMTypeConverter &converter,
                                     RewritePatternSet &patterns) {
  patterns.add<GemmWgmmaLowering>(converter);
}

} // namespace mlir::gdn
