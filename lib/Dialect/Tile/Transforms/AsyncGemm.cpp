//===- AsyncGemm.cpp - overlap independent wgmma gemms ---------------------===//
//
// A forward scan over each block of a kernel with the wgmma gemms still in
// flight; an op that needs their results, or would disturb their operands,
// gets a tile.gemm_wait in front of it. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::gdn::tile {
#define GEN_PASS_DEF_TILEASYNCGEMM
#include "gdn/Dialect/Tile/Transforms/Passes.h.inc"

namespace {

/// The gemms issued and not yet waited for, oldest first (each is one
/// wgmma group: `wgmma.wait_group n` leaves the n youngest in flight): their
/// accumulators and their register A operands.
struct Pending {
  struct Group {
    Value accumulator, registerOperand; // registerOperand may be null
    bool operator==(const Group &o) const {
      return accumulator == o.accumulator &&
             registerOperand == o.registerOperand;
    }
  };
  SmallVector<Group, 4> groups;
  bool empty() const { return groups.empty(); }
  /// Index of the youngest group that reads or writes `v`, or -1.
  int64_t youngestUse(Value v) const {
    for (int64_t i = static_cast<int64_t>(groups.size()) - 1; i >= 0; --i)
      if (groups[i].accumulator == v || groups[i].registerOperand == v)
        return i;
    return -1;
  }
  void add(GemmOp gemm) {
    Value a = gemm.getA();
    groups.push_back({gemm.getC(),
                      cast<BufferType>(a.getType()).isFragment() ? a : Value()});
  }
  /// The groups that may stay in flight when group `i` must be complete.
  int64_t keepAfter(int64_t i) const {
    return static_cast<int64_t>(groups.size()) - i - 1;
  }
  /// Drops the groups a wait leaving `keep` in flight completes.
  void retire(int64_t keep) {
    groups.erase(groups.begin(), groups.end() - keep);
  }
  void clear() { groups.clear(); }
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

/// How many of `pending`'s youngest groups may stay in flight while `op`
/// (with its nested ops) runs: none if it may disturb any (a barrier, a
/// shared write), else those younger than the youngest group whose
/// accumulator or register operand it uses; nullopt when it needs no wait.
std::optional<int64_t> groupsToKeep(Operation *op, const Pending &pending) {
  int64_t youngest = -1;
  bool disturbing = false;
  op->walk([&](Operation *inner) {
    if (disturbs(inner)) {
      disturbing = true;
      return WalkResult::interrupt();
    }
    for (Value v : inner->getOperands())
      youngest = std::max(youngest, pending.youngestUse(v));
    return WalkResult::advance();
  });
  if (disturbing)
    return 0;
  if (youngest < 0)
    return std::nullopt;
  return pending.keepAfter(youngest);
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

  /// A tile.gemm_wait before `before` that leaves `keep` groups in flight
  /// (at most 7, the op's bound: waiting for more than needed is safe).
  void wait(Operation *before, Pending &pending, int64_t keep = 0) {
    keep = std::min<int64_t>(keep, 7);
    OpBuilder b(before);
    b.create<GemmWaitOp>(before->getLoc(), keep);
    pending.retire(keep);
    ++numWaits;
    if (keep > 0)
      ++numPartialWaits;
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
               return pending.youngestUse(v) >= 0;
             })))
          wait(&op, pending);
        continue;
      }
      if (auto gemm = dyn_cast<GemmOp>(op); gemm && isCandidate(gemm)) {
        // Its accumulator is written: no pending gemm may read or write
        // it. (Its A operand is 16-bit, never a pending f32 accumulator:
        // whatever formed it from one waited.)
        if (int64_t i = pending.youngestUse(gemm.getC()); i >= 0)
          wait(&op, pending, pending.keepAfter(i));
        gemm.setAsync(true);
        pending.add(gemm);
        ++numAsync;
        continue;
      }
      if (auto ifOp = dyn_cast<scf::IfOp>(op)) {
        // The condition is a scalar; the branches continue the scan and
        // their pending gemms flow out.
        // A wait counts groups, so the branches must leave the same ones in
        // flight; where they differ, both drain at their ends.
        Pending thenPending = pending, elsePending = pending;
        scan(ifOp.getThenRegion().front(), thenPending, /*waitAtEnd=*/false);
        if (!ifOp.getElseRegion().empty())
          scan(ifOp.getElseRegion().front(), elsePending,
               /*waitAtEnd=*/false);
        if (thenPending.groups != elsePending.groups) {
          if (!elsePending.empty() && ifOp.getElseRegion().empty()) {
            Block *block = new Block();
            ifOp.getElseRegion().push_back(block);
            OpBuilder::atBlockEnd(block).create<scf::YieldOp>(ifOp.getLoc());
          }
          if (!thenPending.empty())
            wait(ifOp.thenBlock()->getTerminator(), thenPending);
          if (!elsePending.empty())
            wait(ifOp.elseBlock()->getTerminator(), elsePending);
          pending.clear();
          continue;
        }
        pending = std::move(thenPending);
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
      if (!pending.empty())
        if (std::optional<int64_t> keep = groupsToKeep(&op, pending))
          wait(&op, pending, *keep);
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
