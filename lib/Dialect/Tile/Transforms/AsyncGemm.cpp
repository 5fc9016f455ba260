//===- AsyncGemm.cpp - overlap independent wgmma gemms ---------------------===//
//
// A forward scan over each block of a kernel with the wgmma gemms still in
// flight; an op that needs their results, or would disturb their operands,
// gets a tile.gemm_wait in front of it. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"
#include "SharedRanges.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::gdn::tile {
#define GEN_PASS_DEF_TILEASYNCGEMM
#include "gdn/Dialect/Tile/Transforms/Passes.h.inc"

namespace {

bool isSharedBuffer(Value v) {
  auto type = dyn_cast<BufferType>(v.getType());
  return type && type.isShared();
}

/// The gemms issued and not yet waited for, oldest first (each is one
/// wgmma group: `wgmma.wait_group n` leaves the n youngest in flight): their
/// accumulators and their register A operands.
struct Pending {
  struct Group {
    Value accumulator, registerOperand; // registerOperand may be null
    /// The bytes its shared operands occupy (planned ranges; the whole
    /// region where not known).
    SmallVector<Range, 2> sharedOperands;
    bool operator==(const Group &o) const {
      return accumulator == o.accumulator &&
             registerOperand == o.registerOperand &&
             sharedOperands == o.sharedOperands;
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
  /// Index of the youngest group whose shared operands overlap `r`, or -1.
  int64_t youngestReading(Range r) const {
    for (int64_t i = static_cast<int64_t>(groups.size()) - 1; i >= 0; --i)
      if (llvm::any_of(groups[i].sharedOperands,
                       [&](const Range &x) { return x.overlaps(r); }))
        return i;
    return -1;
  }
  void add(GemmOp gemm) {
    Value a = gemm.getA();
    Group group{gemm.getC(),
                cast<BufferType>(a.getType()).isFragment() ? a : Value(),
                {}};
    // A shared operand whose bytes are not known (no tile.alloc behind
    // it) may be anywhere: every shared write then waits for the group.
    for (Value v : std::initializer_list<Value>{a, gemm.getB()})
      if (isSharedBuffer(v))
        group.sharedOperands.push_back(
            plannedRange(v).value_or(Range::everything()));
    groups.push_back(std::move(group));
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

/// Memory a pending gemm cannot be disturbed through: registers of another
/// fragment and global memory. Anything else (shared buffers, pointers of
/// other dialects) may alias a shared operand.
bool isHarmlessTarget(Value v) {
  auto type = dyn_cast<BufferType>(v.getType());
  return type && !type.isShared();
}

/// Plain synchronous accesses: their writes to shared memory are stores to
/// the bytes of the buffers they name, and nothing else (no barrier, no
/// release of a buffer to another agent), so a pending gemm is disturbed
/// only where those bytes overlap one of its shared operands.
bool isPlainAccess(Operation *op) {
  return isa<CopyOp, MapOp, FillOp, ScanOp, ReduceOp, ZeroTailOp, LoadOp>(
      op);
}

/// The shared bytes `op` itself (not counting nested ops) may write, where
/// they are known (tile-plan-shared-memory ran: `ranges`, empty if none),
/// or nullopt where it may disturb every pending gemm: a barrier (other
/// warps pass it; tile.any is one), a cp.async wait (its copies land), an
/// op that declares no effects (a barrier or call of another dialect), or a
/// write whose bytes are not known. Writes to fragments and global memory
/// are harmless. Only plain accesses get their ranges compared; any other
/// op writing shared memory (an mbarrier arrive releases a ring's stage, a
/// TMA load lands later) disturbs every pending gemm.
std::optional<SmallVector<Range>> writtenRanges(Operation *op) {
  SmallVector<Range> ranges;
  if (isa<BarrierOp, AsyncWaitOp, AnyOp>(op))
    return std::nullopt;
  if (isa<AsyncCommitOp>(op))
    return ranges;
  bool plain = isPlainAccess(op);
  auto addWrite = [&](Value v) {
    if (!v)
      return false;
    if (isHarmlessTarget(v))
      return true;
    std::optional<Range> r = plannedRange(v);
    if (!plain || !r)
      return false;
    ranges.push_back(*r);
    return true;
  };
  if (auto iface = dyn_cast<MemoryEffectOpInterface>(op)) {
    SmallVector<MemoryEffects::EffectInstance> effects;
    iface.getEffects(effects);
    for (const MemoryEffects::EffectInstance &e : effects)
      if (isa<MemoryEffects::Write, MemoryEffects::Free>(e.getEffect()) &&
          !addWrite(e.getValue()))
        return std::nullopt;
    return ranges;
  }
  // The nested ops of a tile.map or tile.reduce are walked on their own;
  // their outputs may still be shared (any shared operand may be written).
  if (op->hasTrait<OpTrait::HasRecursiveMemoryEffects>()) {
    for (Value v : op->getOperands())
      if (isSharedBuffer(v) && !addWrite(v))
        return std::nullopt;
    return ranges;
  }
  return std::nullopt;
}

/// How many of `pending`'s youngest groups may stay in flight while `op`
/// (with its nested ops) runs: none if it may disturb all of them (a
/// barrier, a shared write of unknown bytes), else those younger than the
/// youngest group whose accumulator or register operand it uses or whose
/// shared operand bytes it writes; nullopt when it needs no wait.
std::optional<int64_t> groupsToKeep(Operation *op, const Pending &pending) {
  int64_t youngest = -1;
  bool disturbing = false;
  op->walk([&](Operation *inner) {
    std::optional<SmallVector<Range>> written = writtenRanges(inner);
    if (!written) {
      disturbing = true;
      return WalkResult::interrupt();
    }
    for (const Range &r : *written)
      youngest = std::max(youngest, pending.youngestReading(r));
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

/// Whether `root` holds async gemms or gemm waits already (a schedule of
/// tile-pipeline's, which the pass leaves as it is).
bool hasAsyncSchedule(Operation *root) {
  return root
      ->walk([](Operation *op) {
        auto gemm = dyn_cast<GemmOp>(op);
        if ((gemm && gemm.getAsync()) || isa<GemmWaitOp>(op))
          return WalkResult::interrupt();
        return WalkResult::advance();
      })
      .wasInterrupted();
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
    if (func->walk([](WarpSpecializeOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      return;
    // tile-pipeline's own async gemms keep their schedule.
    bool whole = all || func->hasAttr(TileDialect::getAsyncGemmAttrName());
    if (whole && !hasAsyncSchedule(func)) {
      Pending pending;
      scan(func.getBody().front(), pending, /*waitAtEnd=*/true);
      return;
    }
    // Else only the producer tasks that ask for it (`async_gemm`): a task's
    // gemms are its warpgroup's own groups (wgmma.wait_group counts the
    // executing warp's), whatever the rest of the kernel runs.
    SmallVector<ProducerTaskOp> tasks;
    func.walk([&](ProducerTaskOp task) {
      if (task.getAsyncGemm())
        tasks.push_back(task);
    });
    for (ProducerTaskOp task : tasks)
      scanTask(task);
  }

  /// A producer task's body, scheduled on its own: nothing of the code
  /// around it is in flight on its warpgroup at entry, and its gemms are
  /// complete at its end. Skipped where it holds a tile-pipeline schedule
  /// of its own.
  void scanTask(ProducerTaskOp task) {
    if (hasAsyncSchedule(task))
      return;
    Pending inner;
    scan(task.getBody().front(), inner, /*waitAtEnd=*/true);
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
      if (auto task = dyn_cast<ProducerTaskOp>(op)) {
        // Another warpgroup's code: checked as a whole against this one's
        // pending gemms, then scheduled on its own.
        if (!pending.empty())
          if (std::optional<int64_t> keep = groupsToKeep(&op, pending))
            wait(&op, pending, *keep);
        scanTask(task);
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
