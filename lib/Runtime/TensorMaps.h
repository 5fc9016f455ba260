//===- TensorMaps.h - kernel arguments and TMA tensor maps ------*- C++ -*-===//
//
// The argument block of one kernel launch, shared by all operator drivers:
// one value per manifest parameter, bound by the driver (pointers and
// scalars), and the TMA tensor maps (`param = X:tensormap`, see Manifest.h),
// which are then built generically from the bound values:
//
//   1. the driver binds every pointer and scalar parameter (KernelArgs);
//   2. bindTensorMaps() evaluates each `tensormap.X` line's dims and strides
//      over the driver's named integers plus the kernel's own integer
//      scalar parameters, validates them against the bound base pointer
//      (planTensorMap, pure, unit-tested) and encodes the 128-byte
//      CUtensorMap with cuTensorMapEncodeTiled;
//   3. the launch passes a pointer to each host CUtensorMap (alignas(64)) in
//      the cuLaunchKernel argument array; the driver copies the 128 bytes
//      into the kernel's `.param .align 64 .b8 X[128]` (__grid_constant__).
//
// Validation (BadInput, naming the map and the field): every dim in
// [1, 2^32]; every stride > 0, a multiple of 16 bytes, < 2^40 bytes and at
// least the extent of the dims inside it (strides[0] >= dims[0], strides[i]
// >= strides[i-1] * dims[i]: a stride that overlaps rows is almost always
// dims given outermost first); the base pointer non-null and 16-byte
// aligned. elementStrides are all 1, interleave none.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_TENSORMAPS_H
#define GDN_TOOLS_GDN_RUN_TENSORMAPS_H

#include "CudaDriver.h"
#include "GridExpr.h"
#include "Manifest.h"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace gdn::run {

/// The arguments of one cuTensorMapEncodeTiled call.
struct TensorMapPlan {
  CUtensorMapDataType dataType = CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
  uint32_t rank = 0;
  std::array<uint64_t, 5> globalDim{};     ///< elements, innermost first
  std::array<uint64_t, 4> globalStrides{}; ///< bytes, of dims 1..rank-1
  std::array<uint32_t, 5> boxDim{};
  std::array<uint32_t, 5> elementStrides{}; ///< all 1
  CUtensorMapInterleave interleave = CU_TENSOR_MAP_INTERLEAVE_NONE;
  CUtensorMapSwizzle swizzle = CU_TENSOR_MAP_SWIZZLE_NONE;
  CUtensorMapL2promotion l2Promotion = CU_TENSOR_MAP_L2_PROMOTION_NONE;
  CUtensorMapFloatOOBfill oobFill = CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE;
  CUdeviceptr globalAddress = 0;
};

/// The CUDA data type of a map over `elem`.
CUtensorMapDataType tmaDataType(DType elem);

/// Evaluates and validates `decl` of `manifest` for the names `vars` and
/// the base pointer `base`; BadInput "MANIFEST:LINE: error: tensor map X:
/// ..." naming the field otherwise.
Status planTensorMap(const Manifest &manifest, const TensorMapDecl &decl,
                     const ExprVariables &vars, CUdeviceptr base,
                     TensorMapPlan &out);

/// Calls driver.cuTensorMapEncodeTiled with `plan`; CudaError naming the
/// map (and the CUresult) on failure.
Status encodeTensorMap(const CudaDriver &driver, const TensorMapDecl &decl,
                       const TensorMapPlan &plan, CUtensorMap &out);

/// The hot path of a planned launch: `plan` (from checkTensorMaps, dims and
/// strides already evaluated and validated) at the base pointer `base` of
/// this call, which is checked (non-null, 16-byte aligned: BadInput naming
/// the map) and then encoded into `out`. No expression is evaluated and
/// nothing is allocated.
Status encodeTensorMapAt(const CudaDriver &driver, const Manifest &manifest,
                         const TensorMapDecl &decl, TensorMapPlan plan,
                         CUdeviceptr base, CUtensorMap &out);

/// One line describing `plan` for --verbose, e.g. "tensor map tmA: f16,
/// dims 4096x4096, strides 8192 B, box 64x128, swizzle 128B, l2 256B, fill
/// zero".
std::string describeTensorMap(const TensorMapDecl &decl,
                              const TensorMapPlan &plan);

/// The argument block of one launch of `manifest`'s kernel. Not copyable:
/// the pointer array points into the object.
class KernelArgs {
public:
  explicit KernelArgs(const Manifest &manifest);
  KernelArgs(const KernelArgs &) = delete;
  KernelArgs &operator=(const KernelArgs &) = delete;

  /// Binds parameter `index` (a pointer parameter) to `ptr`.
  void setPointer(size_t index, CUdeviceptr ptr);
  /// Binds integer scalar parameter `index`, as i32 or i64 as declared
  /// (the caller has checked that the value fits).
  void setInt(size_t index, int64_t value);
  /// Binds f32 scalar parameter `index`.
  void setF32(size_t index, float value);

  /// The bound pointer of parameter `index` (0 when unbound).
  CUdeviceptr pointer(size_t index) const;
  /// The kernel's integer scalar parameters that are bound, by name.
  ExprVariables intScalars() const;
  /// `extra` overlaid with intScalars(): the names tensor map expressions
  /// may use.
  ExprVariables expressionVariables(const ExprVariables &extra) const;

  /// Plans every tensor map (planTensorMap) without encoding it; used on
  /// the host, before the device is opened, with stand-in base pointers
  /// (256-byte aligned) where none is bound. With `plans`, returns the
  /// plans, one per manifest tensor map (for encodeTensorMapAt).
  Status checkTensorMaps(const ExprVariables &extra,
                         std::vector<TensorMapPlan> *plans = nullptr) const;
  /// Plans and encodes every tensor map from the bound values; every
  /// pointer and scalar must be bound first. Prints each map with
  /// `verbose`.
  Status bindTensorMaps(const CudaDriver &driver, const ExprVariables &extra,
                        bool verbose = false);

  /// The argument array for cuLaunchKernel: one pointer per parameter.
  void **data() { return args_.data(); }
  /// The value of each parameter slot (scalars, pointers; 0 for tensor
  /// maps and unbound parameters), for callers that keep a bound template.
  const std::vector<uint64_t> &slots() const { return slots_; }
  const Manifest &manifest() const { return *manifest_; }
  /// The encoded map of tensormap parameter `index` (null if none).
  const CUtensorMap *tensorMap(size_t index) const;

private:
  const Manifest *manifest_;
  std::vector<uint64_t> slots_; ///< value of each non-tensormap parameter
  std::vector<bool> bound_;
  std::vector<CUtensorMap> maps_; ///< one per manifest tensor map
  std::vector<void *> args_;
};

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_TENSORMAPS_H
