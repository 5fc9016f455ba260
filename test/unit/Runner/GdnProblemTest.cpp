//===- GdnProblemTest.cpp - GDN problem, floor model, inputs, .npy I/O ----===//
//
// Host-only parts of the gdn_prefill check: the scalars and floor of a
// problem (against docs/gdn-math.md §5), the input families, the BHTD -> BTHD
// transposition, and loading/saving inputs as .npy with shape validation.
//
//===----------------------------------------------------------------------===//

#include "GdnDriver.h"
#include "GdnInputs.h"
#include "GdnProblem.h"

#include "gdn/Reference/GdnReference.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <unistd.h>

using namespace gdn::run;

namespace {

using test::TempDir;

GdnProblem problem(int64_t B, int64_t T, int64_t H, int64_t HV) {
  GdnProblem p;
  p.B = B;
  p.T = T;
  p.H = H;
  p.HV = HV;
  p.scale = 0.08838834764831845;
  return p;
}

const std::vector<int64_t> kFqSeqlens = {0, 410, 841, 1135, 2126, 2512, 4096};

} // namespace

//===----------------------------------------------------------------------===//
// Problem
//===----------------------------------------------------------------------===//

TEST(GdnProblemTest, FloorMatchesGdnMd) {
  // docs/gdn-math.md §5.2, anchor floors in ms, B = 1 except 8x4K, H = HV.
  const struct {
    int64_t B, T, H;
    double floorMs;
  } rows[] = {{1, 32768, 16, 0.128},
              {1, 65536, 16, 0.257},
              {1, 131072, 16, 0.513},
              {1, 131072, 32, 1.026},
              {8, 4096, 16, 0.130}};
  for (const auto &r : rows) {
    GdnCost c = gdnCost(problem(r.B, r.T, r.H, r.H));
    EXPECT_NEAR(c.floorSeconds * 1e3, r.floorMs, 0.01 * r.floorMs)
        << r.B << "x" << r.T << " H" << r.H;
  }
  // 128K/H16 in detail: bytes of §5 and 180224 FLOP per token and head.
  GdnCost c = gdnCost(problem(1, 131072, 16, 16));
  EXPECT_DOUBLE_EQ(c.flop, 131072.0 * 16 * 180224);
  EXPECT_DOUBLE_EQ(c.bytes, 4.0 * 131072 * 16 * 128 * 2 + 131072.0 * 16 * 6 +
                                16.0 * 128 * 128 * 4);
  EXPECT_NEAR(c.bytes / (131072.0 * 16), 1030, 1); // "~1,030 B per token-head"
  // GVA: q, k at H heads; v, o, g, beta, state at HV heads.
  GdnCost gva = gdnCost(problem(1, 1024, 2, 8));
  EXPECT_DOUBLE_EQ(gva.bytes, 2.0 * 1024 * 2 * 128 * 2 +
                                  2.0 * 1024 * 8 * 128 * 2 + 1024.0 * 8 * 6 +
                                  8.0 * 128 * 128 * 4);
  // An initial state is read too; f32 beta is 4 bytes.
  GdnProblem h0 = problem(1, 1024, 2, 8);
  h0.hasH0 = true;
  h0.betaType = DType::F32;
  EXPECT_DOUBLE_EQ(gdnCost(h0).bytes,
                   gva.bytes + 8.0 * 128 * 128 * 4 + 1024.0 * 8 * 2);
}

TEST(GdnProblemTest, Scalars) {
  GdnProblem p = problem(3, 1000, 4, 8);
  p.hasH0 = true;
  ExprVariables s = p.scalars();
  EXPECT_EQ(s.at("B"), 3);
  EXPECT_EQ(s.at("T"), 1000);
  EXPECT_EQ(s.at("H"), 4);
  EXPECT_EQ(s.at("HV"), 8);
  EXPECT_EQ(s.at("DK"), 128);
  EXPECT_EQ(s.at("DV"), 128);
  EXPECT_EQ(s.at("N"), 3);
  EXPECT_EQ(s.at("NT"), 3 * 16);
  EXPECT_EQ(s.at("has_h0"), 1);
  EXPECT_EQ(s.at("varlen"), 0);
  EXPECT_EQ(s.at("NS"), 3); // direct path: one segment per sequence
  EXPECT_EQ(s.at("gate_in_kernel"), 0);
  EXPECT_EQ(s.at("beta_sigmoid"), 0);
  EXPECT_EQ(s.at("neg_eigval"), 0);
  EXPECT_EQ(s.at("qk_l2norm"), 0);
  EXPECT_EQ(s.at("state_v_first"), 0);
  EXPECT_EQ(s.size(), 16u);
  p.stateVFirst = true;
  EXPECT_EQ(p.scalars().at("state_v_first"), 1);
  p.stateVFirst = false;
  // CP: 16 chunks per sequence in segments of 5 chunks -> 4 each.
  p.cpChunks = 5;
  EXPECT_EQ(p.scalars().at("NS"), 12);
  EXPECT_EQ(p.cpSegments().bounds,
            (std::vector<int64_t>{0, 320, 640, 960, 1000, 1320, 1640, 1960,
                                  2000, 2320, 2640, 2960, 3000}));
  EXPECT_EQ(p.deviceCuSeqlens(), (std::vector<int64_t>{0, 1000, 2000, 3000}));
  EXPECT_EQ(p.shapeText(), "3x1000x4/8");

  GdnProblem v = problem(1, 4096, 16, 16);
  v.cuSeqlens = kFqSeqlens;
  ASSERT_TRUE(validateGdnProblem(v).ok());
  EXPECT_EQ(v.numSequences(), 6);
  // Lengths 410, 431, 294, 991, 386, 1584 -> 7 + 7 + 5 + 16 + 7 + 25 chunks.
  EXPECT_EQ(v.totalChunks(), 67);
  EXPECT_EQ(v.scalars().at("varlen"), 1);
  EXPECT_EQ(v.deviceCuSeqlens(), kFqSeqlens);
  EXPECT_EQ(v.shapeText(), "1x4096x16/16:N6");
  EXPECT_EQ(v.stateCount(), 6 * 16 * 128 * 128);
  // Zero-length sequences have no chunks.
  v.cuSeqlens = {0, 0, 1, 1, 4096};
  EXPECT_EQ(v.totalChunks(), 1 + 64);
}

TEST(GdnProblemTest, Validation) {
  auto error = [](const GdnProblem &p) {
    Status s = validateGdnProblem(p);
    EXPECT_EQ(s.code(), ExitCode::BadInput);
    return s.message();
  };
  EXPECT_TRUE(validateGdnProblem(problem(2, 75, 2, 8)).ok());
  EXPECT_CONTAINS(error(problem(1, 64, 16, 24)),
                  "HV = 24 value heads is not a multiple of H = 16");
  EXPECT_CONTAINS(error(problem(0, 64, 16, 16)), "B = 0 is out of range");
  EXPECT_CONTAINS(error(problem(1, 0, 16, 16)), "T = 0 is out of range");
  GdnProblem dk = problem(1, 64, 1, 1);
  dk.DK = 64;
  EXPECT_CONTAINS(error(dk), "compiled for DK = DV = 128 only");
  GdnProblem v = problem(2, 4096, 1, 1);
  v.cuSeqlens = kFqSeqlens;
  EXPECT_CONTAINS(error(v), "varlen (cu_seqlens) requires B = 1, got B = 2");
  v.B = 1;
  v.cuSeqlens = {5, 4096};
  EXPECT_CONTAINS(error(v), "cu_seqlens must start at 0, got 5");
  v.cuSeqlens = {0, 500, 400, 4096};
  EXPECT_CONTAINS(error(v), "cu_seqlens must be nondecreasing: cu_seqlens[2] "
                            "= 400 < cu_seqlens[1] = 500");
  v.cuSeqlens = {0, 4000};
  EXPECT_CONTAINS(error(v), "cu_seqlens must end at T = 4096, got 4000");
  v.cuSeqlens = {0};
  EXPECT_CONTAINS(error(v), "at least two entries");
  GdnProblem s = problem(1, 64, 1, 1);
  s.scale = 0;
  EXPECT_CONTAINS(error(s), "must be positive");
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

TEST(GdnInputsTest, Transposition) {
  // [B=2, heads=3, T=4, row=2] int16 values encode their head-major index.
  const int64_t B = 2, heads = 3, T = 4, row = 2;
  std::vector<int16_t> src(B * heads * T * row), dst(src.size()),
      back(src.size());
  for (size_t i = 0; i < src.size(); ++i)
    src[i] = static_cast<int16_t>(i);
  transposeHeads(reinterpret_cast<const unsigned char *>(src.data()),
                 reinterpret_cast<unsigned char *>(dst.data()), B, heads, T,
                 row * sizeof(int16_t), /*toHeadMajor=*/false);
  for (int64_t b = 0; b < B; ++b)
    for (int64_t t = 0; t < T; ++t)
      for (int64_t h = 0; h < heads; ++h)
        for (int64_t d = 0; d < row; ++d)
          EXPECT_EQ(dst[((b * T + t) * heads + h) * row + d],
                    src[((b * heads + h) * T + t) * row + d]);
  transposeHeads(reinterpret_cast<const unsigned char *>(dst.data()),
                 reinterpret_cast<unsigned char *>(back.data()), B, heads, T,
                 row * sizeof(int16_t), /*toHeadMajor=*/true);
  EXPECT_EQ(back, src);
  // 3-D g/beta: one element per row.
  std::vector<float> g = {0, 1, 2, 3, 4, 5}, gt(6); // [1, heads=2, T=3]
  transposeHeads(reinterpret_cast<const unsigned char *>(g.data()),
                 reinterpret_cast<unsigned char *>(gt.data()), 1, 2, 3,
                 sizeof(float), false);
  EXPECT_EQ(gt, (std::vector<float>{0, 3, 1, 4, 2, 5}));
}

TEST(GdnInputsTest, FamiliesAndNames) {
  for (const char *name : {"weak", "nodecay", "strong", "fqstrong", "mixed",
                           "beta0", "beta1", "unnorm", "bigkey",
                           "collinear", "zerokey"}) {
    GdnFamily f;
    ASSERT_TRUE(parseGdnFamily(name, f)) << name;
    EXPECT_STREQ(gdnFamilyName(f), name);
    EXPECT_CONTAINS(gdnFamilyList(), name);
  }
  GdnFamily f;
  EXPECT_FALSE(parseGdnFamily("Weak", f));
}

TEST(GdnInputsTest, GeneratedInputs) {
  GdnProblem p = problem(2, 70, 2, 4);
  p.hasH0 = true;
  auto gen = [&](GdnFamily family, uint64_t seed) {
    GdnInputs in;
    generateGdnInputs(p, family, seed, /*keepValues=*/true, in);
    return in;
  };
  GdnInputs a = gen(GdnFamily::Weak, 7), b = gen(GdnFamily::Weak, 7),
            c = gen(GdnFamily::Weak, 8);
  EXPECT_EQ(a.q.bytes, b.q.bytes);
  EXPECT_EQ(a.g.bytes, b.g.bytes);
  EXPECT_EQ(a.h0.bytes, b.h0.bytes);
  EXPECT_NE(a.q.bytes, c.q.bytes);
  EXPECT_NE(a.v.bytes, c.v.bytes);
  ASSERT_EQ(a.q.count, static_cast<size_t>(p.qkCount()));
  ASSERT_EQ(a.v.count, static_cast<size_t>(p.vCount()));
  ASSERT_EQ(a.g.count, static_cast<size_t>(p.gCount()));
  ASSERT_EQ(a.h0.count, static_cast<size_t>(p.stateCount()));
  EXPECT_EQ(a.q.type, DType::F16);
  EXPECT_EQ(a.q.bytes.size(), a.q.count * 2);
  EXPECT_EQ(a.g.type, DType::F32);
  EXPECT_EQ(a.beta.type, DType::F16);
  // The values are exactly the bytes' values.
  for (size_t i = 0; i < a.q.count; i += 97)
    EXPECT_EQ(a.q.values[i], hostElement(DType::F16, a.q.bytes.data(), i));
  for (size_t i = 0; i < a.g.count; ++i) {
    EXPECT_EQ(a.g.values[i], hostElement(DType::F32, a.g.bytes.data(), i));
    EXPECT_LE(a.g.values[i], 0.0);
    EXPECT_GE(a.g.values[i], -0.02);
  }
  // q and k rows have unit norm up to f16 rounding.
  for (int64_t r = 0; r < p.B * p.T * p.H; r += 13) {
    double qq = 0, kk = 0;
    for (int d = 0; d < 128; ++d) {
      qq += a.q.values[r * 128 + d] * a.q.values[r * 128 + d];
      kk += a.k.values[r * 128 + d] * a.k.values[r * 128 + d];
    }
    EXPECT_NEAR(qq, 1.0, 2e-3);
    EXPECT_NEAR(kk, 1.0, 2e-3);
  }
  for (double x : a.beta.values) {
    EXPECT_GT(x, 0.0);
    EXPECT_LT(x, 1.0);
  }

  GdnInputs nd = gen(GdnFamily::NoDecay, 7);
  for (double x : nd.g.values)
    EXPECT_EQ(x, 0.0);
  EXPECT_EQ(nd.q.bytes, a.q.bytes); // families change only their tensor
  GdnInputs st = gen(GdnFamily::Strong, 7);
  double minG = 0;
  for (double x : st.g.values)
    minG = std::min(minG, x);
  EXPECT_LT(minG, -0.9);
  GdnInputs fq = gen(GdnFamily::FqStrong, 7);
  for (double x : fq.g.values)
    EXPECT_LT(x, -0.5); // -16 softplus(0.5 z + 1) is strong for any z here
  GdnInputs mixed = gen(GdnFamily::Mixed, 7);
  double last = 0;
  for (size_t i = 0; i < mixed.g.count; ++i) {
    if (i % p.HV == 0) {
      EXPECT_EQ(mixed.g.values[i], 0.0); // A_0 = 0
    }
    if (i % p.HV == static_cast<size_t>(p.HV - 1))
      last += mixed.g.values[i];
  }
  EXPECT_LT(last / (p.B * p.T), -0.4); // A_last = 16: mean -E[softplus(z)]
  for (double x : gen(GdnFamily::Beta0, 7).beta.values)
    EXPECT_EQ(x, 0.0);
  for (double x : gen(GdnFamily::Beta1, 7).beta.values)
    EXPECT_EQ(x, 1.0);
  GdnInputs un = gen(GdnFamily::Unnorm, 7);
  EXPECT_EQ(un.q.bytes, a.q.bytes);
  double kk = 0;
  for (int d = 0; d < 128; ++d)
    kk += un.k.values[d] * un.k.values[d];
  EXPECT_NEAR(kk, 0.01 * 128, 0.6); // 0.1 N(0,1): E||k||^2 = 1.28

  // collinear: unit keys, one direction per key head (rows [b, t, h], H =
  // 2: rows of one parity are one head), beta = 1, g = 0.
  GdnInputs co = gen(GdnFamily::Collinear, 7);
  EXPECT_EQ(co.q.bytes, a.q.bytes);
  for (double x : co.beta.values)
    EXPECT_EQ(x, 1.0);
  for (double x : co.g.values)
    EXPECT_EQ(x, 0.0);
  auto dot = [&](int64_t r, int64_t s) {
    double sum = 0;
    for (int d = 0; d < 128; ++d)
      sum += co.k.values[r * 128 + d] * co.k.values[s * 128 + d];
    return sum;
  };
  const int64_t rows = p.B * p.T * p.H;
  for (int64_t r = 0; r < rows; r += 7) {
    EXPECT_NEAR(dot(r, r), 1.0, 2e-3);
    EXPECT_GT(dot(r, (r + 22) % rows), 0.99);        // the same head
    EXPECT_LT(std::fabs(dot(r, r ^ 1)), 0.5);        // the other head
  }

  // zerokey: every head's key row of tokens t mod 16 = 5 (of each sequence:
  // T = 70, so t = 5, 21, 37, 53, 69) is zero, the others unit; v = 100
  // N(0,1); q, g and beta as weak's.
  GdnInputs zk = gen(GdnFamily::ZeroKey, 7);
  EXPECT_EQ(zk.q.bytes, a.q.bytes);
  EXPECT_EQ(zk.g.bytes, a.g.bytes);
  EXPECT_EQ(zk.beta.bytes, a.beta.bytes);
  int64_t zeroRows = 0;
  for (int64_t r = 0; r < rows; ++r) {
    double norm = 0;
    for (int d = 0; d < 128; ++d)
      norm += zk.k.values[r * 128 + d] * zk.k.values[r * 128 + d];
    const bool zero = (r / p.H) % p.T % 16 == 5;
    zeroRows += zero;
    if (zero)
      EXPECT_EQ(norm, 0.0) << r;
    else
      EXPECT_NEAR(norm, 1.0, 2e-3) << r;
  }
  EXPECT_EQ(zeroRows, p.B * 5 * p.H);
  double vv = 0;
  for (double x : zk.v.values)
    vv += x * x;
  EXPECT_NEAR(std::sqrt(vv / zk.v.count), 100.0, 5.0);

  // bf16 and f32 beta formats; without keepValues only bytes remain.
  p.dtype = DType::BF16;
  p.betaType = DType::F32;
  p.hasH0 = false;
  GdnInputs bf;
  generateGdnInputs(p, GdnFamily::Weak, 7, /*keepValues=*/false, bf);
  EXPECT_EQ(bf.q.type, DType::BF16);
  EXPECT_TRUE(bf.q.values.empty());
  EXPECT_EQ(bf.beta.bytes.size(), static_cast<size_t>(p.gCount()) * 4);
  EXPECT_EQ(bf.h0.count, 0u);
}

TEST(GdnInputsTest, FastRoundingMatchesTheOracle) {
  // Random doubles over the whole 16-bit ranges, plus exact ties and
  // near-ties of both formats, subnormals, overflow and specials.
  std::vector<double> xs = {0.0, -0.0, 1.0, 65504.0, 65519.99, 65520.0,
                            1e6, -1e300, 1e-8, 6e-8, 3e-8, 2.9802322387695312e-08,
                            1e-40, 1e-45, std::nan(""), INFINITY, -INFINITY};
  std::vector<double> r(200000);
  gdn::ref::fillNormal(r.data(), r.size(), 0.0, 1.0, 11);
  for (size_t i = 0; i < r.size(); ++i) {
    double scale = std::ldexp(1.0, static_cast<int>(i % 80) - 40);
    xs.push_back(r[i] * scale);
  }
  for (uint32_t bits = 0; bits < 0x7c00; bits += 7) {
    // Midpoints between neighbouring f16 / bf16 values, and 1 ulp around.
    double lo = gdn::ref::fromF16Bits(static_cast<uint16_t>(bits));
    double hi = gdn::ref::fromF16Bits(static_cast<uint16_t>(bits + 1));
    double mid = 0.5 * (lo + hi);
    xs.insert(xs.end(), {mid, std::nextafter(mid, 0.0),
                         std::nextafter(mid, 1e9), -mid});
    double blo = gdn::ref::fromBF16Bits(static_cast<uint16_t>(bits * 2));
    double bhi = gdn::ref::fromBF16Bits(static_cast<uint16_t>(bits * 2 + 1));
    double bmid = 0.5 * (blo + bhi);
    xs.insert(xs.end(), {bmid, std::nextafter(bmid, 0.0),
                         std::nextafter(bmid, 1e300), -bmid});
  }
  for (double x : xs) {
    if (std::isnan(x)) { // any NaN will do
      EXPECT_TRUE(std::isnan(gdn::ref::fromF16Bits(
          roundDoubleTo16(DType::F16, x))));
      EXPECT_TRUE(std::isnan(gdn::ref::fromBF16Bits(
          roundDoubleTo16(DType::BF16, x))));
      continue;
    }
    EXPECT_EQ(roundDoubleTo16(DType::F16, x), gdn::ref::f16BitsFromDouble(x))
        << x;
    EXPECT_EQ(roundDoubleTo16(DType::BF16, x),
              gdn::ref::bf16BitsFromDouble(x))
        << x;
  }
}

TEST(GdnInputsTest, EncodeCountsRoundedValues) {
  HostArray a;
  EXPECT_EQ(encodeHostArray(DType::F16, {1.0, 0.1, 65504.0, 1e6}, true, a),
            2u); // 0.1 rounds, 1e6 overflows to inf
  EXPECT_EQ(a.values[0], 1.0);
  EXPECT_TRUE(std::isinf(a.values[3]));
  EXPECT_EQ(encodeHostArray(DType::F32, {0.5, 0.1}, false, a), 1u);
  EXPECT_TRUE(a.values.empty());
  EXPECT_EQ(a.bytes.size(), 8u);
  EXPECT_EQ(encodeHostArray(DType::BF16, {std::nan(""), 2.0}, true, a), 0u);
  EXPECT_TRUE(std::isnan(a.values[0]));
}

//===----------------------------------------------------------------------===//
// .npy load / save
//===----------------------------------------------------------------------===//

namespace {

/// Saves generated inputs of `p` to `dir` in `layout` (as --save does).
void saveInputs(const GdnProblem &p, const GdnInputs &in,
                const std::string &dir, GdnLayout layout) {
  const NpyType dt = npyTypeFor(p.dtype);
  ASSERT_TRUE(saveGdnTensor(dir, "q", dt, in.q.bytes.data(), p.B, p.T, p.H,
                            128, layout)
                  .ok());
  ASSERT_TRUE(saveGdnTensor(dir, "k", dt, in.k.bytes.data(), p.B, p.T, p.H,
                            128, layout)
                  .ok());
  ASSERT_TRUE(saveGdnTensor(dir, "v", dt, in.v.bytes.data(), p.B, p.T, p.HV,
                            128, layout)
                  .ok());
  ASSERT_TRUE(saveGdnTensor(dir, "g", npyTypeFor(p.gType), in.g.bytes.data(),
                            p.B, p.T, p.HV, 0, layout)
                  .ok());
  ASSERT_TRUE(saveGdnTensor(dir, "beta", npyTypeFor(p.betaType),
                            in.beta.bytes.data(), p.B, p.T, p.HV, 0, layout)
                  .ok());
  if (p.hasH0) {
    ASSERT_TRUE(writeNpy(dir + "/h0.npy", NpyType::F32,
                         {p.numSequences(), p.HV, 128, 128},
                         in.h0.bytes.data(), in.h0.bytes.size())
                    .ok());
  }
}

std::string inspectError(const std::string &dir, GdnLayout layout,
                         bool bf16 = false) {
  GdnProblem p;
  GdnLoadPlan plan;
  Status s = inspectGdnInputs(dir, layout, bf16, p, plan);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  return s.message();
}

} // namespace

TEST(GdnInputsTest, SaveLoadRoundTripBothLayouts) {
  for (GdnLayout layout : {GdnLayout::BTHD, GdnLayout::BHTD}) {
    for (DType dtype : {DType::F16, DType::BF16}) {
      TempDir dir;
      GdnProblem p = problem(2, 37, 2, 4);
      p.dtype = dtype;
      p.betaType = dtype;
      p.hasH0 = true;
      GdnInputs in;
      generateGdnInputs(p, GdnFamily::Mixed, 3, true, in);
      saveInputs(p, in, dir.path, layout);

      // The saved head-major file really is head-major.
      if (layout == GdnLayout::BHTD) {
        NpyArray q;
        ASSERT_TRUE(readNpy(dir.file("q.npy"), q).ok());
        EXPECT_EQ(q.header.shape, (std::vector<int64_t>{2, 2, 37, 128}));
        // q[b=1, h=1, t=5, d=3] == canonical q[b=1, t=5, h=1, d=3]
        EXPECT_EQ(std::memcmp(&q.data[2 * (((1 * 2 + 1) * 37 + 5) * 128 + 3)],
                              &in.q.bytes[2 * (((1 * 37 + 5) * 2 + 1) * 128 +
                                               3)],
                              2),
                  0);
      }

      GdnProblem loaded;
      loaded.dtype = dtype;
      loaded.betaType = dtype;
      loaded.scale = p.scale;
      GdnLoadPlan plan;
      Status s = inspectGdnInputs(dir.path, layout, dtype == DType::BF16,
                                  loaded, plan);
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_EQ(loaded.B, 2);
      EXPECT_EQ(loaded.T, 37);
      EXPECT_EQ(loaded.H, 2);
      EXPECT_EQ(loaded.HV, 4);
      EXPECT_TRUE(loaded.hasH0);
      EXPECT_FALSE(loaded.varlen());
      EXPECT_TRUE(plan.q16);
      EXPECT_EQ(plan.qDtype, dtype);
      GdnInputs back;
      std::vector<std::string> rounded;
      s = loadGdnInputs(plan, loaded, true, back, rounded);
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_TRUE(rounded.empty());
      EXPECT_EQ(back.q.bytes, in.q.bytes);
      EXPECT_EQ(back.k.bytes, in.k.bytes);
      EXPECT_EQ(back.v.bytes, in.v.bytes);
      EXPECT_EQ(back.g.bytes, in.g.bytes);
      EXPECT_EQ(back.beta.bytes, in.beta.bytes);
      EXPECT_EQ(back.h0.bytes, in.h0.bytes);
      EXPECT_EQ(back.v.values, in.v.values);
    }
  }
}

TEST(GdnInputsTest, LoadConvertsWiderFloatsWithWarning) {
  TempDir dir;
  const int64_t B = 1, T = 3, H = 1;
  std::vector<double> q(B * T * H * 128, 0.1); // not representable in f16
  std::vector<float> gate(B * T * H, -0.5f), beta(B * T * H, 0.5f);
  for (const char *name : {"q", "k", "v"})
    ASSERT_TRUE(writeNpy(dir.file(std::string(name) + ".npy"), NpyType::F64,
                         {B, T, H, 128}, q.data(), q.size() * 8)
                    .ok());
  ASSERT_TRUE(writeNpy(dir.file("g.npy"), NpyType::F32, {B, T, H},
                       gate.data(), gate.size() * 4)
                  .ok());
  ASSERT_TRUE(writeNpy(dir.file("beta.npy"), NpyType::F32, {B, T, H},
                       beta.data(), beta.size() * 4)
                  .ok());
  std::vector<int64_t> cu = {0, 1, 3};
  ASSERT_TRUE(writeNpy(dir.file("cu_seqlens.npy"), NpyType::I64, {3},
                       cu.data(), 24)
                  .ok());
  GdnProblem p;
  p.scale = 0.1;
  GdnLoadPlan plan;
  Status s = inspectGdnInputs(dir.path, GdnLayout::BTHD, false, p, plan);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(plan.q16);
  EXPECT_EQ(p.cuSeqlens, cu);
  EXPECT_EQ(p.numSequences(), 2);
  GdnInputs in;
  std::vector<std::string> rounded;
  ASSERT_TRUE(loadGdnInputs(plan, p, true, in, rounded).ok());
  // q, k, v rounded to f16; g exact in f32; beta 0.5 exact in f16.
  ASSERT_EQ(rounded.size(), 3u);
  EXPECT_CONTAINS(rounded[0], "q.npy (<f8 -> f16)");
  EXPECT_EQ(in.q.values[0], gdn::ref::roundToF16(0.1));
  EXPECT_EQ(in.g.values[0], -0.5);
  EXPECT_EQ(in.beta.values[0], 0.5);
}

TEST(GdnInputsTest, LoadRejections) {
  TempDir dir;
  GdnProblem p = problem(1, 8, 2, 4);
  GdnInputs in;
  generateGdnInputs(p, GdnFamily::Weak, 1, false, in);
  saveInputs(p, in, dir.path, GdnLayout::BTHD);
  auto rewrite = [&](const std::string &name, NpyType t,
                     std::vector<int64_t> shape) {
    NpyHeader h;
    h.type = t;
    h.shape = shape;
    std::vector<unsigned char> data(h.dataBytes(), 0);
    ASSERT_TRUE(writeNpy(dir.file(name), t, shape, data.data(), data.size())
                    .ok());
  };

  EXPECT_CONTAINS(inspectError(dir.file("nothing"), GdnLayout::BTHD),
                  "not a directory");
  // Read as head-major, q [1,8,2,128] means H = 8, T = 2: v disagrees.
  EXPECT_CONTAINS(inspectError(dir.path, GdnLayout::BHTD),
                  "v.npy: error: shape (1, 8, 4, 128)");
  EXPECT_CONTAINS(inspectError(dir.path, GdnLayout::BHTD),
                  "does not match q.npy's (1, 8, 2, 128)");

  rewrite("k.npy", NpyType::F16, {1, 8, 1, 128});
  EXPECT_CONTAINS(inspectError(dir.path, GdnLayout::BTHD),
                  "k.npy: error: shape (1, 8, 1, 128) differs from q.npy's "
                  "(1, 8, 2, 128)");
  rewrite("k.npy", NpyType::F16, {1, 8, 2, 128});
  rewrite("v.npy", NpyType::F16, {1, 8, 3, 128});
  EXPECT_CONTAINS(inspectError(dir.path, GdnLayout::BTHD),
                  "v.npy: error: HV = 3 value heads is not a multiple of H = "
                  "2 (q.npy)");
  rewrite("v.npy", NpyType::F16, {1, 8, 4, 64});
  EXPECT_CONTAINS(inspectError(dir.path, GdnLayout::BTHD),
                  "v.npy: error: head dim DV = 64");
  rewrite("v.npy", NpyType::F16, {1, 8, 4, 128});
  rewrite("g.npy", NpyType::F32, {1, 4, 8});
  EXPECT_CONTAINS(inspectError(dir.path, GdnLayout::BTHD),
                  "g.npy: error: shape (1, 4, 8) does not match [B,T,HV] = "
                  "[1,8,4]");
  rewrite("g.npy", NpyType::F32, {1, 8, 4, 1});
  EXPECT_CONTAINS(inspectError(dir.path, GdnLayout::BTHD),
                  "g.npy: error: shape (1, 8, 4, 1) has 4 axes, expected 3 "
                  "[B,T,HV]");
  rewrite("g.npy", NpyType::I32, {1, 8, 4});
  EXPECT_CONTAINS(inspectError(dir.path, GdnLayout::BTHD),
                  "g.npy: error: dtype <i4 is not a floating-point type");
  rewrite("g.npy", NpyType::F32, {1, 8, 4});
  rewrite("beta.npy", NpyType::U16, {1, 8, 4});
  EXPECT_CONTAINS(inspectError(dir.path, GdnLayout::BTHD),
                  "beta.npy: error: dtype <u2 is read as bfloat16 bits only "
                  "with --dtype bf16");
  GdnProblem ok;
  GdnLoadPlan plan;
  EXPECT_TRUE(inspectGdnInputs(dir.path, GdnLayout::BTHD, true, ok, plan).ok());
  rewrite("beta.npy", NpyType::F16, {1, 8, 4});
  rewrite("h0.npy", NpyType::F32, {2, 4, 128, 128});
  EXPECT_CONTAINS(inspectError(dir.path, GdnLayout::BTHD),
                  "h0.npy: error: shape (2, 4, 128, 128) is not [N,HV,DK,DV] "
                  "= (1, 4, 128, 128) (N = B)");
  ::unlink(dir.file("h0.npy").c_str());
  rewrite("cu_seqlens.npy", NpyType::I32, {3});
  EXPECT_CONTAINS(inspectError(dir.path, GdnLayout::BTHD),
                  "cu_seqlens.npy: error: cu_seqlens must run from 0 to T = 8");
  rewrite("cu_seqlens.npy", NpyType::F32, {3});
  EXPECT_CONTAINS(inspectError(dir.path, GdnLayout::BTHD),
                  "cu_seqlens.npy: error: dtype <f4 is not <i4 or <i8");
  ::unlink(dir.file("cu_seqlens.npy").c_str());
  rewrite("q.npy", NpyType::F16, {1, 8, 2, 64});
  rewrite("k.npy", NpyType::F16, {1, 8, 2, 64});
  EXPECT_CONTAINS(inspectError(dir.path, GdnLayout::BTHD),
                  "q.npy: error: head dim DK = 64 (last axis of shape (1, 8, "
                  "2, 64)) is not supported");
  ::unlink(dir.file("q.npy").c_str());
  EXPECT_CONTAINS(inspectError(dir.path, GdnLayout::BTHD),
                  "q.npy: error: cannot read .npy file");
}

//===----------------------------------------------------------------------===//
// Driver preparation (no GPU) and report
//===----------------------------------------------------------------------===//

namespace {

const char *const kFwdManifest = R"(gdn_manifest = 1
kernel = gdn_fwd
ptx = gdn.ptx
target = sm_90a
block = 128,1,1
shared_bytes = 0
param = q:ptr<f16>
param = k:ptr<f16>
param = v:ptr<f16>
param = g:ptr<f32>
param = beta:ptr<f16>
param = h0:ptr<f32>
param = ht:ptr<f32>
param = o:ptr<f16>
param = cu_seqlens:ptr<i32>
param = scale:f32
param = H:i32
param = HV:i32
param = has_h0:i32
meta.op = gdn_prefill
meta.stage = fwd
meta.order = 0
meta.grid = N, HV, 1
)";

struct DriverFixture {
  Manifest manifest;
  RunOptions options;
  GdnDriver driver;

  Status prepare(std::vector<std::string> args,
                 const std::string &text = kFwdManifest) {
    Status s = parseManifest(text, "fwd.manifest", manifest);
    if (!s.ok())
      return s;
    args.push_back("fwd.manifest");
    s = parseCommandLine(args, options);
    if (!s.ok())
      return s;
    return driver.prepare({&manifest}, options);
  }
};

std::string prepareError(std::vector<std::string> args,
                         const std::string &text = kFwdManifest) {
  DriverFixture f;
  Status s = f.prepare(std::move(args), text);
  EXPECT_EQ(s.code(), ExitCode::BadInput) << s.message();
  return s.message();
}

} // namespace

TEST(GdnDriverTest, PrepareDefaults) {
  DriverFixture f;
  Status s = f.prepare({});
  ASSERT_TRUE(s.ok()) << s.message();
  const GdnProblem &p = f.driver.problem();
  EXPECT_EQ(p.B, 1);
  EXPECT_EQ(p.T, 4096);
  EXPECT_EQ(p.H, 16);
  EXPECT_EQ(p.HV, 16);
  EXPECT_EQ(p.dtype, DType::F16);
  EXPECT_FALSE(p.hasH0);
  EXPECT_EQ(p.scale, static_cast<double>(static_cast<float>(
                         1.0 / std::sqrt(128.0))));
  EXPECT_DOUBLE_EQ(f.driver.rtol(), 2e-3);
  EXPECT_EQ(f.driver.sequence().stages[0].grid.x, 1u);
  EXPECT_EQ(f.driver.sequence().stages[0].grid.y, 16u);

  DriverFixture g;
  s = g.prepare({"--H", "4", "--cu-seqlens", "0,410,841,1135,2126,2512,4096",
                 "--h0", "--scale", "0.5", "--rtol", "1e-2", "--dtype",
                 "f16"});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(g.driver.problem().HV, 4); // defaults to H
  EXPECT_EQ(g.driver.problem().T, 4096);
  EXPECT_EQ(g.driver.problem().numSequences(), 6);
  EXPECT_EQ(g.driver.sequence().stages[0].grid.x, 6u);
  EXPECT_TRUE(g.driver.problem().hasH0);
  EXPECT_EQ(g.driver.problem().scale, 0.5);
  EXPECT_DOUBLE_EQ(g.driver.rtol(), 1e-2);

  std::string bf(kFwdManifest);
  for (const char *n : {"q", "k", "v", "o", "beta"}) {
    std::string from = std::string("param = ") + n + ":ptr<f16>";
    bf.replace(bf.find(from), from.size(),
               std::string("param = ") + n + ":ptr<bf16>");
  }
  DriverFixture h;
  s = h.prepare({"--dtype", "bf16"}, bf);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_DOUBLE_EQ(h.driver.rtol(), 8e-3);
  GdnResult r;
  h.driver.describe(r);
  EXPECT_EQ(r.dtype, "bf16");
  EXPECT_EQ(r.family, "weak");
  EXPECT_EQ(r.shape, "1x4096x16/16");
}

TEST(GdnDriverTest, PrepareRejections) {
  EXPECT_CONTAINS(prepareError({"--dtype", "bf16"}),
                  "--dtype bf16 does not match the kernels: o is ptr<f16> in "
                  "fwd.manifest:14");
  EXPECT_CONTAINS(prepareError({"--family", "lukewarm"}),
                  "--family: unknown input family 'lukewarm' (known: weak, "
                  "nodecay, strong, fqstrong, mixed, beta0, beta1, unnorm, bigkey, "
                  "collinear, zerokey)");
  EXPECT_CONTAINS(prepareError({"--check", "sample"}),
                  "--check sample is not supported by gdn_prefill");
  EXPECT_CONTAINS(prepareError({"--HV", "24"}),
                  "HV = 24 value heads is not a multiple of H = 16");
  EXPECT_CONTAINS(prepareError({"--cu-seqlens", "0,10,20", "--T", "30"}),
                  "cu_seqlens must end at T = 30, got 20");
  EXPECT_CONTAINS(prepareError({"--cu-seqlens", "0,10,20", "--B", "2"}),
                  "varlen (cu_seqlens) requires B = 1");
  EXPECT_CONTAINS(prepareError({"--load", "/nonexistent", "--family", "weak"}),
                  "--family generates inputs; it cannot be combined with "
                  "--load");
  EXPECT_CONTAINS(prepareError({"--gate-in-kernel", "--family", "strong"}),
                  "--family strong sets the decay g, which --gate-in-kernel "
                  "computes");
  EXPECT_CONTAINS(prepareError({"--beta-sigmoid", "--family", "beta1"}),
                  "--family beta1 sets beta, which --beta-sigmoid computes");
  EXPECT_CONTAINS(
      prepareError({"--beta-sigmoid", "--family", "collinear"}),
      "--family collinear sets beta, which --beta-sigmoid computes");
  EXPECT_CONTAINS(
      prepareError({"--gate-in-kernel", "--family", "collinear"}),
      "--family collinear sets the decay g, which --gate-in-kernel");
  EXPECT_CONTAINS(prepareError({"--load", "/nonexistent", "--gate-in-kernel"}),
                  "--gate-in-kernel needs a_log and dt_bias, which --load "
                  "does not read");
  EXPECT_CONTAINS(prepareError({"--save", "/tmp/x", "--gate-in-kernel"}),
                  "--gate-in-kernel needs a_log and dt_bias, which --save "
                  "does not write");
  EXPECT_CONTAINS(prepareError({"--qk-l2norm", "--family", "bigkey"}),
                  "--family bigkey sets the key norms, which --qk-l2norm "
                  "normalizes away");
  EXPECT_CONTAINS(prepareError({"--load", "/nonexistent", "--h0"}),
                  "--h0 generates an initial state");
  EXPECT_CONTAINS(prepareError({"--load", "/nonexistent"}),
                  "--load /nonexistent: not a directory");
  EXPECT_CONTAINS(prepareError({"--layout", "bhtd"}),
                  "--layout applies to the .npy files of --load and --save");
  EXPECT_CONTAINS(prepareError({"--save", "/nonexistent/x"}),
                  "the parent directory /nonexistent does not exist");
  EXPECT_CONTAINS(prepareError({"--save", "/dev/null"}),
                  "--save /dev/null: exists and is not a directory");
  std::string noCu(kFwdManifest);
  noCu.replace(noCu.find("param = cu_seqlens:ptr<i32>\n"), 28, "");
  EXPECT_CONTAINS(prepareError({"--cu-seqlens", "0,5,4096"}, noCu),
                  "no kernel of the sequence takes parameter cu_seqlens");
  std::string noH0(kFwdManifest);
  noH0.replace(noH0.find("param = h0:ptr<f32>\n"), 20, "");
  EXPECT_CONTAINS(prepareError({"--h0"}, noH0),
                  "--h0 asks for an initial state, but no kernel of the "
                  "sequence takes parameter h0");
}

TEST(GdnDriverTest, PrepareLoadsShapesFromNpy) {
  TempDir dir;
  GdnProblem p = problem(1, 100, 2, 4);
  GdnInputs in;
  generateGdnInputs(p, GdnFamily::Weak, 1, false, in);
  saveInputs(p, in, dir.path, GdnLayout::BHTD);
  std::vector<int32_t> cu = {0, 40, 100};
  ASSERT_TRUE(writeNpy(dir.path + "/cu_seqlens.npy", NpyType::I32, {3},
                       cu.data(), 12)
                  .ok());
  DriverFixture f;
  Status s = f.prepare({"--load", dir.path, "--layout", "bhtd"});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(f.driver.problem().T, 100);
  EXPECT_EQ(f.driver.problem().H, 2);
  EXPECT_EQ(f.driver.problem().HV, 4);
  EXPECT_EQ(f.driver.problem().numSequences(), 2);
  GdnResult r;
  f.driver.describe(r);
  EXPECT_EQ(r.family, "npy");
  EXPECT_CONTAINS(prepareError({"--load", dir.path, "--layout", "bhtd",
                                "--T", "99"}),
                  "--T 99 contradicts the loaded inputs (T = 100");
  EXPECT_CONTAINS(prepareError({"--load", dir.path, "--layout", "bhtd",
                                "--cu-seqlens", "0,100"}),
                  "cu_seqlens.npy exists too");
  // f16 files but bf16 kernels.
  std::string bf(kFwdManifest);
  for (const char *n : {"q", "k", "v", "o", "beta"}) {
    std::string from = std::string("param = ") + n + ":ptr<f16>";
    bf.replace(bf.find(from), from.size(),
               std::string("param = ") + n + ":ptr<bf16>");
  }
  EXPECT_CONTAINS(prepareError({"--load", dir.path, "--layout", "bhtd"}, bf),
                  "/q.npy: error: holds f16 but the kernels take bf16");
}

namespace {

/// kFwdManifest as the direct path's kernel, and a CP replay kernel taking
/// the segmentation (one per segment and value head).
std::string directManifest() {
  return std::string(kFwdManifest) + "meta.path = direct\n";
}

std::string cpManifest() {
  std::string text(kFwdManifest);
  text.replace(text.find("kernel = gdn_fwd"), 16, "kernel = gdn_cp");
  text.replace(text.find("param = scale:f32\n"), 18,
               "param = scale:f32\nparam = cp_bounds:ptr<i32>\n"
               "param = cp_seq:ptr<i32>\nparam = cp_last:ptr<i32>\n"
               "param = cp_seg_start:ptr<i32>\nparam = NS:i32\n");
  text.replace(text.find("meta.grid = N, HV, 1"), 20,
               "meta.grid = NS, HV, 1\nmeta.path = cp");
  return text;
}

/// Several manifests (named after their kernels) prepared together.
struct PathFixture {
  std::vector<std::unique_ptr<Manifest>> manifests;
  RunOptions options;
  GdnDriver driver;

  Status prepare(std::vector<std::string> args,
                 const std::vector<std::string> &texts,
                 int64_t numSMs = kGdnDefaultSmCount) {
    std::vector<const Manifest *> ptrs;
    GDN_RUN_TRY(test::parseManifestTexts(texts, manifests, ptrs));
    Status s = parseCommandLine(args, options);
    if (!s.ok())
      return s;
    return driver.prepare(ptrs, options, numSMs);
  }
  std::string pathText() const { return gdnPathText(driver.pathChoice()); }
};

std::string pathError(std::vector<std::string> args,
                      const std::vector<std::string> &texts) {
  PathFixture f;
  Status s = f.prepare(std::move(args), texts);
  EXPECT_EQ(s.code(), ExitCode::BadInput) << s.message();
  return s.message();
}

} // namespace

TEST(GdnDriverTest, PathWithoutMetaPath) {
  // An old kernel directory: everything is the direct path.
  PathFixture f;
  Status s = f.prepare({"--T", "131072", "--H", "1"}, {kFwdManifest});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(f.driver.pathChoice().path, GdnPath::Direct);
  EXPECT_EQ(f.pathText(), "direct (auto: no meta.path)");
  EXPECT_FALSE(f.driver.dependsOnDevice());
  EXPECT_EQ(f.driver.problem().cpChunks, 0);
  GdnResult r;
  f.driver.describe(r);
  EXPECT_EQ(r.path, "direct (auto: no meta.path)");
  EXPECT_EQ(gdnDetailLines(r).at(0), "path: direct (auto: no meta.path)");
  EXPECT_EQ(f.driver.problem().scalars().at("NS"), 1);

  EXPECT_CONTAINS(pathError({"--cp", "on"}, {kFwdManifest}),
                  "--cp on: no manifest for the cp path (meta.path = cp) "
                  "among m0.manifest; none has meta.path, so they all form "
                  "the direct path");
  EXPECT_CONTAINS(pathError({"--cp-chunks", "8"}, {kFwdManifest}),
                  "--cp-chunks sets the segment size of the cp path, but the "
                  "direct path runs (auto: no meta.path)");
  EXPECT_CONTAINS(pathError({"--cp", "off", "--cp-chunks", "8"},
                            {directManifest(), cpManifest()}),
                  "--cp-chunks sets the segment size of the cp path; it "
                  "cannot be combined with --cp off");
  // A timing experiment only: its stages race.
  EXPECT_CONTAINS(pathError({"--overlap-stages"}, {kFwdManifest}),
                  "--overlap-stages runs the kernels unordered (wrong "
                  "results): it needs --check none and no --save");
  EXPECT_CONTAINS(pathError({"--overlap-stages", "--check", "none", "--save",
                             "/tmp/x"},
                            {kFwdManifest}),
                  "it needs --check none and no --save");
  {
    PathFixture ok;
    Status s = ok.prepare({"--overlap-stages", "--check", "none"},
                          {kFwdManifest});
    EXPECT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(ok.options.overlapStages);
  }
  // A kernel that waits for ready flags must run after its predecessor.
  EXPECT_CONTAINS(pathError({"--overlap-stages", "--check", "none"},
                            {std::string(kFwdManifest) +
                             "param = ready:ptr<i32>\nmeta.ws_ready = HV\n"
                             "meta.zero_ws = ready\ngrid_dependency = 2\n"}),
                  "--overlap-stages launches the kernels unordered, but stage "
                  "'fwd' (gdn_fwd) waits for an earlier stage's ready flags "
                  "(grid_dependency = 2)");
  EXPECT_CONTAINS(pathError({"--overlap-stages", "--check", "none"},
                            {std::string(kFwdManifest) +
                             "param = ready:ptr<i32>\nmeta.ws_ready = HV\n"
                             "meta.zero_ws = ready\ngrid_dependency = 3\n"}),
                  "--overlap-stages launches the kernels unordered, but stage "
                  "'fwd' (gdn_fwd) waits for an earlier stage's ready flags "
                  "(grid_dependency = 3)");
  {
    // The control: the same carveout on the sequential launches, checked.
    PathFixture ok;
    Status s = ok.prepare({"--max-carveout"}, {kFwdManifest});
    EXPECT_TRUE(s.ok()) << s.message();
    EXPECT_TRUE(ok.options.maxCarveout);
    EXPECT_FALSE(ok.options.overlapStages);
  }
  std::string both = std::string(kFwdManifest) + "meta.path = both\n";
  EXPECT_CONTAINS(pathError({}, {both}),
                  "m0.manifest:24: error: meta.path = both: expected direct "
                  "or cp");
}

// A kernel set with a 32-bit build (index_bits = 32) and a 64-bit one (the
// same kernels, names suffixed): the path is chosen among the 32-bit
// kernels, and among the 64-bit ones when a buffer of the problem exceeds
// 2^30 elements (q of 2^20 tokens x 16 heads x 128 = 2^31).
TEST(GdnDriverTest, ChoosesTheIndexWidthAfterThePath) {
  auto narrow = [](std::string text) {
    text.replace(text.find("shared_bytes = 0\n"), 17,
                 "shared_bytes = 0\nindex_bits = 32\n");
    return text;
  };
  auto renamed = [](std::string text) {
    size_t at = text.find("kernel = ");
    size_t end = text.find('\n', at);
    text.insert(end, "_i64");
    return text;
  };
  const std::vector<std::string> builds = {
      narrow(directManifest()), narrow(cpManifest()),
      renamed(directManifest()), renamed(cpManifest())};
  PathFixture f;
  Status s = f.prepare({"--T", "131072", "--H", "16"}, builds);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(f.driver.sequence().stages[0].manifest->indexBits, 32);
  EXPECT_EQ(f.driver.sequence().stages[0].manifest->kernel.substr(0, 6),
            "gdn_cp");
  EXPECT_EQ(f.driver.sequence().stages[0].manifest->kernel.find("_i64"),
            std::string::npos);
  // (prepare allocates nothing; the host-memory check is for runs.)
  PathFixture g;
  g.driver.setHostMemoryLimit(uint64_t(1) << 40);
  s = g.prepare({"--T", "1048576", "--H", "16"}, builds);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(g.driver.sequence().stages[0].manifest->indexBits, 64);
  EXPECT_EQ(g.driver.sequence().stages[0].manifest->kernel, "gdn_cp_i64");
  EXPECT_EQ(g.driver.pathChoice().path, f.driver.pathChoice().path);
  // Only the 32-bit build: the problem is refused, naming the buffer.
  PathFixture h;
  h.driver.setHostMemoryLimit(uint64_t(1) << 40);
  s = h.prepare({"--T", "1048576", "--H", "16"},
                {narrow(directManifest()), narrow(cpManifest())});
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "q has 2147483648 elements for this problem, "
                               "more than the 1073741824 a kernel with "
                               "index_bits = 32 may take");
}

TEST(GdnDriverTest, PathChoice) {
  const std::vector<std::string> both = {directManifest(), cpManifest()};
  // 4K tokens, 16 heads: the model keeps the direct path.
  PathFixture f;
  Status s = f.prepare({}, both);
  ASSERT_TRUE(s.ok()) << s.message();
  const GdnPathChoice &c = f.driver.pathChoice();
  EXPECT_EQ(c.path, GdnPath::Direct);
  EXPECT_TRUE(c.modeled);
  EXPECT_FALSE(c.variantModeled);
  EXPECT_EQ(c.blockV, 0); // no variants: modeled as block_v 16
  ASSERT_EQ(c.estimates.size(), 1u);
  ASSERT_NE(c.chosen(), nullptr);
  // The estimates include the prep kernel: t_prep * HV * chunks / SMs.
  const double prep = 3.1 * 16 * 64 / 132;
  EXPECT_DOUBLE_EQ(c.chosen()->prepUs, prep);
  EXPECT_DOUBLE_EQ(c.chosen()->us, 1.43 * 64 + prep);
  EXPECT_EQ(c.other.path, GdnPath::Cp);
  // One segment: no summary; the model charges one scan step at the
  // warm-up's rate (64 chunks hold the window).
  EXPECT_DOUBLE_EQ(c.other.us,
                   kGdnCpScanWarmupUs + 1.43 * 64 + kGdnCpLaunchUs + prep);
  EXPECT_TRUE(f.driver.dependsOnDevice());
  EXPECT_EQ(c.ignored, std::vector<std::string>{"m1.manifest"});
  EXPECT_EQ(f.driver.sequence().stages[0].manifest->kernel, "gdn_fwd");
  EXPECT_EQ(f.pathText(), "direct (auto); model: direct 116 us, cp 123 us (64 "
                          "chunks/segment), 132 SMs");

  // 128K tokens, one head, exact summaries (--cp-theta 0): CP in segments
  // of 64 chunks.
  PathFixture g;
  s = g.prepare({"--T", "131072", "--H", "1", "--cp-theta", "0"}, both);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(g.driver.pathChoice().path, GdnPath::Cp);
  EXPECT_EQ(g.driver.pathChoice().segmentChunks, 64);
  EXPECT_EQ(g.driver.pathChoice().segments, 32);
  EXPECT_EQ(g.driver.problem().cpChunks, 64);
  EXPECT_EQ(g.driver.sequence().stages[0].manifest->kernel, "gdn_cp");
  EXPECT_EQ(g.driver.sequence().stages[0].grid.x, 32u); // NS
  EXPECT_EQ(g.pathText(), "cp (auto), 32 segments of 64 chunks; model: cp 479 us, "
                          "direct 2977 us, 132 SMs");
  // Prepared again for a device of 264 SMs: the work terms halve, so the
  // segments get no longer.
  s = g.driver.prepare({g.manifests[0].get(), g.manifests[1].get()},
                       g.options, 264);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_LE(g.driver.pathChoice().segmentChunks, 64);
  EXPECT_EQ(g.driver.pathChoice().path, GdnPath::Cp);
  EXPECT_EQ(g.driver.pathChoice().numSMs, 264);

  // Forced either way; --cp-chunks sets m.
  PathFixture h;
  s = h.prepare({"--cp", "on", "--cp-chunks", "8", "--B", "2", "--T", "1000"},
                both);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(h.pathText(), "cp (--cp on), 4 segments of 8 chunks "
                          "(--cp-chunks)");
  EXPECT_FALSE(h.driver.dependsOnDevice());
  EXPECT_EQ(h.driver.problem().scalars().at("NS"), 4);
  PathFixture i;
  s = i.prepare({"--cp", "on", "--T", "1000"}, both);
  ASSERT_TRUE(s.ok()) << s.message();
  // --cp on cuts the sequence even where the model would not.
  EXPECT_EQ(i.pathText(), "cp (--cp on), 2 segments of 8 chunks");
  EXPECT_TRUE(i.driver.dependsOnDevice()); // m from the rule
  PathFixture j;
  s = j.prepare({"--cp", "off", "--T", "131072", "--H", "1"}, both);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(j.pathText(), "direct (--cp off)");
  EXPECT_EQ(j.driver.problem().scalars().at("NS"), 1);
  // --cp-chunks with auto feeds the model.
  PathFixture k;
  s = k.prepare({"--cp-chunks", "1024", "--T", "131072", "--H", "1",
                 "--cp-theta", "0"},
                both);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(k.driver.pathChoice().path, GdnPath::Direct);
  EXPECT_EQ(k.pathText(), "direct (auto); model: direct 2977 us, cp 2990 us (1024 "
                          "chunks/segment), 132 SMs");

  // One path offered: auto takes it; the other is an error when forced.
  PathFixture l;
  s = l.prepare({}, {cpManifest()});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(l.pathText(), "cp (auto: no direct manifests), 1 segment of 64 "
                          "chunks");
  PathFixture m;
  s = m.prepare({"--T", "131072", "--H", "1"}, {directManifest()});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(m.pathText(), "direct (auto: no cp manifests)");
  EXPECT_CONTAINS(pathError({"--cp", "on"}, {directManifest()}),
                  "--cp on: no manifest for the cp path (meta.path = cp) "
                  "among m0.manifest (meta.path = direct)");
  EXPECT_CONTAINS(pathError({"--cp", "off"}, {cpManifest()}),
                  "--cp off: no manifest for the direct path (meta.path = "
                  "direct) among m0.manifest (meta.path = cp)");
}

namespace {

/// A prep kernel common to both paths (no meta.path, no block_v) and a cp
/// scan without block_v.
std::string prepManifest() {
  return "gdn_manifest = 1\nkernel = gdn_prep\nptx = gdn.ptx\n"
         "target = sm_90a\nblock = 128,1,1\nshared_bytes = 0\n"
         "param = q:ptr<f16>\nparam = k:ptr<f16>\nparam = T:i32\n"
         "meta.op = gdn_prefill\nmeta.stage = prep\nmeta.order = -1\n"
         "meta.grid = NT, HV, 1\n";
}

std::string scanManifest() {
  return "gdn_manifest = 1\nkernel = gdn_cp_scan\nptx = gdn.ptx\n"
         "target = sm_90a\nblock = 128,1,1\nshared_bytes = 0\n"
         "param = cp_seg_start:ptr<i32>\nparam = NS:i32\nparam = HV:i32\n"
         "meta.op = gdn_prefill\nmeta.stage = scan\nmeta.order = 1\n"
         "meta.grid = N, HV, 1\nmeta.path = cp\n";
}

/// `text` with meta.block_v = `blockV`, its kernel renamed (gdn_fwd ->
/// gdn_fwd_bv128) when `rename`.
std::string withBlockV(std::string text, int64_t blockV, bool rename = true) {
  if (rename)
    text.replace(text.find("\nptx = "), 1,
                 "_bv" + std::to_string(blockV) + "\n");
  return text + "meta.block_v = " + std::to_string(blockV) + "\n";
}

/// A kernel directory with both forward variants of both paths: m0 prep,
/// m1 direct 16 (gdn_fwd), m2 direct 128, m3 cp 16 (gdn_cp), m4 cp 128, m5
/// the cp scan.
std::vector<std::string> variantManifests() {
  return {prepManifest(),
          withBlockV(directManifest(), 16, false),
          withBlockV(directManifest(), 128),
          withBlockV(cpManifest(), 16, false),
          withBlockV(cpManifest(), 128),
          scanManifest()};
}

std::vector<std::string> stageKernels(const GdnDriver &driver) {
  std::vector<std::string> names;
  for (const GdnStage &stage : driver.sequence().stages)
    names.push_back(stage.manifest->kernel);
  return names;
}

} // namespace

TEST(GdnDriverTest, VariantChoice) {
  using Names = std::vector<std::string>;
  const std::vector<std::string> all = variantManifests();
  // 8 x 4K, HV 16: block_v 128 (fewer blocks; the work bounds).
  PathFixture f;
  Status s = f.prepare({"--B", "8", "--T", "4096"}, all);
  ASSERT_TRUE(s.ok()) << s.message();
  const GdnPathChoice &c = f.driver.pathChoice();
  EXPECT_EQ(c.path, GdnPath::Direct);
  EXPECT_EQ(c.blockV, 128);
  EXPECT_TRUE(c.modeled);
  EXPECT_TRUE(c.variantModeled);
  EXPECT_FALSE(c.blockVGiven);
  ASSERT_EQ(c.estimates.size(), 2u);
  EXPECT_EQ(c.estimates[0].blockV, 16);
  EXPECT_EQ(c.estimates[1].blockV, 128);
  EXPECT_EQ(c.chosen(), &c.estimates[1]);
  EXPECT_EQ(c.other.path, GdnPath::Cp);
  EXPECT_EQ(c.other.blockV, 128);
  EXPECT_TRUE(f.driver.dependsOnDevice());
  EXPECT_EQ(stageKernels(f.driver), (Names{"gdn_prep", "gdn_fwd_bv128"}));
  EXPECT_EQ(c.ignored, (Names{"m1.manifest", "m3.manifest", "m4.manifest",
                              "m5.manifest"}));
  EXPECT_EQ(f.pathText(), "direct (auto), block_v 128; model: direct 257 us "
                          "(block_v 16: 760 us), cp 264 us (block_v 128, 64 "
                          "chunks/segment), 132 SMs");
  GdnResult r;
  f.driver.describe(r);
  EXPECT_EQ(gdnDetailLines(r).at(0), "path: " + f.pathText());

  // The B = 1 anchors: 32K and 128K at HV 16 and 32 take the CP path in its
  // block_v 128 variant (with the guarded warm-up the summaries are cheap,
  // and at 128K HV 32 CP measured 5.56 ms against 7.3 direct, 2026-12-01).
  for (const char *T : {"32768", "131072"}) {
    PathFixture g;
    s = g.prepare({"--T", T, "--H", "16"}, all);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(g.driver.pathChoice().path, GdnPath::Cp) << "T " << T;
    EXPECT_EQ(g.driver.pathChoice().blockV, 128) << "T " << T;
    EXPECT_GE(g.driver.pathChoice().segments, 4) << "T " << T;
    EXPECT_EQ(stageKernels(g.driver),
              (Names{"gdn_prep", "gdn_cp_bv128", "gdn_cp_scan"}));
  }
  PathFixture g;
  s = g.prepare({"--T", "131072"}, all);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(g.pathText(), "cp (auto), block_v 128, 8 segments of 256 chunks; "
                          "model: cp 1091 us (block_v 16: 3082 us), direct "
                          "3698 us (block_v 16), 132 SMs");
  PathFixture h;
  s = h.prepare({"--T", "131072", "--H", "32"}, all);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(h.driver.pathChoice().path, GdnPath::Cp);
  EXPECT_EQ(h.driver.pathChoice().blockV, 128);
  EXPECT_EQ(stageKernels(h.driver),
            (Names{"gdn_prep", "gdn_cp_bv128", "gdn_cp_scan"}));
  // With exact summaries (--cp-theta 0) 128K HV 32 still takes CP in the
  // model (block_v 128's direct walk of 2048 steps at 3.0 us is the
  // slowest; not measured with exact summaries).
  PathFixture h0;
  s = h0.prepare({"--T", "131072", "--H", "32", "--cp-theta", "0"}, all);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(h0.driver.pathChoice().path, GdnPath::Cp);
  EXPECT_EQ(h0.driver.pathChoice().blockV, 128);
  EXPECT_EQ(stageKernels(h0.driver),
            (Names{"gdn_prep", "gdn_cp_bv128", "gdn_cp_scan"}));

  // 128K tokens, one head: CP, block_v 128 in segments of 32 chunks (the
  // shortest that holds the warm-up's 22-chunk window: since v31 a scan
  // step after a warm-up summary is a 1.35 us copy, so 64 segments cost
  // less than the replay they save; before, block_v 16 in 16 segments of
  // 128); the scan (no block_v) runs with it.
  PathFixture i;
  s = i.prepare({"--T", "131072", "--H", "1"}, all);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(i.driver.pathChoice().path, GdnPath::Cp);
  EXPECT_EQ(i.driver.pathChoice().blockV, 128);
  EXPECT_EQ(i.driver.problem().cpChunks, 32);
  EXPECT_EQ(stageKernels(i.driver),
            (Names{"gdn_prep", "gdn_cp_bv128", "gdn_cp_scan"}));
  EXPECT_EQ(i.driver.pathChoice().ignored,
            (Names{"m1.manifest", "m2.manifest", "m3.manifest"}));
  EXPECT_EQ(i.pathText(), "cp (auto), block_v 128, 64 segments of 32 chunks; "
                          "model: cp 244 us (block_v 16: 276 us), direct 2977 "
                          "us (block_v 16), 132 SMs");

  // --cp off / on: the model still picks the variant.
  PathFixture j;
  s = j.prepare({"--cp", "off", "--B", "8", "--T", "4096"}, all);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(j.driver.pathChoice().modeled);
  EXPECT_TRUE(j.driver.pathChoice().variantModeled);
  EXPECT_TRUE(j.driver.dependsOnDevice());
  EXPECT_EQ(j.pathText(), "direct (--cp off), block_v 128; model: direct 257 "
                          "us (block_v 16: 760 us), 132 SMs");
  PathFixture k;
  s = k.prepare({"--cp", "on"}, all);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(k.pathText(), "cp (--cp on), block_v 128, 8 segments of 8 chunks; "
                          "model: cp 106 us (block_v 16: 135 us), 132 SMs");
  PathFixture l;
  s = l.prepare({"--cp", "on", "--cp-chunks", "8", "--T", "1000"}, all);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(l.pathText(), "cp (--cp on), block_v 16, 2 segments of 8 chunks "
                          "(--cp-chunks); model: cp 49 us (block_v 128: 71 "
                          "us), 132 SMs");
  EXPECT_TRUE(l.driver.dependsOnDevice()); // the variant
}

TEST(GdnDriverTest, VariantForced) {
  using Names = std::vector<std::string>;
  const std::vector<std::string> all = variantManifests();
  // --block-v with auto: the model compares the paths in that variant.
  PathFixture f;
  Status s = f.prepare({"--block-v", "16", "--B", "8", "--T", "4096"}, all);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(f.driver.pathChoice().modeled);
  EXPECT_FALSE(f.driver.pathChoice().variantModeled);
  EXPECT_EQ(f.pathText(), "direct (auto), block_v 16 (--block-v); model: direct 760 "
                          "us, cp 768 us (block_v 16, 64 chunks/segment), 132 SMs");
  EXPECT_EQ(stageKernels(f.driver), (Names{"gdn_prep", "gdn_fwd"}));
  // Fully forced: no model, no dependence on the SM count.
  PathFixture g;
  s = g.prepare({"--block-v", "128", "--cp", "off", "--T", "131072"}, all);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(g.pathText(), "direct (--cp off), block_v 128 (--block-v)");
  EXPECT_FALSE(g.driver.dependsOnDevice());
  EXPECT_EQ(stageKernels(g.driver), (Names{"gdn_prep", "gdn_fwd_bv128"}));
  PathFixture h;
  s = h.prepare(
      {"--block-v", "16", "--cp", "on", "--cp-chunks", "4", "--T", "1000"},
      all);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(h.pathText(), "cp (--cp on), block_v 16 (--block-v), 4 segments "
                          "of 4 chunks (--cp-chunks)");
  EXPECT_FALSE(h.driver.dependsOnDevice());
  EXPECT_EQ(stageKernels(h.driver),
            (Names{"gdn_prep", "gdn_cp", "gdn_cp_scan"}));

  // A block_v only one path offers decides the path.
  const std::vector<std::string> directOnly = {
      prepManifest(), withBlockV(directManifest(), 16, false),
      withBlockV(directManifest(), 128), cpManifest(), scanManifest()};
  PathFixture i;
  s = i.prepare({"--block-v", "128", "--T", "131072", "--H", "1"}, directOnly);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(i.pathText(), "direct (auto: block_v 128 only on the direct "
                          "path), block_v 128 (--block-v)");
  // Without --block-v the cp path (one variant) competes with direct's best.
  PathFixture j;
  s = j.prepare({"--T", "131072", "--H", "1"}, directOnly);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(j.pathText(), "cp (auto), 32 segments of 64 chunks; model: cp 276 us, "
                          "direct 2977 us (block_v 16), 132 SMs");
  EXPECT_EQ(stageKernels(j.driver),
            (Names{"gdn_prep", "gdn_cp", "gdn_cp_scan"}));

  // Bad --block-v: the offered values are named.
  EXPECT_CONTAINS(pathError({"--block-v", "32"}, all),
                  "--block-v 32: neither path offers it (direct: meta.block_v "
                  "= 16, 128; cp: meta.block_v = 16, 128)");
  EXPECT_CONTAINS(pathError({"--block-v", "32", "--cp", "on"}, all),
                  "--block-v 32: the cp path (--cp on) offers meta.block_v = "
                  "16, 128");
  EXPECT_CONTAINS(pathError({"--block-v", "128", "--cp", "on"}, directOnly),
                  "--block-v 128: the cp path (--cp on) has no variants (none "
                  "of its manifests has meta.block_v)");
  EXPECT_CONTAINS(pathError({"--block-v", "16"}, {kFwdManifest}),
                  "--block-v 16: the direct path (auto: no meta.path) has no "
                  "variants (none of its manifests has meta.block_v)");
  // A path not offered at all is reported as before.
  EXPECT_CONTAINS(
      pathError({"--block-v", "16", "--cp", "on"}, {directManifest()}),
      "--cp on: no manifest for the cp path (meta.path = cp)");
  // Bad meta.block_v.
  EXPECT_CONTAINS(
      pathError({}, {directManifest() + "meta.block_v = 0\n", cpManifest()}),
      "m0.manifest:25: error: meta.block_v = 0: expected a "
      "positive integer");
  EXPECT_CONTAINS(
      pathError({}, {directManifest(), cpManifest() + "meta.block_v = x16\n"}),
      "m1.manifest:30: error: meta.block_v = x16: expected a "
      "positive integer");

  // Variants without meta.path: the direct path's.
  PathFixture k;
  s = k.prepare(
      {}, {withBlockV(kFwdManifest, 16, false), withBlockV(kFwdManifest, 128)});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(k.pathText(), "direct (auto: no meta.path), block_v 16; model: "
                          "direct 116 us (block_v 128: 181 us), 132 SMs");
}

TEST(GdnDriverTest, ReportRow) {
  GdnResult r;
  r.shape = "1x131072x16/16";
  r.dtype = "f16";
  r.family = "weak";
  r.mode = CheckMode::None;
  r.timed = true;
  r.medianMs = 1.0;
  r.minMs = 0.9;
  r.iters = 30;
  r.cost = gdnCost(problem(1, 131072, 16, 16));
  std::vector<std::string> row = gdnTableRow(r);
  ASSERT_EQ(row.size(), gdnTableHeader().size());
  EXPECT_EQ(row[0], "gdn_prefill");
  EXPECT_EQ(row[1], "1x131072x16/16");
  EXPECT_EQ(row[4], "none");
  EXPECT_EQ(row[5], "-");
  EXPECT_EQ(row[7], "1.0000");
  EXPECT_EQ(row[8], "378.0"); // 3.78e11 FLOP in 1 ms
  EXPECT_EQ(row[9], "2161");  // 2.161 GB in 1 ms
  EXPECT_EQ(row[10], "1.95"); // 1 ms / 0.513 ms
  EXPECT_EQ(row[11], "PASS");
  r.compared = true;
  r.o.add(std::nan(""), 1.0);
  r.status = Status(ExitCode::CheckFailed, "x");
  row = gdnTableRow(r);
  EXPECT_EQ(row[5], "nonfinite:1");
  EXPECT_EQ(row[11], "FAIL");
  std::vector<std::string> lines = gdnDetailLines(r);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_CONTAINS(lines[0], "o : rel_l2");
  EXPECT_CONTAINS(lines[0], "non-finite 1 of 1");
  EXPECT_CONTAINS(lines[2], "time: median 1.0000 ms, min 0.9000 ms over 30 "
                            "runs; floor 0.5130 ms");
  // With the host's launch cost measured (and two stages timed alone).
  r.stageMedianMs = {{"prep", 0.4}, {"forward", 0.6}};
  r.hostLaunchUs = 7.25;
  lines = gdnDetailLines(r);
  ASSERT_EQ(lines.size(), 6u);
  EXPECT_CONTAINS(lines[3], "stage prep");
  EXPECT_CONTAINS(lines[5], "host: 7.25 us per call to launch the 2 kernels");
  // --overlap-stages: when each kernel ended, after the stages alone.
  r.overlapEndMs = {{"prep", 0.18}, {"forward", 0.19}};
  lines = gdnDetailLines(r);
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_CONTAINS(lines[5],
                  "overlapped: stage prep         ended at 0.1800 ms");
  EXPECT_CONTAINS(lines[6], "overlapped: stage forward      ended at 0.1900");
  EXPECT_CONTAINS(lines[7], "host: 7.25 us per call");
}
