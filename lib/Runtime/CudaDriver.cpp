//===- CudaDriver.cpp - the CUDA driver API loaded with dlopen ------------===//
//
// Resolves the entry points listed in GDN_CUDA_DRIVER_FUNCTIONS. The library
// is never dlclose()d: the driver keeps threads and state alive until exit.
//
//===----------------------------------------------------------------------===//

#include "CudaDriver.h"

#include <cstdlib>
#include <dlfcn.h>

namespace gdn::run {

Status CudaDriver::load() {
  if (handle_)
    return Status::success();
  dlerror();
  // GDN_CUDA_LIBRARY: another implementation of the driver API, e.g. the
  // CPU emulator libgdn-cuemu.so (tools/gdn-emu) for tests without a GPU.
  const char *env = std::getenv("GDN_CUDA_LIBRARY");
  const std::string library = env && *env ? env : "libcuda.so.1";
  void *handle = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *why = dlerror();
    return Status::noDevice("cannot load " + library + ": " +
                            (why ? why : "unknown dlopen error"));
  }
  std::string missing;
  auto resolve = [&](const char *symbol, const char *fallback) -> void * {
    void *p = dlsym(handle, symbol);
    if (!p && fallback)
      p = dlsym(handle, fallback);
    if (!p)
      missing += std::string(missing.empty() ? "" : ", ") + symbol;
    return p;
  };
  // cuEventElapsedTime_v2 (CUDA 12.8+) has the signature of the original,
  // which older drivers export under the plain name.
#define GDN_RUN_RESOLVE(name)                                                  \
  name = reinterpret_cast<decltype(name)>(resolve(                            \
      GDN_RUN_SYMBOL(name),                                                    \
      std::string(GDN_RUN_SYMBOL(name)) == "cuEventElapsedTime_v2"             \
          ? "cuEventElapsedTime"                                               \
          : nullptr));
  GDN_CUDA_DRIVER_FUNCTIONS(GDN_RUN_RESOLVE)
#undef GDN_RUN_RESOLVE
  if (!missing.empty())
    return Status::noDevice(library + " lacks " + missing +
                            " (driver too old?)");
  handle_ = handle;
  return Status::success();
}

std::string CudaDriver::errorName(CUresult result) const {
  const char *name = nullptr;
  if (cuGetErrorName && cuGetErrorName(result, &name) == CUDA_SUCCESS && name)
    return name;
  return "CUresult " + std::to_string(static_cast<int>(result));
}

std::string CudaDriver::describe(CUresult result) const {
  std::string text = errorName(result);
  const char *desc = nullptr;
  if (cuGetErrorString && cuGetErrorString(result, &desc) == CUDA_SUCCESS &&
      desc)
    text += std::string(" (") + desc + ")";
  return text;
}

Status CudaDriver::check(CUresult result, const char *call) const {
  if (result == CUDA_SUCCESS)
    return Status::success();
  return Status::cudaError(std::string(call) + " failed: " + describe(result));
}

} // namespace gdn::run
