//===- TensorMapTest.cpp - TMA tensor maps in the kernel ABI (no GPU) -----===//
//
// The `tensormap.<name>` manifest lines (every accepted form and every
// rejection), planTensorMap (the cuTensorMapEncodeTiled arguments derived
// from the bound values), the generic binding of KernelArgs with a fake
// encoder standing in for the driver, and the GEMM / GDN drivers' use of it.
//
//===----------------------------------------------------------------------===//

#include "GdnDriver.h"
#include "GemmDriver.h"
#include "TensorMaps.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <cstring>

using namespace gdn::run;

namespace {

/// A GEMM-like manifest with one tensor map over A (`map` is the value of
/// its tensormap line; "" leaves the line out).
std::string tmaManifest(const std::string &map,
                        const std::string &aType = "ptr<f16>",
                        const std::string &extraParams = "") {
  std::string text = "gdn_manifest = 1\n"
                     "kernel = k\n"
                     "ptx = k.ptx\n"
                     "target = sm_90a\n"
                     "block = 128,1,1\n"
                     "shared_bytes = 0\n"
                     "param = A:" +
                     aType +
                     "\n"
                     "param = M:i32\n"
                     "param = K:i32\n"
                     "param = tmA:tensormap\n" +
                     extraParams;
  if (!map.empty())
    text += "tensormap.tmA = " + map + "\n";
  return text;
}

const char *const kGoodMap =
    "base=A; dims=K, M; strides=K; box=64, 128; swizzle=128; l2=256; "
    "fill=zero";

std::string parseError(const std::string &text) {
  Manifest m;
  Status s = parseManifest(text, "t.manifest", m);
  EXPECT_EQ(s.code(), ExitCode::BadInput) << "accepted:\n" << text;
  return s.message();
}

Manifest parsed(const std::string &text) {
  Manifest m;
  Status s = parseManifest(text, "t.manifest", m);
  EXPECT_TRUE(s.ok()) << s.message();
  return m;
}

} // namespace

//===----------------------------------------------------------------------===//
// Manifest lines
//===----------------------------------------------------------------------===//

TEST(TensorMapManifestTest, ParsesTheExample) {
  Manifest m = parsed(tmaManifest(kGoodMap));
  ASSERT_EQ(m.params.size(), 4u);
  EXPECT_TRUE(m.params[3].type.isTensorMap);
  EXPECT_EQ(m.params[3].type.str(), "tensormap");
  EXPECT_FALSE(m.params[3].type.isIntScalar());
  EXPECT_TRUE(m.params[1].type.isIntScalar());
  ASSERT_EQ(m.tensorMaps.size(), 1u);
  const TensorMapDecl &t = m.tensorMaps[0];
  EXPECT_EQ(t.name, "tmA");
  EXPECT_EQ(t.line, 11);
  EXPECT_EQ(t.paramIndex, 3u);
  EXPECT_EQ(t.base, "A");
  EXPECT_EQ(t.baseIndex, 0u);
  EXPECT_EQ(t.elem, DType::F16);
  EXPECT_EQ(t.dims, (std::vector<std::string>{"K", "M"}));
  EXPECT_EQ(t.strides, (std::vector<std::string>{"K"}));
  EXPECT_EQ(t.box, (std::vector<uint32_t>{64, 128}));
  EXPECT_EQ(t.swizzle, TmaSwizzle::B128);
  EXPECT_EQ(t.l2, TmaL2Promotion::B256);
  EXPECT_EQ(t.fill, TmaFill::Zero);
  EXPECT_EQ(m.findTensorMap("tmA"), &m.tensorMaps[0]);
  EXPECT_EQ(m.findTensorMap("A"), nullptr);
}

TEST(TensorMapManifestTest, FieldsInAnyOrderWithDefaults) {
  Manifest m = parsed(tmaManifest(
      " swizzle = none ;box=8,4,2;strides=cdiv(K, 8) * 8, K*M ;"
      "dims=K,M, 2 ; base = A",
      "ptr<bf16>"));
  const TensorMapDecl &t = m.tensorMaps.at(0);
  EXPECT_EQ(t.elem, DType::BF16);
  EXPECT_EQ(t.rank(), 3u);
  EXPECT_EQ(t.strides, (std::vector<std::string>{"cdiv(K, 8) * 8", "K*M"}));
  EXPECT_EQ(t.swizzle, TmaSwizzle::None);
  EXPECT_EQ(t.l2, TmaL2Promotion::None); // default
  EXPECT_EQ(t.fill, TmaFill::Zero);      // default
}

TEST(TensorMapManifestTest, RankOneAndFive) {
  Manifest m =
      parsed(tmaManifest("base=A; dims=M*K; strides=; box=256; swizzle=none; "
                         "fill=nan; l2=64"));
  EXPECT_EQ(m.tensorMaps.at(0).rank(), 1u);
  EXPECT_TRUE(m.tensorMaps.at(0).strides.empty());
  EXPECT_EQ(m.tensorMaps.at(0).fill, TmaFill::Nan);
  EXPECT_EQ(m.tensorMaps.at(0).l2, TmaL2Promotion::B64);
  m = parsed(tmaManifest("base=A; dims=8,2,2,2,2; strides=8,16,32,64; "
                         "box=8,1,1,1,1; swizzle=32; l2=128"));
  EXPECT_EQ(m.tensorMaps.at(0).rank(), 5u);
  EXPECT_EQ(m.tensorMaps.at(0).swizzle, TmaSwizzle::B32);
  EXPECT_EQ(m.tensorMaps.at(0).l2, TmaL2Promotion::B128);
}

TEST(TensorMapManifestTest, MapLineMayPrecedeItsParam) {
  Manifest m = parsed("gdn_manifest = 1\nkernel = k\nptx = k.ptx\n"
                      "target = sm_90a\nblock = 128,1,1\nshared_bytes = 0\n"
                      "tensormap.t2 = base=X; dims=64; strides=; box=64; "
                      "swizzle=128\n"
                      "param = t2:tensormap\nparam = X:ptr<f16>\n"
                      "param = t1:tensormap\n"
                      "tensormap.t1 = base=X; dims=8; strides=; box=8; "
                      "swizzle=none\n");
  ASSERT_EQ(m.tensorMaps.size(), 2u);
  EXPECT_EQ(m.tensorMaps[0].name, "t2"); // parameter order
  EXPECT_EQ(m.tensorMaps[1].name, "t1");
  EXPECT_EQ(m.tensorMaps[0].baseIndex, 1u);
}

TEST(TensorMapManifestTest, RejectsEveryMalformedField) {
  const struct {
    std::string map;
    std::string expected;
  } cases[] = {
      {"base=A; dims=K, M; strides=K; box=64, 128",
       "t.manifest:11: error: tensormap.tmA: missing field 'swizzle'"},
      {"dims=K, M; strides=K; box=64, 128; swizzle=128",
       "missing field 'base'"},
      {"base=A; strides=K; box=64, 128; swizzle=128", "missing field 'dims'"},
      {"base=A; dims=K, M; box=64, 128; swizzle=128",
       "missing field 'strides'"},
      {"base=A; dims=K, M; strides=K; swizzle=128", "missing field 'box'"},
      {std::string(kGoodMap) + "; colour=red", "unknown field 'colour'"},
      {std::string(kGoodMap) + "; swizzle=64", "duplicate field 'swizzle'"},
      {std::string(kGoodMap) + ";", "empty field"},
      {"base=A;; dims=K, M; strides=K; box=64, 128; swizzle=128",
       "empty field"},
      {"base A; dims=K, M; strides=K; box=64, 128; swizzle=128",
       "expected 'key=value', got 'base A'"},
      {"base=; dims=K, M; strides=K; box=64, 128; swizzle=128",
       "empty value for 'base'"},
      {"base=Q; dims=K, M; strides=K; box=64, 128; swizzle=128",
       "base 'Q' is not a parameter of the kernel"},
      {"base=M; dims=K, M; strides=K; box=64, 128; swizzle=128",
       "base M is i32, not a ptr<...> parameter"},
      {"base=tmA; dims=K, M; strides=K; box=64, 128; swizzle=128",
       "base tmA is tensormap, not a ptr<...> parameter"},
      {"base=A; dims=1,1,1,1,1,1; strides=1,1,1,1,1; box=8,1,1,1,1,1; "
       "swizzle=none",
       "dims has 6 entries; a tensor map has rank 1 to 5"},
      {"base=A; dims=K, ; strides=K; box=64, 128; swizzle=128",
       "dims[1]: empty expression"},
      {"base=A; dims=K, M+; strides=K; box=64, 128; swizzle=128",
       "dims[1]: in 'M+': expected a number"},
      {"base=A; dims=K, cdiv(M; strides=K; box=64, 128; swizzle=128",
       "dims[1]: in 'cdiv(M': expected ','"},
      {"base=A; dims=K, M; strides=K, M; box=64, 128; swizzle=128",
       "strides has 2 entries, expected rank - 1 = 1"},
      {"base=A; dims=K, M; strides=; box=64, 128; swizzle=128",
       "strides has 0 entries, expected rank - 1 = 1"},
      {"base=A; dims=K, M; strides=K*; box=64, 128; swizzle=128",
       "strides[0]: in 'K*'"},
      {"base=A; dims=K, M; strides=K; box=64; swizzle=128",
       "box has 1 entries, expected one per dim (2)"},
      {"base=A; dims=K, M; strides=K; box=64, M; swizzle=128",
       "box[1]: expected an integer, got 'M'"},
      {"base=A; dims=K, M; strides=K; box=64, 0; swizzle=128",
       "box[1] = 0 is out of range [1, 256]"},
      {"base=A; dims=K, M; strides=K; box=64, 257; swizzle=128",
       "box[1] = 257 is out of range [1, 256]"},
      {"base=A; dims=K, M; strides=K; box=64, 128; swizzle=16",
       "swizzle: expected none, 32, 64 or 128, got '16'"},
      {"base=A; dims=K, M; strides=K; box=4, 128; swizzle=none",
       "box[0] = 4 f16 elements = 8 bytes is not a multiple of 16 bytes"},
      {"base=A; dims=K, M; strides=K; box=128, 128; swizzle=128",
       "box[0] = 128 f16 elements = 256 bytes exceeds the 128-byte swizzle "
       "span"},
      {"base=A; dims=K, M; strides=K; box=32, 128; swizzle=32",
       "box[0] = 32 f16 elements = 64 bytes exceeds the 32-byte swizzle"},
      {"base=A; dims=K, M; strides=K; box=64, 128; swizzle=128; l2=512",
       "l2: expected none, 64, 128 or 256, got '512'"},
      {"base=A; dims=K, M; strides=K; box=64, 128; swizzle=128; fill=one",
       "fill: expected zero or nan, got 'one'"},
  };
  for (const auto &c : cases) {
    SCOPED_TRACE(c.map);
    std::string msg = parseError(tmaManifest(c.map));
    EXPECT_CONTAINS(msg, "t.manifest:11: error: tensormap.tmA: ");
    EXPECT_CONTAINS(msg, c.expected);
  }
  // A swizzle span that does fit: 64 f16 = 128 bytes; 16 f32 = 64 bytes.
  parsed(tmaManifest("base=A; dims=K, M; strides=K; box=16, 8; swizzle=64",
                     "ptr<f32>"));
  EXPECT_CONTAINS(
      parseError(tmaManifest("base=A; dims=K, M; strides=K; box=32, 128; "
                             "swizzle=128; fill=nan",
                             "ptr<i32>")),
      "fill=nan needs a floating-point map, but base A is ptr<i32>");
}

TEST(TensorMapManifestTest, RejectsMapsWithoutParamsAndParamsWithoutMaps) {
  EXPECT_CONTAINS(parseError(tmaManifest("") + "tensormap.tmB = " + kGoodMap +
                             "\n"),
                  "t.manifest:11: error: tensormap.tmB: no parameter 'tmB'");
  EXPECT_CONTAINS(parseError(tmaManifest(kGoodMap) + "tensormap.M = " +
                             kGoodMap + "\n"),
                  "tensormap.M: parameter M is i32, not tensormap");
  EXPECT_CONTAINS(parseError(tmaManifest("")),
                  "t.manifest:10: error: parameter tmA is a tensormap but no "
                  "'tensormap.tmA = base=...");
  EXPECT_CONTAINS(parseError(tmaManifest(kGoodMap) + "tensormap.tmA = " +
                             kGoodMap + "\n"),
                  "t.manifest:12: error: duplicate key 'tensormap.tmA' (first "
                  "set on line 11)");
  EXPECT_CONTAINS(parseError(tmaManifest(kGoodMap) + "tensormap. = x\n"),
                  "empty tensor map name");
}

//===----------------------------------------------------------------------===//
// planTensorMap
//===----------------------------------------------------------------------===//

namespace {

Status plan(const std::string &map, const ExprVariables &vars,
            TensorMapPlan &out, CUdeviceptr base = 0x7f0000000100ull,
            const std::string &aType = "ptr<f16>") {
  static Manifest m; // the message names it; planTensorMap keeps no pointer
  Status s = parseManifest(tmaManifest(map, aType), "t.manifest", m);
  if (!s.ok())
    return s;
  return planTensorMap(m, m.tensorMaps.at(0), vars, base, out);
}

std::string planError(const std::string &map, const ExprVariables &vars,
                      CUdeviceptr base = 0x7f0000000100ull,
                      const std::string &aType = "ptr<f16>") {
  TensorMapPlan p;
  Status s = plan(map, vars, p, base, aType);
  EXPECT_EQ(s.code(), ExitCode::BadInput) << map;
  return s.message();
}

} // namespace

TEST(TensorMapPlanTest, DerivesTheEncodeArguments) {
  TensorMapPlan p;
  Status s = plan(kGoodMap, {{"M", 4096}, {"K", 1000 + 24}}, p);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(p.dataType, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  EXPECT_EQ(p.rank, 2u);
  EXPECT_EQ(p.globalDim[0], 1024u); // K innermost
  EXPECT_EQ(p.globalDim[1], 4096u);
  EXPECT_EQ(p.globalStrides[0], 2048u); // K f16 elements, in bytes
  EXPECT_EQ(p.boxDim[0], 64u);
  EXPECT_EQ(p.boxDim[1], 128u);
  EXPECT_EQ(p.elementStrides[0], 1u);
  EXPECT_EQ(p.elementStrides[1], 1u);
  EXPECT_EQ(p.interleave, CU_TENSOR_MAP_INTERLEAVE_NONE);
  EXPECT_EQ(p.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(p.l2Promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  EXPECT_EQ(p.oobFill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  EXPECT_EQ(p.globalAddress, 0x7f0000000100ull);
}

TEST(TensorMapPlanTest, EveryElementTypeAndOption) {
  const struct {
    const char *type;
    CUtensorMapDataType expected;
    uint64_t elemBytes;
  } types[] = {{"ptr<f16>", CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2},
               {"ptr<bf16>", CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2},
               {"ptr<f32>", CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 4},
               {"ptr<i32>", CU_TENSOR_MAP_DATA_TYPE_INT32, 4},
               {"ptr<i64>", CU_TENSOR_MAP_DATA_TYPE_INT64, 8}};
  for (const auto &t : types) {
    SCOPED_TRACE(t.type);
    TensorMapPlan p;
    Status s = plan("base=A; dims=K, M, 3; strides=K, K*M; box=16, 2, 1; "
                    "swizzle=none; l2=64",
                    {{"M", 10}, {"K", 64}}, p, 0x1000, t.type);
    ASSERT_TRUE(s.ok()) << s.message();
    EXPECT_EQ(p.dataType, t.expected);
    EXPECT_EQ(p.rank, 3u);
    EXPECT_EQ(p.globalDim[2], 3u);
    EXPECT_EQ(p.globalStrides[0], 64 * t.elemBytes);
    EXPECT_EQ(p.globalStrides[1], 640 * t.elemBytes);
    EXPECT_EQ(p.swizzle, CU_TENSOR_MAP_SWIZZLE_NONE);
    EXPECT_EQ(p.l2Promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_64B);
  }
  TensorMapPlan p;
  ASSERT_TRUE(plan("base=A; dims=K; strides=; box=32; swizzle=64; fill=nan; "
                   "l2=128",
                   {{"K", 7}}, p)
                  .ok());
  EXPECT_EQ(p.oobFill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA);
  EXPECT_EQ(p.swizzle, CU_TENSOR_MAP_SWIZZLE_64B);
  EXPECT_EQ(p.l2Promotion, CU_TENSOR_MAP_L2_PROMOTION_L2_128B);
  ASSERT_TRUE(plan("base=A; dims=K; strides=; box=16; swizzle=32",
                   {{"K", 7}}, p)
                  .ok());
  EXPECT_EQ(p.swizzle, CU_TENSOR_MAP_SWIZZLE_32B);
  EXPECT_EQ(p.l2Promotion, CU_TENSOR_MAP_L2_PROMOTION_NONE);
}

TEST(TensorMapPlanTest, ExpressionsUseTheGridGrammar) {
  TensorMapPlan p;
  ASSERT_TRUE(plan("base=A; dims=cdiv(K, 64) * 64, (M + 1) / 2; "
                   "strides=cdiv(K, 64) * 64; box=64, 128; swizzle=128",
                   {{"M", 9}, {"K", 100}}, p)
                  .ok());
  EXPECT_EQ(p.globalDim[0], 128u);
  EXPECT_EQ(p.globalDim[1], 5u);
  EXPECT_EQ(p.globalStrides[0], 256u);
}

TEST(TensorMapPlanTest, RejectsBadValuesNamingMapAndField) {
  const ExprVariables vars = {{"M", 4096}, {"K", 4096}, {"Z", 0}};
  EXPECT_CONTAINS(planError(kGoodMap, {{"M", 0}, {"K", 64}}),
                  "t.manifest:11: error: tensor map tmA: dims[1] = M "
                  "evaluates to 0 (must be >= 1)");
  EXPECT_CONTAINS(planError("base=A; dims=K, 4294967297; strides=K; "
                            "box=64, 128; swizzle=128",
                            vars),
                  "tensor map tmA: dims[1] = 4294967297 evaluates to "
                  "4294967297, more than 2^31 (TMA coordinates are 32-bit signed)");
  EXPECT_CONTAINS(planError("base=A; dims=K, 2147483649; strides=K; "
                            "box=64, 128; swizzle=128",
                            vars),
                  "more than 2^31");
  TensorMapPlan ok; // exactly 2^31 is allowed
  EXPECT_TRUE(plan("base=A; dims=K, 2147483648; strides=K; box=64, 128; "
                   "swizzle=128",
                   vars, ok)
                  .ok());
  EXPECT_CONTAINS(planError("base=A; dims=K, Q; strides=K; box=64, 128; "
                            "swizzle=128",
                            vars),
                  "tensor map tmA: dims[1] = Q: in 'Q': unknown name 'Q'");
  EXPECT_CONTAINS(planError("base=A; dims=K, M/Z; strides=K; box=64, 128; "
                            "swizzle=128",
                            vars),
                  "dims[1] = M/Z: in 'M/Z': division by zero");
  EXPECT_CONTAINS(planError("base=A; dims=K, M; strides=K+4; box=64, 128; "
                            "swizzle=128",
                            vars),
                  "tensor map tmA: strides[0] = K+4 = 4100 f16 elements = "
                  "8200 bytes is not a multiple of 16 bytes");
  EXPECT_CONTAINS(planError("base=A; dims=K, M; strides=Z; box=64, 128; "
                            "swizzle=128",
                            vars),
                  "strides[0] = Z evaluates to 0 elements (must be >= 1)");
  EXPECT_CONTAINS(planError("base=A; dims=K, M; strides=549755813888; "
                            "box=64, 128; swizzle=128",
                            vars),
                  "strides[0] = 549755813888 = 549755813888 elements is "
                  "2^40 bytes or more");
  EXPECT_CONTAINS(planError("base=A; dims=K, M; strides=4611686018427387904; "
                            "box=64, 128; swizzle=128",
                            vars),
                  "2^40 bytes or more"); // the byte count would overflow
  EXPECT_CONTAINS(planError("base=A; dims=K, M; strides=M/2; box=64, 128; "
                            "swizzle=128",
                            vars),
                  "strides[0] = M/2 = 2048 elements (4096 bytes) is smaller "
                  "than the 8192 bytes of dims 0..0: rows would overlap");
  EXPECT_CONTAINS(planError("base=A; dims=K, M, 2; strides=K, K; "
                            "box=64, 128, 1; swizzle=128",
                            vars),
                  "strides[1] = K = 4096 elements (8192 bytes) is smaller "
                  "than the 33554432 bytes of dims 0..1");
  EXPECT_CONTAINS(planError(kGoodMap, vars, 0x1008),
                  "tensor map tmA: base A = 0x1008 is not 16-byte aligned");
  EXPECT_CONTAINS(planError(kGoodMap, vars, 0),
                  "tensor map tmA: base A is a null pointer");
}

//===----------------------------------------------------------------------===//
// KernelArgs and the encoder
//===----------------------------------------------------------------------===//

namespace {

struct EncodeCall {
  int calls = 0;
  CUtensorMapDataType type{};
  cuuint32_t rank = 0;
  void *address = nullptr;
  std::vector<cuuint64_t> dims, strides;
  std::vector<cuuint32_t> box, elementStrides;
  CUtensorMapInterleave interleave{};
  CUtensorMapSwizzle swizzle{};
  CUtensorMapL2promotion l2{};
  CUtensorMapFloatOOBfill fill{};
  bool aligned = false;
  CUresult result = CUDA_SUCCESS;
};
EncodeCall gEncode;

CUresult fakeEncode(CUtensorMap *map, CUtensorMapDataType type,
                    cuuint32_t rank, void *address, const cuuint64_t *dims,
                    const cuuint64_t *strides, const cuuint32_t *box,
                    const cuuint32_t *elementStrides,
                    CUtensorMapInterleave interleave,
                    CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2,
                    CUtensorMapFloatOOBfill fill) {
  EncodeCall &c = gEncode;
  ++c.calls;
  c.type = type;
  c.rank = rank;
  c.address = address;
  c.dims.assign(dims, dims + rank);
  c.strides.assign(strides, strides + rank - 1);
  c.box.assign(box, box + rank);
  c.elementStrides.assign(elementStrides, elementStrides + rank);
  c.interleave = interleave;
  c.swizzle = swizzle;
  c.l2 = l2;
  c.fill = fill;
  c.aligned = reinterpret_cast<uintptr_t>(map) % 64 == 0;
  if (c.result == CUDA_SUCCESS)
    std::memset(map, 0xA5, sizeof *map);
  return c.result;
}

} // namespace

TEST(KernelArgsTest, BindsScalarsPointersAndTensorMaps) {
  Manifest m = parsed(tmaManifest(kGoodMap, "ptr<f16>", "param = s:f32\n"
                                                         "param = n:i64\n"));
  KernelArgs args(m);
  args.setPointer(0, 0x7000);
  args.setInt(1, 256); // M: i32
  args.setInt(2, 512); // K: i32
  args.setF32(4, 0.5f);
  args.setInt(5, int64_t(1) << 40); // n: i64
  EXPECT_EQ(args.pointer(0), 0x7000u);
  ExprVariables vars = args.intScalars();
  EXPECT_EQ(vars, (ExprVariables{{"M", 256}, {"K", 512}, {"n", 1ll << 40}}));
  // The kernel's own scalars override the driver's names.
  EXPECT_EQ(args.expressionVariables({{"M", 1}, {"T", 9}}).at("M"), 256);
  EXPECT_EQ(args.expressionVariables({{"M", 1}, {"T", 9}}).at("T"), 9);

  CudaDriver driver; // not loaded: only the encoder is set
  driver.cuTensorMapEncodeTiled = &fakeEncode;
  gEncode = EncodeCall();
  Status s = args.bindTensorMaps(driver, {});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(gEncode.calls, 1);
  EXPECT_EQ(gEncode.type, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
  EXPECT_EQ(gEncode.rank, 2u);
  EXPECT_EQ(gEncode.address, reinterpret_cast<void *>(0x7000));
  EXPECT_EQ(gEncode.dims, (std::vector<cuuint64_t>{512, 256}));
  EXPECT_EQ(gEncode.strides, (std::vector<cuuint64_t>{1024}));
  EXPECT_EQ(gEncode.box, (std::vector<cuuint32_t>{64, 128}));
  EXPECT_EQ(gEncode.elementStrides, (std::vector<cuuint32_t>{1, 1}));
  EXPECT_EQ(gEncode.interleave, CU_TENSOR_MAP_INTERLEAVE_NONE);
  EXPECT_EQ(gEncode.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
  EXPECT_EQ(gEncode.l2, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
  EXPECT_EQ(gEncode.fill, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  EXPECT_TRUE(gEncode.aligned);

  // The argument array: values for scalars and pointers, the host map (64-
  // byte aligned, encoded) for the tensormap parameter.
  void **a = args.data();
  CUdeviceptr ptr;
  std::memcpy(&ptr, a[0], sizeof ptr);
  EXPECT_EQ(ptr, 0x7000u);
  EXPECT_EQ(*static_cast<int32_t *>(a[1]), 256);
  EXPECT_EQ(*static_cast<int32_t *>(a[2]), 512);
  EXPECT_EQ(a[3], static_cast<const void *>(args.tensorMap(3)));
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a[3]) % 64, 0u);
  EXPECT_EQ(static_cast<unsigned char *>(a[3])[127], 0xA5);
  EXPECT_EQ(*static_cast<float *>(a[4]), 0.5f);
  EXPECT_EQ(*static_cast<int64_t *>(a[5]), 1ll << 40);
  EXPECT_EQ(args.tensorMap(0), nullptr);
}

TEST(KernelArgsTest, ReportsEncoderErrorsAndUnboundParams) {
  Manifest m = parsed(tmaManifest(kGoodMap));
  CudaDriver driver;
  driver.cuTensorMapEncodeTiled = &fakeEncode;
  {
    KernelArgs args(m);
    args.setPointer(0, 0x7000);
    args.setInt(1, 256);
    Status s = args.bindTensorMaps(driver, {});
    EXPECT_EQ(s.code(), ExitCode::BadInput);
    EXPECT_CONTAINS(s.message(), "parameter K was not bound");
  }
  KernelArgs args(m);
  args.setPointer(0, 0x7000);
  args.setInt(1, 256);
  args.setInt(2, 512);
  gEncode = EncodeCall();
  gEncode.result = CUDA_ERROR_INVALID_VALUE;
  Status s = args.bindTensorMaps(driver, {});
  EXPECT_EQ(s.code(), ExitCode::CudaError);
  EXPECT_CONTAINS(s.message(), "tensor map tmA: cuTensorMapEncodeTiled "
                               "failed: CUresult 1");
  EXPECT_CONTAINS(s.message(), "dims 512x256, strides 1024 B, box 64x128, "
                               "swizzle 128B, l2 256B, fill zero");
  // A bad value is reported before the encoder is called.
  gEncode = EncodeCall();
  args.setInt(1, 0);
  s = args.bindTensorMaps(driver, {});
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "dims[1] = M evaluates to 0");
  EXPECT_EQ(gEncode.calls, 0);
  // checkTensorMaps: the same validation with a stand-in base pointer.
  KernelArgs hostOnly(m);
  hostOnly.setInt(1, 64);
  hostOnly.setInt(2, 76);
  s = hostOnly.checkTensorMaps({});
  EXPECT_CONTAINS(s.message(), "strides[0] = K = 76 f16 elements = 152 "
                               "bytes is not a multiple of 16 bytes");
  hostOnly.setInt(2, 64);
  EXPECT_TRUE(hostOnly.checkTensorMaps({}).ok());
}

// The planned hot path (gdn_run): checkTensorMaps evaluates dims and
// strides once; encodeTensorMapAt then checks this call's base pointer and
// encodes exactly what bindTensorMaps would.
TEST(KernelArgsTest, PlannedMapsEncodeAtEachCallsBase) {
  Manifest m = parsed(tmaManifest(kGoodMap));
  KernelArgs planning(m);
  planning.setInt(1, 256);
  planning.setInt(2, 512);
  std::vector<TensorMapPlan> plans;
  Status s = planning.checkTensorMaps({}, &plans);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].globalDim[0], 512u);
  EXPECT_EQ(plans[0].globalDim[1], 256u);
  EXPECT_EQ(plans[0].globalStrides[0], 1024u);

  CudaDriver driver;
  driver.cuTensorMapEncodeTiled = &fakeEncode;
  KernelArgs args(m);
  args.setPointer(0, 0x9000);
  args.setInt(1, 256);
  args.setInt(2, 512);
  gEncode = EncodeCall();
  ASSERT_TRUE(args.bindTensorMaps(driver, {}).ok());
  EncodeCall generic = gEncode;

  alignas(64) CUtensorMap map;
  gEncode = EncodeCall();
  s = encodeTensorMapAt(driver, m, m.tensorMaps[0], plans[0], 0x9000, map);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(gEncode.calls, 1);
  EXPECT_EQ(gEncode.address, generic.address);
  EXPECT_EQ(gEncode.dims, generic.dims);
  EXPECT_EQ(gEncode.strides, generic.strides);
  EXPECT_EQ(gEncode.box, generic.box);
  EXPECT_EQ(gEncode.swizzle, generic.swizzle);
  EXPECT_EQ(gEncode.l2, generic.l2);
  EXPECT_EQ(gEncode.fill, generic.fill);
  // The plan is taken by value: a later call's base does not stick to it.
  EXPECT_EQ(plans[0].globalAddress, 256u);

  // This call's base pointer is checked before the encoder runs.
  gEncode = EncodeCall();
  s = encodeTensorMapAt(driver, m, m.tensorMaps[0], plans[0], 0, map);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "tensor map tmA: base A is a null pointer");
  s = encodeTensorMapAt(driver, m, m.tensorMaps[0], plans[0], 0x9008, map);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "base A = 0x9008 is not 16-byte aligned");
  EXPECT_EQ(gEncode.calls, 0);
}

//===----------------------------------------------------------------------===//
// Drivers
//===----------------------------------------------------------------------===//

namespace {

std::string tmaGemm(const std::string &extraMeta = "",
                    const std::string &cluster = "1,1,1") {
  return "gdn_manifest = 1\nkernel = g\nptx = g.ptx\ntarget = sm_90a\n"
         "block = 384,1,1\ncluster = " +
         cluster +
         "\nshared_bytes = 200000\n"
         "param = tmA:tensormap\n"
         "param = A:ptr<bf16>\nparam = B:ptr<bf16>\nparam = C:ptr<f32>\n"
         "param = M:i32\nparam = N:i32\nparam = K:i32\n"
         "param = tmB:tensormap\n"
         "tensormap.tmA = base=A; dims=K, M; strides=K; box=64, 128; "
         "swizzle=128\n"
         "tensormap.tmB = base=B; dims=N, K; strides=N; box=64, 64; "
         "swizzle=128\n"
         "meta.op = gemm\nmeta.block_m = 128\nmeta.block_n = 256\n"
         "meta.block_k = 64\n" +
         extraMeta;
}

struct GemmFixture {
  Manifest manifest;
  RunOptions options;
  GemmDriver driver;
  Status prepare(const std::string &text, std::vector<std::string> args) {
    Status s = parseManifest(text, "g.manifest", manifest);
    if (!s.ok())
      return s;
    args.push_back("g.manifest");
    s = parseCommandLine(args, options);
    if (!s.ok())
      return s;
    return driver.prepare(manifest, options);
  }
};

} // namespace

TEST(GemmTensorMapTest, TensorMapParamsMayBeAnywhere) {
  GemmFixture f;
  Status s = f.prepare(tmaGemm(), {"--m", "1024", "--n", "512", "--k", "64"});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(f.driver.persistent());
  EXPECT_EQ(f.driver.grid().x, 2u);
  EXPECT_EQ(f.driver.grid().y, 8u);
  // The maps are checked on the host: a K whose rows are not 16-byte
  // multiples is bad input before any GPU work.
  GemmFixture bad;
  s = bad.prepare(tmaGemm(), {"--m", "1024", "--n", "512", "--k", "100"});
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "g.manifest:16: error: tensor map tmA: "
                               "strides[0] = K = 100 bf16 elements = 200 "
                               "bytes is not a multiple of 16 bytes");
}

TEST(GemmTensorMapTest, PersistentGrid) {
  EXPECT_EQ(GemmDriver::persistentGrid(1024, 132, 1, 1).x, 132u);
  EXPECT_EQ(GemmDriver::persistentGrid(100, 132, 1, 1).x, 100u);
  EXPECT_EQ(GemmDriver::persistentGrid(1024, 132, 2, 1).x, 264u);
  EXPECT_EQ(GemmDriver::persistentGrid(1024, 132, 2, 1).y, 1u);
  EXPECT_EQ(GemmDriver::persistentGrid(1024, 132, 2, 1).z, 1u);
  EXPECT_EQ(GemmDriver::persistentGrid(1024, 133, 1, 2).x, 132u);
  EXPECT_EQ(GemmDriver::persistentGrid(1, 132, 1, 2).x, 2u);
  EXPECT_EQ(GemmDriver::persistentGrid(1024, INT64_MAX, 64, 1).x, 1024u);

  GemmFixture f;
  Status s = f.prepare(tmaGemm("meta.persistent = 1\n"),
                       {"--m", "8192", "--n", "8192", "--k", "64"});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(f.driver.persistent());
  EXPECT_EQ(f.driver.tiles(), 64 * 32);
  EXPECT_EQ(f.driver.grid().x, 132u); // GemmDriver::kDefaultSmCount
  EXPECT_EQ(f.driver.grid().y, 1u);
  GemmFixture two;
  s = two.prepare(tmaGemm("meta.persistent = 1\nmeta.blocks_per_sm = 2\n",
                          "2,1,1"),
                  {"--m", "256", "--n", "768", "--k", "64"});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(two.driver.tiles(), 6);
  EXPECT_EQ(two.driver.grid().x, 6u);

  GemmFixture bad;
  s = bad.prepare(tmaGemm("meta.blocks_per_sm = 2\n"), {});
  EXPECT_CONTAINS(s.message(), "meta.blocks_per_sm applies only to "
                               "meta.persistent = 1");
  s = bad.prepare(tmaGemm("meta.persistent = 1\n", "1,2,1"), {});
  EXPECT_CONTAINS(s.message(), "a persistent kernel has a 1-D grid");
  s = bad.prepare(tmaGemm("meta.persistent = 2\n"), {});
  EXPECT_CONTAINS(s.message(), "meta.persistent = 2 is out of range [0, 1]");
  s = bad.prepare(tmaGemm("meta.persistent = 1\nmeta.blocks_per_sm = 0\n"),
                  {});
  EXPECT_CONTAINS(s.message(), "meta.blocks_per_sm = 0 is out of range");
}

TEST(GdnTensorMapTest, SequenceBindsTensorMapsOverProblemScalars) {
  // A one-kernel "sequence" whose q is read through a tensor map over
  // [B*T*H, DK] rows, sized with the problem scalars.
  std::vector<std::unique_ptr<Manifest>> owned;
  std::vector<const Manifest *> ptrs;
  std::string text =
      "gdn_manifest = 1\nkernel = fwd\nptx = f.ptx\ntarget = sm_90a\n"
      "block = 128,1,1\nshared_bytes = 0\n"
      "param = q:ptr<f16>\nparam = o:ptr<f16>\nparam = ht:ptr<f32>\n"
      "param = tq:tensormap\nparam = NT:i32\n"
      "tensormap.tq = base=q; dims=DK, B*T*H; strides=DK; box=64, 64; "
      "swizzle=128\n"
      "meta.op = gdn_prefill\nmeta.stage = fwd\nmeta.order = 0\n"
      "meta.grid = NT, HV, 1\n";
  ASSERT_TRUE(test::parseManifestTexts({text}, owned, ptrs).ok());
  GdnSequence seq;
  Status s = buildGdnSequence(ptrs, seq);
  ASSERT_TRUE(s.ok()) << s.message();
  ASSERT_EQ(seq.stages.at(0).args.size(), 5u);
  EXPECT_EQ(seq.stages[0].args[3].kind, GdnArg::TensorMap);

  GdnProblem p;
  p.B = 2;
  p.T = 100;
  p.H = 4;
  p.HV = 4;
  const ExprVariables scalars = p.scalars();
  KernelArgs args(*ptrs[0]);
  bindGdnScalars(seq.stages[0], scalars, 0.25, 14, args);
  EXPECT_EQ(args.intScalars().at("NT"), 4); // 2 * cdiv(100, 64)
  args.setPointer(0, 0x10000);
  args.setPointer(1, 0x20000);
  args.setPointer(2, 0x30000);
  CudaDriver driver;
  driver.cuTensorMapEncodeTiled = &fakeEncode;
  gEncode = EncodeCall();
  s = args.bindTensorMaps(driver, scalars);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(gEncode.dims, (std::vector<cuuint64_t>{128, 2 * 100 * 4}));
  EXPECT_EQ(gEncode.strides, (std::vector<cuuint64_t>{256}));
  EXPECT_EQ(gEncode.address, reinterpret_cast<void *>(0x10000));

  // A tensormap may not take the name of a GDN tensor or scalar.
  owned.clear();
  ptrs.clear();
  std::string clash = text;
  clash.replace(clash.find("param = tq:tensormap"), 20, "param = T:tensormap");
  clash.replace(clash.find("tensormap.tq"), 12, "tensormap.T");
  ASSERT_TRUE(test::parseManifestTexts({clash}, owned, ptrs).ok());
  s = buildGdnSequence(ptrs, seq);
  EXPECT_CONTAINS(s.message(), "parameter T is a tensor or scalar of the GDN "
                               "kernel ABI and cannot be a tensormap");
}

TEST(GdnTensorMapTest, PaddedRowsForOddTokenCounts) {
  // The recipe tile-pipeline writes for a value-head-major f32 workspace
  // whose rows are padded to 16 bytes ([HV, cdiv(B*T, 4) * 4], one head
  // taken): the row stride stays a multiple of 16 bytes for any B*T, as
  // TMA requires; an unpadded [HV, B*T] one is refused for odd B*T.
  auto encode = [](const std::string &recipe, const GdnProblem &p,
                   Status &s) {
    std::vector<std::unique_ptr<Manifest>> owned;
    std::vector<const Manifest *> ptrs;
    std::string text =
        "gdn_manifest = 1\nkernel = fwd\nptx = f.ptx\ntarget = sm_90a\n"
        "block = 128,1,1\nshared_bytes = 0\n"
        "param = gamma:ptr<f32>\nparam = o:ptr<f16>\nparam = ht:ptr<f32>\n"
        "param = gamma_tma:tensormap\n"
        "tensormap.gamma_tma = base=gamma; " + recipe +
        "; box=64, 1; swizzle=none; l2=256; fill=zero\n"
        "meta.op = gdn_prefill\nmeta.stage = fwd\nmeta.order = 0\n"
        "meta.grid = NT, HV, 1\nmeta.ws_gamma = HV*cdiv(B*T,4)*4\n";
    EXPECT_TRUE(test::parseManifestTexts({text}, owned, ptrs).ok());
    GdnSequence seq;
    s = buildGdnSequence(ptrs, seq);
    if (!s.ok())
      return EncodeCall();
    KernelArgs args(*ptrs[0]);
    args.setPointer(0, 0x10000);
    args.setPointer(1, 0x20000);
    args.setPointer(2, 0x30000);
    CudaDriver driver;
    driver.cuTensorMapEncodeTiled = &fakeEncode;
    gEncode = EncodeCall();
    s = args.bindTensorMaps(driver, p.scalars());
    return gEncode;
  };
  GdnProblem p;
  p.B = 3;
  p.T = 4097;
  p.H = 2;
  p.HV = 4;
  Status s;
  EncodeCall c = encode("dims=(cdiv((B)*(T), 4))*(4), HV; "
                        "strides=(cdiv((B)*(T), 4))*(4)",
                        p, s);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(c.dims, (std::vector<cuuint64_t>{12292, 4}));
  EXPECT_EQ(c.strides, (std::vector<cuuint64_t>{12292 * 4}));
  encode("dims=(B)*(T), HV; strides=(B)*(T)", p, s);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "multiple of 16");
}
