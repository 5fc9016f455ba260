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

#include "mlir/IR/Builders.h"
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
    if (src.isShared() && dst.isGlobal())
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
    Value map = maps.get(*plan, type.getElementType());
    OpBuilder b(copy);
    SmallVector<Value> coords = tmaCoords(b, loc, *plan, copy.getDestOffsets(),
                                          [](Value v) { return v; });
    auto prod = b.create<ProducerOp>(loc);
    OpBuilder pb = OpBuilder::atBlockEnd(&prod.getBody().front());
    pb.create<TmaStoreOp>(loc, copy.getSource(), map, coords);
    copy.erase();
    ++numStores;

    // The top-level op that holds the store: its other writes of the
    // buffer wait for the store's read (in a loop, the next iteration's),
    // and so does everything after it.
    Operation *top = entry.findAncestorOpInBlock(*prod);
    for (Operation *writer : writersOf(alloc))
      if (top->isAncestor(writer))
        waitBefore.insert(writer);
    waitAfter.insert(top);
  }
  for (Operation *writer : waitBefore) {
    OpBuilder wb(writer);
    createReadWait(wb, writer->getLoc());
  }
  for (Operation *top : waitAfter) {
    OpBuilder after(top->getBlock(), std::next(top->getIterator()));
    createReadWait(after, top->getLoc());
  }
}

} // namespace
} // namespace mlir::gdn::tile
