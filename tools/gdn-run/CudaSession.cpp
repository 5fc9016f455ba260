//===- CudaSession.cpp - device, context, kernels, buffers, timing --------===//
//
// Every driver call is checked. The primary context (not cuCtxCreate) is
// used, as the runtime API would, so that tools attaching to the process
// (Nsight Compute) see the usual context.
//
//===----------------------------------------------------------------------===//

#include "CudaSession.h"

#include "KernelImage.h"
#include "KernelLaunch.h"

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
  for (CUevent e : sideEvents_)
    (void)driver_.cuEventDestroy(e);
  for (CUstream s : sideStreams_)
    (void)driver_.cuStreamDestroy(s);
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
      {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &info_.memoryClockKHz},
      {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &info_.memoryBusBits},
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
    GDN_RUN_TRY(loadModuleImage(driver_, image.c_str(), manifest.ptxPath,
                                manifest.target, smName(info_), verbose_,
                                module));
    modules_.emplace(manifest.ptxPath, module);
  }
  return prepareKernel(driver_, module, manifest, info_.maxSharedOptin,
                       verbose_, out);
}

Status CudaSession::launch(const Kernel &kernel, Dim3 grid, void **args) {
  return launchKernel(driver_, kernel, grid, args, stream_);
}

Status CudaSession::launchConcurrently(
    const std::vector<const Kernel *> &kernels, const std::vector<Dim3> &grids,
    const std::vector<void **> &args) {
  size_t n = kernels.size();
  lastConcurrent_ = 0; // until this fork is complete
  if (grids.size() != n || args.size() != n)
    return Status::badInput("launchConcurrently: " + std::to_string(n) +
                            " kernels, " + std::to_string(grids.size()) +
                            " grids, " + std::to_string(args.size()) +
                            " argument arrays");
  // Event 0 forks from the session's stream; event 1 + i joins stream i.
  while (sideStreams_.size() < n) {
    CUstream s = nullptr;
    GDN_CU_TRY(driver_, cuStreamCreate, &s, CU_STREAM_NON_BLOCKING);
    sideStreams_.push_back(s);
  }
  while (sideEvents_.size() < n + 1) {
    CUevent e = nullptr;
    GDN_CU_TRY(driver_, cuEventCreate, &e, CU_EVENT_DEFAULT);
    sideEvents_.push_back(e);
  }
  GDN_CU_TRY(driver_, cuEventRecord, sideEvents_[0], stream_);
  // The side streams forked so far join the session's stream again, also
  // when a launch fails (later work on the session's stream then still
  // follows what was launched).
  size_t forked = 0;
  Status status = Status::success();
  for (size_t k = 0; k < n && status.ok(); ++k) {
    size_t i = n - 1 - k; // the last kernel first
    status = GDN_CU(driver_, cuStreamWaitEvent, sideStreams_[i],
                    sideEvents_[0], 0);
    if (!status.ok())
      break;
    ++forked;
    status =
        launchKernel(driver_, *kernels[i], grids[i], args[i], sideStreams_[i]);
  }
  for (size_t k = 0; k < forked; ++k) {
    size_t i = n - 1 - k;
    Status s = GDN_CU(driver_, cuEventRecord, sideEvents_[1 + i],
                      sideStreams_[i]);
    if (s.ok())
      s = GDN_CU(driver_, cuStreamWaitEvent, stream_, sideEvents_[1 + i], 0);
    if (status.ok())
      status = s;
  }
  if (status.ok())
    lastConcurrent_ = n;
  return status;
}

Status CudaSession::concurrentEndTimes(std::vector<float> &ms) {
  ms.clear();
  for (size_t i = 0; i < lastConcurrent_; ++i) {
    float t = 0;
    GDN_CU_TRY(driver_, cuEventElapsedTime, &t, sideEvents_[0],
               sideEvents_[1 + i]);
    ms.push_back(t);
  }
  return Status::success();
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
