//===- RingUtils.h - TMA/mbarrier ring helpers of the tile passes -*- C++ -*-===//
//
// What tile-plan-shared-memory and tile-insert-barriers both need to know
// about the rings tile-pipeline builds (see Passes.td), and the walk over a
// buffer's uses through its slices that several tile passes make.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_LIB_DIALECT_TILE_TRANSFORMS_RINGUTILS_H
#define GDN_LIB_DIALECT_TILE_TRANSFORMS_RINGUTILS_H

#include "gdn/Dialect/Tile/IR/TileOps.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/STLFunctionalExtras.h"

namespace mlir::gdn::tile {

/// The allocation a buffer value comes from, through tile.slice ops (null
/// for views and block arguments).
inline AllocOp rootAlloc(Value v) {
  while (auto slice = v.getDefiningOp<SliceOp>())
    v = slice.getSource();
  return v.getDefiningOp<AllocOp>();
}

/// Calls `fn(user, v)` for every op that uses the buffer `root` or a
/// tile.slice view of it (`v`: the value it uses), but the slices
/// themselves; stops and returns false as soon as `fn` does.
inline bool forEachBufferUser(Value root,
                              llvm::function_ref<bool(Operation *, Value)> fn) {
  SmallVector<Value> worklist{root};
  while (!worklist.empty()) {
    Value v = worklist.pop_back_val();
    for (Operation *user : v.getUsers()) {
      if (auto slice = dyn_cast<SliceOp>(user))
        worklist.push_back(slice.getResult());
      else if (!fn(user, v))
        return false;
    }
  }
  return true;
}

/// The shared allocations of `kernel`'s TMA rings: the stages TMA loads
/// write and the mbarrier arrays, whose accesses mbarriers order (not block
/// barriers); and (with `handOffs`) the buffers a tile.producer_task shares
/// with the rest of the kernel (allocated outside the task, used in it).
/// The producer warpgroup may touch all of them at any point of the
/// consumers' program, so tile-plan-shared-memory keeps them live for the
/// whole kernel.
inline llvm::DenseSet<Operation *> collectRingAllocs(Operation *kernel,
                                                     bool handOffs = true) {
  llvm::DenseSet<Operation *> rings;
  auto add = [&](Value v) {
    if (AllocOp a = rootAlloc(v))
      rings.insert(a);
  };
  kernel->walk([&](Operation *op) {
    if (auto load = dyn_cast<TmaLoadOp>(op)) {
      add(load.getDest());
      add(load.getBarriers());
    } else if (isa<MBarrierInitOp, MBarrierArriveOp, MBarrierWaitOp>(op)) {
      add(op->getOperand(0));
    }
  });
  if (!handOffs)
    return rings;
  kernel->walk([&](ProducerTaskOp task) {
    task.getBody().walk([&](Operation *op) {
      for (Value v : op->getOperands()) {
        if (!isa<BufferType>(v.getType()))
          continue;
        AllocOp a = rootAlloc(v);
        if (a && cast<BufferType>(a.getType()).isShared() &&
            !task->isAncestor(a))
          rings.insert(a);
      }
    });
  });
  return rings;
}

} // namespace mlir::gdn::tile

#endif // GDN_LIB_DIALECT_TILE_TRANSFORMS_RINGUTILS_H
