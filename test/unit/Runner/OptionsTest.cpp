//===- OptionsTest.cpp - gdn-run command line tests -----------------------===//

#include "Options.h"

#include <gtest/gtest.h>

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

#define EXPECT_CONTAINS(haystack, needle)                                      \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos)            \
      << "'" << (haystack) << "' does not contain '" << (needle) << "'"

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

TEST(OptionsTest, UsageDocumentsExitCodes) {
  std::string text = usageText();
  for (const char *needle :
       {"usage: gdn-run", "--probe", "--check", "--rtol", "--seed", "--warmup",
        "--iters", "exit status", "  0 ", "  1 ", "  2 ", "  3 ", "  77 ",
        "gdn-run: no CUDA device: <reason>"})
    EXPECT_CONTAINS(text, needle);
}
