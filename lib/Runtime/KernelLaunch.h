//===- KernelLaunch.h - load, prepare and launch one kernel -----*- C++ -*-===//
//
// The launch half shared by gdn-run (CudaSession) and the runtime library
// (gdn_runtime.h): loading a PTX or cubin image into the current context
// with the JIT logs on failure, preparing a kernel function from its
// manifest (dynamic shared memory opt-in, block and shared memory limits)
// and launching it on a stream (cuLaunchKernelEx when the manifest asks for
// thread-block clusters or a programmatic dependent launch).
//
//===----------------------------------------------------------------------===//

#ifndef GDN_RUNTIME_KERNELLAUNCH_H
#define GDN_RUNTIME_KERNELLAUNCH_H

#include "CudaDriver.h"
#include "Manifest.h"

#include <cstddef>
#include <string>

namespace gdn::run {

/// A grid or block size.
struct Dim3 {
  unsigned x = 1, y = 1, z = 1;
};

/// A kernel ready to launch: its function and the manifest describing it.
struct Kernel {
  CUfunction function = nullptr;
  const Manifest *manifest = nullptr;
  int numRegs = 0;
  int staticSharedBytes = 0;
  int localBytes = 0;
  int maxThreadsPerBlock = 0;
};

/// Checks that `grid` is launchable with the manifest's cluster shape:
/// dimensions within the hardware limits and divisible by the cluster.
Status checkLaunchGrid(const Manifest &manifest, Dim3 grid);

/// Loads `image` (PTX text, NUL-terminated, or a cubin) into the current
/// context. `what` names the image in messages (a path), `target` and
/// `device` ("sm_90") are quoted on failure; with `verbose` the JIT info log
/// is printed. CudaError "WHAT: cuModuleLoadDataEx failed: ..." with the
/// JIT error log otherwise.
Status loadModuleImage(const CudaDriver &driver, const void *image,
                       const std::string &what, const std::string &target,
                       const std::string &device, bool verbose,
                       CUmodule &out);

/// Looks up `manifest`'s kernel in `module` and prepares it: checks the
/// block size against the function's limit and the shared memory against
/// `maxSharedOptin`, and opts into more than 48 KiB of dynamic shared
/// memory.
Status prepareKernel(const CudaDriver &driver, CUmodule module,
                     const Manifest &manifest, int maxSharedOptin,
                     bool verbose, Kernel &out);

/// Asks for the largest shared-memory carveout for `kernel`
/// (CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT = max shared): one
/// SM configuration for kernels whose blocks are to share an SM (the driver
/// otherwise picks each kernel's smallest, and a block of another
/// configuration waits for the SM to drain).
Status preferMaxSharedCarveout(const CudaDriver &driver, const Kernel &kernel);

/// True when the environment's GDN_NO_PDL (any value but empty or "0") asks
/// for plain stream order: manifests' grid_dependency is then ignored.
bool programmaticLaunchDisabled();

/// Launches `kernel` on `stream`; `args` holds one pointer to each
/// parameter's value, in manifest order. Does not synchronize. A kernel
/// whose manifest says grid_dependency = 1, 2 or 3 is launched with
/// programmatic stream serialization (unless programmaticLaunchDisabled()).
Status launchKernel(const CudaDriver &driver, const Kernel &kernel, Dim3 grid,
                    void **args, CUstream stream);

} // namespace gdn::run

#endif // GDN_RUNTIME_KERNELLAUNCH_H
