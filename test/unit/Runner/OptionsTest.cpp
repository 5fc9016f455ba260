//===- OptionsTest.cpp - gdn-run command line tests -----------------------===//

#include "Options.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace gdn::run;

namespace {

Status parse(std::vector<std::string> args, RunOptions &out) {
  return parseCommandLine(args, out);
}

std::string parseError(std::vector<std::string> args) {
  RunOptions o;
  Status s = parseCommandLine(args, o);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  return s.message();
}

} // namespace

TEST(OptionsTest, Defaults) {
  RunOptions o;
  ASSERT_TRUE(parse({"a.manifest"}, o).ok());
  EXPECT_EQ(o.manifests, std::vector<std::string>{"a.manifest"});
  EXPECT_EQ(o.dim("m", 4096), 4096);
  EXPECT_EQ(o.seed, 1u);
  EXPECT_EQ(o.check, CheckMode::Full);
  EXPECT_DOUBLE_EQ(o.rtol, 1e-3);
  EXPECT_EQ(o.warmup, 10);
  EXPECT_EQ(o.iters, 50);
  EXPECT_EQ(o.device, 0);
  EXPECT_FALSE(o.probe);
  EXPECT_FALSE(o.help);
  EXPECT_FALSE(o.verbose);
}

TEST(OptionsTest, AllOptions) {
  RunOptions o;
  Status s = parse({"--m", "512", "--n=256", "--k", "-3", "--seed", "99",
                    "--check", "sample", "--rtol=2e-2", "--warmup", "0",
                    "--iters=7", "--device", "1", "-v", "x.manifest",
                    "y.manifest"},
                   o);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(o.dim("m", 0), 512);
  EXPECT_EQ(o.dim("n", 0), 256);
  EXPECT_EQ(o.dim("k", 0), -3); // range checks belong to the operator
  EXPECT_EQ(o.seed, 99u);
  EXPECT_EQ(o.check, CheckMode::Sample);
  EXPECT_DOUBLE_EQ(o.rtol, 2e-2);
  EXPECT_EQ(o.warmup, 0);
  EXPECT_EQ(o.iters, 7);
  EXPECT_EQ(o.device, 1);
  EXPECT_TRUE(o.verbose);
  EXPECT_EQ(o.manifests, (std::vector<std::string>{"x.manifest", "y.manifest"}));

  ASSERT_TRUE(parse({"--check", "none", "--probe", "--help"}, o).ok());
  EXPECT_EQ(o.check, CheckMode::None);
  EXPECT_TRUE(o.probe);
  EXPECT_TRUE(o.help);
  ASSERT_TRUE(parse({"-h", "--", "--m"}, o).ok());
  EXPECT_TRUE(o.help);
  EXPECT_EQ(o.manifests, std::vector<std::string>{"--m"});
  EXPECT_STREQ(checkModeName(CheckMode::Full), "full");
}

TEST(OptionsTest, Errors) {
  EXPECT_CONTAINS(parseError({"--frobnicate"}),
                  "unknown option '--frobnicate' (see gdn-run --help)");
  EXPECT_CONTAINS(parseError({"--m"}), "--m needs a value");
  EXPECT_CONTAINS(parseError({"--m", "big"}),
                  "--m: expected an integer, got 'big'");
  EXPECT_CONTAINS(parseError({"--check", "most"}),
                  "--check: expected full, sample or none, got 'most'");
  EXPECT_CONTAINS(parseError({"--rtol", "-1"}),
                  "--rtol: expected a non-negative number");
  EXPECT_CONTAINS(parseError({"--rtol", "1e-3x"}), "--rtol");
  EXPECT_CONTAINS(parseError({"--rtol", "nan"}), "--rtol");
  EXPECT_CONTAINS(parseError({"--iters", "-1"}), "--iters -1 is out of range");
  EXPECT_CONTAINS(parseError({"--seed", "-1"}), "--seed -1 is out of range");
  EXPECT_CONTAINS(parseError({"--probe=1"}), "--probe takes no value");
}

TEST(OptionsTest, GdnPrefillOptions) {
  RunOptions o;
  Status s = parse({"--op", "gdn_prefill", "--B=2", "--T", "1000", "--H", "4",
                    "--HV", "8", "--dtype", "bf16", "--family", "strong",
                    "--scale", "0.125", "--h0", "--cu-seqlens", "0, 410,841",
                    "--determinism", "5", "--load", "in", "--save=out",
                    "--layout", "bhtd", "--qk-l2norm", "--gate-in-kernel",
                    "--beta-sigmoid", "--neg-eigval", "--state-v-first",
                    "a.manifest"},
                   o);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(o.op, "gdn_prefill");
  EXPECT_TRUE(o.qkL2Norm);
  EXPECT_TRUE(o.gateInKernel);
  EXPECT_TRUE(o.betaSigmoid);
  EXPECT_TRUE(o.negEigval);
  EXPECT_TRUE(o.stateVFirst);
  EXPECT_EQ(o.dim("B", 0), 2);
  EXPECT_EQ(o.dim("T", 0), 1000);
  EXPECT_EQ(o.dim("H", 0), 4);
  EXPECT_EQ(o.dim("HV", 0), 8);
  EXPECT_EQ(o.dtype, "bf16");
  EXPECT_EQ(o.family, "strong");
  EXPECT_DOUBLE_EQ(o.scale, 0.125);
  EXPECT_TRUE(o.h0);
  EXPECT_EQ(o.cuSeqlens, (std::vector<int64_t>{0, 410, 841}));
  EXPECT_EQ(o.determinism, 5);
  EXPECT_EQ(o.loadDir, "in");
  EXPECT_EQ(o.saveDir, "out");
  EXPECT_EQ(o.layout, "bhtd");
  EXPECT_TRUE(o.has("--T"));
  EXPECT_TRUE(o.has("--save"));
  EXPECT_FALSE(o.has("--m"));
  EXPECT_FALSE(o.rtolSet);

  RunOptions d;
  ASSERT_TRUE(parse({"--rtol", "0"}, d).ok());
  EXPECT_TRUE(d.rtolSet);
  EXPECT_EQ(d.determinism, 2);
  EXPECT_EQ(d.family, "weak");
  EXPECT_EQ(d.layout, "bthd");
  EXPECT_TRUE(d.dtype.empty());

  EXPECT_CONTAINS(parseError({"--dtype", "f32"}),
                  "--dtype: expected f16 or bf16, got 'f32'");
  EXPECT_CONTAINS(parseError({"--layout", "thd"}),
                  "--layout: expected bthd or bhtd");
  EXPECT_CONTAINS(parseError({"--scale", "0"}),
                  "--scale: expected a positive number");
  EXPECT_CONTAINS(parseError({"--cu-seqlens", "0,1x,2"}),
                  "--cu-seqlens: expected comma-separated integers, got '1x'");
  EXPECT_CONTAINS(parseError({"--cu-seqlens", "0,,2"}), "got ''");
  EXPECT_CONTAINS(parseError({"--determinism", "-1"}),
                  "--determinism -1 is out of range");
  EXPECT_CONTAINS(parseError({"--h0=1"}), "--h0 takes no value");
  EXPECT_CONTAINS(parseError({"--qk-l2norm=1"}), "--qk-l2norm takes no value");
  EXPECT_CONTAINS(parseError({"--load="}), "--load needs a non-empty value");
  EXPECT_CONTAINS(parseError({"--HV"}), "--HV needs a value");
  for (const std::string &name : gdnOnlyOptions())
    EXPECT_CONTAINS(usageText(), name);
  for (const std::string &name : gemmOnlyOptions())
    EXPECT_CONTAINS(usageText(), name);
}

TEST(OptionsTest, CpOptions) {
  RunOptions d;
  ASSERT_TRUE(parse({"a.manifest"}, d).ok());
  EXPECT_EQ(d.cp, "auto");
  EXPECT_EQ(d.cpChunks, 0);
  for (const char *mode : {"on", "off", "auto"}) {
    RunOptions o;
    ASSERT_TRUE(parse({"--cp", mode}, o).ok());
    EXPECT_EQ(o.cp, mode);
    EXPECT_TRUE(o.has("--cp"));
  }
  RunOptions o;
  ASSERT_TRUE(parse({"--cp=on", "--cp-chunks=8"}, o).ok());
  EXPECT_EQ(o.cp, "on");
  EXPECT_EQ(o.cpChunks, 8);
  EXPECT_TRUE(o.has("--cp-chunks"));
  ASSERT_TRUE(parse({"--cp-chunks", "1"}, o).ok());
  EXPECT_EQ(o.cpChunks, 1);

  EXPECT_CONTAINS(parseError({"--cp", "maybe"}),
                  "--cp: expected on, off or auto, got 'maybe' (see gdn-run "
                  "--help)");
  EXPECT_CONTAINS(parseError({"--cp", "ON"}), "got 'ON'");
  EXPECT_CONTAINS(parseError({"--cp"}), "--cp needs a value");
  EXPECT_CONTAINS(parseError({"--cp-chunks", "0"}),
                  "--cp-chunks 0 is out of range [1, 2147483647]");
  EXPECT_CONTAINS(parseError({"--cp-chunks", "-4"}),
                  "--cp-chunks -4 is out of range");
  EXPECT_CONTAINS(parseError({"--cp-chunks", "four"}),
                  "--cp-chunks: expected an integer, got 'four'");
  EXPECT_CONTAINS(parseError({"--cp-chunks"}), "--cp-chunks needs a value");
  // gdn_prefill only, and documented.
  const std::vector<std::string> &gdn = gdnOnlyOptions();
  EXPECT_NE(std::find(gdn.begin(), gdn.end(), "--cp"), gdn.end());
  EXPECT_NE(std::find(gdn.begin(), gdn.end(), "--cp-chunks"), gdn.end());
  EXPECT_CONTAINS(usageText(), "--cp on|off|auto");
  EXPECT_CONTAINS(usageText(), "--cp-chunks M");
  EXPECT_CONTAINS(usageText(), "meta.path");
}

TEST(OptionsTest, BlockV) {
  RunOptions d;
  ASSERT_TRUE(parse({"a.manifest"}, d).ok());
  EXPECT_EQ(d.blockV, 0);
  RunOptions o;
  ASSERT_TRUE(parse({"--block-v", "64"}, o).ok());
  EXPECT_EQ(o.blockV, 64);
  EXPECT_TRUE(o.has("--block-v"));
  ASSERT_TRUE(parse({"--block-v=16"}, o).ok());
  EXPECT_EQ(o.blockV, 16);
  EXPECT_CONTAINS(parseError({"--block-v", "0"}),
                  "--block-v 0 is out of range [1, 2147483647]");
  EXPECT_CONTAINS(parseError({"--block-v", "-16"}),
                  "--block-v -16 is out of range");
  EXPECT_CONTAINS(parseError({"--block-v", "wide"}),
                  "--block-v: expected an integer, got 'wide'");
  EXPECT_CONTAINS(parseError({"--block-v"}), "--block-v needs a value");
  // gdn_prefill only, and documented.
  const std::vector<std::string> &gdn = gdnOnlyOptions();
  EXPECT_NE(std::find(gdn.begin(), gdn.end(), "--block-v"), gdn.end());
  EXPECT_CONTAINS(usageText(), "--block-v N");
  EXPECT_CONTAINS(usageText(), "meta.block_v");
}

TEST(OptionsTest, UsageDocumentsExitCodes) {
  std::string text = usageText();
  for (const char *needle :
       {"usage: gdn-run", "--probe", "--check", "--rtol", "--seed", "--warmup",
        "--iters", "exit status", "  0 ", "  1 ", "  2 ", "  3 ", "  77 ",
        "gdn-run: no CUDA device: <reason>"})
    EXPECT_CONTAINS(text, needle);
}
