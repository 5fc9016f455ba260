//===- GdnCpTest.cpp - CP segmentation, segment size rule, cost model -----===//
//
// The host side of the context-parallel path (GdnCp.h): the segments passed
// to the kernels as cp_bounds / cp_seq / cp_last / cp_seg_start (checked
// against the fp64 oracle's cpSegments too), the segment size rule, and
// the cost model (per meta.block_v variant) behind --cp auto.
//
//===----------------------------------------------------------------------===//

#include "GdnCp.h"
#include "GdnProblem.h"

#include "gdn/Reference/GdnReference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

using namespace gdn::run;

namespace {

using V = std::vector<int64_t>;

/// Checks the invariants every segmentation must satisfy.
void expectConsistent(const V &cu, const GdnCpSegments &s) {
  const int64_t N = static_cast<int64_t>(cu.size()) - 1;
  const int64_t NS = s.numSegments();
  ASSERT_EQ(static_cast<int64_t>(s.bounds.size()), NS + 1);
  ASSERT_EQ(static_cast<int64_t>(s.last.size()), NS);
  ASSERT_EQ(static_cast<int64_t>(s.segStart.size()), N + 1);
  EXPECT_EQ(s.bounds.front(), 0);
  EXPECT_EQ(s.bounds.back(), cu.back());
  EXPECT_EQ(s.segStart.front(), 0);
  EXPECT_EQ(s.segStart.back(), NS);
  for (int64_t n = 0; n < N; ++n) {
    const int64_t first = s.segStart[n], end = s.segStart[n + 1];
    ASSERT_GE(end - first, 1) << "sequence " << n << " has no segment";
    EXPECT_EQ(s.bounds[first], cu[n]);
    EXPECT_EQ(s.bounds[end], cu[n + 1]);
    for (int64_t seg = first; seg < end; ++seg) {
      EXPECT_EQ(s.seq[seg], n);
      EXPECT_EQ(s.last[seg], seg + 1 == end ? 1 : 0);
      EXPECT_LE(s.bounds[seg], s.bounds[seg + 1]);
      if (seg + 1 < end) { // full segments start every m chunks
        EXPECT_EQ(s.bounds[seg + 1] - s.bounds[seg],
                  s.segmentChunks * kGdnChunk);
      }
    }
  }
}

/// The oracle's segments of the same packed problem.
void expectMatchesOracle(const V &cu, int64_t m, const GdnCpSegments &s) {
  gdn::ref::GdnShape shape{1, cu.back(), 1, 1, 128, 128};
  gdn::ref::GdnOptions opts;
  opts.cuSeqlens = cu;
  std::vector<gdn::ref::CpSegment> ref;
  ASSERT_EQ("", gdn::ref::cpSegments(shape, opts, kGdnChunk, m, ref));
  ASSERT_EQ(static_cast<int64_t>(ref.size()), s.numSegments());
  for (size_t i = 0; i < ref.size(); ++i) {
    EXPECT_EQ(ref[i].seq, s.seq[i]) << "segment " << i;
    EXPECT_EQ(ref[i].begin, s.bounds[i]) << "segment " << i;
    EXPECT_EQ(ref[i].end, s.bounds[i + 1]) << "segment " << i;
    EXPECT_EQ(ref[i].lastOfSequence, s.last[i] == 1) << "segment " << i;
  }
}

} // namespace

TEST(GdnCpTest, OneSequence) {
  // 1000 tokens = 16 chunks (the last partial), m = 4: 4 segments.
  GdnCpSegments s = gdnCpSegments({0, 1000}, 4);
  EXPECT_EQ(s.segmentChunks, 4);
  EXPECT_EQ(s.bounds, (V{0, 256, 512, 768, 1000}));
  EXPECT_EQ(s.seq, (V{0, 0, 0, 0}));
  EXPECT_EQ(s.last, (V{0, 0, 0, 1}));
  EXPECT_EQ(s.segStart, (V{0, 4}));
  EXPECT_EQ(s.maxSegmentsPerSequence(), 4);
  // 1025 tokens = 17 chunks: the last segment holds one token.
  s = gdnCpSegments({0, 1025}, 4);
  EXPECT_EQ(s.bounds, (V{0, 256, 512, 768, 1024, 1025}));
  // m = 3 does not divide 16 chunks: 3 + 3 + 3 + 3 + 3 + 1.
  s = gdnCpSegments({0, 1024}, 3);
  EXPECT_EQ(s.bounds, (V{0, 192, 384, 576, 768, 960, 1024}));
  // Exactly two segments.
  s = gdnCpSegments({0, 512}, 4);
  EXPECT_EQ(s.bounds, (V{0, 256, 512}));
  EXPECT_EQ(s.last, (V{0, 1}));
  // m = 1: one segment per chunk.
  s = gdnCpSegments({0, 130}, 1);
  EXPECT_EQ(s.bounds, (V{0, 64, 128, 130}));
}

TEST(GdnCpTest, SegmentLargerThanTheSequence) {
  GdnCpSegments s = gdnCpSegments({0, 100}, 64);
  EXPECT_EQ(s.bounds, (V{0, 100}));
  EXPECT_EQ(s.last, (V{1}));
  EXPECT_EQ(s.segStart, (V{0, 1}));
  // m exactly the sequence's chunk count.
  s = gdnCpSegments({0, 256}, 4);
  EXPECT_EQ(s.bounds, (V{0, 256}));
  // Huge m does not overflow.
  s = gdnCpSegments({0, 1 << 20}, int64_t(1) << 40);
  EXPECT_EQ(s.bounds, (V{0, 1 << 20}));
}

TEST(GdnCpTest, EmptyAndShortSequences) {
  // Sequences of 0, 1, 0, 64, 65 and 1 tokens.
  const V cu = {0, 0, 1, 1, 65, 130, 131};
  GdnCpSegments s = gdnCpSegments(cu, 1);
  EXPECT_EQ(s.bounds, (V{0, 0, 1, 1, 65, 129, 130, 131}));
  EXPECT_EQ(s.seq, (V{0, 1, 2, 3, 4, 4, 5}));
  EXPECT_EQ(s.last, (V{1, 1, 1, 1, 0, 1, 1}));
  EXPECT_EQ(s.segStart, (V{0, 1, 2, 3, 4, 6, 7}));
  expectConsistent(cu, s);
  expectMatchesOracle(cu, 1, s);
  // Only empty sequences.
  s = gdnCpSegments({0, 0, 0}, 4);
  EXPECT_EQ(s.bounds, (V{0, 0, 0}));
  EXPECT_EQ(s.seq, (V{0, 1}));
  EXPECT_EQ(s.segStart, (V{0, 1, 2}));
}

TEST(GdnCpTest, SeveralSequences) {
  // The FlashQLA varlen example: 7, 7, 5, 16, 7, 25 chunks.
  const V cu = {0, 410, 841, 1135, 2126, 2512, 4096};
  for (int64_t m : {1, 2, 3, 4, 7, 8, 16, 25, 26, 1000}) {
    SCOPED_TRACE("m = " + std::to_string(m));
    GdnCpSegments s = gdnCpSegments(cu, m);
    expectConsistent(cu, s);
    expectMatchesOracle(cu, m, s);
  }
  GdnCpSegments s = gdnCpSegments(cu, 8);
  EXPECT_EQ(s.bounds,
            (V{0, 410, 841, 1135, 1647, 2126, 2512, 3024, 3536, 4048, 4096}));
  EXPECT_EQ(s.seq, (V{0, 1, 2, 3, 3, 4, 5, 5, 5, 5}));
  EXPECT_EQ(s.segStart, (V{0, 1, 2, 3, 5, 6, 10}));
  EXPECT_EQ(s.maxSegmentsPerSequence(), 4);
}

TEST(GdnCpTest, WholeSequencesForTheDirectPath) {
  const V cu = {0, 410, 410, 4096};
  for (int64_t m : {0, -1}) {
    GdnCpSegments s = gdnCpSegments(cu, m);
    EXPECT_EQ(s.segmentChunks, 0);
    EXPECT_EQ(s.bounds, cu);
    EXPECT_EQ(s.seq, (V{0, 1, 2}));
    EXPECT_EQ(s.last, (V{1, 1, 1}));
    EXPECT_EQ(s.segStart, (V{0, 1, 2, 3}));
  }
}

TEST(GdnCpTest, EqualLengthBatchIsPacked) {
  GdnProblem p;
  p.B = 3;
  p.T = 300; // 5 chunks each
  p.cpChunks = 2;
  GdnCpSegments s = p.cpSegments();
  EXPECT_EQ(s.bounds, (V{0, 128, 256, 300, 428, 556, 600, 728, 856, 900}));
  EXPECT_EQ(s.seq, (V{0, 0, 0, 1, 1, 1, 2, 2, 2}));
  EXPECT_EQ(s.segStart, (V{0, 3, 6, 9}));
  expectConsistent(p.deviceCuSeqlens(), s);
  EXPECT_EQ(p.scalars().at("NS"), 9);
  p.cpChunks = 0;
  EXPECT_EQ(p.scalars().at("NS"), 3);
}

namespace {

GdnCpShape cpShape(int64_t HV, V chunks) {
  GdnCpShape s;
  s.HV = HV;
  s.seqChunks = std::move(chunks);
  return s;
}

/// The best CP estimate, prep kernel included, of the variants 16 and 128
/// (each at its best segment size).
GdnCpEstimate bestCpEstimate(const GdnCpShape &shape) {
  GdnCpEstimate best;
  for (int64_t blockV : {16, 128}) {
    GdnCpEstimate e = gdnCpEstimate(
        shape, gdnCpSegmentChunks(shape, 132, false, blockV), 132, blockV);
    if (blockV == 16 || e.cp + e.prep < best.cp + best.prep)
      best = e;
  }
  return best;
}

} // namespace

TEST(GdnCpTest, BlockVTable) {
  EXPECT_EQ(gdnBlockVCost(16).blockV, 16);
  EXPECT_DOUBLE_EQ(gdnBlockVCost(16).forwardUs, 1.43);
  EXPECT_DOUBLE_EQ(gdnBlockVCost(16).forwardBlocksPerSm, 1.25);
  EXPECT_DOUBLE_EQ(gdnBlockVCost(16).summaryUs, 0.68);
  EXPECT_DOUBLE_EQ(gdnBlockVCost(16).summaryLatencyUs, 1.43);
  EXPECT_DOUBLE_EQ(gdnBlockVCost(16).prepUs, 3.1);
  EXPECT_EQ(gdnBlockVCost(128).blockV, 128);
  EXPECT_DOUBLE_EQ(gdnBlockVCost(128).forwardUs, 2.67);
  EXPECT_DOUBLE_EQ(gdnBlockVCost(128).forwardBlocksPerSm, 0.93);
  EXPECT_DOUBLE_EQ(gdnBlockVCost(128).summaryUs, 3.0);
  EXPECT_DOUBLE_EQ(gdnBlockVCost(128).summaryLatencyUs, 2.1);
  EXPECT_DOUBLE_EQ(gdnBlockVCost(128).summaryWarmupUs, 2.1);
  EXPECT_DOUBLE_EQ(gdnBlockVCost(128).prepUs, 1.27);
  // Unknown block_v: the nearest entry, the smaller on ties; <= 0: 16.
  EXPECT_EQ(gdnBlockVCost(8).blockV, 16);
  EXPECT_EQ(gdnBlockVCost(32).blockV, 16);
  EXPECT_EQ(gdnBlockVCost(72).blockV, 16);
  EXPECT_EQ(gdnBlockVCost(73).blockV, 128);
  EXPECT_EQ(gdnBlockVCost(256).blockV, 128);
  EXPECT_EQ(gdnBlockVCost(0).blockV, kGdnDefaultBlockV);
  // An unknown block_v keeps its own tile count: 128 / 32 = 4 blocks per
  // head with block_v 16's constants.
  GdnCpEstimate e = gdnCpEstimate(cpShape(16, V(8, 64)), 64, 132, 32);
  EXPECT_EQ(e.blockV, 32);
  EXPECT_DOUBLE_EQ(e.direct,
                   1.43 * std::max(64.0, 4.0 * 16 * 512 / (132 * 1.25)));
}

// The direct path's fused form (block_v 128 only): t_fused per chunk step
// of the longest sequence or of the work spread over the SMs (one block
// per sequence and head), and the exits of the two kernels after it (its
// prep for flagged sequences and its refined kernel).
TEST(GdnCpTest, FusedEstimate) {
  EXPECT_DOUBLE_EQ(kGdnFusedUs, 4.1);
  // The fused kernel's steps, then two kernels' exits (its prep for
  // flagged sequences and its refined kernel), one wave each.
  GdnCpEstimate e = gdnCpEstimate(cpShape(16, V(8, 64)), 1, 132, 128);
  EXPECT_DOUBLE_EQ(e.fused, 4.1 * 64 + 2 * kGdnRefineUs);
  // The calibration point: at 8x4K HV16 the fused form took 0.2696-0.2701
  // ms on an H200 and 0.2724-0.2746 on H100s (docs/perf-notes.md v64).
  EXPECT_NEAR(e.fused, 272, 4);
  // On the H200 the pair (prep + forward + its refined kernel's exits)
  // took 0.246 ms: the model's pair (263 us) is below the fused form's.
  GdnCpShape withRef = cpShape(16, V(8, 64));
  withRef.refineDirect = true;
  GdnCpEstimate r = gdnCpEstimate(withRef, 1, 132, 128);
  EXPECT_LT(r.direct + r.prep, r.fused);
  // 16 x 4K: 256 blocks, two waves of each kernel's exits; 64 chunks each.
  e = gdnCpEstimate(cpShape(16, V(16, 64)), 1, 132, 128);
  EXPECT_DOUBLE_EQ(e.fused, 4.1 * (16.0 * 1024 / 132) + 4 * kGdnRefineUs);
  // One long sequence: its chunks are the critical path (512 chunks: four
  // rounds of flags in each exit).
  e = gdnCpEstimate(cpShape(16, V(1, 512)), 1, 132, 128);
  EXPECT_DOUBLE_EQ(e.fused,
                   4.1 * 512 + 2 * (kGdnRefineUs + 3 * kGdnRefineRoundUs));
  // No fused kernel for the block_v 16 variant.
  EXPECT_EQ(gdnCpEstimate(cpShape(16, V(8, 64)), 1, 132, 16).fused, 0.0);
}

// The DRAM floor: bytes at kGdnDramEfficiency of the peak (GB/s = 1e3
// bytes/us); none where the bandwidth (or the traffic) is unknown.
TEST(GdnCpTest, DramFloor) {
  EXPECT_DOUBLE_EQ(kGdnDramEfficiency, 0.8);
  EXPECT_DOUBLE_EQ(gdnDramFloorUs(3.2e9, 4000), 1000);
  // The pair's 787 MB at 8x4K HV16 on an H100 (3352 GB/s peak): 293 us,
  // measured 0.291 ms.
  EXPECT_NEAR(gdnDramFloorUs(787e6, 3352), 293.5, 0.5);
  EXPECT_EQ(gdnDramFloorUs(787e6, 0), 0.0);
  EXPECT_EQ(gdnDramFloorUs(787e6, -1), 0.0);
  EXPECT_EQ(gdnDramFloorUs(0, 3352), 0.0);
  // The peak from the driver's attributes: an H100 SXM (2619 MHz, 5120
  // bits), the planning default (an H200's), unknown.
  EXPECT_NEAR(gdnPeakDramGBs(2619000, 5120), 3352.3, 0.1);
  EXPECT_NEAR(gdnPeakDramGBs(kGdnDefaultMemoryClockKHz,
                             kGdnDefaultMemoryBusBits),
              4916.7, 0.1);
  EXPECT_EQ(gdnPeakDramGBs(0, 5120), 0.0);
  EXPECT_EQ(gdnPeakDramGBs(2619000, 0), 0.0);
}

TEST(GdnCpTest, SegmentCountWithinTheGridLimit) {
  // 40000 sequences of 2 chunks, one head: one chunk per segment would be
  // 80000 segments, beyond grid z; --cp on still cuts them (m = 1 is the
  // only cutting size, so the smallest size within the limit, 2, is taken).
  GdnCpShape sh = cpShape(1, V(40000, 2));
  EXPECT_EQ(gdnCpEstimate(sh, 1).segments, 80000);
  const int64_t split = gdnCpSegmentChunks(sh, 132, /*split=*/true);
  EXPECT_LE(gdnCpEstimate(sh, split).segments, kGdnCpMaxSegments);
  EXPECT_EQ(split, 2);
  EXPECT_LE(gdnCpEstimate(sh, gdnCpSegmentChunks(sh)).segments,
            kGdnCpMaxSegments);
}

TEST(GdnCpTest, CalibrationPoints) {
  // Measured kernel times on the H200 (f16, ms) that the model reproduces
  // within 10 %: block_v 16's direct forward (2026-11-29) at four shapes;
  // block_v 128 (the two-warpgroup value-major kernels, gdn-run stage
  // medians of docs/perf-notes.md v31 calls 3-4, 2026-12-03): its direct
  // forward at 8x4K HV16 (0.176), its CP replay at 128K HV16 (0.67-0.76 in
  // 8 segments of 256 chunks across four calls; v17's took the same in 16
  // of 128), its warm-up summaries (0.0462-0.0468 at 32K and 128K HV16, one
  // wave of blocks) and its prep kernel at 128K HV16 (v38: 0.297-0.333;
  // block_v 16's 0.762, v13). And
  // whether the CP
  // path (best variant and segment size) ran faster than the best direct
  // variant by more than the model's margin allows to see (whole
  // sequences, block_v 128: 32K HV16 0.48, 128K HV16 1.58, 128K HV32 3.14
  // on CP against direct block_v 16 ~0.95 / ~3.7 / ~6.0; 8x4K HV16 direct
  // 0.385).
  const struct {
    const char *name;
    int64_t HV;
    V chunks;
    double ms16, ms128; // direct forward; 0: not measured
    bool cp;
  } points[] = {{"128K HV16", 16, {2048}, 3.04, 0, true},
                {"128K HV32", 32, {2048}, 4.56, 0, true},
                {"32K HV16", 16, {512}, 0.77, 0, true},
                {"8x4K HV16", 16, V(8, 64), 0.59, 0.176, false}};
  for (const auto &pt : points) {
    SCOPED_TRACE(pt.name);
    // The measured CP runs used the guarded warm-up summaries (the
    // default, theta 14: weak decay takes the shortcut everywhere).
    GdnCpShape sh = cpShape(pt.HV, pt.chunks);
    sh.warmupChunks = kGdnCpWarmupChunks;
    const GdnCpEstimate e16 = gdnCpEstimate(sh, 1, 132, 16);
    const GdnCpEstimate e128 = gdnCpEstimate(sh, 1, 132, 128);
    EXPECT_NEAR(e16.direct * 1e-3, pt.ms16, 0.1 * pt.ms16);
    if (pt.ms128 > 0) {
      EXPECT_NEAR(e128.direct * 1e-3, pt.ms128, 0.1 * pt.ms128);
    }
    // The path choice of GdnPlan: parts with the margin, preps as they are.
    const GdnCpEstimate &d = e16.direct + e16.prep < e128.direct + e128.prep
                                 ? e16
                                 : e128;
    const GdnCpEstimate c = bestCpEstimate(sh);
    EXPECT_EQ(c.cp < kGdnCpMargin * d.direct + (d.prep - c.prep), pt.cp);
  }
  GdnCpShape sh = cpShape(16, {2048});
  sh.warmupChunks = kGdnCpWarmupChunks;
  EXPECT_NEAR(gdnCpEstimate(sh, 256, 132, 128).replay * 1e-3, 0.71, 0.071);
  EXPECT_NEAR(gdnCpEstimate(sh, 128, 132, 128).replay * 1e-3, 0.71, 0.071);
  EXPECT_NEAR(gdnCpEstimate(sh, 256, 132, 128).summary * 1e-3, 0.0465,
              0.00465);
  // The scan after warm-up summaries: 10.3-11.1 us in 8 segments.
  EXPECT_NEAR(gdnCpEstimate(sh, 256, 132, 128).scan * 1e-3, 0.0107, 0.00107);
  EXPECT_NEAR(gdnCpEstimate(sh, 256, 132, 128).prep * 1e-3, 0.315, 0.0315);
  GdnCpShape sh32 = cpShape(16, {512});
  sh32.warmupChunks = kGdnCpWarmupChunks;
  EXPECT_NEAR(gdnCpEstimate(sh32, 64, 132, 128).summary * 1e-3, 0.0465,
              0.00465);
  EXPECT_NEAR(gdnCpEstimate(sh, 256, 132, 16).prep * 1e-3, 0.762, 0.076);
}

TEST(GdnCpTest, RefinedKernels) {
  // The refined kernels' exits (docs/perf-notes.md v57, H100 stage
  // medians): chunk_refine at 8x4K HV16 6.2-6.3 us (one wave of 128
  // blocks, 64 chunks each: one round of flags); at 128K HV16 in 8
  // segments of 256 chunks (one wave, two rounds) cp_refine 9.7-9.9 and
  // cp_summary_refine 13.6-14.1.
  GdnCpShape sh = cpShape(16, V(8, 64));
  const GdnCpEstimate plain = gdnCpEstimate(sh, 64, 132, 128);
  EXPECT_EQ(plain.refineDirect, 0.0);
  EXPECT_EQ(plain.refineCp, 0.0);
  sh.refineDirect = sh.refineCpSummary = sh.refineCpReplay = true;
  const GdnCpEstimate e = gdnCpEstimate(sh, 64, 132, 128);
  EXPECT_NEAR(e.refineDirect, 6.25, 0.1 * 6.25);
  EXPECT_DOUBLE_EQ(e.direct, plain.direct + e.refineDirect);
  EXPECT_DOUBLE_EQ(e.cp, plain.cp + e.refineCp);
  GdnCpShape lg = cpShape(16, {2048});
  lg.warmupChunks = kGdnCpWarmupChunks;
  lg.refineCpReplay = true;
  EXPECT_NEAR(gdnCpEstimate(lg, 256, 132, 128).refineCp, 9.8, 0.98);
  lg.refineCpSummary = true;
  EXPECT_NEAR(gdnCpEstimate(lg, 256, 132, 128).refineCp, 9.8 + 13.85,
              0.1 * (9.8 + 13.85));
  // Without the warm-up (theta 0) the window is not charged.
  GdnCpShape exact = lg;
  exact.warmupChunks = 0;
  EXPECT_DOUBLE_EQ(gdnCpEstimate(exact, 256, 132, 128).refineCp,
                   2 * (kGdnRefineUs + kGdnRefineRoundUs));
  // Twice the blocks (HV 32: 256 blocks on 132 SMs) is two waves.
  GdnCpShape h32 = lg;
  h32.HV = 32;
  EXPECT_DOUBLE_EQ(gdnCpEstimate(h32, 256, 132, 128).refineCp,
                   2 * gdnCpEstimate(lg, 256, 132, 128).refineCp);
  // The direct path's blocks walk whole sequences: 2048 chunks are 16
  // rounds of 128.
  lg.refineDirect = true;
  EXPECT_DOUBLE_EQ(gdnCpEstimate(lg, 256, 132, 128).refineDirect,
                   kGdnRefineUs + 15 * kGdnRefineRoundUs);
  // An empty sequence's block still runs (and exits).
  GdnCpShape empty = cpShape(16, {0});
  empty.refineDirect = true;
  EXPECT_DOUBLE_EQ(gdnCpEstimate(empty, 1, 132, 128).refineDirect,
                   kGdnRefineUs);
}

TEST(GdnCpTest, CostModel) {
  // 128K tokens, HV 1, m = 16, block_v 16: direct walks 2048 chunks; CP =
  // summary (work-bound; 2*8 tiles per chunk of the 127 non-final segments
  // less the 8 M tiles of the first one, which has no h0), 128 scan steps
  // and the replay (work-bound).
  GdnCpEstimate e = gdnCpEstimate(cpShape(1, {2048}), 16);
  EXPECT_EQ(e.blockV, 16);
  EXPECT_DOUBLE_EQ(e.direct, 1.43 * 2048);
  const double fwd = 8.0 * 2048 / (132 * 1.25);
  const double summ = 0.68 * 8 * (2 * 127 * 16 - 16) / 132.0;
  EXPECT_DOUBLE_EQ(e.summary, summ);
  EXPECT_DOUBLE_EQ(e.scan, kGdnCpScanUs * 128);
  EXPECT_DOUBLE_EQ(e.replay, 1.43 * fwd);
  EXPECT_DOUBLE_EQ(e.cp,
                   summ + kGdnCpScanUs * 128 + 1.43 * fwd + kGdnCpLaunchUs);
  EXPECT_EQ(e.segments, 128);
  EXPECT_EQ(e.segmentChunks, 16);
  EXPECT_TRUE(e.useCp);
  EXPECT_TRUE(gdnUseCp(cpShape(1, {2048}), 16));
  // The prep kernel: t_prep per chunk and head over the SMs, in neither
  // path's time.
  EXPECT_DOUBLE_EQ(e.prep, 3.1 * 2048 / 132.0);
  // The same with block_v 128: 1 tile per head, its own constants.
  e = gdnCpEstimate(cpShape(1, {2048}), 16, 132, 128);
  EXPECT_EQ(e.blockV, 128);
  EXPECT_DOUBLE_EQ(e.direct, 2.67 * 2048);
  EXPECT_DOUBLE_EQ(e.summary,
                   std::max(2 * 16 * 2.1, 3.0 * (2 * 127 * 16 - 16) / 132.0));
  EXPECT_DOUBLE_EQ(e.prep, 1.27 * 2048 / 132.0);
  // With an initial state the first segment's M counts too.
  GdnCpShape withH0 = cpShape(1, {2048});
  withH0.hasH0 = true;
  EXPECT_DOUBLE_EQ(gdnCpEstimate(withH0, 16).summary,
                   0.68 * 2 * 8 * 127 * 16 / 132.0);
  EXPECT_DOUBLE_EQ(e.replay,
                   2.67 * std::max(16.0, 1.0 * 2048 / (132 * 0.93)));
  EXPECT_TRUE(e.useCp);

  // 32K tokens, HV 16, block_v 16: the direct walk (512 steps) beats the
  // summaries and the replay at any segment size.
  for (int64_t m : {4, 8, 16, 32, 64, 128, 256}) {
    e = gdnCpEstimate(cpShape(16, {512}), m);
    EXPECT_DOUBLE_EQ(e.direct, 1.43 * 512);
    EXPECT_FALSE(e.useCp) << "m = " << m;
  }

  // Critical-path bound: one segment of 1024 chunks each way, 2 scan steps;
  // the summary's latency term.
  e = gdnCpEstimate(cpShape(1, {2048}), 1024);
  EXPECT_DOUBLE_EQ(e.summary, 1024 * 1.43);
  EXPECT_DOUBLE_EQ(e.cp, 1024 * 1.43 + 2 * kGdnCpScanUs + 1024 * 1.43 +
                             kGdnCpLaunchUs);
  EXPECT_FALSE(e.useCp);

  // Nothing split (m beyond every sequence): no summaries, one scan step.
  e = gdnCpEstimate(cpShape(2, {10, 20}), 64);
  EXPECT_EQ(e.segments, 2);
  EXPECT_DOUBLE_EQ(e.direct, 1.43 * 20);
  EXPECT_DOUBLE_EQ(e.summary, 0);
  EXPECT_DOUBLE_EQ(e.cp, kGdnCpScanUs + 1.43 * 20 + kGdnCpLaunchUs);
  EXPECT_FALSE(e.useCp);

  // One long sequence among short ones, few heads: CP in either variant.
  V mixed(20, 2);
  mixed.push_back(4096);
  for (int64_t bv : {16, 128})
    EXPECT_TRUE(gdnUseCp(cpShape(2, mixed),
                         gdnCpSegmentChunks(cpShape(2, mixed), 132, false, bv),
                         132, bv))
        << "block_v " << bv;

  // Empty problems and sequences do not divide by zero.
  e = gdnCpEstimate(cpShape(4, {0, 0}), 4);
  EXPECT_DOUBLE_EQ(e.direct, 0);
  EXPECT_EQ(e.segments, 2);
  EXPECT_FALSE(e.useCp);
  e = gdnCpEstimate(cpShape(4, {}), 4, 132, 128);
  EXPECT_FALSE(e.useCp);
}

TEST(GdnCpTest, SegmentSizeMinimizesTheModel) {
  for (int64_t bv : {16, 128})
    for (int64_t hv : {1, 2, 4, 16, 32})
      for (int64_t nc : {1, 7, 64, 500, 2048, 100000}) {
        GdnCpShape sh = cpShape(hv, {nc});
        const int64_t m = gdnCpSegmentChunks(sh, 132, false, bv);
        EXPECT_GE(m, 1);
        EXPECT_EQ(m & (m - 1), 0) << "a power of two";
        const double best = gdnCpEstimate(sh, m, 132, bv).cp;
        // --cp on: the best size that still cuts the sequence.
        const int64_t ms = gdnCpSegmentChunks(sh, 132, /*split=*/true, bv);
        EXPECT_TRUE(ms < nc || (nc == 1 && ms == 1)) << ms << " vs " << nc;
        for (int64_t other = 1; other <= (int64_t(1) << 20); other *= 2)
          EXPECT_LE(best, gdnCpEstimate(sh, other, 132, bv).cp)
              << "block_v " << bv << ", HV " << hv << ", " << nc
              << " chunks, m " << m << " vs " << other;
      }
  // 128K tokens, HV 1, exact summaries: longer segments than FlashQLA's 16
  // (a scan step costs about two and a half forward chunk steps).
  EXPECT_EQ(gdnCpSegmentChunks(cpShape(1, {2048})), 64);
  // block_v 128 (the value-major kernel, 1 tile per head: a chunk step
  // costs more than 2 scan steps less, so more segments pay): 32.
  EXPECT_EQ(gdnCpSegmentChunks(cpShape(1, {2048}), 132, false, 128), 32);
  // With the warm-up the summaries walk 22 chunks whatever the segment's
  // length and a scan step only copies B (1.35 us, v31): the shortest
  // power of two that holds the window (32) for block_v 128, 64 for
  // block_v 16 (its replay is work-bound below that).
  GdnCpShape warm = cpShape(1, {2048});
  warm.warmupChunks = kGdnCpWarmupChunks;
  EXPECT_EQ(gdnCpSegmentChunks(warm), 64);
  EXPECT_EQ(gdnCpSegmentChunks(warm, 132, false, 128), 32);
  // A segment shorter than the window gets exact summaries (the window is
  // a suffix of the segment): the model charges B and M over the whole
  // segment and the scan's products.
  const GdnCpEstimate w16 = gdnCpEstimate(warm, 16, 132, 128);
  EXPECT_DOUBLE_EQ(w16.scan, kGdnCpScanUs * 128);
  EXPECT_DOUBLE_EQ(w16.summary,
                   std::max(2 * 16 * 2.1, 3.0 * (2 * 127 * 16 - 16) / 132.0));
  EXPECT_DOUBLE_EQ(gdnCpEstimate(warm, 32, 132, 128).scan,
                   kGdnCpScanWarmupUs * 64);
  // 32K tokens, HV 16: not cutting is best; --cp on cuts anyway.
  EXPECT_EQ(gdnCpSegmentChunks(cpShape(16, {512})), 512);
  EXPECT_LT(gdnCpSegmentChunks(cpShape(16, {512}), 132, true), 512);
  // More SMs: the work terms shrink, so segments get shorter or stay.
  EXPECT_LE(gdnCpSegmentChunks(cpShape(4, {2048}), 528),
            gdnCpSegmentChunks(cpShape(4, {2048}), 132));
}

TEST(GdnCpTest, Shape) {
  // gdnCpShape counts partial chunks.
  GdnCpShape s = gdnCpShape({0, 0, 1, 65, 4096}, 8);
  EXPECT_EQ(s.HV, 8);
  EXPECT_EQ(s.seqChunks, (V{0, 1, 1, 63}));
}
