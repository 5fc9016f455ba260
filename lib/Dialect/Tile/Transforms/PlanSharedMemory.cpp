//===- PlanSharedMemory.cpp - liveness-based shared memory placement -------===//
//
// Places every shared tile.alloc of a kernel at a byte offset of the one
// dynamic shared-memory region, reusing the bytes of buffers that are dead.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileLimits.h"
#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"
#include "gdn/Dialect/Tile/Utils/LayoutUtils.h"
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
  /// The buffer's own bytes (`size` also covers a hosted source's).
  int64_t ownSize = 0;
  int64_t offset = -1;
  /// The tile.producer_task the buffer is allocated in (null: none). Its
  /// live ranges compare with those of the same task's buffers only (the
  /// task's own program order; tile-insert-barriers orders its accesses);
  /// every other buffer may be in use while the task runs.
  Operation *task = nullptr;
  /// Set on a triangular inverse's source laid over its destination (the
  /// pairing before placement): placed at `host`'s offset + `hostDelta`,
  /// not on its own. `paired`: in such a pair, as either side.
  Interval *host = nullptr;
  int64_t hostDelta = 0;
  bool paired = false;
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

/// The byte offset of row `row` of a shared tile of `type` (unswizzled).
int64_t rowOffset(BufferType type, int64_t row) {
  auto [groupRows, groupElems] = type.getGroupSkew();
  SmallVector<int64_t> coord = {row, 0};
  return layout::sharedOffset<int64_t>(coord, type.getShape(),
                                       type.getElementBytes(), 0,
                                       type.getRowPadding(), groupRows,
                                       groupElems);
}

/// Triangular inverses (docs/design.md, "Pass pipeline"): the blocked
/// inverse of an n x n tile, `tile.tril_inverse_diag %L, %T` then the
/// merges of sizes .., n / 2 (tile-expand-tril-inverse), writes T's
/// lower-left quadrant (rows n / 2 .., columns .. n / 2) only in its final
/// merge, after its last read of L's upper half (rows .. n / 2: the
/// diagonal phase and the smaller merges read L's blocks on the diagonal
/// and those of the smaller pairs; the final merge reads L's lower half,
/// L21), and it never reads L's upper-right quadrant (the strictly lower
/// part only). Laid n / 2 rows before L, T's upper half lies on bytes of
/// its own, its lower-left quadrant over L's upper-left one, and its
/// lower-right quadrant over L's upper-right one, which nothing reads:
/// the two take 3n / 2 rows instead of 2n. Legal when: L and T are
/// distinct allocations of one type (square, rows a multiple of 32 long,
/// unswizzled, a group skew whose period divides n / 2) used without
/// views, both in the diagonal phase's block (so no loop runs between
/// them: each iteration of one around them allocates both afresh); the
/// final merge (size n / 2) of the pair exists in that block after the
/// diagonal phase; every use of L comes at the latest in that merge and
/// every use of T at the earliest in the diagonal phase, and the uses of
/// either in between are the pair's smaller merges; and the offset of row
/// n / 2 is a multiple of the alignment. Returns the intervals (T's, L's)
/// and the byte delta.
struct InversePair {
  Interval *dest, *source;
  int64_t delta;
};

std::optional<InversePair>
overlappableInverse(TrilInverseDiagOp diag,
                    DenseMap<Operation *, Interval *> &byAlloc,
                    DenseMap<Operation *, int64_t> &first) {
  Value src = diag.getSource(), dst = diag.getDest();
  auto srcAlloc = src.getDefiningOp<AllocOp>();
  auto dstAlloc = dst.getDefiningOp<AllocOp>();
  if (diag.getPacked() || !srcAlloc || !dstAlloc || srcAlloc == dstAlloc ||
      src.getType() != dst.getType() ||
      srcAlloc->getBlock() != diag->getBlock() ||
      dstAlloc->getBlock() != diag->getBlock())
    return std::nullopt;
  auto type = cast<BufferType>(src.getType());
  if (!type.isShared() || type.getRank() != 2 ||
      type.getShape()[0] != type.getShape()[1] ||
      type.getShape()[0] % 32 != 0 ||
      isa_and_nonnull<SwizzleAttr>(type.getLayout()))
    return std::nullopt;
  int64_t n = type.getShape()[0];
  Interval *l = byAlloc.lookup(srcAlloc), *t = byAlloc.lookup(dstAlloc);
  if (!l || !t || l->task != t->task || l->live.size() != 1 ||
      t->live.size() != 1)
    return std::nullopt;
  // The final merge, in the diagonal phase's block after it.
  TrilInverseMergeOp last;
  for (Operation *user : dst.getUsers())
    if (auto m = dyn_cast<TrilInverseMergeOp>(user);
        m && m.getSource() == src &&
        static_cast<int64_t>(m.getSize()) == n / 2) {
      if (last)
        return std::nullopt;
      last = m;
    }
  if (!last || last->getBlock() != diag->getBlock() ||
      !diag->isBeforeInBlock(last))
    return std::nullopt;
  auto isView = [](Operation *user) {
    return llvm::any_of(user->getResultTypes(),
                        [](Type t) { return isa<BufferType>(t); });
  };
  // Between the two phases only the pair's smaller merges touch either.
  int64_t from = first[diag], to = first[last];
  auto isSmallerMerge = [&](Operation *user) {
    auto m = dyn_cast<TrilInverseMergeOp>(user);
    return m && m.getSource() == src && m.getDest() == dst &&
           static_cast<int64_t>(m.getSize()) < n / 2;
  };
  for (Operation *user : src.getUsers())
    if (isView(user) || first[user] > to ||
        (first[user] > from && first[user] < to && !isSmallerMerge(user)))
      return std::nullopt;
  for (Operation *user : dst.getUsers())
    if (isView(user) || first[user] < from ||
        (first[user] > from && first[user] < to && !isSmallerMerge(user)))
      return std::nullopt;
  // No loop keeps L live past the final merge (the planner's range).
  if (l->live.front().second != to)
    return std::nullopt;
  // T's row r + n / 2 on L's row r needs a group skew that repeats
  // within n / 2 rows.
  auto [groupRows, groupElems] = type.getGroupSkew();
  if (groupRows > 0 && (n / 2) % groupRows != 0)
    return std::nullopt;
  int64_t delta = rowOffset(type, n / 2);
  if (delta % t->align != 0)
    return std::nullopt;
  return InversePair{t, l, delta};
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
    iv.size = iv.ownSize = *size;
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
    // Rings and no_reuse buffers hold their bytes for the whole kernel.
    bool whole = rings.contains(alloc) || alloc.getNoReuse();
    std::optional<SmallVector<std::pair<int64_t, int64_t>, 2>> gens;
    if (outerLoop && oneLoop && !whole)
      gens = loopGenerations(outerLoop, start, beforeLoopEnd, uses,
                             alloc.getResult(), first, last);
    if (gens)
      iv.live = std::move(*gens);
    else
      iv.live.push_back({start, end});
    if (whole)
      iv.live = {{0, last[func]}};
    intervals.push_back(iv);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return signalPassFailure();

  // Triangular inverses whose destination may lie over half of their
  // source: one interval, T's, of both extents and live ranges.
  DenseMap<Operation *, Interval *> byAlloc;
  for (Interval &iv : intervals)
    byAlloc[iv.alloc] = &iv;
  func.walk([&](TrilInverseDiagOp diag) {
    std::optional<InversePair> pair =
        overlappableInverse(diag, byAlloc, first);
    // One pair per buffer: a chain (X inverted into L, L into T) keeps
    // its first pair only.
    if (!pair || pair->source->paired || pair->dest->paired)
      return;
    Interval &t = *pair->dest, &l = *pair->source;
    std::optional<int64_t> extent = checkedAdd(pair->delta, l.size);
    if (!extent)
      return;
    l.host = &t;
    l.hostDelta = pair->delta;
    l.paired = t.paired = true;
    t.size = std::max(t.size, *extent);
    t.live = {{std::min(t.start(), l.start()),
               std::max(t.live.front().second, l.live.front().second)}};
    ++numOverlapped;
  });

  // Largest first, then earliest; first fit among overlapping live ranges.
  SmallVector<Interval *> order;
  for (Interval &iv : intervals)
    if (!iv.host)
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
  int64_t ownSizes = 0;
  bool countable = true;
  for (Interval &iv : intervals) {
    if (iv.host)
      iv.offset = iv.host->offset + iv.hostDelta;
    iv.alloc.setOffsetAttr(
        IntegerAttr::get(IntegerType::get(&getContext(), 64), iv.offset));
    std::optional<int64_t> sum = checkedAdd(ownSizes, iv.ownSize);
    countable &= sum.has_value();
    ownSizes = sum.value_or(0);
  }
  numBuffers += intervals.size();
  if (countable)
    numReused += ownSizes - total;

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
