//===- TrilInverseDriverTest.cpp - tril_inverse operator (no GPU) ---------===//
//
// prepare() rejects what the kernel cannot run; the generated L and the fp64
// reference are what TrilInverseDriver.h says they are.
//
//===----------------------------------------------------------------------===//

#include "TrilInverseDriver.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

using namespace gdn::run;

namespace {

std::string triManifest(const std::string &params = "param = L:ptr<f32>\n"
                                                    "param = T:ptr<f32>\n"
                                                    "param = count:i32\n",
                        const std::string &meta = "meta.n = 64\n") {
  return "gdn_manifest = 1\n"
         "kernel = tril_inverse_n64\n"
         "ptx = t.ptx\n"
         "target = sm_90a\n"
         "block = 128,1,1\n"
         "shared_bytes = 34816\n" +
         params + "meta.op = tril_inverse\n" + meta;
}

struct Fixture : test::DriverFixture {
  Fixture() : DriverFixture("t.manifest") {}
  const TrilInverseDriver &tri() const { return as<TrilInverseDriver>(); }
};

std::string prepareError(const std::string &text,
                         std::vector<std::string> args = {}) {
  return test::prepareDriverError("t.manifest", text, std::move(args));
}

} // namespace

TEST(TrilInverseDriverTest, DefaultsAndOptions) {
  Fixture f;
  Status s = f.prepare(triManifest());
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(f.tri().n(), 64);
  EXPECT_EQ(f.tri().count(), TrilInverseDriver::kDefaultCount);
  EXPECT_EQ(f.tri().rtol(), TrilInverseDriver::kDefaultRtol);
  EXPECT_EQ(f.driver->shape(), "1024x64x64");

  Fixture g;
  ASSERT_TRUE(g.prepare(triManifest(), {"--m", "7", "--rtol", "1e-4"}).ok());
  EXPECT_EQ(g.tri().count(), 7);
  EXPECT_EQ(g.tri().rtol(), 1e-4);
}

TEST(TrilInverseDriverTest, RejectsBadManifestsAndShapes) {
  EXPECT_CONTAINS(prepareError(triManifest("param = L:ptr<f32>\n"
                                           "param = T:ptr<f32>\n")),
                  "meta.op = tril_inverse expects parameters (L, T, count), "
                  "the manifest declares (L, T)");
  EXPECT_CONTAINS(prepareError(triManifest("param = L:ptr<f16>\n"
                                           "param = T:ptr<f32>\n"
                                           "param = count:i32\n")),
                  "tril_inverse parameter L must be ptr<f32>, got ptr<f16>");
  EXPECT_CONTAINS(prepareError(triManifest("param = L:ptr<f32>\n"
                                           "param = T:ptr<f32>\n"
                                           "param = count:i64\n")),
                  "tril_inverse parameter count must be i32, got i64");
  EXPECT_CONTAINS(prepareError(triManifest(
                      "param = L:ptr<f32>\nparam = T:ptr<f32>\n"
                      "param = count:i32\n",
                      "")),
                  "meta.n");
  EXPECT_CONTAINS(prepareError(triManifest(
                      "param = L:ptr<f32>\nparam = T:ptr<f32>\n"
                      "param = count:i32\n",
                      "meta.n = 512\n")),
                  "meta.n");
  EXPECT_CONTAINS(prepareError(triManifest(), {"--m", "0"}),
                  "--m (the number of matrices) 0 is out of range");
  EXPECT_CONTAINS(prepareError(triManifest(), {"--check", "sample"}),
                  "--check sample is for gemm");
}

// L: beta_i <k_i, k_j> below the diagonal (|.| < 1 for unit keys and beta <
// 1), 3 on it, NaN above it; the same seed gives the same matrices.
TEST(TrilInverseDriverTest, InputsHaveTheDocumentedForm) {
  const int64_t n = 24, count = 3;
  std::vector<float> l = TrilInverseDriver::makeInputs(n, count, 5);
  ASSERT_EQ(l.size(), static_cast<size_t>(count * n * n));
  bool someNonzero = false;
  for (int64_t b = 0; b < count; ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float v = l[(b * n + i) * n + j];
        if (j > i)
          EXPECT_TRUE(std::isnan(v)) << i << "," << j;
        else if (j == i)
          EXPECT_EQ(v, 3.0f);
        else {
          EXPECT_LT(std::fabs(v), 1.0f);
          someNonzero |= v != 0.0f;
        }
      }
  EXPECT_TRUE(someNonzero);
  std::vector<float> again = TrilInverseDriver::makeInputs(n, count, 5);
  EXPECT_EQ(0, std::memcmp(l.data(), again.data(), l.size() * sizeof(float)));
  std::vector<float> other = TrilInverseDriver::makeInputs(n, count, 6);
  EXPECT_NE(0, std::memcmp(l.data(), other.data(), l.size() * sizeof(float)));
}

// (I + L) T = I for the reference, with L's diagonal and upper part ignored;
// and a 2x2 case by hand.
TEST(TrilInverseDriverTest, ReferenceIsTheInverse) {
  const int64_t n = 40, count = 2;
  std::vector<float> l = TrilInverseDriver::makeInputs(n, count, 9);
  std::vector<double> t = TrilInverseDriver::reference(l, n, count);
  for (int64_t b = 0; b < count; ++b)
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = t[(b * n + i) * n + j];
        for (int64_t k = 0; k < i; ++k)
          s += double(l[(b * n + i) * n + k]) * t[(b * n + k) * n + j];
        EXPECT_NEAR(s, i == j ? 1.0 : 0.0, 1e-12) << b << ":" << i << "," << j;
        if (j > i) {
          EXPECT_EQ(t[(b * n + i) * n + j], 0.0);
        }
      }
  std::vector<float> two = {7.0f, NAN, 0.5f, -2.0f};
  std::vector<double> inv = TrilInverseDriver::reference(two, 2, 1);
  EXPECT_EQ(inv[0], 1.0);
  EXPECT_EQ(inv[1], 0.0);
  EXPECT_EQ(inv[2], -0.5);
  EXPECT_EQ(inv[3], 1.0);
}
