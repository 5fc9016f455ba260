//===- TileOps.h - tile dialect operations ----------------------*- C++ -*-===//

#ifndef GDN_DIALECT_TILE_IR_TILEOPS_H
#define GDN_DIALECT_TILE_IR_TILEOPS_H

#include "gdn/Dialect/Tile/IR/TileDialect.h"
#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "gdn/Dialect/Tile/IR/TileOps.h.inc"

namespace mlir::gdn::tile {
/// Fails (naming `why`) when `op` sits where one thread, or only the
/// producer warpgroup's TMA issue, runs: a tile.producer region, or the
/// producer region of tile.warp_specialize outside a tile.producer_task.
/// For ops that all threads of the block (or task, or consumers) reach.
LogicalResult verifyBlockCollective(Operation *op, StringRef why);

/// Whether the innermost dimension of global buffer `v` is contiguous
/// (stride 1): views are dense and only a tile.take of the innermost
/// dimension makes it strided. Unknown origins count as strided.
bool hasContiguousInnermost(Value v);

/// Named barrier ids of a warp-specialized kernel (0 is the whole block's):
/// the consumer warpgroups' and the producer warpgroup's (its
/// tile.producer_task). tile-warp-specialize and the lowering agree on them.
constexpr int64_t kConsumerBarrierId = 1;
constexpr int64_t kProducerBarrierId = 2;
/// The named barrier of producer warpgroup `group` (its tasks' barriers):
/// 2, 3, ... (a block has 16 named barriers; at most 7 producer
/// warpgroups fit beside one consumer warpgroup in 32 warps).
constexpr int64_t producerBarrierId(int64_t group) {
  return kProducerBarrierId + group;
}
/// The checks of a named barrier's `id` and `threads` (tile.barrier,
/// tile.any): both or neither, whole warps up to 1024 threads, and inside a
/// tile.producer_task its warpgroup's barrier.
LogicalResult verifyNamedBarrier(Operation *op, std::optional<uint64_t> id,
                                 std::optional<uint64_t> threads);
/// At most this many producer warpgroups (tile.producer_task groups).
constexpr int64_t kMaxProducerGroups = 7;
/// The first thread of producer warpgroup `group` (the thread base of its
/// tasks, the issuer of its ring loads): the producer warpgroups follow the
/// `consumerThreads` consumer threads, 128 threads each.
constexpr int64_t producerThreadBase(int64_t consumerThreads,
                                     int64_t group) {
  return consumerThreads + 128 * group;
}

/// The warps that run `op`: the `num_warps` of the nearest enclosing
/// tile.producer_task (`op` itself included), else the `tile.num_warps`
/// of the nearest op carrying it (the kernel); nothing without either.
std::optional<int64_t> getWarpsAt(Operation *op);

/// The mma engine of the gemms at `op`: the nearest enclosing
/// tile.producer_task's `mma_engine`, else the nearest `tile.mma_engine`
/// (the kernel's); "mma.sync" without either.
StringRef getMmaEngineAt(Operation *op);
} // namespace mlir::gdn::tile

#endif // GDN_DIALECT_TILE_IR_TILEOPS_H
