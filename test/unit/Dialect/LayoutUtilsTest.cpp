//===- LayoutUtilsTest.cpp - layout arithmetic unit tests ------------------===//

#include "gdn/Dialect/Tile/Utils/LayoutUtils.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

using namespace mlir::gdn::tile;

namespace {

TEST(WarpGrid, PrefersSquareWarpBlocks) {
  EXPECT_EQ(chooseWarpGrid(128, 128, 4), std::make_pair(int64_t(2), int64_t(2)));
  EXPECT_EQ(chooseWarpGrid(64, 128, 4), std::make_pair(int64_t(1), int64_t(4)));
  EXPECT_EQ(chooseWarpGrid(128, 256, 8), std::make_pair(int64_t(2), int64_t(4)));
  EXPECT_EQ(chooseWarpGrid(16, 16, 1), std::make_pair(int64_t(1), int64_t(1)));
  EXPECT_EQ(chooseWarpGrid(64, 16, 4), std::make_pair(int64_t(4), int64_t(1)));
}

TEST(WarpGrid, RejectsShapesThatDoNotTile) {
  EXPECT_FALSE(chooseWarpGrid(8, 16, 1).has_value());  // M < 16
  EXPECT_FALSE(chooseWarpGrid(16, 8, 1).has_value());  // N < 16 (ldmatrix.x4)
  EXPECT_FALSE(chooseWarpGrid(16, 16, 4).has_value()); // too few tiles
  EXPECT_FALSE(chooseWarpGrid(48, 24, 3).has_value() &&
               chooseWarpGrid(48, 24, 3)->first * 16 > 48);
}

TEST(Swizzle, IsABijectionThatKeeps16ByteChunks) {
  for (int64_t swz : {0, 32, 64, 128}) {
    for (auto [rows, cols] : {std::pair<int64_t, int64_t>{128, 64}, {64, 128}, {16, 64}}) {
      std::set<int64_t> seen;
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) {
          int64_t off = swizzledOffset(r, c, rows, cols, 2, swz);
          ASSERT_GE(off, 0);
          ASSERT_LT(off, rows * cols * 2);
          ASSERT_TRUE(seen.insert(off).second) << "collision at " << r << "," << c;
          if (c % 8 != 0) // elements of a 16-byte chunk stay adjacent
            ASSERT_EQ(off, swizzledOffset(r, c - 1, rows, cols, 2, swz) + 2);
        }
    }
  }
}

TEST(Swizzle, Matches128ByteHardwarePattern) {
  // Row r, chunk j of a 64-wide f16 box lands at chunk j ^ (r % 8).
  EXPECT_EQ(swizzledOffset(0, 0, 64, 64, 2, 128), 0);
  EXPECT_EQ(swizzledOffset(1, 0, 64, 64, 2, 128), 128 + 16);
  EXPECT_EQ(swizzledOffset(3, 16, 64, 64, 2, 128), 3 * 128 + ((2 ^ 3) * 16));
  EXPECT_EQ(swizzledOffset(9, 8, 64, 64, 2, 128), 9 * 128 + ((1 ^ 1) * 16));
  // The second box of a 128-wide tile starts after rows * 128 bytes.
  EXPECT_EQ(swizzledOffset(0, 64, 64, 128, 2, 128), 64 * 128);
}

TEST(Swizzle, LdmatrixRowsAreBankConflictFree) {
  // The 8 row addresses of one 8x8 ldmatrix matrix hit 8 distinct 16-byte
  // bank groups.
  for (int64_t col = 0; col < 64; col += 8) {
    std::set<int64_t> banks;
    for (int64_t r = 0; r < 8; ++r)
      banks.insert((swizzledOffset(r, col, 64, 64, 2, 128) / 16) % 8);
    EXPECT_EQ(banks.size(), 8u);
  }
}

TEST(MmaFragment, CoversEveryElementOnce) {
  for (auto [m, n, wm, wn] : std::vector<std::array<int64_t, 4>>{
           {128, 128, 2, 2}, {64, 64, 1, 4}, {64, 128, 4, 1}, {16, 8, 1, 1}}) {
    int64_t threads = 32 * wm * wn;
    int64_t regs = mmaFragmentSize(m, n, wm, wn);
    ASSERT_EQ(regs * threads, m * n);
    std::vector<int> hits(m * n, 0);
    for (int64_t t = 0; t < threads; ++t)
      for (int64_t i = 0; i < regs; ++i) {
        auto [r, c] = mmaFragmentCoord(m, n, wm, wn, t, i);
        ASSERT_LT(r, m);
        ASSERT_LT(c, n);
        ++hits[r * n + c];
      }
    for (int h : hits)
      ASSERT_EQ(h, 1);
  }
}

TEST(MmaFragment, MatchesTheMmaSyncAccumulatorLayout) {
  // Lane 5 of warp 0 (g = 1, q = 1) holds (1,2) (1,3) (9,2) (9,3) in atom 0.
  EXPECT_EQ(mmaFragmentCoord(16, 8, 1, 1, 5, 0), std::make_pair(int64_t(1), int64_t(2)));
  EXPECT_EQ(mmaFragmentCoord(16, 8, 1, 1, 5, 1), std::make_pair(int64_t(1), int64_t(3)));
  EXPECT_EQ(mmaFragmentCoord(16, 8, 1, 1, 5, 2), std::make_pair(int64_t(9), int64_t(2)));
  EXPECT_EQ(mmaFragmentCoord(16, 8, 1, 1, 5, 3), std::make_pair(int64_t(9), int64_t(3)));
  // Warp 3 of a 2x2 grid over 128x128 starts at (64, 64).
  EXPECT_EQ(mmaFragmentCoord(128, 128, 2, 2, 96, 0), std::make_pair(int64_t(64), int64_t(64)));
}

TEST(Blocked, SlotsRoundUp) {
  EXPECT_EQ(blockedSlots(128 * 64, 8, 128), 8);
  EXPECT_EQ(blockedSlots(64, 4, 128), 1);
  EXPECT_EQ(blockedSlots(1000, 1, 128), 8);
}

} // namespace
