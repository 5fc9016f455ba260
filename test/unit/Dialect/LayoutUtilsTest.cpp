//===- LayoutUtilsTest.cpp - layout arithmetic unit tests ------------------===//
//
// The layout formulas of LayoutUtils.h instantiated over int64_t: the same
// templates convert-tile-to-nvvm instantiates over IR values, so these tests
// check the arithmetic the kernels run.
//
//===----------------------------------------------------------------------===//

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
  // 3 warps: 48 rows are three 16-row blocks, but 24 columns are not a
  // whole 16-wide block for any split.
  EXPECT_FALSE(chooseWarpGrid(48, 24, 3).has_value());
  EXPECT_EQ(chooseWarpGrid(48, 32, 3), std::make_pair(int64_t(3), int64_t(1)));
}

TEST(WarpGrid, IsTheCheapestValidGrid) {
  for (int64_t warps : {1, 2, 3, 4, 6, 8, 16})
    for (int64_t m = 16; m <= 256; m += 16)
      for (int64_t n = 16; n <= 256; n += 16) {
        auto grid = chooseWarpGrid(m, n, warps);
        int64_t bestCost = -1;
        for (int64_t wm = 1; wm <= warps; ++wm) {
          int64_t wn = warps / wm;
          if (wm * wn != warps || m % (16 * wm) != 0 || n % (16 * wn) != 0)
            continue;
          int64_t cost = m / wm + n / wn;
          if (bestCost < 0 || cost < bestCost)
            bestCost = cost;
        }
        if (bestCost < 0) {
          EXPECT_FALSE(grid.has_value()) << m << "x" << n << " / " << warps;
          continue;
        }
        ASSERT_TRUE(grid.has_value()) << m << "x" << n << " / " << warps;
        auto [wm, wn] = *grid;
        EXPECT_EQ(wm * wn, warps);
        EXPECT_EQ(m % (16 * wm), 0);
        EXPECT_EQ(n % (16 * wn), 0);
        EXPECT_EQ(m / wm + n / wn, bestCost);
      }
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
          if (c % 8 != 0) { // elements of a 16-byte chunk stay adjacent
            ASSERT_EQ(off, swizzledOffset(r, c - 1, rows, cols, 2, swz) + 2);
          }
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

TEST(Swizzle, Matches64And32ByteHardwarePatterns) {
  // The hardware swizzles XOR the 16-byte chunk bits of an address with
  // the bits from 128 bytes up (Swizzle<2,4,3> and <1,4,3> in CUTLASS
  // terms): with boxes of 64-byte rows, row r's chunk j goes to
  // j ^ ((r / 2) % 4); with 32-byte rows to j ^ ((r / 4) % 2). Checked
  // against that address-bit definition for every element.
  for (int64_t swz : {32, 64, 128})
    for (int64_t r = 0; r < 64; ++r)
      for (int64_t c = 0; c < swz / 2; ++c) {
        int64_t linear = r * swz + c * 2; // unswizzled byte in the box
        int64_t mask = ((swz / 16) - 1) << 4;
        int64_t hw = linear ^ ((linear >> 3) & mask);
        ASSERT_EQ(swizzledOffset(r, c, 64, swz / 2, 2, swz), hw)
            << "swizzle " << swz << " row " << r << " col " << c;
      }
  EXPECT_EQ(swizzledOffset(2, 0, 64, 32, 2, 64), 2 * 64 + 16);
  EXPECT_EQ(swizzledOffset(3, 8, 64, 32, 2, 64), 3 * 64 + (1 ^ 1) * 16);
  EXPECT_EQ(swizzledOffset(4, 0, 64, 16, 2, 32), 4 * 32 + 16);
  // A 64-byte-swizzled 64-wide f16 tile is two boxes of 32 columns.
  EXPECT_EQ(swizzledOffset(0, 32, 64, 64, 2, 64), 64 * 64);
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

TEST(Swizzle, SharedOffsetLinearizesLeadingDimensions) {
  // The N-D entry point (what the lowering calls) is the 2-D formula on
  // rows = the leading dimensions, row-major.
  std::vector<int64_t> shape3{2, 32, 64}, shape1{64};
  for (int64_t swz : {0, 128})
    for (int64_t a = 0; a < 2; ++a)
      for (int64_t r = 0; r < 32; ++r)
        for (int64_t c = 0; c < 64; ++c) {
          std::vector<int64_t> coord{a, r, c};
          EXPECT_EQ(layout::sharedOffset<int64_t>(coord, shape3, 2, swz),
                    swizzledOffset(a * 32 + r, c, 64, 64, 2, swz));
        }
  // 1-D buffers (reduction results, gates): plain element offsets.
  for (int64_t c = 0; c < 64; ++c) {
    std::vector<int64_t> coord{c};
    EXPECT_EQ(layout::sharedOffset<int64_t>(coord, shape1, 4, 0), 4 * c);
  }
}

TEST(Padded, RowStrideIncludesThePadding) {
  // #tile.padded<4> on [2, 64, 64] f32: rows of 68 words over both leading
  // indices, and the 8 rows of a quarter warp's 16-byte accesses (or of an
  // mma fragment's row groups) start on 8 distinct 4-bank groups, where
  // unpadded 256-byte rows all start on bank 0.
  std::vector<int64_t> shape{2, 64, 64};
  for (int64_t a = 0; a < 2; ++a)
    for (int64_t r = 0; r < 64; ++r)
      for (int64_t c = 0; c < 64; ++c) {
        std::vector<int64_t> coord{a, r, c};
        EXPECT_EQ(layout::sharedOffset<int64_t>(coord, shape, 4, 0, 4),
                  ((a * 64 + r) * 68 + c) * 4);
      }
  for (int64_t pad : {0, 4}) {
    std::set<int64_t> groups;
    for (int64_t r = 0; r < 8; ++r) {
      std::vector<int64_t> coord{0, r, 0};
      groups.insert(
          (layout::sharedOffset<int64_t>(coord, shape, 4, 0, pad) / 16) % 8);
    }
    EXPECT_EQ(groups.size(), pad ? 8u : 1u);
  }
}

/// The replays of one shared-memory request of a group of lanes that the
/// hardware serves together (32 lanes for 4-byte accesses, 16 for 8-byte,
/// 8 for 16-byte; ldmatrix: the 8 row addresses of one matrix): the most
/// distinct 4-byte words that fall on one of the 32 banks (identical words
/// are one broadcast). 1 = conflict free.
int64_t bankWays(const std::vector<int64_t> &byteAddrs, int64_t bytes) {
  std::vector<std::set<int64_t>> words(32);
  for (int64_t a : byteAddrs)
    for (int64_t w = a / 4; w < (a + bytes) / 4; ++w)
      words[w % 32].insert(w);
  size_t ways = 0;
  for (auto &b : words)
    ways = std::max(ways, b.size());
  return static_cast<int64_t>(ways);
}

/// Byte offset of (r, c) in a [64, 64] f32 shared tile padded by `pad`.
int64_t at(int64_t r, int64_t c, int64_t pad) {
  std::vector<int64_t> shape{64, 64}, coord{r, c};
  return layout::sharedOffset<int64_t>(coord, shape, 4, 0, pad);
}

TEST(Padded, TriangularInverseOperandsAreConflictFree) {
  // The row paddings tile-assign-layouts gives the blocked inverse's
  // buffers (docs/hopper-codegen.md §5.7): L0 4 words, the destination 8.
  // ldmatrix.x4 of an A block (L_iq, T_ii): each matrix is 8 rows x 16 bytes
  // at one column; free at 68-word rows, 2-way at 72.
  for (int64_t pad : {4, 8}) {
    std::vector<int64_t> rows;
    for (int64_t r = 0; r < 8; ++r)
      rows.push_back(at(16 + r, 4, pad));
    EXPECT_EQ(bankWays(rows, 16), pad == 4 ? 1 : 2) << "pad " << pad;
  }
  // A B operand (T_qj, the staged Y): lane (g, t) loads row t + 4e of the
  // k-step at column g of its 8-column strip, all 32 lanes at once: free at
  // 72-word rows, 2-way at 68.
  for (int64_t pad : {4, 8})
    for (int64_t e = 0; e < 4; ++e)
      for (int64_t strip = 0; strip < 64; strip += 8) {
        std::vector<int64_t> lanes;
        for (int64_t lane = 0; lane < 32; ++lane)
          lanes.push_back(at(16 + lane % 4 + 4 * e, strip + lane / 4, pad));
        EXPECT_EQ(bankWays(lanes, 4), pad == 8 ? 1 : 2) << "pad " << pad;
      }
  // An mma accumulator's 8-byte pair stores (the strips, the Gram matrix):
  // lane (g, t) writes (g, 2t), (g, 2t + 1), half a warp at a time: free at
  // 72-word rows, 2-way at 68 (the Gram matrix's stores into L0).
  for (int64_t pad : {4, 8})
    for (int64_t half = 0; half < 2; ++half) {
      std::vector<int64_t> lanes;
      for (int64_t lane = 16 * half; lane < 16 * half + 16; ++lane)
        lanes.push_back(at(lane / 4, 8 + 2 * (lane % 4), pad));
      EXPECT_EQ(bankWays(lanes, 8), pad == 8 ? 1 : 2) << "pad " << pad;
    }
}

/// Byte offset of (r, c) in a [64, 64] f32 shared tile with
/// #tile.padded<8, 4, 4> (rows of 72 words, 4 more after every fourth).
int64_t atSkewed(int64_t r, int64_t c) {
  std::vector<int64_t> shape{64, 64}, coord{r, c};
  return layout::sharedOffset<int64_t>(coord, shape, 4, 0, 8, 4, 4);
}

TEST(Padded, GroupSkewServesLdmatrixBOperandsAndStores) {
  // Row r starts at 72 r + 4 floor(r / 4) words.
  for (int64_t r = 0; r < 64; ++r)
    for (int64_t c = 0; c < 64; c += 7)
      EXPECT_EQ(atSkewed(r, c), (72 * r + 4 * (r / 4) + c) * 4);
  // What no constant padding gives (the test above): ldmatrix rows, the B
  // operand loads and the accumulator's pair stores all conflict free.
  for (int64_t r0 : {0, 16, 32, 40})
    for (int64_t c : {0, 4, 12, 32}) {
      std::vector<int64_t> rows;
      for (int64_t r = 0; r < 8; ++r)
        rows.push_back(atSkewed(r0 + r, c));
      EXPECT_EQ(bankWays(rows, 16), 1) << r0 << "," << c;
    }
  for (int64_t k0 : {0, 8, 16, 48})
    for (int64_t e = 0; e < 2; ++e)
      for (int64_t strip = 0; strip < 64; strip += 8) {
        std::vector<int64_t> lanes;
        for (int64_t lane = 0; lane < 32; ++lane)
          lanes.push_back(atSkewed(k0 + lane % 4 + 4 * e, strip + lane / 4));
        EXPECT_EQ(bankWays(lanes, 4), 1) << k0 << "," << e << "," << strip;
      }
  for (int64_t r0 : {0, 8, 16, 24})
    for (int64_t half = 0; half < 2; ++half) {
      std::vector<int64_t> lanes;
      for (int64_t lane = 16 * half; lane < 16 * half + 16; ++lane)
        lanes.push_back(atSkewed(r0 + lane / 4, 8 + 2 * (lane % 4)));
      EXPECT_EQ(bankWays(lanes, 8), 1) << r0 << "," << half;
    }
  // A step of a multiple of 4 rows is one constant number of bytes
  // wherever it starts (the phases' constant-offset addressing).
  for (int64_t r = 0; r + 16 < 64; ++r)
    EXPECT_EQ(atSkewed(r + 16, 3) - atSkewed(r, 3), (16 * 72 + 16) * 4);
}

TEST(Swizzle, UnswizzledIsRowMajor) {
  for (int64_t r = 0; r < 12; ++r)
    for (int64_t c = 0; c < 12; ++c)
      EXPECT_EQ(swizzledOffset(r, c, 12, 12, 4, 0), (r * 12 + c) * 4);
}

TEST(Swizzle, WgmmaKStepsAreWholeChunks) {
  // The wgmma lowering addresses k16 steps of 16-bit operands at row 0 of a
  // K-major tile (32 bytes into a 128-byte box, a box every fourth step)
  // and at row 16 kk of an MN-major one (16 rows of 128 bytes).
  for (int64_t rows : {64, 128, 256})
    for (int64_t kk = 0; kk < 8; ++kk) {
      EXPECT_EQ(swizzledOffset(0, kk * 16, rows, 128, 2, 128),
                (kk / 4) * rows * 128 + (kk % 4) * 32);
      EXPECT_EQ(swizzledOffset(kk * 16, 0, 128, rows, 2, 128), kk * 16 * 128);
    }
}

TEST(MmaFragment, CoversEveryElementOnce) {
  for (auto [m, n, wm, wn] : std::vector<std::array<int64_t, 4>>{
           {128, 128, 2, 2}, {64, 64, 1, 4}, {64, 128, 4, 1}, {16, 8, 1, 1},
           // wgmma accumulators: [4k, 1] grids, 16 rows per warp.
           {64, 16, 4, 1}, {64, 256, 4, 1}, {128, 64, 8, 1}}) {
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

TEST(MmaFragment, RunsArePairsInRegisterOrder) {
  for (int64_t tid : {0, 5, 37, 127}) {
    auto runs = layout::mmaFragmentRuns<int64_t>(tid, 64, 64, 2, 2);
    ASSERT_EQ(int64_t(runs.size()) * 2, mmaFragmentSize(64, 64, 2, 2));
    for (size_t i = 0; i < runs.size(); ++i) {
      EXPECT_EQ(runs[i].reg, int64_t(2 * i));
      EXPECT_EQ(runs[i].len, 2);
      EXPECT_FALSE(runs[i].guard.has_value());
      ASSERT_EQ(runs[i].coord.size(), 2u);
      EXPECT_EQ(runs[i].coord[1] % 2, 0); // 8-byte aligned f32 pairs
    }
  }
}

TEST(MmaFragment, MatchesTheWgmmaAccumulatorLayout) {
  // PTX ISA, wgmma .m64nNk16 accumulator D: warp w of a warpgroup holds
  // rows 16 w + lane / 4 (+ 8), register i at column 8 (i / 4) +
  // 2 (lane % 4) + i % 2 and row + 8 ((i / 2) % 2); warpgroup g starts at
  // row 64 g. The [4k, 1] mma layout is that layout.
  for (int64_t groups : {1, 2})
    for (int64_t n : {16, 64, 128, 256}) {
      int64_t m = 64 * groups, warps = 4 * groups;
      int64_t regs = mmaFragmentSize(m, n, warps, 1);
      ASSERT_EQ(regs, n / 2);
      for (int64_t tid = 0; tid < 32 * warps; ++tid) {
        int64_t lane = tid % 32, warp = (tid % 128) / 32, group = tid / 128;
        for (int64_t i = 0; i < regs; ++i) {
          int64_t row = 64 * group + 16 * warp + lane / 4 + 8 * ((i / 2) % 2);
          int64_t col = 8 * (i / 4) + 2 * (lane % 4) + i % 2;
          ASSERT_EQ(mmaFragmentCoord(m, n, warps, 1, tid, i),
                    std::make_pair(row, col))
              << "m=" << m << " n=" << n << " tid=" << tid << " i=" << i;
        }
      }
    }
}

TEST(MmaFragment, WarpgroupsSplittingNHoldWgmmaTiles) {
  // wgmma layouts order warps column-major: with warps [4k, n], warpgroup g
  // holds the m64 x (N / n) accumulator at rows 64 (g % k), columns
  // (g / k) N / n, in the wgmma register order of that tile.
  for (auto [m, n, wm, wn] : std::vector<std::array<int64_t, 4>>{
           {64, 64, 4, 2}, {64, 128, 4, 2}, {128, 64, 8, 2}, {64, 64, 4, 4},
           {64, 256, 4, 1}}) {
    int64_t groupsM = wm / 4, nwg = n / wn;
    int64_t regs = mmaFragmentSize(m, n, wm, wn);
    ASSERT_EQ(regs, nwg / 2);
    std::vector<int> hits(m * n, 0);
    for (int64_t tid = 0; tid < 32 * wm * wn; ++tid) {
      int64_t lane = tid % 32, warp = (tid % 128) / 32, group = tid / 128;
      for (int64_t i = 0; i < regs; ++i) {
        int64_t row = 64 * (group % groupsM) + 16 * warp + lane / 4 +
                      8 * ((i / 2) % 2);
        int64_t col =
            (group / groupsM) * nwg + 8 * (i / 4) + 2 * (lane % 4) + i % 2;
        ASSERT_EQ(mmaFragmentCoord(m, n, wm, wn, tid, i, /*wgmma=*/true),
                  std::make_pair(row, col))
            << m << "x" << n << " [" << wm << ", " << wn << "] tid=" << tid
            << " i=" << i;
        ++hits[row * n + col];
      }
    }
    for (int h : hits)
      ASSERT_EQ(h, 1);
  }
  // The mma.sync order of the same grid is row-major: warp 1 of [4, 2]
  // starts at column N / 2 there, at row 16 under wgmma.
  EXPECT_EQ(mmaFragmentCoord(64, 64, 4, 2, 32, 0),
            std::make_pair(int64_t(0), int64_t(32)));
  EXPECT_EQ(mmaFragmentCoord(64, 64, 4, 2, 32, 0, /*wgmma=*/true),
            std::make_pair(int64_t(16), int64_t(0)));
}

TEST(Delinearize, IsRowMajor) {
  std::vector<int64_t> shape{3, 5, 7};
  for (int64_t i = 0; i < 3 * 5 * 7; ++i) {
    std::vector<int64_t> c = layout::delinearize<int64_t>(i, shape);
    ASSERT_EQ(c.size(), 3u);
    EXPECT_EQ((c[0] * 5 + c[1]) * 7 + c[2], i);
    EXPECT_LT(c[1], 5);
    EXPECT_LT(c[2], 7);
  }
}

TEST(Blocked, RunsCoverEveryElementOnceUnderTheirGuards) {
  struct Case {
    std::vector<int64_t> shape;
    int64_t vector, threads;
  };
  for (const Case &k : std::vector<Case>{{{64, 64}, 4, 128},
                                         {{64}, 1, 128},
                                         {{1000}, 1, 128},
                                         {{3, 40, 8}, 8, 96},
                                         {{16, 16}, 1, 96},
                                         {{128, 64}, 8, 256}}) {
    int64_t numel = 1;
    for (int64_t d : k.shape)
      numel *= d;
    int64_t numVectors = numel / k.vector;
    int64_t slots = blockedSlots(numel, k.vector, k.threads);
    std::vector<int> hits(numel, 0);
    for (int64_t tid = 0; tid < k.threads; ++tid) {
      auto runs = layout::blockedRuns<int64_t>(tid, k.shape, k.vector,
                                               k.threads);
      ASSERT_EQ(int64_t(runs.size()), slots);
      for (int64_t s = 0; s < slots; ++s) {
        const layout::Run<int64_t> &run = runs[s];
        EXPECT_EQ(run.reg, s * k.vector);
        EXPECT_EQ(run.len, k.vector);
        int64_t vectorIndex = s * k.threads + tid;
        // Only slots that some thread may not own are guarded, and the
        // guard says exactly whether this thread owns it.
        EXPECT_EQ(run.guard.has_value(), (s + 1) * k.threads > numVectors);
        bool owned = !run.guard || *run.guard;
        EXPECT_EQ(owned, vectorIndex < numVectors);
        if (!owned)
          continue;
        int64_t linear = 0;
        for (size_t d = 0; d < k.shape.size(); ++d) {
          ASSERT_LT(run.coord[d], k.shape[d]);
          linear = linear * k.shape[d] + run.coord[d];
        }
        EXPECT_EQ(linear, vectorIndex * k.vector);
        for (int64_t i = 0; i < run.len; ++i)
          ++hits[linear + i];
      }
    }
    for (int h : hits)
      ASSERT_EQ(h, 1);
  }
}

TEST(Blocked, SlotsRoundUp) {
  EXPECT_EQ(blockedSlots(128 * 64, 8, 128), 8);
  EXPECT_EQ(blockedSlots(64, 4, 128), 1);
  EXPECT_EQ(blockedSlots(1000, 1, 128), 8);
}

} // namespace
