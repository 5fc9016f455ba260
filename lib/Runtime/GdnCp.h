//===- GdnCp.h - context-parallel segments and shape rule -------*- C++ -*-===//
//
// The context-parallel (CP) path of the GDN prefill (gdn-math.md §3) cuts every
// sequence into segments of m chunks (64 tokens each); the kernels summarize
// the non-final segments, scan the summaries into start states and replay
// every segment from its start state. gdn-run computes the segmentation on
// the host and passes it to the kernels as int tensors (GdnSequence.h):
//
//   cp_bounds    [NS+1]  packed token offsets: segment s covers tokens
//                        [cp_bounds[s], cp_bounds[s+1])
//   cp_seq       [NS]    the sequence n of segment s
//   cp_last      [NS]    1 if s is the last segment of its sequence, else 0
//                        (offered; today's kernels derive it from
//                        cp_seg_start)
//   cp_seg_start [N+1]   the segments of sequence n are
//                        cp_seg_start[n] .. cp_seg_start[n+1]-1
//
// plus the scalar NS. This file holds the pure host functions: the
// segmentation and the cost model (in microseconds, per kernel variant
// meta.block_v) that `--cp auto` uses to choose between the direct and the
// CP path, that picks the variant and that sets the segment size.
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
/// An H200's memory clock (kHz) and bus width (bits), likewise for a
/// device not known (planning only): 4.92 TB/s peak.
constexpr int64_t kGdnDefaultMemoryClockKHz = 3201000;
constexpr int64_t kGdnDefaultMemoryBusBits = 6144;
/// Peak DRAM bandwidth, GB/s, from the driver's memory clock (kHz) and bus
/// width (bits): two transfers a clock (H100 SXM 3.35 TB/s, H200 4.92); 0
/// when either is unknown (0).
double gdnPeakDramGBs(int64_t memoryClockKHz, int64_t memoryBusBits);

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
/// path's view). The caller validates cuSeqlens. The cut is the oracle's
/// (gdn::ref::cpSegments), so the kernels and the CP reference agree.
GdnCpSegments gdnCpSegments(const std::vector<int64_t> &cuSeqlens,
                            int64_t segmentChunks);

/// What the cost model needs of a problem.
struct GdnCpShape {
  int64_t HV = 1;
  std::vector<int64_t> seqChunks; ///< chunks per sequence, ceil(len / 64)
  /// With an initial state the first segment of a sequence needs its M too
  /// (without one, its M blocks exit at once).
  bool hasH0 = false;
  /// The window the guarded warm-up of the summaries is expected to use, in
  /// chunks (0: exact summaries over whole segments with M). The model
  /// assumes the shortcut holds in segments of at least that many chunks,
  /// as on weak-decay heads with normalized keys (kGdnCpWarmupChunks at
  /// --cp-theta 14), and charges shorter segments the exact summaries and
  /// scan steps; where the kernels fall back in longer ones (weaker decay,
  /// unnormalized keys), the summaries cost what they cost without it.
  int64_t warmupChunks = 0;
  /// The refined kernels the path's kernels include (docs/gdn-math.md
  /// §6.8, meta.stage chunk_refine, cp_summary_refine, cp_refine): each
  /// runs after its plain kernel and, on inputs without alike keys (the
  /// model's case), only reads its range's flags and exits.
  bool refineDirect = false;    ///< chunk_refine
  bool refineCpSummary = false; ///< cp_summary_refine
  bool refineCpReplay = false;  ///< cp_refine
};

/// Chunks of the warm-up window on the weak-decay anchor inputs (g ~
/// U(-0.02, 0): -0.64 per chunk, so 22 chunks reach -14).
constexpr int64_t kGdnCpWarmupChunks = 22;
/// The GdnCpShape of packed sequences `cuSeqlens` with HV value heads.
GdnCpShape gdnCpShape(const std::vector<int64_t> &cuSeqlens, int64_t HV,
                      bool hasH0 = false);

/// The most segments a CP launch may have: they are grid z of the summary
/// and the replay (CUDA's limit).
constexpr int64_t kGdnCpMaxSegments = 65535;

/// The forward-type kernels (the direct forward, the CP summary and replay)
/// come in variants by meta.block_v, the value columns one block owns
/// (GdnSequence.h): a block walks its sequence (or segment) for a
/// 128 x block_v slice of the state, so the kernel has tiles = 128 / block_v
/// blocks per sequence and value head. Wider blocks do more per chunk step
/// (a longer critical path) but launch fewer blocks (less total work when
/// the SMs are full). The cost model works in
/// microseconds with these constants per block_v, calibrated on the H200 on
/// 2026-11-29 from per-kernel times (f16, weak decay; docs/perf-notes.md):
struct GdnBlockVCost {
  int64_t blockV = 0;
  /// t_fwd: one block of the forward (or replay) kernel doing one 64-token
  /// chunk step, when the chunk steps of one block are the critical path.
  double forwardUs = 0;
  /// R: forward chunk steps one SM completes per t_fwd when it holds
  /// several blocks (latency hidden by the other blocks).
  double forwardBlocksPerSm = 0;
  /// t_sum: throughput cost of one summary tile-chunk step per SM (one
  /// block_v-column tile of the [B | M] columns, no O).
  double summaryUs = 0;
  /// t_sum_lat: latency of one summary chunk step of one block.
  double summaryLatencyUs = 0;
  /// t_win: t_sum of the guarded warm-up summaries (B tiles only, over
  /// the window, after the window search).
  double summaryWarmupUs = 0;
  /// t_prep: throughput cost of the variant's prep kernel per chunk and
  /// value head per SM (gdn_chunk_prep with P for block_v 16,
  /// gdn_chunk_prep_k, K only, for block_v 128).
  double prepUs = 0;
};

/// The table, ascending block_v.
///   block_v 16 (gdn_chunk_fwd_f16, grid 8,HV,N; gdn_cp_summary/replay):
///     t_fwd 1.43 us: the direct forward at 128K tokens, HV 1 (2.94 ms for
///       2048 dependent chunk steps);
///     R 1.25: the replay at 128K, HV 16 (4096 blocks x 64 chunks in
///       2.28 ms);
///     t_sum 0.68 us: the summaries at 128K, HV 16 (507,904 tile chunk
///       steps in 2.61 ms on 132 SMs);
///     t_sum_lat 1.43 us: as one forward chunk step (same loop, no O).
///   block_v 128 (the value-major gdn_chunk_fwd_vm128_f16, grid 1,HV,N,
///   two warpgroups, P formed in the kernel, and its _vm128 summary and
///   replay; recalibrated from the stage medians of docs/perf-notes.md v31,
///   calls 3-4, 2026-12-03):
///     t_fwd 2.67 us and R 0.93: the direct forward at 8 x 4K, HV 16
///       (175.7-176.3 us for 128 blocks x 64 dependent chunk steps, one
///       block per SM: the model's 66.7 steps: 2.63-2.64), the CP replays
///       in 8 segments at 32K HV16 (180.2-181.2 us, 66.7 steps: 2.70-2.72),
///       128K HV16 (670-709 us, 266.9 steps: 2.51-2.66) and 128K HV32
///       (1.417-1.471 ms, 533.9 steps: 2.65-2.76); v17's replay at 128K
///       HV16 took the same time in 8 and in 16 segments (two blocks per
///       SM), which R reproduces (v28's kernels: 2.88);
///     t_sum 3.0 us: block_v 64's per-column cost (v8: 1.50 us per
///       64-column tile), for the summaries without the warm-up;
///     t_sum_lat 2.1 us: one chunk step of the summary's loop (no O),
///       window search and stores included, from the warm-up summaries
///       below; one block computes B and then M, so a summary without the
///       warm-up walks its segment twice (v25);
///     t_win 2.1 us (= t_sum_lat: one block per segment and head since
///       v25, so the warm-up summaries take one window walk per wave of
///       blocks): 46.2-46.8 us measured at 32K and 128K HV16 since v31's
///       summaries store no M where the scan does not read it (one wave
///       each), the model's 46.2 (v28: 53-55 us, t_win 2.6; v10's
///       kernels: 4.2 us).
///   t_prep (per chunk and value head on 132 SMs): 3.1 us for
///     gdn_chunk_prep (762 us at 128K HV16, before v13.1's cheaper tf32
///     split; not re-measured), 1.27 us for gdn_chunk_prep_k (v38, after
///     tile-proxy-fences and Ag's upper block left unstored: 78.3-79.3 us
///     at 8x4K HV16, 80.0-80.7 at 32K HV16, 297-333 at 128K HV16, 697-731
///     at 128K HV32: 1.20-1.34; v31: 1.26-1.41, v28 1.35-1.40, v17 1.93).
///   block_v 16: t_win 0.9 us, scaled from v8's block_v 64 by t_sum (not
///     measured).
/// (Before v13 the second variant was block_v 64, one warpgroup per block,
/// P read from the prep kernel: t_fwd 2.45, R 1.1, t_sum 1.50, t_sum_lat
/// 2.6, t_win 2.1.)
/// Measured forward times (ms) the model reproduces within 6 % (the tests
/// allow 10 %) (GdnCpTest.CalibrationPoints): block_v 16: 128K HV16 3.04,
/// 128K HV32 4.56, 32K HV16 0.77, 8 x 4K HV16 0.59; block_v 128 (v31): 8 x
/// 4K HV16 0.176 (model 0.178), the CP replay at 128K HV16 0.67-0.76 over
/// four calls (8 segments; model 0.713), the warm-up summaries
/// 0.0462-0.0468 (model 0.0462), the scan after them 0.0103-0.0111 (model
/// 0.0108), the prep 0.312-0.349 (model 0.340).
constexpr GdnBlockVCost kGdnBlockVCosts[] = {
    {16, 1.43, 1.25, 0.68, 1.43, 0.9, 3.1},
    {128, 2.67, 0.93, 3.0, 2.1, 2.1, 1.27},
};

/// The block_v the cost model assumes for a path without variants (no
/// meta.block_v): the kernels before variants walked 16 columns per block.
constexpr int64_t kGdnDefaultBlockV = 16;

/// The constants of `blockV`: its table entry, else the entry with the
/// nearest block_v (the smaller one on ties); blockV <= 0 means
/// kGdnDefaultBlockV.
const GdnBlockVCost &gdnBlockVCost(int64_t blockV);

/// One correction-scan step (h = M h + B for one segment), us: 3.65-3.9 us
/// measured at 16-64 segments with exact summaries (2026-12-01; since v31
/// the scan loads M only for exact summaries, not prefetched: not
/// re-measured).
constexpr double kGdnCpScanUs = 3.8;
/// One scan step after a guarded warm-up summary (M_s = 0, h = B_s: no M
/// loads, no products), us: 10.3-11.1 us for 8 segments at 32K-128K HV16
/// (docs/perf-notes.md v31, 2026-12-03).
constexpr double kGdnCpScanWarmupUs = 1.35;
/// The launches of the two extra kernels of the CP path, us.
constexpr double kGdnCpLaunchUs = 6.0;
/// A refined kernel whose blocks all exit, per wave of blocks (one block
/// of the forward's size per SM): its launch, the block's prologue and one
/// round of flag loads (up to 128 chunks), us: chunk_refine at 8x4K HV16
/// 6.2-6.3 (64 chunks a block, one wave; ncu: 4.7-4.9 in the kernel).
/// Measured on an H100 (docs/perf-notes.md v57), like the next two; the
/// other constants are the H200's.
constexpr double kGdnRefineUs = 6.3;
/// Each further round of 128 chunks' flags, per wave, us: cp_refine at
/// 128K HV16 (8 segments of 256 chunks: two rounds) 9.7-9.9, which also
/// looks its segment up (a single round of 128 took 7.3-7.4 at 8x4K, so
/// 3.5 may overstate a round by ~1 us; longer ranges are extrapolated).
constexpr double kGdnRefineRoundUs = 3.5;
/// The refined CP summary finds its warm-up window before it exits, per
/// wave, us (with the warm-up on): cp_summary_refine 13.6-14.1 there.
/// All three are the value-major (block_v 128) kernels' one-wave
/// numbers; block_v 16 is assumed alike (one block per SM), not measured.
/// They are stand-alone costs: since v59 an exiting refined block waits
/// for nothing (tile.grid_dependency = "deferred") and runs beside the
/// plain kernel where that one leaves SMs idle, so in the sequence the
/// exits cost less there (H100: the totals fell 1.5-2.5 us at 8x4K HV16,
/// 7.5 at 1x32K HV16, 12 at 1x128K HV16); not yet recalibrated.
constexpr double kGdnRefineWindowUs = 4.0;
/// t_fused: one block of the fused prep + forward kernel (the direct
/// path's fused form, block_v 128, meta.form = fused; one block per SM)
/// doing one 64-token chunk step, its task's solve included, us. Its pace
/// is its task's dependency chain (clock-bound, not DRAM-bound), alike on
/// both cards: the stage chunk_fused at 8x4K HV16 took 0.2607-0.2620 ms
/// on an H200 (4.07-4.09 us a step) and 0.2642-0.2666 ms on H100s
/// (4.13-4.17) (docs/perf-notes.md v62-v64); with the two waves of exits
/// after it the model gives 275 us there, measured 270 (H200) and 272-275
/// (H100). (Until v64 3.74, fitted so that the fused form beat the pair's
/// H200-calibrated estimate, which an H100's pair overran: the pair's
/// DRAM floor below now says that instead.)
constexpr double kGdnFusedUs = 4.1;
/// The pair's and the fused form's DRAM floors (gdnDramFloorUs): their
/// bytes over this fraction of the device's peak DRAM bandwidth (memory
/// clock x bus width). The pair (prep + forward) moved its 787 MB at
/// 8x4K HV16 in 0.291 ms on an H100 whose attributes give 3.35 TB/s:
/// 0.81 of it (docs/perf-notes.md v51: both kernels at 80-85 % of DRAM
/// bandwidth there); on an H200 (4.8-4.9 TB/s) the floor is below the
/// model's pair, which then decides.
constexpr double kGdnDramEfficiency = 0.8;
/// CP is used only when it is estimated faster than this fraction of the
/// direct time (margin for the model's error).
constexpr double kGdnCpMargin = 0.9;

/// The cost model's estimate for one block_v, in microseconds.
struct GdnCpEstimate {
  int64_t blockV = kGdnDefaultBlockV; ///< the variant modeled
  double direct = 0; ///< time of the direct path
  double cp = 0;     ///< time of the CP path with segmentChunks
  /// cp's terms (cp adds the launches and refineCp).
  double summary = 0, scan = 0, replay = 0;
  /// The refined kernels' exits (included in direct and cp): refineDirect
  /// on the direct path, refineCp both CP stages.
  double refineDirect = 0, refineCp = 0;
  /// The prep kernel (both paths; not in direct or cp):
  /// t_prep * HV * sum_n nc_n / P.
  double prep = 0;
  /// The direct path's fused form, for block_v >= 128 (0 below): one
  /// kernel for the prep and the chunk loop, then its prep for flagged
  /// sequences and its refined kernel, t_fused * max(max_n nc_n, HV *
  /// sum_n nc_n / P) plus both kernels' exits, each as refineDirect's
  /// (charged always: the form has them).
  double fused = 0;
  int64_t segmentChunks = 0;
  int64_t segments = 0; ///< NS
  bool useCp = false;   ///< cp < kGdnCpMargin * direct
};

/// The cost model, with P = numSMs, nc_n the chunks of sequence n, m =
/// segmentChunks, s_n = max(1, ceil(nc_n / m)) segments of sequence n,
/// tiles = ceil(128 / block_v) and the constants of gdnBlockVCost(blockV).
/// Each kernel takes the larger of its critical path (one block's serial
/// walk) and its work spread over the SMs; kernels add up:
///   direct  = t_fwd * max(max_n nc_n, tiles*HV*sum_n nc_n / (P*R))
///   summary = max(m * t_sum_lat, t_sum * 2*tiles*HV*sum_n (s_n - 1)*m / P)
///             (0 if no s_n > 1); with the warm-up (w = warmupChunks > 0)
///             and m >= w: max(w * t_sum_lat, t_win * tiles*HV*sum_n
///             (s_n - 1) * w / P): only the B tiles, over the window
///             (m < w: the exact form, the window does not fit)
///   scan    = t_scan * max_n s_n (t_scan: kGdnCpScanWarmupUs with the
///             warm-up and m >= w, else kGdnCpScanUs)
///   replay  = t_fwd * max(min(m, max_n nc_n), tiles*HV*sum_n nc_n / (P*R))
///   cp      = summary + scan + replay + t_launch
/// (t_launch = kGdnCpLaunchUs; the prep kernel is common to both paths
/// and left out); with refined kernels (GdnCpShape), each adds, per wave
/// of its blocks (tiles*HV*N blocks direct, tiles*HV*sum_n s_n on CP, one
/// per SM), t_ref + t_round * (r - 1) with r = max(1, ceil(c / 128))
/// rounds of flags for c = max_n nc_n chunks a block (direct) or min(m,
/// max_n nc_n) (CP), and the CP summary's t_window per wave with the
/// warm-up (kGdnRefineUs, kGdnRefineRoundUs, kGdnRefineWindowUs). useCp
/// compares the two paths at the same block_v; gdn-run compares each
/// path's best variant (GdnDriver.h).
GdnCpEstimate gdnCpEstimate(const GdnCpShape &shape, int64_t segmentChunks,
                            int64_t numSMs = kGdnDefaultSmCount,
                            int64_t blockV = kGdnDefaultBlockV);

/// The time, us, to move `bytes` through DRAM at kGdnDramEfficiency of
/// `dramGBs` (the device's peak, GB/s); 0 when dramGBs <= 0 (unknown).
double gdnDramFloorUs(double bytes, double dramGBs);

/// The segment size of the CP path in variant `blockV`: the power of two m
/// in [1, 2^20] whose gdnCpEstimate(...).cp is lowest (the smallest such m
/// on ties); with `split`, only sizes that cut the longest sequence (m <
/// max_n nc_n; 1 when it has one chunk), for `--cp on`, which asks for the
/// CP path itself. It balances the scan, which grows with the number of
/// segments, against the critical path of the summaries and the replay,
/// which grows with m. (FlashQLA's rule, m = 2^round(log2(3 sqrt(HV Nc /
/// P))), assumes a much cheaper scan than ours: at 128K tokens and HV 1 it
/// gives m = 16 and a 0.36 ms scan.)
/// Only sizes giving at most kGdnCpMaxSegments segments are considered
/// (when `split` leaves none, the smallest size within the limit).
int64_t gdnCpSegmentChunks(const GdnCpShape &shape,
                           int64_t numSMs = kGdnDefaultSmCount,
                           bool split = false,
                           int64_t blockV = kGdnDefaultBlockV);

/// gdnCpEstimate(...).useCp: true when the CP path is expected to pay.
bool gdnUseCp(const GdnCpShape &shape, int64_t segmentChunks,
              int64_t numSMs = kGdnDefaultSmCount,
              int64_t blockV = kGdnDefaultBlockV);

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_GDNCP_H
