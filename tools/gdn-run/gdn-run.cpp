//===- gdn-run.cpp - load, run, check and time gdn kernels ----------------===//
//
// gdn-run is the host half of the gdn test flow: gdn-opt writes PTX plus one
// manifest per kernel, and gdn-run loads the PTX through the CUDA driver API
// (dlopen'ed, see CudaDriver.h), runs each kernel through the operator
// driver its manifest names, checks it against a CPU reference and times it.
//
// All manifests and PTX files are read and validated before the device is
// opened, so bad input is reported (exit 2) even on machines without a GPU.
// Manifests of meta.op = gdn_prefill are not checked one by one: together
// they form one GDN prefill sequence (GdnDriver.h).
// See `gdn-run --help` for options and exit codes.
//
//===----------------------------------------------------------------------===//

#include "CudaSession.h"
#include "GdnDriver.h"
#include "KernelImage.h"
#include "Manifest.h"
#include "Operator.h"
#include "Options.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace gdn::run;

namespace {

/// One manifest to check.
struct Check {
  Manifest manifest;
  std::unique_ptr<OperatorDriver> driver;
  CheckResult result;
};

void printError(const Status &s) {
  std::fprintf(stderr, "gdn-run: %s\n", s.message().c_str());
}

int exitCode(ExitCode code) { return static_cast<int>(code); }

/// Opens the device or reports why not; returns the exit code to use, or -1
/// when the session is open.
int openSession(CudaSession &session, const RunOptions &options) {
  Status s = session.open(options.device, options.verbose);
  if (s.ok()) {
    if (options.verbose)
      std::fprintf(stderr, "gdn-run: device %d: %s (sm_%d%d, %d SMs)\n",
                   session.device().ordinal, session.device().name.c_str(),
                   session.device().ccMajor, session.device().ccMinor,
                   session.device().smCount);
    return -1;
  }
  if (s.code() == ExitCode::NoDevice)
    std::fprintf(stderr, "gdn-run: no CUDA device: %s\n",
                 s.message().c_str());
  else
    printError(s);
  return exitCode(s.code());
}

int runProbe(const RunOptions &options) {
  CudaDriver driver;
  CudaSession session(driver);
  int rc = openSession(session, options);
  if (rc >= 0)
    return rc;
  const DeviceInfo &d = session.device();
  std::printf("device %d: %s\n", d.ordinal, d.name.c_str());
  std::printf("  compute capability: %d.%d (sm_%d%d)\n", d.ccMajor, d.ccMinor,
              d.ccMajor, d.ccMinor);
  std::printf("  SMs: %d\n", d.smCount);
  std::printf("  memory: %zu MiB, L2: %d KiB\n", d.totalMemBytes >> 20,
              d.l2Bytes >> 10);
  std::printf("  DRAM: %.2f TB/s peak (memory clock %d MHz, %d-bit bus)\n",
              d.dramGBs() / 1e3, d.memoryClockKHz / 1000, d.memoryBusBits);
  std::printf("  max dynamic shared memory per block (opt-in): %d B\n",
              d.maxSharedOptin);
  std::printf("  driver: CUDA %d.%d\n", d.driverVersion / 1000,
              (d.driverVersion % 1000) / 10);
  return 0;
}

std::string format(const char *fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

/// Prints `rows` (the first is the header) as a table: columns separated by
/// two spaces, text left-aligned, columns [firstNumber, lastNumber]
/// right-aligned.
void printRows(const std::vector<std::vector<std::string>> &rows,
               size_t firstNumber, size_t lastNumber) {
  std::vector<size_t> width(rows[0].size(), 0);
  for (const auto &row : rows)
    for (size_t i = 0; i < row.size(); ++i)
      width[i] = std::max(width[i], row[i].size());
  for (const auto &row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i) {
      bool number = i >= firstNumber && i <= lastNumber;
      std::string pad(width[i] - row[i].size(), ' ');
      line += number ? pad + row[i] : row[i] + pad;
      if (i + 1 < row.size())
        line += "  ";
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    std::printf("%s\n", line.c_str());
  }
}

/// Prints the result table: one row per check.
void printTable(const std::vector<std::unique_ptr<Check>> &checks) {
  std::vector<std::vector<std::string>> rows;
  rows.push_back({"kernel", "shape", "check", "rel_l2", "max_abs",
                  "median_ms", "min_ms", "TFLOP/s", "result"});
  for (const auto &c : checks) {
    const CheckResult &r = c->result;
    const char *verdict = r.status.ok() ? "PASS"
                          : r.status.code() == ExitCode::CheckFailed
                              ? "FAIL"
                              : "ERROR";
    std::vector<std::string> row = {r.kernel, r.shape.empty() ? "-" : r.shape,
                                    checkModeName(r.mode)};
    if (r.compared) {
      row.push_back(format("%.3e", r.stats.relL2()));
      row.push_back(r.stats.nonFinite
                        ? std::to_string(r.stats.nonFinite) + " non-finite"
                        : format("%.3e", r.stats.maxAbs));
    } else {
      row.insert(row.end(), {"-", "-"});
    }
    if (r.timed) {
      row.push_back(format("%.4f", r.medianMs));
      row.push_back(format("%.4f", r.minMs));
      double tf = r.tflops();
      row.push_back(r.flop <= 0 ? "-" : format(tf >= 1 ? "%.1f" : "%.3f", tf));
    } else {
      row.insert(row.end(), {"-", "-", "-"});
    }
    row.push_back(verdict);
    rows.push_back(std::move(row));
  }
  printRows(rows, 3, 7);
}

/// Rejects options of another operator (e.g. --family with gemm kernels).
bool rejectForeignOptions(const RunOptions &options,
                          const std::vector<std::string> &foreign,
                          const char *op) {
  for (const std::string &name : foreign) {
    if (options.has(name)) {
      std::fprintf(stderr,
                   "gdn-run: %s does not apply to meta.op = %s (see gdn-run "
                   "--help)\n",
                   name.c_str(), op);
      return true;
    }
  }
  return false;
}

/// Reads the PTX/cubin file of `m` into `images` (once per file) and
/// checks it for m's kernel on the host (KernelImage.h).
Status readImage(const Manifest &m,
                 std::map<std::string, std::string> &images) {
  auto cached = images.find(m.ptxPath);
  if (cached == images.end()) {
    std::string image;
    Status st = readFile(m.ptxPath, "PTX file", image);
    if (!st.ok())
      return Status::badInput(st.message() + " (named by " + m.path + ")");
    cached = images.emplace(m.ptxPath, std::move(image)).first;
  }
  std::string note;
  GDN_RUN_TRY(validateKernelImage(m, cached->second, &note));
  if (!note.empty())
    std::fprintf(stderr, "gdn-run: %s\n", note.c_str());
  return Status::success();
}

/// Reads and checks the PTX file of each of `manifests` into `images`;
/// prints the errors and returns false when one is bad.
bool readImages(const std::vector<const Manifest *> &manifests,
                std::map<std::string, std::string> &images) {
  bool ok = true;
  for (const Manifest *m : manifests) {
    Status st = readImage(*m, images);
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", st.message().c_str());
      ok = false;
    }
  }
  return ok;
}

/// The gdn_prefill flow: all manifests form one sequence and one check.
int runGdnPrefill(const RunOptions &options,
                  const std::vector<const Manifest *> &all) {
  if (rejectForeignOptions(options, gemmOnlyOptions(), "gdn_prefill"))
    return exitCode(ExitCode::BadInput);
  // A kernel directory may hold the f16 and the bf16 build: --dtype picks.
  std::vector<const Manifest *> selected;
  std::vector<std::string> ignored;
  Status s = selectGdnManifests(all, options.dtype, selected, ignored);
  if (!s.ok()) {
    printError(s);
    return exitCode(s.code());
  }
  if (!ignored.empty()) {
    std::string list;
    for (const std::string &path : ignored)
      list += " " + path;
    std::fprintf(stderr, "gdn-run: --dtype %s: ignoring%s\n",
                 options.dtype.c_str(), list.c_str());
  }
  const std::vector<const Manifest *> &manifests = selected;
  GdnDriver gdn;
  // The direct or the CP path (--cp, meta.path) and its variant (--block-v,
  // meta.block_v) are chosen here, for 132 SMs until the device is open.
  s = gdn.prepare(manifests, options);
  if (!s.ok()) {
    printError(s);
    std::fprintf(stderr, "gdn-run: the gdn_prefill sequence was rejected; "
                         "nothing was run\n");
    return exitCode(s.code());
  }
  auto stageManifests = [&gdn]() {
    std::vector<const Manifest *> list;
    for (const GdnStage &stage : gdn.sequence().stages)
      list.push_back(stage.manifest);
    return list;
  };
  auto describeSequence = [&gdn, &options]() {
    if (!options.verbose)
      return;
    const GdnPathChoice &choice = gdn.pathChoice();
    std::fprintf(stderr, "gdn-run: gdn_prefill: path: %s\n",
                 gdnPathText(choice).c_str());
    if (!choice.ignored.empty()) {
      std::string list;
      for (const std::string &path : choice.ignored)
        list += " " + path;
      std::fprintf(stderr,
                   "gdn-run: gdn_prefill: not on this path or "
                   "variant:%s\n",
                   list.c_str());
    }
    for (const GdnStage &stage : gdn.sequence().stages)
      std::fprintf(stderr,
                   "gdn-run: gdn_prefill: stage %lld '%s': %s, grid "
                   "%ux%ux%u, block %ux%ux%u, %u B dynamic shared memory\n",
                   static_cast<long long>(stage.order), stage.name.c_str(),
                   stage.manifest->kernel.c_str(), stage.grid.x, stage.grid.y,
                   stage.grid.z, stage.manifest->block[0],
                   stage.manifest->block[1], stage.manifest->block[2],
                   stage.manifest->sharedBytes);
  };
  std::map<std::string, std::string> images;
  if (!readImages(stageManifests(), images))
    return exitCode(ExitCode::BadInput);
  describeSequence();

  CudaDriver driver;
  CudaSession session(driver);
  int rc = openSession(session, options);
  if (rc >= 0)
    return rc;
  // When the device took part in choosing the path, the variant, the form
  // or the segment size (its SM count, its DRAM bandwidth), choose again
  // with the device's.
  const int64_t sms = session.device().smCount;
  const double dram = session.device().dramGBs();
  if (sms > 0 &&
      (sms != gdn.pathChoice().numSMs || dram != gdn.pathChoice().dramGBs) &&
      gdn.dependsOnDevice()) {
    s = gdn.prepare(manifests, options, sms, dram);
    if (!s.ok()) {
      printError(s);
      std::fprintf(stderr, "gdn-run: the gdn_prefill sequence was rejected "
                           "for the device's %lld SMs; nothing was run\n",
                   static_cast<long long>(sms));
      return exitCode(s.code());
    }
    if (!readImages(stageManifests(), images))
      return exitCode(ExitCode::BadInput);
    if (options.verbose)
      std::fprintf(stderr, "gdn-run: gdn_prefill: chosen again for the "
                           "device's %lld SMs:\n",
                   static_cast<long long>(sms));
    describeSequence();
  }

  GdnResult result;
  gdn.run(session, images, result);
  if (!result.status.ok())
    std::fprintf(stderr, "gdn-run: gdn_prefill %s: %s\n",
                 result.shape.c_str(), result.status.message().c_str());
  for (const std::string &line : gdnDetailLines(result))
    std::printf("%s\n", line.c_str());
  printRows({gdnTableHeader(), gdnTableRow(result)}, 5, 10);
  std::printf("%d passed, %d failed\n", result.status.ok() ? 1 : 0,
              result.status.ok() ? 0 : 1);
  return exitCode(result.status.code());
}

} // namespace

int main(int argc, char **argv) {
  RunOptions options;
  Status s = parseCommandLine(std::vector<std::string>(argv + 1, argv + argc),
                              options);
  if (!s.ok()) {
    printError(s);
    return exitCode(s.code());
  }
  if (options.help) {
    std::fputs(usageText().c_str(), stdout);
    return 0;
  }
  if (options.probe)
    return runProbe(options);
  if (options.manifests.empty()) {
    std::fprintf(stderr, "gdn-run: no manifest given (see gdn-run --help)\n");
    return exitCode(ExitCode::BadInput);
  }

  if (!options.op.empty() && options.op != kGdnOpName) {
    bool known = false;
    std::string list;
    for (const OperatorInfo &info : operatorRegistry()) {
      known |= options.op == info.name;
      list += std::string(info.name) + ", ";
    }
    if (!known) {
      std::fprintf(stderr, "gdn-run: --op: unknown operator '%s' (known: "
                           "%s%s)\n",
                   options.op.c_str(), list.c_str(), kGdnOpName);
      return exitCode(ExitCode::BadInput);
    }
  }

  // Phase 1: read and validate everything on the host. Manifests are read
  // first: whether they are gdn_prefill kernels decides the flow.
  std::vector<std::unique_ptr<Check>> loaded;
  size_t rejected = 0, gdnCount = 0;
  for (const std::string &path : options.manifests) {
    auto check = std::make_unique<Check>();
    Status st = loadManifest(path, check->manifest);
    if (st.ok() && !options.op.empty() &&
        check->manifest.metaString("op") != options.op) {
      const MetaEntry *op = check->manifest.findMeta("op");
      st = Status::badInput(check->manifest.location(op ? op->line : 0) +
                            ": error: meta.op = " +
                            (op ? op->value : std::string("(missing)")) +
                            ", but --op " + options.op + " was given");
    }
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", st.message().c_str());
      ++rejected;
      continue;
    }
    gdnCount += check->manifest.metaString("op") == kGdnOpName;
    loaded.push_back(std::move(check));
  }
  if (options.op == kGdnOpName || (options.op.empty() && gdnCount > 0 &&
                                   gdnCount == loaded.size() && !rejected)) {
    if (rejected) {
      std::fprintf(stderr, "gdn-run: %zu of %zu manifest%s rejected; nothing "
                           "was run\n",
                   rejected, options.manifests.size(),
                   options.manifests.size() == 1 ? "" : "s");
      return exitCode(ExitCode::BadInput);
    }
    std::vector<const Manifest *> manifests;
    for (const auto &check : loaded)
      manifests.push_back(&check->manifest);
    return runGdnPrefill(options, manifests);
  }
  if (!rejected && rejectForeignOptions(options, gdnOnlyOptions(), "gemm"))
    return exitCode(ExitCode::BadInput);

  std::vector<std::unique_ptr<Check>> checks;
  std::map<std::string, std::string> images; // ptxPath -> file contents
  for (auto &check : loaded) {
    const std::string &path = check->manifest.path;
    Status st = createOperatorDriver(check->manifest, check->driver);
    if (st.ok())
      st = check->driver->prepare(check->manifest, options);
    if (st.ok())
      st = readImage(check->manifest, images);
    if (!st.ok()) {
      std::fprintf(stderr, "%s\n", st.message().c_str());
      ++rejected;
      continue;
    }
    check->result.manifestPath = path;
    check->result.kernel = check->manifest.kernel;
    check->result.mode = options.check;
    check->result.shape = check->driver->shape();
    checks.push_back(std::move(check));
  }
  if (rejected) {
    std::fprintf(stderr, "gdn-run: %zu of %zu manifest%s rejected; nothing was "
                         "run\n",
                 rejected, options.manifests.size(),
                 options.manifests.size() == 1 ? "" : "s");
    return exitCode(ExitCode::BadInput);
  }

  // Phase 2: run on the device.
  CudaDriver driver;
  CudaSession session(driver);
  int rc = openSession(session, options);
  if (rc >= 0)
    return rc;

  // A fault inside a kernel (illegal address, trap) leaves the context
  // unusable: every later call fails with the same error. Checks after such
  // a fault are reported as not run instead of with misleading errors.
  std::string brokenBy;
  for (auto &check : checks) {
    if (!brokenBy.empty()) {
      check->result.status = Status::cudaError(
          "not run: the CUDA context is unusable after " + brokenBy);
    } else {
      Kernel kernel;
      Status st = session.loadKernel(
          check->manifest, images.at(check->manifest.ptxPath), kernel);
      if (st.ok())
        check->driver->run(session, kernel, check->result);
      else
        check->result.status = st;
      if (check->result.status.code() == ExitCode::CudaError) {
        Status health = session.synchronize("a failed check");
        if (!health.ok())
          brokenBy = "the error in " + check->result.manifestPath;
      }
    }
    if (!check->result.status.ok())
      std::fprintf(stderr, "gdn-run: %s: %s: %s\n",
                   check->result.manifestPath.c_str(),
                   check->manifest.kernel.c_str(),
                   check->result.status.message().c_str());
  }

  printTable(checks);
  size_t passed = 0, failed = 0;
  bool anyBadInput = false, anyCuda = false;
  for (const auto &check : checks) {
    const Status &st = check->result.status;
    if (st.ok()) {
      ++passed;
      continue;
    }
    ++failed;
    anyBadInput |= st.code() == ExitCode::BadInput;
    anyCuda |= st.code() != ExitCode::CheckFailed &&
               st.code() != ExitCode::BadInput;
  }
  std::printf("%zu passed, %zu failed\n", passed, failed);
  if (anyBadInput)
    return exitCode(ExitCode::BadInput);
  if (anyCuda)
    return exitCode(ExitCode::CudaError);
  return exitCode(failed ? ExitCode::CheckFailed : ExitCode::Ok);
}
