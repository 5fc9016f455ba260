//===- GdnProblem.h - one Gated DeltaNet prefill problem --------*- C++ -*-===//
//
// The sizes and options of a GDN prefill run (gdn-math.md §1): batch B, tokens
// T, q/k heads H, value heads HV, head dims DK = DV = 128 (the only ones the
// kernels are compiled for), the 16-bit input dtype, optional initial state
// and packed varlen boundaries. From it follow the named scalars that kernel
// parameters, grid and workspace expressions use (B, T, H, HV, DK, DV, N,
// NT, NS, has_h0, varlen), the CP segmentation (GdnCp.h) and the roofline
// floor of docs/gdn-math.md §5.2.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_GDNPROBLEM_H
#define GDN_TOOLS_GDN_RUN_GDNPROBLEM_H

#include "GdnCp.h"
#include "GridExpr.h"
#include "Manifest.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gdn::run {

/// The head dimension the GDN kernels are compiled for (DK = DV).
constexpr int64_t kGdnHeadDim = 128;
/// Tokens per chunk of the chunked algorithm (NT counts these).
constexpr int64_t kGdnChunk = 64;

/// One GDN prefill problem.
struct GdnProblem {
  int64_t B = 1, T = 4096, H = 16, HV = 16;
  int64_t DK = kGdnHeadDim, DV = kGdnHeadDim;
  DType dtype = DType::F16;     ///< q, k, v, o
  DType gType = DType::F32;     ///< g: f32, or 16-bit when a manifest says so
  DType betaType = DType::F16;  ///< beta: dtype, or f32
  DType cuType = DType::I32;    ///< cu_seqlens: i32 or i64
  bool hasH0 = false;           ///< an initial state is given
  /// q and k are L2-normalized over the head dimension first (the optional
  /// stage with meta.when = qk_l2norm; GdnSequence.h).
  bool qkL2Norm = false;
  /// Per-token transforms by the optional gate_beta stage (GdnSequence.h):
  /// g = -exp(a_log[hv]) softplus(g + dt_bias[hv]); beta = sigmoid(beta);
  /// beta = 2 beta (FLA's allow_neg_eigval).
  bool gateInKernel = false, betaSigmoid = false, negEigval = false;
  bool gateBeta() const { return gateInKernel || betaSigmoid || negEigval; }
  /// h0 and ht are [N, HV, V, K] (FLA's state_v_first) instead of
  /// [N, HV, K, V]: the kernels that read h0 or write ht take the scalar
  /// state_v_first and copy the state transposed accordingly.
  bool stateVFirst = false;
  std::vector<int64_t> cuSeqlens; ///< packed varlen boundaries; empty: none
  double scale = 0;             ///< output scale, f32-representable
  /// CP summaries: the warm-up window's decay threshold (the shortcut is
  /// exact to e^-cpTheta relative; 0 disables it: exact summaries only).
  double cpTheta = 14;
  /// Chunks per CP segment (m) when the CP path runs; 0 for the direct
  /// path, whose view is one segment per sequence (NS = N).
  int64_t cpChunks = 0;

  bool varlen() const { return !cuSeqlens.empty(); }
  /// Number of sequences N.
  int64_t numSequences() const;
  /// NT: sum over sequences of ceil(length / 64).
  int64_t totalChunks() const;
  /// Element counts.
  int64_t qkCount() const { return B * T * H * DK; }
  int64_t vCount() const { return B * T * HV * DV; }
  int64_t gCount() const { return B * T * HV; }
  int64_t stateCount() const { return numSequences() * HV * DK * DV; }
  /// What the kernels get as cu_seqlens: the varlen boundaries, or
  /// {0, T, 2T, ..., B*T}.
  std::vector<int64_t> deviceCuSeqlens() const;
  /// The CP segments of deviceCuSeqlens() with m = cpChunks (GdnCp.h).
  GdnCpSegments cpSegments() const;
  /// The named integer scalars (B, T, H, HV, DK, DV, N, NT, NS, has_h0,
  /// varlen); NS = cpSegments().numSegments().
  ExprVariables scalars() const;
  /// "BxTxH/HV", with ":N<n>" appended for varlen, e.g. "1x4096x16/32:N6".
  std::string shapeText() const;
};

/// Checks sizes and cu_seqlens (positive extents, HV % H == 0, DK = DV =
/// 128, varlen with B = 1, boundaries from 0 to T, nondecreasing, element
/// counts that fit int64). BadInput naming the problem.
Status validateGdnProblem(const GdnProblem &problem);

/// A lower bound of the host memory one check of `problem` takes: the
/// inputs in the kernel formats and as doubles, o and the final state
/// downloaded twice (determinism) and as the fp64 reference, the index
/// tensors. Double precision, so that absurd shapes cannot overflow.
double gdnHostBytes(const GdnProblem &problem);

/// Work and traffic of one forward (docs/gdn-math.md §5.2, the floor model).
struct GdnCost {
  double flop = 0;  ///< B*T*HV*180224
  double bytes = 0; ///< minimal HBM traffic
  double floorSeconds = 0;
};

/// Measured H200 ceilings of docs/gdn-math.md §5.2.
constexpr double kFloorBandwidth = 4.213e12; ///< bytes/s, device copy
constexpr double kFloorFlops = 747e12;        ///< FLOP/s, fp16 8192^3 GEMM
/// FLOPs per token and value head (the WY matmul count 10 C^2 D + 6 C D^2
/// per chunk of C = 64 tokens, D = 128, divided by C).
constexpr double kFlopPerTokenHead = 180224;

/// FLOPs = B*T*HV*180224; bytes = q and k at H heads plus v and o at HV heads
/// in the 16-bit dtype (DK = DV = 128 each), g and beta per token and value
/// head at their parameter dtypes (f32 and 16-bit: 6 bytes), the fp32 final
/// state N*HV*128*128*4, plus the fp32 initial state when one is given;
/// floor = max(bytes / 4.213 TB/s, FLOPs / 747 TFLOP/s). With H = HV, no
/// initial state and the default dtypes this is exactly docs/gdn-math.md §5.2.
GdnCost gdnCost(const GdnProblem &problem);

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_GDNPROBLEM_H
