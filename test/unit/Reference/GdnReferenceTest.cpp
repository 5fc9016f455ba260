//===- GdnReferenceTest.cpp - tests of the fp64 GDN prefill oracle --------===//
//
// Checks the oracle of gdn/Reference/GdnReference.h:
//  - the fused token recurrence against a literal, independent transcription
//    of gdn-math.md §1.2 written here (so indexing bugs shared by the library's
//    forwards cannot hide);
//  - the chunked form (§2.2/§2.3) and the CP split (§3) against the
//    recurrence at 1e-10 relative L2 over the input families of §8 (odd T,
//    B > 1, initial state, GVA, varlen with empty sequences, weak / no /
//    strong decay, beta in {0, 1}, un-normalized keys, DK != DV, D = 128);
//  - hand-computed T = 1 cases, the per-stage intermediates, CP sizing,
//    validation messages, metrics, the PRNG and the fp16/bf16 conversions.
//
//===----------------------------------------------------------------------===//

#include "gdn/Reference/GdnReference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace gdn::ref;

namespace {

//===----------------------------------------------------------------------===//
// Problem generation
//===----------------------------------------------------------------------===//

enum class Decay { Weak, None, Strong, LogSigmoid };
enum class Beta { Sigmoid, Binary, Zero, One };

struct Spec {
  std::string name;
  GdnShape shape;
  std::vector<int64_t> cu;
  bool h0 = false;
  Decay decay = Decay::Weak;
  Beta beta = Beta::Sigmoid;
  bool normalized = true; // false: q, k = 0.1 * N(0, 1)
};

struct Problem {
  GdnShape shape;
  GdnOptions opts;
  std::vector<double> q, k, v, g, beta, h0;
};

Problem makeProblem(const Spec &spec, uint64_t seed = 1234) {
  Problem p;
  p.shape = spec.shape;
  p.opts.cuSeqlens = spec.cu;
  p.opts.hasInitialState = spec.h0;
  p.opts.numThreads = 2;
  const GdnShape &s = spec.shape;
  p.q.resize(qkElements(s));
  p.k.resize(qkElements(s));
  p.v.resize(vElements(s));
  p.g.resize(gElements(s));
  p.beta.resize(gElements(s));
  if (spec.normalized) {
    fillUniform(p.q.data(), p.q.size(), -1, 1, seed + 1);
    fillUniform(p.k.data(), p.k.size(), -1, 1, seed + 2);
    l2NormalizeRows(p.q.data(), s.B * s.T * s.H, s.DK);
    l2NormalizeRows(p.k.data(), s.B * s.T * s.H, s.DK);
  } else {
    fillNormal(p.q.data(), p.q.size(), 0, 0.1, seed + 1);
    fillNormal(p.k.data(), p.k.size(), 0, 0.1, seed + 2);
  }
  fillUniform(p.v.data(), p.v.size(), -1, 1, seed + 3);
  switch (spec.decay) {
  case Decay::Weak:
    fillUniform(p.g.data(), p.g.size(), -0.02, 0, seed + 4);
    break;
  case Decay::None:
    std::fill(p.g.begin(), p.g.end(), 0.0);
    break;
  case Decay::Strong:
    fillUniform(p.g.data(), p.g.size(), -5, 0, seed + 4);
    break;
  case Decay::LogSigmoid:
    fillNormal(p.g.data(), p.g.size(), 0, 1, seed + 4);
    logSigmoidInPlace(p.g.data(), p.g.size());
    break;
  }
  switch (spec.beta) {
  case Beta::Sigmoid:
    fillNormal(p.beta.data(), p.beta.size(), 0, 1, seed + 5);
    sigmoidInPlace(p.beta.data(), p.beta.size());
    break;
  case Beta::Binary:
    fillUniform(p.beta.data(), p.beta.size(), 0, 1, seed + 5);
    for (double &b : p.beta)
      b = b < 0.5 ? 0.0 : 1.0;
    break;
  case Beta::Zero:
    std::fill(p.beta.begin(), p.beta.end(), 0.0);
    break;
  case Beta::One:
    std::fill(p.beta.begin(), p.beta.end(), 1.0);
    break;
  }
  p.h0.resize(stateElements(s, p.opts));
  fillUniform(p.h0.data(), p.h0.size(), -1, 1, seed + 6);
  return p;
}

struct Result {
  std::vector<double> o, fs;
};

enum class Method { Recurrent, Chunked, Cp };

Result run(const Problem &p, Method method, int64_t chunk = 64,
           int64_t seg = 1, int threads = 2) {
  Result r;
  r.o.assign(vElements(p.shape), std::nan(""));
  r.fs.assign(stateElements(p.shape, p.opts), std::nan(""));
  GdnOptions opts = p.opts;
  opts.numThreads = threads;
  std::string err;
  switch (method) {
  case Method::Recurrent:
    err = recurrentForward(p.shape, opts, p.q.data(), p.k.data(), p.v.data(),
                           p.g.data(), p.beta.data(), p.h0.data(),
                           r.o.data(), r.fs.data());
    break;
  case Method::Chunked:
    err = chunkedForward(p.shape, opts, p.q.data(), p.k.data(), p.v.data(),
                         p.g.data(), p.beta.data(), p.h0.data(), r.o.data(),
                         r.fs.data(), chunk);
    break;
  case Method::Cp:
    err = cpSplitForward(p.shape, opts, p.q.data(), p.k.data(), p.v.data(),
                         p.g.data(), p.beta.data(), p.h0.data(), r.o.data(),
                         r.fs.data(), chunk, seg);
    break;
  }
  EXPECT_EQ(err, "");
  return r;
}

/// A literal transcription of gdn-math.md §1.2, own indexing: S[i][j] as
/// nested vectors, every step a separate loop.
Result naiveRecurrent(const Problem &p) {
  const GdnShape &s = p.shape;
  Result r;
  r.o.assign(vElements(s), std::nan(""));
  r.fs.assign(stateElements(s, p.opts), std::nan(""));
  struct Seq {
    int64_t b, t0, len;
  };
  std::vector<Seq> seqs;
  if (p.opts.cuSeqlens.empty()) {
    for (int64_t b = 0; b < s.B; ++b)
      seqs.push_back({b, 0, s.T});
  } else {
    for (size_t n = 0; n + 1 < p.opts.cuSeqlens.size(); ++n)
      seqs.push_back({0, p.opts.cuSeqlens[n],
                      p.opts.cuSeqlens[n + 1] - p.opts.cuSeqlens[n]});
  }
  const double scale =
      p.opts.scale > 0 ? p.opts.scale : 1.0 / std::sqrt(double(s.DK));
  for (size_t n = 0; n < seqs.size(); ++n) {
    for (int64_t hv = 0; hv < s.HV; ++hv) {
      const int64_t hk = hv / (s.HV / s.H);
      std::vector<std::vector<double>> S(s.DK, std::vector<double>(s.DV, 0));
      if (p.opts.hasInitialState)
        for (int64_t i = 0; i < s.DK; ++i)
          for (int64_t j = 0; j < s.DV; ++j)
            S[i][j] = p.h0[((n * s.HV + hv) * s.DK + i) * s.DV + j];
      for (int64_t t = 0; t < seqs[n].len; ++t) {
        const int64_t tok = seqs[n].b * s.T + seqs[n].t0 + t;
        const double *q = &p.q[(tok * s.H + hk) * s.DK];
        const double *k = &p.k[(tok * s.H + hk) * s.DK];
        const double *v = &p.v[(tok * s.HV + hv) * s.DV];
        const double alpha = std::exp(p.g[tok * s.HV + hv]);
        const double beta = p.beta[tok * s.HV + hv];
        for (auto &row : S)
          for (double &x : row)
            x *= alpha;
        std::vector<double> vnew(s.DV);
        for (int64_t j = 0; j < s.DV; ++j) {
          double sk = 0;
          for (int64_t i = 0; i < s.DK; ++i)
            sk += S[i][j] * k[i];
          vnew[j] = beta * (v[j] - sk);
        }
        for (int64_t i = 0; i < s.DK; ++i)
          for (int64_t j = 0; j < s.DV; ++j)
            S[i][j] += k[i] * vnew[j];
        for (int64_t j = 0; j < s.DV; ++j) {
          double acc = 0;
          for (int64_t i = 0; i < s.DK; ++i)
            acc += S[i][j] * q[i];
          r.o[(tok * s.HV + hv) * s.DV + j] = scale * acc;
        }
      }
      for (int64_t i = 0; i < s.DK; ++i)
        for (int64_t j = 0; j < s.DV; ++j)
          r.fs[((n * s.HV + hv) * s.DK + i) * s.DV + j] = S[i][j];
    }
  }
  return r;
}

double rel(const std::vector<double> &x, const std::vector<double> &ref) {
  EXPECT_EQ(x.size(), ref.size());
  return relativeL2(x.data(), ref.data(), x.size());
}

GdnShape shape(int64_t B, int64_t T, int64_t H, int64_t HV, int64_t DK,
               int64_t DV) {
  return GdnShape{B, T, H, HV, DK, DV};
}

//===----------------------------------------------------------------------===//
// Case table
//===----------------------------------------------------------------------===//

std::vector<Spec> allSpecs() {
  std::vector<Spec> v;
  auto add = [&](std::string name, GdnShape s, std::vector<int64_t> cu,
                 bool h0, Decay d, Beta b, bool norm = true) {
    Spec spec;
    spec.name = std::move(name);
    spec.shape = s;
    spec.cu = std::move(cu);
    spec.h0 = h0;
    spec.decay = d;
    spec.beta = b;
    spec.normalized = norm;
    v.push_back(spec);
  };
  add("T1", shape(1, 1, 1, 1, 32, 32), {}, false, Decay::Weak, Beta::Sigmoid);
  add("T1_h0", shape(1, 1, 1, 2, 32, 32), {}, true, Decay::Weak,
      Beta::Sigmoid);
  add("T63_h0", shape(1, 63, 1, 1, 32, 32), {}, true, Decay::Weak,
      Beta::Sigmoid);
  add("T64", shape(1, 64, 1, 1, 32, 32), {}, false, Decay::Weak,
      Beta::Sigmoid);
  add("T65_h0", shape(1, 65, 1, 1, 32, 32), {}, true, Decay::Weak,
      Beta::Sigmoid);
  add("T130_noDecay", shape(1, 130, 1, 1, 32, 32), {}, false, Decay::None,
      Beta::Sigmoid);
  add("T200_strongDecay_h0", shape(1, 200, 1, 1, 32, 32), {}, true,
      Decay::Strong, Beta::Sigmoid);
  add("T200_logSigmoidDecay", shape(1, 200, 1, 2, 32, 32), {}, false,
      Decay::LogSigmoid, Beta::Sigmoid);
  add("B3_T65_h0", shape(3, 65, 1, 2, 32, 32), {}, true, Decay::Weak,
      Beta::Sigmoid);
  add("B3_T65", shape(3, 65, 1, 1, 32, 32), {}, false, Decay::Weak,
      Beta::Sigmoid);
  add("GVA_H2_HV4_T130_h0", shape(1, 130, 2, 4, 32, 32), {}, true,
      Decay::Weak, Beta::Sigmoid);
  add("GVA_B2_H2_HV4_T75", shape(2, 75, 2, 4, 32, 32), {}, false,
      Decay::Weak, Beta::Sigmoid);
  add("Varlen_GVA_h0", shape(1, 200, 2, 4, 32, 32), {0, 1, 70, 200}, true,
      Decay::Weak, Beta::Sigmoid);
  add("Varlen_noH0", shape(1, 200, 1, 1, 32, 32), {0, 1, 70, 200}, false,
      Decay::Weak, Beta::Sigmoid);
  add("Varlen_empty_h0", shape(1, 130, 1, 2, 32, 32), {0, 0, 64, 64, 129, 130},
      true, Decay::Weak, Beta::Sigmoid);
  add("BetaBinary_h0", shape(1, 130, 1, 2, 32, 32), {}, true, Decay::Weak,
      Beta::Binary);
  add("BetaZero_h0", shape(1, 65, 1, 1, 32, 32), {}, true, Decay::Weak,
      Beta::Zero);
  add("BetaOne_noDecay", shape(1, 130, 1, 1, 32, 32), {}, false, Decay::None,
      Beta::One);
  add("Unnormalized_h0", shape(1, 130, 1, 1, 32, 32), {}, true,
      Decay::LogSigmoid, Beta::Sigmoid, /*norm=*/false);
  add("DK16_DV40_h0", shape(2, 100, 1, 2, 16, 40), {}, true, Decay::Weak,
      Beta::Sigmoid);
  add("D128_h0", shape(1, 130, 1, 2, 128, 128), {}, true, Decay::Weak,
      Beta::Sigmoid);
  add("T600_noDecay_h0", shape(1, 600, 1, 1, 32, 32), {}, true, Decay::None,
      Beta::Sigmoid);
  return v;
}

class GdnFamilies : public ::testing::TestWithParam<Spec> {};

constexpr double kTol = 1e-10;

//===----------------------------------------------------------------------===//
// Equivalence tests
//===----------------------------------------------------------------------===//

TEST_P(GdnFamilies, RecurrentMatchesNaiveTranscription) {
  const Problem p = makeProblem(GetParam());
  const Result ref = naiveRecurrent(p);
  const Result got = run(p, Method::Recurrent);
  EXPECT_LE(rel(got.o, ref.o), 1e-13);
  EXPECT_LE(rel(got.fs, ref.fs), 1e-13);
  EXPECT_TRUE(allFinite(got.o.data(), got.o.size()));
  EXPECT_TRUE(allFinite(got.fs.data(), got.fs.size()));
}

TEST_P(GdnFamilies, ChunkedMatchesRecurrent) {
  const Problem p = makeProblem(GetParam());
  const Result ref = run(p, Method::Recurrent);
  for (int64_t chunk : {16, 32, 64, 128}) {
    SCOPED_TRACE("chunkSize = " + std::to_string(chunk));
    const Result got = run(p, Method::Chunked, chunk);
    EXPECT_LE(rel(got.o, ref.o), kTol);
    EXPECT_LE(rel(got.fs, ref.fs), kTol);
  }
}

TEST_P(GdnFamilies, CpSplitMatchesRecurrent) {
  const Problem p = makeProblem(GetParam());
  const Result ref = run(p, Method::Recurrent);
  for (int64_t chunk : {16, 64}) {
    for (int64_t seg : {1, 3}) {
      SCOPED_TRACE("chunkSize = " + std::to_string(chunk) +
                   ", segmentChunks = " + std::to_string(seg));
      const Result got = run(p, Method::Cp, chunk, seg);
      EXPECT_LE(rel(got.o, ref.o), kTol);
      EXPECT_LE(rel(got.fs, ref.fs), kTol);
    }
  }
}

INSTANTIATE_TEST_SUITE_P(
    Families, GdnFamilies, ::testing::ValuesIn(allSpecs()),
    [](const ::testing::TestParamInfo<Spec> &info) { return info.param.name; });

/// The 1e-10 gate is meaningful: a 1e-7 change of one input moves the output
/// well past it, so a wrong term in the chunked form could not pass.
TEST(GdnReference, GateDetectsSmallPerturbations) {
  Spec spec;
  spec.shape = shape(1, 130, 1, 1, 32, 32);
  spec.h0 = true;
  Problem p = makeProblem(spec);
  const Result ref = run(p, Method::Recurrent);
  p.g[100] += 1e-7;
  const Result chunked = run(p, Method::Chunked);
  EXPECT_GT(rel(chunked.o, ref.o), 1e-9);
  p.g[100] -= 1e-7;
  p.beta[120] *= 1 + 1e-7;
  const Result cp = run(p, Method::Cp, 16, 1);
  EXPECT_GT(rel(cp.fs, ref.fs), 1e-9);
}

TEST(GdnReference, ThreadCountDoesNotChangeBits) {
  Spec spec;
  spec.shape = shape(1, 200, 2, 4, 32, 32);
  spec.cu = {0, 1, 70, 200};
  spec.h0 = true;
  const Problem p = makeProblem(spec);
  for (Method m : {Method::Recurrent, Method::Chunked, Method::Cp}) {
    const Result one = run(p, m, 32, 2, /*threads=*/1);
    const Result three = run(p, m, 32, 2, /*threads=*/3);
    const Result hw = run(p, m, 32, 2, /*threads=*/0);
    EXPECT_EQ(0, std::memcmp(one.o.data(), three.o.data(),
                             one.o.size() * sizeof(double)));
    EXPECT_EQ(0, std::memcmp(one.fs.data(), hw.fs.data(),
                             one.fs.size() * sizeof(double)));
    EXPECT_EQ(0, std::memcmp(one.o.data(), hw.o.data(),
                             one.o.size() * sizeof(double)));
  }
}

TEST(GdnReference, NullOutputsAreSkipped) {
  Spec spec;
  spec.shape = shape(1, 70, 1, 1, 32, 32);
  const Problem p = makeProblem(spec);
  const Result ref = run(p, Method::Recurrent);
  std::vector<double> fs(ref.fs.size()), o(ref.o.size());
  EXPECT_EQ("", chunkedForward(p.shape, p.opts, p.q.data(), p.k.data(),
                               p.v.data(), p.g.data(), p.beta.data(), nullptr,
                               nullptr, fs.data()));
  EXPECT_LE(rel(fs, ref.fs), kTol);
  EXPECT_EQ("", cpSplitForward(p.shape, p.opts, p.q.data(), p.k.data(),
                               p.v.data(), p.g.data(), p.beta.data(), nullptr,
                               o.data(), nullptr, 16, 2));
  EXPECT_LE(rel(o, ref.o), kTol);
}

//===----------------------------------------------------------------------===//
// Hand-checked cases
//===----------------------------------------------------------------------===//

TEST(GdnReference, HandCheckedSingleToken) {
  // DK = 2, DV = 3, alpha = 0.5, beta = 0.25, default scale 2^-1/2.
  const GdnShape s = shape(1, 1, 1, 1, 2, 3);
  GdnOptions opts;
  opts.hasInitialState = true;
  const double q[] = {1, 2}, k[] = {0.6, 0.8}, v[] = {1, -2, 3};
  const double g[] = {std::log(0.5)}, beta[] = {0.25};
  const double h0[] = {1, 0, 2, 0, -1, 1};
  // By hand: S = 0.5 h0; S^T k = (0.3, -0.4, 1.0);
  // v' = 0.25 (v - S^T k) = (0.175, -0.4, 0.5); S1 = S + k v'^T;
  // o = scale (alpha h0^T q + (q.k) v') = scale ((0.5,-1,2) + 2.2 v').
  const double scale = 1 / std::sqrt(2.0);
  const double oRef[] = {scale * 0.885, scale * -1.88, scale * 3.1};
  const double sRef[] = {0.605, -0.24, 1.3, 0.14, -0.82, 0.9};
  for (Method m : {Method::Recurrent, Method::Chunked, Method::Cp}) {
    double o[3], fs[6];
    std::string err;
    if (m == Method::Recurrent)
      err = recurrentForward(s, opts, q, k, v, g, beta, h0, o, fs);
    else if (m == Method::Chunked)
      err = chunkedForward(s, opts, q, k, v, g, beta, h0, o, fs, 16);
    else
      err = cpSplitForward(s, opts, q, k, v, g, beta, h0, o, fs, 16, 1);
    ASSERT_EQ(err, "");
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(o[j], oRef[j], 1e-14) << "j = " << j;
    for (int i = 0; i < 6; ++i)
      EXPECT_NEAR(fs[i], sRef[i], 1e-14) << "i = " << i;
  }
  // An explicit scale replaces DK^-1/2.
  opts.scale = 2.0;
  double o[3], fs[6];
  ASSERT_EQ("", recurrentForward(s, opts, q, k, v, g, beta, h0, o, fs));
  EXPECT_NEAR(o[2], 2.0 * 3.1, 1e-14);
}

TEST(GdnReference, SingleTokenFromZeroStateIsBetaKVt) {
  const GdnShape s = shape(1, 1, 1, 1, 4, 5);
  GdnOptions opts;
  std::vector<double> q(4), k(4), v(5), o(5), fs(20);
  fillUniform(q.data(), 4, -1, 1, 7);
  fillUniform(k.data(), 4, -1, 1, 8);
  fillUniform(v.data(), 5, -1, 1, 9);
  const double g[] = {-0.7}, beta[] = {0.3};
  ASSERT_EQ("", recurrentForward(s, opts, q.data(), k.data(), v.data(), g,
                                 beta, nullptr, o.data(), fs.data()));
  double qk = 0;
  for (int i = 0; i < 4; ++i)
    qk += q[i] * k[i];
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 5; ++j)
      EXPECT_NEAR(fs[i * 5 + j], 0.3 * k[i] * v[j], 1e-15);
  for (int j = 0; j < 5; ++j)
    EXPECT_NEAR(o[j], 0.5 * 0.3 * qk * v[j], 1e-15); // scale = 4^-1/2
}

//===----------------------------------------------------------------------===//
// Per-stage intermediates
//===----------------------------------------------------------------------===//

TEST(GdnReference, ChunkLocalCumsumRestartsPerChunkAndSequence) {
  const GdnShape s = shape(1, 40, 1, 2, 16, 16);
  GdnOptions opts;
  opts.cuSeqlens = {0, 5, 40};
  std::vector<double> g(80), gamma(80);
  fillUniform(g.data(), g.size(), -1, 0, 3);
  ASSERT_EQ("", chunkLocalCumsum(s, opts, g.data(), gamma.data(), 16));
  for (int64_t hv = 0; hv < 2; ++hv) {
    double acc = 0;
    for (int64_t t = 0; t < 40; ++t) {
      // Chunk starts: 0 (seq 0), 5, 21, 37 (seq 1).
      if (t == 0 || t == 5 || t == 21 || t == 37)
        acc = 0;
      acc += g[t * 2 + hv];
      EXPECT_DOUBLE_EQ(gamma[t * 2 + hv], acc) << "t = " << t;
    }
  }
}

TEST(GdnReference, ChunkSolveAInvertsIPlusL0) {
  // Varlen with a partial chunk of 37 rows, GVA, chunk 64 (4 blocks).
  const GdnShape s = shape(1, 101, 1, 2, 32, 32);
  GdnOptions opts;
  opts.cuSeqlens = {0, 64, 101};
  std::vector<double> k(101 * 32), beta(101 * 2), a(101 * 2 * 64);
  fillUniform(k.data(), k.size(), -1, 1, 11);
  l2NormalizeRows(k.data(), 101, 32);
  fillUniform(beta.data(), beta.size(), 0, 1, 12);
  ASSERT_EQ("", chunkSolveA(s, opts, k.data(), beta.data(), a.data(), 64));
  for (int64_t hv = 0; hv < 2; ++hv) {
    for (int64_t start : {0, 64}) {
      const int64_t len = start == 0 ? 64 : 37;
      double worst = 0;
      for (int64_t i = 0; i < len; ++i) {
        const double *ai = &a[((start + i) * 2 + hv) * 64];
        for (int64_t c = 0; c < 64; ++c) {
          // ((I + L0) A)[i][c] = A[i][c] + sum_{m<i} L0[i][m] A[m][c].
          double acc = c < len ? ai[c] : 0.0;
          if (c >= len || c > i) {
            EXPECT_EQ(ai[c], 0.0);
          }
          for (int64_t m = 0; m < i && c < len; ++m) {
            double kk = 0;
            for (int64_t d = 0; d < 32; ++d)
              kk += k[(start + i) * 32 + d] * k[(start + m) * 32 + d];
            acc += beta[(start + i) * 2 + hv] * kk *
                   a[((start + m) * 2 + hv) * 64 + c];
          }
          if (c < len)
            worst = std::max(worst, std::fabs(acc - (i == c ? 1.0 : 0.0)));
        }
      }
      EXPECT_LE(worst, 1e-12) << "hv = " << hv << ", chunk at " << start;
    }
  }
}

TEST(GdnReference, CpSegmentsLayout) {
  const GdnShape s = shape(1, 200, 1, 1, 16, 16);
  GdnOptions opts;
  opts.cuSeqlens = {0, 0, 10, 200};
  std::vector<CpSegment> segs;
  ASSERT_EQ("", cpSegments(s, opts, 16, 3, segs));
  // seq 0: empty; seq 1: [0,10) -> one; seq 2: [10,200), 190 tokens, 48-token
  // segments -> [10,58) [58,106) [106,154) [154,200).
  ASSERT_EQ(segs.size(), 6u);
  EXPECT_EQ(segs[0].seq, 0);
  EXPECT_EQ(segs[0].begin, segs[0].end);
  EXPECT_TRUE(segs[0].lastOfSequence);
  EXPECT_EQ(segs[1].seq, 1);
  EXPECT_EQ(segs[1].end, 10);
  EXPECT_TRUE(segs[1].lastOfSequence);
  const int64_t bounds[][2] = {{10, 58}, {58, 106}, {106, 154}, {154, 200}};
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(segs[2 + i].seq, 2);
    EXPECT_EQ(segs[2 + i].begin, bounds[i][0]);
    EXPECT_EQ(segs[2 + i].end, bounds[i][1]);
    EXPECT_EQ(segs[2 + i].lastOfSequence, i == 3);
  }
  // A huge segmentChunks is one segment per sequence, no overflow.
  ASSERT_EQ("", cpSegments(s, opts, 16, std::numeric_limits<int64_t>::max(),
                           segs));
  EXPECT_EQ(segs.size(), 3u);
}

TEST(GdnReference, CpSummaryOfOneTokenIsItsTransition) {
  // M = alpha (I - beta k k^T), B = beta k v^T.
  const GdnShape s = shape(1, 1, 1, 1, 3, 2);
  GdnOptions opts;
  const double k[] = {0.2, -0.5, 0.4}, v[] = {1.5, -0.5}, g[] = {-0.3},
               beta[] = {0.8};
  double m[9], bs[6];
  ASSERT_EQ("", cpSummaries(s, opts, k, v, g, beta, m, bs, 16, 4));
  const double alpha = std::exp(-0.3);
  for (int i = 0; i < 3; ++i) {
    for (int j = 0; j < 3; ++j)
      EXPECT_NEAR(m[i * 3 + j], alpha * ((i == j) - 0.8 * k[i] * k[j]),
                  1e-15);
    for (int j = 0; j < 2; ++j)
      EXPECT_NEAR(bs[i * 2 + j], 0.8 * k[i] * v[j], 1e-15);
  }
}

TEST(GdnReference, CpStagesComposeToTheRecurrence) {
  // Summaries + scan give every segment's true start state: compare the
  // start of each segment with the recurrence's final state of the prefix.
  Spec spec;
  spec.shape = shape(1, 150, 1, 2, 16, 24);
  spec.h0 = true;
  Problem p = makeProblem(spec);
  std::vector<CpSegment> segs;
  ASSERT_EQ("", cpSegments(p.shape, p.opts, 16, 2, segs));
  ASSERT_EQ(segs.size(), 5u); // 10 chunks / 2
  const size_t n = segs.size();
  std::vector<double> m(n * 2 * 16 * 16), bs(n * 2 * 16 * 24),
      start(n * 2 * 16 * 24);
  ASSERT_EQ("", cpSummaries(p.shape, p.opts, p.k.data(), p.v.data(),
                            p.g.data(), p.beta.data(), m.data(), bs.data(),
                            16, 2));
  ASSERT_EQ("", cpStartStates(p.shape, p.opts, m.data(), bs.data(),
                              p.h0.data(), start.data(), 16, 2));
  for (size_t si = 0; si < n; ++si) {
    GdnShape prefix = p.shape;
    prefix.T = segs[si].begin;
    std::vector<double> fs(2 * 16 * 24);
    if (prefix.T == 0) {
      fs = p.h0;
    } else {
      // q/k/v/g/beta of the first T' tokens are a prefix of the arrays.
      ASSERT_EQ("", recurrentForward(prefix, p.opts, p.q.data(), p.k.data(),
                                     p.v.data(), p.g.data(), p.beta.data(),
                                     p.h0.data(), nullptr, fs.data()));
    }
    std::vector<double> got(start.begin() + si * 2 * 16 * 24,
                            start.begin() + (si + 1) * 2 * 16 * 24);
    EXPECT_LE(rel(got, fs), kTol) << "segment " << si;
  }
}

//===----------------------------------------------------------------------===//
// Sizing, validation, errors
//===----------------------------------------------------------------------===//

TEST(GdnReference, CpSegmentChunksFollowsTheSizingRule) {
  // docs/gdn-math.md §3 step 0 on 132 SMs (chunks of 64 tokens).
  EXPECT_EQ(cpSegmentChunks(16, 32768 / 64, 132), 32);
  EXPECT_EQ(cpSegmentChunks(16, 65536 / 64, 132), 32);
  EXPECT_EQ(cpSegmentChunks(16, 131072 / 64, 132), 64);
  EXPECT_EQ(cpSegmentChunks(32, 131072 / 64, 132), 64);
  EXPECT_EQ(cpSegmentChunks(1, 8, 132), 4);  // minimum
  EXPECT_EQ(cpSegmentChunks(16, 64, 132), 8); // 3 sqrt(7.76) = 8.36
  EXPECT_EQ(cpSegmentChunks(0, 100, 132), 4);
  EXPECT_EQ(cpSegmentChunks(16, 100, 0), 4);
}

TEST(GdnReference, ValidateAcceptsGoodShapes) {
  GdnOptions opts;
  EXPECT_EQ(validate(shape(2, 10, 2, 4, 8, 8), opts), "");
  EXPECT_EQ(numSequences(shape(2, 10, 2, 4, 8, 8), opts), 2);
  opts.cuSeqlens = {0, 0, 4, 10};
  EXPECT_EQ(validate(shape(1, 10, 1, 1, 8, 8), opts), "");
  EXPECT_EQ(numSequences(shape(1, 10, 1, 1, 8, 8), opts), 3);
  EXPECT_DOUBLE_EQ(effectiveScale(shape(1, 10, 1, 1, 64, 8), opts), 0.125);
}

TEST(GdnReference, ValidateRejectsBadShapes) {
  auto expectError = [](const GdnShape &s, std::vector<int64_t> cu,
                        const std::string &needle) {
    GdnOptions opts;
    opts.cuSeqlens = std::move(cu);
    const std::string msg = validate(s, opts);
    EXPECT_NE(msg.find(needle), std::string::npos)
        << "message '" << msg << "' lacks '" << needle << "'";
  };
  expectError(shape(1, 10, 3, 4, 8, 8), {}, "multiple of H");
  expectError(shape(0, 10, 1, 1, 8, 8), {}, "B must be positive");
  expectError(shape(1, 10, 1, 1, -8, 8), {}, "DK must be positive");
  expectError(shape(2, 10, 1, 1, 8, 8), {0, 4, 10}, "B == 1");
  expectError(shape(1, 10, 1, 1, 8, 8), {0, 4, 9}, "end at T = 10");
  expectError(shape(1, 10, 1, 1, 8, 8), {0, 6, 4, 10}, "nondecreasing");
  expectError(shape(1, 10, 1, 1, 8, 8), {1, 4, 10}, "cuSeqlens[0] must be 0");
  expectError(shape(1, 10, 1, 1, 8, 8), {0}, "at least 2 entries");
  expectError(shape(1, int64_t(1) << 50, 1, 1, int64_t(1) << 20, 8), {},
              "overflow");
}

TEST(GdnReference, ForwardsReportBadArguments) {
  Spec spec;
  spec.shape = shape(1, 20, 1, 1, 16, 16);
  Problem p = makeProblem(spec);
  std::vector<double> o(vElements(p.shape)), fs(stateElements(p.shape, p.opts));
  auto chunked = [&](int64_t chunk) {
    return chunkedForward(p.shape, p.opts, p.q.data(), p.k.data(), p.v.data(),
                          p.g.data(), p.beta.data(), nullptr, o.data(),
                          fs.data(), chunk);
  };
  EXPECT_NE(chunked(24).find("multiple of 16"), std::string::npos);
  EXPECT_NE(chunked(0).find("chunkSize"), std::string::npos);
  EXPECT_NE(chunked(2048).find("chunkSize"), std::string::npos);
  EXPECT_NE(cpSplitForward(p.shape, p.opts, p.q.data(), p.k.data(),
                           p.v.data(), p.g.data(), p.beta.data(), nullptr,
                           o.data(), fs.data(), 16, 0)
                .find("segmentChunks"),
            std::string::npos);
  p.opts.hasInitialState = true;
  EXPECT_NE(recurrentForward(p.shape, p.opts, p.q.data(), p.k.data(),
                             p.v.data(), p.g.data(), p.beta.data(), nullptr,
                             o.data(), fs.data())
                .find("h0 is null"),
            std::string::npos);
  EXPECT_NE(recurrentForward(p.shape, p.opts, nullptr, p.k.data(), p.v.data(),
                             p.g.data(), p.beta.data(), p.h0.data(), o.data(),
                             fs.data())
                .find("non-null"),
            std::string::npos);
  GdnShape bad = p.shape;
  bad.HV = 3;
  bad.H = 2;
  EXPECT_NE(recurrentForward(bad, p.opts, p.q.data(), p.k.data(), p.v.data(),
                             p.g.data(), p.beta.data(), p.h0.data(), o.data(),
                             fs.data())
                .find("multiple of H"),
            std::string::npos);
}

//===----------------------------------------------------------------------===//
// Metrics and inputs
//===----------------------------------------------------------------------===//

TEST(GdnReference, Metrics) {
  const double ref[] = {3, 4}, x[] = {3, 4.5};
  EXPECT_DOUBLE_EQ(relativeL2(x, ref, 2), 0.1);
  EXPECT_DOUBLE_EQ(maxAbsDiff(x, ref, 2), 0.5);
  const double zero[] = {0, 0};
  EXPECT_EQ(relativeL2(zero, zero, 2), 0.0);
  EXPECT_TRUE(std::isinf(relativeL2(x, zero, 2)));
  const double withNan[] = {3, std::nan("")};
  EXPECT_TRUE(std::isnan(relativeL2(withNan, ref, 2)));
  EXPECT_TRUE(std::isnan(maxAbsDiff(withNan, ref, 2)));
  EXPECT_FALSE(relativeL2(withNan, ref, 2) <= 1.0);
  EXPECT_TRUE(allFinite(x, 2));
  EXPECT_FALSE(allFinite(withNan, 2));
}

TEST(GdnReference, FillUniformIsSplitMix64) {
  // The first splitmix64 output from state 0 is 0xE220A8397B1DCDAF.
  double x[3];
  fillUniform(x, 3, 0, 1, 0);
  EXPECT_EQ(x[0], double(0xE220A8397B1DCDAFull >> 11) * 0x1.0p-53);
  double y[3];
  fillUniform(y, 3, 0, 1, 0);
  EXPECT_EQ(0, std::memcmp(x, y, sizeof x));
  std::vector<double> big(10000);
  fillUniform(big.data(), big.size(), -2, 3, 42);
  double mean = 0;
  for (double v : big) {
    EXPECT_GE(v, -2.0);
    EXPECT_LT(v, 3.0);
    mean += v / big.size();
  }
  EXPECT_NEAR(mean, 0.5, 0.05);
  std::vector<double> nrm(10000);
  fillNormal(nrm.data(), nrm.size(), 1, 2, 5);
  double m = 0, var = 0;
  for (double v : nrm)
    m += v / nrm.size();
  for (double v : nrm)
    var += (v - m) * (v - m) / nrm.size();
  EXPECT_NEAR(m, 1, 0.1);
  EXPECT_NEAR(std::sqrt(var), 2, 0.1);
}

TEST(GdnReference, LargeFillsMatchTheSequentialStream) {
  // Large arrays are filled by several threads in blocks; every value must
  // still be draw i of the single splitmix64 stream.
  auto splitmix = [](uint64_t seed, uint64_t i) {
    uint64_t z = seed + (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  };
  const size_t n = (size_t(1) << 21) + 3;
  std::vector<double> x(n);
  fillUniform(x.data(), n, -1, 1, 99);
  for (size_t i : {size_t(0), size_t(65535), size_t(65536), size_t(1000001),
                   n - 1})
    EXPECT_EQ(x[i], -1 + 2 * (double(splitmix(99, i) >> 11) * 0x1.0p-53))
        << "i = " << i;
  // fillNormal: a prefix of even length is the same as a shorter fill.
  std::vector<double> big(n), small(70000);
  fillNormal(big.data(), n, 0, 1, 5);
  fillNormal(small.data(), small.size(), 0, 1, 5);
  EXPECT_EQ(0, std::memcmp(big.data(), small.data(),
                           small.size() * sizeof(double)));
}

TEST(GdnReference, L2NormalizeRowsAndActivations) {
  double x[] = {3, 4, 0, 0, 1, 1};
  l2NormalizeRows(x, 3, 2);
  EXPECT_DOUBLE_EQ(x[0], 0.6);
  EXPECT_DOUBLE_EQ(x[1], 0.8);
  EXPECT_EQ(x[2], 0.0); // zero row untouched
  EXPECT_DOUBLE_EQ(x[4], std::sqrt(0.5));
  double s[] = {0, 1000, -1000};
  sigmoidInPlace(s, 3);
  EXPECT_DOUBLE_EQ(s[0], 0.5);
  EXPECT_DOUBLE_EQ(s[1], 1.0);
  EXPECT_DOUBLE_EQ(s[2], 0.0);
  double ls[] = {0, -1000, 1000};
  logSigmoidInPlace(ls, 3);
  EXPECT_DOUBLE_EQ(ls[0], -std::log(2.0));
  EXPECT_DOUBLE_EQ(ls[1], -1000.0);
  EXPECT_DOUBLE_EQ(ls[2], 0.0);
}

//===----------------------------------------------------------------------===//
// fp16 / bf16
//===----------------------------------------------------------------------===//

TEST(GdnReference, F16ExactValues) {
  EXPECT_EQ(toF16Bits(1.0f), 0x3C00);
  EXPECT_EQ(toF16Bits(-2.0f), 0xC000);
  EXPECT_EQ(toF16Bits(65504.0f), 0x7BFF);
  EXPECT_EQ(toF16Bits(65519.0f), 0x7BFF);
  EXPECT_EQ(toF16Bits(65520.0f), 0x7C00); // halfway to 2^16: ties to even
  EXPECT_EQ(toF16Bits(1e6f), 0x7C00);
  EXPECT_EQ(toF16Bits(-INFINITY), 0xFC00);
  EXPECT_EQ(toF16Bits(0x1.0p-14f), 0x0400); // smallest normal
  EXPECT_EQ(toF16Bits(0x1.0p-24f), 0x0001); // smallest subnormal
  EXPECT_EQ(toF16Bits(0x1.0p-25f), 0x0000); // tie -> even (0)
  EXPECT_EQ(toF16Bits(0x1.8p-25f), 0x0001);
  EXPECT_EQ(toF16Bits(0x1.8p-24f), 0x0002); // 1.5 ulp tie -> 2
  EXPECT_EQ(toF16Bits(-0x1.0p-30f), 0x8000); // underflow keeps the sign
  EXPECT_EQ(toF16Bits(-0.0f), 0x8000);
  EXPECT_EQ(toF16Bits(1.0f + 0x1.0p-11f), 0x3C00);     // tie -> even
  EXPECT_EQ(toF16Bits(1.0f + 0x1.8p-10f), 0x3C02);     // tie -> even (up)
  EXPECT_EQ(toF16Bits(1.0f + 0x1.0p-11f + 0x1.0p-20f), 0x3C01);
  EXPECT_EQ(toF16Bits(0.1f), 0x2E66);
  EXPECT_EQ(fromF16Bits(0x3C00), 1.0f);
  EXPECT_EQ(fromF16Bits(0x7BFF), 65504.0f);
  EXPECT_EQ(fromF16Bits(0x0001), 0x1.0p-24f);
  EXPECT_EQ(fromF16Bits(0x03FF), 0x1.ff8p-15f);
  EXPECT_TRUE(std::isinf(fromF16Bits(0x7C00)));
  EXPECT_TRUE(std::isnan(fromF16Bits(0x7E00)));
  EXPECT_TRUE(std::isnan(fromF16Bits(0x7C01)));
  const uint16_t nanBits = toF16Bits(std::nanf(""));
  EXPECT_EQ(nanBits & 0x7C00, 0x7C00);
  EXPECT_NE(nanBits & 0x03FF, 0);
  EXPECT_EQ(roundToF16(65504.0), 65504.0);
  EXPECT_TRUE(std::isinf(roundToF16(65520.0)));
  EXPECT_EQ(roundToF16(1e-9), 0.0);
  EXPECT_TRUE(std::isnan(roundToF16(std::nan(""))));
  // Direct double rounding, no double rounding through float:
  // 1 + 2^-11 + 2^-40 is above the tie, so it rounds up in one step.
  EXPECT_EQ(roundToF16(1.0 + 0x1.0p-11 + 0x1.0p-40), 1.0 + 0x1.0p-10);
  EXPECT_EQ(f16BitsFromDouble(1.0 + 0x1.0p-11 + 0x1.0p-40), 0x3C01);
}

TEST(GdnReference, F16RoundTripsEveryBitPattern) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const float f = fromF16Bits(h);
    if (std::isnan(f)) {
      EXPECT_TRUE(std::isnan(roundToF16(f)));
      // Quiet NaNs keep their payload.
      if (h & 0x0200) {
        EXPECT_EQ(toF16Bits(f), h);
      }
      continue;
    }
    ASSERT_EQ(toF16Bits(f), h) << std::hex << b;
    ASSERT_EQ(f16BitsFromDouble(f), h) << std::hex << b;
    ASSERT_EQ(roundToF16(f), double(f)) << std::hex << b;
  }
}

TEST(GdnReference, F16AgreesWithRoundToF16OnRandomValues) {
  std::vector<double> x(200000);
  fillUniform(x.data(), x.size(), -1, 1, 77);
  for (size_t i = 0; i < x.size(); ++i) {
    // Spread over many binades, including subnormals and overflow.
    const double v = std::ldexp(x[i], static_cast<int>(i % 48) - 30);
    const float f = static_cast<float>(v);
    const double viaBits = fromF16Bits(toF16Bits(f));
    ASSERT_EQ(viaBits, roundToF16(double(f))) << v;
    ASSERT_EQ(double(fromF16Bits(f16BitsFromDouble(v))), roundToF16(v)) << v;
#ifdef __FLT16_MAX__
    // Cross-check against the compiler's own conversions.
    const _Float16 hf = static_cast<_Float16>(f);
    uint16_t hb;
    std::memcpy(&hb, &hf, sizeof hb);
    ASSERT_EQ(toF16Bits(f), hb) << v;
    const _Float16 hd = static_cast<_Float16>(v);
    ASSERT_EQ(roundToF16(v), double(hd)) << v;
#endif
  }
}

TEST(GdnReference, BF16ExactValues) {
  EXPECT_EQ(toBF16Bits(1.0f), 0x3F80);
  EXPECT_EQ(toBF16Bits(-2.0f), 0xC000);
  EXPECT_EQ(toBF16Bits(1.0f + 0x1.0p-8f), 0x3F80); // tie -> even
  EXPECT_EQ(toBF16Bits(1.0f + 0x1.8p-7f), 0x3F82); // tie -> even (up)
  EXPECT_EQ(toBF16Bits(1.0f + 0x1.0p-8f + 0x1.0p-20f), 0x3F81);
  EXPECT_EQ(toBF16Bits(0.1f), 0x3DCD);
  EXPECT_EQ(toBF16Bits(std::numeric_limits<float>::max()), 0x7F80);
  EXPECT_EQ(toBF16Bits(INFINITY), 0x7F80);
  EXPECT_EQ(toBF16Bits(0x1.0p-133f), 0x0001); // smallest bf16 subnormal
  EXPECT_EQ(toBF16Bits(0x1.0p-134f), 0x0000); // tie -> even
  EXPECT_EQ(toBF16Bits(-0.0f), 0x8000);
  EXPECT_TRUE(std::isnan(fromBF16Bits(toBF16Bits(std::nanf("")))));
  EXPECT_EQ(fromBF16Bits(0x3F80), 1.0f);
  EXPECT_EQ(fromBF16Bits(0x7F7F), 0x1.fep127f);
  EXPECT_EQ(roundToBF16(0x1.fep127), 0x1.fep127);
  EXPECT_TRUE(std::isinf(roundToBF16(0x1.ffp127))); // tie at max -> inf
  EXPECT_EQ(roundToBF16(0x1.0p-133), 0x1.0p-133);
  EXPECT_EQ(bf16BitsFromDouble(1.0 + 0x1.0p-8 + 0x1.0p-40), 0x3F81);
}

TEST(GdnReference, BF16RoundTripsAndAgreesWithRoundToBF16) {
  for (uint32_t b = 0; b < 0x10000; ++b) {
    const uint16_t h = static_cast<uint16_t>(b);
    const float f = fromBF16Bits(h);
    if (std::isnan(f))
      continue;
    ASSERT_EQ(toBF16Bits(f), h) << std::hex << b;
    ASSERT_EQ(bf16BitsFromDouble(f), h) << std::hex << b;
  }
  std::vector<double> x(200000);
  fillUniform(x.data(), x.size(), -1, 1, 78);
  for (size_t i = 0; i < x.size(); ++i) {
    const double v = std::ldexp(x[i], static_cast<int>(i % 300) - 150);
    const float f = static_cast<float>(v);
    // Integer-trick float path vs the generic double path.
    ASSERT_EQ(double(fromBF16Bits(toBF16Bits(f))), roundToBF16(double(f)))
        << v;
    ASSERT_EQ(double(fromBF16Bits(bf16BitsFromDouble(v))), roundToBF16(v))
        << v;
  }
}

// The CP scan's fp32-accurate product on bf16 tensor cores
// (kernels/gdn_prefill/gdn_prefill.mlir.in, gdn_cp_scan): a float x is split
// as the kernels do, in fp32 arithmetic with round-to-nearest bf16
// conversions, into a = bf16(x), b = bf16(x - a), c = bf16((x - a) - b);
// M h is then the fp32 sum of the six products of parts whose levels add
// up to at most 2. This emulates that on the host: the split is exact for
// normal values, and the product is as accurate as an fp32 GEMM, while one
// bf16 product is not.
float bf16Round(float x) { return fromBF16Bits(toBF16Bits(x)); }

void splitBf16x3(float x, float parts[3]) {
  parts[0] = bf16Round(x);
  const float r1 = x - parts[0];
  parts[1] = bf16Round(r1);
  parts[2] = bf16Round(r1 - parts[1]);
}

TEST(GdnReference, CpScanBf16x3SplitIsExact) {
  std::vector<double> x(100000);
  fillUniform(x.data(), x.size(), -1, 1, 91);
  for (size_t i = 0; i < x.size(); ++i) {
    const float f =
        static_cast<float>(std::ldexp(x[i], static_cast<int>(i % 200) - 100));
    float p[3];
    splitBf16x3(f, p);
    ASSERT_EQ(double(p[0]) + double(p[1]) + double(p[2]), double(f)) << f;
  }
}

TEST(GdnReference, CpScanBf16x3ProductMatchesFp32) {
  const int K = 128, N = 16;
  // M like a chunk-product transition (entries spanning decades), h like a
  // state (entries of both signs and mixed scales).
  std::vector<double> mu(K * K), hu(K * N), mexp(K * K), hexp(K * N);
  fillUniform(mu.data(), mu.size(), -1, 1, 92);
  fillUniform(hu.data(), hu.size(), -1, 1, 93);
  fillUniform(mexp.data(), mexp.size(), -12, 0, 94);
  fillUniform(hexp.data(), hexp.size(), -6, 6, 95);
  std::vector<float> M(K * K), h(K * N);
  for (int i = 0; i < K * K; ++i)
    M[i] = static_cast<float>(mu[i] * std::exp(mexp[i]));
  for (int i = 0; i < K * N; ++i)
    h[i] = static_cast<float>(hu[i] * std::exp(hexp[i]));
  std::vector<float> Mp(3 * K * K), hp(3 * K * N);
  for (int i = 0; i < K * K; ++i) {
    float p[3];
    splitBf16x3(M[i], p);
    for (int l = 0; l < 3; ++l)
      Mp[l * K * K + i] = p[l];
  }
  for (int i = 0; i < K * N; ++i) {
    float p[3];
    splitBf16x3(h[i], p);
    for (int l = 0; l < 3; ++l)
      hp[l * K * N + i] = p[l];
  }
  // The kernel's six products, largest parts first, accumulated in fp32.
  const int pairs[6][2] = {{0, 0}, {0, 1}, {1, 0}, {0, 2}, {1, 1}, {2, 0}};
  double err6 = 0, err1 = 0, norm = 0;
  for (int i = 0; i < K; ++i)
    for (int j = 0; j < N; ++j) {
      double exact = 0;
      float acc6 = 0, acc1 = 0;
      for (int k = 0; k < K; ++k)
        exact += double(M[i * K + k]) * double(h[k * N + j]);
      for (const auto &pr : pairs)
        for (int k = 0; k < K; ++k)
          acc6 += Mp[pr[0] * K * K + i * K + k] * hp[pr[1] * K * N + k * N + j];
      for (int k = 0; k < K; ++k)
        acc1 += Mp[i * K + k] * hp[k * N + j];
      err6 += (acc6 - exact) * (acc6 - exact);
      err1 += (acc1 - exact) * (acc1 - exact);
      norm += exact * exact;
    }
  const double rel6 = std::sqrt(err6 / norm), rel1 = std::sqrt(err1 / norm);
  EXPECT_LT(rel6, 1e-6) << "six bf16 products";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3e / %.3e", rel6, rel1);
  RecordProperty("rel_l2_six_products_vs_one", buf);
  EXPECT_GT(rel1, 1e-3) << "one bf16 product (hi parts only)";
}

} // namespace
