//===- Operator.h - operator drivers and their registry ---------*- C++ -*-===//
//
// An operator driver knows one kind of kernel (`meta.op` in the manifest):
// which parameters it takes, how to generate its inputs, how to launch it and
// how to check it against a CPU reference. Drivers work in two phases so
// that every input problem is reported before the GPU is touched:
// prepare() validates the manifest and options on the host (BadInput), then
// run() executes the check on the device and fills a CheckResult.
//
// To add an operator, implement OperatorDriver and add one line to the table
// in Operator.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_OPERATOR_H
#define GDN_TOOLS_GDN_RUN_OPERATOR_H

#include "CudaSession.h"
#include "HostTensor.h"
#include "Manifest.h"
#include "Options.h"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gdn::run {

/// Outcome and measurements of one check (one manifest).
struct CheckResult {
  std::string manifestPath;
  std::string kernel;
  std::string shape; ///< e.g. "4096x4096x4096"
  CheckMode mode = CheckMode::Full;
  /// Ok, CheckFailed (mismatch), CudaError, or BadInput.
  Status status;
  bool compared = false;
  ErrorStats stats;
  bool timed = false;
  double medianMs = 0, minMs = 0;
  double flop = 0; ///< floating-point operations per launch (0: unknown)

  double tflops() const {
    return medianMs > 0 ? flop / (medianMs * 1e-3) / 1e12 : 0.0;
  }
};

/// Checks kernels of one `meta.op`.
class OperatorDriver {
public:
  virtual ~OperatorDriver() = default;

  /// Validates `manifest` (parameters, meta keys) and `options` (shape)
  /// without a GPU; BadInput naming the problem otherwise. Called once,
  /// before run(); the driver may keep pointers to both.
  virtual Status prepare(const Manifest &manifest,
                         const RunOptions &options) = 0;

  /// The problem shape for the report, valid after prepare().
  virtual std::string shape() const = 0;

  /// Runs the check on `session`'s device; `kernel` comes from the prepared
  /// manifest. Sets result.status and the measurements.
  virtual void run(CudaSession &session, const Kernel &kernel,
                   CheckResult &result) = 0;
};

/// One registered operator.
struct OperatorInfo {
  const char *name;    ///< the meta.op value
  const char *summary; ///< one line for messages
  std::unique_ptr<OperatorDriver> (*create)();
};

/// All registered operators.
const std::vector<OperatorInfo> &operatorRegistry();

/// Creates the driver for `manifest`'s meta.op; BadInput when the key is
/// missing or names no registered operator.
Status createOperatorDriver(const Manifest &manifest,
                            std::unique_ptr<OperatorDriver> &out);

//===----------------------------------------------------------------------===//
// Helpers for drivers
//===----------------------------------------------------------------------===//

/// Checks that the manifest's parameters, tensormap parameters aside (they
/// may appear anywhere), are exactly `names`, in order; BadInput listing
/// the expected signature otherwise.
Status checkParamNames(const Manifest &manifest,
                       const std::vector<std::string> &names);

/// Physical memory of this machine in bytes (0 when unknown).
uint64_t physicalMemoryBytes();

/// BadInput "WHAT needs N GiB of host memory, more than this machine's M
/// GiB" when `bytes` exceeds `limit` (default: physicalMemoryBytes(); no
/// check when that is unknown). Called before anything large is allocated.
Status checkHostMemory(const std::string &what, double bytes,
                       uint64_t limit = physicalMemoryBytes());

/// Median and minimum of per-launch times into `result` (sets timed).
void summarizeTimes(std::vector<float> ms, CheckResult &result);

/// Runs `launchOnce` for timing as `options` ask (warmup, iters), filling the
/// timing fields of `result`. Before each timed launch (outside its events)
/// a kL2FlushBytes scratch buffer is written, so that no operand stays in
/// L2 from the previous launch (as the gdn_prefill timing does).
Status timeKernel(CudaSession &session, const RunOptions &options,
                  const std::function<Status()> &launchOnce,
                  CheckResult &result);

/// The untimed launch of a driver whose output is one f32 buffer: with a
/// check, `out` is filled with NaN first (every element the kernel leaves
/// unwritten fails the check), launched once, synchronized and downloaded
/// into `host` (`count` floats); without a check but also without timed
/// iterations the kernel still runs once; otherwise nothing happens here.
Status launchForCheck(CudaSession &session, const RunOptions &options,
                      const std::function<Status()> &launchOnce,
                      const std::string &what, DeviceBuffer &out,
                      size_t count, std::vector<float> &host);

/// Bytes written before each timed launch to flush the L2 cache.
constexpr size_t kL2FlushBytes = size_t(256) << 20;

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_OPERATOR_H
