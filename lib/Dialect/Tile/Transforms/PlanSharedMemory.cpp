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

struct Interval {
  AllocOp alloc;
  int64_t start, end; // program-order indices, inclusive
  int64_t size, align;
  int64_t offset = -1;
};

struct PlanSharedMemoryPass
    : impl::TilePlanSharedMemoryBase<PlanSharedMemoryPass> {
  using TilePlanSharedMemoryBase::TilePlanSharedMemoryBase;
  void runOnOperation() override;
};

bool isLoop(Operation *op) {
  return isa<LoopLikeOpInterface, ForOp>(op);
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

  // The stages of TMA rings and their mbarriers live for the whole kernel:
  // a producer warpgroup (tile-warp-specialize) fills stages for the next
  // tile while the consumers still work on this one, so no other buffer
  // may reuse their bytes.
  DenseSet<Operation *> rings = collectRingAllocs(func);

  SmallVector<Interval> intervals;
  WalkResult walk = func.walk([&](AllocOp alloc) -> WalkResult {
    auto type = cast<BufferType>(alloc.getType());
    if (!type.isShared())
      return WalkResult::advance();
    Interval iv{alloc, first[alloc], first[alloc], 0, alignment};
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
    // allocation keeps the buffer live to the end of that loop.
    // (A slice, a view, comes before its own uses.)
    forEachBufferUser(alloc.getResult(), [&](Operation *user, Value) {
      int64_t end = first[user];
      for (Operation *p = user->getParentOp(); p && p != func;
           p = p->getParentOp())
        if (isLoop(p) && !p->isAncestor(alloc))
          end = std::max(end, last[p]);
      iv.end = std::max(iv.end, end);
      return true;
    });
    if (rings.contains(alloc)) {
      iv.start = 0;
      iv.end = last[func];
    }
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
    return a->start < b->start;
  });
  int64_t total = 0, sumSizes = 0;
  SmallVector<Interval *> placed;
  for (Interval *iv : order) {
    SmallVector<std::pair<int64_t, int64_t>> busy;
    for (Interval *p : placed)
      if (p->start <= iv->end && iv->start <= p->end)
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
