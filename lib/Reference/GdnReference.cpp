//===- GdnReference.cpp - fp64 GDN prefill forwards -----------------------===//
//
// The three float64 forwards of the GDN prefill oracle (token recurrence,
// chunked form, context-parallel split) and the per-stage intermediates
// (chunk-local cumsum, exact A_r, CP summaries and start states). See
// GdnReference.h and docs/gdn-math.md §1-§3 for the math.
//
// Parallelism: every forward is a few phases of independent work items
// ((sequence, value head) pairs or (segment, value head) pairs) handed out to
// std::threads through an atomic counter. Each item owns its outputs and all
// its sums, so results do not depend on the thread count.
//
//===----------------------------------------------------------------------===//

#include "gdn/Reference/GdnReference.h"

#include "Parallel.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace gdn::ref {
namespace {

using detail::parallelFor;

//===----------------------------------------------------------------------===//
// Validation helpers
//===----------------------------------------------------------------------===//

/// a * b, or false on overflow / negative operands.
bool mulChecked(int64_t a, int64_t b, int64_t &out) {
  if (a < 0 || b < 0)
    return false;
  return !__builtin_mul_overflow(a, b, &out);
}

bool mulChecked(std::initializer_list<int64_t> xs, int64_t &out) {
  int64_t acc = 1;
  for (int64_t x : xs)
    if (!mulChecked(acc, x, acc))
      return false;
  out = acc;
  return true;
}

constexpr int64_t kMaxChunkSize = 1024;
constexpr int64_t kBlock = 16; // diagonal block size of the exact solve

std::string validateChunkSize(int64_t chunkSize) {
  if (chunkSize <= 0 || chunkSize % kBlock != 0 || chunkSize > kMaxChunkSize)
    return "chunkSize must be a positive multiple of 16 and at most 1024, "
           "got " +
           std::to_string(chunkSize);
  return "";
}

std::string validateSegmentChunks(int64_t segmentChunks) {
  if (segmentChunks <= 0)
    return "segmentChunks must be positive, got " +
           std::to_string(segmentChunks);
  return "";
}

std::string checkInputs(const GdnOptions &opts, const double *q,
                        const double *k, const double *v, const double *g,
                        const double *beta, const double *h0) {
  if (!q || !k || !v || !g || !beta)
    return "q, k, v, g and beta must all be non-null";
  if (opts.hasInitialState && !h0)
    return "opts.hasInitialState is set but h0 is null";
  return "";
}

//===----------------------------------------------------------------------===//
// Problem indexing
//===----------------------------------------------------------------------===//

/// Tokens [begin, end) of batch row `batch`.
struct SeqRange {
  int64_t batch;
  int64_t begin;
  int64_t end;
};

std::vector<SeqRange> sequenceRanges(const GdnShape &s, const GdnOptions &o) {
  std::vector<SeqRange> seqs;
  if (o.cuSeqlens.empty()) {
    for (int64_t b = 0; b < s.B; ++b)
      seqs.push_back({b, 0, s.T});
  } else {
    for (size_t n = 0; n + 1 < o.cuSeqlens.size(); ++n)
      seqs.push_back({0, o.cuSeqlens[n], o.cuSeqlens[n + 1]});
  }
  return seqs;
}

/// Read-only view of the inputs with BTHD addressing and the GVA head map.
/// Stages that do not need some tensor (the A solve reads only k and beta)
/// leave its pointer null: its rows are then never addressed and g reads as 0.
struct Inputs {
  GdnShape s;
  const double *q, *k, *v, *g, *beta;
  int64_t group; // HV / H value heads per q/k head

  Inputs(const GdnShape &shape, const double *q, const double *k,
         const double *v, const double *g, const double *beta)
      : s(shape), q(q), k(k), v(v), g(g), beta(beta),
        group(shape.HV / shape.H) {}

  int64_t row(int64_t b, int64_t t) const { return b * s.T + t; }
  const double *qRow(int64_t b, int64_t t, int64_t hv) const {
    return q + (row(b, t) * s.H + hv / group) * s.DK;
  }
  const double *kRow(int64_t b, int64_t t, int64_t hv) const {
    return k + (row(b, t) * s.H + hv / group) * s.DK;
  }
  const double *vRow(int64_t b, int64_t t, int64_t hv) const {
    return v + (row(b, t) * s.HV + hv) * s.DV;
  }
  double gAt(int64_t b, int64_t t, int64_t hv) const {
    return g ? g[row(b, t) * s.HV + hv] : 0.0;
  }
  double betaAt(int64_t b, int64_t t, int64_t hv) const {
    return beta[row(b, t) * s.HV + hv];
  }
  int64_t oOffset(int64_t b, int64_t t, int64_t hv) const {
    return (row(b, t) * s.HV + hv) * s.DV;
  }
};

double dot(const double *a, const double *b, int64_t n) {
  double acc = 0;
  for (int64_t i = 0; i < n; ++i)
    acc += a[i] * b[i];
  return acc;
}

/// y[0..n) += a * x[0..n)
inline void axpy(double *__restrict y, double a, const double *__restrict x,
                 int64_t n) {
  for (int64_t j = 0; j < n; ++j)
    y[j] += a * x[j];
}

//===----------------------------------------------------------------------===//
// Token recurrence
//===----------------------------------------------------------------------===//

/// One (sequence, value head) of the recurrence, S [DK,DV] in place.
/// Algebraically and operation-for-operation it is gdn-math.md §1.2; the loops
/// are fused so that each token makes one pass over S: the output and the
/// write-back of token t are merged with the decay and S^T k of token t+1.
void recurrentSequence(const Inputs &in, const SeqRange &seq, int64_t hv,
                       double scale, double *S, double *o) {
  const int64_t DK = in.s.DK, DV = in.s.DV, b = seq.batch;
  if (seq.end <= seq.begin)
    return;
  std::vector<double> uBuf(DV, 0.0), unBuf(DV), vpBuf(DV), oBuf(DV);
  double *__restrict u = uBuf.data();
  double *__restrict un = unBuf.data();
  double *__restrict vp = vpBuf.data();
  double *__restrict ot = oBuf.data();

  // Prologue: S <- exp(g_0) S and u = S^T k_0.
  {
    const double a = std::exp(in.gAt(b, seq.begin, hv));
    const double *kt = in.kRow(b, seq.begin, hv);
    for (int64_t i = 0; i < DK; ++i) {
      double *__restrict Si = S + i * DV;
      const double ki = kt[i];
      for (int64_t j = 0; j < DV; ++j) {
        Si[j] *= a;
        u[j] += ki * Si[j];
      }
    }
  }
  for (int64_t t = seq.begin; t < seq.end; ++t) {
    const double bt = in.betaAt(b, t, hv);
    const double *vt = in.vRow(b, t, hv);
    const double *kt = in.kRow(b, t, hv);
    const double *qt = in.qRow(b, t, hv);
    for (int64_t j = 0; j < DV; ++j)
      vp[j] = bt * (vt[j] - u[j]);
    std::fill(ot, ot + DV, 0.0);
    if (t + 1 < seq.end) {
      const double an = std::exp(in.gAt(b, t + 1, hv));
      const double *kn = in.kRow(b, t + 1, hv);
      std::fill(un, un + DV, 0.0);
      for (int64_t i = 0; i < DK; ++i) {
        double *__restrict Si = S + i * DV;
        const double ki = kt[i], qi = qt[i], kni = kn[i];
        for (int64_t j = 0; j < DV; ++j) {
          double sij = Si[j] + ki * vp[j]; // S_t = S + k_t v'^T
          ot[j] += qi * sij;               // o_t = S_t^T q_t
          sij *= an;                       // next token's decay
          Si[j] = sij;
          un[j] += kni * sij; // next token's S^T k
        }
      }
      std::swap(u, un);
    } else {
      for (int64_t i = 0; i < DK; ++i) {
        double *__restrict Si = S + i * DV;
        const double ki = kt[i], qi = qt[i];
        for (int64_t j = 0; j < DV; ++j) {
          const double sij = Si[j] + ki * vp[j];
          Si[j] = sij;
          ot[j] += qi * sij;
        }
      }
    }
    if (o) {
      double *orow = o + in.oOffset(b, t, hv);
      for (int64_t j = 0; j < DV; ++j)
        orow[j] = scale * ot[j];
    }
  }
}

//===----------------------------------------------------------------------===//
// Chunk machinery
//===----------------------------------------------------------------------===//

/// Scratch for one chunk of one value head; C = chunkSize.
struct ChunkWork {
  int64_t C, DK, DV;
  int64_t len = 0;    // valid tokens of the current chunk
  int64_t padded = 0; // len rounded up to a multiple of 16
  std::vector<double> gam, bet, eg, egl; // [C]
  std::vector<double> L, A, Gam;         // [C, C], leading dimension C
  std::vector<double> KS, QS, R, Vn, Y;  // [C, DV]
  std::vector<double> X, KM;             // [C, DK]
  std::vector<double> P;                 // [16, 16]
  std::vector<const double *> kp, qp, vp;

  ChunkWork(int64_t C, int64_t DK, int64_t DV)
      : C(C), DK(DK), DV(DV), gam(C), bet(C), eg(C), egl(C), L(C * C),
        A(C * C), Gam(C * C), KS(C * DV), QS(C * DV), R(C * DV), Vn(C * DV), Y(C * DV),
        X(C * DK), KM(C * DK), P(kBlock * kBlock), kp(C), qp(C), vp(C) {}

  double eL() const { return std::exp(gam[len - 1]); }
};

/// Loads tokens [t0, t0+len) of batch row b, value head hv: local cumsum
/// gamma, beta, e^gamma, e^{gamma_L - gamma}, the lower triangle of
/// Gamma_rj = e^{gamma_r - gamma_j} (r >= j, only if withGamma: the
/// state-only form does not use it) and row pointers.
void loadChunk(const Inputs &in, int64_t b, int64_t t0, int64_t len,
               int64_t hv, ChunkWork &w, bool withGamma) {
  w.len = len;
  w.padded = (len + kBlock - 1) / kBlock * kBlock;
  double acc = 0;
  for (int64_t r = 0; r < len; ++r) {
    acc += in.gAt(b, t0 + r, hv);
    w.gam[r] = acc;
    w.bet[r] = in.betaAt(b, t0 + r, hv);
    w.kp[r] = in.kRow(b, t0 + r, hv);
    w.qp[r] = in.q ? in.qRow(b, t0 + r, hv) : nullptr;
    w.vp[r] = in.v ? in.vRow(b, t0 + r, hv) : nullptr;
  }
  const double gL = w.gam[len - 1];
  for (int64_t r = 0; r < len; ++r) {
    w.eg[r] = std::exp(w.gam[r]);       // exp(gamma_r - 0)
    w.egl[r] = std::exp(gL - w.gam[r]); // exp(gamma_L - gamma_r)
    for (int64_t j = 0; withGamma && j <= r; ++j) // masked: only j <= r
      w.Gam[r * w.C + j] = std::exp(w.gam[r] - w.gam[j]);
  }
}

/// A_r = (I + L0)^-1 of the loaded chunk, L0_ij = beta_i <k_i,k_j> (i > j),
/// exactly as gdn-math.md §2.3: forward substitution on 16x16 diagonal blocks,
/// then the off-diagonal blocks by increasing distance from the diagonal,
///   T_ij = -T_ii sum_{j <= m < i} L_im T_mj,
/// which for 4 blocks is the listed T10, T21, T32; T20, T31; T30 order.
/// Rows and columns past w.len (up to w.padded) are masked: k = 0, beta = 0,
/// so there L0 is 0 and A_r is the identity.
void solveA(ChunkWork &w) {
  const int64_t C = w.C, n = w.padded, len = w.len;
  double *L = w.L.data(), *A = w.A.data();
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double lij = 0;
      if (j < i && i < len)
        lij = w.bet[i] * dot(w.kp[i], w.kp[j], w.DK);
      L[i * C + j] = lij;
      A[i * C + j] = 0;
    }
  }
  const int64_t nb = n / kBlock;
  // Diagonal blocks: row-wise forward substitution, (I + L_dd) T_dd = I.
  for (int64_t d = 0; d < nb; ++d) {
    const int64_t o = d * kBlock;
    for (int64_t r = 0; r < kBlock; ++r) {
      const double *Lr = L + (o + r) * C + o;
      double *Ar = A + (o + r) * C + o;
      for (int64_t c = 0; c < r; ++c) {
        double acc = 0;
        for (int64_t m = c; m < r; ++m)
          acc += Lr[m] * A[(o + m) * C + o + c];
        Ar[c] = -acc;
      }
      Ar[r] = 1;
    }
  }
  // Block merges: T_ij = -T_ii (sum_{m=j}^{i-1} L_im T_mj).
  double *P = w.P.data();
  for (int64_t dist = 1; dist < nb; ++dist) {
    for (int64_t bj = 0; bj + dist < nb; ++bj) {
      const int64_t bi = bj + dist, oi = bi * kBlock, oj = bj * kBlock;
      std::fill(P, P + kBlock * kBlock, 0.0);
      for (int64_t bm = bj; bm < bi; ++bm) {
        const int64_t om = bm * kBlock;
        for (int64_t r = 0; r < kBlock; ++r)
          for (int64_t m = 0; m < kBlock; ++m)
            axpy(P + r * kBlock, L[(oi + r) * C + om + m],
                 A + (om + m) * C + oj, kBlock);
      }
      for (int64_t r = 0; r < kBlock; ++r) {
        double *Aij = A + (oi + r) * C + oj;
        for (int64_t m = 0; m <= r; ++m) // T_ii is unit lower triangular
          axpy(Aij, -A[(oi + r) * C + oi + m], P + m * kBlock, kBlock);
      }
    }
  }
}

/// rows[r][0..n) = sum_i x_r[i] * S[i][0..n) for r < len  (X S, S is [DK,n]).
void rowsTimesState(const std::vector<const double *> &x, int64_t len,
                    const double *S, int64_t DK, int64_t n, double *rows) {
  for (int64_t r = 0; r < len; ++r) {
    double *out = rows + r * n;
    std::fill(out, out + n, 0.0);
    const double *xr = x[r];
    for (int64_t i = 0; i < DK; ++i)
      axpy(out, xr[i], S + i * n, n);
  }
}

/// One chunk of the chunked form (gdn-math.md §2.2) from state S [DK,DV], which
/// is replaced by the chunk-end state; writes the chunk's o rows if o.
void chunkStep(const Inputs &in, ChunkWork &w, int64_t b, int64_t t0,
               int64_t hv, double scale, double *S, double *o) {
  const int64_t DK = w.DK, DV = w.DV, C = w.C, len = w.len;
  solveA(w);
  // K S and Q S with the chunk-start state.
  rowsTimesState(w.kp, len, S, DK, DV, w.KS.data());
  if (o)
    rowsTimesState(w.qp, len, S, DK, DV, w.QS.data());
  // R = V - diag(e^gamma) K S.
  for (int64_t r = 0; r < len; ++r) {
    double *Rr = w.R.data() + r * DV;
    const double *KSr = w.KS.data() + r * DV, *vr = w.vp[r];
    for (int64_t j = 0; j < DV; ++j)
      Rr[j] = vr[j] - w.eg[r] * KSr[j];
  }
  // V_new = A_g R with A_g[r][j] = Gamma_rj A_r[r][j] beta_j (j <= r).
  for (int64_t r = 0; r < len; ++r) {
    double *Vr = w.Vn.data() + r * DV;
    std::fill(Vr, Vr + DV, 0.0);
    for (int64_t j = 0; j <= r; ++j) {
      const double c = w.Gam[r * C + j] * w.A[r * C + j] * w.bet[j];
      axpy(Vr, c, w.R.data() + j * DV, DV);
    }
  }
  // O = scale (diag(e^gamma) Q S + (Gamma . Q K^T) V_new).
  if (o) {
    std::vector<double> out(DV);
    for (int64_t r = 0; r < len; ++r) {
      const double *QSr = w.QS.data() + r * DV;
      for (int64_t j = 0; j < DV; ++j)
        out[j] = w.eg[r] * QSr[j];
      for (int64_t j = 0; j <= r; ++j) {
        const double c = w.Gam[r * C + j] * dot(w.qp[r], w.kp[j], DK);
        axpy(out.data(), c, w.Vn.data() + j * DV, DV);
      }
      double *orow = o + in.oOffset(b, t0 + r, hv);
      for (int64_t j = 0; j < DV; ++j)
        orow[j] = scale * out[j];
    }
  }
  // S' = e^{gamma_L} S + K^T diag(e^{gamma_L - gamma}) V_new.
  const double eL = w.eL();
  for (int64_t i = 0; i < DK; ++i) {
    double *Si = S + i * DV;
    for (int64_t j = 0; j < DV; ++j)
      Si[j] *= eL;
    for (int64_t r = 0; r < len; ++r)
      axpy(Si, w.kp[r][i] * w.egl[r], w.Vn.data() + r * DV, DV);
  }
}

/// One chunk of the state-only form (gdn-math.md §2.2/§3 step 1): S [DK,DV] and
/// M [DK,DK] (either may be null) are advanced by the chunk's affine map.
void summaryStep(ChunkWork &w, double *S, double *M) {
  const int64_t DK = w.DK, DV = w.DV, C = w.C, len = w.len;
  solveA(w);
  const double eL = w.eL();
  // X = -diag(beta) A_r^T K: X[r] = -beta_r sum_{i >= r} A_r[i][r] k_i.
  for (int64_t r = 0; r < len; ++r) {
    double *Xr = w.X.data() + r * DK;
    std::fill(Xr, Xr + DK, 0.0);
    for (int64_t i = r; i < len; ++i)
      axpy(Xr, w.A[i * C + r], w.kp[i], DK);
    for (int64_t c = 0; c < DK; ++c)
      Xr[c] *= -w.bet[r];
  }
  if (S) {
    // Y = e^{gamma_L} K S - diag(e^{gamma_L - gamma}) V.
    rowsTimesState(w.kp, len, S, DK, DV, w.KS.data());
    for (int64_t r = 0; r < len; ++r) {
      double *Yr = w.Y.data() + r * DV;
      const double *KSr = w.KS.data() + r * DV, *vr = w.vp[r];
      for (int64_t j = 0; j < DV; ++j)
        Yr[j] = eL * KSr[j] - w.egl[r] * vr[j];
    }
    // S <- e^{gamma_L} S + X^T Y.
    for (int64_t i = 0; i < DK; ++i) {
      double *Si = S + i * DV;
      for (int64_t j = 0; j < DV; ++j)
        Si[j] *= eL;
      for (int64_t r = 0; r < len; ++r)
        axpy(Si, w.X[r * DK + i], w.Y.data() + r * DV, DV);
    }
  }
  if (M) {
    // M <- e^{gamma_L} (M + X^T (K M)).
    rowsTimesState(w.kp, len, M, DK, DK, w.KM.data());
    for (int64_t i = 0; i < DK; ++i) {
      double *Mi = M + i * DK;
      for (int64_t r = 0; r < len; ++r)
        axpy(Mi, w.X[r * DK + i], w.KM.data() + r * DK, DK);
      for (int64_t j = 0; j < DK; ++j)
        Mi[j] *= eL;
    }
  }
}

/// Runs the chunked form over tokens [begin, end) of batch row b (chunks
/// aligned to begin) from state S, which ends as the state after `end`.
void chunkedRange(const Inputs &in, ChunkWork &w, int64_t b, int64_t begin,
                  int64_t end, int64_t hv, double scale, double *S,
                  double *o) {
  for (int64_t t0 = begin; t0 < end; t0 += w.C) {
    loadChunk(in, b, t0, std::min(w.C, end - t0), hv, w, /*withGamma=*/true);
    chunkStep(in, w, b, t0, hv, scale, S, o);
  }
}

/// Copies the initial state of (sequence n, head hv) into S, or zeroes it.
void initState(const GdnShape &s, const GdnOptions &opts, const double *h0,
               int64_t n, int64_t hv, double *S) {
  const int64_t sz = s.DK * s.DV;
  if (opts.hasInitialState && h0)
    std::copy(h0 + (n * s.HV + hv) * sz, h0 + (n * s.HV + hv + 1) * sz, S);
  else
    std::fill(S, S + sz, 0.0);
}

std::string validateAll(const GdnShape &shape, const GdnOptions &opts,
                        const double *q, const double *k, const double *v,
                        const double *g, const double *beta,
                        const double *h0) {
  std::string err = validate(shape, opts);
  if (err.empty())
    err = checkInputs(opts, q, k, v, g, beta, h0);
  return err;
}

//===----------------------------------------------------------------------===//
// CP phases
//===----------------------------------------------------------------------===//

void segmentsOf(const GdnShape &shape, const GdnOptions &opts,
                int64_t chunkSize, int64_t segmentChunks,
                std::vector<CpSegment> &out) {
  out.clear();
  const int64_t segLen = chunkSize * segmentChunks; // validated: no overflow
  std::vector<SeqRange> seqs = sequenceRanges(shape, opts);
  for (size_t n = 0; n < seqs.size(); ++n) {
    const SeqRange &sr = seqs[n];
    if (sr.end == sr.begin) {
      out.push_back({static_cast<int64_t>(n), sr.batch, sr.begin, sr.end,
                     true});
      continue;
    }
    for (int64_t s0 = sr.begin; s0 < sr.end; s0 += segLen) {
      const int64_t e = std::min(sr.end, s0 + segLen);
      out.push_back({static_cast<int64_t>(n), sr.batch, s0, e, e == sr.end});
    }
  }
}

/// Phase 1: summaries (M_s, B_s) of the segments (all, or non-final only).
void computeSummaries(const Inputs &in, const GdnOptions &opts,
                      const std::vector<CpSegment> &segs, int64_t chunkSize,
                      bool includeFinal, double *m, double *bs) {
  const GdnShape &s = in.s;
  const int64_t HV = s.HV, DK = s.DK, DV = s.DV;
  parallelFor(
      static_cast<int64_t>(segs.size()) * HV, opts.numThreads,
      [&](int64_t item) {
        const int64_t si = item / HV, hv = item % HV;
        const CpSegment &seg = segs[si];
        if (seg.lastOfSequence && !includeFinal)
          return;
        double *S = nullptr, *M = nullptr;
        if (bs) {
          S = bs + (si * HV + hv) * DK * DV;
          std::fill(S, S + DK * DV, 0.0);
        }
        if (m) {
          M = m + (si * HV + hv) * DK * DK;
          std::fill(M, M + DK * DK, 0.0);
          for (int64_t i = 0; i < DK; ++i)
            M[i * DK + i] = 1;
        }
        ChunkWork w(chunkSize, DK, DV);
        for (int64_t t0 = seg.begin; t0 < seg.end; t0 += chunkSize) {
          loadChunk(in, seg.batch, t0, std::min(chunkSize, seg.end - t0), hv,
                    w, /*withGamma=*/false);
          summaryStep(w, S, M);
        }
      });
}

/// Phase 2: the correction scan h_{s+1} = M_s h_s + B_s per (sequence, head).
void correctionScan(const GdnShape &s, const GdnOptions &opts,
                    const std::vector<CpSegment> &segs, const double *m,
                    const double *bs, const double *h0, double *start) {
  const int64_t HV = s.HV, DK = s.DK, DV = s.DV;
  const int64_t N = numSequences(s, opts);
  // First segment index of every sequence (segments are sorted by sequence).
  std::vector<int64_t> first(N + 1, static_cast<int64_t>(segs.size()));
  for (int64_t si = static_cast<int64_t>(segs.size()) - 1; si >= 0; --si)
    first[segs[si].seq] = si;
  parallelFor(N * HV, opts.numThreads, [&](int64_t item) {
    const int64_t n = item / HV, hv = item % HV;
    std::vector<double> h(DK * DV);
    initState(s, opts, h0, n, hv, h.data());
    for (int64_t si = first[n];
         si < static_cast<int64_t>(segs.size()) && segs[si].seq == n; ++si) {
      double *st = start + (si * HV + hv) * DK * DV;
      std::copy(h.begin(), h.end(), st);
      if (segs[si].lastOfSequence)
        break;
      const double *M = m + (si * HV + hv) * DK * DK;
      const double *Bv = bs + (si * HV + hv) * DK * DV;
      for (int64_t i = 0; i < DK; ++i) {
        double *hi = h.data() + i * DV;
        std::copy(Bv + i * DV, Bv + (i + 1) * DV, hi);
        for (int64_t c = 0; c < DK; ++c)
          axpy(hi, M[i * DK + c], st + c * DV, DV);
      }
    }
  });
}

} // namespace

//===----------------------------------------------------------------------===//
// Public API
//===----------------------------------------------------------------------===//

int64_t numSequences(const GdnShape &shape, const GdnOptions &opts) {
  if (opts.cuSeqlens.empty())
    return shape.B;
  return static_cast<int64_t>(opts.cuSeqlens.size()) - 1;
}

std::string validate(const GdnShape &s, const GdnOptions &opts) {
  struct Extent {
    const char *name;
    int64_t value;
  };
  for (const Extent &e : {Extent{"B", s.B}, Extent{"T", s.T}, Extent{"H", s.H},
                          Extent{"HV", s.HV}, Extent{"DK", s.DK},
                          Extent{"DV", s.DV}})
    if (e.value <= 0)
      return std::string("shape extent ") + e.name +
             " must be positive, got " + std::to_string(e.value);
  if (s.HV % s.H != 0)
    return "HV (" + std::to_string(s.HV) + ") must be a multiple of H (" +
           std::to_string(s.H) + ") for GVA";
  const std::vector<int64_t> &cu = opts.cuSeqlens;
  if (!cu.empty()) {
    if (s.B != 1)
      return "varlen (cuSeqlens given) requires B == 1, got B = " +
             std::to_string(s.B);
    if (cu.size() < 2)
      return "cuSeqlens must have at least 2 entries (N + 1 with N >= 1)";
    if (cu.front() != 0)
      return "cuSeqlens[0] must be 0, got " + std::to_string(cu.front());
    for (size_t i = 1; i < cu.size(); ++i)
      if (cu[i] < cu[i - 1])
        return "cuSeqlens must be nondecreasing, but cuSeqlens[" +
               std::to_string(i) + "] = " + std::to_string(cu[i]) +
               " < cuSeqlens[" + std::to_string(i - 1) +
               "] = " + std::to_string(cu[i - 1]);
    if (cu.back() != s.T)
      return "cuSeqlens must end at T = " + std::to_string(s.T) + ", got " +
             std::to_string(cu.back());
  }
  int64_t tmp;
  const int64_t N = numSequences(s, opts);
  if (!mulChecked({s.B, s.T, s.H, s.DK}, tmp) ||
      !mulChecked({s.B, s.T, s.HV, s.DV}, tmp) ||
      !mulChecked({N, s.HV, s.DK, s.DV}, tmp) ||
      !mulChecked({N, s.HV, s.DK, s.DK}, tmp) ||
      !mulChecked({s.B, s.T, s.HV, kMaxChunkSize}, tmp))
    return "shape too large: element counts overflow int64";
  return "";
}

double effectiveScale(const GdnShape &shape, const GdnOptions &opts) {
  if (opts.scale > 0)
    return opts.scale;
  return 1.0 / std::sqrt(static_cast<double>(shape.DK));
}

int64_t qkElements(const GdnShape &s) { return s.B * s.T * s.H * s.DK; }
int64_t vElements(const GdnShape &s) { return s.B * s.T * s.HV * s.DV; }
int64_t gElements(const GdnShape &s) { return s.B * s.T * s.HV; }
int64_t stateElements(const GdnShape &s, const GdnOptions &opts) {
  return numSequences(s, opts) * s.HV * s.DK * s.DV;
}

std::string recurrentForward(const GdnShape &shape, const GdnOptions &opts,
                             const double *q, const double *k, const double *v,
                             const double *g, const double *beta,
                             const double *h0, double *o, double *finalState) {
  std::string err = validateAll(shape, opts, q, k, v, g, beta, h0);
  if (!err.empty())
    return err;
  const Inputs in(shape, q, k, v, g, beta);
  const std::vector<SeqRange> seqs = sequenceRanges(shape, opts);
  const double scale = effectiveScale(shape, opts);
  const int64_t HV = shape.HV, sz = shape.DK * shape.DV;
  parallelFor(static_cast<int64_t>(seqs.size()) * HV, opts.numThreads,
              [&](int64_t item) {
                const int64_t n = item / HV, hv = item % HV;
                std::vector<double> S(sz);
                initState(shape, opts, h0, n, hv, S.data());
                recurrentSequence(in, seqs[n], hv, scale, S.data(), o);
                if (finalState)
                  std::copy(S.begin(), S.end(),
                            finalState + (n * HV + hv) * sz);
              });
  return "";
}

std::string chunkedForward(const GdnShape &shape, const GdnOptions &opts,
                           const double *q, const double *k, const double *v,
                           const double *g, const double *beta,
                           const double *h0, double *o, double *finalState,
                           int64_t chunkSize) {
  std::string err = validateAll(shape, opts, q, k, v, g, beta, h0);
  if (err.empty())
    err = validateChunkSize(chunkSize);
  if (!err.empty())
    return err;
  const Inputs in(shape, q, k, v, g, beta);
  const std::vector<SeqRange> seqs = sequenceRanges(shape, opts);
  const double scale = effectiveScale(shape, opts);
  const int64_t HV = shape.HV, sz = shape.DK * shape.DV;
  parallelFor(static_cast<int64_t>(seqs.size()) * HV, opts.numThreads,
              [&](int64_t item) {
                const int64_t n = item / HV, hv = item % HV;
                std::vector<double> S(sz);
                initState(shape, opts, h0, n, hv, S.data());
                ChunkWork w(chunkSize, shape.DK, shape.DV);
                const SeqRange &sr = seqs[n];
                chunkedRange(in, w, sr.batch, sr.begin, sr.end, hv, scale,
                             S.data(), o);
                if (finalState)
                  std::copy(S.begin(), S.end(),
                            finalState + (n * HV + hv) * sz);
              });
  return "";
}

std::string cpSegments(const GdnShape &shape, const GdnOptions &opts,
                       int64_t chunkSize, int64_t segmentChunks,
                       std::vector<CpSegment> &segments) {
  segments.clear();
  std::string err = validate(shape, opts);
  if (err.empty())
    err = validateChunkSize(chunkSize);
  if (err.empty())
    err = validateSegmentChunks(segmentChunks);
  if (!err.empty())
    return err;
  // chunkSize * segmentChunks may exceed T; clamp to avoid overflow.
  const int64_t maxChunks = shape.T / chunkSize + 1;
  segmentsOf(shape, opts, chunkSize, std::min(segmentChunks, maxChunks),
             segments);
  return "";
}

std::string cpSummaries(const GdnShape &shape, const GdnOptions &opts,
                        const double *k, const double *v, const double *g,
                        const double *beta, double *m, double *bs,
                        int64_t chunkSize, int64_t segmentChunks) {
  std::vector<CpSegment> segs;
  std::string err = cpSegments(shape, opts, chunkSize, segmentChunks, segs);
  if (err.empty() && (!k || !v || !g || !beta))
    err = "k, v, g and beta must all be non-null";
  if (!err.empty())
    return err;
  // q is not read by the state-only form.
  const Inputs in(shape, nullptr, k, v, g, beta);
  computeSummaries(in, opts, segs, chunkSize, /*includeFinal=*/true, m, bs);
  return "";
}

std::string cpStartStates(const GdnShape &shape, const GdnOptions &opts,
                          const double *m, const double *bs, const double *h0,
                          double *start, int64_t chunkSize,
                          int64_t segmentChunks) {
  std::vector<CpSegment> segs;
  std::string err = cpSegments(shape, opts, chunkSize, segmentChunks, segs);
  if (err.empty() && (!m || !bs || !start))
    err = "m, bs and start must all be non-null";
  if (err.empty() && opts.hasInitialState && !h0)
    err = "opts.hasInitialState is set but h0 is null";
  if (!err.empty())
    return err;
  correctionScan(shape, opts, segs, m, bs, h0, start);
  return "";
}

std::string cpSplitForward(const GdnShape &shape, const GdnOptions &opts,
                           const double *q, const double *k, const double *v,
                           const double *g, const double *beta,
                           const double *h0, double *o, double *finalState,
                           int64_t chunkSize, int64_t segmentChunks) {
  std::vector<CpSegment> segs;
  std::string err = validateAll(shape, opts, q, k, v, g, beta, h0);
  if (err.empty())
    err = cpSegments(shape, opts, chunkSize, segmentChunks, segs);
  if (!err.empty())
    return err;
  const Inputs in(shape, q, k, v, g, beta);
  const double scale = effectiveScale(shape, opts);
  const int64_t HV = shape.HV, DK = shape.DK, DV = shape.DV;
  const int64_t numSeg = static_cast<int64_t>(segs.size());
  std::vector<double> m(numSeg * HV * DK * DK), bs(numSeg * HV * DK * DV),
      start(numSeg * HV * DK * DV);
  // Step 1: summaries of the non-final segments.
  computeSummaries(in, opts, segs, chunkSize, /*includeFinal=*/false, m.data(),
                   bs.data());
  // Step 2: correction scan.
  correctionScan(shape, opts, segs, m.data(), bs.data(), h0, start.data());
  // Step 3: replay every segment from its start state.
  parallelFor(numSeg * HV, opts.numThreads, [&](int64_t item) {
    const int64_t si = item / HV, hv = item % HV;
    const CpSegment &seg = segs[si];
    double *S = start.data() + (si * HV + hv) * DK * DV;
    ChunkWork w(chunkSize, DK, DV);
    chunkedRange(in, w, seg.batch, seg.begin, seg.end, hv, scale, S, o);
    if (seg.lastOfSequence && finalState)
      std::copy(S, S + DK * DV, finalState + (seg.seq * HV + hv) * DK * DV);
  });
  return "";
}

int64_t cpSegmentChunks(int64_t H, int64_t totalChunks, int64_t numSMs) {
  constexpr int64_t kMin = 4;
  if (H <= 0 || totalChunks <= 0 || numSMs <= 0)
    return kMin;
  const double x = 3.0 * std::sqrt(static_cast<double>(H) *
                                   static_cast<double>(totalChunks) /
                                   static_cast<double>(numSMs));
  const double e = std::round(std::log2(x));
  if (e <= 2) // 2^2 = kMin
    return kMin;
  if (e >= 62)
    return int64_t(1) << 62;
  return int64_t(1) << static_cast<int>(e);
}

std::string chunkLocalCumsum(const GdnShape &shape, const GdnOptions &opts,
                             const double *g, double *gamma,
                             int64_t chunkSize) {
  std::string err = validate(shape, opts);
  if (err.empty())
    err = validateChunkSize(chunkSize);
  if (err.empty() && (!g || !gamma))
    err = "g and gamma must be non-null";
  if (!err.empty())
    return err;
  const int64_t HV = shape.HV;
  for (const SeqRange &sr : sequenceRanges(shape, opts)) {
    for (int64_t hv = 0; hv < HV; ++hv) {
      double acc = 0;
      for (int64_t t = sr.begin; t < sr.end; ++t) {
        if ((t - sr.begin) % chunkSize == 0)
          acc = 0;
        const int64_t idx = (sr.batch * shape.T + t) * HV + hv;
        acc += g[idx];
        gamma[idx] = acc;
      }
    }
  }
  return "";
}

std::string chunkSolveA(const GdnShape &shape, const GdnOptions &opts,
                        const double *k, const double *beta, double *a,
                        int64_t chunkSize) {
  std::string err = validate(shape, opts);
  if (err.empty())
    err = validateChunkSize(chunkSize);
  if (err.empty() && (!k || !beta || !a))
    err = "k, beta and a must be non-null";
  if (!err.empty())
    return err;
  const std::vector<SeqRange> seqs = sequenceRanges(shape, opts);
  const int64_t HV = shape.HV, C = chunkSize;
  // Only k and beta are read (gamma does not enter A_r).
  const Inputs in(shape, nullptr, k, nullptr, nullptr, beta);
  parallelFor(static_cast<int64_t>(seqs.size()) * HV, opts.numThreads,
              [&](int64_t item) {
                const int64_t n = item / HV, hv = item % HV;
                const SeqRange &sr = seqs[n];
                ChunkWork w(C, shape.DK, 1);
                for (int64_t t0 = sr.begin; t0 < sr.end; t0 += C) {
                  const int64_t len = std::min(C, sr.end - t0);
                  loadChunk(in, sr.batch, t0, len, hv, w,
                            /*withGamma=*/false);
                  solveA(w);
                  for (int64_t r = 0; r < len; ++r) {
                    double *dst =
                        a + ((sr.batch * shape.T + t0 + r) * HV + hv) * C;
                    for (int64_t c = 0; c < C; ++c)
                      dst[c] = c <= r ? w.A[r * C + c] : 0.0;
                  }
                }
              });
  return "";
}

} // namespace gdn::ref
