//===- TensorMaps.cpp - kernel arguments and TMA tensor maps --------------===//

#include "TensorMaps.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace gdn::run {

CUtensorMapDataType tmaDataType(DType elem) {
  switch (elem) {
  case DType::F16:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  case DType::BF16:
    return CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
  case DType::F32:
    return CU_TENSOR_MAP_DATA_TYPE_FLOAT32;
  case DType::I32:
    return CU_TENSOR_MAP_DATA_TYPE_INT32;
  case DType::I64:
    return CU_TENSOR_MAP_DATA_TYPE_INT64;
  }
  return CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
}

namespace {

CUtensorMapSwizzle cudaSwizzle(TmaSwizzle s) {
  switch (s) {
  case TmaSwizzle::None:
    return CU_TENSOR_MAP_SWIZZLE_NONE;
  case TmaSwizzle::B32:
    return CU_TENSOR_MAP_SWIZZLE_32B;
  case TmaSwizzle::B64:
    return CU_TENSOR_MAP_SWIZZLE_64B;
  case TmaSwizzle::B128:
    return CU_TENSOR_MAP_SWIZZLE_128B;
  }
  return CU_TENSOR_MAP_SWIZZLE_NONE;
}

CUtensorMapL2promotion cudaL2(TmaL2Promotion l2) {
  switch (l2) {
  case TmaL2Promotion::None:
    return CU_TENSOR_MAP_L2_PROMOTION_NONE;
  case TmaL2Promotion::B64:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_64B;
  case TmaL2Promotion::B128:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
  case TmaL2Promotion::B256:
    return CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
  }
  return CU_TENSOR_MAP_L2_PROMOTION_NONE;
}

std::string hexPointer(CUdeviceptr p) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, static_cast<uint64_t>(p));
  return buf;
}

/// A map's base pointer: non-null and 16-byte aligned.
Status checkTensorMapBase(const Manifest &manifest, const TensorMapDecl &decl,
                          CUdeviceptr base) {
  if (base != 0 && base % 16 == 0)
    return Status::success();
  return Status::badInput(
      manifest.location(decl.line) + ": error: tensor map " + decl.name +
      ": base " + decl.base +
      (base == 0 ? std::string(" is a null pointer")
                 : " = " + hexPointer(base) + " is not 16-byte aligned"));
}

} // namespace

Status planTensorMap(const Manifest &manifest, const TensorMapDecl &decl,
                     const ExprVariables &vars, CUdeviceptr base,
                     TensorMapPlan &out) {
  auto bad = [&](const std::string &problem) {
    return Status::badInput(manifest.location(decl.line) +
                            ": error: tensor map " + decl.name + ": " +
                            problem);
  };
  const size_t rank = decl.rank();
  if (rank < 1 || rank > 5 || decl.strides.size() != rank - 1 ||
      decl.box.size() != rank)
    return bad("internal error: malformed declaration (rank " +
               std::to_string(rank) + ")");
  const uint64_t elemBytes = dtypeSize(decl.elem);
  TensorMapPlan plan;
  plan.dataType = tmaDataType(decl.elem);
  plan.rank = static_cast<uint32_t>(rank);

  // The hardware takes dims up to 2^32, but the kernels pass TMA
  // coordinates as signed 32-bit values: every coordinate must fit.
  const uint64_t kMaxDim = uint64_t(1) << 31;
  for (size_t i = 0; i < rank; ++i) {
    const std::string field =
        "dims[" + std::to_string(i) + "] = " + decl.dims[i];
    int64_t v = 0;
    Status s = evaluateIntExpr(decl.dims[i], vars, v);
    if (!s.ok())
      return bad(field + ": " + s.message());
    if (v < 1)
      return bad(field + " evaluates to " + std::to_string(v) +
                 " (must be >= 1)");
    if (static_cast<uint64_t>(v) > kMaxDim)
      return bad(field + " evaluates to " + std::to_string(v) +
                 ", more than 2^31 (TMA coordinates are 32-bit signed)");
    plan.globalDim[i] = static_cast<uint64_t>(v);
  }

  const uint64_t kMaxStrideBytes = uint64_t(1) << 40;
  // The extent in bytes of the dims inside each stride: strides[i] must
  // reach past dims 0..i (or rows of the tensor would overlap).
  uint64_t inner = plan.globalDim[0] * elemBytes;
  for (size_t i = 0; i + 1 < rank; ++i) {
    const std::string field =
        "strides[" + std::to_string(i) + "] = " + decl.strides[i];
    int64_t v = 0;
    Status s = evaluateIntExpr(decl.strides[i], vars, v);
    if (!s.ok())
      return bad(field + ": " + s.message());
    if (v < 1)
      return bad(field + " evaluates to " + std::to_string(v) +
                 " elements (must be >= 1)");
    uint64_t bytes = 0;
    if (__builtin_mul_overflow(static_cast<uint64_t>(v), elemBytes, &bytes) ||
        bytes >= kMaxStrideBytes)
      return bad(field + " = " + std::to_string(v) + " elements is 2^40 bytes "
                 "or more (cuTensorMapEncodeTiled needs strides < 2^40 B)");
    if (bytes % 16 != 0)
      return bad(field + " = " + std::to_string(v) + " " +
                 dtypeName(decl.elem) + " elements = " +
                 std::to_string(bytes) +
                 " bytes is not a multiple of 16 bytes");
    if (bytes < inner)
      return bad(field + " = " + std::to_string(v) + " elements (" +
                 std::to_string(bytes) + " bytes) is smaller than the " +
                 std::to_string(inner) + " bytes of dims 0.." +
                 std::to_string(i) +
                 ": rows would overlap (dims and strides are innermost "
                 "first)");
    plan.globalStrides[i] = bytes;
    // Saturate: only the comparison above uses it.
    if (__builtin_mul_overflow(bytes, plan.globalDim[i + 1], &inner))
      inner = UINT64_MAX;
  }

  GDN_RUN_TRY(checkTensorMapBase(manifest, decl, base));
  plan.globalAddress = base;
  for (size_t i = 0; i < rank; ++i) {
    plan.boxDim[i] = decl.box[i];
    plan.elementStrides[i] = 1;
  }
  plan.interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  plan.swizzle = cudaSwizzle(decl.swizzle);
  plan.l2Promotion = cudaL2(decl.l2);
  plan.oobFill = decl.fill == TmaFill::Nan
                     ? CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA
                     : CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  out = plan;
  return Status::success();
}

Status encodeTensorMap(const CudaDriver &driver, const TensorMapDecl &decl,
                       const TensorMapPlan &plan, CUtensorMap &out) {
  if (!driver.cuTensorMapEncodeTiled)
    return Status::cudaError("tensor map " + decl.name +
                             ": cuTensorMapEncodeTiled is not loaded");
  static_assert(sizeof(cuuint64_t) == sizeof(uint64_t), "cuuint64_t");
  static_assert(sizeof(cuuint32_t) == sizeof(uint32_t), "cuuint32_t");
  CUresult r = driver.cuTensorMapEncodeTiled(
      &out, plan.dataType, plan.rank,
      reinterpret_cast<void *>(static_cast<uintptr_t>(plan.globalAddress)),
      reinterpret_cast<const cuuint64_t *>(plan.globalDim.data()),
      reinterpret_cast<const cuuint64_t *>(plan.globalStrides.data()),
      reinterpret_cast<const cuuint32_t *>(plan.boxDim.data()),
      reinterpret_cast<const cuuint32_t *>(plan.elementStrides.data()),
      plan.interleave, plan.swizzle, plan.l2Promotion, plan.oobFill);
  if (r == CUDA_SUCCESS)
    return Status::success();
  return Status::cudaError("tensor map " + decl.name +
                           ": cuTensorMapEncodeTiled failed: " +
                           driver.describe(r) + " (" +
                           describeTensorMap(decl, plan) + ")");
}

Status encodeTensorMapAt(const CudaDriver &driver, const Manifest &manifest,
                         const TensorMapDecl &decl, TensorMapPlan plan,
                         CUdeviceptr base, CUtensorMap &out) {
  GDN_RUN_TRY(checkTensorMapBase(manifest, decl, base));
  plan.globalAddress = base;
  return encodeTensorMap(driver, decl, plan, out);
}

std::string describeTensorMap(const TensorMapDecl &decl,
                              const TensorMapPlan &plan) {
  auto join = [&](auto values, size_t n, const char *unit) {
    std::string s;
    for (size_t i = 0; i < n; ++i)
      s += (i ? "x" : "") + std::to_string(values[i]);
    return s + unit;
  };
  static const char *const l2[] = {"none", "64B", "128B", "256B"};
  std::string text = "tensor map " + decl.name + ": " + dtypeName(decl.elem) +
                     " at " + hexPointer(plan.globalAddress) + ", dims " +
                     join(plan.globalDim, plan.rank, "");
  if (plan.rank > 1)
    text += ", strides " + join(plan.globalStrides, plan.rank - 1, " B");
  text += ", box " + join(plan.boxDim, plan.rank, "");
  unsigned sw = tmaSwizzleBytes(decl.swizzle);
  text += ", swizzle " + (sw ? std::to_string(sw) + "B" : std::string("none"));
  text += std::string(", l2 ") + l2[static_cast<int>(decl.l2)];
  text += decl.fill == TmaFill::Nan ? ", fill nan" : ", fill zero";
  return text;
}

//===----------------------------------------------------------------------===//
// KernelArgs
//===----------------------------------------------------------------------===//

KernelArgs::KernelArgs(const Manifest &manifest)
    : manifest_(&manifest), slots_(manifest.params.size(), 0),
      bound_(manifest.params.size(), false),
      maps_(manifest.tensorMaps.size()), args_(manifest.params.size()) {
  if (!maps_.empty()) // memset of a null pointer is undefined, even for 0
    std::memset(static_cast<void *>(maps_.data()), 0,
                maps_.size() * sizeof(CUtensorMap));
  for (size_t i = 0; i < args_.size(); ++i)
    args_[i] = &slots_[i];
  for (size_t k = 0; k < manifest.tensorMaps.size(); ++k)
    args_[manifest.tensorMaps[k].paramIndex] = &maps_[k];
}

void KernelArgs::setPointer(size_t index, CUdeviceptr ptr) {
  static_assert(sizeof(CUdeviceptr) == sizeof(uint64_t), "CUdeviceptr");
  std::memcpy(&slots_[index], &ptr, sizeof ptr);
  bound_[index] = true;
}

void KernelArgs::setInt(size_t index, int64_t value) {
  slots_[index] = 0;
  if (manifest_->params[index].type.elem == DType::I32) {
    int32_t v32 = static_cast<int32_t>(value);
    std::memcpy(&slots_[index], &v32, sizeof v32);
  } else {
    std::memcpy(&slots_[index], &value, sizeof value);
  }
  bound_[index] = true;
}

void KernelArgs::setF32(size_t index, float value) {
  slots_[index] = 0;
  std::memcpy(&slots_[index], &value, sizeof value);
  bound_[index] = true;
}

CUdeviceptr KernelArgs::pointer(size_t index) const {
  CUdeviceptr p = 0;
  if (bound_[index])
    std::memcpy(&p, &slots_[index], sizeof p);
  return p;
}

ExprVariables KernelArgs::intScalars() const {
  ExprVariables vars;
  for (size_t i = 0; i < slots_.size(); ++i) {
    const Param &p = manifest_->params[i];
    if (!bound_[i] || !p.type.isIntScalar())
      continue;
    if (p.type.elem == DType::I32) {
      int32_t v32;
      std::memcpy(&v32, &slots_[i], sizeof v32);
      vars[p.name] = v32;
    } else {
      int64_t v;
      std::memcpy(&v, &slots_[i], sizeof v);
      vars[p.name] = v;
    }
  }
  return vars;
}

ExprVariables
KernelArgs::expressionVariables(const ExprVariables &extra) const {
  ExprVariables vars = extra;
  for (const auto &[name, value] : intScalars())
    vars[name] = value;
  return vars;
}

Status KernelArgs::checkTensorMaps(const ExprVariables &extra,
                                   std::vector<TensorMapPlan> *plans) const {
  if (plans)
    plans->clear();
  if (manifest_->tensorMaps.empty())
    return Status::success();
  const ExprVariables vars = expressionVariables(extra);
  for (const TensorMapDecl &decl : manifest_->tensorMaps) {
    CUdeviceptr base = pointer(decl.baseIndex);
    const CUdeviceptr kFakeBase = 256; // cuMemAlloc aligns to 256 bytes
    TensorMapPlan plan;
    GDN_RUN_TRY(planTensorMap(*manifest_, decl, vars,
                              base ? base : kFakeBase, plan));
    if (plans)
      plans->push_back(plan);
  }
  return Status::success();
}

Status KernelArgs::bindTensorMaps(const CudaDriver &driver,
                                  const ExprVariables &extra, bool verbose) {
  for (size_t i = 0; i < slots_.size(); ++i)
    if (!bound_[i] && !manifest_->params[i].type.isTensorMap)
      return Status::badInput(
          manifest_->location(manifest_->params[i].line) +
          ": error: internal error: parameter " +
          manifest_->params[i].name + " was not bound");
  // Most launches have no tensor map: skip building the expression
  // variables (two maps of strings) on the hot path.
  if (manifest_->tensorMaps.empty())
    return Status::success();
  const ExprVariables vars = expressionVariables(extra);
  for (size_t k = 0; k < manifest_->tensorMaps.size(); ++k) {
    const TensorMapDecl &decl = manifest_->tensorMaps[k];
    TensorMapPlan plan;
    GDN_RUN_TRY(planTensorMap(*manifest_, decl, vars,
                              pointer(decl.baseIndex), plan));
    if (verbose)
      std::fprintf(stderr, "gdn-run: %s: %s\n", manifest_->kernel.c_str(),
                   describeTensorMap(decl, plan).c_str());
    GDN_RUN_TRY(encodeTensorMap(driver, decl, plan, maps_[k]));
  }
  return Status::success();
}

const CUtensorMap *KernelArgs::tensorMap(size_t index) const {
  for (size_t k = 0; k < manifest_->tensorMaps.size(); ++k)
    if (manifest_->tensorMaps[k].paramIndex == index)
      return &maps_[k];
  return nullptr;
}

} // namespace gdn::run
