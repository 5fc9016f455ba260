//===- CudaDriver.h - the CUDA driver API loaded with dlopen ----*- C++ -*-===//
//
// gdn-run links neither libcuda nor libcudart: it dlopen()s libcuda.so.1 at
// run time, so one binary builds without a driver and reports "no CUDA
// device" (exit 77) on machines without one, letting CI skip GPU tests.
//
// cuda.h #defines many API names to versioned symbols (cuMemAlloc ->
// cuMemAlloc_v2, cuMemcpyHtoD -> cuMemcpyHtoD_v2, ...). Each entry point is
// therefore named once in GDN_CUDA_DRIVER_FUNCTIONS and both the member
// declaration and the dlsym() string are produced *after* macro expansion:
// the member for cuMemAlloc is really called cuMemAlloc_v2, has the type of
// cuda.h's cuMemAlloc_v2 declaration, is looked up as "cuMemAlloc_v2", and a
// call written `driver.cuMemAlloc(...)` expands to the same member.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_CUDADRIVER_H
#define GDN_TOOLS_GDN_RUN_CUDADRIVER_H

#include "Status.h"

#include <cuda.h>

#include <string>

namespace gdn::run {

/// Every driver entry point gdn-run and the runtime library use.
#define GDN_CUDA_DRIVER_FUNCTIONS(X)                                           \
  X(cuGetErrorName)                                                            \
  X(cuGetErrorString)                                                          \
  X(cuInit)                                                                    \
  X(cuDriverGetVersion)                                                        \
  X(cuDeviceGetCount)                                                          \
  X(cuDeviceGet)                                                               \
  X(cuDeviceGetName)                                                           \
  X(cuDeviceGetAttribute)                                                      \
  X(cuDeviceTotalMem)                                                          \
  X(cuDevicePrimaryCtxRetain)                                                  \
  X(cuDevicePrimaryCtxRelease)                                                 \
  X(cuCtxSetCurrent)                                                           \
  X(cuCtxSynchronize)                                                          \
  X(cuCtxGetCurrent)                                                           \
  X(cuCtxPushCurrent)                                                          \
  X(cuCtxPopCurrent)                                                           \
  X(cuPointerGetAttributes)                                                    \
  X(cuMemAllocAsync)                                                           \
  X(cuMemFreeAsync)                                                            \
  X(cuModuleLoadDataEx)                                                        \
  X(cuModuleUnload)                                                            \
  X(cuModuleGetFunction)                                                       \
  X(cuFuncSetAttribute)                                                        \
  X(cuFuncGetAttribute)                                                        \
  X(cuMemAlloc)                                                                \
  X(cuMemFree)                                                                 \
  X(cuMemcpyHtoD)                                                              \
  X(cuMemcpyDtoH)                                                              \
  X(cuMemsetD8)                                                                \
  X(cuMemsetD8Async)                                                           \
  X(cuLaunchKernel)                                                            \
  X(cuLaunchKernelEx)                                                          \
  X(cuTensorMapEncodeTiled)                                                    \
  X(cuStreamCreate)                                                            \
  X(cuStreamDestroy)                                                           \
  X(cuStreamSynchronize)                                                       \
  X(cuStreamWaitEvent)                                                         \
  X(cuStreamIsCapturing)                                                       \
  X(cuStreamBeginCapture)                                                      \
  X(cuStreamEndCapture)                                                        \
  X(cuGraphInstantiateWithFlags)                                               \
  X(cuGraphLaunch)                                                             \
  X(cuGraphExecDestroy)                                                        \
  X(cuGraphDestroy)                                                            \
  X(cuEventCreate)                                                             \
  X(cuEventDestroy)                                                            \
  X(cuEventRecord)                                                             \
  X(cuEventSynchronize)                                                        \
  X(cuEventElapsedTime)

/// Stringifies after macro expansion: GDN_RUN_SYMBOL(cuMemAlloc) is
/// "cuMemAlloc_v2".
#define GDN_RUN_SYMBOL_IMPL(name) #name
#define GDN_RUN_SYMBOL(name) GDN_RUN_SYMBOL_IMPL(name)

/// Function pointers into libcuda.so.1.
class CudaDriver {
public:
  /// dlopen()s libcuda.so.1 and resolves every entry point. NoDevice (with
  /// the dlerror() text) when the library or a symbol is missing.
  Status load();
  bool loaded() const { return handle_ != nullptr; }

  /// "CUDA_ERROR_OUT_OF_MEMORY" (via cuGetErrorName), or "CUresult <n>".
  std::string errorName(CUresult result) const;
  /// "<name> (<cuGetErrorString text>)".
  std::string describe(CUresult result) const;
  /// Success, or a CudaError "<call> failed: <describe(result)>".
  Status check(CUresult result, const char *call) const;

#define GDN_RUN_DECLARE_MEMBER(name) decltype(&::name) name = nullptr;
  GDN_CUDA_DRIVER_FUNCTIONS(GDN_RUN_DECLARE_MEMBER)
#undef GDN_RUN_DECLARE_MEMBER

private:
  void *handle_ = nullptr;
};

/// Calls `driver.fn(args...)` and converts the CUresult into a Status that
/// names `fn` (as written, e.g. "cuMemAlloc").
#define GDN_CU(driver, fn, ...) (driver).check((driver).fn(__VA_ARGS__), #fn)

/// GDN_CU, returning the Status from the enclosing function on failure.
#define GDN_CU_TRY(driver, fn, ...) GDN_RUN_TRY(GDN_CU(driver, fn, __VA_ARGS__))

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_CUDADRIVER_H
