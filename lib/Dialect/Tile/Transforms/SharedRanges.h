//===- SharedRanges.h - planned shared byte ranges of buffers -*- C++ -*---===//
//
// The byte range of the dynamic shared region that a shared buffer value
// addresses once tile-plan-shared-memory has given its allocation an
// offset: what tile-insert-barriers compares to find hazards and
// tile-async-gemm to tell a write that may disturb a pending gemm's shared
// operand from one that cannot.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_LIB_DIALECT_TILE_TRANSFORMS_SHAREDRANGES_H
#define GDN_LIB_DIALECT_TILE_TRANSFORMS_SHAREDRANGES_H

#include "gdn/Dialect/Tile/IR/TileLimits.h"
#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "RingUtils.h"

#include "mlir/IR/Matchers.h"

#include <limits>
#include <optional>

namespace mlir::gdn::tile {

/// A byte range [begin, end) of the dynamic shared region.
struct Range {
  int64_t begin, end;
  bool overlaps(const Range &o) const { return begin < o.end && o.begin < end; }
  bool operator==(const Range &o) const {
    return begin == o.begin && end == o.end;
  }
  /// The whole region: what an access whose bytes are not known may touch.
  static Range everything() {
    return {0, std::numeric_limits<int64_t>::max()};
  }
};

/// The bytes the shared buffer `v` addresses: its allocation's planned
/// range, or the one sub-range a chain of slices at constant indices of
/// row-major buffers picks from it (slice i of [n, ...] starts i rows in;
/// any other slice may be any of its source's). The whole region where the
/// allocation is not planned (or not as tile-plan-shared-memory plans);
/// nullopt where `v` is no shared buffer of a tile.alloc (a fragment, a
/// global view, a block argument).
inline std::optional<Range> plannedRange(Value v) {
  AllocOp alloc = rootAlloc(v);
  if (!alloc)
    return std::nullopt;
  auto type = cast<BufferType>(alloc.getType());
  if (!type.isShared())
    return std::nullopt;
  if (!alloc.getOffset()) // unplanned: conflicts with everything
    return Range::everything();
  int64_t begin = static_cast<int64_t>(*alloc.getOffset());
  std::optional<int64_t> size =
      checkedSizeInBytes(type.getStorageShape(), type.getElementBytes());
  std::optional<int64_t> end = size ? checkedAdd(begin, *size) : size;
  if (begin < 0 || !end) // not a plan tile-plan-shared-memory makes
    return Range::everything();
  int64_t sub = 0, subSize = -1;
  Value cur = v;
  while (auto slice = cur.getDefiningOp<SliceOp>()) {
    cur = slice.getSource();
    auto src = cast<BufferType>(slice.getSource().getType());
    auto res = cast<BufferType>(slice.getResult().getType());
    std::optional<int64_t> rowBytes =
        checkedSizeInBytes(res.getShape(), res.getElementBytes());
    IntegerAttr idx;
    if (src.getLayout() || res.getLayout() || !rowBytes ||
        !matchPattern(slice.getIndex(), m_Constant(&idx)))
      return Range{begin, *end};
    if (subSize < 0)
      subSize = *rowBytes;
    sub += idx.getInt() * *rowBytes;
  }
  if (subSize < 0 || sub < 0 || begin + sub + subSize > *end)
    return Range{begin, *end};
  return Range{begin + sub, begin + sub + subSize};
}

} // namespace mlir::gdn::tile

#endif // GDN_LIB_DIALECT_TILE_TRANSFORMS_SHAREDRANGES_H
