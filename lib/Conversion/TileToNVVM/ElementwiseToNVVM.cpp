//===- ElementwiseToNVVM.cpp - register-level compute to NVVM --------------===//
//
// tile.fill stores a scalar into every register, tile.map inlines its body
// once per register (with the register's coordinates for indexed bodies),
// tile.reduce goes through its shared scratch in a fixed order, tile.scan
// through warp shuffles, and math.exp / math.exp2 become ex2.approx.ftz.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::gdn {
namespace {
using namespace mlir::gdn::tile;

/// The coordinates of each of a fragment's registers on this thread, and
/// per register the i1 "this thread owns the slot" (null: always). Slots a
/// thread does not own get coordinate 0 (in bounds) for the bodies that
/// index with them (tile.map, tile.any).
struct RegisterCoords {
  SmallVector<SmallVector<Value>> coords;
  SmallVector<Value> owned;
};

RegisterCoords registerCoords(ConversionPatternRewriter &rewriter, Idx &ix,
                              BufferType type, int64_t numThreads) {
  int64_t n = fragmentRegs(type, numThreads);
  RegisterCoords rc{SmallVector<SmallVector<Value>>(n),
                    SmallVector<Value>(n)};
  for (Run &run : fragmentRuns(ix, type, numThreads, ix.tid())) {
    if (run.guard)
      for (Value &c : run.coord)
        c = rewriter.create<LLVM::SelectOp>(ix.loc, run.guard, c, ix.c(0));
    for (int64_t i = 0; i < run.len; ++i) {
      rc.coords[run.reg + i] = run.coord;
      rc.coords[run.reg + i].back() = ix.add(run.coord.back(), i);
      rc.owned[run.reg + i] = run.guard;
    }
  }
  return rc;
}

/// Maps a body's leading index arguments to register `coords`.
void mapIndexArgs(ConversionPatternRewriter &rewriter, Location loc,
                  Block &body, ArrayRef<Value> coords, IRMapping &mapping) {
  for (auto [d, c] : llvm::enumerate(coords))
    mapping.map(body.getArgument(d),
                rewriter
                    .create<UnrealizedConversionCastOp>(
                        loc, rewriter.getIndexType(), c)
                    .getResult(0));
}

struct FillLowering : TilePattern<FillOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(FillOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<BufferType>(op.getDest().getType());
    Idx ix(rewriter, op.getLoc());
    Regs regs{adaptor.getDest(), type.getElementType()};
    int64_t n = fragmentRegs(type, numThreadsOf(op));
    for (int64_t r = 0; r < n; ++r)
      regs.store(ix, r, adaptor.getValue());
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.map -> the body, once per register.
struct MapLowering : TilePattern<MapOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(MapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto outT = cast<BufferType>(op.getOutputs()[0].getType());
    for (Value v : op->getOperands())
      if (cast<BufferType>(v.getType()).getLayout() != outT.getLayout())
        return op.emitOpError("operands must share one layout; run "
                              "tile-assign-layouts first");
    if (!outT.getLayout())
      return op.emitOpError("fragments have no layout; run "
                            "tile-assign-layouts first");
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    int64_t numThreads = numThreadsOf(op);
    Block &body = op.getBody().front();
    size_t numIdx = op.getIndexed() ? outT.getRank() : 0;
    // Coordinates of each register (for indexed bodies).
    int64_t n = fragmentRegs(outT, numThreads);
    SmallVector<SmallVector<Value>> coords(n);
    if (numIdx)
      coords = registerCoords(rewriter, ix, outT, numThreads).coords;
    // Outputs whose yield rounds an f32 to their 16-bit element type
    // (arith.truncf to nearest even, used only by the yield) are converted
    // two registers at a time: one cvt.rn.{f16,bf16}x2.f32 per pair (the
    // same bits as two scalar conversions) instead of two cvt.rn.f16.f32
    // whose halves a consumer (a wgmma operand, a 16-bit store) packs again.
    // Register 2i is then stored after register 2i + 1 is computed, so a
    // buffer named twice in `outs` (the later output's value wins, register
    // by register) keeps the scalar path.
    auto yield = cast<YieldOp>(body.getTerminator());
    SmallVector<Operation *> narrowed(yield.getNumOperands(), nullptr);
    for (auto [k, v] : llvm::enumerate(yield.getValues())) {
      auto t = v.getDefiningOp<arith::TruncFOp>();
      Value out = op.getOutputs()[k];
      Type elem = cast<BufferType>(out.getType()).getElementType();
      bool aliased = llvm::count(op.getOutputs(), out) > 1;
      if (n % 2 == 0 && !aliased && t && t->getBlock() == &body &&
          t->hasOneUse() && t.getIn().getType().isF32() &&
          t.getType() == elem && (elem.isF16() || elem.isBF16()) &&
          (!t.getRoundingmode() ||
           *t.getRoundingmode() == arith::RoundingMode::to_nearest_even))
        narrowed[k] = t;
    }
    SmallVector<Value> pending(yield.getNumOperands());
    for (int64_t r = 0; r < n; ++r) {
      IRMapping mapping;
      mapIndexArgs(rewriter, loc, body, coords[r], mapping);
      for (auto [arg, in, inT] :
           llvm::zip(body.getArguments().drop_front(numIdx),
                     adaptor.getInputs(), op.getInputs().getTypes()))
        mapping.map(arg, Regs{in, cast<BufferType>(inT).getElementType()}
                             .load(ix, r));
      for (Operation &inner : body.without_terminator())
        if (!llvm::is_contained(narrowed, &inner))
          rewriter.clone(inner, mapping);
      for (auto [k, v, out, outTy] :
           llvm::enumerate(yield.getValues(), adaptor.getOutputs(),
                           op.getOutputs().getTypes())) {
        Regs regs{out, cast<BufferType>(outTy).getElementType()};
        if (!narrowed[k]) {
          regs.store(ix, r, mapping.lookupOrDefault(v));
          continue;
        }
        Value wide = mapping.lookupOrDefault(narrowed[k]->getOperand(0));
        if (r % 2 == 0) {
          pending[k] = wide;
          continue;
        }
        Value pair = packedTruncF32(rewriter, loc, regs.elem, pending[k], wide);
        for (int64_t h = 0; h < 2; ++h)
          regs.store(ix, r - 1 + h,
                     rewriter.create<LLVM::ExtractElementOp>(loc, pair,
                                                             ix.c32(h)));
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// A vote's first half: the body on each element the thread holds (each
/// once: replicated copies are masked off), or-ed into one i1.
FailureOr<Value> foldThreadVote(Operation *op, Value source, Value converted,
                                Region &bodyRegion,
                                ConversionPatternRewriter &rewriter) {
  auto type = cast<BufferType>(source.getType());
  if (!type.getLayout())
    return op->emitOpError("fragments have no layout; run "
                           "tile-assign-layouts first");
  Location loc = op->getLoc();
  Idx ix(rewriter, loc);
  int64_t numThreads = numThreadsOf(op);
  int64_t n = fragmentRegs(type, numThreads);
  RegisterCoords rc = registerCoords(rewriter, ix, type, numThreads);
  Block &body = bodyRegion.front();
  auto yield = cast<YieldOp>(body.getTerminator());
  Regs regs{converted, type.getElementType()};
  Type i1 = rewriter.getI1Type();
  Value vote =
      rewriter.create<LLVM::ConstantOp>(loc, i1, rewriter.getBoolAttr(false));
  for (int64_t r = 0; r < n; ++r) {
    IRMapping mapping;
    mapIndexArgs(rewriter, loc, body, rc.coords[r], mapping);
    mapping.map(body.getArgument(type.getRank()), regs.load(ix, r));
    for (Operation &inner : body.without_terminator())
      rewriter.clone(inner, mapping);
    Value v = mapping.lookupOrDefault(yield.getValues()[0]);
    if (rc.owned[r])
      v = rewriter.create<LLVM::AndOp>(loc, v, rc.owned[r]);
    vote = rewriter.create<LLVM::OrOp>(loc, vote, v);
  }
  return vote;
}

/// tile.any -> the body once per register, its i1 results or-ed per thread
/// (slots a thread does not own vote false), then one bar.red.or.pred over
/// the block (with id and threads: over that named barrier's threads): a
/// barrier whose result is the or of every thread's vote. As
/// tile.barrier (its proxy_fence, or without it the kernel-wide rule), it
/// first orders generic-proxy shared writes before async-proxy reads.
struct AnyLowering : TilePattern<AnyOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(AnyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    FailureOr<Value> folded =
        foldThreadVote(op, op.getSource(), adaptor.getSource(), op.getBody(),
                       rewriter);
    if (failed(folded))
      return failure();
    Value vote = *folded;
    // As tile.barrier's: a producer task's writes go to the consumers,
    // whose wgmma and TMA stores may read them.
    std::optional<bool> decided = op.getProxyFence();
    if (decided ? *decided
                : usesWgmma(op) || usesTmaStores(op) ||
                      op->getParentOfType<ProducerTaskOp>())
      createAsyncProxyFence(rewriter, loc);
    Type i32 = rewriter.getI32Type();
    Value in = rewriter.create<LLVM::ZExtOp>(loc, i32, vote);
    // The block's barrier 0, or the named one (a producer task's
    // warpgroup or, in a warp-specialized kernel, the consumers').
    std::string barrier = "0";
    if (op.getId())
      barrier = std::to_string(*op.getId()) + ", " +
                std::to_string(*op.getThreads());
    Value out = emitInlineAsm(
        rewriter, loc, i32, in,
        "{ .reg .pred vi, vo; setp.ne.u32 vi, $1, 0; "
        "bar.red.or.pred vo, " +
            barrier + ", vi; selp.u32 $0, 1, 0, vo; }",
        "=r,r", /*hasSideEffects=*/true);
    rewriter.replaceOpWithNewOp<LLVM::ICmpOp>(op, LLVM::ICmpPredicate::ne, out,
                                              ix.c32(0));
    return success();
  }
};

/// tile.warp_any: each thread folds its elements (as tile.any), then one
/// vote over the warp's lanes (vote.sync.ballot, all lanes): no barrier.
struct WarpAnyLowering : TilePattern<WarpAnyOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(WarpAnyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    FailureOr<Value> vote =
        foldThreadVote(op, op.getSource(), adaptor.getSource(), op.getBody(),
                       rewriter);
    if (failed(vote))
      return failure();
    Value ballot = rewriter.create<NVVM::VoteBallotOp>(
        loc, rewriter.getI32Type(), ix.c32(-1), *vote);
    rewriter.replaceOpWithNewOp<LLVM::ICmpOp>(op, LLVM::ICmpPredicate::ne,
                                              ballot, ix.c32(0));
    return success();
  }
};

Value f32Constant(OpBuilder &b, Location loc, float v) {
  return b.create<LLVM::ConstantOp>(loc, b.getF32Type(), b.getF32FloatAttr(v));
}

/// x (+) y for a reduction or scan kind: fadd, or maxnum / minnum (which
/// drop a NaN operand).
Value combineF32(OpBuilder &b, Location loc, ReduceKind kind, Value x,
                 Value y) {
  switch (kind) {
  case ReduceKind::Add:
    return b.create<LLVM::FAddOp>(loc, x, y);
  case ReduceKind::Max:
    return b.create<LLVM::MaxNumOp>(loc, x, y);
  case ReduceKind::Min:
    return b.create<LLVM::MinNumOp>(loc, x, y);
  }
  llvm_unreachable("unknown reduction kind");
}

/// tile.reduce through its shared scratch. With a scratch of the source's
/// shape: every thread writes its registers, then each destination element
/// is combined serially in index order. With a scratch of the destination's
/// shape (a row reduction whose rows are each held by an aligned group of
/// g = N / vector lanes of one warp, tile-assign-layouts' choice): each
/// lane combines its vector in index order, the group combines its lanes'
/// partials in a butterfly over shuffles (lane l adds lane l ^ m for m = 1,
/// 2, .., g / 2: every lane gets the same bits, as x + y = y + x), the
/// group's first lane writes the row's result to the scratch, and the
/// destination reads it back. Both orders are fixed, so results are
/// bit-identical from run to run, and the in-warp order depends only on the
/// row length and the vector.
struct ReduceLowering : TilePattern<ReduceOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto dstT = cast<BufferType>(op.getDest().getType());
    // A shared destination (no layout) takes the in-warp lowering's row
    // stores itself.
    bool intoShared = dstT.isShared();
    SmallVector<Value, 2> fragments{op.getSource()};
    if (!intoShared)
      fragments.push_back(op.getDest());
    if (failed(requireLayouts(op, fragments)))
      return failure();
    if (!intoShared && !op.getScratch()) {
      // One row on one lane group: every lane of the group ends the
      // butterfly with the result and thread 0, the destination's owner, is
      // one of them.
      if (!op.isScratchFree())
        return op.emitOpError("has no scratch buffer; run tile-assign-layouts "
                              "first");
      lowerInWarp(op, adaptor, rewriter,
                  *ReduceOp::getInWarpLanes(
                      cast<BufferType>(op.getSource().getType()),
                      op.getDim()));
      rewriter.eraseOp(op);
      return success();
    }
    if (intoShared || cast<BufferType>(op.getScratch().getType())
                              .getShape() == dstT.getShape()) {
      std::optional<int64_t> lanes = ReduceOp::getInWarpLanes(
          cast<BufferType>(op.getSource().getType()), op.getDim());
      if (!lanes || numThreadsOf(op) % 32 != 0)
        return op.emitOpError("an in-warp reduction (into shared memory or "
                              "with a scratch of the destination's shape) "
                              "needs each row held by an aligned lane group "
                              "of one warp");
      lowerInWarp(op, adaptor, rewriter, *lanes);
    } else {
      lowerSerial(op, adaptor, rewriter);
    }
    rewriter.eraseOp(op);
    return success();
  }

private:
  static Value combine(ReduceOp op, OpBuilder &b, Value x, Value y) {
    return combineF32(b, op.getLoc(), op.getKind(), x, y);
  }

  /// Rows of `lanes` lanes: vectors in order, a butterfly, one store per
  /// row, the barrier, the destination's loads. Without a scratch (a single
  /// row, held by lanes 0 .. lanes - 1): the butterfly's result goes
  /// straight into the destination's one register, no barrier. Into a
  /// shared destination: the row stores go there, and nothing follows.
  static void lowerInWarp(ReduceOp op, OpAdaptor adaptor,
                          ConversionPatternRewriter &rewriter,
                          int64_t lanes) {
    auto srcT = cast<BufferType>(op.getSource().getType());
    auto dstT = cast<BufferType>(op.getDest().getType());
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    Type f32 = rewriter.getF32Type();
    int64_t numThreads = numThreadsOf(op);
    Value tid = ix.tid();
    Value scratch = adaptor.getScratch();
    Regs src{adaptor.getSource(), f32}, dst{adaptor.getDest(), f32};
    Value lane = ix.rem(tid, 32);
    Value leader = ix.ult(ix.rem(lane, lanes), ix.c(1));
    Value fullMask = ix.c32(-1), clamp = ix.c32(31);
    SmallVector<Run> runs = fragmentRuns(ix, srcT, numThreads, tid);
    SmallVector<Value> partials;
    for (Run &run : runs) {
      Value partial = src.load(ix, run.reg);
      for (int64_t i = 1; i < run.len; ++i)
        partial = combine(op, rewriter, partial, src.load(ix, run.reg + i));
      // Groups are either all owners or all not (rows are whole groups), so
      // a non-owner's value only meets non-owners'; keep it defined.
      if (run.guard)
        partial = rewriter.create<LLVM::SelectOp>(
            loc, run.guard, partial, f32Constant(rewriter, loc, 0.0f));
      partials.push_back(partial);
    }
    // One butterfly round over all slots at a time: independent chains
    // interleave.
    for (int64_t m = 1; m < lanes; m *= 2) {
      Value offset = ix.c32(m);
      for (Value &partial : partials) {
        Value other = rewriter.create<NVVM::ShflOp>(
            loc, f32, fullMask, partial, offset, clamp, NVVM::ShflKind::bfly,
            UnitAttr());
        partial = combine(op, rewriter, partial, other);
      }
    }
    bool intoShared = dstT.isShared();
    if (!intoShared && !op.getScratch()) {
      // A single row (see matchAndRewrite): straight into the destination.
      dst.store(ix, 0, partials.front());
      return;
    }
    if (intoShared)
      scratch = adaptor.getDest();
    auto scratchT = cast<BufferType>(
        intoShared ? dstT : op.getScratch().getType());
    emitGuarded(rewriter, loc, leader, [&](OpBuilder &) {
      for (auto [run, partial] : llvm::zip(runs, partials))
        emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
          Idx bx(b, loc);
          Value ptr = bx.gep(scratch, b.getI8Type(),
                             sharedByteOffset(bx, scratchT, {run.coord[0]}));
          b.create<LLVM::StoreOp>(loc, partial, ptr);
        });
    });
    if (intoShared)
      return;
    createComputeBarrier(rewriter, loc, op);
    for (Run &run : fragmentRuns(ix, dstT, numThreads, tid))
      emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
        Idx bx(b, loc);
        for (int64_t i = 0; i < run.len; ++i) {
          Value ptr = bx.gep(
              scratch, b.getI8Type(),
              sharedByteOffset(bx, scratchT, {bx.add(run.coord[0], i)}));
          dst.store(bx, run.reg + i, b.create<LLVM::LoadOp>(loc, f32, ptr));
        }
      });
    createComputeBarrier(rewriter, loc, op);
  }

  /// Every register to the [M, N] scratch, the barrier, each destination
  /// element combined serially in index order.
  static void lowerSerial(ReduceOp op, OpAdaptor adaptor,
                          ConversionPatternRewriter &rewriter) {
    auto srcT = cast<BufferType>(op.getSource().getType());
    auto dstT = cast<BufferType>(op.getDest().getType());
    auto scratchT = cast<BufferType>(op.getScratch().getType());
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    Type f32 = rewriter.getF32Type();
    int64_t numThreads = numThreadsOf(op);
    Value tid = ix.tid();
    Value scratch = adaptor.getScratch();
    Regs src{adaptor.getSource(), f32}, dst{adaptor.getDest(), f32};
    for (Run &run : fragmentRuns(ix, srcT, numThreads, tid))
      emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
        Idx bx(b, loc);
        for (int64_t i = 0; i < run.len; ++i) {
          SmallVector<Value> coord(run.coord);
          coord.back() = bx.add(coord.back(), i);
          Value ptr = bx.gep(scratch, b.getI8Type(),
                             sharedByteOffset(bx, scratchT, coord));
          b.create<LLVM::StoreOp>(loc, src.load(bx, run.reg + i), ptr);
        }
      });
    createComputeBarrier(rewriter, loc, op);
    int64_t len = srcT.getShape()[op.getDim()];
    for (Run &run : fragmentRuns(ix, dstT, numThreads, tid))
      emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
        Idx bx(b, loc);
        for (int64_t i = 0; i < run.len; ++i) {
          Value p = bx.add(run.coord[0], i);
          Value accum;
          for (int64_t j = 0; j < len; ++j) {
            SmallVector<Value> coord = op.getDim() == 1
                                           ? SmallVector<Value>{p, bx.c(j)}
                                           : SmallVector<Value>{bx.c(j), p};
            Value ptr = bx.gep(scratch, b.getI8Type(),
                               sharedByteOffset(bx, scratchT, coord));
            Value v = b.create<LLVM::LoadOp>(loc, f32, ptr);
            accum = accum ? combine(op, b, accum, v) : v;
          }
          dst.store(bx, run.reg + i, accum);
        }
      });
    createComputeBarrier(rewriter, loc, op);
  }
};

/// e^x = ex2.approx.ftz(x * log2(e)), the fast path FLA also takes.
Value emitExp(OpBuilder &b, Location loc, Value x) {
  Value log2e = f32Constant(b, loc, 1.4426950408889634f);
  Value y = b.create<LLVM::FMulOp>(loc, x, log2e);
  return b.create<LLVM::CallIntrinsicOp>(loc, b.getF32Type(),
                                         "llvm.nvvm.ex2.approx.ftz.f",
                                         ValueRange{y})
      .getResult(0);
}

/// 2^x = ex2.approx.ftz(x): for exponents already in base 2 (a kernel that
/// scales its log-decays by log2(e) once per token instead of once per
/// element, docs/gdn-prefill.md).
Value emitExp2(OpBuilder &b, Location loc, Value x) {
  return b.create<LLVM::CallIntrinsicOp>(loc, b.getF32Type(),
                                         "llvm.nvvm.ex2.approx.ftz.f",
                                         ValueRange{x})
      .getResult(0);
}

/// log(x) = lg2.approx.ftz(x) * ln(2): relative error ~2^-22 away from 1,
/// but only absolutely accurate near 1 (see emitLog1p).
Value emitLog(OpBuilder &b, Location loc, Value x) {
  Value l2 = b.create<LLVM::CallIntrinsicOp>(loc, b.getF32Type(),
                                             "llvm.nvvm.lg2.approx.ftz.f",
                                             ValueRange{x})
                 .getResult(0);
  return b.create<LLVM::FMulOp>(loc, l2, f32Constant(b, loc, 0.6931471805599453f));
}

/// log(1 + t): for |t| < 1/4 its series to t^8 in Horner form (1 + t
/// would drop t's low bits, and lg2.approx is only absolutely accurate
/// near 1), else emitLog(1 + t); relative error < 2e-6 everywhere (checked
/// against log1p in an f32 emulation, docs/gdn-prefill.md).
Value emitLog1p(OpBuilder &b, Location loc, Value t) {
  Value one = f32Constant(b, loc, 1.0f);
  Value lg = emitLog(b, loc, b.create<LLVM::FAddOp>(loc, t, one));
  // t (1 - t (1/2 - t (1/3 - ... - t / 8))).
  Value acc = b.create<LLVM::FMulOp>(loc, t, f32Constant(b, loc, 0.125f));
  for (float c : {1.0f / 7, 1.0f / 6, 1.0f / 5, 1.0f / 4, 1.0f / 3, 1.0f / 2,
                  1.0f}) {
    Value d = b.create<LLVM::FSubOp>(loc, f32Constant(b, loc, c), acc);
    acc = b.create<LLVM::FMulOp>(loc, t, d);
  }
  Value mag = b.create<LLVM::FAbsOp>(loc, t);
  Value small = b.create<LLVM::FCmpOp>(loc, LLVM::FCmpPredicate::olt, mag,
                                       f32Constant(b, loc, 0.25f));
  return b.create<LLVM::SelectOp>(loc, small, acc, lg);
}

/// tile.scan in registers and warp shuffles (the layout keeps all n / v
/// vectors on the first lanes of warp 0, one per lane): each lane scans its
/// vector in index order; an inclusive Kogge-Stone scan of the lanes' totals
/// (round m: lane l >= m combines lane l - m's running value on the left of
/// its own); lane l > 0 then combines the inclusive total of lane l - 1 on
/// the left of each of its elements. Lanes past the last vector (and the
/// other warps) compute on values nobody reads: an owner only ever pulls
/// from lanes below it, which are owners.
struct ScanLowering : TilePattern<ScanOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(requireLayouts(op, {op.getSource(), op.getDest()})))
      return failure();
    auto srcT = cast<BufferType>(op.getSource().getType());
    int64_t n = srcT.getShape()[0];
    if (!ScanOp::fitsOneWarp(srcT.getLayout(), n) || numThreadsOf(op) < 32)
      return op.emitOpError("needs a blocked layout whose vectors fit the "
                            "first warp");
    int64_t v = cast<BlockedLayoutAttr>(srcT.getLayout()).getVector();
    int64_t owners = n / v;
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    Type f32 = rewriter.getF32Type();
    Regs src{adaptor.getSource(), f32}, dst{adaptor.getDest(), f32};
    auto combine = [&](Value x, Value y) {
      return combineF32(rewriter, loc, op.getKind(), x, y);
    };
    // Within the lane's vector.
    SmallVector<Value> run;
    for (int64_t i = 0; i < v; ++i) {
      Value x = src.load(ix, i);
      run.push_back(i == 0 ? x : combine(run.back(), x));
    }
    Value lane = ix.rem(ix.tid(), 32);
    Value fullMask = ix.c32(-1), noClamp = ix.c32(0);
    auto shflUp = [&](Value x, int64_t m) -> Value {
      return rewriter.create<NVVM::ShflOp>(loc, f32, fullMask, x, ix.c32(m),
                                           noClamp, NVVM::ShflKind::up,
                                           UnitAttr());
    };
    // Across the lanes: inclusive totals.
    Value total = run.back();
    for (int64_t m = 1; m < owners; m *= 2) {
      Value left = shflUp(total, m);
      Value has = rewriter.create<LLVM::ICmpOp>(
          loc, LLVM::ICmpPredicate::uge, lane, ix.c(m));
      total = rewriter.create<LLVM::SelectOp>(loc, has, combine(left, total),
                                              total);
    }
    if (owners > 1) {
      Value prefix = shflUp(total, 1);
      Value first = ix.ult(lane, ix.c(1));
      for (Value &x : run)
        x = rewriter.create<LLVM::SelectOp>(loc, first, x,
                                            combine(prefix, x));
    }
    for (int64_t i = 0; i < v; ++i)
      dst.store(ix, i, run[i]);
    rewriter.eraseOp(op);
    return success();
  }
};

/// An f32 math op by one of the emitters above (NVPTX cannot select
/// llvm.intr.exp / log / log1p, which MathToLLVM would produce).
template <typename OpTy, Value (*Emit)(OpBuilder &, Location, Value)>
struct F32MathLowering : ConvertOpToLLVMPattern<OpTy> {
  using ConvertOpToLLVMPattern<OpTy>::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(OpTy op, typename OpTy::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "only f32");
    rewriter.replaceOp(op, Emit(rewriter, op.getLoc(), adaptor.getOperand()));
    return success();
  }
};

} // namespace

void populateElementwiseToNVVMPatterns(LLVMTypeConverter &converter,
                                       RewritePatternSet &patterns) {
  patterns.add<FillLowering, MapLowering, AnyLowering, WarpAnyLowering,
               ReduceLowering, ScanLowering>(converter);
  // Preferred over MathToLLVM's intrinsics, which NVPTX cannot select.
  patterns.add<F32MathLowering<math::ExpOp, emitExp>,
               F32MathLowering<math::Exp2Op, emitExp2>,
               F32MathLowering<math::LogOp, emitLog>,
               F32MathLowering<math::Log1pOp, emitLog1p>>(converter,
                                                          /*benefit=*/2);
}

} // namespace mlir::gdn
