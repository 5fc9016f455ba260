//===- KernelLaunch.cpp - load, prepare and launch one kernel -------------===//

#include "KernelLaunch.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace gdn::run {

Status checkLaunchGrid(const Manifest &manifest, Dim3 grid) {
  auto text = [](unsigned x, unsigned y, unsigned z) {
    return std::to_string(x) + "x" + std::to_string(y) + "x" +
           std::to_string(z);
  };
  std::string gridText = text(grid.x, grid.y, grid.z);
  if (grid.x == 0 || grid.y == 0 || grid.z == 0 || grid.x > 0x7fffffffu ||
      grid.y > 65535 || grid.z > 65535)
    return Status::badInput(manifest.location(0) + ": error: grid " +
                            gridText +
                            " exceeds the launch limits (x < 2^31, y and z "
                            "<= 65535)");
  const auto &c = manifest.cluster;
  if (grid.x % c[0] || grid.y % c[1] || grid.z % c[2])
    return Status::badInput(manifest.location(0) + ": error: grid " +
                            gridText + " is not divisible by cluster " +
                            text(c[0], c[1], c[2]));
  return Status::success();
}

Status loadModuleImage(const CudaDriver &driver, const void *image,
                       const std::string &what, const std::string &target,
                       const std::string &device, bool verbose,
                       CUmodule &out) {
  // The driver writes the used size of each log back into the option
  // value that held the buffer size.
  std::vector<char> errorLog(1 << 16, '\0'), infoLog(1 << 16, '\0');
  CUjit_option options[] = {
      CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
      CU_JIT_LOG_VERBOSE};
  void *values[] = {
      errorLog.data(),
      reinterpret_cast<void *>(static_cast<uintptr_t>(errorLog.size() - 1)),
      infoLog.data(),
      reinterpret_cast<void *>(static_cast<uintptr_t>(infoLog.size() - 1)),
      reinterpret_cast<void *>(static_cast<uintptr_t>(verbose ? 1 : 0))};
  // image is NUL-terminated, as PTX text must be; a cubin (ELF) is
  // recognized by its header.
  CUresult r = driver.cuModuleLoadDataEx(
      &out, image, sizeof options / sizeof options[0], options,
      values);
  std::string errorText(errorLog.data());
  std::string infoText(infoLog.data());
  if (r != CUDA_SUCCESS) {
    std::string msg = what +
                      ": cuModuleLoadDataEx failed: " + driver.describe(r) +
                      " (kernel target " + target + ", device " +
                      device + ")";
    if (!errorText.empty())
      msg += "\nJIT error log:\n" + errorText;
    if (!infoText.empty())
      msg += "\nJIT info log:\n" + infoText;
    return Status::cudaError(msg);
  }
  if (verbose && !infoText.empty())
    std::fprintf(stderr, "gdn-run: %s: JIT info log:\n%s\n",
                 what.c_str(), infoText.c_str());
  return Status::success();
}

Status prepareKernel(const CudaDriver &driver, CUmodule module,
                     const Manifest &manifest, int maxSharedOptin,
                     bool verbose, Kernel &out) {
  Kernel k;
  k.manifest = &manifest;
  CUresult r =
      driver.cuModuleGetFunction(&k.function, module, manifest.kernel.c_str());
  if (r == CUDA_ERROR_NOT_FOUND)
    return Status::cudaError("kernel '" + manifest.kernel + "' not found in " +
                             manifest.ptxPath + " (" + driver.errorName(r) +
                             ")");
  GDN_RUN_TRY(driver.check(r, "cuModuleGetFunction"));
  GDN_CU_TRY(driver, cuFuncGetAttribute, &k.numRegs,
             CU_FUNC_ATTRIBUTE_NUM_REGS, k.function);
  GDN_CU_TRY(driver, cuFuncGetAttribute, &k.staticSharedBytes,
             CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k.function);
  GDN_CU_TRY(driver, cuFuncGetAttribute, &k.localBytes,
             CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, k.function);
  GDN_CU_TRY(driver, cuFuncGetAttribute, &k.maxThreadsPerBlock,
             CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, k.function);

  unsigned threads = manifest.threadsPerBlock();
  if (threads > static_cast<unsigned>(k.maxThreadsPerBlock))
    return Status::cudaError(
        "block has " + std::to_string(threads) +
        " threads but kernel '" + manifest.kernel + "' allows at most " +
        std::to_string(k.maxThreadsPerBlock) + " (" +
        std::to_string(k.numRegs) + " registers per thread)");
  int64_t totalShared =
      static_cast<int64_t>(manifest.sharedBytes) + k.staticSharedBytes;
  if (totalShared > maxSharedOptin)
    return Status::cudaError(
        "kernel '" + manifest.kernel + "' needs " +
        std::to_string(manifest.sharedBytes) + " B dynamic + " +
        std::to_string(k.staticSharedBytes) +
        " B static shared memory; the device allows " +
        std::to_string(maxSharedOptin) + " B per block");
  if (manifest.sharedBytes > 48 * 1024)
    GDN_CU_TRY(driver, cuFuncSetAttribute, k.function,
               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
               static_cast<int>(manifest.sharedBytes));
  if (verbose)
    std::fprintf(stderr,
                 "gdn-run: %s: %d registers, %d B static + %u B dynamic "
                 "shared memory, %d B local memory per thread\n",
                 manifest.kernel.c_str(), k.numRegs, k.staticSharedBytes,
                 manifest.sharedBytes, k.localBytes);
  out = k;
  return Status::success();
}

Status preferMaxSharedCarveout(const CudaDriver &driver, const Kernel &kernel) {
  return GDN_CU(driver, cuFuncSetAttribute, kernel.function,
                CU_FUNC_ATTRIBUTE_PREFERRED_SHARED_MEMORY_CARVEOUT,
                CU_SHAREDMEM_CARVEOUT_MAX_SHARED);
}

bool programmaticLaunchDisabled() {
  // Read once: GDN_NO_PDL=1 (any value but empty or "0") launches every
  // kernel in plain stream order, e.g. to bisect a suspected ordering bug
  // or for a driver that rejects the attribute under stream capture.
  static const bool off = [] {
    const char *env = std::getenv("GDN_NO_PDL");
    return env && env[0] != '\0' && std::strcmp(env, "0") != 0;
  }();
  return off;
}

Status launchKernel(const CudaDriver &driver, const Kernel &kernel, Dim3 grid,
                    void **args, CUstream stream) {
  const Manifest &m = *kernel.manifest;
  const bool programmatic = m.gridDependency && !programmaticLaunchDisabled();
  if (!m.hasCluster() && !programmatic)
    return GDN_CU(driver, cuLaunchKernel, kernel.function, grid.x, grid.y,
                  grid.z, m.block[0], m.block[1], m.block[2], m.sharedBytes,
                  stream, args, nullptr);
  CUlaunchAttribute attrs[2] = {};
  unsigned numAttrs = 0;
  if (m.hasCluster()) {
    CUlaunchAttribute &a = attrs[numAttrs++];
    a.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    a.value.clusterDim.x = m.cluster[0];
    a.value.clusterDim.y = m.cluster[1];
    a.value.clusterDim.z = m.cluster[2];
  }
  // The kernel waits for its predecessor's grid itself (griddepcontrol.wait
  // at entry, or in a "deferred" kernel where its blocks need it), so it
  // may launch while that grid's last blocks still run.
  if (programmatic) {
    CUlaunchAttribute &a = attrs[numAttrs++];
    a.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    a.value.programmaticStreamSerializationAllowed = 1;
  }
  CUlaunchConfig config = {};
  config.gridDimX = grid.x;
  config.gridDimY = grid.y;
  config.gridDimZ = grid.z;
  config.blockDimX = m.block[0];
  config.blockDimY = m.block[1];
  config.blockDimZ = m.block[2];
  config.sharedMemBytes = m.sharedBytes;
  config.hStream = stream;
  config.attrs = attrs;
  config.numAttrs = numAttrs;
  return GDN_CU(driver, cuLaunchKernelEx, &config, kernel.function, args,
                nullptr);
}

} // namespace gdn::run
