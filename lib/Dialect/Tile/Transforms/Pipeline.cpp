//===- Pipeline.cpp - software pipelining of tile.for loops ----------------===//
//
// Turns `tile.for ... stages N` into an scf.for whose global-to-shared copies
// run N-1 iterations ahead through N-stage shared buffers: cp.async groups,
// or, in kernels with tile.copy_engine = "tma", TMA loads on an mbarrier
// ring (full/empty barriers per stage, phase parity from the iteration
// number, asynchronous wgmma kept one k-step in flight). A tile.flag_wait
// of the body goes with the copies: issued for the iteration they load,
// before them. See the pass description in Passes.td for both schedules.
//
//===----------------------------------------------------------------------===//

#include "Divisibility.h"
#include "RingUtils.h"
#include "TmaPlan.h"
#include "gdn/Dialect/Tile/IR/TileLimits.h"
#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

#include <map>

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

/// Where a TMA ring can go: at the kernel's top level, or directly in one
/// loop there whose iterations do not change the ring loop's trip count
/// (the ring numbers its iterations across the outer loop's). Returns the
/// outer loop (null at top level), or failure with the reason in `why`.
FailureOr<Operation *> ringPlacement(ForOp loop, func::FuncOp kernel,
                                     std::string &why) {
  Operation *parent = loop->getParentOp();
  if (parent == kernel.getOperation())
    return static_cast<Operation *>(nullptr);
  if (!isa<ForOp, scf::ForOp>(parent)) {
    why = "the loop is nested in '" + parent->getName().getStringRef().str() +
          "'; a TMA ring must be at the top level of the kernel or directly "
          "in a loop there";
    return failure();
  }
  if (parent->getParentOp() != kernel.getOperation()) {
    why = "a TMA ring may be nested in one loop only";
    return failure();
  }
  for (Value v : {loop.getLowerBound(), loop.getUpperBound(), loop.getStep()})
    if (parent->isAncestor(v.getParentRegion()->getParentOp())) {
      why = "the loop's trip count changes between iterations of the "
            "enclosing loop";
      return failure();
    }
  return parent;
}

/// The tile.for's `loop_annotation` (an LLVM loop annotation, e.g. LICM
/// off) carried over to the scf.for that runs its steady state, whose
/// latch convert-tile-to-nvvm gives it; `producer_loop_annotation` too,
/// for tile-warp-specialize.
void keepLoopAnnotation(ForOp loop, scf::ForOp forOp) {
  for (StringRef name : {TileDialect::getLoopAnnotationAttrName(),
                         TileDialect::getProducerLoopAnnotationAttrName()})
    if (Attribute a = loop->getAttr(name))
      forOp->setAttr(name, a);
}

/// Clones the body of `loop` (but its producer copies) at `ib` for
/// induction value `iv`, with each producer's buffer replaced by stage
/// `stage` of its N-stage buffer; `onClone` sees each original op and its
/// clone.
void cloneStageBody(
    OpBuilder &ib, ForOp loop, Value iv, ArrayRef<Producer> producers,
    ArrayRef<Value> staged, Value stage, ArrayRef<FlagWaitOp> gates,
    function_ref<void(Operation &, Operation *)> onClone = nullptr) {
  Location loc = loop.getLoc();
  IRMapping mapping;
  mapping.map(loop.getInductionVar(), iv);
  for (auto [p, buf] : llvm::zip(producers, staged)) {
    AllocOp buffer = p.buffer;
    mapping.map(buffer.getResult(),
                ib.create<SliceOp>(loc, buffer.getType(), buf, stage)
                    .getResult());
  }
  for (Operation &op : loop.getBody()->without_terminator()) {
    if (llvm::any_of(producers,
                     [&](const Producer &p) { return p.copy == &op; }) ||
        llvm::is_contained(gates, dyn_cast<FlagWaitOp>(op)))
      continue;
    Operation *clone = ib.clone(op, mapping);
    if (onClone)
      onClone(op, clone);
  }
}

/// The tile.flag_waits of the loop body (its top level): they guard the
/// iteration's loads, so a pipelined loop issues them with the copies.
SmallVector<FlagWaitOp> findGates(ForOp loop) {
  SmallVector<FlagWaitOp> gates;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto wait = dyn_cast<FlagWaitOp>(op))
      gates.push_back(wait);
  return gates;
}

/// Fails unless each gate can be issued for a later iteration, and unless
/// every wait of the body is a gate: one nested in the body's control flow
/// would run after the loads it guards were issued ahead (a tile.grid_wait
/// anywhere in the body, likewise).
LogicalResult checkGates(ForOp loop, ArrayRef<FlagWaitOp> gates) {
  WalkResult nested = loop.getBody()->walk([&](FlagWaitOp wait) {
    if (wait->getBlock() == loop.getBody())
      return WalkResult::advance();
    wait.emitOpError("in a pipelined loop must be at the top level of its "
                     "body: tile-pipeline issues such a wait with the "
                     "iteration's copies, ahead of the body; nested in the "
                     "body it would run after them");
    return WalkResult::interrupt();
  });
  if (nested.wasInterrupted())
    return failure();
  // A deferred grid wait cannot be issued ahead like a gate (it waits for
  // the whole predecessor grid, not for one iteration's data): the loads
  // the pipeline issues before the body would run before it.
  WalkResult gridWait = loop.getBody()->walk([&](GridWaitOp wait) {
    wait.emitOpError("in a pipelined loop would run after the loads "
                     "tile-pipeline issues ahead of the body: wait before "
                     "the loop");
    return WalkResult::interrupt();
  });
  if (gridWait.wasInterrupted())
    return failure();
  for (FlagWaitOp gate : gates)
    if (!llvm::all_of(gate->getOperands(),
                      [&](Value v) { return isRecomputable(v, loop); }))
      return gate.emitOpError(
                 "in a pipelined loop is issued with the copies, ")
             << loop.getNumStages() - 1
             << " iteration(s) ahead: its operands must be computable from "
                "the induction variable and values defined outside the loop";
  return success();
}

/// The gates' operands for the iteration mapped in `mapping`, computed at
/// `b` (before the gates are cloned with `mapping`).
void recomputeGateOperands(OpBuilder &b, ArrayRef<FlagWaitOp> gates,
                           ForOp loop, IRMapping &mapping) {
  for (FlagWaitOp gate : gates)
    for (Value v : gate->getOperands())
      recompute(b, v, loop, mapping);
}

/// The tile.producer_tasks of `loop`'s body that read a buffer of
/// `producers` (directly or through a tile.slice).
SmallVector<ProducerTaskOp> findRingReaders(ForOp loop,
                                            ArrayRef<Producer> producers) {
  SmallVector<ProducerTaskOp> readers;
  loop.getBody()->walk([&](ProducerTaskOp task) {
    bool reads = false;
    for (Producer p : producers)
      forEachBufferUser(p.buffer.getResult(), [&](Operation *user, Value) {
        reads |= task->isAncestor(user);
        return !reads;
      });
    if (reads)
      readers.push_back(task);
  });
  return readers;
}

/// The tile.mbarrier_arrive by which `task` hands its results over: the
/// last op of its body that is such an arrival without expect_tx, or a
/// tile.producer holding one directly (null: none); `top` is that op.
MBarrierArriveOp findHandOff(ProducerTaskOp task, Operation *&top) {
  for (Operation &op : llvm::reverse(task.getBody().front())) {
    MBarrierArriveOp arrive = dyn_cast<MBarrierArriveOp>(op);
    if (auto prod = dyn_cast<ProducerOp>(op))
      for (Operation &inner : llvm::reverse(prod.getBody().front()))
        if ((arrive = dyn_cast<MBarrierArriveOp>(inner)))
          break;
    if (arrive && !arrive.getExpectTx()) {
      top = &op;
      return arrive;
    }
  }
  return nullptr;
}

/// The first op of `task`'s body that uses a buffer of `producers` (itself
/// or in its regions), null if none.
Operation *firstRingUse(ProducerTaskOp task, ArrayRef<Producer> producers) {
  Block &taskBody = task.getBody().front();
  Operation *first = nullptr;
  for (Producer p : producers)
    forEachBufferUser(p.buffer.getResult(), [&](Operation *user, Value) {
      Operation *top = taskBody.findAncestorOpInBlock(*user);
      if (top && (!first || top->isBeforeInBlock(first)))
        first = top;
      return true;
    });
  return first;
}

/// Checks that a TMA ring's stage may be read by `readers.front()`, a
/// tile.producer_task of the loop body: it is at the body's top level,
/// the only such reader, reads the stage only before the arrival that
/// hands its results over (`barriers[index]`; from one thread, then after
/// a task-wide barrier that follows every read), and the rest of the body
/// waits on that same barrier before it touches any stage. Then the
/// consumers' release of the stage (their arrival on `empty` after their
/// last read) follows the task's last read, and the task may zero the
/// stage's tail rows for the consumers. (The wait's phase is the
/// kernel's: the pass matches the barrier and the slot, not the parity.)
/// Views of a stage other than tile.slice (a select, a yield, a region
/// result) are refused: the check could not follow them.
LogicalResult checkRingReader(ForOp loop, ArrayRef<ProducerTaskOp> readers,
                              ArrayRef<Producer> producers) {
  ProducerTaskOp task = readers.front();
  if (readers.size() > 1) {
    ProducerTaskOp other = readers[1];
    return other.emitOpError(
        "reads a TMA ring stage that another tile.producer_task of the "
        "loop reads too; one task per ring may read its stages");
  }
  Block *body = loop.getBody();
  if (task->getBlock() != body)
    return task.emitOpError("reads a TMA ring stage, so it must sit at the "
                            "top level of the pipelined loop's body");
  Operation *handOffTop = nullptr;
  MBarrierArriveOp handOff = findHandOff(task, handOffTop);
  if (!handOff)
    return task.emitOpError(
        "reads a TMA ring stage but hands nothing to the consumers: it must "
        "end by arriving on a barrier (tile.mbarrier_arrive without "
        "expect_tx) that the loop body waits on before its reads of the "
        "stage");
  MBarrierWaitOp wait;
  for (Operation &op : *body) {
    auto w = dyn_cast<MBarrierWaitOp>(op);
    if (w && task->isBeforeInBlock(w) &&
        w.getBarriers() == handOff.getBarriers() &&
        w.getIndex() == handOff.getIndex()) {
      wait = w;
      break;
    }
  }
  if (!wait)
    return task.emitOpError(
        "reads a TMA ring stage, but the loop body does not wait (a "
        "tile.mbarrier_wait at its top level, after the task) on the "
        "barrier the task arrives on last: the consumers could release "
        "the stage before the task read it");
  Block &taskBody = task.getBody().front();
  LogicalResult result = success();
  Operation *lastRead = nullptr;
  for (Producer p : producers)
    forEachBufferUser(p.buffer.getResult(), [&](Operation *user, Value) {
      if (user == p.copy.getOperation())
        return true;
      if (user->hasTrait<OpTrait::IsTerminator>() ||
          llvm::any_of(user->getResultTypes(),
                       [](Type t) { return isa<BufferType>(t); })) {
        result = user->emitOpError(
            "forwards a TMA ring stage that a tile.producer_task reads "
            "(only tile.slice views of a stage can be followed by the "
            "check that orders the task's reads before the consumers' "
            "release)");
        return false;
      }
      if (task->isAncestor(user)) {
        Operation *top = taskBody.findAncestorOpInBlock(*user);
        if (top && top->isBeforeInBlock(handOffTop)) {
          if (!lastRead || lastRead->isBeforeInBlock(top))
            lastRead = top;
          return true;
        }
        result = user->emitOpError(
            "reads a TMA ring stage in a tile.producer_task after the "
            "task's hand-off arrival; the consumers may have released the "
            "stage by then");
        return false;
      }
      Operation *top = body->findAncestorOpInBlock(*user);
      if (top && top != task.getOperation() && wait->isBeforeInBlock(top))
        return true;
      result = user->emitOpError(
          "uses a TMA ring stage that a tile.producer_task of the loop "
          "reads before waiting on the task's hand-off barrier; the task "
          "zeroes the stage's tail rows, so the rest of the body must wait "
          "for it first");
      return false;
    });
  if (failed(result) || !lastRead || !isa<ProducerOp>(handOffTop))
    return result;
  // One thread hands over: a barrier of the whole task must separate the
  // other threads' reads from its arrival.
  for (Operation *op = lastRead->getNextNode(); op != handOffTop;
       op = op->getNextNode())
    if (isa<BarrierOp>(op))
      return success();
  return handOff.emitOpError(
      "hands a tile.producer_task's results over from one thread, but no "
      "tile.barrier of the task separates its last read of a TMA ring "
      "stage from this arrival: the task's other threads could still be "
      "reading when the consumers release the stage");
}

struct PipelinePass : impl::TilePipelineBase<PipelinePass> {
  using TilePipelineBase::TilePipelineBase;
  void runOnOperation() override;
  LogicalResult pipeline(ForOp loop);
  LogicalResult pipelineTma(ForOp loop, MutableArrayRef<Producer> producers,
                            MutableArrayRef<TmaPlan> plans,
                            ArrayRef<FlagWaitOp> gates);
  /// The N-stage buffers of `producers` (one [N, ...] alloc beside each
  /// buffer), after checking the stage count and that they fit in shared
  /// memory.
  FailureOr<SmallVector<Value>> allocStages(ForOp loop,
                                            MutableArrayRef<Producer> producers);

  std::optional<TensorMaps> maps;
  bool useTma = false;
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

FailureOr<SmallVector<Value>>
PipelinePass::allocStages(ForOp loop, MutableArrayRef<Producer> producers) {
  int64_t numStages = loop.getNumStages();
  // The verifier bounds the stage count; the N-stage buffers must still fit
  // in a block's shared memory.
  if (numStages > kMaxPipelineStages)
    return loop.emitOpError("num_stages ")
           << numStages << " exceeds the limit of " << kMaxPipelineStages;
  for (Producer &p : producers) {
    auto type = cast<BufferType>(p.buffer.getType());
    // Stages get a leading dimension; a group skew is defined on rank-2
    // buffers only (#tile.padded<P, G, S>).
    if (type.getGroupSkew().first > 0)
      return p.copy.emitOpError("pipelining cannot multi-buffer the shared "
                                "buffer ")
             << formatShape(type.getShape(), type.getElementType())
             << ": its layout " << type.getLayout()
             << " has a group skew, which takes rank-2 buffers only";
    std::optional<int64_t> bytes =
        checkedSizeInBytes(type.getStorageShape(), type.getElementBytes());
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
  return staged;
}

LogicalResult PipelinePass::pipeline(ForOp loop) {
  Location loc = loop.getLoc();
  int64_t numStages = loop.getNumStages();
  SmallVector<Producer> producers = findProducers(loop);
  SmallVector<FlagWaitOp> gates = findGates(loop);
  if (numStages >= 2 && !producers.empty() && failed(checkGates(loop, gates)))
    return failure();
  OpBuilder b(loop);
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();

  // A loop of a producer task keeps cp.async: TMA rings are the
  // consumers' (the producer warpgroup issues them).
  if (useTma && numStages >= 2 && !producers.empty() &&
      !loop->getParentOfType<ProducerTaskOp>()) {
    func::FuncOp kernel = loop->getParentOfType<func::FuncOp>();
    SmallVector<TmaPlan, 2> plans;
    std::string why;
    bool placed = succeeded(ringPlacement(loop, kernel, why));
    for (Producer &p : producers) {
      if (!placed)
        break;
      auto planFor = [&](int64_t blockLower) {
        return planTma(p.copy.getSource(), p.copy.getSourceOffsets(),
                       cast<BufferType>(p.copy.getDest().getType()),
                       p.copy.getMasked(), TmaUse::RingLoad, kernel, why,
                       blockLower);
      };
      int64_t blockLower = p.copy.getBlockLower().value_or(0);
      FailureOr<TmaPlan> plan = planFor(blockLower);
      // A block_lower copy whose boxes cannot be split (blocks that, widened
      // to whole swizzle spans, would cover the tile: e.g. a 128-byte span
      // over a 64x64 tile of 32-row blocks) loads the whole tile instead,
      // which its semantics allow, rather than costing the ring its TMA.
      if (failed(plan) && blockLower)
        plan = planFor(0);
      if (failed(plan))
        break;
      plans.push_back(*plan);
    }
    if (placed && plans.size() == producers.size())
      return pipelineTma(loop, producers, plans, gates);
    loop.emitRemark("pipelined with cp.async instead of TMA: ") << why;
  }
  // Only a TMA ring's mbarriers order a task's reads of a stage.
  if (numStages >= 2)
    if (SmallVector<ProducerTaskOp> readers = findRingReaders(loop, producers);
        !readers.empty())
      return readers.front().emitOpError(
          "reads a stage of a loop pipelined with cp.async; a "
          "tile.producer_task may read only the stages of a TMA ring");

  if (numStages == 1 || producers.empty()) {
    // Run as written: barriers make the body's copies visible and protect
    // the buffers from the next iteration's writes.
    auto forOp = b.create<scf::ForOp>(loc, lb, ub, step);
    keepLoopAnnotation(loop, forOp);
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

  FailureOr<SmallVector<Value>> stagedOr = allocStages(loop, producers);
  if (failed(stagedOr))
    return failure();
  SmallVector<Value> staged = std::move(*stagedOr);
  // cp.async takes no L2 cache hint here (with one it trapped on the H100:
  // docs/hopper-codegen.md 5.13).
  for (Producer &p : producers)
    if (p.copy.getL2Hint() && canCopyAsync(p.copy))
      p.copy.emitRemark("the cp.async ring drops the copy's l2_hint");

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
    // Every thread waits for the iteration's flags before its copies.
    recomputeGateOperands(tb, gates, loop, mapping);
    for (FlagWaitOp gate : gates)
      tb.clone(*gate, mapping);
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
                          p.copy.getMaskedAttr(), p.copy.getTransposeAttr(),
                          p.copy.getDiagonalAttr(), p.copy.getLayoutAttr(),
                          p.copy.getBlockDiagonalAttr(),
                          p.copy.getBlockLowerAttr(), p.copy.getL2HintAttr());
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
  keepLoopAnnotation(loop, forOp);
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

  cloneStageBody(ib, loop, iv, producers, staged, cur, gates);

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

/// Whether `gemm`, in the body of `loop`, may run as an asynchronous wgmma
/// group that is retired one iteration later: a wgmma accumulator that no
/// other op of the loop touches, and operands that nothing in the loop
/// writes except the ring's loads.
bool canRunAsync(GemmOp gemm, ForOp loop, MutableArrayRef<Producer> producers) {
  if (gemm->getParentOp() != loop.getOperation())
    return false;
  auto cT = cast<BufferType>(gemm.getC().getType());
  auto mma = dyn_cast_or_null<MmaLayoutAttr>(cT.getLayout());
  if (!mma || mma.getEngine() != MmaEngine::Wgmma)
    return false;
  // A shared operand that a tile.producer_task also touches (anywhere in
  // the kernel) is a hand-off slot, released to the task right after its
  // readers: the gemm must have read it by then.
  auto kernel = gemm->getParentOfType<func::FuncOp>();
  for (Value operand : {gemm.getA(), gemm.getB()}) {
    AllocOp root = rootAlloc(operand);
    if (!root || !kernel)
      continue;
    // A ring stage a task reads is released by the ring's own scheme (the
    // task's reads precede its hand-off, which the consumers wait on).
    if (llvm::any_of(producers,
                     [&](Producer &p) { return p.buffer == root; }))
      continue;
    bool touched = false;
    kernel.walk([&](ProducerTaskOp task) {
      forEachBufferUser(root.getResult(), [&](Operation *user, Value) {
        touched |= task->isAncestor(user);
        return !touched;
      });
    });
    if (touched)
      return false;
  }
  bool ok = true;
  loop.getBody()->walk([&](Operation *op) {
    if (op == gemm.getOperation())
      return;
    if (isa<GemmOp>(op) && cast<GemmOp>(op).getC() == gemm.getC())
      return;
    if (llvm::is_contained(op->getOperands(), gemm.getC()))
      ok = false;
    auto effects = dyn_cast<MemoryEffectOpInterface>(op);
    for (Value operand : {gemm.getA(), gemm.getB()}) {
      if (llvm::any_of(producers, [&](Producer &p) {
            return p.buffer.getResult() == operand;
          }))
        continue;
      if (!effects) {
        if (llvm::is_contained(op->getOperands(), operand))
          ok = false;
        continue;
      }
      // Writes through another view of the operand's buffer count too
      // (a tile.producer_task filling a slot of a ring the gemm reads).
      AllocOp root = rootAlloc(operand);
      SmallVector<MemoryEffects::EffectInstance> list;
      effects.getEffects(list);
      if (llvm::any_of(list, [&](auto &e) {
            Value v = e.getValue();
            return isa<MemoryEffects::Write>(e.getEffect()) && v &&
                   (v == operand || (root && rootAlloc(v) == root));
          }))
        ok = false;
    }
  });
  return ok;
}

LogicalResult PipelinePass::pipelineTma(ForOp loop,
                                        MutableArrayRef<Producer> producers,
                                        MutableArrayRef<TmaPlan> plans,
                                        ArrayRef<FlagWaitOp> gates) {
  Location loc = loop.getLoc();
  int64_t numStages = loop.getNumStages();
  auto kernel = loop->getParentOfType<func::FuncOp>();
  MLIRContext *ctx = &getContext();
  SmallVector<ProducerTaskOp> readers = findRingReaders(loop, producers);
  if (!readers.empty() && failed(checkRingReader(loop, readers, producers)))
    return failure();
  int64_t consumerThreads =
      32 * cast<IntegerAttr>(kernel->getAttr(TileDialect::getNumWarpsAttrName()))
               .getInt();
  Value lb = loop.getLowerBound(), ub = loop.getUpperBound(),
        step = loop.getStep();

  // The ring's iterations are numbered across all executions of the loop,
  // so that stages and phases continue where the previous execution (an
  // earlier tile of a persistent kernel) left them: g = base + iteration.
  std::string why;
  FailureOr<Operation *> parent = ringPlacement(loop, kernel, why);
  if (failed(parent)) // pipeline() checked
    return loop.emitOpError(why);
  Value outerIv, outerLb, outerStep;
  if (auto f = dyn_cast_or_null<ForOp>(*parent)) {
    outerIv = f.getInductionVar();
    outerLb = f.getLowerBound();
    outerStep = f.getStep();
  } else if (auto f = dyn_cast_or_null<scf::ForOp>(*parent)) {
    outerIv = f.getInductionVar();
    outerLb = f.getLowerBound();
    outerStep = f.getStep();
  }

  // N-stage buffers, and the full/empty barriers of the ring at the
  // kernel's entry (initialized by one thread, then a block barrier).
  FailureOr<SmallVector<Value>> stagedOr = allocStages(loop, producers);
  if (failed(stagedOr))
    return failure();
  SmallVector<Value> staged = std::move(*stagedOr);
  auto barrierType = BufferType::get({numStages}, IntegerType::get(ctx, 64),
                                     MemorySpace::Shared);
  OpBuilder eb = OpBuilder::atBlockBegin(&kernel.getBody().front());
  Value full = eb.create<AllocOp>(loc, barrierType, nullptr);
  Value empty = eb.create<AllocOp>(loc, barrierType, nullptr);
  {
    auto init = eb.create<ProducerOp>(loc);
    OpBuilder ib = OpBuilder::atBlockEnd(&init.getBody().front());
    ib.create<MBarrierInitOp>(loc, full, 1);
    ib.create<MBarrierInitOp>(loc, empty, consumerThreads);
    eb.create<BarrierOp>(loc);
  }

  // Tensor maps, one kernel argument each.
  SmallVector<Value> mapArgs;
  for (auto [p, plan] : llvm::zip(producers, plans)) {
    auto dst = cast<BufferType>(p.buffer.getType());
    mapArgs.push_back(maps->get(plan, dst.getElementType()));
  }

  OpBuilder b(loop);
  auto cst = [&](OpBuilder &bb, int64_t v) -> Value {
    return bb.create<arith::ConstantIndexOp>(loc, v);
  };
  Value span = b.create<arith::SubIOp>(loc, ub, lb);
  Value tripCount = b.create<arith::CeilDivSIOp>(loc, span, step);
  Value base = cst(b, 0);
  if (outerIv) {
    Value rel = b.create<arith::SubIOp>(loc, outerIv, outerLb);
    Value outerIter = b.create<arith::DivSIOp>(loc, rel, outerStep);
    base = b.create<arith::MulIOp>(loc, outerIter, tripCount);
  }
  Value stages = cst(b, numStages);
  Value two = cst(b, 2);
  Value one = cst(b, 1);
  auto stageOf = [&](OpBuilder &bb, Value g) -> Value {
    return bb.create<arith::RemSIOp>(loc, g, stages);
  };
  auto parityOf = [&](OpBuilder &bb, Value g) -> Value {
    return bb.create<arith::RemSIOp>(
        loc, bb.create<arith::DivSIOp>(loc, g, stages), two);
  };

  // One ring step of the producer: ring iteration g, loop iteration
  // `iter` with induction value `iv`, guarded by iter < tripCount.
  auto issue = [&](OpBuilder &bb, Value iter, Value iv) {
    Value inRange = bb.create<arith::CmpIOp>(loc, arith::CmpIPredicate::slt,
                                             iter, tripCount);
    auto ifOp = bb.create<scf::IfOp>(loc, inRange, /*withElse=*/false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    Value g = tb.create<arith::AddIOp>(loc, base, iter);
    Value stage = stageOf(tb, g);
    // A fresh ring counts as empty: the wait for the phase before the
    // first returns at once.
    Value emptyParity = tb.create<arith::XOrIOp>(loc, parityOf(tb, g), one);
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), iv);
    SmallVector<SmallVector<Value>> coords;
    for (auto [p, plan] : llvm::zip(producers, plans)) {
      SmallVector<Value> offsets;
      for (Value o : p.copy.getSourceOffsets())
        offsets.push_back(recompute(tb, o, loop, mapping));
      coords.push_back(tmaCoords(tb, loc, plan, offsets, [&](Value v) {
        return recompute(tb, v, loop, mapping);
      }));
    }
    SmallVector<Value> slices;
    for (auto [p, buf] : llvm::zip(producers, staged))
      slices.push_back(
          tb.create<SliceOp>(loc, p.buffer.getType(), buf, stage));
    recomputeGateOperands(tb, gates, loop, mapping);
    auto prod = tb.create<ProducerOp>(loc);
    OpBuilder pb = OpBuilder::atBlockEnd(&prod.getBody().front());
    // The producer thread waits for the iteration's flags (while the
    // consumers may still read the stage), then for the stage.
    for (FlagWaitOp gate : gates)
      pb.clone(*gate, mapping);
    pb.create<MBarrierWaitOp>(loc, empty, stage, emptyParity);
    // The stage's full barrier expects exactly the bytes its loads bring
    // (TmaLoadOp::getNumBytes: boxes x box bytes), announced before them.
    SmallVector<TmaLoadOp> loads;
    for (auto [p, map, c, slice, plan] :
         llvm::zip(producers, mapArgs, coords, slices, plans)) {
      loads.push_back(pb.create<TmaLoadOp>(loc, map, c, slice, full, stage));
      if (plan.blockLower)
        loads.back().setBlockLowerAttr(pb.getI64IntegerAttr(plan.blockLower));
      // The copy's L2 eviction priority (a hint) goes with its loads.
      if (L2HintAttr hint = p.copy.getL2HintAttr())
        loads.back().setL2HintAttr(hint);
    }
    int64_t bytes = 0;
    for (TmaLoadOp load : loads)
      bytes += load.getNumBytes();
    OpBuilder ab(loads.front());
    ab.create<MBarrierArriveOp>(loc, full, stage, ab.getI64IntegerAttr(bytes));
  };

  SmallVector<GemmOp> asyncGemms;
  for (Operation &op : loop.getBody()->without_terminator())
    if (auto gemm = dyn_cast<GemmOp>(op))
      if (canRunAsync(gemm, loop, producers))
        asyncGemms.push_back(gemm);

  // How far ahead the loads go: N - 1 iterations, issued after the release
  // of the iteration's stage by a producer of its own, which refills that
  // stage as soon as it is free. Where the consumers issue the loads
  // themselves (tile-warp-specialize's tma_issue = "consumer") the issue
  // runs right after their release, so it takes the stage just released:
  // N ahead (with asynchronous wgmma the stage released is the previous
  // iteration's, so N - 1 is already that).
  int64_t ahead = numStages - 1;
  if (TileDialect::getTmaIssue(kernel) == "consumer" && asyncGemms.empty())
    ahead = numStages;

  // Prologue: iterations 0 .. ahead - 1.
  for (int64_t s = 0; s < ahead; ++s) {
    Value iter = cst(b, s);
    Value iv = b.create<arith::AddIOp>(
        loc, lb, b.create<arith::MulIOp>(loc, iter, step));
    issue(b, iter, iv);
  }

  auto forOp = b.create<scf::ForOp>(loc, lb, ub, step);
  keepLoopAnnotation(loop, forOp);
  OpBuilder ib = OpBuilder::atBlockBegin(forOp.getBody());
  Value iv = forOp.getInductionVar();
  Value iter = ib.create<arith::DivSIOp>(
      loc, ib.create<arith::SubIOp>(loc, iv, lb), step);
  Value g = ib.create<arith::AddIOp>(loc, base, iter);
  Value cur = stageOf(ib, g);
  Value parity = parityOf(ib, g);
  ib.create<MBarrierWaitOp>(loc, full, cur, parity);
  // Masked copies from narrowed views: the rows past the narrowed extent
  // hold the neighbouring data TMA read; zero them (only in an iteration
  // whose tile crosses the extent's end), then a barrier before any thread
  // reads the stage. `valid` is the same in every thread. The consumers
  // do it, or, where a producer task reads the stage, the task (before
  // its reads; the consumers wait for its hand-off before theirs).
  auto emitTails = [&](OpBuilder &tb0) {
    IRMapping mapping;
    mapping.map(loop.getInductionVar(), iv);
    Value anyTail;
    struct Tail {
      Type type;    // the stage's buffer type
      Value stages; // the N-stage buffer
      Value valid;  // rows of the tile inside the narrowed extent
    };
    SmallVector<Tail> tails;
    for (auto [p, plan, buf] : llvm::zip(producers, plans, staged)) {
      if (!plan.maskSize)
        continue;
      Value off = recompute(tb0, p.copy.getSourceOffsets()[plan.maskOffset],
                            loop, mapping);
      Value valid = tb0.create<arith::SubIOp>(
          loc, recompute(tb0, plan.maskSize, loop, mapping), off);
      int64_t rows = cast<BufferType>(p.buffer.getType()).getShape()[0];
      Value partial = tb0.create<arith::CmpIOp>(
          loc, arith::CmpIPredicate::slt, valid, cst(tb0, rows));
      anyTail = anyTail ? tb0.create<arith::OrIOp>(loc, anyTail, partial)
                        : partial;
      tails.push_back({p.buffer.getType(), buf, valid});
    }
    if (anyTail) {
      auto ifOp = tb0.create<scf::IfOp>(loc, anyTail, /*withElse=*/false);
      OpBuilder tb = ifOp.getThenBodyBuilder();
      for (Tail &t : tails) {
        Value slice = tb.create<SliceOp>(loc, t.type, t.stages, cur);
        tb.create<ZeroTailOp>(loc, slice, t.valid);
      }
      tb.create<BarrierOp>(loc);
    }
  };
  if (readers.empty())
    emitTails(ib);
  ProducerTaskOp readerClone;
  cloneStageBody(ib, loop, iv, producers, staged, cur, gates,
                 [&](Operation &op, Operation *clone) {
                   if (auto gemm = dyn_cast<GemmOp>(op);
                       gemm && llvm::is_contained(asyncGemms, gemm))
                     cast<GemmOp>(clone).setAsync(true);
                   if (!readers.empty() && &op == readers.front())
                     readerClone = cast<ProducerTaskOp>(clone);
                 });
  // The task reading the stage waits for its loads itself (its warpgroup
  // does not run the consumers' wait above), right before its first use
  // of a stage (what it does before, e.g. loads for later chunks, goes
  // on while the stage lands).
  if (readerClone) {
    Block &orig = readers.front().getBody().front();
    Operation *first = firstRingUse(readers.front(), producers);
    auto at = readerClone.getBody().front().begin();
    std::advance(at, std::distance(orig.begin(), first->getIterator()));
    OpBuilder tb(&readerClone.getBody().front(), at);
    tb.create<MBarrierWaitOp>(loc, full, cur, parity);
    emitTails(tb);
  }
  // Release the stage the consumers are done with: with asynchronous
  // wgmma that is the previous iteration's, once its group retired.
  if (!asyncGemms.empty()) {
    ib.create<GemmWaitOp>(loc, 1);
    Value notFirst =
        ib.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, iter,
                                 cst(ib, 0));
    auto ifOp = ib.create<scf::IfOp>(loc, notFirst, /*withElse=*/false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    Value prev = stageOf(tb, tb.create<arith::SubIOp>(loc, g, one));
    tb.create<MBarrierArriveOp>(loc, empty, prev, IntegerAttr());
  } else {
    ib.create<MBarrierArriveOp>(loc, empty, cur, IntegerAttr());
  }
  // The producer step `ahead` iterations ahead, after the release (a
  // thread that is producer and consumer must not wait for its own
  // release).
  Value aheadV = cst(ib, ahead);
  issue(ib, ib.create<arith::AddIOp>(loc, iter, aheadV),
        ib.create<arith::AddIOp>(
            loc, iv, ib.create<arith::MulIOp>(loc, aheadV, step)));

  b.setInsertionPointAfter(forOp);
  if (!asyncGemms.empty()) {
    b.create<GemmWaitOp>(loc, 0);
    Value any = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt,
                                        tripCount, cst(b, 0));
    auto ifOp = b.create<scf::IfOp>(loc, any, /*withElse=*/false);
    OpBuilder tb = ifOp.getThenBodyBuilder();
    Value last = stageOf(
        tb, tb.create<arith::SubIOp>(
                loc, tb.create<arith::AddIOp>(loc, base, tripCount), one));
    tb.create<MBarrierArriveOp>(loc, empty, last, IntegerAttr());
  }

  loop.erase();
  for (Producer &p : producers)
    p.buffer.erase();
  ++numPipelined;
  return success();
}

void PipelinePass::runOnOperation() {
  func::FuncOp kernel = getOperation();
  if (kernel.isExternal())
    return; // a declaration: nothing to pipeline
  auto engine =
      kernel->getAttrOfType<StringAttr>(TileDialect::getCopyEngineAttrName());
  useTma = engine && engine.getValue() == "tma";
  if (useTma && (!kernel->hasAttr(TileDialect::getKernelAttrName()) ||
                 !kernel->getAttrOfType<IntegerAttr>(
                     TileDialect::getNumWarpsAttrName()))) {
    kernel.emitError("tile.copy_engine applies to tile kernels (tile.kernel "
                     "with tile.num_warps)");
    return signalPassFailure();
  }
  maps.emplace(kernel);
  SmallVector<ForOp> loops;
  getOperation().walk([&](ForOp loop) { loops.push_back(loop); });
  // Post-order walk: inner loops come first.
  for (ForOp loop : loops)
    if (failed(pipeline(loop)))
      return signalPassFailure();
}

} // namespace
} // namespace mlir::gdn::tile
