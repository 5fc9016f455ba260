//===- GdnCp.h - context-parallel segments and shape rule -------*- C++ -*-===//
//
// The context-parallel (CP) path of the GDN prefill (GDN.md §3) cuts every
// sequence into segments of m chunks (64 tokens each); the kernels summarize
// the non-final segments, scan the summaries into start states and replay
// every segment from its start state. gdn-run computes the segmentation on
// the host and passes it to the kernels as int tensors (GdnSequence.h):
//
//   cp_bounds    [NS+1]  packed token offsets: segment s covers tokens
//                        [cp_bounds[s], cp_bounds[s+1])
//   cp_seq       [NS]    the sequence n of segment s
//   cp_last      [NS]    1 if s is the last segment of its sequence, else 0
//   cp_seg_start [N+1]   the segments of sequence n are
//                        cp_seg_start[n] .. cp_seg_start[n+1]-1
//
// plus the scalar NS. This file holds the pure host functions: the
// segmentation and the cost model that `--cp auto` uses to choose between
// the direct and the CP path and that sets the segment size.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_GDNCP_H
#define GDN_TOOLS_GDN_RUN_GDNCP_H

#include <cstdint>
#include <string>
#include <vector>

namespace gdn::run {

/// SMs of an H200: the P of the segment size rule and of the cost model
/// when the device is not known yet (gdn-run's host phase).
constexpr int64_t kGdnDefaultSmCount = 132;

/// The CP segments of a packed problem.
struct GdnCpSegments {
  int64_t segmentChunks = 0;     ///< m (0: one segment per sequence)
  std::vector<int64_t> bounds;   ///< [NS+1] cp_bounds
  std::vector<int64_t> seq;      ///< [NS]   cp_seq
  std::vector<int64_t> last;     ///< [NS]   cp_last (0 or 1)
  std::vector<int64_t> segStart; ///< [N+1]  cp_seg_start

  int64_t numSegments() const { return static_cast<int64_t>(seq.size()); }
  /// Largest number of segments of one sequence.
  int64_t maxSegmentsPerSequence() const;
};

/// Cuts the packed sequences `cuSeqlens` ({0, ..., total}, nondecreasing;
/// for an equal-length batch {0, T, 2T, ...}) into segments of
/// `segmentChunks` chunks of 64 tokens: sequence n = [bos, eos) with
/// nc = ceil((eos - bos) / 64) chunks gets max(1, ceil(nc / m)) segments
/// starting at bos + k*m*64; the last one ends at eos. An empty sequence gets
/// one empty segment [bos, bos). Segments are in sequence order.
/// `segmentChunks` <= 0 means one segment per sequence (NS = N: the direct
/// path's view). The caller validates cuSeqlens.
GdnCpSegments gdnCpSegments(const std::vector<int64_t> &cuSeqlens,
                            int64_t segmentChunks);

/// What the cost model needs of a problem.
struct GdnCpShape {
  int64_t HV = 1;
  std::vector<int64_t> seqChunks; ///< chunks per sequence, ceil(len / 64)
};
/// The GdnCpShape of packed sequences `cuSeqlens` with HV value heads.
GdnCpShape gdnCpShape(const std::vector<int64_t> &cuSeqlens, int64_t HV);

/// Constants of the cost model (gdnCpEstimate), in units of one forward
/// chunk step: one block of the forward kernel processing one 64-token chunk
/// for 16 value columns, 1.43 us on the H200 (gdn_chunk_fwd at 128K tokens,
/// HV 1: 2.94 ms for 2048 dependent steps). Calibrated on the H200 on
/// 2026-11-29 from per-kernel times (docs/perf-notes.md, v7):
/// Forward chunk steps one SM completes per unit when it holds several
/// blocks (replay at 128K, HV 16: 4096 blocks x 64 chunks in 2.28 ms).
constexpr double kGdnCpForwardBlocksPerSm = 1.25;
/// Throughput cost of one summary chunk step (one 16-column tile of the
/// [B | M] columns, no O) per SM (summaries at 128K, HV 16: 507,904 tile
/// steps in 2.61 ms).
constexpr double kGdnCpSummaryCost = 0.47;
/// Cost of one correction-scan step (h = M h + B for one segment; 2.8 us).
constexpr double kGdnCpScanCost = 2.0;
/// The two extra launches of the CP path.
constexpr double kGdnCpLaunchCost = 4.0;
/// CP is used only when it is estimated faster than this fraction of the
/// direct time (margin for the model's error).
constexpr double kGdnCpMargin = 0.8;

/// The cost model's estimate, in units of one forward chunk step.
struct GdnCpEstimate {
  double direct = 0; ///< time of the direct path
  double cp = 0;     ///< time of the CP path with segmentChunks
  int64_t segmentChunks = 0;
  int64_t segments = 0; ///< NS
  bool useCp = false;   ///< cp < kGdnCpMargin * direct
};

/// The cost model of `--cp auto`, with P = numSMs, nc_n the chunks of
/// sequence n, m = segmentChunks and s_n = max(1, ceil(nc_n / m)) segments
/// of sequence n. Each kernel takes the larger of its critical path (one
/// block's serial walk) and its work spread over the SMs; kernels add up:
///   direct  = max(max_n nc_n, 8*HV*sum_n nc_n / (P * Rf))
///   summary = max(m, Csum * 16*HV*sum_n (s_n - 1)*m / P)   (0 if no s_n > 1)
///   scan    = Cscan * max_n s_n
///   replay  = max(min(m, max_n nc_n), 8*HV*sum_n nc_n / (P * Rf))
///   cp      = summary + scan + replay + Claunch
/// (Rf = kGdnCpForwardBlocksPerSm, Csum = kGdnCpSummaryCost, Cscan =
/// kGdnCpScanCost, Claunch = kGdnCpLaunchCost; the prep kernel is common to
/// both paths). CP is chosen iff cp < kGdnCpMargin * direct.
GdnCpEstimate gdnCpEstimate(const GdnCpShape &shape, int64_t segmentChunks,
                            int64_t numSMs = kGdnDefaultSmCount);

/// The segment size of the CP path: the power of two m in [1, 2^20] whose
/// gdnCpEstimate is lowest (the smallest such m on ties); with `split`, only
/// sizes that cut the longest sequence (m < max_n nc_n; 1 when it has one
/// chunk), for `--cp on`, which asks for the CP path itself. It balances
/// the scan, which grows with the number of segments, against the critical
/// path of the summaries and the replay, which grows with m. (FlashQLA's
/// rule, m = 2^round(log2(3 sqrt(HV Nc / P))), assumes a much cheaper scan
/// than ours: at 128K tokens and HV 1 it gives m = 16 and a 0.36 ms scan.)
int64_t gdnCpSegmentChunks(const GdnCpShape &shape,
                           int64_t numSMs = kGdnDefaultSmCount,
                           bool split = false);

/// gdnCpEstimate(...).useCp: true when the CP path is expected to pay.
bool gdnUseCp(const GdnCpShape &shape, int64_t segmentChunks,
              int64_t numSMs = kGdnDefaultSmCount);

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_GDNCP_H
