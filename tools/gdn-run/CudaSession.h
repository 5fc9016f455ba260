//===- CudaSession.h - device, context, kernels, buffers, timing -*- C++ -*-===//
//
// The GPU side of gdn-run, shared by all operator drivers: opens one device's
// primary context, loads PTX/cubin modules (once per file, with the JIT error
// log on failure), prepares kernels from their manifests (dynamic shared
// memory opt-in), launches them (cuLaunchKernelEx when the manifest asks for
// thread-block clusters or a programmatic dependent launch) and times launches
// with one CUDA event pair each.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_CUDASESSION_H
#define GDN_TOOLS_GDN_RUN_CUDASESSION_H

#include "CudaDriver.h"
#include "GdnCp.h"
#include "KernelLaunch.h"
#include "Manifest.h"

#include <cstddef>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace gdn::run {

/// What gdn-run reports about the device (`--probe`).
struct DeviceInfo {
  int ordinal = 0;
  std::string name;
  int ccMajor = 0, ccMinor = 0;
  int smCount = 0;
  size_t totalMemBytes = 0;
  int l2Bytes = 0;
  int maxSharedOptin = 0; ///< opt-in dynamic shared memory per block
  int driverVersion = 0;  ///< e.g. 13000
  int memoryClockKHz = 0; ///< peak memory clock
  int memoryBusBits = 0;  ///< global memory bus width
  /// Peak DRAM bandwidth, GB/s (gdnPeakDramGBs); 0 when the driver
  /// reports none.
  double dramGBs() const {
    return gdnPeakDramGBs(memoryClockKHz, memoryBusBits);
  }
};

class CudaSession;

/// Device memory owned by one check; freed on destruction. Transfers and
/// fills are ordered with the session's launches: upload() completes before
/// it returns, fill() is enqueued on the session's stream, and download()
/// first waits for the stream.
class DeviceBuffer {
public:
  DeviceBuffer() = default;
  ~DeviceBuffer();
  DeviceBuffer(const DeviceBuffer &) = delete;
  DeviceBuffer &operator=(const DeviceBuffer &) = delete;

  Status allocate(CudaSession &session, size_t bytes);
  Status upload(const void *host, size_t bytes);
  Status download(void *host, size_t bytes) const;
  /// Sets every byte to `value` (0xFF poisons f32 outputs with NaN), in
  /// stream order (before later launches, after earlier ones).
  Status fill(unsigned char value);
  CUdeviceptr ptr() const { return ptr_; }
  size_t bytes() const { return bytes_; }

private:
  CudaDriver *driver_ = nullptr;
  CUstream stream_ = nullptr;
  CUdeviceptr ptr_ = 0;
  size_t bytes_ = 0;
};

/// One device's primary context and the modules loaded into it.
class CudaSession {
public:
  explicit CudaSession(CudaDriver &driver) : driver_(driver) {}
  ~CudaSession();
  CudaSession(const CudaSession &) = delete;
  CudaSession &operator=(const CudaSession &) = delete;

  /// Loads the driver, initializes it, and makes device `ordinal`'s primary
  /// context current. NoDevice when there is no driver or no device,
  /// BadInput when `ordinal` does not exist.
  Status open(int ordinal, bool verbose);

  /// Loads `image` (the manifest's PTX or cubin file contents; loaded once
  /// per ptxPath) and prepares the manifest's kernel.
  Status loadKernel(const Manifest &manifest, const std::string &image,
                    Kernel &out);

  /// Launches `kernel` on the session's stream; `args` holds one pointer to
  /// each parameter's value, in manifest order. Does not synchronize.
  Status launch(const Kernel &kernel, Dim3 grid, void **args);

  /// Launches `kernels[i]` (grid `grids[i]`, arguments `args[i]`) each on
  /// its own side stream, all after the work enqueued so far on the
  /// session's stream and before any enqueued on it later, in reverse order
  /// (the last kernel first), so that the kernels share the SMs instead of
  /// running one after another. For timing experiments
  /// (--overlap-stages): the kernels are not ordered with each other.
  Status launchConcurrently(const std::vector<const Kernel *> &kernels,
                            const std::vector<Dim3> &grids,
                            const std::vector<void **> &args);

  /// After the last launchConcurrently has completed (synchronize first):
  /// the milliseconds from its fork to the end of each kernel, in the
  /// kernels' order (whether they overlapped: overlapping kernels end
  /// before the sum of their times alone).
  Status concurrentEndTimes(std::vector<float> &ms);

  /// cuCtxSynchronize; `what` names the work in the error message.
  Status synchronize(const std::string &what);

  /// Runs `launchOnce` `warmup` times, then `iters` times with a CUDA event
  /// pair around each launch; returns each launch's milliseconds in `ms`.
  /// `beforeEach`, when given, runs before each timed launch, outside the
  /// events (e.g. a stream-ordered fill that flushes the L2 cache).
  Status timeLaunches(const std::function<Status()> &launchOnce, int warmup,
                      int iters, std::vector<float> &ms,
                      const std::function<Status()> &beforeEach = nullptr);

  const DeviceInfo &device() const { return info_; }
  CudaDriver &driver() { return driver_; }
  CUstream stream() const { return stream_; }
  bool verbose() const { return verbose_; }

private:
  CudaDriver &driver_;
  DeviceInfo info_;
  CUdevice device_ = 0;
  CUcontext context_ = nullptr;
  CUstream stream_ = nullptr;
  bool verbose_ = false;
  std::map<std::string, CUmodule> modules_; ///< by ptxPath
  /// launchConcurrently's streams and its fork/join events (created on
  /// first use, destroyed with the session).
  std::vector<CUstream> sideStreams_;
  std::vector<CUevent> sideEvents_;
  size_t lastConcurrent_ = 0; ///< kernels of the last complete fork

};

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_CUDASESSION_H
