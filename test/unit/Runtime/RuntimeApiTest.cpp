//===- RuntimeApiTest.cpp - libgdn_runtime's C API without a GPU ----------===//

#include "gdn/Runtime/gdn_runtime.h"
#include "gdn/Runtime/gdn_runtime.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace {

std::string lastError() { return gdn_last_error(); }

class RuntimeApiTest : public ::testing::Test {
protected:
  void SetUp() override {
    gdn_status st = gdn_runtime_create(GDN_DEVICE_NONE, nullptr, &rt_);
#ifndef GDN_TEST_EXPECT_BUNDLE
    if (st == GDN_ERROR_KERNELS)
      GTEST_SKIP() << "no embedded kernels: " << lastError();
#endif
    ASSERT_EQ(st, GDN_SUCCESS) << lastError();
  }
  void TearDown() override { gdn_runtime_destroy(rt_); }

  gdn_problem problem(int64_t T = 4096, int64_t H = 16, int64_t HV = 16) {
    gdn_problem p;
    gdn_problem_init(&p);
    p.T = T;
    p.H = H;
    p.HV = HV;
    return p;
  }
  /// Plans `p` and expects `code` with a message containing `needle`.
  void expectPlanError(const gdn_problem &p, gdn_status code,
                       const std::string &needle) {
    const gdn_plan *plan = nullptr;
    EXPECT_EQ(gdn_plan_get(rt_, &p, &plan), code)
        << gdn_status_name(code) << " expected; message: " << lastError();
    EXPECT_EQ(plan, nullptr);
    EXPECT_NE(lastError().find(needle), std::string::npos)
        << "message '" << lastError() << "' lacks '" << needle << "'";
  }

  gdn_runtime *rt_ = nullptr;
};

void *fake(uintptr_t address) { return reinterpret_cast<void *>(address); }

gdn_tensors fakeTensors() {
  gdn_tensors t{};
  t.q = fake(0x100000);
  t.k = fake(0x200000);
  t.v = fake(0x300000);
  t.g = fake(0x400000);
  t.beta = fake(0x500000);
  t.o = fake(0x600000);
  t.final_state = fake(0x700000);
  return t;
}

} // namespace

TEST(RuntimeApi, VersionAndNames) {
  EXPECT_EQ(gdn_runtime_version(), GDN_RUNTIME_VERSION);
  EXPECT_STREQ(gdn_status_name(GDN_SUCCESS), "GDN_SUCCESS");
  EXPECT_STREQ(gdn_status_name(GDN_ERROR_DEVICE_MISMATCH),
               "GDN_ERROR_DEVICE_MISMATCH");
  EXPECT_STREQ(gdn_status_name(static_cast<gdn_status>(999)),
               "GDN_ERROR_UNKNOWN");
}

TEST(RuntimeApi, NullArguments) {
  EXPECT_EQ(gdn_runtime_create(GDN_DEVICE_NONE, nullptr, nullptr),
            GDN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("out is null"), std::string::npos);
  gdn_problem p;
  gdn_problem_init(&p);
  const gdn_plan *plan = nullptr;
  EXPECT_EQ(gdn_plan_get(nullptr, &p, &plan), GDN_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(gdn_run(nullptr, nullptr, nullptr, 0, nullptr, 0),
            GDN_ERROR_INVALID_ARGUMENT);
}

TEST(RuntimeApi, MissingKernelDirectory) {
  gdn_runtime *rt = nullptr;
  EXPECT_EQ(gdn_runtime_create(GDN_DEVICE_NONE, "/nonexistent/gdn-kernels", &rt),
            GDN_ERROR_KERNELS);
  EXPECT_EQ(rt, nullptr);
  EXPECT_NE(lastError().find("/nonexistent/gdn-kernels"), std::string::npos)
      << lastError();
}

TEST_F(RuntimeApiTest, PlanAndCache) {
  gdn_problem p = problem();
  const gdn_plan *a = nullptr, *b = nullptr, *c = nullptr;
  ASSERT_EQ(gdn_plan_get(rt_, &p, &a), GDN_SUCCESS) << lastError();
  ASSERT_EQ(gdn_plan_get(rt_, &p, &b), GDN_SUCCESS) << lastError();
  EXPECT_EQ(a, b) << "the same problem must return the cached plan";
  gdn_problem q = problem(8192);
  ASSERT_EQ(gdn_plan_get(rt_, &q, &c), GDN_SUCCESS) << lastError();
  EXPECT_NE(a, c);

  gdn_plan_info info;
  ASSERT_EQ(gdn_plan_get_info(a, &info), GDN_SUCCESS);
  EXPECT_GT(info.workspace_bytes, 0u);
  EXPECT_EQ(info.workspace_bytes, gdn_plan_workspace_bytes(a));
  // The prep kernel's gamma, Ag and P workspaces alone: B*T*HV f32 +
  // 2 x B*T*HV*64 elements.
  EXPECT_GE(info.workspace_bytes, size_t(4096) * 16 * (4 + 2 * 64 * 2));
  EXPECT_EQ(info.num_sequences, 1);
  EXPECT_EQ(info.g_dtype, GDN_DTYPE_F32);
  EXPECT_GE(info.num_kernels, 2);
  std::string desc = info.description;
  EXPECT_TRUE(desc.rfind("direct", 0) == 0 || desc.rfind("cp", 0) == 0)
      << desc;
  EXPECT_NE(desc.find("132 SMs"), std::string::npos) << desc;
}

// The direct path's form (meta.form = fused): GDN_FORM_FUSED runs the fused
// prep + forward kernel, its prep for flagged sequences and its refined
// kernel instead of the prep, the forward and the forward's refined kernel
// (as many kernels), also under
// GDN_PATH_AUTO; GDN_FORM_PAIR the pair; part of the plan's key; a bad
// value or the cp path with the fused form is refused.
TEST_F(RuntimeApiTest, DirectPathForm) {
  gdn_problem p = problem();
  p.block_v = 128;
  p.path = GDN_PATH_DIRECT;
  const gdn_plan *pair = nullptr, *fused = nullptr;
  p.form = GDN_FORM_PAIR;
  ASSERT_EQ(gdn_plan_get(rt_, &p, &pair), GDN_SUCCESS) << lastError();
  p.form = GDN_FORM_FUSED;
  ASSERT_EQ(gdn_plan_get(rt_, &p, &fused), GDN_SUCCESS) << lastError();
  EXPECT_NE(pair, fused);
  gdn_plan_info a, b;
  ASSERT_EQ(gdn_plan_get_info(pair, &a), GDN_SUCCESS);
  ASSERT_EQ(gdn_plan_get_info(fused, &b), GDN_SUCCESS);
  EXPECT_EQ(b.num_kernels, a.num_kernels);
  EXPECT_NE(std::string(a.description).find("pair (--fused off)"),
            std::string::npos)
      << a.description;
  EXPECT_NE(std::string(b.description).find("fused (--fused on)"),
            std::string::npos)
      << b.description;
  p.path = GDN_PATH_AUTO;
  const gdn_plan *autoPath = nullptr;
  ASSERT_EQ(gdn_plan_get(rt_, &p, &autoPath), GDN_SUCCESS) << lastError();
  gdn_plan_info c;
  ASSERT_EQ(gdn_plan_get_info(autoPath, &c), GDN_SUCCESS);
  EXPECT_EQ(std::string(c.description).rfind("direct (--fused on)", 0), 0u)
      << c.description;
  p.path = GDN_PATH_CP;
  const gdn_plan *bad = nullptr;
  EXPECT_EQ(gdn_plan_get(rt_, &p, &bad), GDN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("--fused on runs the direct path's fused "
                             "kernel, but --cp on asks for the cp path"),
            std::string::npos)
      << lastError();
  p.path = GDN_PATH_AUTO;
  p.form = static_cast<gdn_form>(7);
  EXPECT_EQ(gdn_plan_get(rt_, &p, &bad), GDN_ERROR_INVALID_ARGUMENT);
  EXPECT_NE(lastError().find("form 7 is not GDN_FORM_AUTO"),
            std::string::npos)
      << lastError();
}

// use_qk_l2norm adds the optional first stage (meta.when = qk_l2norm) and
// its two [B, T, H, 128] 16-bit workspaces to the block_v 16 variant; in
// the block_v 128 variant the prep normalizes its own Gram (meta.fuses)
// and the kernels after it apply the norm to what they read (the scalar
// qk_l2norm), so it keeps its kernel count and needs no workspace more.
// Part of the plan's key.
TEST_F(RuntimeApiTest, QkL2NormStage) {
  for (gdn_path path : {GDN_PATH_DIRECT, GDN_PATH_CP}) {
    for (int blockV : {16, 128}) {
      SCOPED_TRACE(std::to_string(blockV));
      gdn_problem p = problem();
      p.path = path;
      p.block_v = blockV;
      const gdn_plan *plain = nullptr, *l2 = nullptr;
      ASSERT_EQ(gdn_plan_get(rt_, &p, &plain), GDN_SUCCESS) << lastError();
      p.use_qk_l2norm = 1;
      ASSERT_EQ(gdn_plan_get(rt_, &p, &l2), GDN_SUCCESS) << lastError();
      EXPECT_NE(plain, l2);
      gdn_plan_info a, b;
      ASSERT_EQ(gdn_plan_get_info(plain, &a), GDN_SUCCESS);
      ASSERT_EQ(gdn_plan_get_info(l2, &b), GDN_SUCCESS);
      EXPECT_EQ(b.num_kernels, a.num_kernels + (blockV == 16 ? 1 : 0));
      const size_t qk =
          blockV == 16 ? size_t(p.B) * p.T * p.H * 128 * 2 : 0;
      EXPECT_GE(b.workspace_bytes + 2 * 256, a.workspace_bytes + 2 * qk);
      EXPECT_LE(b.workspace_bytes, a.workspace_bytes + 2 * qk + 2 * 256);
    }
  }
}

// Any of the per-token transforms is done by the prep kernels themselves
// (meta.fuses = gate_beta: they are the only readers of g and beta), so the
// gate_beta stage and its two [B, T, HV] workspaces stay out of the plan;
// each flag is part of the key.
TEST_F(RuntimeApiTest, GateBetaStage) {
  gdn_problem p = problem();
  const gdn_plan *plain = nullptr;
  ASSERT_EQ(gdn_plan_get(rt_, &p, &plain), GDN_SUCCESS) << lastError();
  gdn_plan_info a;
  ASSERT_EQ(gdn_plan_get_info(plain, &a), GDN_SUCCESS);
  std::set<const gdn_plan *> seen = {plain};
  for (int which = 0; which < 3; ++which) {
    gdn_problem q = problem();
    (which == 0 ? q.use_gate_in_kernel
                : which == 1 ? q.use_beta_sigmoid : q.allow_neg_eigval) = 1;
    const gdn_plan *plan = nullptr;
    ASSERT_EQ(gdn_plan_get(rt_, &q, &plan), GDN_SUCCESS) << lastError();
    EXPECT_TRUE(seen.insert(plan).second) << "flag " << which;
    gdn_plan_info b;
    ASSERT_EQ(gdn_plan_get_info(plan, &b), GDN_SUCCESS);
    EXPECT_EQ(b.num_kernels, a.num_kernels);
    EXPECT_EQ(b.workspace_bytes, a.workspace_bytes);
  }
}

TEST_F(RuntimeApiTest, ForcedPathAndVariant) {
  gdn_problem p = problem(4096, 1, 1);
  p.path = GDN_PATH_CP;
  const gdn_plan *plan = nullptr;
  ASSERT_EQ(gdn_plan_get(rt_, &p, &plan), GDN_SUCCESS) << lastError();
  gdn_plan_info info;
  ASSERT_EQ(gdn_plan_get_info(plan, &info), GDN_SUCCESS);
  EXPECT_EQ(std::string(info.description).rfind("cp (--cp on)", 0), 0u)
      << info.description;
  EXPECT_GE(info.num_kernels, 4); // prep, summary, scan, replay

  gdn_problem d = problem();
  d.path = GDN_PATH_DIRECT;
  d.block_v = 128;
  ASSERT_EQ(gdn_plan_get(rt_, &d, &plan), GDN_SUCCESS) << lastError();
  ASSERT_EQ(gdn_plan_get_info(plan, &info), GDN_SUCCESS);
  EXPECT_NE(std::string(info.description).find("block_v 128"),
            std::string::npos)
      << info.description;

  gdn_problem bad = problem();
  bad.block_v = 32;
  expectPlanError(bad, GDN_ERROR_INVALID_ARGUMENT, "block_v");
  bad = problem();
  bad.path = static_cast<gdn_path>(7);
  expectPlanError(bad, GDN_ERROR_INVALID_ARGUMENT, "path 7");
}

TEST_F(RuntimeApiTest, Bf16AndInitialState) {
  gdn_problem p = problem(1000, 4, 8);
  p.dtype = GDN_DTYPE_BF16;
  p.has_initial_state = 1;
  const gdn_plan *plan = nullptr;
  ASSERT_EQ(gdn_plan_get(rt_, &p, &plan), GDN_SUCCESS) << lastError();
  gdn_plan_info info;
  ASSERT_EQ(gdn_plan_get_info(plan, &info), GDN_SUCCESS);
  EXPECT_TRUE(info.beta_dtype == GDN_DTYPE_BF16 ||
              info.beta_dtype == GDN_DTYPE_F32);
}

TEST_F(RuntimeApiTest, Varlen) {
  std::vector<int64_t> cu = {0, 100, 4196, 5000};
  gdn_problem p = problem(5000, 2, 4);
  p.cu_seqlens = cu.data();
  p.num_cu_seqlens = cu.size();
  const gdn_plan *plan = nullptr;
  ASSERT_EQ(gdn_plan_get(rt_, &p, &plan), GDN_SUCCESS) << lastError();
  gdn_plan_info info;
  ASSERT_EQ(gdn_plan_get_info(plan, &info), GDN_SUCCESS);
  EXPECT_EQ(info.num_sequences, 3);
  // Different boundaries, different plan.
  std::vector<int64_t> cu2 = {0, 2500, 5000};
  gdn_problem p2 = p;
  p2.cu_seqlens = cu2.data();
  p2.num_cu_seqlens = cu2.size();
  const gdn_plan *plan2 = nullptr;
  ASSERT_EQ(gdn_plan_get(rt_, &p2, &plan2), GDN_SUCCESS) << lastError();
  EXPECT_NE(plan, plan2);

  std::vector<int64_t> wrongEnd = {0, 100, 4000};
  p.cu_seqlens = wrongEnd.data();
  p.num_cu_seqlens = wrongEnd.size();
  expectPlanError(p, GDN_ERROR_SHAPE, "cu_seqlens");
  std::vector<int64_t> one = {0};
  p.cu_seqlens = one.data();
  p.num_cu_seqlens = one.size();
  expectPlanError(p, GDN_ERROR_SHAPE, "at least 2 values");
  p.cu_seqlens = cu.data();
  p.num_cu_seqlens = cu.size();
  p.B = 2;
  expectPlanError(p, GDN_ERROR_SHAPE, "B=2");
}

TEST_F(RuntimeApiTest, ProblemErrors) {
  expectPlanError(problem(0), GDN_ERROR_SHAPE, "T=0");
  expectPlanError(problem(4096, 3, 16), GDN_ERROR_SHAPE, "H=3 HV=16");
  gdn_problem p = problem();
  p.head_dim_k = 64;
  expectPlanError(p, GDN_ERROR_SHAPE, "K = V = 128");
  p = problem();
  p.dtype = GDN_DTYPE_F32;
  expectPlanError(p, GDN_ERROR_DTYPE, "f16");
  p = problem();
  p.layout = GDN_LAYOUT_BHTD;
  expectPlanError(p, GDN_ERROR_LAYOUT, "[B, T, heads, D]");
  p = problem();
  p.struct_size = 8;
  expectPlanError(p, GDN_ERROR_INVALID_ARGUMENT, "struct_size");
  p = problem();
  p.scale = 1e300;
  expectPlanError(p, GDN_ERROR_INVALID_ARGUMENT, "f32");
}

TEST_F(RuntimeApiTest, GridLimits) {
  // Grid y = HV = 70000 > 65535.
  expectPlanError(problem(64, 1, 70000), GDN_ERROR_LIMIT,
                  "y = 70000 is out of range [1, 65535]");
}

TEST_F(RuntimeApiTest, RunArgumentChecks) {
  gdn_problem p = problem();
  const gdn_plan *plan = nullptr;
  ASSERT_EQ(gdn_plan_get(rt_, &p, &plan), GDN_SUCCESS) << lastError();
  const size_t ws = gdn_plan_workspace_bytes(plan);
  void *workspace = fake(0x10000000);

  gdn_tensors t = fakeTensors();
  t.beta = nullptr;
  EXPECT_EQ(gdn_run(plan, &t, workspace, ws, nullptr, 0),
            GDN_ERROR_MISSING_TENSOR);
  EXPECT_NE(lastError().find("tensor beta is null"), std::string::npos)
      << lastError();

  t = fakeTensors();
  t.v = fake(0x300002);
  EXPECT_EQ(gdn_run(plan, &t, workspace, ws, nullptr, 0),
            GDN_ERROR_ALIGNMENT);
  EXPECT_NE(lastError().find("tensor v at"), std::string::npos)
      << lastError();

  t = fakeTensors();
  EXPECT_EQ(gdn_run(plan, &t, nullptr, 0, nullptr, 0), GDN_ERROR_WORKSPACE);
  EXPECT_NE(lastError().find(std::to_string(ws)), std::string::npos)
      << lastError();
  EXPECT_EQ(gdn_run(plan, &t, workspace, ws - 1, nullptr, 0),
            GDN_ERROR_WORKSPACE);
  EXPECT_EQ(gdn_run(plan, &t, fake(0x10000010), ws, nullptr, 0),
            GDN_ERROR_ALIGNMENT);
  EXPECT_NE(lastError().find("256-byte"), std::string::npos) << lastError();
  EXPECT_EQ(gdn_run(plan, &t, workspace, ws, nullptr, 1u << 7),
            GDN_ERROR_INVALID_ARGUMENT);

  EXPECT_EQ(gdn_run(plan, &t, workspace, ws, nullptr, 1u << 3),
            GDN_ERROR_INVALID_ARGUMENT);

  // Everything a planning-only runtime can check passes, then: no device
  // (with every known flag too).
  EXPECT_EQ(gdn_run(plan, &t, workspace, ws, nullptr, 0), GDN_ERROR_NO_DEVICE);
  EXPECT_EQ(gdn_run(plan, &t, workspace, ws, nullptr,
                    GDN_RUN_TRUSTED_POINTERS | GDN_RUN_NO_REPLAY),
            GDN_ERROR_NO_DEVICE);
  EXPECT_NE(lastError().find("planning only"), std::string::npos)
      << lastError();

  gdn_problem h = problem();
  h.has_initial_state = 1;
  ASSERT_EQ(gdn_plan_get(rt_, &h, &plan), GDN_SUCCESS) << lastError();
  EXPECT_EQ(gdn_run(plan, &t, workspace, ws, nullptr, 0),
            GDN_ERROR_MISSING_TENSOR);
  EXPECT_NE(lastError().find("initial_state"), std::string::npos)
      << lastError();
}

TEST_F(RuntimeApiTest, ConcurrentPlans) {
  std::vector<const gdn_plan *> got(8, nullptr);
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int i = 0; i < 8; ++i)
    threads.emplace_back([&, i] {
      gdn_problem p = problem(2048 + 64 * (i % 2));
      if (gdn_plan_get(rt_, &p, &got[i]) != GDN_SUCCESS)
        ++failures;
    });
  for (auto &t : threads)
    t.join();
  EXPECT_EQ(failures.load(), 0);
  for (int i = 2; i < 8; ++i)
    EXPECT_EQ(got[i], got[i % 2]);
  EXPECT_NE(got[0], got[1]);
}

TEST(RuntimeCxx, ErrorsThrow) {
  gdn_runtime *rt = nullptr;
  gdn_status st = gdn_runtime_create(GDN_DEVICE_NONE, nullptr, &rt);
  if (st != GDN_SUCCESS) {
#ifdef GDN_TEST_EXPECT_BUNDLE
    FAIL() << lastError();
#else
    GTEST_SKIP() << lastError();
#endif
  }
  gdn_runtime_destroy(rt);
  gdn::Runtime runtime(GDN_DEVICE_NONE);
  gdn::Problem p;
  p.T = 4096;
  p.H = 16;
  p.HV = 16;
  gdn::Plan plan = runtime.plan(p);
  EXPECT_GT(plan.workspaceBytes(), 0u);
  p.HV = 17;
  try {
    runtime.plan(p);
    FAIL() << "HV % H != 0 must throw";
  } catch (const gdn::Error &e) {
    EXPECT_EQ(e.status(), GDN_ERROR_SHAPE);
    EXPECT_NE(std::string(e.what()).find("GDN_ERROR_SHAPE"), std::string::npos);
  }
}
