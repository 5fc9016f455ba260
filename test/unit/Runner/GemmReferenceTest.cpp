//===- GemmReferenceTest.cpp - fp64 reference GEMM vs a naive loop --------===//

#include "GemmReference.h"

#include "HostTensor.h"

#include <gtest/gtest.h>

#include <cmath>
#include <tuple>

using namespace gdn::run;

namespace {

/// The obvious triple loop over the logical A(i,k) and B(k,j).
std::vector<double> naiveGemm(const GemmProblem &p, DType type,
                              const std::vector<uint16_t> &a,
                              const std::vector<uint16_t> &b) {
  const double *lut = decodeTable16(type);
  std::vector<double> c(static_cast<size_t>(p.m * p.n));
  for (int64_t i = 0; i < p.m; ++i)
    for (int64_t j = 0; j < p.n; ++j) {
      double sum = 0;
      for (int64_t k = 0; k < p.k; ++k)
        sum += lut[a[gemmIndexA(p, i, k)]] * lut[b[gemmIndexB(p, k, j)]];
      c[i * p.n + j] = sum;
    }
  return c;
}

using Shape = std::tuple<int, int, int>;

class GemmReferenceTest
    : public ::testing::TestWithParam<std::tuple<Shape, bool, bool, DType>> {
};

} // namespace

TEST_P(GemmReferenceTest, MatchesNaiveLoop) {
  const auto &[shape, transposeA, transposeB, type] = GetParam();
  GemmProblem p;
  p.m = std::get<0>(shape);
  p.n = std::get<1>(shape);
  p.k = std::get<2>(shape);
  p.transposeA = transposeA;
  p.transposeB = transposeB;
  std::vector<uint16_t> a =
      randomTensor16(type, static_cast<size_t>(p.m * p.k), 1);
  std::vector<uint16_t> b =
      randomTensor16(type, static_cast<size_t>(p.k * p.n), 2);
  std::vector<double> expected = naiveGemm(p, type, a, b);
  for (unsigned threads : {1u, 3u}) {
    std::vector<double> c = referenceGemm(p, type, a.data(), b.data(), threads);
    ASSERT_EQ(c.size(), expected.size());
    for (size_t i = 0; i < c.size(); ++i) {
      // Products of 16-bit floats are exact in fp64; only the summation
      // order differs.
      ASSERT_NEAR(c[i], expected[i], 1e-12 * (1 + std::fabs(expected[i])))
          << "entry " << i << " threads " << threads;
    }
  }
  for (int64_t i : {int64_t(0), p.m - 1})
    for (int64_t j : {int64_t(0), p.n / 2, p.n - 1})
      EXPECT_NEAR(referenceGemmEntry(p, type, a.data(), b.data(), i, j),
                  expected[i * p.n + j], 1e-12);
}

INSTANTIATE_TEST_SUITE_P(
    Shapes, GemmReferenceTest,
    ::testing::Combine(::testing::Values(Shape{1, 1, 1}, Shape{5, 13, 7},
                                         Shape{64, 256, 256},
                                         Shape{67, 300, 513},
                                         Shape{130, 9, 3}),
                       ::testing::Bool(), ::testing::Bool(),
                       ::testing::Values(DType::F16, DType::BF16)));

TEST(GemmReferenceDeterminism, SameResultForAnyThreadCount) {
  GemmProblem p{100, 270, 600, false, true};
  std::vector<uint16_t> a = randomTensor16(DType::F16, 100 * 600, 3);
  std::vector<uint16_t> b = randomTensor16(DType::F16, 600 * 270, 4);
  std::vector<double> one = referenceGemm(p, DType::F16, a.data(), b.data(), 1);
  std::vector<double> many =
      referenceGemm(p, DType::F16, a.data(), b.data(), 7);
  EXPECT_EQ(one, many);
}
