//===- TrilInverseToNVVM.cpp - tile.tril_inverse and its phases to NVVM ----===//
//
// The exact inverse of a unit lower triangular f32 matrix in shared memory.
// tile.tril_inverse is forward substitution with one column per thread (no
// barrier). The blocked inverse of docs/gdn-math.md §2.3 arrives as its phases
// (tile-expand-tril-inverse), each free of barriers: tile.tril_inverse_diag
// (the 16x16 diagonal blocks, zeros above them), then per level d
// tile.tril_inverse_product (Y_ij = L T), tile.tril_inverse_scale (-T_ii Y_ij
// into registers) and tile.tril_inverse_store; tile-insert-barriers puts the
// barriers between them. Every element's sum has a fixed order.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

namespace mlir::gdn {
namespace {
using namespace mlir::gdn::tile;

/// Shared f32 [n][n] element access for the triangular inverse.
struct SquareAccess {
  BufferType type;
  Value src, dst;
  Value ptr(Idx &ix, Value base, Value r, Value c) const {
    return ix.gep(base, ix.b.getI8Type(), sharedByteOffset(ix, type, {r, c}));
  }
  Value load(Idx &ix, Value base, Value r, Value c) const {
    return ix.b.create<LLVM::LoadOp>(ix.loc, ix.b.getF32Type(),
                                     ptr(ix, base, r, c));
  }
  void store(Idx &ix, Value base, Value r, Value c, Value v) const {
    ix.b.create<LLVM::StoreOp>(ix.loc, v, ptr(ix, base, r, c));
  }
};

/// Forward substitution, one column per thread: t = e_j - L t over the rows
/// in order. Rows above j come out as exact zeros, so every thread runs the
/// same straight-line code. Used for small or odd sizes.
void lowerTrilColumns(ConversionPatternRewriter &rewriter, Location loc,
                      BufferType t, Value src, Value dst, int64_t numThreads) {
  Idx ix(rewriter, loc);
  int64_t n = t.getShape()[0];
  Type f32 = rewriter.getF32Type();
  Value tid = ix.tid();
  Value zero =
      rewriter.create<LLVM::ConstantOp>(loc, f32, rewriter.getF32FloatAttr(0));
  Value one =
      rewriter.create<LLVM::ConstantOp>(loc, f32, rewriter.getF32FloatAttr(1));
  auto elemPtr = [&](Idx &bx, Value base, int64_t i, Value j) {
    return bx.gep(base, bx.b.getI8Type(),
                  sharedByteOffset(bx, t, {bx.c(i), j}));
  };
    for (int64_t slot = 0; slot * numThreads < n; ++slot) {
      Value col = ix.add(tid, slot * numThreads);
      Value guard = (slot + 1) * numThreads > n ? ix.ult(col, ix.c(n)) : Value();
      emitGuarded(rewriter, loc, guard, [&](OpBuilder &b) {
        Idx bx(b, loc);
        // Row i: x_i = [i == col] - sum_k L_ik x_k, with the sum split
        // over four accumulators (k mod 4) combined in a fixed order, so
        // the dependent chain per row is a few operations, not i.
        SmallVector<Value> x(n);
        for (int64_t i = 0; i < n; ++i) {
          Value isDiag = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq,
                                                col, bx.c(i));
          Value partial[4] = {zero, zero, zero, zero};
          // L row i in 16-byte broadcast loads (rows are 16-byte aligned
          // when n % 4 == 0).
          auto vec4 = VectorType::get({4}, f32);
          for (int64_t k0 = 0; k0 < i; k0 += 4) {
            Value l4;
            if (n % 4 == 0)
              l4 = b.create<LLVM::LoadOp>(
                  loc, vec4, elemPtr(bx, src, i, bx.c(k0)),
                  /*alignment=*/16);
            for (int64_t k = k0; k < std::min(k0 + 4, i); ++k) {
              Value l = l4 ? b.create<LLVM::ExtractElementOp>(loc, l4,
                                                              bx.c32(k - k0))
                                 .getResult()
                           : b.create<LLVM::LoadOp>(
                                 loc, f32,
                                 elemPtr(bx, src, i, bx.c(k)))
                                 .getResult();
              partial[k % 4] =
                  b.create<LLVM::FMAOp>(loc, l, x[k], partial[k % 4]);
            }
          }
          Value sum = b.create<LLVM::FAddOp>(
              loc, b.create<LLVM::FAddOp>(loc, partial[0], partial[1]),
              b.create<LLVM::FAddOp>(loc, partial[2], partial[3]));
          Value delta = b.create<LLVM::SelectOp>(loc, isDiag, one, zero);
          x[i] = b.create<LLVM::FSubOp>(loc, delta, sum);
        }
        for (int64_t i = 0; i < n; ++i)
          b.create<LLVM::StoreOp>(loc, x[i],
                                  elemPtr(bx, dst, i, col));
      });
    }
}

struct TrilInverseLowering : TilePattern<TrilInverseOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(TrilInverseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<BufferType>(op.getSource().getType());
    lowerTrilColumns(rewriter, op.getLoc(), t, adaptor.getSource(),
                     adaptor.getDest(), numThreadsOf(op));
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The blocked inverse, phase by phase
//===----------------------------------------------------------------------===//

/// Calls `fn(bx, r, c)` for the elements (r, c) of a 16x16 block this
/// thread owns in a blocked distribution of one element per slot, each
/// under its guard.
void forBlockElements(ConversionPatternRewriter &rewriter, Location loc,
                      Idx &ix, int64_t numThreads, Value tid,
                      function_ref<void(Idx &, Value, Value)> fn) {
  for (Run &run : blockedRuns(ix, {16, 16}, 1, numThreads, tid))
    emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
      Idx bx(b, loc);
      fn(bx, run.coord[0], run.coord[1]);
    });
}

Value f32Const(ConversionPatternRewriter &rewriter, Location loc, float v) {
  return rewriter.create<LLVM::ConstantOp>(loc, rewriter.getF32Type(),
                                           rewriter.getF32FloatAttr(v));
}

/// The nb diagonal 16x16 blocks by forward substitution (one column per
/// thread, all blocks at once: column c of block b is element (b, c) of a
/// blocked distribution of [nb, 16]), and zeros above them.
struct TrilInverseDiagLowering : TilePattern<TrilInverseDiagOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(TrilInverseDiagOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<BufferType>(op.getSource().getType());
    Location loc = op.getLoc();
    Value src = adaptor.getSource(), dst = adaptor.getDest();
    Idx ix(rewriter, loc);
    int64_t n = t.getShape()[0], nb = n / 16;
    int64_t numThreads = numThreadsOf(op);
    Value tid = ix.tid();
    SquareAccess acc{t, src, dst};
    Value zero = f32Const(rewriter, loc, 0), one = f32Const(rewriter, loc, 1);
    for (Run &run : blockedRuns(ix, {nb, 16}, 1, numThreads, tid))
      emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
        Idx bx(b, loc);
        Value base = bx.mul(run.coord[0], 16);
        Value c = run.coord[1];
        SmallVector<Value> x(16);
        for (int64_t i = 0; i < 16; ++i) {
          Value isDiag = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq,
                                                c, bx.c(i));
          Value sum = zero;
          for (int64_t k = 0; k < i; ++k)
            sum = b.create<LLVM::FMAOp>(
                loc, acc.load(bx, src, bx.add(base, i), bx.add(base, k)),
                x[k], sum);
          Value delta = b.create<LLVM::SelectOp>(loc, isDiag, one, zero);
          x[i] = b.create<LLVM::FSubOp>(loc, delta, sum);
        }
        for (int64_t i = 0; i < 16; ++i)
          acc.store(bx, dst, bx.add(base, i), bx.add(base, c), x[i]);
      });
    for (int64_t bi = 0; bi < nb; ++bi)
      for (int64_t bj = bi + 1; bj < nb; ++bj)
        forBlockElements(rewriter, loc, ix, numThreads, tid,
                         [&](Idx &bx, Value r, Value c) {
                           acc.store(bx, dst, bx.add(r, bi * 16),
                                     bx.add(c, bj * 16), zero);
                         });
    rewriter.eraseOp(op);
    return success();
  }
};

/// Y_ij = sum_{16j <= q < 16i} L[16i + r][q] T[q][16j + c], written into the
/// (still unused) block (i, j) = (j + level, j) of the result.
struct TrilInverseProductLowering : TilePattern<TrilInverseProductOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(TrilInverseProductOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<BufferType>(op.getSource().getType());
    Location loc = op.getLoc();
    Value src = adaptor.getSource(), dst = adaptor.getDest();
    Idx ix(rewriter, loc);
    int64_t nb = t.getShape()[0] / 16, d = op.getLevel();
    int64_t numThreads = numThreadsOf(op);
    Value tid = ix.tid();
    SquareAccess acc{t, src, dst};
    Value zero = f32Const(rewriter, loc, 0);
    for (int64_t j = 0; j + d < nb; ++j) {
      int64_t i = j + d;
      forBlockElements(rewriter, loc, ix, numThreads, tid,
                       [&](Idx &bx, Value r, Value c) {
                         Value row = bx.add(r, i * 16), col = bx.add(c, j * 16);
                         Value sum = zero;
                         for (int64_t q = 16 * j; q < 16 * i; ++q)
                           sum = bx.b.create<LLVM::FMAOp>(
                               loc, acc.load(bx, src, row, bx.c(q)),
                               acc.load(bx, dst, bx.c(q), col), sum);
                         acc.store(bx, dst, row, col, sum);
                       });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// T_ij = -T_ii Y_ij into the registers of block j's fragment. Registers of
/// slots a thread does not own compute on element 0 (in bounds);
/// tile.tril_inverse_store does not store them.
struct TrilInverseScaleLowering : TilePattern<TrilInverseScaleOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(TrilInverseScaleOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<BufferType>(op.getSource().getType());
    if (failed(requireLayouts(op, op.getBlocks())))
      return failure();
    Location loc = op.getLoc();
    Value dst = adaptor.getSource();
    Idx ix(rewriter, loc);
    int64_t nb = t.getShape()[0] / 16, d = op.getLevel();
    int64_t numThreads = numThreadsOf(op);
    Value tid = ix.tid();
    SquareAccess acc{t, dst, dst};
    Value zero = f32Const(rewriter, loc, 0);
    for (int64_t j = 0; j + d < nb; ++j) {
      int64_t i = j + d;
      auto fragT = cast<BufferType>(op.getBlocks()[j].getType());
      Regs out{adaptor.getBlocks()[j], rewriter.getF32Type()};
      for (Run &run : fragmentRuns(ix, fragT, numThreads, tid)) {
        Value r = run.coord[0], c0 = run.coord[1];
        if (run.guard) {
          r = rewriter.create<LLVM::SelectOp>(loc, run.guard, r, ix.c(0));
          c0 = rewriter.create<LLVM::SelectOp>(loc, run.guard, c0, ix.c(0));
        }
        for (int64_t e = 0; e < run.len; ++e) {
          Value row = ix.add(r, i * 16);
          Value col = ix.add(ix.add(c0, e), j * 16);
          Value sum = zero;
          for (int64_t m = 0; m < 16; ++m)
            sum = rewriter.create<LLVM::FMAOp>(
                loc, acc.load(ix, dst, row, ix.c(i * 16 + m)),
                acc.load(ix, dst, ix.c(i * 16 + m), col), sum);
          out.store(ix, run.reg + e, rewriter.create<LLVM::FNegOp>(loc, sum));
        }
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Block j's fragment into block (j + level, j) of the result.
struct TrilInverseStoreLowering : TilePattern<TrilInverseStoreOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(TrilInverseStoreOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<BufferType>(op.getDest().getType());
    if (failed(requireLayouts(op, op.getBlocks())))
      return failure();
    Location loc = op.getLoc();
    Value dst = adaptor.getDest();
    Idx ix(rewriter, loc);
    int64_t nb = t.getShape()[0] / 16, d = op.getLevel();
    int64_t numThreads = numThreadsOf(op);
    Value tid = ix.tid();
    SquareAccess acc{t, dst, dst};
    for (int64_t j = 0; j + d < nb; ++j) {
      int64_t i = j + d;
      auto fragT = cast<BufferType>(op.getBlocks()[j].getType());
      Regs in{adaptor.getBlocks()[j], rewriter.getF32Type()};
      for (Run &run : fragmentRuns(ix, fragT, numThreads, tid))
        emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
          Idx bx(b, loc);
          for (int64_t e = 0; e < run.len; ++e) {
            Value row = bx.add(run.coord[0], i * 16);
            Value col = bx.add(bx.add(run.coord[1], e), j * 16);
            acc.store(bx, dst, row, col, in.load(bx, run.reg + e));
          }
        });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateTrilInverseToNVVMPatterns(LLVMTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<TrilInverseLowering, TrilInverseDiagLowering,
               TrilInverseProductLowering, TrilInverseScaleLowering,
               TrilInverseStoreLowering>(converter);
}

} // namespace mlir::gdn
