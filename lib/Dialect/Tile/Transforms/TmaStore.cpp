//===- TmaStore.cpp - whole shared buffers stored with TMA -----------------===//
//
// Turns a tile.copy of a whole shared buffer to a global view into one
// asynchronous TMA store, with the waits that keep the buffer unchanged
// while the TMA unit reads it. See Passes.td.
//
//===----------------------------------------------------------------------===//

#include "RingUtils.h"
#include "TmaPlan.h"
#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Builders.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "llvm/ADT/SetVector.h"

namespace mlir::gdn::tile {
#define GEN_PASS_DEF_TILETMASTORE
#include "gdn/Dialect/Tile/Transforms/Passes.h.inc"

namespace {

struct TmaStorePass : impl::TileTmaStoreBase<TmaStorePass> {
  using TileTmaStoreBase::TileTmaStoreBase;
  void runOnOperation() override;
};

/// Whether `op` may write the buffer `v` (one of its operands): a write
/// effect on it, or effects that are not known.
bool mayWrite(Operation *op, Value v) {
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return true;
  SmallVector<MemoryEffects::EffectInstance> list;
  effects.getEffectsOnValue(v, list);
  return llvm::any_of(list, [](const MemoryEffects::EffectInstance &e) {
    return isa<MemoryEffects::Write>(e.getEffect());
  });
}

/// The ops that may write `alloc`'s buffer, through tile.slice views.
SmallVector<Operation *> writersOf(AllocOp alloc) {
  SmallVector<Operation *> writers;
  forEachBufferUser(alloc.getResult(), [&](Operation *user, Value v) {
    if (mayWrite(user, v) && !llvm::is_contained(writers, user))
      writers.push_back(user);
    return true;
  });
  return writers;
}

/// Whether `a` and `b` lie in different branches of one scf.if (never both
/// run in one pass).
bool inExclusiveBranches(Operation *a, Operation *b) {
  for (Operation *p = a->getParentOp(); p; p = p->getParentOp()) {
    auto ifOp = dyn_cast<scf::IfOp>(p);
    if (!ifOp || !ifOp->isProperAncestor(b))
      continue;
    Region *ra = ifOp.getThenRegion().isAncestor(a->getParentRegion())
                     ? &ifOp.getThenRegion()
                     : &ifOp.getElseRegion();
    return !ra->isAncestor(b->getParentRegion());
  }
  return false;
}

/// Whether `a` runs before `b` in one pass over `top`'s region (pre-order:
/// an op before the ops nested in it; ops in different branches of an
/// scf.if never both run). Both are nested in `top`, which holds no loop
/// around them.
bool runsBefore(Operation *a, Operation *b, Operation *top) {
  if (inExclusiveBranches(a, b))
    return false;
  bool seenA = false, answer = false;
  top->walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op == a)
      seenA = true;
    if (op == b) {
      answer = seenA && a != b;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return answer;
}

/// Where the storing thread's read wait for `writer` goes. Before the last
/// block barrier (tile.barrier without `id`) that runs before `writer` on every path
/// through one iteration (in `writer`'s block or an enclosing one, neither
/// past the innermost loop around `writer` nor past `top`), when no store
/// of the buffer runs between that barrier and `writer` (the wait must
/// follow the store it waits for): that barrier then also tells the other
/// threads that the buffer may be written again, and tile-insert-barriers
/// needs no barrier of its own in front of `writer`. Otherwise right before
/// `writer`.
Operation *readWaitPoint(Operation *writer, Operation *top,
                         ArrayRef<Operation *> stores) {
  Operation *cur = writer;
  while (cur != top) {
    Block *block = cur->getBlock();
    for (auto it = Block::iterator(cur); it != block->begin();) {
      --it;
      // A named barrier (`id`) syncs only some threads: not one that tells
      // every writer the buffer is free.
      auto blockBarrier = dyn_cast<BarrierOp>(*it);
      if (!blockBarrier || blockBarrier.getId())
        continue;
      Operation *barrier = &*it;
      bool storeBetween = llvm::any_of(stores, [&](Operation *store) {
        Operation *inBlock = block->findAncestorOpInBlock(*store);
        if (!inBlock || inBlock->isBeforeInBlock(barrier))
          return false;
        if (inBlock != cur)
          return inBlock->isBeforeInBlock(cur);
        return runsBefore(store, writer, cur);
      });
      return storeBetween ? writer : barrier;
    }
    Operation *parent = block->getParentOp();
    if (!parent || isa<LoopLikeOpInterface>(parent) || !top->isAncestor(parent))
      break;
    cur = parent;
  }
  return writer;
}

/// `tile.producer { tile.tma_store_wait {read} }` at `b`'s insertion point.
void createReadWait(OpBuilder &b, Location loc) {
  auto prod = b.create<ProducerOp>(loc);
  OpBuilder pb = OpBuilder::atBlockEnd(&prod.getBody().front());
  pb.create<TmaStoreWaitOp>(loc, pb.getI64IntegerAttr(0), pb.getUnitAttr());
}

void TmaStorePass::runOnOperation() {
  func::FuncOp kernel = getOperation();
  auto engine =
      kernel->getAttrOfType<StringAttr>(TileDialect::getCopyEngineAttrName());
  if (!engine || engine.getValue() != "tma" || kernel.isExternal() ||
      !kernel->hasAttr(TileDialect::getKernelAttrName()))
    return;
  SmallVector<CopyOp> copies;
  kernel.walk([&](CopyOp copy) {
    auto src = cast<BufferType>(copy.getSource().getType());
    auto dst = cast<BufferType>(copy.getDest().getType());
    // (A producer task's stores stay per thread.)
    if (src.isShared() && dst.isGlobal() &&
        !copy->getParentOfType<ProducerTaskOp>())
      copies.push_back(copy);
  });
  if (copies.empty())
    return;
  TensorMaps maps(kernel);
  Block &entry = kernel.getBody().front();
  // Where the storing thread waits for its stores' reads: before these
  // writers and after these top-level ops. Sets, because one wait (pending
  // 0) covers every store before it.
  llvm::SetVector<Operation *> waitBefore, waitAfter;
  // Each store: its buffer, its tile.producer and the top-level op holding it.
  struct Store {
    Operation *alloc, *prod, *top;
  };
  SmallVector<Store> stores;
  for (CopyOp copy : copies) {
    Location loc = copy.getLoc();
    auto type = cast<BufferType>(copy.getSource().getType());
    std::string why;
    auto alloc = copy.getSource().getDefiningOp<AllocOp>();
    FailureOr<TmaPlan> plan = failure();
    if (!alloc)
      why = "the source is not a whole shared buffer (a tile.alloc)";
    else if (copy->getParentOfType<ProducerOp>())
      why = "the copy is one thread's already (inside a tile.producer)";
    else
      plan = planTma(copy.getDest(), copy.getDestOffsets(), type,
                     copy.getMasked(), TmaUse::Store, kernel, why);
    if (failed(plan)) {
      copy.emitRemark("stored per thread instead of with TMA: ") << why;
      continue;
    }
    // A TMA store takes no cache hint here (MLIR 19's
    // nvvm.cp.async.bulk.tensor.global.shared.cta has no operand for one).
    if (copy.getL2Hint())
      copy.emitRemark("the TMA store drops the copy's l2_hint");
    Value map = maps.get(*plan, type.getElementType());
    OpBuilder b(copy);
    SmallVector<Value> coords = tmaCoords(b, loc, *plan, copy.getDestOffsets(),
                                          [](Value v) { return v; });
    auto prod = b.create<ProducerOp>(loc);
    OpBuilder pb = OpBuilder::atBlockEnd(&prod.getBody().front());
    pb.create<TmaStoreOp>(loc, copy.getSource(), map, coords);
    copy.erase();
    ++numStores;

    // Everything after the top-level op that holds the store waits for
    // the store's read.
    Operation *top = entry.findAncestorOpInBlock(*prod);
    stores.push_back({alloc.getOperation(), prod.getOperation(), top});
    waitAfter.insert(top);
  }
  // The top-level op that holds a store: its other writes of the buffer
  // wait for the store's read (in a loop, the next iteration's), at the
  // latest right before the write (readWaitPoint).
  for (const Store &store : stores) {
    SmallVector<Operation *> sameBuffer;
    for (const Store &other : stores)
      if (other.alloc == store.alloc)
        sameBuffer.push_back(other.prod);
    for (Operation *writer : writersOf(cast<AllocOp>(store.alloc)))
      if (store.top->isAncestor(writer))
        waitBefore.insert(readWaitPoint(writer, store.top, sameBuffer));
  }
  for (Operation *point : waitBefore) {
    OpBuilder wb(point);
    if (isa<BarrierOp>(point)) {
      // Every thread reaches the barrier: the wait needs no branch to the
      // storing thread (the others have no store groups and go on at once),
      // which would split the block in the middle of the kernel's work.
      wb.create<TmaStoreWaitOp>(point->getLoc(), wb.getI64IntegerAttr(0),
                                wb.getUnitAttr());
      continue;
    }
    createReadWait(wb, point->getLoc());
  }
  for (Operation *top : waitAfter) {
    OpBuilder after(top->getBlock(), std::next(top->getIterator()));
    createReadWait(after, top->getLoc());
  }
}

} // namespace
} // namespace mlir::gdn::tile
