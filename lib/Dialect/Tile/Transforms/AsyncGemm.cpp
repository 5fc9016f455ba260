//===- AsyncGemm.cpp - overlap independent wgmma gemms ---------------------===//
//
// A forward scan over each block of a kernel with the wgmma gemms still in
// flight; an op that needs their results, or would disturb their operands,
// gets a tile.gemm_wait in front of it. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::gdn::tile {
#define GEN_PASS_DEF_TILEASYNCGEMM
#include "gdn/Dialect/Tile/Transforms/Passes.h.inc"

namespace {

/// The gemms issued and not yet waited for: their accumulators and their
/// register A operands (present only with their accumulators).
struct Pending {
  llvm::SmallDenseSet<Value, 8> accumulators, registerOperands;
  bool empty() const { return accumulators.empty(); }
  bool uses(Value v) const {
    return accumulators.contains(v) || registerOperands.contains(v);
  }
  void add(GemmOp gemm) {
    accumulators.insert(gemm.getC());
    if (cast<BufferType>(gemm.getA().getType()).isFragment())
      registerOperands.insert(gemm.getA());
  }
  void merge(const Pending &o) {
    accumulators.insert(o.accumulators.begin(), o.accumulators.end());
    registerOperands.insert(o.registerOperands.begin(),
                            o.registerOperands.end());
  }
  void clear() {
    accumulators.clear();
    registerOperands.clear();
  }
};

bool isSharedBuffer(Value v) {
  auto type = dyn_cast<BufferType>(v.getType());
  return type && type.isShared();
}

/// Memory a pending gemm cannot be disturbed through: registers of another
/// fragment and global memory. Anything else (shared buffers, pointers of
/// other dialects) may alias a shared operand.
bool isHarmlessTarget(Value v) {
  auto type = dyn_cast<BufferType>(v.getType());
  return type && !type.isShared();
}

/// Whether `op` itself (not counting nested ops) may write shared memory or
/// synchronize the block. Ops that declare no effects are assumed to (a
/// barrier or a call of another dialect), except the few tile ops known
/// not to.
bool disturbs(Operation *op) {
  if (isa<BarrierOp, AsyncWaitOp>(op))
    return true; // other warps pass it; cp.async copies land at it
  if (isa<AsyncCommitOp>(op))
    return false;
  if (auto iface = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    return llvm::any_of(effects, [](const MemoryEffects::EffectInstance &e) {
      if (!isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect()))
        return false;
      Value v = e.getValue();
      return !v || !isHarmlessTarget(v);
    });
  }
  // The nested ops of a tile.map or tile.reduce are walked on their own;
  // their outputs may still be shared.
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>())
    return llvm::any_of(op->getOperands(), isSharedBuffer);
  return true;
}

/// Whether `op` (with its nested ops) must not run while `pending` is in
/// flight.
bool needsWait(Operation *op, const Pending &pending) {
  WalkResult r = op->walk([&](Operation *inner) {
    if (disturbs(inner) ||
        llvm::any_of(inner->getOperands(),
                     [&](Value v) { return pending.uses(v); }))
      return WalkResult::interrupt();
    return WalkResult::advance();
  });
  return r.wasInterrupted();
}

/// A synchronous gemm on the wgmma engine (its accumulator's layout).
bool isCandidate(GemmOp gemm) {
  if (gemm.getAsync())
    return false;
  auto c = cast<BufferType>(gemm.getC().getType());
  auto mma = dyn_cast_or_null<MmaLayoutAttr>(c.getLayout());
  return mma && mma.getEngine() == MmaEngine::Wgmma;
}

struct AsyncGemmPass : impl::TileAsyncGemmBase<AsyncGemmPass> {
  using TileAsyncGemmBase::TileAsyncGemmBase;
  void runOnOperation() override {
    func::FuncOp func = getOperation();
    if (!func->hasAttr(TileDialect::getKernelAttrName()) || func.isExternal())
      return;
    if (!all && !func->hasAttr(TileDialect::getAsyncGemmAttrName()))
      return;
    // tile-pipeline's own async gemms keep their schedule.
    WalkResult existing = func.walk([](Operation *op) {
      auto gemm = dyn_cast<GemmOp>(op);
      if ((gemm && gemm.getAsync()) || isa<GemmWaitOp, WarpSpecializeOp>(op))
        return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (existing.wasInterrupted())
      return;
    Pending pending;
    scan(func.getBody().front(), pending, /*waitAtEnd=*/true);
  }

  void wait(Operation *before, Pending &pending) {
    OpBuilder b(before);
    b.create<GemmWaitOp>(before->getLoc(), 0);
    pending.clear();
    ++numWaits;
  }

  /// Scans `block` with `pending` in flight on entry; leaves in `pending`
  /// what is still in flight at its end (none with `waitAtEnd`).
  void scan(Block &block, Pending &pending, bool waitAtEnd) {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (op.hasTrait<OpTrait::IsTerminator>()) {
        // A branch's yield continues the scan, unless it passes a pending
        // fragment out as a result (then its users would not see it).
        if (!pending.empty() &&
            (waitAtEnd || llvm::any_of(op.getOperands(), [&](Value v) {
               return pending.uses(v);
             })))
          wait(&op, pending);
        continue;
      }
      if (auto gemm = dyn_cast<GemmOp>(op); gemm && isCandidate(gemm)) {
        // Its accumulator is written: no pending gemm may read or write
        // it. (Its A operand is 16-bit, never a pending f32 accumulator:
        // whatever formed it from one waited.)
        if (pending.uses(gemm.getC()))
          wait(&op, pending);
        gemm.setAsync(true);
        pending.add(gemm);
        ++numAsync;
        continue;
      }
      if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        // The condition is a scalar; the branches continue the scan and
        // their pending gemms flow out.
        Pending thenPending = pending, elsePending = pending;
        scan(ifOp.getThenRegion().front(), thenPending, /*waitAtEnd=*/false);
        if (!ifOp.getElseRegion().empty())
          scan(ifOp.getElseRegion().front(), elsePending,
               /*waitAtEnd=*/false);
        pending = std::move(thenPending);
        pending.merge(elsePending);
        continue;
      }
      if (isa<LoopLikeOpInterface>(op)) {
        if (!pending.empty())
          wait(&op, pending);
        for (Region &region : op.getRegions())
          for (Block &body : region) {
            Pending inner;
            scan(body, inner, /*waitAtEnd=*/true);
          }
        continue;
      }
      if (!pending.empty() && needsWait(&op, pending))
        wait(&op, pending);
    }
    // A body without a terminator (NoTerminator loops).
    if (waitAtEnd && !pending.empty()) {
      OpBuilder b = OpBuilder::atBlockEnd(&block);
      b.create<GemmWaitOp>(block.getParentOp()->getLoc(), 0);
      pending.clear();
      ++numWaits;
    }
  }
};

} // namespace
} // namespace mlir::gdn::tile
