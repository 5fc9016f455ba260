//===- LayoutUtils.h - layout arithmetic, pure C++ --------------*- C++ -*-===//
//
// The integer arithmetic behind the tile layouts, shared by the passes (which
// choose layouts), the conversion (which emits the same formulas as IR) and
// the unit tests (which check them exhaustively). No MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DIALECT_TILE_UTILS_LAYOUTUTILS_H
#define GDN_DIALECT_TILE_UTILS_LAYOUTUTILS_H

#include <cstdint>
#include <optional>
#include <utility>

namespace mlir::gdn::tile {

/// Chooses the warp grid (wm, wn), wm * wn = numWarps, for an M x N mma
/// accumulator: each warp's block must be a whole number of 16x8 atoms
/// (16x16 where possible, so B fragments load with ldmatrix.x4) and the
/// block should be as square as possible, which minimizes the shared-memory
/// operand bytes loaded per MMA. Returns nothing if no grid fits.
std::optional<std::pair<int64_t, int64_t>>
chooseWarpGrid(int64_t m, int64_t n, int64_t numWarps);

/// Byte offset of element (row, col) in a shared tile of `rows` x `cols`
/// elements of `elemBytes` bytes stored with a `swizzleBytes` swizzle (0 =
/// plain row-major): the tile is cut into boxes `swizzleBytes` wide; in a
/// box, 16-byte chunk j of row r is stored at chunk j ^ (r % (swizzleBytes /
/// 16)). Requires cols * elemBytes to be a multiple of swizzleBytes.
int64_t swizzledOffset(int64_t row, int64_t col, int64_t rows, int64_t cols,
                       int64_t elemBytes, int64_t swizzleBytes);

/// Coordinates (row, col) of register `idx` of thread `tid` in an M x N
/// fragment with the mma.sync m16n8 accumulator layout over a wm x wn warp
/// grid. Registers are ordered [mAtom][nAtom][4].
std::pair<int64_t, int64_t> mmaFragmentCoord(int64_t m, int64_t n, int64_t wm,
                                             int64_t wn, int64_t tid,
                                             int64_t idx);

/// Number of registers per thread of an mma fragment.
int64_t mmaFragmentSize(int64_t m, int64_t n, int64_t wm, int64_t wn);

/// Number of vector slots per thread of a blocked layout over numElements
/// elements (some trailing slots of some threads may be empty).
int64_t blockedSlots(int64_t numElements, int64_t vector, int64_t numThreads);

} // namespace mlir::gdn::tile

#endif // GDN_DIALECT_TILE_UTILS_LAYOUTUTILS_H
