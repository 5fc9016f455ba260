//===- ManifestTest.cpp - gdn-run manifest parser tests -------------------===//
//
// Every accepted form and every rejection of the manifest format, without a
// GPU: rejections must be BadInput and name the file, the line and the
// problem.
//
//===----------------------------------------------------------------------===//

#include "Manifest.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <unistd.h>

using namespace gdn::run;

namespace {

const char *const kGemmManifest = R"(gdn_manifest = 1                 # format version
kernel = gemm_f16_128x128x64     # kernel symbol in the PTX
ptx = gemm.ptx
target = sm_90a
block = 128,1,1
cluster = 2,1,1
shared_bytes = 98304
param = A:ptr<f16>
param = B:ptr<f16>
param = C:ptr<f32>
param = M:i32
param = N:i32
param = K:i32
meta.op = gemm
meta.block_m = 128
meta.block_n = 128
meta.block_k = 64
meta.transpose_a = 0
meta.transpose_b = 0
)";

/// Minimal valid manifest, to which tests append or from which they remove
/// lines.
std::string minimal(const std::string &extra = "") {
  return "gdn_manifest = 1\n"
         "kernel = k\n"
         "ptx = k.ptx\n"
         "target = sm_90a\n"
         "block = 128,1,1\n"
         "shared_bytes = 0\n" +
         extra;
}

/// Parses `text` as "dir/test.manifest", expecting a BadInput error, and
/// returns its message.
std::string parseError(const std::string &text) {
  Manifest m;
  Status s = parseManifest(text, "dir/test.manifest", m);
  EXPECT_FALSE(s.ok()) << "accepted:\n" << text;
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  return s.message();
}

} // namespace

TEST(ManifestTest, ParsesFullExample) {
  Manifest m;
  Status s = parseManifest(kGemmManifest, "kernels/gemm/gemm.manifest", m);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(m.version, 1);
  EXPECT_EQ(m.kernel, "gemm_f16_128x128x64");
  EXPECT_EQ(m.ptx, "gemm.ptx");
  EXPECT_EQ(m.ptxPath, "kernels/gemm/gemm.ptx");
  EXPECT_EQ(m.target, "sm_90a");
  EXPECT_EQ(m.block, (std::array<unsigned, 3>{128, 1, 1}));
  EXPECT_EQ(m.cluster, (std::array<unsigned, 3>{2, 1, 1}));
  EXPECT_TRUE(m.hasCluster());
  EXPECT_EQ(m.threadsPerBlock(), 128u);
  EXPECT_EQ(m.sharedBytes, 98304u);
  ASSERT_EQ(m.params.size(), 6u);
  const char *names[] = {"A", "B", "C", "M", "N", "K"};
  for (size_t i = 0; i < 6; ++i)
    EXPECT_EQ(m.params[i].name, names[i]);
  EXPECT_EQ(m.params[0].type, (ParamType{true, DType::F16}));
  EXPECT_EQ(m.params[2].type, (ParamType{true, DType::F32}));
  EXPECT_EQ(m.params[3].type, (ParamType{false, DType::I32}));
  EXPECT_EQ(m.params[0].line, 8);
  ASSERT_EQ(m.meta.size(), 6u);
  EXPECT_EQ(m.meta[0].key, "op");
  EXPECT_EQ(m.meta[0].value, "gemm");
  EXPECT_EQ(m.meta[0].line, 14);
  EXPECT_EQ(m.metaString("block_k"), "64");
  EXPECT_EQ(m.metaString("absent", "dflt"), "dflt");
  EXPECT_EQ(m.findMeta("absent"), nullptr);
}

TEST(ManifestTest, DefaultsAndOptionalKeys) {
  Manifest m;
  ASSERT_TRUE(parseManifest(minimal(), "k.manifest", m).ok());
  EXPECT_EQ(m.cluster, (std::array<unsigned, 3>{1, 1, 1}));
  EXPECT_FALSE(m.hasCluster());
  EXPECT_EQ(m.sharedBytes, 0u);
  EXPECT_TRUE(m.params.empty());
  EXPECT_TRUE(m.meta.empty());
  EXPECT_EQ(m.ptxPath, "k.ptx"); // no directory part
  EXPECT_EQ(m.indexBits, 64);
}

TEST(ManifestTest, RequiredMultiples) {
  Manifest m;
  ASSERT_TRUE(parseManifest(minimal("param = K:i32\nrequires_multiple.K = 8\n"),
                            "k.manifest", m)
                  .ok());
  ASSERT_EQ(m.requiredMultiples.size(), 1u);
  EXPECT_EQ(m.requiredMultiples[0].name, "K");
  EXPECT_EQ(m.requiredMultiples[0].multiple, 8);
  EXPECT_TRUE(checkRequiredMultiples(m, {{"K", 64}}).ok());
  EXPECT_CONTAINS(checkRequiredMultiples(m, {{"M", 3}}).message(),
                  "k.manifest:8: error: kernel k requires a multiple of 8 of "
                  "K, a scalar this launcher does not bind");
  EXPECT_CONTAINS(checkRequiredMultiples(m, {{"K", 12}}).message(),
                  "k.manifest:8: error: kernel k needs K to be a multiple of "
                  "8 (its vector accesses rely on it), got K = 12");
  EXPECT_CONTAINS(parseError(minimal("requires_multiple.K = 8\n")),
                  "requires_multiple.K: K is not an integer scalar parameter");
  EXPECT_CONTAINS(
      parseError(minimal("param = P:ptr<f16>\nrequires_multiple.P = 8\n")),
      "P is not an integer scalar parameter");
  EXPECT_CONTAINS(
      parseError(minimal("param = K:i32\nrequires_multiple.K = 0\n")),
      "the multiple must be positive");
  EXPECT_CONTAINS(parseError(minimal("param = K:i32\nrequires_multiple.K = "
                                     "8\nrequires_multiple.K = 8\n")),
                  "duplicate key 'requires_multiple.K'");
  EXPECT_CONTAINS(parseError(minimal("requires_multiple. = 8\n")),
                  "requires_multiple: '' is not a parameter name");
}

TEST(ManifestTest, IndexBits) {
  Manifest m;
  ASSERT_TRUE(parseManifest(minimal("index_bits = 32\n"), "k.manifest", m).ok());
  EXPECT_EQ(m.indexBits, 32);
  ASSERT_TRUE(parseManifest(minimal("index_bits = 64\n"), "k.manifest", m).ok());
  EXPECT_EQ(m.indexBits, 64);
  EXPECT_CONTAINS(parseError(minimal("index_bits = 16\n")),
                  "dir/test.manifest:7: error: index_bits: expected 32 or 64, "
                  "got '16'");
  EXPECT_CONTAINS(parseError(minimal("index_bits = 32\nindex_bits = 32\n")),
                  "duplicate key 'index_bits'");
}

TEST(ManifestTest, GridDependency) {
  Manifest m;
  ASSERT_TRUE(parseManifest(minimal(), "k.manifest", m).ok());
  EXPECT_FALSE(m.gridDependency);
  ASSERT_TRUE(
      parseManifest(minimal("grid_dependency = 1\n"), "k.manifest", m).ok());
  EXPECT_TRUE(m.gridDependency);
  ASSERT_TRUE(
      parseManifest(minimal("grid_dependency = 0\n"), "k.manifest", m).ok());
  EXPECT_FALSE(m.gridDependency);
  ASSERT_TRUE(
      parseManifest(minimal("grid_dependency = 2\n"), "k.manifest", m).ok());
  EXPECT_EQ(m.gridDependency, 2);
  EXPECT_TRUE(m.waitsForFlags());
  EXPECT_FALSE(m.waitsForGrid());
  ASSERT_TRUE(
      parseManifest(minimal("grid_dependency = 3\n"), "k.manifest", m).ok());
  EXPECT_EQ(m.gridDependency, 3);
  EXPECT_TRUE(m.waitsForFlags());
  EXPECT_TRUE(m.waitsForGrid());
  EXPECT_CONTAINS(parseError(minimal("grid_dependency = yes\n")),
                  "dir/test.manifest:7: error: grid_dependency: expected 0, "
                  "1, 2 or 3, got 'yes'");
  for (const char *bad : {"4", "12", "-1", "1x"})
    EXPECT_CONTAINS(
        parseError(minimal(std::string("grid_dependency = ") + bad + "\n")),
        "dir/test.manifest:7: error: grid_dependency") << bad;
  EXPECT_CONTAINS(
      parseError(minimal("grid_dependency = 1\ngrid_dependency = 1\n")),
      "duplicate key 'grid_dependency'");
}

TEST(ManifestTest, PtxPathResolution) {
  Manifest m;
  ASSERT_TRUE(parseManifest(minimal(), "/abs/dir/k.manifest", m).ok());
  EXPECT_EQ(m.ptxPath, "/abs/dir/k.ptx");
  ASSERT_TRUE(parseManifest(minimal(), "/k.manifest", m).ok());
  EXPECT_EQ(m.ptxPath, "/k.ptx");
  std::string text = minimal();
  text.replace(text.find("ptx = k.ptx"), 11, "ptx = /elsewhere/k.ptx");
  ASSERT_TRUE(parseManifest(text, "dir/k.manifest", m).ok());
  EXPECT_EQ(m.ptxPath, "/elsewhere/k.ptx");
  text = minimal();
  text.replace(text.find("ptx = k.ptx"), 11, "ptx = ../ptx/k.ptx");
  ASSERT_TRUE(parseManifest(text, "a/b/k.manifest", m).ok());
  EXPECT_EQ(m.ptxPath, "a/b/../ptx/k.ptx");
}

TEST(ManifestTest, WhitespaceCommentsAndBlankLines) {
  const char *text = "# leading comment\n"
                     "\n"
                     "   gdn_manifest=1\r\n"
                     "\tkernel\t=\tk$1   # trailing\n"
                     "ptx =   my kernels/k.ptx  \n"
                     "target = sm_90\n"
                     "block = 64 , 2 ,1\n"
                     "   \t  \n"
                     "shared_bytes = 0 # none\n"
                     "param =  x : ptr< bf16 >\n"
                     "param=n:i64\n"
                     "meta.note = free form, text: ok = yes\n"
                     "# trailing comment without newline";
  Manifest m;
  Status s = parseManifest(text, "k.manifest", m);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(m.kernel, "k$1");
  EXPECT_EQ(m.ptx, "my kernels/k.ptx");
  EXPECT_EQ(m.target, "sm_90");
  EXPECT_EQ(m.block, (std::array<unsigned, 3>{64, 2, 1}));
  ASSERT_EQ(m.params.size(), 2u);
  EXPECT_EQ(m.params[0].name, "x");
  EXPECT_EQ(m.params[0].type, (ParamType{true, DType::BF16}));
  EXPECT_EQ(m.params[1].type, (ParamType{false, DType::I64}));
  EXPECT_EQ(m.metaString("note"), "free form, text: ok = yes");
}

TEST(ManifestTest, AllParamTypes) {
  Manifest m;
  ASSERT_TRUE(parseManifest(minimal("param = a:ptr<f16>\n"
                                    "param = b:ptr<bf16>\n"
                                    "param = c:ptr<f32>\n"
                                    "param = d:ptr<i32>\n"
                                    "param = e:ptr<i64>\n"
                                    "param = f:i32\n"
                                    "param = g:i64\n"
                                    "param = h:f32\n"),
                            "k.manifest", m)
                  .ok());
  ASSERT_EQ(m.params.size(), 8u);
  const char *spelled[] = {"ptr<f16>", "ptr<bf16>", "ptr<f32>", "ptr<i32>",
                           "ptr<i64>", "i32",       "i64",      "f32"};
  for (size_t i = 0; i < 8; ++i)
    EXPECT_EQ(m.params[i].type.str(), spelled[i]);
}

TEST(ManifestTest, RejectsUnknownKey) {
  std::string msg = parseError(minimal("kernal = typo\n"));
  EXPECT_CONTAINS(msg, "dir/test.manifest:7: error: unknown key 'kernal'");
}

TEST(ManifestTest, RejectsDuplicateKeys) {
  std::string msg = parseError(minimal("kernel = other\n"));
  EXPECT_CONTAINS(msg, "dir/test.manifest:7: error: duplicate key 'kernel'");
  EXPECT_CONTAINS(msg, "first set on line 2");
  msg = parseError(minimal("cluster = 1,1,1\ncluster = 2,1,1\n"));
  EXPECT_CONTAINS(msg, ":8: error: duplicate key 'cluster'");
  msg = parseError(minimal("meta.op = gemm\nmeta.op = gdn\n"));
  EXPECT_CONTAINS(msg, ":8: error: duplicate key 'meta.op'");
  msg = parseError(minimal("gdn_manifest = 1\n"));
  EXPECT_CONTAINS(msg, ":7: error: duplicate key 'gdn_manifest'");
}

TEST(ManifestTest, ParamIsRepeatableButNamesAreUnique) {
  Manifest m;
  ASSERT_TRUE(
      parseManifest(minimal("param = a:i32\nparam = b:i32\n"), "x", m).ok());
  std::string msg = parseError(minimal("param = a:i32\nparam = a:i64\n"));
  EXPECT_CONTAINS(msg, ":8: error: duplicate parameter 'a'");
  EXPECT_CONTAINS(msg, "line 7");
}

class MissingKeyTest : public ::testing::TestWithParam<const char *> {};

TEST_P(MissingKeyTest, RejectsMissingRequiredKey) {
  std::string key = GetParam();
  std::string text = minimal(), kept;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = text.substr(pos, nl - pos + 1);
    if (line.compare(0, key.size() + 1, key + " ") != 0)
      kept += line;
    pos = nl + 1;
  }
  std::string msg = parseError(kept);
  EXPECT_CONTAINS(msg, "dir/test.manifest: error: missing required key '" +
                           key + "'");
}

INSTANTIATE_TEST_SUITE_P(Required, MissingKeyTest,
                         ::testing::Values("gdn_manifest", "kernel", "ptx",
                                           "target", "block", "shared_bytes"));

TEST(ManifestTest, RejectsEmptyFile) {
  EXPECT_CONTAINS(parseError(""), "missing required key 'gdn_manifest'");
  EXPECT_CONTAINS(parseError("# only a comment\n\n"),
                  "missing required key 'gdn_manifest'");
}

TEST(ManifestTest, RejectsUnsupportedVersion) {
  std::string text = minimal();
  text.replace(0, 16, "gdn_manifest = 2");
  std::string msg = parseError(text);
  EXPECT_CONTAINS(msg, "dir/test.manifest:1: error: unsupported manifest "
                       "version 2");
  // Reported before the keys a future version might add.
  msg = parseError("future_key = 1\n" + text);
  EXPECT_CONTAINS(msg, ":2: error: unsupported manifest version 2");
  text.replace(0, 16, "gdn_manifest = one");
  EXPECT_CONTAINS(parseError(text),
                  ":1: error: gdn_manifest: expected an integer version");
  text = minimal();
  text.replace(0, 16, "gdn_manifest = 0");
  EXPECT_CONTAINS(parseError(text), "unsupported manifest version 0");
}

TEST(ManifestTest, RejectsSyntaxErrors) {
  EXPECT_CONTAINS(parseError(minimal("just some words\n")),
                  ":7: error: expected 'key = value', got 'just some words'");
  EXPECT_CONTAINS(parseError(minimal(" = value\n")),
                  ":7: error: missing key before '='");
  EXPECT_CONTAINS(parseError(minimal("meta.op =   # nothing\n")),
                  ":7: error: missing value for key 'meta.op'");
  EXPECT_CONTAINS(parseError(minimal("bad key = 1\n")),
                  ":7: error: malformed key 'bad key'");
  EXPECT_CONTAINS(parseError(minimal("meta. = 1\n")),
                  ":7: error: empty meta key");
  EXPECT_CONTAINS(parseError(minimal(std::string("x = \0\n", 6))),
                  ":7: error: unexpected NUL byte");
}

TEST(ManifestTest, RejectsMalformedNumbers) {
  auto withShared = [](const std::string &value) {
    std::string text = minimal();
    text.replace(text.find("shared_bytes = 0"), 16, "shared_bytes = " + value);
    return text;
  };
  for (const char *bad : {"12k", "0x100", "1.5", "+5", "- 1", "1 2"})
    EXPECT_CONTAINS(parseError(withShared(bad)),
                    ":6: error: shared_bytes: expected a non-negative "
                    "integer");
  EXPECT_CONTAINS(parseError(withShared("-1")),
                  ":6: error: shared_bytes = -1 is out of range");
  EXPECT_CONTAINS(parseError(withShared("99999999999999999999999")),
                  ":6: error: shared_bytes: expected a non-negative integer");
  EXPECT_CONTAINS(parseError(withShared("4294967296")),
                  "shared_bytes = 4294967296 is out of range");
}

TEST(ManifestTest, RejectsMalformedLists) {
  auto withBlock = [](const std::string &value) {
    std::string text = minimal();
    text.replace(text.find("block = 128,1,1"), 15, "block = " + value);
    return text;
  };
  for (const char *bad : {"128", "128,1", "128,1,1,1"})
    EXPECT_CONTAINS(parseError(withBlock(bad)),
                    ":5: error: block: expected three comma-separated "
                    "integers");
  EXPECT_CONTAINS(parseError(withBlock("128,,1")),
                  ":5: error: block: malformed integer '' in '128,,1'");
  EXPECT_CONTAINS(parseError(withBlock("128,x,1")),
                  "block: malformed integer 'x'");
  EXPECT_CONTAINS(parseError(withBlock("0,1,1")),
                  ":5: error: block: dimension 0 is out of range [1, 65535]");
  EXPECT_CONTAINS(parseError(withBlock("2048,1,1")),
                  ":5: error: block: 2048 threads per block, more than 1024");
  EXPECT_CONTAINS(parseError(withBlock("32,32,2")), "2048 threads per block");
  EXPECT_CONTAINS(parseError(minimal("cluster = 1;1;1\n")),
                  ":7: error: cluster: expected three comma-separated");
  EXPECT_CONTAINS(parseError(minimal("cluster = -2,1,1\n")),
                  "cluster: dimension -2 is out of range");
}

TEST(ManifestTest, RejectsMalformedParams) {
  EXPECT_CONTAINS(parseError(minimal("param = A\n")),
                  ":7: error: param: expected 'name:type', got 'A'");
  EXPECT_CONTAINS(parseError(minimal("param = 1A:i32\n")),
                  ":7: error: param: malformed parameter name '1A'");
  EXPECT_CONTAINS(parseError(minimal("param = :i32\n")),
                  "malformed parameter name ''");
  for (const char *bad :
       {"ptr<f8>", "ptr<f16", "ptr<>", "f16", "bf16", "ptr", "int", "ptr<ptr<f16>>",
        "PTR<f16>"})
    EXPECT_CONTAINS(parseError(minimal(std::string("param = A:") + bad + "\n")),
                    ":7: error: param A: unknown type '" + std::string(bad) +
                        "'");
}

TEST(ManifestTest, RejectsMalformedTargetAndKernel) {
  auto withTarget = [](const std::string &value) {
    std::string text = minimal();
    text.replace(text.find("target = sm_90a"), 15, "target = " + value);
    return text;
  };
  for (const char *bad : {"sm90", "sm_", "sm_90b", "compute_90a", "sm_9a0"})
    EXPECT_CONTAINS(parseError(withTarget(bad)),
                    ":4: error: target: expected 'sm_<NN>'");
  Manifest m;
  EXPECT_TRUE(parseManifest(withTarget("sm_100f"), "x", m).ok());
  std::string text = minimal();
  text.replace(text.find("kernel = k"), 10, "kernel = my kernel");
  EXPECT_CONTAINS(parseError(text),
                  ":2: error: kernel: malformed symbol name 'my kernel'");
}

TEST(ManifestTest, MetaInt) {
  Manifest m;
  ASSERT_TRUE(parseManifest(minimal("meta.op = gemm\n"
                                    "meta.a = 128\n"
                                    "meta.b = -3\n"
                                    "meta.c = x12\n"),
                            "dir/t.manifest", m)
                  .ok());
  int64_t v = 0;
  ASSERT_TRUE(m.metaInt("a", v, true).ok());
  EXPECT_EQ(v, 128);
  ASSERT_TRUE(m.metaInt("b", v, true).ok());
  EXPECT_EQ(v, -3);
  ASSERT_TRUE(m.metaInt("absent", v, false, 7).ok());
  EXPECT_EQ(v, 7);
  Status s = m.metaInt("absent", v, true);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "dir/t.manifest: error: missing key "
                               "'meta.absent' (required by meta.op = gemm)");
  s = m.metaInt("c", v, true);
  EXPECT_CONTAINS(s.message(),
                  "dir/t.manifest:10: error: meta.c: expected an integer, "
                  "got 'x12'");
  s = m.metaInt("b", v, true, 0, 0, 1);
  EXPECT_CONTAINS(s.message(),
                  "dir/t.manifest:9: error: meta.b = -3 is out of range [0, "
                  "1]");
}

TEST(ManifestTest, LoadFromFile) {
  char dirTemplate[] = "/tmp/gdn-manifest-test-XXXXXX";
  ASSERT_NE(mkdtemp(dirTemplate), nullptr);
  std::string dir = dirTemplate;
  std::string path = dir + "/gemm.manifest";
  {
    std::ofstream out(path);
    out << kGemmManifest;
  }
  Manifest m;
  Status s = loadManifest(path, m);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(m.path, path);
  EXPECT_EQ(m.ptxPath, dir + "/gemm.ptx");

  s = loadManifest(dir + "/missing.manifest", m);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), dir + "/missing.manifest: error: cannot read "
                                     "manifest: No such file or directory");
  s = loadManifest(dir, m);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "is a directory");

  std::remove(path.c_str());
  rmdir(dir.c_str());
}

TEST(ManifestTest, ParseInt64) {
  int64_t v = 0;
  EXPECT_TRUE(parseInt64("0", v));
  EXPECT_EQ(v, 0);
  EXPECT_TRUE(parseInt64("-17", v));
  EXPECT_EQ(v, -17);
  EXPECT_TRUE(parseInt64("9223372036854775807", v));
  EXPECT_EQ(v, INT64_MAX);
  EXPECT_TRUE(parseInt64("-9223372036854775808", v));
  EXPECT_EQ(v, INT64_MIN);
  for (const char *bad : {"", "-", "9223372036854775808",
                          "-9223372036854775809", " 1", "1 ", "1e3", "0x10",
                          "+1", "--1"})
    EXPECT_FALSE(parseInt64(bad, v)) << bad;
}

TEST(ManifestTest, ParamTypeRoundTrip) {
  for (const char *t : {"ptr<f16>", "ptr<bf16>", "ptr<f32>", "ptr<i32>",
                        "ptr<i64>", "i32", "i64", "f32"}) {
    ParamType pt;
    ASSERT_TRUE(parseParamType(t, pt)) << t;
    EXPECT_EQ(pt.str(), t);
  }
  EXPECT_EQ(dtypeSize(DType::F16), 2u);
  EXPECT_EQ(dtypeSize(DType::BF16), 2u);
  EXPECT_EQ(dtypeSize(DType::F32), 4u);
  EXPECT_EQ(dtypeSize(DType::I64), 8u);
}

TEST(ManifestTest, DirectoryOf) {
  EXPECT_EQ(directoryOf("a.manifest"), "");
  EXPECT_EQ(directoryOf("a/b.manifest"), "a");
  EXPECT_EQ(directoryOf("/a/b/c"), "/a/b");
  EXPECT_EQ(directoryOf("/c"), "/");
}
