//===- CudaSession.cpp - device, context, kernels, buffers, timing --------===//
//
// Every driver call is checked. The primary context (not cuCtxCreate) is
// used, as the runtime API would, so that tools attaching to the process
// (Nsight Compute) see the usual context.
//
//===----------------------------------------------------------------------===//

#include "CudaSession.h"

#include "KernelImage.h"

#include <cstdint>
#include <cstdio>

namespace gdn::run {

//===----------------------------------------------------------------------===//
// DeviceBuffer
//===----------------------------------------------------------------------===//

DeviceBuffer::~DeviceBuffer() {
  if (ptr_)
    (void)driver_->cuMemFree(ptr_);
}

Status DeviceBuffer::allocate(CudaSession &session, size_t bytes) {
  if (ptr_)
    return Status::cudaError("internal error: DeviceBuffer allocated twice");
  driver_ = &session.driver();
  stream_ = session.stream();
  CUdeviceptr p = 0;
  Status s = GDN_CU(*driver_, cuMemAlloc, &p, bytes);
  if (!s.ok())
    return Status::cudaError(s.message() + " allocating " +
                             std::to_string(bytes) + " bytes");
  ptr_ = p;
  bytes_ = bytes;
  return Status::success();
}

Status DeviceBuffer::upload(const void *host, size_t bytes) {
  if (bytes > bytes_)
    return Status::cudaError("internal error: upload larger than buffer");
  // cuMemcpyHtoD runs on the legacy stream, which does not order with the
  // session's non-blocking stream, and may return before a pageable copy
  // has landed: wait for it.
  GDN_CU_TRY(*driver_, cuMemcpyHtoD, ptr_, host, bytes);
  return driver_->check(driver_->cuCtxSynchronize(), "cuCtxSynchronize");
}

Status DeviceBuffer::download(void *host, size_t bytes) const {
  if (bytes > bytes_)
    return Status::cudaError("internal error: download larger than buffer");
  GDN_CU_TRY(*driver_, cuStreamSynchronize, stream_);
  return GDN_CU(*driver_, cuMemcpyDtoH, host, ptr_, bytes);
}

Status DeviceBuffer::fill(unsigned char value) {
  return GDN_CU(*driver_, cuMemsetD8Async, ptr_, value, bytes_, stream_);
}

//===----------------------------------------------------------------------===//
// CudaSession
//===----------------------------------------------------------------------===//

CudaSession::~CudaSession() {
  if (!context_)
    return;
  for (auto &entry : modules_)
    (void)driver_.cuModuleUnload(entry.second);
  if (stream_)
    (void)driver_.cuStreamDestroy(stream_);
  (void)driver_.cuDevicePrimaryCtxRelease(device_);
}

Status CudaSession::open(int ordinal, bool verbose) {
  verbose_ = verbose;
  GDN_RUN_TRY(driver_.load());
  CUresult r = driver_.cuInit(0);
  if (r != CUDA_SUCCESS)
    return Status::noDevice("cuInit failed: " + driver_.describe(r));
  int count = 0;
  r = driver_.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS)
    return Status::noDevice("cuDeviceGetCount failed: " + driver_.describe(r));
  if (count == 0)
    return Status::noDevice("the driver reports no devices");
  if (ordinal < 0 || ordinal >= count)
    return Status::badInput("--device " + std::to_string(ordinal) +
                            " does not exist (" + std::to_string(count) +
                            " device" + (count == 1 ? "" : "s") + ")");
  GDN_CU_TRY(driver_, cuDeviceGet, &device_, ordinal);

  info_.ordinal = ordinal;
  char name[256] = {};
  GDN_CU_TRY(driver_, cuDeviceGetName, name, static_cast<int>(sizeof name) - 1,
             device_);
  info_.name = name;
  struct {
    CUdevice_attribute attr;
    int *out;
  } attrs[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &info_.ccMajor},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &info_.ccMinor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &info_.smCount},
      {CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE, &info_.l2Bytes},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       &info_.maxSharedOptin},
  };
  for (auto &a : attrs)
    GDN_CU_TRY(driver_, cuDeviceGetAttribute, a.out, a.attr, device_);
  GDN_CU_TRY(driver_, cuDeviceTotalMem, &info_.totalMemBytes, device_);
  GDN_CU_TRY(driver_, cuDriverGetVersion, &info_.driverVersion);

  GDN_CU_TRY(driver_, cuDevicePrimaryCtxRetain, &context_, device_);
  GDN_CU_TRY(driver_, cuCtxSetCurrent, context_);
  GDN_CU_TRY(driver_, cuStreamCreate, &stream_, CU_STREAM_NON_BLOCKING);
  return Status::success();
}

/// "sm_90" for compute capability 9.0.
static std::string smName(const DeviceInfo &d) {
  return "sm_" + std::to_string(d.ccMajor) + std::to_string(d.ccMinor);
}

Status CudaSession::loadKernel(const Manifest &manifest,
                               const std::string &image, Kernel &out) {
  // A target the device cannot run is reported before the driver tries.
  GDN_RUN_TRY(checkTargetForDevice(manifest, isElfImage(image), info_.ccMajor,
                                   info_.ccMinor,
                                   "device " + std::to_string(info_.ordinal) +
                                       ": " + info_.name));
  CUmodule module = nullptr;
  auto cached = modules_.find(manifest.ptxPath);
  if (cached != modules_.end()) {
    module = cached->second;
  } else {
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
        reinterpret_cast<void *>(static_cast<uintptr_t>(verbose_ ? 1 : 0))};
    // image.c_str() is NUL-terminated, as PTX text must be; a cubin (ELF) is
    // recognized by its header.
    CUresult r = driver_.cuModuleLoadDataEx(
        &module, image.c_str(), sizeof options / sizeof options[0], options,
        values);
    std::string errorText(errorLog.data());
    std::string infoText(infoLog.data());
    if (r != CUDA_SUCCESS) {
      std::string msg = manifest.ptxPath +
                        ": cuModuleLoadDataEx failed: " + driver_.describe(r) +
                        " (kernel target " + manifest.target + ", device " +
                        smName(info_) + ")";
      if (!errorText.empty())
        msg += "\nJIT error log:\n" + errorText;
      if (!infoText.empty())
        msg += "\nJIT info log:\n" + infoText;
      return Status::cudaError(msg);
    }
    if (verbose_ && !infoText.empty())
      std::fprintf(stderr, "gdn-run: %s: JIT info log:\n%s\n",
                   manifest.ptxPath.c_str(), infoText.c_str());
    modules_.emplace(manifest.ptxPath, module);
  }

  Kernel k;
  k.manifest = &manifest;
  CUresult r =
      driver_.cuModuleGetFunction(&k.function, module, manifest.kernel.c_str());
  if (r == CUDA_ERROR_NOT_FOUND)
    return Status::cudaError("kernel '" + manifest.kernel + "' not found in " +
                             manifest.ptxPath + " (" + driver_.errorName(r) +
                             ")");
  GDN_RUN_TRY(driver_.check(r, "cuModuleGetFunction"));
  GDN_CU_TRY(driver_, cuFuncGetAttribute, &k.numRegs,
             CU_FUNC_ATTRIBUTE_NUM_REGS, k.function);
  GDN_CU_TRY(driver_, cuFuncGetAttribute, &k.staticSharedBytes,
             CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, k.function);
  GDN_CU_TRY(driver_, cuFuncGetAttribute, &k.localBytes,
             CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, k.function);
  GDN_CU_TRY(driver_, cuFuncGetAttribute, &k.maxThreadsPerBlock,
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
  if (totalShared > info_.maxSharedOptin)
    return Status::cudaError(
        "kernel '" + manifest.kernel + "' needs " +
        std::to_string(manifest.sharedBytes) + " B dynamic + " +
        std::to_string(k.staticSharedBytes) +
        " B static shared memory; the device allows " +
        std::to_string(info_.maxSharedOptin) + " B per block");
  if (manifest.sharedBytes > 48 * 1024)
    GDN_CU_TRY(driver_, cuFuncSetAttribute, k.function,
               CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
               static_cast<int>(manifest.sharedBytes));
  if (verbose_)
    std::fprintf(stderr,
                 "gdn-run: %s: %d registers, %d B static + %u B dynamic "
                 "shared memory, %d B local memory per thread\n",
                 manifest.kernel.c_str(), k.numRegs, k.staticSharedBytes,
                 manifest.sharedBytes, k.localBytes);
  out = k;
  return Status::success();
}

Status CudaSession::launch(const Kernel &kernel, Dim3 grid, void **args) {
  const Manifest &m = *kernel.manifest;
  if (!m.hasCluster())
    return GDN_CU(driver_, cuLaunchKernel, kernel.function, grid.x, grid.y,
                  grid.z, m.block[0], m.block[1], m.block[2], m.sharedBytes,
                  stream_, args, nullptr);
  CUlaunchAttribute attr = {};
  attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
  attr.value.clusterDim.x = m.cluster[0];
  attr.value.clusterDim.y = m.cluster[1];
  attr.value.clusterDim.z = m.cluster[2];
  CUlaunchConfig config = {};
  config.gridDimX = grid.x;
  config.gridDimY = grid.y;
  config.gridDimZ = grid.z;
  config.blockDimX = m.block[0];
  config.blockDimY = m.block[1];
  config.blockDimZ = m.block[2];
  config.sharedMemBytes = m.sharedBytes;
  config.hStream = stream_;
  config.attrs = &attr;
  config.numAttrs = 1;
  return GDN_CU(driver_, cuLaunchKernelEx, &config, kernel.function, args,
                nullptr);
}

Status CudaSession::synchronize(const std::string &what) {
  CUresult r = driver_.cuCtxSynchronize();
  if (r == CUDA_SUCCESS)
    return Status::success();
  return Status::cudaError("cuCtxSynchronize after " + what +
                           " failed: " + driver_.describe(r));
}

Status CudaSession::timeLaunches(const std::function<Status()> &launchOnce,
                                 int warmup, int iters,
                                 std::vector<float> &ms,
                                 const std::function<Status()> &beforeEach) {
  ms.clear();
  for (int i = 0; i < warmup; ++i)
    GDN_RUN_TRY(launchOnce());
  if (iters <= 0)
    return synchronize("warmup launches");

  // Destroys the events on every return path.
  struct Events {
    CudaDriver &driver;
    std::vector<CUevent> list;
    ~Events() {
      for (CUevent e : list)
        (void)driver.cuEventDestroy(e);
    }
  } events{driver_, {}};
  events.list.reserve(2 * static_cast<size_t>(iters));
  for (int i = 0; i < 2 * iters; ++i) {
    CUevent e = nullptr;
    GDN_CU_TRY(driver_, cuEventCreate, &e, CU_EVENT_DEFAULT);
    events.list.push_back(e);
  }
  for (int i = 0; i < iters; ++i) {
    if (beforeEach)
      GDN_RUN_TRY(beforeEach());
    GDN_CU_TRY(driver_, cuEventRecord, events.list[2 * i], stream_);
    GDN_RUN_TRY(launchOnce());
    GDN_CU_TRY(driver_, cuEventRecord, events.list[2 * i + 1], stream_);
  }
  GDN_CU_TRY(driver_, cuEventSynchronize, events.list.back());
  GDN_RUN_TRY(synchronize("timed launches"));
  ms.resize(static_cast<size_t>(iters));
  for (int i = 0; i < iters; ++i)
    GDN_CU_TRY(driver_, cuEventElapsedTime, &ms[i], events.list[2 * i],
               events.list[2 * i + 1]);
  return Status::success();
}

} // namespace gdn::run
