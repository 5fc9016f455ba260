//===- HostTensorTest.cpp - fp16/bf16 conversion, PRNG, error stats -------===//

#include "HostTensor.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

using namespace gdn::run;

namespace {

float bitsToFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

bool isHalfNan(uint16_t h) { return (h & 0x7c00) == 0x7c00 && (h & 0x3ff); }

/// Checks that `h` is the round-to-nearest-even binary16 value of `x` by
/// comparing it with its neighbours (x finite, |x| below the overflow
/// threshold).
void expectNearestEvenHalf(float x, uint16_t h) {
  ASSERT_FALSE(isHalfNan(h)) << x;
  double v = halfToFloat(h);
  double err = std::fabs(v - static_cast<double>(x));
  // Neighbours in magnitude, same sign.
  uint16_t mag = h & 0x7fff, sign = h & 0x8000;
  for (int d : {-1, 1}) {
    int nm = static_cast<int>(mag) + d;
    if (nm < 0 || nm > 0x7bff)
      continue;
    double nv = halfToFloat(static_cast<uint16_t>(sign | nm));
    double nerr = std::fabs(nv - static_cast<double>(x));
    EXPECT_LE(err, nerr) << "x=" << x << " h=" << std::hex << h;
    if (err == nerr) {
      EXPECT_EQ(mag & 1, 0) << "tie not to even: x=" << x;
    }
  }
}

} // namespace

TEST(HostTensorTest, HalfKnownValues) {
  EXPECT_EQ(floatToHalf(0.0f), 0x0000);
  EXPECT_EQ(floatToHalf(-0.0f), 0x8000);
  EXPECT_EQ(floatToHalf(1.0f), 0x3c00);
  EXPECT_EQ(floatToHalf(-2.0f), 0xc000);
  EXPECT_EQ(floatToHalf(0.5f), 0x3800);
  EXPECT_EQ(floatToHalf(65504.0f), 0x7bff);
  EXPECT_EQ(floatToHalf(65519.99f), 0x7bff);
  EXPECT_EQ(floatToHalf(65520.0f), 0x7c00); // tie rounds to even = inf
  EXPECT_EQ(floatToHalf(-1e9f), 0xfc00);
  EXPECT_EQ(floatToHalf(std::numeric_limits<float>::infinity()), 0x7c00);
  EXPECT_EQ(floatToHalf(-std::numeric_limits<float>::infinity()), 0xfc00);
  EXPECT_TRUE(isHalfNan(floatToHalf(std::nanf(""))));
  EXPECT_TRUE(isHalfNan(floatToHalf(bitsToFloat(0x7f800001)))); // sNaN
  EXPECT_EQ(floatToHalf(bitsToFloat(0xffc00000)) & 0x8000, 0x8000);
  // Ties to even in the normal range: 1 + 2^-11 is halfway 1 .. 1 + 2^-10.
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11)), 0x3c00);
  EXPECT_EQ(floatToHalf(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);
  EXPECT_EQ(floatToHalf(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)),
            0x3c01);
  // Smallest normal and the subnormals (units of 2^-24).
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -14)), 0x0400);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -24)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -25)), 0x0000);      // tie -> 0
  EXPECT_EQ(floatToHalf(std::ldexp(1.5f, -25)), 0x0001);
  EXPECT_EQ(floatToHalf(std::ldexp(3.0f, -25)), 0x0002);      // 1.5 -> 2
  EXPECT_EQ(floatToHalf(std::ldexp(5.0f, -25)), 0x0002);      // 2.5 -> 2
  EXPECT_EQ(floatToHalf(std::ldexp(1.0f, -26)), 0x0000);
  EXPECT_EQ(floatToHalf(-std::ldexp(1.0f, -24)), 0x8001);
  EXPECT_EQ(floatToHalf(bitsToFloat(0x00000001)), 0x0000); // float denormal
  // Largest subnormal rounding up into the smallest normal.
  EXPECT_EQ(floatToHalf(std::ldexp(1023.75f, -24)), 0x0400);
}

TEST(HostTensorTest, HalfDecodeKnownValues) {
  EXPECT_EQ(halfToFloat(0x3c00), 1.0f);
  EXPECT_EQ(halfToFloat(0xc000), -2.0f);
  EXPECT_EQ(halfToFloat(0x7bff), 65504.0f);
  EXPECT_EQ(halfToFloat(0x0001), std::ldexp(1.0f, -24));
  EXPECT_EQ(halfToFloat(0x03ff), std::ldexp(1023.0f, -24));
  EXPECT_EQ(halfToFloat(0x8000), 0.0f);
  EXPECT_TRUE(std::signbit(halfToFloat(0x8000)));
  EXPECT_EQ(halfToFloat(0x7c00), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(halfToFloat(0x7e00)));
}

TEST(HostTensorTest, HalfRoundTripsEveryPattern) {
  for (uint32_t i = 0; i < 65536; ++i) {
    uint16_t h = static_cast<uint16_t>(i);
    float f = halfToFloat(h);
    if (isHalfNan(h)) {
      EXPECT_TRUE(std::isnan(f));
      EXPECT_TRUE(isHalfNan(floatToHalf(f)));
      continue;
    }
    EXPECT_EQ(floatToHalf(f), h) << std::hex << i;
  }
}

TEST(HostTensorTest, HalfRoundsToNearestEven) {
  SplitMix64 rng(42);
  for (int i = 0; i < 200000; ++i) {
    // Random magnitudes from 2^-27 to 2^16, random mantissas and signs.
    int exp = static_cast<int>(rng.nextBelow(43)) - 27;
    float x = std::ldexp(1.0f + static_cast<float>(rng.next() >> 41) /
                                    8388608.0f,
                         exp);
    if (rng.next() & 1)
      x = -x;
    if (std::fabs(x) >= 65520.0f)
      continue;
    expectNearestEvenHalf(x, floatToHalf(x));
  }
  // Every halfway point between consecutive finite halves.
  for (uint32_t h = 0; h < 0x7bff; ++h) {
    double lo = halfToFloat(static_cast<uint16_t>(h));
    double hi = halfToFloat(static_cast<uint16_t>(h + 1));
    float mid = static_cast<float>(0.5 * (lo + hi)); // exact in float
    ASSERT_EQ(static_cast<double>(mid), 0.5 * (lo + hi));
    uint16_t expected = static_cast<uint16_t>((h & 1) ? h + 1 : h);
    EXPECT_EQ(floatToHalf(mid), expected) << std::hex << h;
  }
}

TEST(HostTensorTest, BFloat16) {
  EXPECT_EQ(floatToBFloat16(1.0f), 0x3f80);
  EXPECT_EQ(floatToBFloat16(-2.0f), 0xc000);
  EXPECT_EQ(floatToBFloat16(0.0f), 0x0000);
  EXPECT_EQ(floatToBFloat16(-0.0f), 0x8000);
  // Ties to even: 1 + 2^-8 is halfway between 1 and 1 + 2^-7.
  EXPECT_EQ(floatToBFloat16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
  EXPECT_EQ(floatToBFloat16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
  EXPECT_EQ(floatToBFloat16(1.0f + std::ldexp(1.0f, -8) +
                            std::ldexp(1.0f, -20)),
            0x3f81);
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::max()), 0x7f80);
  EXPECT_EQ(floatToBFloat16(std::numeric_limits<float>::infinity()), 0x7f80);
  uint16_t nan = floatToBFloat16(std::nanf(""));
  EXPECT_TRUE((nan & 0x7f80) == 0x7f80 && (nan & 0x7f));
  uint16_t snan = floatToBFloat16(bitsToFloat(0x7f800001));
  EXPECT_TRUE((snan & 0x7f80) == 0x7f80 && (snan & 0x7f)) << std::hex << snan;
  EXPECT_EQ(bfloat16ToFloat(0x3f80), 1.0f);
  EXPECT_EQ(bfloat16ToFloat(0x4049), 3.140625f);
  for (uint32_t i = 0; i < 65536; ++i) {
    uint16_t b = static_cast<uint16_t>(i);
    float f = bfloat16ToFloat(b);
    if (std::isnan(f))
      continue;
    EXPECT_EQ(floatToBFloat16(f), b) << std::hex << i;
  }
}

TEST(HostTensorTest, DecodeTables) {
  const double *f16 = decodeTable16(DType::F16);
  const double *bf16 = decodeTable16(DType::BF16);
  EXPECT_EQ(f16[0x3c00], 1.0);
  EXPECT_EQ(bf16[0x3f80], 1.0);
  EXPECT_EQ(f16[0x0001], std::ldexp(1.0, -24));
  EXPECT_EQ(decodeTable16(DType::F16), f16); // built once
  EXPECT_EQ(roundTo16(DType::F16, 1.0f), 0x3c00);
  EXPECT_EQ(roundTo16(DType::BF16, 1.0f), 0x3f80);
}

TEST(HostTensorTest, SplitMix64) {
  // Reference output of splitmix64 seeded with 0.
  SplitMix64 zero(0);
  EXPECT_EQ(zero.next(), 0xe220a8397b1dcdafull);
  SplitMix64 a(123), b(123);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(a.next(), b.next());
  SplitMix64 r(7);
  for (int i = 0; i < 100000; ++i) {
    float x = r.nextSymmetric();
    ASSERT_GE(x, -1.0f);
    ASSERT_LT(x, 1.0f);
    ASSERT_LT(r.nextBelow(10), 10u);
  }
  EXPECT_NE(deriveSeed(1, 0), deriveSeed(1, 1));
  EXPECT_NE(deriveSeed(1, 0), deriveSeed(2, 0));
  EXPECT_EQ(deriveSeed(5, 3), deriveSeed(5, 3));
}

TEST(HostTensorTest, RandomTensor) {
  for (DType t : {DType::F16, DType::BF16}) {
    const double *lut = decodeTable16(t);
    std::vector<uint16_t> x = randomTensor16(t, 100000, 9);
    EXPECT_EQ(x, randomTensor16(t, 100000, 9));
    EXPECT_NE(x, randomTensor16(t, 100000, 10));
    double sum = 0, sumSq = 0;
    size_t negatives = 0;
    for (uint16_t bits : x) {
      double v = lut[bits];
      ASSERT_NE(v, 0.0);
      ASSERT_LE(v, 1.0);
      ASSERT_GE(v, -1.0);
      sum += v;
      sumSq += v * v;
      negatives += v < 0;
    }
    // Uniform on [-1, 1]: mean 0, variance 1/3.
    EXPECT_NEAR(sum / x.size(), 0.0, 0.01);
    EXPECT_NEAR(sumSq / x.size(), 1.0 / 3.0, 0.01);
    EXPECT_NEAR(static_cast<double>(negatives) / x.size(), 0.5, 0.01);
    std::set<uint16_t> distinct(x.begin(), x.end());
    EXPECT_GT(distinct.size(), 1000u);
    // Filled in chunks: a shorter tensor is a prefix of a longer one.
    std::vector<uint16_t> prefix = randomTensor16(t, 70001, 9);
    EXPECT_TRUE(std::equal(prefix.begin(), prefix.end(), x.begin()));
  }
}

TEST(HostTensorTest, ParallelForVisitsEachIndexOnce) {
  for (unsigned threads : {0u, 1u, 2u, 3u, 64u}) {
    for (size_t count : {0u, 1u, 5u, 1000u}) {
      std::vector<std::atomic<int>> hits(count);
      parallelFor(count, [&](size_t i) { ++hits[i]; }, threads);
      for (size_t i = 0; i < count; ++i)
        EXPECT_EQ(hits[i].load(), 1);
    }
  }
  EXPECT_GE(defaultThreadCount(), 1u);
}

TEST(HostTensorTest, ErrorStats) {
  ErrorStats s;
  s.add(1.0, 1.0);
  s.add(2.5, 2.0);
  EXPECT_EQ(s.count, 2u);
  EXPECT_EQ(s.nonFinite, 0u);
  EXPECT_DOUBLE_EQ(s.maxAbs, 0.5);
  EXPECT_DOUBLE_EQ(s.relL2(), 0.5 / std::sqrt(5.0));
  EXPECT_TRUE(s.passes(0.3));
  EXPECT_FALSE(s.passes(0.2));

  ErrorStats n;
  n.add(std::nan(""), 1.0);
  n.add(std::numeric_limits<double>::infinity(), 1.0);
  n.add(1.0, 1.0);
  EXPECT_EQ(n.nonFinite, 2u);
  EXPECT_EQ(n.relL2(), 0.0);
  EXPECT_FALSE(n.passes(1.0));

  ErrorStats merged = s;
  merged.merge(n);
  EXPECT_EQ(merged.count, 5u);
  EXPECT_EQ(merged.nonFinite, 2u);
  EXPECT_DOUBLE_EQ(merged.maxAbs, 0.5);

  ErrorStats zero;
  zero.add(0.0, 0.0);
  EXPECT_EQ(zero.relL2(), 0.0);
  EXPECT_TRUE(zero.passes(0.0));
  zero.add(1e-3, 0.0);
  EXPECT_TRUE(std::isinf(zero.relL2()));
  EXPECT_FALSE(zero.passes(1.0));
}
