//===- Pipeline.cpp - software pipelining of tile.for loops ----------------===//
//
// Turns `tile.for ... stages N` into an scf.for whose global-to-shared copies
// run N-1 iterations ahead through N-stage shared buffers and cp.async
// groups. See the pass description in Passes.td for the schedule.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileLimits.h"
#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"

namespace mlir::gdn::tile {
#define GEN_PASS_DEF_TILEPIPELINE
#include "gdn/Dialect/Tile/Transforms/Passes.h.inc"

namespace {

/// A global-to-shared copy of the loop body that can be issued ahead.
struct Producer {
  CopyOp copy;
  AllocOp buffer; // the shared destination, allocated outside the loop
};

/// Whether `v` can be recomputed for another iteration: defined outside the
/// loop, the induction variable, or a pure op of the body over such values.
bool isRecomputable(Value v, ForOp loop) {
  if (v == loop.getInductionVar())
    return true;
  Operation *def = v.getDefiningOp();
  if (!def)
    return !loop->isAncestor(v.getParentBlock()->getParentOp());
  if (!loop->isAncestor(def))
    return true;
  if (def->getBlock() != loop.getBody() || !isPure(def) ||
      def->getNumRegions() != 0)
    return false;
  return llvm::all_of(def->getOperands(),
                      [&](Value o) { return isRecomputable(o, loop); });
}

/// Clones the body ops that compute `v` for the iteration whose induction
/// variable is mapped in `mapping`.
Value recompute(OpBuilder &b, Value v, ForOp loop, IRMapping &mapping) {
  if (Value m = mapping.lookupOrNull(v))
    return m;
  Operation *def = v.getDefiningOp();
  if (!def || !loop->isAncestor(def))
    return v;
  for (Value o : def->getOperands())
    recompute(b, o, loop, mapping);
  Operation *clone = b.clone(*def, mapping);
  return clone->getResult(cast<OpResult>(v).getResultNumber());
}

/// cp.async moves 4, 8 or 16 bytes per thread and vector.
bool canCopyAsync(CopyOp copy) {
  auto layout = dyn_cast_or_null<BlockedLayoutAttr>(copy.getLayoutAttr());
  if (!layout)
    return true; // the conversion reports the missing thread mapping
  int64_t bytes = layout.getVector() *
                  cast<BufferType>(copy.getSource().getType()).getElementBytes();
  return bytes == 4 || bytes == 8 || bytes == 16;
}

struct PipelinePass : impl::TilePipelineBase<PipelinePass> {
  using TilePipelineBase::TilePipelineBase;
  void runOnOperation() override;
  LogicalResult pipeline(ForOp loop);
};

/// Producers of `loop`: top-level global->shared copies into buffers that
/// nothing else in the loop writes, with recomputable offsets.
SmallVector<Producer> findProducers(ForOp loop) {
  SmallVector<Producer> producers;
  for (Operation &op : loop.getBody()->without_terminator()) {
    auto copy = dyn_cast<CopyOp>(op);
    if (!copy)
      continue;
    auto src = cast<BufferType>(copy.getSource().getType());
    auto dst = cast<BufferType>(copy.getDest().getType());
    if (!src.isGlobal() || !dst.isShared())
      continue;
    auto alloc = copy.getDest().getDefiningOp<AllocOp>();
    if (!alloc || loop->isAncestor(alloc))
      continue;
    if (!isRecomputable(copy.getSource(), loop) ||
        !llvm::all_of(copy.getSourceOffsets(),
                      [&](Value v) { return isRecomputable(v, loop); }))
      continue;
    // Every use of the buffer must be inside the loop, and the copy must be
    // its only writer there.
    bool ok = true;
    for (Operation *user : alloc->getUsers()) {
      if (!loop->isAncestor(user)) {
        ok = false;
        break;
      }
      if (user == copy)
        continue;
      auto effects = dyn_cast<MemoryEffectOpInterface>(user);
      if (!effects) {
        ok = false;
        break;
      }
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffectsOnValue(alloc.getResult(), list);
      if (llvm::any_of(list, [](auto &e) {
            return isa<MemoryEffects::Write>(e.getEffect());
          }))
        ok = false;
    }
    // Each buffer has one producer.
    if (llvm::any_of(producers,
                     [&](const Producer &p) { return p.buffer == alloc; }))
      ok = false;
    if (ok)
      producers.push_back({copy, alloc});
  }
  return producers;
}

LogicalResult PipelinePass::pipeline(ForOp loop) {
  Location loc = loop.getLoc();
  int64_t numStages = loop.getNumStages();
  SmallVector<Producer> producers = findProducers(loop);
  OpBuilder b(loop);
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();

  if (numStages == 1 || producers.empty()) {
    // Run as written: barriers make the body's copies visible and protect
    // the buffers from the next iteration's writes.
    auto forOp = b.create<scf::ForOp>(loc, lb, ub, step);
    OpBuilder ib = OpBuilder::atBlockBegin(forOp.getBody());
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), forOp.getInductionVar());
    bool pendingCopies = false;
    for (Operation &op : loop.getBody()->without_terminator()) {
      auto copy = dyn_cast<CopyOp>(op);
      bool isSharedWrite =
          copy && cast<BufferType>(copy.getDest().getType()).isShared();
      if (pendingCopies && !isSharedWrite) {
        ib.create<BarrierOp>(loc);
        pendingCopies = false;
      }
      ib.clone(op, mapping);
      pendingCopies |= isSharedWrite;
    }
    if (pendingCopies)
      ib.create<BarrierOp>(loc);
    ib.create<BarrierOp>(loc);
    loop.erase();
    return success();
  }

  // The verifier bounds the stage count; the N-stage buffers must still fit
  // in a block's shared memory.
  if (numStages > kMaxPipelineStages)
    return loop.emitOpError("num_stages ")
           << numStages << " exceeds the limit of " << kMaxPipelineStages;
  for (Producer &p : producers) {
    auto type = cast<BufferType>(p.buffer.getType());
    std::optional<int64_t> bytes =
        checkedSizeInBytes(type.getShape(), type.getElementBytes());
    std::optional<int64_t> stagedBytes =
        bytes ? checkedMul(*bytes, numStages) : bytes;
    if (!stagedBytes || *stagedBytes > kMaxSharedBytesPerBlock)
      return p.copy.emitOpError("pipelining over ")
             << numStages << " stages needs "
             << (stagedBytes ? *stagedBytes : INT64_MAX)
             << " bytes for the shared buffer "
             << formatShape(type.getShape(), type.getElementType())
             << ", more than the " << kMaxSharedBytesPerBlock
             << " bytes of shared memory of a block";
  }

  // N-stage buffers.
  SmallVector<Value> staged;
  for (Producer &p : producers) {
    auto type = cast<BufferType>(p.buffer.getType());
    SmallVector<int64_t> shape{numStages};
    llvm::append_range(shape, type.getShape());
    OpBuilder ab(p.buffer);
    auto newType = BufferType::get(shape, type.getElementType(),
                                   MemorySpace::Shared, type.getLayout());
    staged.push_back(ab.create<AllocOp>(p.buffer.getLoc(), newType, nullptr));
    ++numMultiBuffered;
  }

  auto cst = [&](OpBuilder &bb, int64_t v) -> Value {
    return bb.create<arith::ConstantIndexOp>(loc, v);
  };
  // tripCount = ceildiv(ub - lb, step); the loop requires step > 0.
  Value span = b.create<arith::SubIOp>(loc, ub, lb);
  Value tripCount = b.create<arith::CeilDivSIOp>(loc, span, step);

  // Issues the producer copies of iteration `iter` (with induction value
  // `iv`) into stage `stage`, guarded by iter < tripCount.
  auto issue = [&](OpBuilder &bb, Value iter, Value iv, Value stage) {
    Value inRange = bb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                             iter, tripCount);
    auto ifOp = bb.create<scf::IfOp>(loc, inRange, /*withElse=*/false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), iv);
    for (auto [p, buf] : llvm::zip(producers, staged)) {
      Value src = recompute(tb, p.copy.getSource(), loop, mapping);
      SmallVector<Value> offsets;
      for (Value o : p.copy.getSourceOffsets())
        offsets.push_back(recompute(tb, o, loop, mapping));
      Value slice = tb.create<SliceOp>(loc, p.buffer.getType(), buf, stage);
      if (canCopyAsync(p.copy))
        tb.create<AsyncCopyOp>(loc, src, offsets, slice,
                               p.copy.getMaskedAttr(), p.copy.getLayoutAttr());
      else // e.g. 2-byte strided elements: loaded ahead, synchronously
        tb.create<CopyOp>(loc, src, offsets, slice, ValueRange{},
                          p.copy.getMaskedAttr(), p.copy.getLayoutAttr());
    }
    bb.create<AsyncCommitOp>(loc);
  };

  // Prologue: iterations 0 .. N-2.
  for (int64_t s = 0; s + 1 < numStages; ++s) {
    Value iter = cst(b, s);
    Value iv = b.create<arith::AddIOp>(
        loc, lb, b.create<arith::MulIOp>(loc, iter, step));
    issue(b, iter, iv, cst(b, s));
  }

  auto forOp = b.create<scf::ForOp>(loc, lb, ub, step);
  OpBuilder ib = OpBuilder::atBlockBegin(forOp.getBody());
  Value iv = forOp.getInductionVar();
  Value iter = ib.create<arith::DivSIOp>(
      loc, ib.create<arith::SubIOp>(loc, iv, lb), step);
  ib.create<AsyncWaitOp>(loc, numStages - 2);
  ib.create<BarrierOp>(loc);
  Value ahead = cst(ib, numStages - 1);
  Value nextIter = ib.create<arith::AddIOp>(loc, iter, ahead);
  Value nextIv = ib.create<arith::AddIOp>(
      loc, iv, ib.create<arith::MulIOp>(loc, ahead, step));
  Value stages = cst(ib, numStages);
  issue(ib, nextIter, nextIv,
        ib.create<arith::RemSIOp>(loc, nextIter, stages));
  Value cur = ib.create<arith::RemSIOp>(loc, iter, stages);

  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  for (auto [p, buf] : llvm::zip(producers, staged))
    mapping.map(p.buffer.getResult(),
                ib.create<SliceOp>(loc, p.buffer.getType(), buf, cur)
                    .getResult());
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (llvm::any_of(producers,
                     [&](const Producer &p) { return p.copy == &op; }))
      continue;
    ib.clone(op, mapping);
  }

  // Drain: no copy is in flight and every thread is done with the stages
  // before the space can be reused.
  b.setInsertionPointAfter(forOp);
  b.create<AsyncWaitOp>(loc, 0);
  b.create<BarrierOp>(loc);

  loop.erase();
  for (Producer &p : producers)
    p.buffer.erase();
  ++numPipelined;
  return success();
}

void PipelinePass::runOnOperation() {
  SmallVector<ForOp> loops;
  getOperation().walk([&](ForOp loop) { loops.push_back(loop); });
  // Post-order walk: inner loops come first.
  for (ForOp loop : loops)
    if (failed(pipeline(loop)))
      return signalPassFailure();
}

} // namespace
} // namespace mlir::gdn::tile
