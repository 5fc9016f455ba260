//===- Operator.cpp - operator registry and driver helpers ----------------===//

#include "Operator.h"

#include "GemmDriver.h"
#include "TrilInverseDriver.h"

#include <algorithm>
#include <cstdio>

#include <unistd.h>

namespace gdn::run {

const std::vector<OperatorInfo> &operatorRegistry() {
  static const std::vector<OperatorInfo> registry = {
      {"gemm", "C[M,N] f32 = A[M,K] B[K,N], A and B f16 or bf16",
       &createGemmDriver},
      {"tril_inverse",
       "T = (I + strict_lower(L))^-1 of n x n f32 matrices, one per block",
       &createTrilInverseDriver},
  };
  return registry;
}

Status createOperatorDriver(const Manifest &manifest,
                            std::unique_ptr<OperatorDriver> &out) {
  std::string known;
  for (const OperatorInfo &info : operatorRegistry())
    known += std::string(known.empty() ? "" : ", ") + info.name;
  known += ", gdn_prefill";
  const MetaEntry *op = manifest.findMeta("op");
  if (!op)
    return Status::badInput(manifest.location(0) +
                            ": error: missing key 'meta.op' (which operator "
                            "driver checks this kernel: " +
                            known + ")");
  if (op->value == "gdn_prefill")
    return Status::badInput(
        manifest.location(op->line) +
        ": error: meta.op = gdn_prefill kernels form one sequence and are "
        "checked together: pass all of them, and only them (gdn-run --op "
        "gdn_prefill M1.manifest M2.manifest ...)");
  for (const OperatorInfo &info : operatorRegistry()) {
    if (op->value == info.name) {
      out = info.create();
      return Status::success();
    }
  }
  return Status::badInput(manifest.location(op->line) +
                          ": error: unknown meta.op '" + op->value +
                          "' (known: " + known + ")");
}

Status checkParamNames(const Manifest &manifest,
                       const std::vector<std::string> &names) {
  std::string expected, actual;
  for (const std::string &n : names)
    expected += (expected.empty() ? "" : ", ") + n;
  std::vector<std::string> declared;
  for (const Param &p : manifest.params) {
    actual += (actual.empty() ? "" : ", ") + p.name;
    if (!p.type.isTensorMap)
      declared.push_back(p.name);
  }
  if (declared == names)
    return Status::success();
  return Status::badInput(manifest.location(0) + ": error: meta.op = " +
                          manifest.metaString("op") + " expects parameters (" +
                          expected + "), the manifest declares (" + actual +
                          ")");
}

uint64_t physicalMemoryBytes() {
  long pages = ::sysconf(_SC_PHYS_PAGES);
  long pageSize = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || pageSize <= 0)
    return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize);
}

Status checkHostMemory(const std::string &what, double bytes,
                       uint64_t limit) {
  if (limit == 0 || !(bytes > static_cast<double>(limit)))
    return Status::success();
  char buf[160];
  std::snprintf(buf, sizeof buf,
                " needs %.1f GiB of host memory (inputs, outputs and the "
                "fp64 reference), more than this machine's %.1f GiB",
                bytes / double(1ull << 30), double(limit) / double(1ull << 30));
  return Status::badInput(what + buf);
}

void summarizeTimes(std::vector<float> ms, CheckResult &result) {
  if (ms.empty())
    return;
  std::sort(ms.begin(), ms.end());
  size_t n = ms.size();
  result.medianMs = n % 2 ? ms[n / 2] : 0.5 * (ms[n / 2 - 1] + ms[n / 2]);
  result.minMs = ms.front();
  result.timed = true;
}

Status launchForCheck(CudaSession &session, const RunOptions &options,
                      const std::function<Status()> &launchOnce,
                      const std::string &what, DeviceBuffer &out,
                      size_t count, std::vector<float> &host) {
  if (options.check != CheckMode::None) {
    GDN_RUN_TRY(out.fill(0xFF)); // every f32 is NaN until written
    GDN_RUN_TRY(launchOnce());
    GDN_RUN_TRY(session.synchronize(what));
    host.resize(count);
    return out.download(host.data(), count * sizeof(float));
  }
  if (options.warmup == 0 && options.iters == 0) {
    GDN_RUN_TRY(launchOnce()); // run the kernel at least once
    return session.synchronize(what);
  }
  return Status::success();
}

Status timeKernel(CudaSession &session, const RunOptions &options,
                  const std::function<Status()> &launchOnce,
                  CheckResult &result) {
  if (options.warmup == 0 && options.iters == 0)
    return Status::success();
  std::vector<float> ms;
  DeviceBuffer scratch;
  std::function<Status()> flush;
  if (options.iters > 0) {
    GDN_RUN_TRY(scratch.allocate(session, kL2FlushBytes));
    flush = [&]() { return scratch.fill(0); };
  }
  GDN_RUN_TRY(session.timeLaunches(launchOnce, options.warmup, options.iters,
                                   ms, flush));
  summarizeTimes(std::move(ms), result);
  return Status::success();
}

} // namespace gdn::run
