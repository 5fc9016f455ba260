//===- PlanSharedMemory.cpp - liveness-based shared memory placement -------===//
//
// Places every shared tile.alloc of a kernel at a byte offset of the one
// dynamic shared-memory region, reusing the bytes of buffers that are dead.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileLimits.h"
#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"
#include "RingUtils.h"

#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/LoopLikeInterface.h"

namespace mlir::gdn::tile {
#define GEN_PASS_DEF_TILEPLANSHAREDMEMORY
#include "gdn/Dialect/Tile/Transforms/Passes.h.inc"

namespace {

/// A buffer's live range: a union of program-order index ranges
/// (inclusive), one for straight-line code, more where a loop reuses the
/// buffer's bytes between two of its generations.
struct Interval {
  AllocOp alloc;
  SmallVector<std::pair<int64_t, int64_t>, 2> live;
  int64_t size, align;
  int64_t offset = -1;
  /// The tile.producer_task the buffer is allocated in (null: none). Its
  /// live ranges compare with those of the same task's buffers only (the
  /// task's own program order; tile-insert-barriers orders its accesses);
  /// every other buffer may be in use while the task runs.
  Operation *task = nullptr;
  int64_t start() const { return live.front().first; }
  bool overlaps(const Interval &o) const {
    if (task != o.task)
      return true;
    for (auto [s, e] : live)
      for (auto [os, oe] : o.live)
        if (s <= oe && os <= e)
          return true;
    return false;
  }
};

struct PlanSharedMemoryPass
    : impl::TilePlanSharedMemoryBase<PlanSharedMemoryPass> {
  using TilePlanSharedMemoryBase::TilePlanSharedMemoryBase;
  void runOnOperation() override;
};

bool isLoop(Operation *op) {
  return isa<LoopLikeOpInterface, ForOp>(op);
}

/// Whether `user` overwrites every byte of `buffer` (the allocation's own
/// value, not a slice of it) without reading it: a copy into the whole
/// buffer (a masked global source zero-fills, so it writes every element
/// too) or a fill. Such a write ends the previous contents' lifetime.
bool isWholeWrite(Operation *user, Value buffer) {
  if (auto copy = dyn_cast<CopyOp>(user))
    return copy.getDest() == buffer && copy.getSource() != buffer &&
           copy.getDestOffsets().empty() && !copy.getBlockDiagonal() &&
           !copy.getBlockLower();
  if (auto copy = dyn_cast<AsyncCopyOp>(user))
    return copy.getDest() == buffer && copy.getSource() != buffer;
  if (auto fill = dyn_cast<FillOp>(user))
    return fill->getOperand(0) == buffer;
  return false;
}

/// The live range of a buffer allocated outside `loop` and used in it (and
/// possibly before it, never after), by generations: a whole-buffer write
/// directly in the loop body (not under a condition) starts a generation,
/// which lives to its last use before the next one. The generation alive
/// at the end of the body lives to the end of the loop only when the body
/// uses the buffer before its first whole write (the next iteration reads
/// it); that first, upward-exposed part lives from the allocation on.
/// Returns nothing where a use is outside the body's generations (no whole
/// write in the body): the caller keeps the buffer live through the loop.
std::optional<SmallVector<std::pair<int64_t, int64_t>, 2>>
loopGenerations(Operation *loop, int64_t allocAt, int64_t beforeLoopEnd,
                ArrayRef<std::pair<Operation *, Value>> uses,
                Value buffer, DenseMap<Operation *, int64_t> &first,
                DenseMap<Operation *, int64_t> &last) {
  if (loop->getNumRegions() != 1 || !loop->getRegion(0).hasOneBlock())
    return std::nullopt;
  // A TMA store reads its source until a later wait of the storing thread,
  // possibly in the next iteration: no generations for its buffers.
  if (llvm::any_of(uses, [](auto u) { return isa<TmaStoreOp>(u.first); }))
    return std::nullopt;
  Block &body = loop->getRegion(0).front();
  // The body's ops that hold uses, in order, and whether each is a whole
  // write.
  SmallVector<std::pair<Operation *, bool>> events;
  for (Operation &op : body) {
    // An op that uses the buffer once, as the whole write itself.
    int n = 0;
    bool whole = false;
    for (auto [user, v] : uses) {
      if (!op.isAncestor(user))
        continue;
      ++n;
      whole = user == &op && isWholeWrite(user, buffer);
    }
    if (n > 0)
      events.push_back({&op, whole && n == 1});
  }
  SmallVector<std::pair<int64_t, int64_t>, 2> live;
  bool killed = false, exposed = false;
  int64_t exposedEnd = -1, genStart = -1, genEnd = -1;
  // A cp.async writes until a later wait: a generation it starts must be
  // read (after that wait) in the body, or stay live to the loop's end.
  bool deadAsync = false;
  Operation *genOp = nullptr;
  for (auto [op, whole] : events) {
    if (whole) {
      if (killed) {
        deadAsync |= genEnd == last[genOp] && isa<AsyncCopyOp>(genOp);
        live.push_back({genStart, genEnd});
      }
      killed = true;
      genOp = op;
      genStart = first[op];
      genEnd = last[op];
    } else if (!killed) {
      exposed = true;
      exposedEnd = last[op];
    } else {
      genEnd = last[op];
    }
  }
  if (!killed || deadAsync)
    return std::nullopt;
  if (!exposed && genEnd == last[genOp] && isa<AsyncCopyOp>(genOp))
    return std::nullopt;
  if (exposed) {
    live.push_back({allocAt, exposedEnd});
    live.push_back({genStart, last[loop]});
  } else {
    live.push_back({allocAt, beforeLoopEnd});
    live.push_back({genStart, genEnd});
  }
  llvm::sort(live);
  return live;
}

void PlanSharedMemoryPass::runOnOperation() {
  func::FuncOp func = getOperation();
  if (!func->hasAttr(TileDialect::getKernelAttrName()))
    return;
  // Options: the alignment is a power of two of at least 16 bytes (the
  // widest shared access), the limit positive.
  if (alignment < 16 || !llvm::isPowerOf2_64(alignment) ||
      alignment > kMaxSharedBytesPerBlock) {
    func.emitError("tile-plan-shared-memory: alignment must be a power of "
                   "two in [16, ")
        << kMaxSharedBytesPerBlock << "], got "
        << static_cast<int64_t>(alignment);
    return signalPassFailure();
  }
  if (maxBytes <= 0) {
    func.emitError("tile-plan-shared-memory: max-bytes must be positive, "
                   "got ")
        << static_cast<int64_t>(maxBytes);
    return signalPassFailure();
  }

  // Program order: pre-order index of every op and the last index inside it.
  DenseMap<Operation *, int64_t> first, last;
  int64_t counter = 0;
  std::function<void(Operation *)> number = [&](Operation *op) {
    first[op] = counter++;
    for (Region &r : op->getRegions())
      for (Block &blk : r)
        for (Operation &inner : blk)
          number(&inner);
    last[op] = counter - 1;
  };
  number(func);

  // The stages of TMA rings, their mbarriers and the buffers producer
  // tasks share with the rest of the kernel (allocated outside them) live
  // for the whole kernel: a producer warpgroup (tile-warp-specialize)
  // fills stages for the next tile while the consumers still work on this
  // one, so no other buffer may reuse their bytes. A task's own buffers
  // (Interval::task) share bytes only among themselves.
  DenseSet<Operation *> rings = collectRingAllocs(func);

  SmallVector<Interval> intervals;
  WalkResult walk = func.walk([&](AllocOp alloc) -> WalkResult {
    auto type = cast<BufferType>(alloc.getType());
    if (!type.isShared())
      return WalkResult::advance();
    Interval iv{alloc, {}, 0, alignment};
    iv.task = alloc->getParentOfType<ProducerTaskOp>();
    int64_t start = first[alloc], end = first[alloc];
    // Passes build types without the type verifier (tile-pipeline's stage
    // buffers): the size is checked here; the plan's total below.
    std::optional<int64_t> size =
        checkedSizeInBytes(type.getStorageShape(), type.getElementBytes());
    if (!size) {
      alloc.emitOpError("shared buffer ")
          << formatShape(type.getShape(), type.getElementType())
          << " has more bytes than fit in int64";
      return WalkResult::interrupt();
    }
    iv.size = *size;
    if (isa_and_nonnull<SwizzleAttr>(type.getLayout()))
      iv.align = 1024;
    // Uses, through slices; a use inside a loop that does not contain the
    // allocation keeps the buffer live to the end of that loop, except
    // between the generations of a buffer the loop body overwrites whole
    // (loopGenerations). (A slice, a view, comes before its own uses.)
    SmallVector<std::pair<Operation *, Value>> uses;
    Operation *outerLoop = nullptr;
    bool oneLoop = true;
    int64_t beforeLoopEnd = start;
    forEachBufferUser(alloc.getResult(), [&](Operation *user, Value v) {
      uses.push_back({user, v});
      int64_t useEnd = first[user];
      Operation *outermost = nullptr;
      for (Operation *p = user->getParentOp(); p && p != func;
           p = p->getParentOp())
        if (isLoop(p) && !p->isAncestor(alloc)) {
          useEnd = std::max(useEnd, last[p]);
          outermost = p;
        }
      end = std::max(end, useEnd);
      if (outermost) {
        if (outerLoop && outerLoop != outermost)
          oneLoop = false;
        outerLoop = outermost;
      }
      return true;
    });
    // Uses outside the loop must all come before it.
    if (outerLoop && oneLoop) {
      for (auto [user, v] : uses)
        if (!outerLoop->isAncestor(user)) {
          if (first[user] > first[outerLoop])
            oneLoop = false;
          else
            beforeLoopEnd = std::max(beforeLoopEnd, first[user]);
        }
    }
    std::optional<SmallVector<std::pair<int64_t, int64_t>, 2>> gens;
    if (outerLoop && oneLoop && !rings.contains(alloc))
      gens = loopGenerations(outerLoop, start, beforeLoopEnd, uses,
                             alloc.getResult(), first, last);
    if (gens)
      iv.live = std::move(*gens);
    else
      iv.live.push_back({start, end});
    if (rings.contains(alloc))
      iv.live = {{0, last[func]}};
    intervals.push_back(iv);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return signalPassFailure();

  // Largest first, then earliest; first fit among overlapping live ranges.
  SmallVector<Interval *> order;
  for (Interval &iv : intervals)
    order.push_back(&iv);
  llvm::stable_sort(order, [](Interval *a, Interval *b) {
    if (a->size != b->size)
      return a->size > b->size;
    return a->start() < b->start();
  });
  int64_t total = 0, sumSizes = 0;
  SmallVector<Interval *> placed;
  for (Interval *iv : order) {
    SmallVector<std::pair<int64_t, int64_t>> busy;
    for (Interval *p : placed)
      if (p->overlaps(*iv))
        busy.push_back({p->offset, p->offset + p->size});
    llvm::sort(busy);
    // Offsets stay below the sum of the sizes plus alignment padding;
    // nothing computed from IR may wrap.
    int64_t offset = 0;
    bool overflow = false;
    for (auto [b, e] : busy) {
      std::optional<int64_t> end = checkedAdd(offset, iv->size);
      if (end && *end <= b)
        break;
      std::optional<int64_t> aligned = checkedAdd(e, iv->align - 1);
      if (!end || !aligned) {
        overflow = true;
        break;
      }
      offset = std::max<int64_t>(offset, *aligned / iv->align * iv->align);
    }
    std::optional<int64_t> end = checkedAdd(offset, iv->size);
    std::optional<int64_t> sum = checkedAdd(sumSizes, iv->size);
    if (overflow || !end || !sum) {
      iv->alloc.emitOpError("shared memory offsets overflow int64");
      return signalPassFailure();
    }
    iv->offset = offset;
    placed.push_back(iv);
    total = std::max(total, *end);
    sumSizes = *sum;
  }
  for (Interval &iv : intervals)
    iv.alloc.setOffsetAttr(
        IntegerAttr::get(IntegerType::get(&getContext(), 64), iv.offset));
  numBuffers += intervals.size();
  numReused += sumSizes - total;

  if (total > maxBytes) {
    func.emitError("shared memory plan needs ")
        << total << " bytes, more than the " << static_cast<int64_t>(maxBytes)
        << " a block may use";
    return signalPassFailure();
  }
  func->setAttr(TileDialect::getSharedMemoryBytesAttrName(),
                IntegerAttr::get(IntegerType::get(&getContext(), 64), total));
}

} // namespace
} // namespace mlir::gdn::tile
