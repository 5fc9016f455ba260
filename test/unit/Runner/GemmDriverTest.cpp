//===- GemmDriverTest.cpp - GEMM operator validation (no GPU) -------------===//
//
// prepare() must reject every manifest or shape the GEMM kernel cannot run
// with a BadInput message, before any device work.
//
//===----------------------------------------------------------------------===//

#include "GemmDriver.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

using namespace gdn::run;

namespace {

std::string gemmManifest(const std::string &params =
                             "param = A:ptr<f16>\n"
                             "param = B:ptr<f16>\n"
                             "param = C:ptr<f32>\n"
                             "param = M:i32\n"
                             "param = N:i32\n"
                             "param = K:i32\n",
                         const std::string &meta = "") {
  return "gdn_manifest = 1\n"
         "kernel = gemm\n"
         "ptx = gemm.ptx\n"
         "target = sm_90a\n"
         "block = 128,1,1\n"
         "shared_bytes = 98304\n" +
         params +
         "meta.op = gemm\n"
         "meta.block_m = 128\n"
         "meta.block_n = 256\n"
         "meta.block_k = 64\n" +
         meta;
}

struct Fixture : test::DriverFixture {
  Fixture() : DriverFixture("g.manifest") {}
  const GemmDriver &gemm() const { return as<GemmDriver>(); }
};

std::string prepareError(const std::string &text,
                         std::vector<std::string> args = {}) {
  return test::prepareDriverError("g.manifest", text, std::move(args));
}

} // namespace

TEST(GemmDriverTest, DefaultShapeAndGrid) {
  Fixture f;
  Status s = f.prepare(gemmManifest());
  ASSERT_TRUE(s.ok()) << s.message();
  const GemmProblem &p = f.gemm().problem();
  EXPECT_EQ(p.m, 4096);
  EXPECT_EQ(p.n, 4096);
  EXPECT_EQ(p.k, 4096);
  EXPECT_FALSE(p.transposeA);
  EXPECT_FALSE(p.transposeB);
  EXPECT_EQ(f.gemm().inputType(), DType::F16);
  EXPECT_EQ(f.gemm().grid().x, 4096u / 256);
  EXPECT_EQ(f.gemm().grid().y, 4096u / 128);
  EXPECT_EQ(f.gemm().grid().z, 1u);
  EXPECT_EQ(f.driver->shape(), "4096x4096x4096");
}

TEST(GemmDriverTest, RaggedShapeRoundsGridUp) {
  Fixture f;
  ASSERT_TRUE(f.prepare(gemmManifest("param = A:ptr<bf16>\n"
                                     "param = B:ptr<bf16>\n"
                                     "param = C:ptr<f32>\n"
                                     "param = M:i64\n"
                                     "param = N:i64\n"
                                     "param = K:i64\n",
                                     "meta.transpose_a = 1\n"
                                     "meta.transpose_b = 1\n"),
                        {"--m", "129", "--n", "257", "--k", "5"})
                  .ok());
  EXPECT_EQ(f.gemm().grid().x, 2u);
  EXPECT_EQ(f.gemm().grid().y, 2u);
  EXPECT_EQ(f.gemm().inputType(), DType::BF16);
  EXPECT_TRUE(f.gemm().problem().transposeA);
  EXPECT_TRUE(f.gemm().problem().transposeB);
  EXPECT_EQ(f.driver->shape(), "129x257x5");
}

TEST(GemmDriverTest, RejectsWrongParameters) {
  EXPECT_CONTAINS(prepareError(gemmManifest("param = A:ptr<f16>\n"
                                            "param = B:ptr<f16>\n"
                                            "param = C:ptr<f32>\n")),
                  "g.manifest: error: meta.op = gemm expects parameters (A, "
                  "B, C, M, N, K), the manifest declares (A, B, C)");
  EXPECT_CONTAINS(prepareError(gemmManifest("param = B:ptr<f16>\n"
                                            "param = A:ptr<f16>\n"
                                            "param = C:ptr<f32>\n"
                                            "param = M:i32\n"
                                            "param = N:i32\n"
                                            "param = K:i32\n")),
                  "declares (B, A, C, M, N, K)");
  EXPECT_CONTAINS(prepareError(gemmManifest("param = A:ptr<f32>\n"
                                            "param = B:ptr<f32>\n"
                                            "param = C:ptr<f32>\n"
                                            "param = M:i32\n"
                                            "param = N:i32\n"
                                            "param = K:i32\n")),
                  "g.manifest:7: error: gemm parameter A must be ptr<f16> or "
                  "ptr<bf16>, got ptr<f32>");
  EXPECT_CONTAINS(prepareError(gemmManifest("param = A:ptr<f16>\n"
                                            "param = B:ptr<bf16>\n"
                                            "param = C:ptr<f32>\n"
                                            "param = M:i32\n"
                                            "param = N:i32\n"
                                            "param = K:i32\n")),
                  "g.manifest:8: error: gemm parameter B must be ptr<f16> "
                  "(the type of A), got ptr<bf16>");
  EXPECT_CONTAINS(prepareError(gemmManifest("param = A:ptr<f16>\n"
                                            "param = B:ptr<f16>\n"
                                            "param = C:ptr<f16>\n"
                                            "param = M:i32\n"
                                            "param = N:i32\n"
                                            "param = K:i32\n")),
                  "gemm parameter C must be ptr<f32>, got ptr<f16>");
  EXPECT_CONTAINS(prepareError(gemmManifest("param = A:ptr<f16>\n"
                                            "param = B:ptr<f16>\n"
                                            "param = C:ptr<f32>\n"
                                            "param = M:f32\n"
                                            "param = N:i32\n"
                                            "param = K:i32\n")),
                  "gemm parameter M must be i32 or i64, got f32");
  EXPECT_CONTAINS(prepareError(gemmManifest("param = A:ptr<f16>\n"
                                            "param = B:ptr<f16>\n"
                                            "param = C:ptr<f32>\n"
                                            "param = M:i32\n"
                                            "param = N:i64\n"
                                            "param = K:i32\n")),
                  "gemm parameter N must be i32 (the type of M), got i64");
}

TEST(GemmDriverTest, RejectsBadMeta) {
  std::string text = gemmManifest();
  text.replace(text.find("meta.block_k = 64\n"), 18, "");
  EXPECT_CONTAINS(prepareError(text),
                  "g.manifest: error: missing key 'meta.block_k' (required "
                  "by meta.op = gemm)");
  EXPECT_CONTAINS(prepareError(gemmManifest(
                      "param = A:ptr<f16>\nparam = B:ptr<f16>\n"
                      "param = C:ptr<f32>\nparam = M:i32\nparam = N:i32\n"
                      "param = K:i32\n",
                      "meta.transpose_a = 2\n")),
                  "meta.transpose_a = 2 is out of range [0, 1]");
  text = gemmManifest();
  text.replace(text.find("meta.block_m = 128"), 18, "meta.block_m = 0");
  EXPECT_CONTAINS(prepareError(text), "meta.block_m = 0 is out of range");
}

TEST(GemmDriverTest, RejectsBadShapes) {
  EXPECT_CONTAINS(prepareError(gemmManifest(), {"--m", "0"}),
                  "g.manifest: error: bad GEMM shape: --m 0 is out of range "
                  "[1, 2147483647]");
  EXPECT_CONTAINS(prepareError(gemmManifest(), {"--k", "-64"}),
                  "bad GEMM shape: --k -64");
  EXPECT_CONTAINS(prepareError(gemmManifest(), {"--n", "4294967296"}),
                  "bad GEMM shape: --n 4294967296");
  std::string divisible = gemmManifest(
      "param = A:ptr<f16>\nparam = B:ptr<f16>\nparam = C:ptr<f32>\n"
      "param = M:i32\nparam = N:i32\nparam = K:i32\n",
      "meta.requires_divisible = 1\n");
  Fixture ok;
  EXPECT_TRUE(ok.prepare(divisible, {"--m", "256", "--n", "512", "--k", "128"})
                  .ok());
  EXPECT_CONTAINS(prepareError(divisible, {"--m", "200"}),
                  "g.manifest: error: shape 200x4096x4096 is not supported "
                  "by kernel gemm: --m 200 is not a multiple of "
                  "meta.block_m = 128 (meta.requires_divisible = 1)");
  EXPECT_CONTAINS(prepareError(divisible, {"--n", "128"}),
                  "--n 128 is not a multiple of meta.block_n = 256");
  EXPECT_CONTAINS(prepareError(divisible, {"--k", "96"}),
                  "--k 96 is not a multiple of meta.block_k = 64");
  // Without requires_divisible ragged shapes are fine.
  Fixture ragged;
  EXPECT_TRUE(ragged.prepare(gemmManifest(), {"--m", "200", "--k", "96"}).ok());
  // Grid limits: M / block_m rows of CTAs must fit gridDim.y.
  EXPECT_CONTAINS(prepareError(gemmManifest(), {"--m", "2000000000"}),
                  "exceeds the launch limits");
  EXPECT_CONTAINS(prepareError(gemmManifest(),
                               {"--m", "200000", "--n", "200000"}),
                  "GEMM shape 200000x200000x4096 is too large");
}

// A kernel with 32-bit indices (index_bits = 32) takes no operand of more
// than 2^30 elements.
TEST(GemmDriverTest, Index32Bound) {
  std::string narrow = gemmManifest() + "index_bits = 32\n";
  Fixture ok;
  EXPECT_TRUE(ok.prepare(narrow, {"--m", "4096", "--n", "4096"}).ok());
  EXPECT_CONTAINS(prepareError(narrow, {"--m", "40000", "--k", "40000",
                                        "--n", "64"}),
                  "g.manifest: error: shape 40000x64x40000 is not supported "
                  "by kernel gemm: A has 1602560000 elements, more than the "
                  "1073741824 a kernel with index_bits = 32 may take");
}

// requires_multiple lines (tile-assign-layouts' launch requirements) are
// checked against the shape.
TEST(GemmDriverTest, RequiredMultiples) {
  std::string req = gemmManifest() + "requires_multiple.K = 8\n" +
                    "requires_multiple.N = 2\n";
  Fixture ok;
  EXPECT_TRUE(ok.prepare(req, {"--k", "4104", "--n", "130"}).ok());
  EXPECT_CONTAINS(prepareError(req, {"--k", "4100"}),
                  "g.manifest:17: error: kernel gemm needs K to be a multiple "
                  "of 8 (its vector accesses rely on it), got K = 4100");
  EXPECT_CONTAINS(prepareError(req, {"--n", "129"}),
                  "needs N to be a multiple of 2");
}

TEST(GemmDriverTest, ClusterMustDivideGrid) {
  std::string text = gemmManifest() + "cluster = 2,1,1\n";
  Fixture f;
  EXPECT_TRUE(f.prepare(text, {"--n", "512"}).ok()); // grid.x = 2
  EXPECT_CONTAINS(prepareError(text, {"--n", "768"}),
                  "g.manifest: error: grid 3x32x1 is not divisible by "
                  "cluster 2x1x1");
}

TEST(GemmDriverTest, OperatorRegistry) {
  Manifest m;
  std::unique_ptr<OperatorDriver> d;
  std::string text = gemmManifest();
  text.replace(text.find("meta.op = gemm"), 14, "meta.op = conv");
  ASSERT_TRUE(parseManifest(text, "g.manifest", m).ok());
  Status s = createOperatorDriver(m, d);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(),
                  "g.manifest:13: error: unknown meta.op 'conv' (known: gemm, tril_inverse, gdn_prefill)");
  text.replace(text.find("meta.op = conv\n"), 15, "");
  ASSERT_TRUE(parseManifest(text, "g.manifest", m).ok());
  s = createOperatorDriver(m, d);
  EXPECT_CONTAINS(s.message(), "g.manifest: error: missing key 'meta.op'");
  bool hasGemm = false;
  for (const OperatorInfo &info : operatorRegistry())
    hasGemm |= std::string(info.name) == "gemm";
  EXPECT_TRUE(hasGemm);
}
