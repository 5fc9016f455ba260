//===- ProxyFences.cpp - which barriers order generic before async accesses -===//
//
// Sets tile.barrier's proxy_fence: true where the barrier is the last one
// before the async proxy (wgmma operand reads, TMA stores, another role
// behind an mbarrier hand-off) may read shared memory, false elsewhere. See
// Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Interfaces/CallInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::gdn::tile {
#define GEN_PASS_DEF_TILEPROXYFENCES
#include "gdn/Dialect/Tile/Transforms/Passes.h.inc"

namespace {

/// Whether `op` reads shared memory through the async proxy: a gemm lowered
/// to wgmma (its shared operands) or a TMA store (its source).
bool readsThroughAsyncProxy(Operation *op) {
  auto gemm = dyn_cast<GemmOp>(op);
  return isa<TmaStoreOp>(op) || (gemm && getMmaEngineAt(gemm) == "wgmma");
}

/// Whether `op` is an async read that a barrier's fence must order the
/// block's generic writes before: such a read, a call (the callee is not
/// looked into), or an mbarrier arrival (it may hand what its side wrote to
/// another role whose wgmma reads it: a producer task's results to the
/// consumers).
bool isAsyncRead(Operation *op) {
  return readsThroughAsyncProxy(op) ||
         isa<CallOpInterface, MBarrierArriveOp>(op);
}

/// Whether `op` or an op nested in it is an async read.
bool containsAsyncRead(Operation *op) {
  return op
      ->walk([](Operation *nested) {
        return isAsyncRead(nested) ? WalkResult::interrupt()
                                   : WalkResult::advance();
      })
      .wasInterrupted();
}

/// Where the paths from a point lead: to an async read before any barrier
/// (Found), each to a barrier first (Blocked), or some to neither (Open).
enum class Reach { Found, Blocked, Open };

Reach scanOps(Block::iterator it, Block::iterator end);

/// A loop of one single-block region (scf.for, tile.for), whose iterations
/// each run that block from its top.
bool isSimpleLoop(Operation &op) {
  return isa<LoopLikeOpInterface>(op) && op.getNumRegions() == 1 &&
         op.getRegion(0).hasOneBlock();
}

/// The paths into the region's entry block, which must be its only block
/// (a region of several blocks is scanned as a whole by the caller).
Reach scanRegion(Region &region) {
  if (region.empty())
    return Reach::Open;
  return scanOps(region.front().begin(), region.front().end());
}

/// The paths through `op`: a barrier blocks them; an async read ends them;
/// an `scf.if` / `scf.index_switch` blocks only if every region does (a
/// missing else is a path through); a loop's body may run zero times, and
/// any other op with regions (the roles of a `tile.warp_specialize`, a
/// `tile.producer`, an `scf.while`) is taken as a whole: Found if it holds
/// an async read.
Reach scanOp(Operation &op) {
  if (isa<BarrierOp, AnyOp>(op))
    return Reach::Blocked;
  if (isAsyncRead(&op))
    return Reach::Found;
  if (op.getNumRegions() == 0)
    return Reach::Open;
  bool singleBlocks = llvm::all_of(op.getRegions(), [](Region &r) {
    return r.empty() || r.hasOneBlock();
  });
  if (singleBlocks && isa<scf::IfOp, scf::IndexSwitchOp>(op)) {
    bool blocked = true;
    for (Region &region : op.getRegions()) {
      Reach r = scanRegion(region);
      if (r == Reach::Found)
        return Reach::Found;
      blocked &= r == Reach::Blocked && !region.empty();
    }
    return blocked ? Reach::Blocked : Reach::Open;
  }
  // Each path into a loop starts at its body's top, again on every
  // iteration, and may leave after any (or no) iteration.
  if (isSimpleLoop(op))
    return scanRegion(op.getRegion(0)) == Reach::Found ? Reach::Found
                                                       : Reach::Open;
  return containsAsyncRead(&op) ? Reach::Found : Reach::Open;
}

Reach scanOps(Block::iterator it, Block::iterator end) {
  for (; it != end; ++it)
    if (Reach r = scanOp(*it); r != Reach::Open)
      return r;
  return Reach::Open;
}

/// Whether some path from `barrier` reaches an async read before another
/// barrier: then this barrier is the last one before that read, and the
/// writes it orders must be fenced here. Paths leave the barrier's block
/// to the op around it and go on after that op; a loop's paths also wrap
/// around to its body's start; a producer task's paths wrap around to its
/// body's start and end there; any other op around the barrier than an
/// `scf.if`, `scf.index_switch`, loop or producer task is taken as a whole.
bool asyncReadMayFollow(Operation *barrier) {
  Operation *cur = barrier;
  while (true) {
    Reach r = scanOps(std::next(cur->getIterator()), cur->getBlock()->end());
    if (r == Reach::Found)
      return true;
    if (r == Reach::Blocked)
      return false;
    Region *region = cur->getParentRegion();
    Operation *parent = region->getParentOp();
    if (!parent || isa<FunctionOpInterface>(parent))
      return false;
    if (!region->hasOneBlock())
      return containsAsyncRead(parent);
    if (isSimpleLoop(*parent)) {
      // The next iteration, up to this barrier again (or an earlier one).
      if (scanRegion(*region) == Reach::Found)
        return true;
    } else if (isa<ProducerTaskOp>(parent)) {
      // The task's warps run only its body: once per iteration of the
      // loops around it, never the consumers' code after it.
      return scanRegion(*region) == Reach::Found;
    } else if (!isa<scf::IfOp, scf::IndexSwitchOp>(parent)) {
      if (containsAsyncRead(parent))
        return true;
    }
    cur = parent;
  }
}

struct TileProxyFencesPass
    : impl::TileProxyFencesBase<TileProxyFencesPass> {
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    // What the lowering's kernel-wide rule (no proxy_fence) would do: a
    // fence before every barrier of a kernel with wgmma or TMA stores, and
    // of a producer task.
    bool kernelWide = func.walk([](Operation *op) {
                            return readsThroughAsyncProxy(op)
                                       ? WalkResult::interrupt()
                                       : WalkResult::advance();
                          }).wasInterrupted();
    MLIRContext *ctx = &getContext();
    auto decide = [&](Operation *barrier, auto setFence) {
      bool fence = asyncReadMayFollow(barrier);
      setFence(BoolAttr::get(ctx, fence));
      if (fence)
        ++numFenced;
      else if (kernelWide || barrier->getParentOfType<ProducerTaskOp>())
        ++numElided;
    };
    func.walk([&](BarrierOp barrier) {
      decide(barrier, [&](BoolAttr a) { barrier.setProxyFenceAttr(a); });
    });
    // tile.any ends in a block barrier too.
    func.walk([&](AnyOp any) {
      decide(any, [&](BoolAttr a) { any.setProxyFenceAttr(a); });
    });
  }
};

} // namespace
} // namespace mlir::gdn::tile
