//===- KernelContractTest.cpp - the compile-time contract and the runtime -===//

#include "GdnSequence.h"
#include "gdn/Runtime/KernelContract.h"

#include <gtest/gtest.h>

using namespace gdn::run;

namespace {
KernelMetaEntry str(const char *k, const char *v) { return {k, v, false}; }
KernelMetaEntry num(const char *k, const char *v) { return {k, v, true}; }
} // namespace

// The names gdn-opt accepts in gdn_prefill expressions are exactly the
// integer scalars the runtime binds (GdnSequence.h; scale and cp_theta are
// f32).
TEST(KernelContract, NamesAreTheRuntimeScalars) {
  std::vector<std::string> runtime;
  for (int i = 0; i < kGdnScalarCount; ++i)
    if (!gdnIsFloatScalar(static_cast<GdnScalarId>(i)))
      runtime.push_back(gdnScalarName(static_cast<GdnScalarId>(i)));
  EXPECT_EQ(gdnExpressionNames(), runtime);
}

TEST(KernelContract, Verify) {
  std::vector<KernelMetaEntry> ok = {str("op", "gdn_prefill"), str("stage", "s"),
                                     num("order", "0"), str("grid", "NT,HV,1"),
                                     str("ws_gamma", "B*T*HV")};
  EXPECT_EQ(verifyKernelMeta(ok), "");
  auto bad = ok;
  bad[3] = str("grid", "NT,HV");
  EXPECT_EQ(verifyKernelMeta(bad),
            "grid = \"NT,HV\": needs 3 expressions (x, y, z), got 2");
  // The functions are not names (the prep kernels' grid).
  auto fn = ok;
  fn[3] = str("grid", "HV,min(NT,65535),cdiv(NT,65535)");
  EXPECT_EQ(verifyKernelMeta(fn), "");
  bad = ok;
  bad[4] = str("ws_gamma", "B*T*HX");
  EXPECT_NE(verifyKernelMeta(bad).find("unknown name 'HX'"), std::string::npos);
  // zero_ws names workspaces the kernel declares.
  auto zero = ok;
  zero.push_back(str("zero_ws", "gamma"));
  EXPECT_EQ(verifyKernelMeta(zero), "");
  zero.back() = str("zero_ws", "gamma, ready");
  EXPECT_EQ(verifyKernelMeta(zero),
            "zero_ws = \"gamma, ready\": must list workspaces this kernel "
            "declares (meta.ws_X), to be zero-filled before each call");
  zero.back() = num("zero_ws", "1");
  EXPECT_NE(verifyKernelMeta(zero).find("must list workspaces"),
            std::string::npos);
  // Every name a grid may use evaluates at run time (same parser).
  ExprVariables vars;
  for (const std::string &n : gdnExpressionNames())
    vars[n] = 3;
  int64_t v = 0;
  EXPECT_TRUE(evaluateIntExpr("cdiv(NT, 2) * HV + has_h0 + varlen", vars, v).ok());
  EXPECT_EQ(v, 2 * 3 + 3 + 3);
}
