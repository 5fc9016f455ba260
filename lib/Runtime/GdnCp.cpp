//===- GdnCp.cpp - context-parallel segments and shape rule ---------------===//

#include "GdnCp.h"

#include "GdnProblem.h"

#include "gdn/Reference/GdnReference.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstdlib>

namespace gdn::run {

int64_t GdnCpSegments::maxSegmentsPerSequence() const {
  int64_t most = 0;
  for (size_t n = 1; n < segStart.size(); ++n)
    most = std::max(most, segStart[n] - segStart[n - 1]);
  return most;
}

GdnCpSegments gdnCpSegments(const std::vector<int64_t> &cuSeqlens,
                            int64_t segmentChunks) {
  // The oracle's segmentation (gdn::ref::cpSegments, which its CP reference
  // uses) on the packed view: one batch row of cuSeqlens.back() tokens.
  GdnCpSegments out;
  out.segmentChunks = std::max<int64_t>(segmentChunks, 0);
  out.segStart.push_back(0);
  std::vector<gdn::ref::CpSegment> segs;
  if (cuSeqlens.size() >= 2 && cuSeqlens.back() == 0) {
    // No tokens at all (the oracle wants T >= 1): one empty segment each.
    for (size_t n = 0; n + 1 < cuSeqlens.size(); ++n)
      segs.push_back({static_cast<int64_t>(n), 0, 0, 0, true});
  } else if (cuSeqlens.size() >= 2) {
    gdn::ref::GdnShape shape{1, cuSeqlens.back(), 1, 1, kGdnHeadDim,
                             kGdnHeadDim};
    gdn::ref::GdnOptions opts;
    opts.cuSeqlens = cuSeqlens;
    // m <= 0: one segment per sequence (the oracle clamps m to T).
    const int64_t m = segmentChunks > 0 ? segmentChunks
                                        : std::numeric_limits<int64_t>::max();
    if (!gdn::ref::cpSegments(shape, opts, kGdnChunk, m, segs).empty())
      segs.clear(); // invalid cuSeqlens: the caller validates them first
  }
  for (const gdn::ref::CpSegment &seg : segs) {
    out.bounds.push_back(seg.begin);
    out.seq.push_back(seg.seq);
    out.last.push_back(seg.lastOfSequence ? 1 : 0);
    if (seg.lastOfSequence)
      out.segStart.push_back(out.numSegments());
  }
  out.bounds.push_back(cuSeqlens.empty() ? 0 : cuSeqlens.back());
  return out;
}

GdnCpShape gdnCpShape(const std::vector<int64_t> &cuSeqlens, int64_t HV,
                      bool hasH0) {
  GdnCpShape shape;
  shape.HV = HV;
  shape.hasH0 = hasH0;
  for (size_t n = 0; n + 1 < cuSeqlens.size(); ++n)
    shape.seqChunks.push_back(
        (std::max<int64_t>(cuSeqlens[n + 1] - cuSeqlens[n], 0) + kGdnChunk -
         1) /
        kGdnChunk);
  return shape;
}

const GdnBlockVCost &gdnBlockVCost(int64_t blockV) {
  if (blockV <= 0)
    blockV = kGdnDefaultBlockV;
  const GdnBlockVCost *best = &kGdnBlockVCosts[0];
  for (const GdnBlockVCost &c : kGdnBlockVCosts) {
    // Strictly nearer only: the smaller block_v wins ties (ascending table).
    if (std::llabs(c.blockV - blockV) < std::llabs(best->blockV - blockV))
      best = &c;
  }
  return *best;
}

GdnCpEstimate gdnCpEstimate(const GdnCpShape &shape, int64_t segmentChunks,
                            int64_t numSMs, int64_t blockV) {
  GdnCpEstimate e;
  const GdnBlockVCost &c = gdnBlockVCost(blockV);
  e.blockV = blockV > 0 ? blockV : kGdnDefaultBlockV;
  const double tiles = static_cast<double>(
      std::max<int64_t>(1, (kGdnHeadDim + e.blockV - 1) / e.blockV));
  const int64_t m = std::max<int64_t>(segmentChunks, 1);
  const double hv = static_cast<double>(std::max<int64_t>(shape.HV, 1));
  const double sms = static_cast<double>(std::max<int64_t>(numSMs, 1));
  // The warm-up's window is a suffix of the segment: a segment shorter
  // than the window the decay needs gets the exact summary (B and M over
  // the whole segment, M multiplied in the scan). The window varies with
  // each head's decay (warmupChunks is the weak family's): on weaker decay
  // a segment just longer than it (32 chunks) falls back to the exact
  // summaries and scan steps the model did not charge. Counting on the
  // shortcut only for segments twice the window would cost the weak family
  // itself (1x16K HV16: 64-chunk segments, half the SMs idle, ~+50 %).
  const bool warm = shape.warmupChunks > 0 && m >= shape.warmupChunks;
  // summaryTiles: tile-chunk steps of the summaries, 2*tiles per chunk of
  // a non-final segment, less the M tiles of first segments without h0.
  double sumChunks = 0, summaryTiles = 0;
  int64_t maxChunks = 0, maxSegments = 0;
  for (int64_t nc : shape.seqChunks) {
    nc = std::max<int64_t>(nc, 0);
    const int64_t segs = std::max<int64_t>(1, (nc + m - 1) / m);
    sumChunks += static_cast<double>(nc);
    if (segs > 1) {
      if (warm)
        summaryTiles +=
            tiles * static_cast<double>((segs - 1) * shape.warmupChunks);
      else
        summaryTiles += tiles * static_cast<double>(
                                    2 * (segs - 1) * m - (shape.hasH0 ? 0 : m));
    }
    maxChunks = std::max(maxChunks, nc);
    maxSegments = std::max(maxSegments, segs);
    e.segments += segs;
  }
  e.segmentChunks = m;

  // Forward chunk steps per SM when the work, not one block's walk, bounds.
  const double forwardWork =
      tiles * hv * sumChunks / (sms * c.forwardBlocksPerSm);
  e.direct =
      c.forwardUs * std::max(static_cast<double>(maxChunks), forwardWork);
  // One summary block walks its segment's window (warm-up), else the
  // whole segment; the value-major (block_v 128) summary's block then
  // walks it once more for M (B and M in one block, one after the other).
  const int64_t walked =
      warm ? shape.warmupChunks : (e.blockV >= kGdnHeadDim ? 2 * m : m);
  e.summary = maxSegments > 1
                  ? std::max(static_cast<double>(walked) * c.summaryLatencyUs,
                             (warm ? c.summaryWarmupUs : c.summaryUs) *
                                 hv * summaryTiles / sms)
                  : 0.0;
  // After warm-up summaries (M = 0) a scan step only copies B.
  e.scan = (warm ? kGdnCpScanWarmupUs : kGdnCpScanUs) *
           static_cast<double>(maxSegments);
  e.replay = c.forwardUs *
             std::max(static_cast<double>(std::min(m, maxChunks)), forwardWork);
  e.cp = e.summary + e.scan + e.replay + kGdnCpLaunchUs;
  // Refined kernels that exit: waves of blocks, each a launch and the
  // flag rounds of its range.
  auto refineUs = [&](double blocks, int64_t chunks) {
    const double waves = std::ceil(std::max(blocks, 1.0) / sms);
    const int64_t rounds = std::max<int64_t>(1, (chunks + 127) / 128);
    return waves * (kGdnRefineUs +
                    kGdnRefineRoundUs * static_cast<double>(rounds - 1));
  };
  const double sequences =
      static_cast<double>(std::max<size_t>(shape.seqChunks.size(), 1));
  if (shape.refineDirect)
    e.refineDirect = refineUs(tiles * hv * sequences, maxChunks);
  const int64_t segChunks = std::min(m, maxChunks);
  const double segBlocks = tiles * hv * static_cast<double>(e.segments);
  if (shape.refineCpSummary)
    e.refineCp += refineUs(segBlocks, segChunks) +
                  (shape.warmupChunks > 0
                       ? std::ceil(std::max(segBlocks, 1.0) / sms) *
                             kGdnRefineWindowUs
                       : 0.0);
  if (shape.refineCpReplay)
    e.refineCp += refineUs(segBlocks, segChunks);
  e.direct += e.refineDirect;
  e.cp += e.refineCp;
  e.prep = c.prepUs * hv * sumChunks / sms;
  // The fused form's two kernels after the fused one (its prep for
  // flagged sequences and its refined kernel) exit alike where nothing is
  // flagged.
  if (e.blockV >= kGdnHeadDim)
    e.fused = kGdnFusedUs * std::max(static_cast<double>(maxChunks),
                                     hv * sumChunks / sms) +
              2 * refineUs(hv * sequences, maxChunks);
  e.useCp = e.cp < kGdnCpMargin * e.direct;
  return e;
}

double gdnPeakDramGBs(int64_t memoryClockKHz, int64_t memoryBusBits) {
  if (memoryClockKHz <= 0 || memoryBusBits <= 0)
    return 0;
  return 2.0 * static_cast<double>(memoryClockKHz) * 1e3 *
         (static_cast<double>(memoryBusBits) / 8) / 1e9;
}

double gdnDramFloorUs(double bytes, double dramGBs) {
  if (!(dramGBs > 0) || !(bytes > 0))
    return 0;
  // GB/s = 1e3 bytes/us.
  return bytes / (kGdnDramEfficiency * dramGBs * 1e3);
}

int64_t gdnCpSegmentChunks(const GdnCpShape &shape, int64_t numSMs, bool split,
                           int64_t blockV) {
  int64_t maxChunks = 0;
  for (int64_t nc : shape.seqChunks)
    maxChunks = std::max(maxChunks, nc);
  int64_t best = 0, smallestFitting = 0;
  double bestCost = 0;
  for (int64_t m = 1; m <= (int64_t(1) << 20); m *= 2) {
    GdnCpEstimate e = gdnCpEstimate(shape, m, numSMs, blockV);
    if (e.segments > kGdnCpMaxSegments)
      continue;
    if (!smallestFitting)
      smallestFitting = m;
    if (split && m >= maxChunks && !(m == 1 && maxChunks <= 1))
      break;
    if (!best || e.cp < bestCost) {
      best = m;
      bestCost = e.cp;
    }
  }
  return best ? best : std::max<int64_t>(smallestFitting, 1);
}

bool gdnUseCp(const GdnCpShape &shape, int64_t segmentChunks, int64_t numSMs,
              int64_t blockV) {
  return gdnCpEstimate(shape, segmentChunks, numSMs, blockV).useCp;
}

} // namespace gdn::run
