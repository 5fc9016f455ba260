//===- LayoutUtils.cpp - layout arithmetic ---------------------------------===//
//
// The plain integer entry points; the formulas themselves are the templates
// of LayoutUtils.h.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/Utils/LayoutUtils.h"

#include <cstdlib>

namespace mlir::gdn::tile {

std::optional<std::pair<int64_t, int64_t>>
chooseWarpGrid(int64_t m, int64_t n, int64_t numWarps) {
  std::optional<std::pair<int64_t, int64_t>> best;
  int64_t bestCost = 0;
  for (int64_t wm = 1; wm <= numWarps; ++wm) {
    if (numWarps % wm != 0)
      continue;
    int64_t wn = numWarps / wm;
    // B fragments are loaded two n8 atoms at a time (ldmatrix.x4).
    if (m % (16 * wm) != 0 || n % (16 * wn) != 0)
      continue;
    int64_t bm = m / wm, bn = n / wn;
    // Operand bytes per warp and k-step are proportional to bm + bn.
    int64_t cost = bm + bn;
    if (!best || cost < bestCost) {
      best = {wm, wn};
      bestCost = cost;
    }
  }
  return best;
}

int64_t swizzledOffset(int64_t row, int64_t col, int64_t rows, int64_t cols,
                       int64_t elemBytes, int64_t swizzleBytes) {
  return layout::swizzledOffset<int64_t>(row, col, rows, cols, elemBytes,
                                         swizzleBytes);
}

std::pair<int64_t, int64_t> mmaFragmentCoord(int64_t m, int64_t n, int64_t wm,
                                             int64_t wn, int64_t tid,
                                             int64_t idx, bool wgmma) {
  // Runs are two registers each, in register order.
  std::vector<layout::Run<int64_t>> runs =
      layout::mmaFragmentRuns<int64_t>(tid, m, n, wm, wn, wgmma);
  const layout::Run<int64_t> &run = runs[idx / 2];
  return {run.coord[0], run.coord[1] + idx % 2};
}

int64_t mmaFragmentSize(int64_t m, int64_t n, int64_t wm, int64_t wn) {
  return (m / wm) * (n / wn) / 32;
}

int64_t blockedSlots(int64_t numElements, int64_t vector, int64_t numThreads) {
  int64_t vectors = numElements / vector;
  return (vectors + numThreads - 1) / numThreads;
}

} // namespace mlir::gdn::tile
