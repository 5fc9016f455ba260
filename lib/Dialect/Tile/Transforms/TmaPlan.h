//===- TmaPlan.h - TMA box copies of tile.copy ops ---------------*- C++ -*-===//
//
// Which copies between global and shared memory a TMA tensor map can serve,
// the host recipe of that map (a kernel argument with tile.tensor_map), and
// the box coordinates. Shared by tile-pipeline (loads on mbarrier rings)
// and tile-tma-store (stores).
//
//===----------------------------------------------------------------------===//

#ifndef GDN_LIB_DIALECT_TILE_TRANSFORMS_TMAPLAN_H
#define GDN_LIB_DIALECT_TILE_TRANSFORMS_TMAPLAN_H

#include "gdn/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

#include <map>
#include <optional>
#include <string>

namespace mlir::gdn::tile {

/// An integer expression of the launch parameters, as the manifest writes
/// it (`M`, `K*2`, `(B*T)`, `cdiv((B)*(T), 4)`: sums, differences,
/// products, unsigned and ceiling quotients of launch integers and
/// constants, the grammar of GridExpr.h), or nothing when `v` is not one.
std::optional<std::string> hostExpr(Value v, func::FuncOp kernel,
                                    int depth = 0);

/// How one copy between global memory and a shared tile moves with TMA:
/// the kernel's pointer argument, the tensor (all dimensions of the view,
/// before tile.take), the box and the coordinates.
struct TmaPlan {
  BlockArgument base;               ///< the !tile.ptr kernel argument
  SmallVector<std::string> dims;    ///< tensor sizes, outermost first
  SmallVector<std::string> strides; ///< element strides of dims 0..rank-2
  SmallVector<int64_t> box;         ///< box shape, outermost first
  int64_t swizzle = 0;
  /// Coordinate of each tensor dimension: an index into the copy's global
  /// offsets (>= 0) or, for a taken dimension, -1 - its tile.take index.
  SmallVector<int64_t> coordSource;
  SmallVector<Value> takeIndices;
  /// tile.narrow starts added to each tensor dimension's coordinate.
  SmallVector<SmallVector<Value>> coordAdd;
  /// A masked load from a view narrowed along the tile's dimension 0: the
  /// narrowed extent, and that dimension's index among the copy's offsets
  /// (rows past `maskSize - offset` are zeroed after the load). Null when
  /// TMA's own zero fill past the tensor's end is the whole mask.
  Value maskSize;
  int64_t maskOffset = -1;
  /// The block of a block_lower load (boxes of that many rows; the copy's
  /// K widened to whole swizzle spans; tile.tma_load {block_lower}), else 0.
  int64_t blockLower = 0;
  /// The tensor map's L2 promotion in bytes (0: none). 256 by default; none
  /// for a block_lower load, whose boxes read part of each global row: a
  /// promotion would fetch the skipped blocks' sectors from DRAM as well
  /// (docs/perf-notes.md v41: the forward's Ag tile).
  int64_t l2Promotion = 256;
};

/// What kind of TMA copy planTma plans.
enum class TmaUse {
  RingLoad, ///< a load into the stages of a ring (tile-pipeline)
  Store,    ///< a store of a whole shared buffer (tile-tma-store)
};

/// Plans a TMA copy between `global` (a tile.view of a kernel pointer,
/// through tile.take and tile.narrow) at element offsets `offsets` and a
/// shared tile of type `sType` (a load's destination, a store's source),
/// or says why not. `masked`: a masked load. `blockLower` (a ring load of a
/// tile.copy {block_lower = K}, else 0): boxes of K' = lcm(K, span) rows of
/// one swizzle span, for tile.tma_load {block_lower = K'}.
FailureOr<TmaPlan> planTma(Value global, ValueRange offsets, BufferType sType,
                           bool masked, TmaUse use, func::FuncOp kernel,
                           std::string &why, int64_t blockLower = 0);

/// The box coordinates of `plan` (outermost first) for a copy at global
/// element offsets `offsets`: `value` gives each value the plan refers to
/// (offsets, tile.take indices, tile.narrow starts) at the insertion point
/// of `b` (tile-pipeline recomputes them for a later iteration).
SmallVector<Value> tmaCoords(OpBuilder &b, Location loc, const TmaPlan &plan,
                             ValueRange offsets,
                             function_ref<Value(Value)> value);

/// The tensor-map kernel arguments of one kernel, one per distinct
/// (pointer, tensor, box, swizzle); arguments an earlier pass added are
/// found again.
class TensorMaps {
public:
  explicit TensorMaps(func::FuncOp kernel);
  /// The argument serving `plan` for elements of type `elem`, appended to
  /// the kernel on first use.
  Value get(const TmaPlan &plan, Type elem);

private:
  func::FuncOp kernel;
  std::map<std::string, unsigned> byKey;
};

} // namespace mlir::gdn::tile

#endif // GDN_LIB_DIALECT_TILE_TRANSFORMS_TMAPLAN_H
