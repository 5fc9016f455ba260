//===- GdnReference.h - fp64 oracle for Gated DeltaNet prefill -*- C++ -*-===//
//
// The float64 reference ("oracle") for the Gated DeltaNet (GDN) prefill
// forward of docs/gdn-math.md: the token-by-token recurrence that *defines* the
// operator (§1.2 there), the chunked form the GPU kernels implement (§2.2,
// with the exact 16x16 block triangular solve of §2.3), and the intra-card
// context-parallel split (§3). Besides the three forwards it provides the
// per-stage intermediates the GPU kernels write (chunk-local cumsum of g,
// the ungated A_r, CP segment summaries and start states), error metrics,
// a reproducible input generator and exact fp16/bf16 rounding helpers.
//
// Plain C++17, no LLVM/MLIR, no exceptions: every entry point that takes
// user-controlled sizes validates them and reports a problem by returning a
// non-empty message (an empty std::string means success).
//
// Tensors are dense, row-major, canonical BTHD, as double:
//   q, k           [B, T, H,  DK]
//   v              [B, T, HV, DV]
//   g, beta        [B, T, HV]          (g is the log-space decay, normally <= 0)
//   o              [B, T, HV, DV]
//   h0, finalState [N, HV, DK, DV]     (state S is [DK, DV], "K-first")
// N = B, or N = cuSeqlens.size() - 1 for packed varlen (which requires B = 1).
// GVA: HV % H == 0 and value head hv reads q/k head hv / (HV / H).
//
//===----------------------------------------------------------------------===//

#ifndef GDN_REFERENCE_GDNREFERENCE_H
#define GDN_REFERENCE_GDNREFERENCE_H

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gdn::ref {

//===----------------------------------------------------------------------===//
// Problem description
//===----------------------------------------------------------------------===//

/// Sizes of one GDN prefill problem. q/k are [B,T,H,DK], v is [B,T,HV,DV],
/// g/beta are [B,T,HV]; every extent must be positive and HV % H == 0.
struct GdnShape {
  int64_t B = 0;  ///< Batch rows (must be 1 with packed varlen).
  int64_t T = 0;  ///< Tokens per batch row (total packed tokens in varlen).
  int64_t H = 0;  ///< q/k heads.
  int64_t HV = 0; ///< Value heads (GVA: a multiple of H).
  int64_t DK = 0; ///< Key/query head dimension (rows of the state).
  int64_t DV = 0; ///< Value head dimension (columns of the state).
};

/// Options shared by all forwards.
struct GdnOptions {
  /// Output scale; a value <= 0 selects the default DK^-1/2.
  double scale = 0;
  /// Packed varlen boundaries. Empty: B independent sequences of length T.
  /// Otherwise B must be 1, cuSeqlens[0] == 0, the entries nondecreasing
  /// (zero-length sequences are allowed) and cuSeqlens.back() == T;
  /// sequence n covers tokens [cuSeqlens[n], cuSeqlens[n+1]).
  std::vector<int64_t> cuSeqlens;
  /// When true, the forwards read the initial state from `h0` (which must
  /// then be non-null); when false `h0` is ignored and the state starts at 0.
  bool hasInitialState = false;
  /// Worker threads; <= 0 means std::thread::hardware_concurrency(). Results
  /// are bit-identical for every thread count (work items never share sums).
  int numThreads = 0;
};

/// Number of sequences N: B when opts.cuSeqlens is empty (not varlen), else
/// cuSeqlens.size() - 1.
int64_t numSequences(const GdnShape &shape, const GdnOptions &opts);

/// Checks the shape and options. Returns "" when they are consistent, else a
/// message naming the first problem found (non-positive extent, HV % H != 0,
/// varlen with B != 1, cuSeqlens not starting at 0, decreasing, not ending at
/// T, or sizes whose element counts overflow int64).
std::string validate(const GdnShape &shape, const GdnOptions &opts);

/// The scale the forwards apply: opts.scale if > 0, else 1/sqrt(DK).
double effectiveScale(const GdnShape &shape, const GdnOptions &opts);

/// Element counts of the tensors: q and k [B*T*H*DK].
int64_t qkElements(const GdnShape &shape);
/// Element count of v and o [B*T*HV*DV].
int64_t vElements(const GdnShape &shape);
/// Element count of g and beta [B*T*HV].
int64_t gElements(const GdnShape &shape);
/// Element count of h0 / finalState [N*HV*DK*DV].
int64_t stateElements(const GdnShape &shape, const GdnOptions &opts);

//===----------------------------------------------------------------------===//
// Forwards
//===----------------------------------------------------------------------===//
//
// Common arguments: q, k, v, g, beta as described in the file header (all
// required); h0 [N,HV,DK,DV], read only if opts.hasInitialState; o
// [B,T,HV,DV] and finalState [N,HV,DK,DV] are outputs, each may be null to
// skip it. Every output element is written (o rows of every token, the final
// state of every (sequence, value head), zero-length sequences included).
// Return "" on success, else a message (nothing is written then).

/// THE DEFINITION (gdn-math.md §1.2), per sequence and value head, S = h0 or 0:
///   S <- exp(g_t) S;  v' = beta_t (v_t - S^T k_t);  S += k_t v'^T;
///   o_t = scale S^T q_t;  finalState = S after the sequence's last token.
/// Work is split over (sequence, value head) pairs with std::thread; one
/// fused pass over the [DK,DV] state per token (vectorizable over DV).
std::string recurrentForward(const GdnShape &shape, const GdnOptions &opts,
                             const double *q, const double *k, const double *v,
                             const double *g, const double *beta,
                             const double *h0, double *o, double *finalState);

/// The chunked form of docs/gdn-math.md §2.2 (the exact-A_r form), in
/// fp64. Chunks of `chunkSize` tokens (a positive multiple of 16, at most
/// 1024) start at every sequence start, the last one of a sequence partial.
/// Per chunk: gamma = local cumsum of g (restarts each chunk), L0 = strictly
/// lower beta_i <k_i,k_j>, A_r = (I + L0)^-1 by forward substitution on the
/// 16x16 diagonal blocks and the block merges of §2.3 (the rows of a partial
/// chunk past its end are masked: k = 0, beta = 0), A_g = Gamma . A_r . 1beta^T,
///   V_new = A_g (V - diag(e^gamma) K S)
///   O     = scale diag(e^gamma) Q S + (scale Gamma . Q K^T) V_new
///   S'    = e^{gamma_L} S + K^T diag(e^{gamma_L - gamma}) V_new
/// Only exponentials of masked differences (all <= 1 when g <= 0) are used.
std::string chunkedForward(const GdnShape &shape, const GdnOptions &opts,
                           const double *q, const double *k, const double *v,
                           const double *g, const double *beta,
                           const double *h0, double *o, double *finalState,
                           int64_t chunkSize = 64);

/// The intra-card context-parallel split of gdn-math.md §3 (exact form): each
/// sequence is cut into segments of `segmentChunks` chunks (see cpSegments);
/// every non-final segment gets its affine summary h -> M_s h + B_s from the
/// state-only form of §2.2 (cpSummaries), the correction scan
/// h_{s+1} = M_s h_s + B_s yields each segment's start state
/// (cpStartStates), and every segment is replayed with the chunked form from
/// its start state; the last segment of a sequence writes the final state.
std::string cpSplitForward(const GdnShape &shape, const GdnOptions &opts,
                           const double *q, const double *k, const double *v,
                           const double *g, const double *beta,
                           const double *h0, double *o, double *finalState,
                           int64_t chunkSize, int64_t segmentChunks);

/// CP segment sizing rule of gdn-math.md §3 step 0 (FlashQLA `_calc_cp_seqs`):
///   m = 2^round(log2(3 * sqrt(H * Nc / P))), at least 4,
/// where Nc = totalChunks (all chunks of all sequences), P = numSMs and H the
/// number of heads processed in parallel (pass B*H, or HV, if that is what
/// fills the grid). The rationale: segment latency a*m + b*(H*Nc/P)/m + c is
/// minimal at m ~ sqrt(H*Nc/P). On 132 SMs: 32K/H16 -> 32, 64K/H16 -> 32,
/// 128K/H16 -> 64, 128K/H32 -> 64. Non-positive arguments give 4.
/// (TileOps additionally forces m >= 256 when H >= 64 and Nc >= 512; that
/// variant is not applied here.)
int64_t cpSegmentChunks(int64_t H, int64_t totalChunks, int64_t numSMs);

//===----------------------------------------------------------------------===//
// Per-stage intermediates (what the individual GPU kernels write)
//===----------------------------------------------------------------------===//

/// Chunk-local inclusive cumsum of g (gdn-math.md §2.4 step 1): gamma[b,t,hv] =
/// sum of g over the tokens of t's chunk up to and including t. Chunks start
/// at every sequence start (restart per chunk and per sequence). gamma is
/// [B,T,HV]; chunkSize as for chunkedForward.
std::string chunkLocalCumsum(const GdnShape &shape, const GdnOptions &opts,
                             const double *g, double *gamma,
                             int64_t chunkSize = 64);

/// The exact ungated inverse A_r = (I + L0)^-1 of each chunk (gdn-math.md §2.2,
/// §2.3), stored per token like the GPU's A [B,T,HV,chunkSize]: entry
/// a[b,t,hv,c] = (A_r)[r][c] where r is t's row within its chunk; it is 1 on
/// the diagonal and 0 for c > r. beta is not folded in.
std::string chunkSolveA(const GdnShape &shape, const GdnOptions &opts,
                        const double *k, const double *beta, double *a,
                        int64_t chunkSize = 64);

/// One CP segment: tokens [begin, end) of batch row `batch`, belonging to
/// sequence `seq`. Segments start at every sequence start and every
/// segmentChunks*chunkSize tokens after it; a zero-length sequence has one
/// empty segment.
struct CpSegment {
  int64_t seq = 0;       ///< Sequence index in [0, N).
  int64_t batch = 0;     ///< Batch row the tokens live in.
  int64_t begin = 0;     ///< First token (index within the batch row).
  int64_t end = 0;       ///< One past the last token.
  bool lastOfSequence = false; ///< True for the segment ending its sequence.
};

/// Lists the CP segments of all sequences, in order of sequence then
/// position (the index into this list is the segment index S used by the
/// cpSummaries / cpStartStates layouts). Returns "" or an error message.
std::string cpSegments(const GdnShape &shape, const GdnOptions &opts,
                       int64_t chunkSize, int64_t segmentChunks,
                       std::vector<CpSegment> &segments);

/// Exact affine summary of every segment (gdn-math.md §3 step 1), computed with
/// the state-only form from S = 0, M = I, per chunk:
///   X = -diag(beta) A_r^T K;  Y = e^{gamma_L} K S - diag(e^{gamma_L-gamma}) V
///   S <- e^{gamma_L} S + X^T Y;  M <- e^{gamma_L} (M + X^T (K M))
/// so the segment maps a start state h to M_s h + B_s. Outputs m
/// [numSegments,HV,DK,DK] and bs [numSegments,HV,DK,DV] (either may be
/// null); unlike the GPU, final segments are summarized too.
std::string cpSummaries(const GdnShape &shape, const GdnOptions &opts,
                        const double *k, const double *v, const double *g,
                        const double *beta, double *m, double *bs,
                        int64_t chunkSize, int64_t segmentChunks);

/// The correction scan (gdn-math.md §3 step 2): per sequence and value head,
/// h_0 = h0 (if opts.hasInitialState) or 0 and h_{s+1} = M_s h_s + B_s over
/// the sequence's segments; writes start [numSegments,HV,DK,DV] = h_s. m and
/// bs are laid out as written by cpSummaries (entries of final segments are
/// not read).
std::string cpStartStates(const GdnShape &shape, const GdnOptions &opts,
                          const double *m, const double *bs, const double *h0,
                          double *start, int64_t chunkSize,
                          int64_t segmentChunks);

//===----------------------------------------------------------------------===//
// Metrics
//===----------------------------------------------------------------------===//

/// Relative L2 error ||x - ref||_2 / ||ref||_2. If ||ref|| == 0 it returns 0
/// when x == ref exactly and +inf otherwise; any NaN gives NaN, so a check
/// `relativeL2(...) <= tol` fails on non-finite data.
double relativeL2(const double *x, const double *ref, size_t n);

/// max_i |x_i - ref_i| (0 for n == 0); NaN if any difference is NaN.
double maxAbsDiff(const double *x, const double *ref, size_t n);

/// True when all n values are finite.
bool allFinite(const double *x, size_t n);

//===----------------------------------------------------------------------===//
// Deterministic inputs
//===----------------------------------------------------------------------===//

/// Fills x[0..n) with values uniform in [lo, hi) from the splitmix64 stream
/// seeded by `seed`: x[i] = lo + (hi - lo) * (z_i >> 11) * 2^-53 with
/// z_i = mix(seed + (i+1) * 0x9E3779B97F4A7C15). Integer arithmetic only, so
/// the values are identical on every IEEE-754 platform. Being counter-based,
/// large arrays are filled by several threads with identical results.
void fillUniform(double *x, size_t n, double lo, double hi, uint64_t seed);

/// Fills x[0..n) with normal(mean, stddev) values from the same splitmix64
/// stream: Box-Muller on draws (z_i, z_{i+1}) gives x_i and x_{i+1} for even
/// i. Uses log/cos/sin, so the last bit may differ between libm versions.
void fillNormal(double *x, size_t n, double mean, double stddev,
                uint64_t seed);

/// Divides each of the `rows` rows of length `dim` by sqrt(sum x^2 + eps)
/// (FLA's in-kernel L2 norm uses eps = 1e-6). All-zero rows (with eps = 0)
/// are left unchanged.
void l2NormalizeRows(double *x, int64_t rows, int64_t dim, double eps = 0);

/// x_i <- 1 / (1 + exp(-x_i)) (e.g. beta = sigmoid(randn)).
void sigmoidInPlace(double *x, size_t n);

/// x_i <- log(sigmoid(x_i)), computed stably (e.g. g = logsigmoid(randn)).
void logSigmoidInPlace(double *x, size_t n);

//===----------------------------------------------------------------------===//
// fp16 / bf16 rounding (IEEE round to nearest, ties to even)
//===----------------------------------------------------------------------===//

/// Rounds a double directly (one rounding) to the nearest IEEE binary16
/// value, returned as double: subnormals down to 2^-24, overflow (>= 65520
/// in magnitude) to +-inf, NaN stays NaN, signed zeros kept.
double roundToF16(double x);

/// Rounds a double directly to the nearest bfloat16 value (8 exponent bits,
/// 7 fraction bits), returned as double; subnormals down to 2^-133.
double roundToBF16(double x);

/// float -> binary16 bits, round to nearest even (NaN stays a quiet NaN with
/// the top payload bits kept).
uint16_t toF16Bits(float x);

/// binary16 bits -> float (exact).
float fromF16Bits(uint16_t bits);

/// float -> bfloat16 bits, round to nearest even (NaN stays a quiet NaN).
uint16_t toBF16Bits(float x);

/// bfloat16 bits -> float (exact).
float fromBF16Bits(uint16_t bits);

/// double -> binary16 bits with a single rounding; consistent with
/// roundToF16: fromF16Bits(f16BitsFromDouble(x)) == roundToF16(x).
uint16_t f16BitsFromDouble(double x);

/// double -> bfloat16 bits with a single rounding; consistent with
/// roundToBF16: fromBF16Bits(bf16BitsFromDouble(x)) == roundToBF16(x).
uint16_t bf16BitsFromDouble(double x);

} // namespace gdn::ref

#endif // GDN_REFERENCE_GDNREFERENCE_H
