//===- TrilInverseToNVVM.cpp - tile.tril_inverse and its phases to NVVM ----===//
//
// The exact inverse of a unit lower triangular f32 matrix in shared memory.
// tile.tril_inverse is forward substitution with one column per thread (no
// barrier). The blocked inverse of docs/gdn-math.md §2.3 arrives as its phases
// (tile-expand-tril-inverse), each free of block barriers:
// tile.tril_inverse_diag (the 16x16 diagonal blocks, zeros above them; with
// merge_pairs also the size-16 doubling merge on the same warps), then the
// doubling merges tile.tril_inverse_merge (T21 = -T2 (L21 T1)) or, per level
// d, tile.tril_inverse_level (T_ij = -T_ii L T), on the tensor cores in split
// tf32 (merges of sizes 16 and 32 with `fma`: f32 fma chains on the CUDA
// cores instead); tile-insert-barriers puts the barriers between them. Every
// element's sum has a fixed order.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

namespace mlir::gdn {
namespace {
using namespace mlir::gdn::tile;

/// Shared f32 [n][n] element access for the triangular inverse. The source
/// and the destination may have different layouts (row paddings): each is
/// addressed with its own.
struct SquareAccess {
  BufferType srcType, dstType;
  Value src, dst;
  BufferType typeOf(Value base) const {
    return base == dst ? dstType : srcType;
  }
  Value ptr(Idx &ix, Value base, Value r, Value c) const {
    return ix.gep(base, ix.b.getI8Type(),
                  sharedByteOffset(ix, typeOf(base), {r, c}));
  }
  Value load(Idx &ix, Value base, Value r, Value c) const {
    return ix.b.create<LLVM::LoadOp>(ix.loc, ix.b.getF32Type(),
                                     ptr(ix, base, r, c));
  }
  void store(Idx &ix, Value base, Value r, Value c, Value v) const {
    ix.b.create<LLVM::StoreOp>(ix.loc, v, ptr(ix, base, r, c));
  }
  /// Element (r + dr, c + dc) for compile-time dr, dc, given `at` =
  /// ptr(base, r, c): an unswizzled (row-major, maybe padded) buffer is
  /// linear, so the step is a constant byte offset that the NVPTX back end
  /// folds into the load's [reg + imm] address (offset(r + dr, ...)
  /// computed anew is an or/shl chain per element: disjoint bits turn the
  /// adds into ors, which it does not fold). With a group skew (S more
  /// elements every G rows) the step is constant when dr is a multiple of
  /// G, or when the caller knows r is a multiple of 16 (`row16`) and G
  /// divides 16 (dr >= 0). Swizzled buffers, and skewed ones otherwise,
  /// recompute the address.
  Value step(Idx &ix, Value at, Value base, Value r, Value c, int64_t dr,
             int64_t dc, bool row16 = false) const {
    BufferType type = typeOf(base);
    auto [groupRows, groupElems] = type.getGroupSkew();
    bool aligned = row16 && dr >= 0 && 16 % std::max<int64_t>(groupRows, 1) == 0;
    if (isa_and_nonnull<SwizzleAttr>(type.getLayout()) ||
        (groupRows > 0 && dr % groupRows != 0 && !aligned))
      return ptr(ix, base, ix.add(r, dr), ix.add(c, dc));
    int64_t rowElems = type.getShape()[1] + type.getRowPadding();
    int64_t skew = groupRows > 0 ? dr / groupRows * groupElems : 0;
    int64_t bytes = (dr * rowElems + skew + dc) * type.getElementBytes();
    return ix.gep(at, ix.b.getI8Type(), ix.c(bytes));
  }
};

/// trunc_tf32(x) of an f32 x as a b32 register: its bits and 0xFFFFE000
/// (the 13 low mantissa bits cleared).
Value tf32High(OpBuilder &b, Location loc, Value x) {
  Type i32 = b.getI32Type();
  Value bits = b.create<LLVM::BitcastOp>(loc, i32, x);
  Value mask = b.create<LLVM::ConstantOp>(
      loc, i32, b.getI32IntegerAttr(static_cast<int32_t>(0xFFFFE000)));
  return b.create<LLVM::AndOp>(loc, bits, mask);
}

/// The split-tf32 phases' shared-memory operands, per thread, each address
/// a constant step (dr, dc) from a per-thread pointer `at` = ptr(base, r, c)
/// (SquareAccess::step): 16x8 f32 A blocks by ldmatrix.x4, single f32
/// loads (B operands), and an mma accumulator stored as two 8-byte pairs.
struct PhaseIO {
  OpBuilder &b;
  Location loc;
  Idx &bx;
  const SquareAccess &acc;

  /// The m16n8k8 tf32 A fragment of the 16x8 block whose lane address is
  /// `at` (lane l at row l % 8 + 8 ((l / 8) % 2), column 4 (l / 16)): each
  /// 16x8 f32 block is four 8x8 b16 matrices of 8 rows x 16 bytes, and lane
  /// (g, t) receives word t of row g of each.
  SmallVector<Value, 4> ldmatrix(Value at, Value base, Value r, Value c,
                                 int64_t dr, int64_t dc) const {
    Type i32 = b.getI32Type(), f32 = b.getF32Type();
    auto x4 = LLVM::LLVMStructType::getLiteral(b.getContext(),
                                               {i32, i32, i32, i32});
    Value res = b.create<NVVM::LdMatrixOp>(
        loc, x4, acc.step(bx, at, base, r, c, dr, dc), 4,
        NVVM::MMALayout::row);
    SmallVector<Value, 4> out;
    for (int64_t i = 0; i < 4; ++i)
      out.push_back(b.create<LLVM::BitcastOp>(
          loc, f32, b.create<LLVM::ExtractValueOp>(loc, res, i)));
    return out;
  }
  Value load(Value at, Value base, Value r, Value c, int64_t dr,
             int64_t dc) const {
    return b
        .create<LLVM::LoadOp>(loc, b.getF32Type(),
                              acc.step(bx, at, base, r, c, dr, dc))
        .getResult();
  }
  /// Accumulator c4 (rows g, g + 8 x columns 2 t, 2 t + 1 of a 16x8 tile),
  /// negated if asked, as two 8-byte stores; `at` addresses row g, column
  /// 2 t of the tile at step (0, 0).
  void storeAcc(Value at, Value base, Value r, Value c, int64_t dr,
                int64_t dc, ArrayRef<Value> c4, bool negate) const {
    auto vec2 = VectorType::get({2}, b.getF32Type());
    for (int64_t h = 0; h < 2; ++h) {
      Value v = b.create<LLVM::UndefOp>(loc, vec2);
      for (int64_t e = 0; e < 2; ++e) {
        Value x = c4[2 * h + e];
        if (negate)
          x = b.create<LLVM::FNegOp>(loc, x);
        v = b.create<LLVM::InsertElementOp>(loc, v, x, bx.c32(e));
      }
      b.create<LLVM::StoreOp>(loc, v,
                              acc.step(bx, at, base, r, c, dr + 8 * h, dc),
                              /*alignment=*/8);
    }
  }
};

/// The straight-line column substitution below unrolls slots x n (n - 1) / 2
/// multiply-adds (slots = columns per thread); LLVM's compile time grows
/// much faster than that (measured 2026-12-05: 4,032 at n = 64 on one warp
/// 0.95 s, 4,950 at n = 100 on four warps 2 s, 8,001 at n = 127 on four
/// warps 5 s, 13,680 at n = 96 on one warp 31 s, 16,256 at n = 128 on two
/// warps 55 s), so past this many the inverse takes the loop form.
constexpr int64_t kMaxUnrolledColumnFmas = 4096;

/// lowerTrilColumns as loops (slots, rows, groups of four of the row's
/// columns): the same sums, four accumulators by k mod 4 combined in the
/// same order, with the column's earlier entries read back from the
/// destination instead of held in registers; code size independent of n.
/// In a group the entries k >= i enter as 0 x 0 (the reads clamped to
/// k = i - 1, in bounds, their values dropped), and, packed, T's entries
/// above the diagonal (k < col: the buffer holds L's there) as zeros. So
/// the bits are the straight-line form's, but for one case: packed, with a
/// non-finite L entry in a row above column col's diagonal, the straight-
/// line form multiplies it by those zeros and turns the whole column into
/// NaN, while here only the entries that entry reaches are.
void lowerTrilColumnsRolled(ConversionPatternRewriter &rewriter, Location loc,
                            BufferType t, BufferType dstType, Value src,
                            Value dst, int64_t numThreads, bool packed) {
  Idx ix(rewriter, loc);
  int64_t n = t.getShape()[0];
  Type f32 = rewriter.getF32Type();
  Value zero =
      rewriter.create<LLVM::ConstantOp>(loc, f32, rewriter.getF32FloatAttr(0));
  Value one =
      rewriter.create<LLVM::ConstantOp>(loc, f32, rewriter.getF32FloatAttr(1));
  Value tid = ix.tid();
  SquareAccess acc{t, dstType, src, dst};
  // T(k, col): packed, row col of the buffer from the diagonal on.
  auto tPtr = [&](Value k, Value col) {
    return packed ? acc.ptr(ix, dst, col, k) : acc.ptr(ix, dst, k, col);
  };
  auto select = [&](Value c, Value a, Value b) -> Value {
    return rewriter.create<LLVM::SelectOp>(loc, c, a, b);
  };
  int64_t slots = llvm::divideCeil(n, numThreads);
  auto columns = [&](Value slot, ValueRange) {
    Value col = ix.add(tid, ix.mul(slot, numThreads));
    Value guard = n % numThreads ? ix.ult(col, ix.c(n)) : Value();
    emitGuarded(rewriter, loc, guard, [&](OpBuilder &) {
      emitCountedLoop(rewriter, ix, ix.c(n), 1, {}, [&](Value i, ValueRange) {
        Value last = ix.add(i, -1);
        SmallVector<Value> partial = emitCountedLoop(
            rewriter, ix, i, 4, {zero, zero, zero, zero},
            [&](Value k0, ValueRange p) {
              SmallVector<Value> next;
              for (int64_t e = 0; e < 4; ++e) {
                Value k = ix.add(k0, e);
                Value in = ix.ult(k, i);
                Value kk = select(in, k, last);
                Value l = acc.load(ix, src, i, kk);
                Value x =
                    rewriter.create<LLVM::LoadOp>(loc, f32, tPtr(kk, col));
                Value xin = packed ? ix.and_(in, ix.ule(col, kk)) : in;
                next.push_back(rewriter.create<LLVM::FMAOp>(
                    loc, select(in, l, zero), select(xin, x, zero), p[e]));
              }
              return next;
            });
        Value sum = rewriter.create<LLVM::FAddOp>(
            loc, rewriter.create<LLVM::FAddOp>(loc, partial[0], partial[1]),
            rewriter.create<LLVM::FAddOp>(loc, partial[2], partial[3]));
        Value isDiag = rewriter.create<LLVM::ICmpOp>(
            loc, LLVM::ICmpPredicate::eq, col, i);
        Value xi = rewriter.create<LLVM::FSubOp>(
            loc, select(isDiag, one, zero), sum);
        emitGuarded(rewriter, loc, packed ? ix.ule(col, i) : Value(),
                    [&](OpBuilder &) {
                      rewriter.create<LLVM::StoreOp>(loc, xi, tPtr(i, col));
                    });
        return SmallVector<Value>{};
      });
    });
    return SmallVector<Value>{};
  };
  emitCountedLoop(rewriter, ix, ix.c(slots), 1, {}, columns);
}

/// Forward substitution, one column per thread: t = e_j - L t over the rows
/// in order. Rows above j come out as exact zeros, so every thread runs the
/// same straight-line code. Used for small or odd sizes (large ones as
/// loops: lowerTrilColumnsRolled).
void lowerTrilColumns(ConversionPatternRewriter &rewriter, Location loc,
                      BufferType t, BufferType dstType, Value src, Value dst,
                      int64_t numThreads, bool packed) {
  int64_t n = t.getShape()[0];
  if (llvm::divideCeil(n, numThreads) * (n * (n - 1) / 2) >
      kMaxUnrolledColumnFmas)
    return lowerTrilColumnsRolled(rewriter, loc, t, dstType, src, dst,
                                  numThreads, packed);
  Idx ix(rewriter, loc);
  Type f32 = rewriter.getF32Type();
  Value tid = ix.tid();
  Value zero =
      rewriter.create<LLVM::ConstantOp>(loc, f32, rewriter.getF32FloatAttr(0));
  Value one =
      rewriter.create<LLVM::ConstantOp>(loc, f32, rewriter.getF32FloatAttr(1));
  // Each operand with its own layout.
  auto elemPtr = [&](Idx &bx, Value base, int64_t i, Value j) {
    return bx.gep(base, bx.b.getI8Type(),
                  sharedByteOffset(bx, base == dst ? dstType : t,
                                   {bx.c(i), j}));
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
          // when n % 4 == 0). Packed, the last group of a row would also
          // read entries on and right of the diagonal, which the thread of
          // column i is writing: scalar loads there.
          auto vec4 = VectorType::get({4}, f32);
          for (int64_t k0 = 0; k0 < i; k0 += 4) {
            Value l4;
            if (n % 4 == 0 && (!packed || k0 + 4 <= i))
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
        // Packed: column col of T is row col of the buffer from the
        // diagonal on (the entries left of it hold L).
        for (int64_t i = 0; i < n; ++i) {
          if (!packed) {
            b.create<LLVM::StoreOp>(loc, x[i], elemPtr(bx, dst, i, col));
            continue;
          }
          emitGuarded(rewriter, loc, bx.ule(col, bx.c(i)), [&](OpBuilder &) {
            Idx sx(rewriter, loc);
            rewriter.create<LLVM::StoreOp>(
                loc, x[i],
                sx.gep(dst, rewriter.getI8Type(),
                       sharedByteOffset(sx, dstType, {col, sx.c(i)})));
          });
        }
      });
    }
}

struct TrilInverseLowering : TilePattern<TrilInverseOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(TrilInverseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<BufferType>(op.getSource().getType());
    lowerTrilColumns(rewriter, op.getLoc(), t,
                     cast<BufferType>(op.getDest().getType()),
                     adaptor.getSource(), adaptor.getDest(), numThreadsOf(op),
                     op.getPacked());
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The blocked inverse, phase by phase
//===----------------------------------------------------------------------===//

Value f32Const(OpBuilder &b, Location loc, float v) {
  return b.create<LLVM::ConstantOp>(loc, b.getF32Type(),
                                    b.getF32FloatAttr(v));
}

/// One merge task's strips on one warp (defined below, with the merge).
void emitMergeStrips(ConversionPatternRewriter &rewriter, OpBuilder &b,
                     Location loc, Idx &bx, const SquareAccess &acc, Value src,
                     Value dst, int64_t size, Value pair, Value jb,
                     ArrayRef<Value> cols, Value lane, bool stagedLo = false);

/// One fma merge task on one warp (defined below, with the merge).
void emitMergeStripFma(OpBuilder &b, Location loc, Idx &bx,
                       const SquareAccess &acc, Value src, Value dst,
                       int64_t size, Value p0, Value colOff, int64_t jb,
                       Value lane);

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
    if (op.getMergePairs() && n > numThreads)
      return rewriter.notifyMatchFailure(
          op, "merge_pairs needs a thread per column of the matrix");
    if (op.getStageLo() && numThreads <= n)
      return rewriter.notifyMatchFailure(
          op, "stage_lo needs threads beyond the matrix's columns");
    Value tid = ix.tid();
    SquareAccess acc{t, cast<BufferType>(op.getDest().getType()), src, dst};
    Value zero = f32Const(rewriter, loc, 0), one = f32Const(rewriter, loc, 1);
    for (Run &run : blockedRuns(ix, {nb, 16}, 1, numThreads, tid))
      emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
        Idx bx(b, loc);
        Value base = bx.mul(run.coord[0], 16);
        Value c = run.coord[1];
        Value col = bx.add(base, c);
        // The block's corner in L and this thread's column of T: every
        // element below is a constant step from one of them.
        Value lCorner = acc.ptr(bx, src, base, base);
        Value tColumn = op.getPacked() ? Value() : acc.ptr(bx, dst, base, col);
        SmallVector<Value> x(16);
        auto vec4 = VectorType::get({4}, b.getF32Type());
        for (int64_t i = 0; i < 16; ++i) {
          Value isDiag = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq,
                                                c, bx.c(i));
          // Row i of L_bb in 16-byte loads, the same for the 16 threads of
          // the block (a broadcast): ceil(i / 4) loads instead of i. A group
          // that reaches the diagonal also reads entries on and right of it
          // (unused); packed, the threads are writing T_bb^T there, so that
          // group is read element by element. The FMA chain keeps its order.
          Value sum = zero;
          for (int64_t k0 = 0; k0 < i; k0 += 4) {
            Value l4;
            if (!op.getPacked() || k0 + 4 <= i)
              l4 = b.create<LLVM::LoadOp>(
                  loc, vec4, acc.step(bx, lCorner, src, base, base, i, k0,
                           /*row16=*/true),
                  /*alignment=*/16);
            for (int64_t k = k0; k < std::min<int64_t>(k0 + 4, i); ++k) {
              Value l =
                  l4 ? b.create<LLVM::ExtractElementOp>(loc, l4,
                                                        bx.c32(k - k0))
                           .getResult()
                     : b.create<LLVM::LoadOp>(
                            loc, b.getF32Type(),
                            acc.step(bx, lCorner, src, base, base, i, k,
                                     /*row16=*/true))
                           .getResult();
              sum = b.create<LLVM::FMAOp>(loc, l, x[k], sum);
            }
          }
          Value delta = b.create<LLVM::SelectOp>(loc, isDiag, one, zero);
          x[i] = b.create<LLVM::FSubOp>(loc, delta, sum);
        }
        for (int64_t i = 0; i < 16; ++i) {
          if (!op.getPacked()) {
            b.create<LLVM::StoreOp>(
                loc, x[i], acc.step(bx, tColumn, dst, base, col, i, 0,
                                  /*row16=*/true));
            continue;
          }
          // Packed: T_bb^T into the block's upper triangle (with the
          // diagonal); its strict lower triangle is L_bb.
          emitGuarded(rewriter, loc, bx.ule(c, bx.c(i)), [&](OpBuilder &) {
            Idx sx(rewriter, loc);
            acc.store(sx, dst, sx.add(base, c), sx.add(base, i), x[i]);
          });
        }
      });
    // merge_pairs: warp w inverted blocks 2 w and 2 w + 1 (threads 16 b ..
    // 16 b + 15 hold block b's columns); after a warp sync it forms the
    // block below them (the size-16 doubling step, both 8-column strips).
    if (op.getMergePairs()) {
      Value warp = ix.div(tid, 32), lane = ix.rem(tid, 32);
      emitGuarded(rewriter, loc, ix.ult(warp, ix.c(nb / 2)), [&](OpBuilder &b) {
        Idx bx(b, loc);
        b.create<NVVM::SyncWarpOp>(
            loc, b.create<LLVM::ConstantOp>(loc, b.getI32Type(),
                                            b.getI32IntegerAttr(-1)));
        Value r0 = bx.mul(warp, 32);
        if (op.getFma())
          emitMergeStripFma(b, loc, bx, acc, src, dst, /*size=*/16, r0,
                            bx.c(0), /*jb=*/0, lane);
        else
          emitMergeStrips(rewriter, b, loc, bx, acc, src, dst, /*size=*/16,
                          warp, bx.c(0), {r0, bx.add(r0, 8)}, lane);
      });
    }
    // stage_lo: the threads past the n columns, idle above, split the final
    // merge's L21 (rows n/2.., columns ..n/2 of L) once and store the low
    // parts x - tf32(x) into dest's block above the diagonal (rows ..n/2,
    // columns n/2..), which lower_only leaves free, 16 bytes at a time:
    // the same two ops per element as SplitTf32Mma::split.
    if (op.getStageLo()) {
      int64_t half = n / 2, idle = numThreads - n, vecs = half * half / 4;
      auto vec4 = VectorType::get({4}, rewriter.getF32Type());
      Type f32 = rewriter.getF32Type();
      // One 16-byte vector: load L21's (r, c..c+3), store the low parts.
      auto stage = [&](OpBuilder &b2, Idx &sx, Value srcAt, Value dstAt,
                       Value r, Value c, int64_t dr) {
        Value x4 = b2.create<LLVM::LoadOp>(
            loc, vec4, acc.step(sx, srcAt, src, sx.add(r, half), c, dr, 0),
            /*alignment=*/16);
        Value lo4 = b2.create<LLVM::UndefOp>(loc, vec4);
        for (int64_t e = 0; e < 4; ++e) {
          Value x = b2.create<LLVM::ExtractElementOp>(loc, x4, sx.c32(e));
          Value hi = b2.create<LLVM::BitcastOp>(loc, f32, tf32High(b2, loc, x));
          lo4 = b2.create<LLVM::InsertElementOp>(
              loc, lo4, b2.create<LLVM::FSubOp>(loc, x, hi), sx.c32(e));
        }
        b2.create<LLVM::StoreOp>(
            loc, lo4, acc.step(sx, dstAt, dst, r, sx.add(c, half), dr, 0),
            /*alignment=*/16);
      };
      emitGuarded(rewriter, loc, ix.ult(ix.c(n - 1), tid), [&](OpBuilder &b) {
        Idx bx(b, loc);
        Value t = bx.add(tid, -n);
        if ((4 * idle) % half == 0 && vecs % idle == 0) {
          // Every round moves the idle threads 4 idle / half rows down:
          // one address pair, then constant steps.
          Value e = bx.mul(t, 4);
          Value r = bx.div(e, half), c = bx.rem(e, half);
          Value srcAt = acc.ptr(bx, src, bx.add(r, half), c);
          Value dstAt = acc.ptr(bx, dst, r, bx.add(c, half));
          for (int64_t round = 0; round < vecs / idle; ++round)
            stage(b, bx, srcAt, dstAt, r, c, round * 4 * idle / half);
          return;
        }
        for (Run &run : blockedRuns(bx, {half, half}, 4, idle, t))
          emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b2) {
            Idx sx(b2, loc);
            Value r = run.coord[0], c = run.coord[1];
            stage(b2, sx, acc.ptr(sx, src, sx.add(r, half), c),
                  acc.ptr(sx, dst, r, sx.add(c, half)), r, c, 0);
          });
      });
    }
    // Packed: the blocks above the diagonal hold T^T (the levels write it);
    // lower_only: nobody reads them. Else zeros in 16-byte stores (a 16-byte
    // chunk stays contiguous under every layout: rows are 16-byte aligned,
    // swizzles move whole chunks).
    auto zero4Type = VectorType::get({4}, rewriter.getF32Type());
    Value zero4;
    bool zeroUpper = !op.getPacked() && !op.getLowerOnly();
    for (int64_t bi = 0; bi < nb && zeroUpper; ++bi)
      for (int64_t bj = bi + 1; bj < nb; ++bj)
        for (Run &run : blockedRuns(ix, {16, 16}, 4, numThreads, tid)) {
          if (!zero4)
            zero4 = rewriter.create<LLVM::ConstantOp>(
                loc, zero4Type,
                DenseElementsAttr::get(zero4Type, rewriter.getF32FloatAttr(0)));
          emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
            Idx bx(b, loc);
            b.create<LLVM::StoreOp>(
                loc, zero4,
                acc.ptr(bx, dst, bx.add(run.coord[0], bi * 16),
                        bx.add(run.coord[1], bj * 16)),
                /*alignment=*/16);
          });
        }
    rewriter.eraseOp(op);
    return success();
  }
};

/// Split-tf32 tensor-core products of one warp: D += A B for a 16x16 A and a
/// 16x8 B of f32 values, as two mma.sync.m16n8k8.tf32 k-steps of three
/// products each (l_a h_b, h_a h_b, h_a l_b with h = x truncated to tf32 and
/// l = x - h as it is).
///
/// The k index of the two k-steps is permuted so that each lane reads four
/// consecutive A columns with one 16-byte load: in the mma, lane (g, t) (g =
/// lane / 4, t = lane % 4) holds A[g][k], A[g + 8][k] and B[k][g] for k = t,
/// t + 4; here logical k = t, t + 4 of step s is physical column 4 t + 2 s,
/// 4 t + 2 s + 1, which every lane maps the same way for A and B.
struct SplitTf32Mma {
  ConversionPatternRewriter &rewriter;
  Location loc;
  Type f32, i32;
  LLVM::LLVMStructType acc4;

  SplitTf32Mma(ConversionPatternRewriter &rewriter, Location loc)
      : rewriter(rewriter), loc(loc), f32(rewriter.getF32Type()),
        i32(rewriter.getI32Type()),
        acc4(LLVM::LLVMStructType::getLiteral(rewriter.getContext(),
                                              {f32, f32, f32, f32})) {}

  /// {h, l} = {trunc_tf32(x), x - h} as b32 registers: two ops (an and, an
  /// fsub). x - h is exact (the 13 low mantissa bits of x), |l| < 2^-10 |x|.
  /// l is handed to the mma as an f32: the tensor core reads a tf32
  /// operand's top 19 bits (it truncates; rounding would do as well here),
  /// so l enters with an error below 2^-10 |l| < 2^-20 |x| and needs no
  /// mask of its own (CUTLASS's fast 3xTF32 leaves the low bits to the
  /// hardware the same way). h is exact in tf32 whatever the hardware does
  /// with low bits. Non-finite x: a NaN keeps a mantissa bit among the 10
  /// kept (every NaN an f32 operation produces: 0x7fffffff), inf stays inf
  /// and x - h = inf - inf is NaN, so every product with x is NaN.
  std::pair<Value, Value> split(Value x) {
    Value hi = high(x);
    Value rest = rewriter.create<LLVM::FSubOp>(
        loc, x, rewriter.create<LLVM::BitcastOp>(loc, f32, hi));
    return {hi, rewriter.create<LLVM::BitcastOp>(loc, i32, rest)};
  }
  Value high(Value x) { return tf32High(rewriter, loc, x); }
  void mma(MutableArrayRef<Value> acc, ArrayRef<Value> a, ArrayRef<Value> b) {
    SmallVector<Value> operands(a);
    operands.append(b.begin(), b.end());
    operands.append(acc.begin(), acc.end());
    Value res = emitInlineAsm(
        rewriter, loc, acc4, operands,
        "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 "
        "{$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};",
        "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3", /*hasSideEffects=*/false);
    for (int64_t i = 0; i < 4; ++i)
      acc[i] = rewriter.create<LLVM::ExtractValueOp>(loc, res, i);
  }
  /// Operands split once, to be used in several products.
  struct Split {
    SmallVector<Value, 4> hi, lo;
  };
  Split splitAll(ArrayRef<Value> values) {
    Split out;
    for (Value v : values) {
      auto [h, l] = split(v);
      out.hi.push_back(h);
      out.lo.push_back(l);
    }
    return out;
  }
  /// acc += A B for one k-step of 8 in the mma's own order, from split
  /// operands: a = {A(g, t), A(g + 8, t), A(g, t + 4), A(g + 8, t + 4)} (an
  /// ldmatrix.x4 of the 16x8 block), b = {B(t, g), B(t + 4, g)}. The main
  /// term (h h) and the two small terms (l h, h l) accumulate in three
  /// independent chains, `acc` and the two halves of `small` (8 values:
  /// l h in the first four, h l in the last four), which `finish` adds: a
  /// dependent mma per k-step on each chain, not two on one (the levels'
  /// products are chains of up to 16 k-steps on one warp).
  void kStepSplit(SmallVectorImpl<Value> &acc, SmallVectorImpl<Value> &small,
                  const Split &a, const Split &b) {
    assert(acc.size() == 4 && small.size() == 8 && "4 + 2 x 4 accumulators");
    MutableArrayRef<Value> lh(small.begin(), 4), hl(small.begin() + 4, 4);
    mma(lh, a.lo, b.hi);
    mma(acc, a.hi, b.hi);
    mma(hl, a.hi, b.lo);
  }
  void kStep(SmallVectorImpl<Value> &acc, SmallVectorImpl<Value> &small,
             ArrayRef<Value> a, ArrayRef<Value> b) {
    Split sa = splitAll(a);
    kStepSplit(acc, small, sa, splitAll(b));
  }
  /// acc += A B over one 16-wide k range with a permuted k index (the packed
  /// inverse): aRow0/aRow1 are A's rows g and g + 8 as vector<4xf32>
  /// (columns 4t..4t+3), b B's rows 4t..4t+3 at column g; logical k = t,
  /// t + 4 of step s is physical column 4t + 2s, 4t + 2s + 1.
  void product(SmallVectorImpl<Value> &acc, SmallVectorImpl<Value> &small,
               Value aRow0, Value aRow1, ArrayRef<Value> b) {
    Idx ix(rewriter, loc);
    auto elem = [&](Value v, int64_t e) -> Value {
      return rewriter.create<LLVM::ExtractElementOp>(loc, v, ix.c32(e));
    };
    for (int64_t step = 0; step < 2; ++step)
      kStep(acc, small,
            {elem(aRow0, 2 * step), elem(aRow1, 2 * step),
             elem(aRow0, 2 * step + 1), elem(aRow1, 2 * step + 1)},
            {b[2 * step], b[2 * step + 1]});
  }
  /// acc + (l h + h l), element by element (see kStepSplit).
  SmallVector<Value> finish(ArrayRef<Value> acc, ArrayRef<Value> small) {
    SmallVector<Value> out;
    for (int64_t i = 0; i < 4; ++i)
      out.push_back(rewriter.create<LLVM::FAddOp>(
          loc, acc[i],
          rewriter.create<LLVM::FAddOp>(loc, small[i], small[i + 4])));
    return out;
  }
  /// Zeroed accumulators: the main chain and the small chains.
  static SmallVector<Value> zeros(Value zero) { return {4, zero}; }
  static SmallVector<Value> smallZeros(Value zero) { return {8, zero}; }
};

/// One level: T_ij = -T_ii (sum_q L_iq T_qj) for the blocks (j + level, j).
/// Tasks are dealt round-robin to the warps. Where dealing the level's 16x8
/// column strips would take more rounds than dealing its blocks (unpacked
/// only), task j is block j: the warp computes both of its strips, each A
/// fragment (L_iq, then T_ii) loaded and split once for the two (level 1 of
/// a 64x64 inverse on four warps: one round of three blocks, not two rounds
/// of six strips). Otherwise task tau = 2 j + s is the strip s of block j
/// (levels 2 and 3 there: as many rounds, more warps at work). The warp
/// accumulates Y in mma registers, stages it in its own strips of T (a warp
/// sync orders the lanes), multiplies by T_ii and overwrites the strips with
/// the negated result. Each strip's sums are the same products in the same
/// order either way.
struct TrilInverseLevelLowering : TilePattern<TrilInverseLevelOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(TrilInverseLevelOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<BufferType>(op.getSource().getType());
    Location loc = op.getLoc();
    Value src = adaptor.getSource(), dst = adaptor.getDest();
    Idx ix(rewriter, loc);
    int64_t nb = t.getShape()[0] / 16, d = op.getLevel();
    int64_t warps = numThreadsOf(op) / 32;
    bool packed = op.getPacked();
    // L in registers: a fragment whose warp w holds rows 16 w .. 16 w + 15
    // (#tile.mma<warps = [nb, 1]>, the Gram's accumulator).
    // (The verifier checks that layout once there is one, tile.alloc that
    // its warps are the kernel's.)
    bool fromRegs = t.getMemorySpace() == MemorySpace::Fragment;
    if (fromRegs && failed(requireLayouts(op, op.getSource())))
      return failure();
    // The register of L(16 w + g + 8 h, 8 c + 2 t + e) in warp w's lane (g,
    // t): the same for every lane, so read off the layout's formula at lane
    // 0 of warp w.
    auto lReg = [&](int64_t w, int64_t h, int64_t c, int64_t e) -> int64_t {
      auto mma = cast<MmaLayoutAttr>(t.getLayout());
      int64_t n = t.getShape()[0];
      for (int64_t idx = 0; idx < mmaFragmentSize(n, n, nb, 1); ++idx)
        if (mmaFragmentCoord(n, n, nb, 1, 32 * w, idx,
                             mma.getEngine() == MmaEngine::Wgmma) ==
            std::pair<int64_t, int64_t>{16 * w + 8 * h, 8 * c + e})
          return idx;
      llvm_unreachable("the element is in warp w's row block");
    };
    // Strips per task: a whole block (2) where dealing strips would take
    // more rounds, else one strip (more warps at work on the level's few
    // blocks). Packed: always one. L in registers: warp i takes block
    // (i, i - level), whose L row block it holds.
    int64_t strips = 2 * (nb - d), rounds = (strips + warps - 1) / warps;
    int64_t perTask =
        fromRegs || (!packed && (nb - d + warps - 1) / warps < rounds) ? 2 : 1;
    int64_t tasks = strips / perTask;
    SquareAccess acc{t, cast<BufferType>(op.getDest().getType()), src, dst};
    Type f32 = rewriter.getF32Type();
    auto vec4 = VectorType::get({4}, f32);
    Value tid = ix.tid();
    Value warp = ix.div(tid, 32), lane = ix.rem(tid, 32);
    Value g = ix.div(lane, 4), t4 = ix.mul(ix.rem(lane, 4), 4);
    Value t2 = ix.mul(ix.rem(lane, 4), 2);
    Value fullMask = rewriter.create<LLVM::ConstantOp>(
        loc, rewriter.getI32Type(), rewriter.getI32IntegerAttr(-1));
    // Where the tasks go: rounds of tasks dealt round-robin, or, with L in
    // registers, one branch per busy warp (its row block `rowBlock` static,
    // so that its registers of L have static indices).
    struct Placement {
      Value guard;
      int64_t round, rowBlock;
    };
    SmallVector<Placement> placements;
    if (fromRegs) {
      for (int64_t w = d; w < nb; ++w) {
        Value isW = rewriter.create<LLVM::ICmpOp>(
            loc, LLVM::ICmpPredicate::eq, warp, ix.c(w));
        placements.push_back({isW, -1, w});
      }
    } else {
      for (int64_t round = 0; round * warps < tasks; ++round) {
        Value guard;
        if ((round + 1) * warps > tasks)
          guard = ix.ult(warp, ix.c(tasks - round * warps));
        placements.push_back({guard, round, -1});
      }
    }
    for (const Placement &place : placements) {
      emitGuarded(rewriter, loc, place.guard, [&](OpBuilder &b) {
        Idx bx(b, loc);
        Value j16, col; // block j's first column; the (first) strip's
        if (place.rowBlock >= 0) {
          j16 = bx.c(16 * (place.rowBlock - d));
          col = j16;
        } else {
          Value task = bx.add(warp, place.round * warps);
          j16 = perTask == 1 ? bx.mul(bx.div(task, 2), 16) : bx.mul(task, 16);
          col = perTask == 1 ? bx.add(j16, bx.mul(bx.rem(task, 2), 8)) : j16;
        }
        Value rowI = bx.add(j16, 16 * d); // first row of block i
        SplitTf32Mma mma(rewriter, loc);
        PhaseIO io{b, loc, bx, acc};
        Value zero = f32Const(rewriter, loc, 0);
        auto loadRow4 = [&](Value base, Value r, Value c) {
          return b.create<LLVM::LoadOp>(loc, vec4, acc.ptr(bx, base, r, c),
                                        /*alignment=*/16)
              .getResult();
        };
        // Packed: T[r][c] is stored at [c][r]; `masked` reads the entries of
        // a diagonal block above its diagonal (there: L) as zeros.
        auto loadT = [&](Value r, Value c, bool masked) -> Value {
          Value v = acc.load(bx, dst, c, r);
          if (!masked)
            return v;
          return b.create<LLVM::SelectOp>(loc, bx.ule(c, r), v, zero);
        };
        auto vec4Of = [&](ArrayRef<Value> e4) -> Value {
          Value v = b.create<LLVM::UndefOp>(loc, vec4);
          for (int64_t e = 0; e < 4; ++e)
            v = b.create<LLVM::InsertElementOp>(loc, v, e4[e], bx.c32(e));
          return v;
        };
        // T (or the staged Y) rows r..r+3 at column c: one 16-byte load of
        // the transposed row when packed.
        auto loadTCol4 = [&](Value r, Value c, bool masked) {
          SmallVector<Value, 4> v;
          Value row = loadRow4(dst, c, r);
          for (int64_t e = 0; e < 4; ++e) {
            Value x =
                b.create<LLVM::ExtractElementOp>(loc, row, bx.c32(e));
            if (masked)
              x = b.create<LLVM::SelectOp>(loc, bx.ule(c, bx.add(r, e)), x,
                                           zero);
            v.push_back(x);
          }
          return v;
        };
        auto storeStrip = [&](ArrayRef<Value> c4, bool negate,
                              int64_t dc = 0) {
          if (packed) {
            for (int64_t h = 0; h < 2; ++h)
              for (int64_t e = 0; e < 2; ++e) {
                Value x = c4[2 * h + e];
                if (negate)
                  x = b.create<LLVM::FNegOp>(loc, x);
                acc.store(bx, dst, bx.add(col, bx.add(t2, e)),
                          bx.add(bx.add(rowI, g), 8 * h), x);
              }
            return;
          }
          Value sRow = bx.add(rowI, g), sCol = bx.add(col, t2);
          io.storeAcc(acc.ptr(bx, dst, sRow, sCol), dst, sRow, sCol, 0, dc,
                      c4, negate);
        };
        // Y = sum over the 16-column groups q of L[i][q] T[q][j].
        if (!packed) {
          // The A operands (L_iq, then T_ii) by ldmatrix.x4: each 16x8 f32
          // block is four 8x8 b16 matrices of 8 rows x 16 bytes, and lane (g,
          // t) receives word t of row g of each, which is the m16n8k8 tf32 A
          // fragment as is. Lane l addresses row l % 8 + 8 ((l / 8) % 2),
          // column 4 (l / 16) of the block. With a row stride of 4 (mod 32)
          // words (L's #tile.padded<4>) the 8 rows of a matrix fall on 8
          // distinct 4-bank groups: no conflict (a 16-byte row load per lane
          // took two wavefronts for each quarter warp). The B operands (T_qj,
          // then Y) by single loads of rows t and t + 4 at column g; with a
          // stride of 8 (mod 32) words (the inverse's #tile.padded<8>,
          // tile-assign-layouts) the 4 rows t, t + 4, .. of a k-step fall on
          // distinct 8-bank groups.
          // Every address is a constant step from one per-thread pointer
          // per operand.
          Value l8 = bx.rem(lane, 8);
          Value lRow = bx.add(l8, bx.mul(bx.rem(bx.div(lane, 8), 2), 8));
          Value lCol = bx.mul(bx.div(lane, 16), 4);
          // Strip h of the task is columns col + 8 h ..: its B operands and
          // its part of Y are a constant 8 h columns further.
          SmallVector<SmallVector<Value>> y(perTask, SplitTf32Mma::zeros(zero)),
              ySmall(perTask, SplitTf32Mma::smallZeros(zero)), r = y,
              rSmall = ySmall;
          Value t1 = bx.rem(lane, 4);
          Value aRow = bx.add(rowI, lRow), aCol = bx.add(j16, lCol);
          Value bCol = bx.add(col, g);
          // A = L_iq: from shared by ldmatrix, or from registers. In the
          // Gram's accumulator thread (g, t) holds, for each 8-column group
          // c, L(g, 8 c + 2 t), L(g, 8 c + 2 t + 1), L(g + 8, 8 c + 2 t),
          // L(g + 8, 8 c + 2 t + 1): the m16n8k8 tf32 A fragment {A(g, k),
          // A(g + 8, k), A(g, k'), A(g + 8, k')} once the k-step's logical
          // k = t, k' = t + 4 are its physical columns 2 t, 2 t + 1. B's
          // rows follow: 2 t and 2 t + 1 instead of t and t + 4 (the same
          // sums, in another order).
          Value bRow = fromRegs ? bx.add(j16, bx.mul(t1, 2)) : bx.add(j16, t1);
          int64_t bStep = fromRegs ? 1 : 4;
          Value aAt = fromRegs ? Value() : acc.ptr(bx, src, aRow, aCol);
          Value bAt = acc.ptr(bx, dst, bRow, bCol);
          auto loadL = [&](int64_t k0) -> SmallVector<Value, 4> {
            if (!fromRegs)
              return io.ldmatrix(aAt, src, aRow, aCol, 0, k0);
            Regs regs{src, f32};
            int64_t w = place.rowBlock, c = (16 * (w - d) + k0) / 8;
            return {regs.load(bx, lReg(w, 0, c, 0)),
                    regs.load(bx, lReg(w, 1, c, 0)),
                    regs.load(bx, lReg(w, 0, c, 1)),
                    regs.load(bx, lReg(w, 1, c, 1))};
          };
          for (int64_t q = 0; q < d; ++q)
            for (int64_t s = 0; s < 2; ++s) {
              int64_t k0 = 16 * q + 8 * s;
              SplitTf32Mma::Split a = mma.splitAll(loadL(k0));
              for (int64_t h = 0; h < perTask; ++h) {
                SmallVector<Value, 2> bk = {
                    io.load(bAt, dst, bRow, bCol, k0, 8 * h),
                    io.load(bAt, dst, bRow, bCol, k0 + bStep, 8 * h)};
                mma.kStepSplit(y[h], ySmall[h], a, mma.splitAll(bk));
              }
            }
          for (int64_t h = 0; h < perTask; ++h)
            storeStrip(mma.finish(y[h], ySmall[h]), /*negate=*/false, 8 * h);
          b.create<NVVM::SyncWarpOp>(loc, fullMask);
          // -T_ii Y, with Y read back from the strip.
          Value tRow = bx.add(rowI, lRow), tCol = bx.add(rowI, lCol);
          Value yRow = bx.add(rowI, t1);
          Value tAt = acc.ptr(bx, dst, tRow, tCol);
          Value yAt = acc.ptr(bx, dst, yRow, bCol);
          for (int64_t s = 0; s < 2; ++s) {
            SplitTf32Mma::Split a =
                mma.splitAll(io.ldmatrix(tAt, dst, tRow, tCol, 0, 8 * s));
            for (int64_t h = 0; h < perTask; ++h) {
              SmallVector<Value, 2> yk = {
                  io.load(yAt, dst, yRow, bCol, 8 * s, 8 * h),
                  io.load(yAt, dst, yRow, bCol, 8 * s + 4, 8 * h)};
              mma.kStepSplit(r[h], rSmall[h], a, mma.splitAll(yk));
            }
          }
          b.create<NVVM::SyncWarpOp>(loc, fullMask);
          for (int64_t h = 0; h < perTask; ++h)
            storeStrip(mma.finish(r[h], rSmall[h]), /*negate=*/true, 8 * h);
        } else {
          SmallVector<Value> y = SplitTf32Mma::zeros(zero),
                             ySmall = SplitTf32Mma::smallZeros(zero);
          SmallVector<Value> r = y, rSmall = ySmall;
          for (int64_t q = 0; q < d; ++q) {
            Value k0 = bx.add(bx.add(j16, 16 * q), t4);
            // T_qj, transposed; q = 0 is the diagonal block j.
            SmallVector<Value, 4> bT =
                loadTCol4(k0, bx.add(col, g), /*masked=*/q == 0);
            Value a0 = loadRow4(src, bx.add(rowI, g), k0);
            Value a1 = loadRow4(src, bx.add(bx.add(rowI, g), 8), k0);
            mma.product(y, ySmall, a0, a1, bT);
          }
          storeStrip(mma.finish(y, ySmall), /*negate=*/false);
          b.create<NVVM::SyncWarpOp>(loc, fullMask);
          // -T_ii Y: T_ii's rows are columns of the buffer (masked above
          // the diagonal), Y's columns are its rows.
          Value k0 = bx.add(rowI, t4);
          SmallVector<Value, 4> r0, r1;
          for (int64_t e = 0; e < 4; ++e) {
            r0.push_back(loadT(bx.add(rowI, g), bx.add(k0, e), true));
            r1.push_back(
                loadT(bx.add(bx.add(rowI, g), 8), bx.add(k0, e), true));
          }
          Value a0 = vec4Of(r0), a1 = vec4Of(r1);
          SmallVector<Value, 4> bY =
              loadTCol4(k0, bx.add(col, g), /*masked=*/false);
          mma.product(r, rSmall, a0, a1, bY);
          b.create<NVVM::SyncWarpOp>(loc, fullMask);
          storeStrip(mma.finish(r, rSmall), /*negate=*/true);
        }
      });
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// What every merge task of pair `pair` (size x size diagonal blocks) starts
/// from: its lane's mma coordinates (g, t), the ldmatrix.x4 addressing of a
/// 16x8 f32 A block (see the level lowering: lane l at row l % 8 + 8 ((l /
/// 8) % 2), column 4 (l / 16)), the pair's first rows, and the split B
/// operand loads.
struct MergeLanes {
  Value g, t1, t2, lRow, lCol, fullMask, r0, r1, zero;
  SplitTf32Mma mma;
  PhaseIO io;
  Value dst;

  MergeLanes(ConversionPatternRewriter &rewriter, OpBuilder &b, Location loc,
             Idx &bx, const SquareAccess &acc, Value dst, int64_t size,
             Value pair, Value lane)
      : g(bx.div(lane, 4)), t1(bx.rem(lane, 4)), t2(bx.mul(t1, 2)),
        lRow(bx.add(bx.rem(lane, 8),
                    bx.mul(bx.rem(bx.div(lane, 8), 2), 8))),
        lCol(bx.mul(bx.div(lane, 16), 4)),
        fullMask(b.create<LLVM::ConstantOp>(loc, b.getI32Type(),
                                            b.getI32IntegerAttr(-1))),
        r0(bx.mul(pair, 2 * size)), // T1's first row
        r1(bx.add(r0, size)),       // T2's first row
        zero(f32Const(rewriter, loc, 0)), mma(rewriter, loc),
        io{b, loc, bx, acc}, dst(dst) {}
  /// B rows k0 + t and k0 + t + 4 at column g of a strip whose first row is
  /// `r` (`at` = its element (r, c)), split.
  SplitTf32Mma::Split loadB(Value at, Value r, Value c, int64_t k0) {
    return mma.splitAll(
        {io.load(at, dst, r, c, k0, 0), io.load(at, dst, r, c, k0 + 4, 0)});
  }
  /// Y += L21 T1 for T1's column block J (size / 16 = sb row blocks): for
  /// each k-step from block J on, the strips' B operands (bAt[s] at row
  /// bRow, column bCol[s]) loaded and split once, then for each row block
  /// i of `rowBlocks` the A operand L21_i (from `src`) loaded and split once
  /// for all strips; strip s of row block rowBlocks[n] accumulates into
  /// y[s * rowBlocks.size() + n] (and its small terms).
  /// With `stagedLo`, L21's low parts come from dest's block above the
  /// diagonal (tile.tril_inverse_diag {stage_lo} put the low part of L21's
  /// element (r, c) at (r0 + r, r1 + c)): the high part is the loaded
  /// value masked, as in split (ptxas drops the mask: the mma reads only
  /// the tf32 bits), and no subtraction.
  void accumulateY(Value src, int64_t J, int64_t sb,
                   ArrayRef<int64_t> rowBlocks, ArrayRef<Value> bAt,
                   Value bRow, ArrayRef<Value> bCol,
                   SmallVector<SmallVector<Value>> &y,
                   SmallVector<SmallVector<Value>> &ySmall,
                   bool stagedLo = false) {
    Idx &bx = io.bx;
    int64_t ns = bAt.size(), nr = rowBlocks.size();
    Value aRow = bx.add(r1, lRow), aCol = bx.add(r0, lCol);
    Value aAt = io.acc.ptr(bx, src, aRow, aCol);
    Value loRow, loCol, loAt;
    if (stagedLo) {
      loRow = bx.add(r0, lRow);
      loCol = bx.add(r1, lCol);
      loAt = io.acc.ptr(bx, dst, loRow, loCol);
    }
    auto loadA = [&](int64_t dr, int64_t k0) -> SplitTf32Mma::Split {
      SmallVector<Value, 4> x = io.ldmatrix(aAt, src, aRow, aCol, dr, k0);
      if (!stagedLo)
        return mma.splitAll(x);
      SplitTf32Mma::Split a;
      SmallVector<Value, 4> l = io.ldmatrix(loAt, dst, loRow, loCol, dr, k0);
      for (int64_t e = 0; e < 4; ++e) {
        a.hi.push_back(mma.high(x[e]));
        // ldmatrix's b32 register, seen as f32 and back (LLVM folds it).
        a.lo.push_back(
            io.b.create<LLVM::BitcastOp>(io.loc, mma.i32, l[e]).getResult());
      }
      return a;
    };
    for (int64_t m = J; m < sb; ++m)
      for (int64_t ks = 0; ks < 2; ++ks) {
        int64_t k0 = 16 * m + 8 * ks;
        SmallVector<SplitTf32Mma::Split> bk;
        for (int64_t s = 0; s < ns; ++s)
          bk.push_back(loadB(bAt[s], bRow, bCol[s], k0));
        for (int64_t n = 0; n < nr; ++n) {
          SplitTf32Mma::Split a = loadA(16 * rowBlocks[n], k0);
          for (int64_t s = 0; s < ns; ++s)
            mma.kStepSplit(y[s * nr + n], ySmall[s * nr + n], a, bk[s]);
        }
      }
  }
};

/// One merge task on one warp (TrilInverseMergeOp): for pair `pair` of size
/// x size diagonal blocks and T1's 16-column block jb (dynamic, one branch
/// per value where size > 16), the 8-column strips of T21 = -T2 (L21 T1)
/// that start at `cols` (columns of that block). It forms each strip's Y_i =
/// sum_{m >= jb} L_{i m} T_{m jb} for every block row i of the pair's lower
/// half (each B operand T_{m jb} loaded and split once for all i, each A
/// operand L_{i m} once for all strips), stages them in the strips of T21,
/// then T21_i = -sum_{k <= i} T2_{i k} Y_k (each staged Y_k loaded and split
/// once for all i >= k, each T2 block once for all strips), all in registers
/// before the negated stores (they overwrite the staged Y). The strips run
/// in lockstep: independent accumulator chains, one warp sync per step. The
/// blocks of T1 above its diagonal are never read (lower_only leaves them
/// unwritten). With `stagedLo` the A operands from L21 take their low parts
/// from dest (MergeLanes::accumulateY).
void emitMergeStrips(ConversionPatternRewriter &rewriter, OpBuilder &b,
                     Location loc, Idx &bx, const SquareAccess &acc, Value src,
                     Value dst, int64_t size, Value pair, Value jb,
                     ArrayRef<Value> cols, Value lane, bool stagedLo) {
  int64_t sb = size / 16, ns = cols.size();
  MergeLanes ml(rewriter, b, loc, bx, acc, dst, size, pair, lane);
  Value g = ml.g, t1 = ml.t1, t2 = ml.t2, lRow = ml.lRow, lCol = ml.lCol;
  Value fullMask = ml.fullMask, r0 = ml.r0, r1 = ml.r1, zero = ml.zero;
  SplitTf32Mma &mma = ml.mma;
  PhaseIO &io = ml.io;
  auto loadB = [&](Value at, Value r, Value c, int64_t k0) {
    return ml.loadB(at, r, c, k0);
  };
  // Strip s: rows r1 + 16 i + g (+ 8), columns cols[s] + 2 t (+ 1).
  Value sRow = bx.add(r1, g);
  SmallVector<Value> sCol, sAt, bCol, bAtY, bAtZ;
  Value bRowY = bx.add(r0, t1), bRowZ = bx.add(r1, t1);
  for (Value col : cols) {
    sCol.push_back(bx.add(col, t2));
    sAt.push_back(acc.ptr(bx, dst, sRow, sCol.back()));
    bCol.push_back(bx.add(col, g));
    bAtY.push_back(acc.ptr(bx, dst, bRowY, bCol.back()));
    bAtZ.push_back(acc.ptr(bx, dst, bRowZ, bCol.back()));
  }
  auto storeStrip = [&](int64_t s, int64_t i, ArrayRef<Value> c4,
                        bool negate) {
    io.storeAcc(sAt[s], dst, sRow, sCol[s], 16 * i, 0, c4, negate);
  };
  using Accs = SmallVector<SmallVector<Value>>;
  auto zeros = [&] { return Accs(ns * sb, SplitTf32Mma::zeros(zero)); };
  auto smallZeros = [&] {
    return Accs(ns * sb, SplitTf32Mma::smallZeros(zero));
  };
  // Y for T1's column block jb = J (static).
  auto emitY = [&](int64_t J) {
    Accs y = zeros(), ySmall = smallZeros();
    ml.accumulateY(src, J, sb, llvm::to_vector(llvm::seq<int64_t>(0, sb)),
                   bAtY, bRowY, bCol, y, ySmall, stagedLo);
    for (int64_t s = 0; s < ns; ++s)
      for (int64_t i = 0; i < sb; ++i)
        storeStrip(s, i, mma.finish(y[s * sb + i], ySmall[s * sb + i]),
                   /*negate=*/false);
  };
  if (sb == 1) {
    emitY(0);
  } else {
    for (int64_t J = 0; J < sb; ++J)
      emitGuarded(rewriter, loc,
                  b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq, jb,
                                         bx.c(J)),
                  [&](OpBuilder &) { emitY(J); });
  }
  b.create<NVVM::SyncWarpOp>(loc, fullMask);
  // T21_i = -sum_{k <= i} T2_{i k} Y_k.
  Accs z = zeros(), zSmall = smallZeros();
  Value aRow = bx.add(r1, lRow), aCol = bx.add(r1, lCol);
  Value aAt = acc.ptr(bx, dst, aRow, aCol);
  for (int64_t k = 0; k < sb; ++k)
    for (int64_t ks = 0; ks < 2; ++ks) {
      int64_t k0 = 16 * k + 8 * ks;
      SmallVector<SplitTf32Mma::Split> yk;
      for (int64_t s = 0; s < ns; ++s)
        yk.push_back(loadB(bAtZ[s], bRowZ, bCol[s], k0));
      for (int64_t i = k; i < sb; ++i) {
        SplitTf32Mma::Split a =
            mma.splitAll(io.ldmatrix(aAt, dst, aRow, aCol, 16 * i, k0));
        for (int64_t s = 0; s < ns; ++s)
          mma.kStepSplit(z[s * sb + i], zSmall[s * sb + i], a, yk[s]);
      }
    }
  Accs out;
  for (int64_t s = 0; s < ns * sb; ++s)
    out.push_back(mma.finish(z[s], zSmall[s]));
  b.create<NVVM::SyncWarpOp>(loc, fullMask);
  for (int64_t s = 0; s < ns; ++s)
    for (int64_t i = 0; i < sb; ++i)
      storeStrip(s, i, out[s * sb + i], /*negate=*/true);
}

/// One by_rows merge task (TrilInverseMergeOp {by_rows}): 16-row block I of
/// pair `pair`'s T21 by T1's 16-column block J, both 8-column strips (each A
/// operand loaded and split once for the two). Phase 0 forms Y_IJ = sum_{m
/// >= J} L_Im T_mJ and stages it in the task's block of T21 and, where a row
/// block below reads it (I < sb - 1, only I = 0 at size 32), in the pair's
/// block (J, J) of T12 above the diagonal; phase 1 (after a barrier among
/// the op's threads) forms T21_IJ = -sum_{k <= I} T2_Ik Y_kJ (its own Y_IJ
/// from T21, the others from T12) and stores it over its own staged Y after
/// a warp sync. The same products in the same order as emitMergeStrips.
void emitMergeRowTask(ConversionPatternRewriter &rewriter, OpBuilder &b,
                      Location loc, Idx &bx, const SquareAccess &acc,
                      Value src, Value dst, int64_t size, Value pair,
                      int64_t I, int64_t J, int64_t phase, Value lane) {
  int64_t sb = size / 16, ns = 2;
  MergeLanes ml(rewriter, b, loc, bx, acc, dst, size, pair, lane);
  Value g = ml.g, t1 = ml.t1, t2 = ml.t2, lRow = ml.lRow, lCol = ml.lCol;
  Value r0 = ml.r0, r1 = ml.r1, zero = ml.zero;
  SplitTf32Mma &mma = ml.mma;
  PhaseIO &io = ml.io;
  auto loadB = [&](Value at, Value r, Value c, int64_t k0) {
    return ml.loadB(at, r, c, k0);
  };
  // Strip s is columns col0 + 8 s of T1's block J (and of T21).
  Value col0 = bx.add(r0, 16 * J);
  // The staged Y_IJ and the result: rows r1 + 16 I + g (+ 8), columns col0
  // + 8 s + 2 t; the copy in T12: rows r0 + 16 J + g (+ 8), columns r1 +
  // 16 J + 8 s + 2 t.
  Value sRow = bx.add(r1, g), xRow = bx.add(r0, g);
  SmallVector<Value> sCol, sAt, xCol, xAt, bCol, bAtY, bAtZ, xbCol, xbAt;
  Value bRowY = bx.add(r0, t1), bRowZ = bx.add(r1, t1);
  for (int64_t s = 0; s < ns; ++s) {
    sCol.push_back(bx.add(col0, bx.add(t2, 8 * s)));
    sAt.push_back(acc.ptr(bx, dst, sRow, sCol.back()));
    xCol.push_back(bx.add(r1, bx.add(t2, 16 * J + 8 * s)));
    xAt.push_back(acc.ptr(bx, dst, xRow, xCol.back()));
    bCol.push_back(bx.add(col0, bx.add(g, 8 * s)));
    bAtY.push_back(acc.ptr(bx, dst, bRowY, bCol.back()));
    bAtZ.push_back(acc.ptr(bx, dst, bRowZ, bCol.back()));
    xbCol.push_back(bx.add(r1, bx.add(g, 16 * J + 8 * s)));
    xbAt.push_back(acc.ptr(bx, dst, bRowY, xbCol.back()));
  }
  Value fullMask = ml.fullMask;
  SmallVector<SmallVector<Value>> c(ns, SplitTf32Mma::zeros(zero)),
      cSmall(ns, SplitTf32Mma::smallZeros(zero));
  if (phase == 0) {
    ml.accumulateY(src, J, sb, {I}, bAtY, bRowY, bCol, c, cSmall);
    for (int64_t s = 0; s < ns; ++s) {
      SmallVector<Value> y = mma.finish(c[s], cSmall[s]);
      io.storeAcc(sAt[s], dst, sRow, sCol[s], 16 * I, 0, y, /*negate=*/false);
      if (I < sb - 1)
        io.storeAcc(xAt[s], dst, xRow, xCol[s], 16 * J, 0, y,
                    /*negate=*/false);
    }
    return;
  }
  Value aRow = bx.add(r1, lRow), aCol = bx.add(r1, lCol);
  Value aAt = acc.ptr(bx, dst, aRow, aCol);
  for (int64_t k = 0; k <= I; ++k)
    for (int64_t ks = 0; ks < 2; ++ks) {
      SmallVector<SplitTf32Mma::Split> yk;
      for (int64_t s = 0; s < ns; ++s)
        yk.push_back(k == I ? loadB(bAtZ[s], bRowZ, bCol[s], 16 * I + 8 * ks)
                            : loadB(xbAt[s], bRowY, xbCol[s], 16 * J + 8 * ks));
      SplitTf32Mma::Split a =
          mma.splitAll(io.ldmatrix(aAt, dst, aRow, aCol, 16 * I, 16 * k + 8 * ks));
      for (int64_t s = 0; s < ns; ++s)
        mma.kStepSplit(c[s], cSmall[s], a, yk[s]);
    }
  SmallVector<SmallVector<Value>> out;
  for (int64_t s = 0; s < ns; ++s)
    out.push_back(mma.finish(c[s], cSmall[s]));
  b.create<NVVM::SyncWarpOp>(loc, fullMask);
  for (int64_t s = 0; s < ns; ++s)
    io.storeAcc(sAt[s], dst, sRow, sCol[s], 16 * I, 0, out[s], /*negate=*/true);
}

/// tile.tril_inverse_merge {fma}'s task: the strip of T21 = -T2 (L21 T1)
/// with columns p0 + colOff .. + C - 1 (C = 256 / size, inside T1's
/// 16-column block jb) and all `size` rows, of the pair whose first row
/// and column is p0, on one warp's CUDA cores. Lane (a, q) (a = lane /
/// (C / 4), q = lane mod (C / 4)) holds rows a and a + size / 2 by columns
/// 4 q .. 4 q + 3 of the strip: Y_ij = sum_m L21_im T1_mj over m = 16 jb ..
/// size - 1 (below it T1's column block is unspecified, above the
/// diagonal inside its diagonal block zero), staged in the strip; after a
/// warp sync T21_ij = -sum_k T2_ik Y_kj over k up to the end of row i's
/// 16-row block (past it T2's block is unspecified; the zeros above the
/// diagonal inside the diagonal block enter), held until the warp syncs
/// again. Every sum ascends, one f32 fma chain per element; operands in
/// 16-byte loads (L21's and T2's rows four k at a time, the same for the
/// lanes of a row; T1's and Y's rows four columns at a time, the same for
/// the lanes of a column group).
void emitMergeStripFma(OpBuilder &b, Location loc, Idx &bx,
                       const SquareAccess &acc, Value src, Value dst,
                       int64_t size, Value p0, Value colOff, int64_t jb,
                       Value lane) {
  Type f32 = b.getF32Type();
  auto vec4 = VectorType::get({4}, f32);
  int64_t groups = 64 / size, half = size / 2;
  Value a = bx.div(lane, groups), q4 = bx.mul(bx.rem(lane, groups), 4);
  Value col = bx.add(bx.add(p0, colOff), q4);
  Value rowA = bx.add(bx.add(p0, size), a);
  Value fullMask = b.create<LLVM::ConstantOp>(loc, b.getI32Type(),
                                              b.getI32IntegerAttr(-1));
  Value zero = f32Const(b, loc, 0);
  auto load4 = [&](Value at, Value base, Value r, Value c, int64_t dr,
                   int64_t dc) {
    SmallVector<Value, 4> out;
    Value v = b.create<LLVM::LoadOp>(loc, vec4,
                                     acc.step(bx, at, base, r, c, dr, dc),
                                     /*alignment=*/16);
    for (int64_t e = 0; e < 4; ++e)
      out.push_back(b.create<LLVM::ExtractElementOp>(loc, v, bx.c32(e)));
    return out;
  };
  auto store4 = [&](Value at, Value r, Value c, int64_t dr,
                    ArrayRef<Value> x, bool negate) {
    Value v = b.create<LLVM::UndefOp>(loc, vec4);
    for (int64_t e = 0; e < 4; ++e) {
      Value xe = negate ? b.create<LLVM::FNegOp>(loc, x[e]).getResult() : x[e];
      v = b.create<LLVM::InsertElementOp>(loc, v, xe, bx.c32(e));
    }
    b.create<LLVM::StoreOp>(loc, v, acc.step(bx, at, dst, r, c, dr, 0),
                            /*alignment=*/16);
  };
  // Y: L21's rows a, a + half from column p0 + 16 jb; T1's rows from
  // p0 + 16 jb at this lane's four columns.
  Value mCol = bx.add(p0, 16 * jb);
  Value lAt = acc.ptr(bx, src, rowA, mCol);
  Value t1At = acc.ptr(bx, dst, mCol, col);
  SmallVector<SmallVector<Value, 4>, 2> y(2, SmallVector<Value, 4>(4, zero));
  for (int64_t m0 = 16 * jb; m0 < size; m0 += 4) {
    SmallVector<SmallVector<Value, 4>, 2> l;
    for (int64_t r = 0; r < 2; ++r)
      l.push_back(load4(lAt, src, rowA, mCol, r * half, m0 - 16 * jb));
    for (int64_t dm = 0; dm < 4; ++dm) {
      SmallVector<Value, 4> t1 =
          load4(t1At, dst, mCol, col, m0 + dm - 16 * jb, 0);
      for (int64_t r = 0; r < 2; ++r)
        for (int64_t e = 0; e < 4; ++e)
          y[r][e] = b.create<LLVM::FMAOp>(loc, l[r][dm], t1[e], y[r][e]);
    }
  }
  Value sAt = acc.ptr(bx, dst, rowA, col);
  for (int64_t r = 0; r < 2; ++r)
    store4(sAt, rowA, col, r * half, y[r], /*negate=*/false);
  b.create<NVVM::SyncWarpOp>(loc, fullMask);
  // T21: T2's rows a, a + half from column p0 + size; Y's rows from
  // p0 + size. Row a + r half ends its 16-row block at column kEnd[r].
  Value t2Col = bx.add(p0, size), yRow = t2Col;
  Value t2At = acc.ptr(bx, dst, rowA, t2Col);
  Value yAt = acc.ptr(bx, dst, yRow, col);
  int64_t kEnd[2] = {16, 16 * (half / 16 + 1)};
  SmallVector<SmallVector<Value, 4>, 2> z(2, SmallVector<Value, 4>(4, zero));
  for (int64_t k0 = 0; k0 < kEnd[1]; k0 += 4) {
    SmallVector<SmallVector<Value, 4>, 2> t2(2);
    for (int64_t r = 0; r < 2; ++r)
      if (k0 < kEnd[r])
        t2[r] = load4(t2At, dst, rowA, t2Col, r * half, k0);
    for (int64_t dk = 0; dk < 4; ++dk) {
      SmallVector<Value, 4> yk = load4(yAt, dst, yRow, col, k0 + dk, 0);
      for (int64_t r = 0; r < 2; ++r)
        if (k0 < kEnd[r])
          for (int64_t e = 0; e < 4; ++e)
            z[r][e] = b.create<LLVM::FMAOp>(loc, t2[r][dk], yk[e], z[r][e]);
    }
  }
  b.create<NVVM::SyncWarpOp>(loc, fullMask);
  for (int64_t r = 0; r < 2; ++r)
    store4(sAt, rowA, col, r * half, z[r], /*negate=*/true);
}

/// Deals `tasks` tasks round-robin to `warps` warps: in each round, the
/// warps that have a task (all of them but in the last round's tail) run
/// `body` with their task index, warp + round * warps.
void dealToWarps(ConversionPatternRewriter &rewriter, Location loc, Idx &ix,
                 Value warp, int64_t warps, int64_t tasks,
                 function_ref<void(OpBuilder &, Idx &, Value)> body) {
  for (int64_t round = 0; round * warps < tasks; ++round) {
    Value guard;
    if ((round + 1) * warps > tasks)
      guard = ix.ult(warp, ix.c(tasks - round * warps));
    emitGuarded(rewriter, loc, guard, [&](OpBuilder &b) {
      Idx bx(b, loc);
      body(b, bx, bx.add(warp, round * warps));
    });
  }
}

/// One doubling step: T21 = -T2 (L21 T1) for every pair of adjacent size x
/// size diagonal blocks. Task tau (dealt round-robin over the warps) is the
/// 8-column strip h = tau % 2 of T1's 16-column block jb = (tau / 2) % sb of
/// pair p = tau / (2 sb) (sb = size / 16), formed by emitMergeStrips; with
/// by_rows, task (pair, I, J) of emitMergeRowTask in two phases around one
/// barrier.
struct TrilInverseMergeLowering : TilePattern<TrilInverseMergeOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(TrilInverseMergeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<BufferType>(op.getSource().getType());
    Location loc = op.getLoc();
    Value src = adaptor.getSource(), dst = adaptor.getDest();
    Idx ix(rewriter, loc);
    int64_t n = t.getShape()[0], size = op.getSize(), sb = size / 16;
    int64_t warps = numThreadsOf(op) / 32, tasks = n / 16;
    SquareAccess acc{t, cast<BufferType>(op.getDest().getType()), src, dst};
    Value tid = ix.tid();
    Value warp = ix.div(tid, 32), lane = ix.rem(tid, 32);
    if (op.getByRows()) {
      // by_rows: task (pair, I, J) = (tau / sb^2, (tau mod sb^2) / sb, tau
      // mod sb), one branch per static (I, J); every task's Y (phase 0)
      // before the barrier, every T21 block (phase 1) after it.
      int64_t rowTasks = (n / (2 * size)) * sb * sb;
      for (int64_t phase = 0; phase < 2; ++phase) {
        if (phase == 1) {
          if (sb > 1)
            createComputeBarrier(rewriter, loc, op);
          else
            rewriter.create<NVVM::SyncWarpOp>(
                loc, rewriter.create<LLVM::ConstantOp>(
                         loc, rewriter.getI32Type(),
                         rewriter.getI32IntegerAttr(-1)));
        }
        dealToWarps(rewriter, loc, ix, warp, warps, rowTasks,
                    [&](OpBuilder &b, Idx &bx, Value task) {
          Value pair = bx.div(task, sb * sb), ij = bx.rem(task, sb * sb);
          for (int64_t I = 0; I < sb; ++I)
            for (int64_t J = 0; J < sb; ++J) {
              Value is = sb == 1 ? Value()
                                 : b.create<LLVM::ICmpOp>(
                                       loc, LLVM::ICmpPredicate::eq, ij,
                                       bx.c(I * sb + J));
              emitGuarded(rewriter, loc, is, [&](OpBuilder &b2) {
                Idx bx2(b2, loc);
                emitMergeRowTask(rewriter, b2, loc, bx2, acc, src, dst, size,
                                 pair, I, J, phase, lane);
              });
            }
        });
      }
      rewriter.eraseOp(op);
      return success();
    }
    if (op.getFma()) {
      // Task (pair, strip s) of size / C strips of C = 256 / size columns
      // each, one branch per static 16-column block jb of T1 the strip
      // lies in.
      int64_t cols = 256 / size, perPair = size / cols;
      dealToWarps(rewriter, loc, ix, warp, warps, (n / (2 * size)) * perPair,
                  [&](OpBuilder &b, Idx &bx, Value task) {
        Value p0 = bx.mul(bx.div(task, perPair), 2 * size);
        Value strip = bx.rem(task, perPair);
        for (int64_t jb = 0; jb < sb; ++jb) {
          Value in = sb == 1 ? Value()
                             : b.create<LLVM::ICmpOp>(
                                   loc, LLVM::ICmpPredicate::eq,
                                   bx.div(strip, 16 / cols), bx.c(jb));
          emitGuarded(rewriter, loc, in, [&](OpBuilder &b2) {
            Idx bx2(b2, loc);
            emitMergeStripFma(b2, loc, bx2, acc, src, dst, size, p0,
                              bx2.mul(strip, cols), jb, lane);
          });
        }
      });
      rewriter.eraseOp(op);
      return success();
    }
    dealToWarps(rewriter, loc, ix, warp, warps, tasks,
                [&](OpBuilder &b, Idx &bx, Value task) {
      Value pair = bx.div(task, 2 * sb);
      Value jb = bx.rem(bx.div(task, 2), sb);
      Value col = bx.add(bx.add(bx.mul(pair, 2 * size), bx.mul(jb, 16)),
                         bx.mul(bx.rem(task, 2), 8)); // the strip
      emitMergeStrips(rewriter, b, loc, bx, acc, src, dst, size, pair, jb,
                      {col}, lane, op.getStagedLo());
    });
    rewriter.eraseOp(op);
    return success();
  }
};

} // namespace

void populateTrilInverseToNVVMPatterns(LLVMTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<TrilInverseLowering, TrilInverseDiagLowering,
               TrilInverseLevelLowering, TrilInverseMergeLowering>(converter);
}

} // namespace mlir::gdn
