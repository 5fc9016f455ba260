//===- InsertBarriers.cpp - barriers for shared-memory hazards -------------===//
//
// A forward dataflow over each kernel: the shared byte ranges read, written
// and (asynchronously) pending since the last barrier. A conflicting access
// gets a tile.barrier in front of it. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileLimits.h"
#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"
#include "RingUtils.h"
#include "SharedRanges.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::gdn::tile {
#define GEN_PASS_DEF_TILEINSERTBARRIERS
#include "gdn/Dialect/Tile/Transforms/Passes.h.inc"

namespace {

struct RangeSet {
  SmallVector<Range, 4> ranges;
  void add(Range r) {
    if (!llvm::is_contained(ranges, r))
      ranges.push_back(r);
  }
  void add(const RangeSet &o) {
    for (const Range &r : o.ranges)
      add(r);
  }
  bool overlaps(Range r) const {
    return llvm::any_of(ranges, [&](const Range &x) { return x.overlaps(r); });
  }
  bool operator==(const RangeSet &o) const {
    if (ranges.size() != o.ranges.size())
      return false;
    return llvm::all_of(ranges,
                        [&](const Range &r) { return llvm::is_contained(o.ranges, r); });
  }
};

/// What happened to shared memory since the last barrier: synchronous
/// reads and writes, cp.async writes not yet waited for (`pending`), and
/// TMA stores' reads of their sources not yet waited for (`storeReads`:
/// a barrier does not end them, only the issuing thread's
/// tile.tma_store_wait {read}).
struct State {
  RangeSet reads, writes, pending, storeReads;
  void clearSync() {
    reads = {};
    writes = {};
  }
  void merge(const State &o) {
    reads.add(o.reads);
    writes.add(o.writes);
    pending.add(o.pending);
    storeReads.add(o.storeReads);
  }
  bool operator==(const State &o) const {
    return reads == o.reads && writes == o.writes && pending == o.pending &&
           storeReads == o.storeReads;
  }
};

/// Shared buffers whose accesses mbarriers order instead of block barriers:
/// the barrier objects themselves and the stages TMA loads write (the ring
/// of tile-pipeline makes every reader wait on the stage's full barrier and
/// release it through its empty barrier before the next load). One set per
/// kernel, owned by the pass run (kernels are processed in parallel).
using OrderedAllocs = DenseSet<Operation *>;

std::optional<Range> rangeOf(Value v, const OrderedAllocs &mbarrierOrdered) {
  auto alloc = rootAlloc(v);
  if (!alloc || mbarrierOrdered.contains(alloc))
    return std::nullopt;
  return plannedRange(v);
}

struct InsertBarriersPass
    : impl::TileInsertBarriersBase<InsertBarriersPass> {
  using TileInsertBarriersBase::TileInsertBarriersBase;
  void runOnOperation() override;

  /// Runs the analysis over `block` from `state`; inserts barriers only when
  /// `insert` is set (the final sweep, after loops reached their fixpoint).
  void visitBlock(Block &block, State &state, bool insert);
  void visitOp(Operation *op, State &state, bool insert);

  /// Hazards met by the sweeps since the last reset (a barrier was, or
  /// would have been, needed).
  int64_t countHazards(func::FuncOp func);
  /// Moves inserted barriers into branches where that keeps every path
  /// ordered (see the definition).
  void sinkIntoBranches(func::FuncOp func);

  /// Runs the analysis over a producer task's body, as the body of every
  /// loop around it, and inserts its barriers (the task's warps' own).
  void visitTask(ProducerTaskOp task);
  /// The state at the top of the iterations of a loop body entered with
  /// `initial`: `initial` merged with what the body leaves at its end,
  /// iterated to a fixpoint (analysis only, nothing inserted).
  State loopEntry(Block &body, const State &initial);

  OrderedAllocs mbarrierOrdered;
  bool hadError = false;
  int64_t hazards = 0;
  SmallVector<Operation *> inserted;
};

/// Shared ranges an op reads and writes synchronously: its memory effects,
/// with those of the ops in its regions for ops with recursive memory
/// effects (a tile.load in a tile.map body). An op whose effects are not
/// known writes every buffer operand (of the ops nested in it, too).
void sharedEffects(Operation *op, const OrderedAllocs &ordered,
                   RangeSet &reads, RangeSet &writes) {
  auto addUse = [&](Value v, bool isWrite) {
    if (!isa<BufferType>(v.getType()))
      return;
    if (auto r = rangeOf(v, ordered))
      (isWrite ? writes : reads).add(*r);
  };
  std::optional<SmallVector<MemoryEffects::EffectInstance>> effects =
      getEffectsRecursively(op);
  if (!effects) {
    op->walk([&](Operation *inner) {
      for (Value v : inner->getOperands())
        addUse(v, /*isWrite=*/true);
    });
    return;
  }
  for (auto &e : *effects) {
    Value v = e.getValue();
    if (!v)
      continue;
    if (isa<MemoryEffects::Read>(e.getEffect()))
      addUse(v, false);
    else if (isa<MemoryEffects::Write>(e.getEffect()))
      addUse(v, true);
  }
}

void InsertBarriersPass::visitOp(Operation *op, State &state, bool insert) {
  // A producer task is a program of its own (visitTask); what it shares
  // with this one, mbarriers order.
  if (isa<ProducerTaskOp>(op))
    return;
  if (auto barrier = dyn_cast<BarrierOp>(op)) {
    // A named barrier synchronizes only some threads: not a block barrier.
    if (!barrier.getId())
      state.clearSync();
    return;
  }
  if (isa<TmaLoadOp, MBarrierInitOp, MBarrierArriveOp, MBarrierWaitOp,
          GemmWaitOp>(op))
    return; // ordered by mbarriers (see mbarrierOrdered)
  if (auto wait = dyn_cast<AsyncWaitOp>(op)) {
    // Landed copies are writes of other threads until the next barrier.
    state.writes.add(state.pending);
    if (wait.getPending() == 0)
      state.pending = {};
    return;
  }
  if (auto copy = dyn_cast<AsyncCopyOp>(op)) {
    if (auto r = rangeOf(copy.getDest(), mbarrierOrdered)) {
      // Overwriting bytes someone may still read is a hazard at issue time.
      if (state.reads.overlaps(*r) || state.writes.overlaps(*r)) {
        ++hazards;
        if (insert) {
          inserted.push_back(OpBuilder(op).create<BarrierOp>(op->getLoc()));
          ++numBarriers;
        }
        state.clearSync();
      }
      state.pending.add(*r);
    }
    return;
  }
  if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
    State thenState = state, elseState = state;
    visitBlock(ifOp.getThenRegion().front(), thenState, insert);
    if (!ifOp.getElseRegion().empty())
      visitBlock(ifOp.getElseRegion().front(), elseState, insert);
    thenState.merge(elseState);
    state = thenState;
    return;
  }
  auto loop = dyn_cast<LoopLikeOpInterface>(op);
  if (loop && loop.getLoopRegions().size() == 1) {
    // Iterate the body to a fixpoint: the state at the top of an iteration
    // is the entry state merged with the state at the end of the body.
    Block &body = loop.getLoopRegions().front()->front();
    State entry = loopEntry(body, state);
    State s = entry;
    visitBlock(body, s, insert);
    state = entry;
    state.merge(s); // zero or more iterations
    return;
  }

  // Ordinary ops; ops with recursive memory effects (tile.map) contribute
  // their nested accesses (tile.load in the body).
  RangeSet reads, writes, storeReads, doneReads;
  if (op->getNumRegions() == 0 ||
      op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
    sharedEffects(op, mbarrierOrdered, reads, writes);
  } else {
    // Other region ops: the op and everything in it, as a whole, with any
    // barrier placed before the op.
    op->walk([&](Operation *inner) {
      sharedEffects(inner, mbarrierOrdered, reads, writes);
    });
  }
  // A TMA store (in a tile.producer: one thread, which cannot take part in
  // a block barrier) reads its source until a tile.tma_store_wait {read}
  // (pending = 0) of that thread, whatever barriers come between.
  op->walk([&](Operation *inner) {
    if (auto store = dyn_cast<TmaStoreOp>(inner)) {
      if (auto r = rangeOf(store.getSource(), mbarrierOrdered))
        storeReads.add(*r);
    } else if (auto wait = dyn_cast<TmaStoreWaitOp>(inner)) {
      if (wait.getRead() && wait.getPending() == 0) {
        // The reads are done; others may write those bytes after the
        // next barrier.
        doneReads.add(state.storeReads);
        doneReads.add(storeReads);
        state.storeReads = {};
        storeReads = {};
      }
    }
  });
  bool hazard = false;
  for (const Range &r : reads.ranges)
    hazard |= state.writes.overlaps(r);
  for (const Range &r : writes.ranges) {
    hazard |= state.writes.overlaps(r) || state.reads.overlaps(r) ||
              state.pending.overlaps(r);
    // No barrier helps here: the TMA unit may still be reading.
    if (insert && state.storeReads.overlaps(r)) {
      op->emitError("writes shared memory that a TMA store may still be "
                    "reading: put a tile.tma_store_wait {read} of the "
                    "storing thread before it");
      hadError = true;
    }
  }
  if (hazard) {
    ++hazards;
    if (insert) {
      inserted.push_back(OpBuilder(op).create<BarrierOp>(op->getLoc()));
      ++numBarriers;
    }
    state.clearSync();
  }
  if (isa<AnyOp>(op)) {
    // Its body's reads (above: a barrier before it where they need one)
    // come before its own block barrier, which then clears the state as
    // tile.barrier does.
    state.clearSync();
    return;
  }
  if (auto reduce = dyn_cast<ReduceOp>(op); reduce && reduce.getScratch()) {
    // Its lowering ends with a barrier (a reduction without a scratch, one
    // row in one warp, has none).
    state.clearSync();
    return;
  }
  state.reads.add(reads);
  state.reads.add(doneReads);
  state.writes.add(writes);
  state.storeReads.add(storeReads);
}

void InsertBarriersPass::visitBlock(Block &block, State &state, bool insert) {
  for (Operation &op : llvm::make_early_inc_range(block))
    visitOp(&op, state, insert);
}

void InsertBarriersPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (!func->hasAttr(TileDialect::getKernelAttrName()) || func.isExternal())
    return;
  // (A producer task's accesses are not part of this sweep: the buffers it
  // shares with the consumers are analyzed here for the consumers' own
  // accesses only.)
  mbarrierOrdered = collectRingAllocs(func, /*handOffs=*/false);
  hadError = false;
  inserted.clear();
  State state;
  visitBlock(func.getBody().front(), state, /*insert=*/true);
  if (hadError)
    return signalPassFailure();
  sinkIntoBranches(func);
  // Producer tasks: their own accesses, the buffers they hand over
  // included (the task's threads write them before one of them arrives on
  // an mbarrier); TMA stages and mbarriers stay ordered by mbarriers.
  SmallVector<ProducerTaskOp> tasks;
  func.walk([&](ProducerTaskOp task) { tasks.push_back(task); });
  for (ProducerTaskOp task : tasks)
    visitTask(task);
  if (hadError)
    return signalPassFailure();
}

State InsertBarriersPass::loopEntry(Block &body, const State &initial) {
  State entry = initial;
  for (int iter = 0; iter < 8; ++iter) {
    State s = entry;
    visitBlock(body, s, /*insert=*/false);
    State next = initial;
    next.merge(s);
    if (next == entry)
      break;
    entry = next;
  }
  return entry;
}

void InsertBarriersPass::visitTask(ProducerTaskOp task) {
  Block &body = task.getBody().front();
  bool inLoop = false;
  for (Operation *p = task->getParentOp(); p && !isa<func::FuncOp>(p);
       p = p->getParentOp())
    inLoop |= isa<LoopLikeOpInterface>(p);
  // The task runs once per iteration of the loops around it: its state at
  // the top is also what the end of the previous run left.
  State s = inLoop ? loopEntry(body, State()) : State();
  visitBlock(body, s, /*insert=*/true);
}

int64_t InsertBarriersPass::countHazards(func::FuncOp func) {
  hazards = 0;
  State state;
  visitBlock(func.getBody().front(), state, /*insert=*/false);
  return hazards;
}

/// A barrier the sweep put before an op (every time that op runs) is often
/// needed for accesses that reached it through one branch of an scf.if in
/// the same block only, the other branch ending in a barrier of its own
/// (the GDN chunk loop: sP read after the P barrier, then either the TMA
/// store path with its barrier or the masked store path without one; the
/// next iteration's P store then needs a barrier only after the latter).
/// Such a barrier moves to the end of that branch when the analysis then
/// finds no hazard anywhere: per execution of the block the branch runs at
/// most once, so no path runs more barriers than before, and the paths
/// through the other branches run one fewer. Branches inside a
/// tile.producer (one thread) are not candidates.
void InsertBarriersPass::sinkIntoBranches(func::FuncOp func) {
  for (Operation *barrier : inserted) {
    Block *block = barrier->getBlock();
    Operation *next = barrier->getNextNode();
    bool moved = false;
    for (Operation &op : *block) {
      auto ifOp = dyn_cast<scf::IfOp>(&op);
      if (!ifOp || ifOp->getParentOfType<ProducerOp>())
        continue;
      for (Region *region : {&ifOp.getThenRegion(), &ifOp.getElseRegion()}) {
        if (region->empty())
          continue;
        Operation *yield = region->front().getTerminator();
        if (isa_and_nonnull<BarrierOp>(yield->getPrevNode()))
          continue;
        barrier->remove();
        Operation *branchBarrier =
            OpBuilder(yield).create<BarrierOp>(barrier->getLoc());
        if (countHazards(func) == 0) {
          barrier->destroy();
          ++numSunk;
          moved = true;
          break;
        }
        branchBarrier->erase();
        block->getOperations().insert(Block::iterator(next), barrier);
      }
      if (moved)
        break;
    }
  }
}

} // namespace
} // namespace mlir::gdn::tile
