//===- LayoutUtils.h - layout arithmetic, written once ----------*- C++ -*-===//
//
// The integer arithmetic behind the tile layouts. Each formula exists once,
// as a template over an integer-like type `I` (namespace `layout`):
//
//   * `int64_t`: the passes (which choose layouts) and the unit tests (which
//     check the formulas exhaustively);
//   * an IR value builder (`IdxVal` in lib/Conversion/TileToNVVM): the
//     conversion, which emits the same formulas as i64 arithmetic on the
//     thread id.
//
// So the unit tests instantiate the code the lowering instantiates. Plain
// C++, no MLIR or LLVM dependency: shapes and coordinates are any
// random-access containers (`size()`, `operator[]`, `back()`: std::vector,
// llvm::ArrayRef, llvm::SmallVector).
//
// An integer-like type `I` provides `I + I`, `I + int64_t`, `int64_t + I`,
// `I * int64_t`, `I / int64_t`, `I % int64_t` and `I ^ I` on non-negative
// values (`/` and `%` are unsigned), and a specialization of `LayoutInt<I>`:
//
//   using Pred = ...;                         // a truth value
//   static I constant(const I &like, int64_t v); // v, built where `like` is
//   static Pred lessThan(const I &x, int64_t bound);
//
// The formulas are written one operation per statement where the order of
// evaluation would otherwise be unspecified, so an IR instantiation emits its
// operations in a fixed order.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DIALECT_TILE_UTILS_LAYOUTUTILS_H
#define GDN_DIALECT_TILE_UTILS_LAYOUTUTILS_H

#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace mlir::gdn::tile {

//===----------------------------------------------------------------------===//
// Plain integer functions
//===----------------------------------------------------------------------===//

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
/// box, 16-byte chunk j of row r is stored at chunk
/// j ^ ((r * swizzleBytes / 128) % (swizzleBytes / 16)), the hardware's
/// 32-, 64- and 128-byte swizzles (address bits [4, ..) XOR bits [7, ..)).
/// Requires cols * elemBytes to be a multiple of swizzleBytes.
/// (layout::swizzledOffset<int64_t>.)
int64_t swizzledOffset(int64_t row, int64_t col, int64_t rows, int64_t cols,
                       int64_t elemBytes, int64_t swizzleBytes);

/// Coordinates (row, col) of register `idx` of thread `tid` in an M x N
/// fragment with the mma.sync m16n8 accumulator layout over a wm x wn warp
/// grid. Registers are ordered [mAtom][nAtom][4]. `wgmma` selects the
/// warpgroup order of the warps (see layout::mmaFragmentRuns).
std::pair<int64_t, int64_t> mmaFragmentCoord(int64_t m, int64_t n, int64_t wm,
                                             int64_t wn, int64_t tid,
                                             int64_t idx, bool wgmma = false);

/// Number of registers per thread of an mma fragment.
int64_t mmaFragmentSize(int64_t m, int64_t n, int64_t wm, int64_t wn);

/// Number of vector slots per thread of a blocked layout over numElements
/// elements (some trailing slots of some threads may be empty).
int64_t blockedSlots(int64_t numElements, int64_t vector, int64_t numThreads);

//===----------------------------------------------------------------------===//
// The formulas, over an integer-like type
//===----------------------------------------------------------------------===//

namespace layout {

/// What a formula needs of an integer-like type besides its operators.
template <typename I>
struct LayoutInt;

template <>
struct LayoutInt<int64_t> {
  using Pred = bool;
  static int64_t constant(int64_t, int64_t v) { return v; }
  static bool lessThan(int64_t x, int64_t bound) { return x < bound; }
};

/// A run of `len` consecutive registers of one thread holding elements that
/// are adjacent along the innermost dimension, starting at `coord`. The
/// thread owns the run iff `guard` is absent or true.
template <typename I>
struct Run {
  int64_t reg;
  int64_t len;
  std::vector<I> coord;
  std::optional<typename LayoutInt<I>::Pred> guard;
};

/// The coordinates of row-major position `linear` in `shape`.
template <typename I, typename Shape>
std::vector<I> delinearize(I linear, const Shape &shape) {
  std::vector<I> coord(shape.size());
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    if (d == 0) {
      coord[d] = linear;
    } else {
      coord[d] = linear % shape[d];
      linear = linear / shape[d];
    }
  }
  return coord;
}

/// See tile::swizzledOffset.
template <typename I>
I swizzledOffset(const I &row, const I &col, int64_t rows, int64_t cols,
                 int64_t elemBytes, int64_t swizzleBytes) {
  if (swizzleBytes == 0)
    return (row * cols + col) * elemBytes;
  I byteInRow = col * elemBytes;
  I box = byteInRow / swizzleBytes;
  I inBox = byteInRow % swizzleBytes;
  I chunk = inBox / 16;
  // Rows of swizzleBytes bytes: row r starts at byte r * swizzleBytes of
  // the box, and the XOR takes its bits from 128 bytes up.
  I rowBits = row / (128 / swizzleBytes);
  I phase = rowBits % (swizzleBytes / 16);
  I rowStart = row * swizzleBytes;
  I off = box * (rows * swizzleBytes) + rowStart;
  off = off + (chunk ^ phase) * 16;
  return off + inBox % 16;
}

/// Byte offset of `coord` in a shared buffer of `shape`: the leading
/// dimensions are rows, the innermost one columns (see swizzledOffset).
/// `rowPad` elements of padding follow every row of an unswizzled buffer
/// (#tile.padded: a row stride of `shape.back() + rowPad` elements), and
/// `groupElems` more every `groupRows` rows (#tile.padded's group skew:
/// row r starts at r (cols + rowPad) + groupElems floor(r / groupRows)).
template <typename I, typename Coords, typename Shape>
I sharedOffset(const Coords &coord, const Shape &shape, int64_t elemBytes,
               int64_t swizzleBytes, int64_t rowPad = 0,
               int64_t groupRows = 0, int64_t groupElems = 0) {
  int64_t cols = shape.back();
  int64_t numElements = 1;
  for (size_t d = 0; d < shape.size(); ++d)
    numElements *= shape[d];
  int64_t rows = numElements / cols;
  I row = LayoutInt<I>::constant(coord.back(), 0);
  for (size_t d = 0; d + 1 < shape.size(); ++d)
    row = row * shape[d] + coord[d];
  if (swizzleBytes == 0 && rowPad != 0 && groupRows > 0)
    return (row * (cols + rowPad) + (row / groupRows) * groupElems +
            coord.back()) *
           elemBytes;
  if (swizzleBytes == 0 && rowPad != 0)
    return (row * (cols + rowPad) + coord.back()) * elemBytes;
  return swizzledOffset<I>(row, coord.back(), rows, cols, elemBytes,
                           swizzleBytes);
}

/// The runs of thread `tid` in a blocked distribution of `shape`: vectors of
/// `vector` elements in row-major order, vector `s * numThreads + tid` in
/// slot `s` (registers [s * vector, (s + 1) * vector)). Slots past the last
/// vector are guarded.
template <typename I, typename Shape>
std::vector<Run<I>> blockedRuns(const I &tid, const Shape &shape,
                                int64_t vector, int64_t numThreads) {
  int64_t numel = 1;
  for (size_t d = 0; d < shape.size(); ++d)
    numel *= shape[d];
  int64_t numVectors = numel / vector;
  int64_t slots = blockedSlots(numel, vector, numThreads);
  std::vector<Run<I>> runs;
  for (int64_t s = 0; s < slots; ++s) {
    I c = s * numThreads + tid;
    Run<I> run{s * vector, vector, delinearize<I>(c * vector, shape),
               std::nullopt};
    if ((s + 1) * numThreads > numVectors)
      run.guard = LayoutInt<I>::lessThan(c, numVectors);
    runs.push_back(std::move(run));
  }
  return runs;
}

/// The runs of thread `tid` in an M x N fragment with the mma.sync m16n8
/// accumulator layout over a wm x wn warp grid: per 16x8 atom, lane l holds
/// rows l / 4 and l / 4 + 8, columns 2 (l % 4) + {0, 1}, in registers
/// [atom][4]. Warp w owns the block at row (w / wn) * M / wm, column
/// (w % wn) * N / wn (row-major warp order); with `wgmma` the order is
/// column-major, row block w % wm, column block w / wm, so that with wm = 4k
/// and 16 rows per warp the four warps of warpgroup g hold one m64 block
/// (rows 64 (g % k) ..) of columns (g / k) * N / wn ..: the wgmma m64nN
/// accumulator layout of each warpgroup, warpgroups tiled k along M and wn
/// along N.
template <typename I>
std::vector<Run<I>> mmaFragmentRuns(const I &tid, int64_t m, int64_t n,
                                    int64_t wm, int64_t wn,
                                    bool wgmma = false) {
  int64_t bm = m / wm, bn = n / wn;
  I warp = tid / 32;
  I lane = tid % 32;
  I laneRow = lane / 4;
  I rowBlock = wgmma ? warp % wm : warp / wn;
  I rowBase = rowBlock * bm + laneRow;
  I laneCol = (lane % 4) * 2;
  I colBlock = wgmma ? warp / wm : warp % wn;
  I colBase = colBlock * bn + laneCol;
  std::vector<Run<I>> runs;
  for (int64_t am = 0; am < bm / 16; ++am)
    for (int64_t an = 0; an < bn / 8; ++an)
      for (int64_t h = 0; h < 2; ++h) {
        int64_t reg = (am * (bn / 8) + an) * 4 + 2 * h;
        runs.push_back(Run<I>{
            reg, 2, {rowBase + (am * 16 + 8 * h), colBase + an * 8},
            std::nullopt});
      }
  return runs;
}

} // namespace layout
} // namespace mlir::gdn::tile

#endif // GDN_DIALECT_TILE_UTILS_LAYOUTUTILS_H
