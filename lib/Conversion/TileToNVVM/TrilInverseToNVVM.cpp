//===- TrilInverseToNVVM.cpp - tile.tril_inverse to NVVM -------------------===//
//
// The exact inverse of a unit lower triangular f32 matrix in shared memory:
// blocked (16x16 diagonal blocks, then merge levels) for multiples of 16 up
// to one element per thread, otherwise forward substitution with one column
// per thread.
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

/// The blocked exact inverse of GDN.md section 2.3, for n = 16 * nb: the
/// nb diagonal 16x16 blocks by forward substitution (one column per thread,
/// all blocks at once), then the off-diagonal blocks by distance d from the
/// diagonal, T_ij = -T_ii (sum_{j <= k < i} L_ik T_kj), every element of a
/// level in parallel. Exact (no truncated series); fixed summation order.
void lowerTrilBlocked(ConversionPatternRewriter &rewriter, Location loc,
                      BufferType t, Value src, Value dst, int64_t numThreads) {
  Idx ix(rewriter, loc);
  int64_t n = t.getShape()[0], nb = n / 16;
  Type f32 = rewriter.getF32Type();
  Value tid = ix.tid();
  SquareAccess acc{t, src, dst};
  Value zero =
      rewriter.create<LLVM::ConstantOp>(loc, f32, rewriter.getF32FloatAttr(0));
  Value one =
      rewriter.create<LLVM::ConstantOp>(loc, f32, rewriter.getF32FloatAttr(1));

  // Diagonal blocks: thread t < n handles column t % 16 of block t / 16.
  emitGuarded(rewriter, loc, n < numThreads ? ix.ult(tid, ix.c(n)) : Value(),
              [&](OpBuilder &b) {
                Idx bx(b, loc);
                Value base = bx.mul(bx.div(tid, 16), 16);
                Value c = bx.rem(tid, 16);
                SmallVector<Value> x(16);
                for (int64_t i = 0; i < 16; ++i) {
                  Value isDiag = b.create<LLVM::ICmpOp>(
                      loc, LLVM::ICmpPredicate::eq, c, bx.c(i));
                  Value sum = zero;
                  for (int64_t k = 0; k < i; ++k)
                    sum = b.create<LLVM::FMAOp>(
                        loc,
                        acc.load(bx, src, bx.add(base, i), bx.add(base, k)),
                        x[k], sum);
                  Value delta = b.create<LLVM::SelectOp>(loc, isDiag, one, zero);
                  x[i] = b.create<LLVM::FSubOp>(loc, delta, sum);
                }
                for (int64_t i = 0; i < 16; ++i)
                  acc.store(bx, dst, bx.add(base, i), bx.add(base, c), x[i]);
              });
  // Zeros above the diagonal blocks.
  auto forBlockElements = [&](function_ref<void(Idx &, Value, Value)> fn) {
    for (int64_t s = 0; s * numThreads < 256; ++s) {
      Value e = ix.add(tid, s * numThreads);
      Value guard =
          (s + 1) * numThreads > 256 ? ix.ult(e, ix.c(256)) : Value();
      emitGuarded(rewriter, loc, guard, [&](OpBuilder &b) {
        Idx bx(b, loc);
        fn(bx, bx.div(e, 16), bx.rem(e, 16));
      });
    }
  };
  for (int64_t bi = 0; bi < nb; ++bi)
    for (int64_t bj = bi + 1; bj < nb; ++bj)
      forBlockElements([&](Idx &bx, Value r, Value c) {
        acc.store(bx, dst, bx.add(r, bi * 16), bx.add(c, bj * 16), zero);
      });
  rewriter.create<NVVM::Barrier0Op>(loc);

  for (int64_t d = 1; d < nb; ++d) {
    // Y_ij = sum_{16j <= q < 16i} L[16i + r][q] T[q][16j + c], written into
    // the (still unused) block (i, j) of the result.
    for (int64_t j = 0; j + d < nb; ++j) {
      int64_t i = j + d;
      forBlockElements([&](Idx &bx, Value r, Value c) {
        Value row = bx.add(r, i * 16), col = bx.add(c, j * 16);
        Value sum = zero;
        for (int64_t q = 16 * j; q < 16 * i; ++q)
          sum = bx.b.create<LLVM::FMAOp>(loc, acc.load(bx, src, row, bx.c(q)),
                                         acc.load(bx, dst, bx.c(q), col), sum);
        acc.store(bx, dst, row, col, sum);
      });
    }
    rewriter.create<NVVM::Barrier0Op>(loc);
    // T_ij = -T_ii Y_ij, read completely before any of it is overwritten.
    SmallVector<Value> results;
    SmallVector<std::pair<Value, Value>> where;
    for (int64_t j = 0; j + d < nb; ++j) {
      int64_t i = j + d;
      for (int64_t s = 0; s * numThreads < 256; ++s) {
        Value e = ix.add(tid, s * numThreads);
        // Threads past the block compute on element 0 (in bounds) and do
        // not store.
        Value inBlock =
            (s + 1) * numThreads > 256 ? ix.ult(e, ix.c(256)) : Value();
        Value ee = inBlock ? rewriter.create<LLVM::SelectOp>(loc, inBlock, e,
                                                             ix.c(0))
                                 .getResult()
                           : e;
        Value row = ix.add(ix.div(ee, 16), i * 16);
        Value col = ix.add(ix.rem(ee, 16), j * 16);
        Value sum = zero;
        for (int64_t m = 0; m < 16; ++m)
          sum = rewriter.create<LLVM::FMAOp>(
              loc, acc.load(ix, dst, row, ix.c(i * 16 + m)),
              acc.load(ix, dst, ix.c(i * 16 + m), col), sum);
        results.push_back(rewriter.create<LLVM::FNegOp>(loc, sum));
        where.push_back({row, col});
        (void)inBlock;
      }
    }
    rewriter.create<NVVM::Barrier0Op>(loc);
    size_t k = 0;
    for (int64_t j = 0; j + d < nb; ++j)
      for (int64_t s = 0; s * numThreads < 256; ++s, ++k) {
        Value e = ix.add(tid, s * numThreads);
        Value guard =
            (s + 1) * numThreads > 256 ? ix.ult(e, ix.c(256)) : Value();
        emitGuarded(rewriter, loc, guard, [&](OpBuilder &b) {
          Idx bx(b, loc);
          acc.store(bx, dst, where[k].first, where[k].second, results[k]);
        });
      }
    if (d + 1 < nb)
      rewriter.create<NVVM::Barrier0Op>(loc);
  }
}

struct TrilInverseLowering : TilePattern<TrilInverseOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(TrilInverseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<BufferType>(op.getSource().getType());
    int64_t n = t.getShape()[0];
    int64_t numThreads = numThreadsOf(op);
    if (n % 16 == 0 && n >= 32 && n <= numThreads)
      lowerTrilBlocked(rewriter, op.getLoc(), t, adaptor.getSource(),
                       adaptor.getDest(), numThreads);
    else
      lowerTrilColumns(rewriter, op.getLoc(), t, adaptor.getSource(),
                       adaptor.getDest(), numThreads);
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateTrilInverseToNVVMPatterns(LLVMTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<TrilInverseLowering>(converter);
}

} // namespace mlir::gdn
