//===- Options.cpp - gdn-run command line ---------------------------------===//
//
// Options take their value as the next argument or after '=' (`--m 512`,
// `--m=512`); `--` ends the options; everything else is a manifest path.
//
//===----------------------------------------------------------------------===//

#include "Options.h"

#include "Manifest.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

namespace gdn::run {

const char *checkModeName(CheckMode mode) {
  switch (mode) {
  case CheckMode::Full:
    return "full";
  case CheckMode::Sample:
    return "sample";
  case CheckMode::None:
    return "none";
  }
  return "?";
}

int64_t RunOptions::dim(const std::string &name, int64_t fallback) const {
  auto it = dims.find(name);
  return it == dims.end() ? fallback : it->second;
}

namespace {

/// Problem-size options: `--<name> N` sets dims[name].
const char *const kDimOptions[] = {"m", "n", "k"};

Status usageError(const std::string &problem) {
  return Status::badInput(problem + " (see gdn-run --help)");
}

Status parseIntOption(const std::string &option, const std::string &text,
                      int64_t minValue, int64_t maxValue, int64_t &out) {
  int64_t v;
  if (!parseInt64(text, v))
    return usageError(option + ": expected an integer, got '" + text + "'");
  if (v < minValue || v > maxValue)
    return usageError(option + " " + text + " is out of range [" +
                      std::to_string(minValue) + ", " +
                      std::to_string(maxValue) + "]");
  out = v;
  return Status::success();
}

} // namespace

Status parseCommandLine(const std::vector<std::string> &args,
                        RunOptions &out) {
  RunOptions o;
  bool optionsEnded = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string &arg = args[i];
    if (optionsEnded || arg.empty() || arg[0] != '-' || arg == "-") {
      o.manifests.push_back(arg);
      continue;
    }
    if (arg == "--") {
      optionsEnded = true;
      continue;
    }
    std::string name = arg, inlineValue;
    bool hasInline = false;
    size_t eq = arg.find('=');
    if (arg.compare(0, 2, "--") == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      inlineValue = arg.substr(eq + 1);
      hasInline = true;
    }
    auto flag = [&](bool &target) -> Status {
      if (hasInline)
        return usageError(name + " takes no value");
      target = true;
      return Status::success();
    };
    std::string value;
    auto takeValue = [&]() -> Status {
      if (hasInline) {
        value = inlineValue;
        return Status::success();
      }
      if (i + 1 >= args.size())
        return usageError(name + " needs a value");
      value = args[++i];
      return Status::success();
    };

    if (name == "-h" || name == "--help") {
      GDN_RUN_TRY(flag(o.help));
      continue;
    }
    if (name == "--probe") {
      GDN_RUN_TRY(flag(o.probe));
      continue;
    }
    if (name == "-v" || name == "--verbose") {
      GDN_RUN_TRY(flag(o.verbose));
      continue;
    }
    bool isDim = false;
    for (const char *d : kDimOptions) {
      if (name == std::string("--") + d) {
        GDN_RUN_TRY(takeValue());
        int64_t v;
        GDN_RUN_TRY(parseIntOption(name, value, INT64_MIN, INT64_MAX, v));
        o.dims[d] = v;
        isDim = true;
      }
    }
    if (isDim)
      continue;
    if (name == "--seed") {
      GDN_RUN_TRY(takeValue());
      int64_t v;
      GDN_RUN_TRY(parseIntOption(name, value, 0, INT64_MAX, v));
      o.seed = static_cast<uint64_t>(v);
    } else if (name == "--check") {
      GDN_RUN_TRY(takeValue());
      if (value == "full")
        o.check = CheckMode::Full;
      else if (value == "sample")
        o.check = CheckMode::Sample;
      else if (value == "none")
        o.check = CheckMode::None;
      else
        return usageError("--check: expected full, sample or none, got '" +
                          value + "'");
    } else if (name == "--rtol") {
      GDN_RUN_TRY(takeValue());
      const char *begin = value.c_str();
      char *end = nullptr;
      errno = 0;
      double v = std::strtod(begin, &end);
      if (value.empty() || *end != '\0' || errno == ERANGE ||
          !std::isfinite(v) || v < 0)
        return usageError("--rtol: expected a non-negative number, got '" +
                          value + "'");
      o.rtol = v;
    } else if (name == "--warmup" || name == "--iters" ||
               name == "--device") {
      GDN_RUN_TRY(takeValue());
      int64_t v;
      GDN_RUN_TRY(parseIntOption(name, value, 0, 1000000, v));
      (name == "--warmup" ? o.warmup
                          : name == "--iters" ? o.iters : o.device) =
          static_cast<int>(v);
    } else {
      return usageError("unknown option '" + name + "'");
    }
  }
  out = std::move(o);
  return Status::success();
}

std::string usageText() {
  return R"(usage: gdn-run [options] MANIFEST...
       gdn-run --probe [--device N]

Loads the kernel that each manifest describes (from PTX or cubin, through the
CUDA driver API), runs it on inputs from a seeded generator, checks the result
against a CPU reference and times it. One check per manifest; the operator
driver is chosen by the manifest's `meta.op` (gemm).

options:
  --m N, --n N, --k N  GEMM shape: C[M,N] = A[M,K] B[K,N] (default 4096 each)
  --seed N             input generator seed (default 1)
  --check MODE         full (default): compare every output element;
                       sample: 4096 random elements; none: only run and time
  --rtol X             pass iff all outputs are finite and
                       ||out - ref||_2 / ||ref||_2 <= X (default 1e-3)
  --warmup N           untimed launches before timing (default 10)
  --iters N            timed launches, one CUDA event pair each; the median
                       and minimum are reported (default 50; 0: no timing)
  --device N           CUDA device ordinal (default 0)
  --probe              print the device's name, SM count and compute
                       capability, then exit
  -v, --verbose        kernel resources, JIT logs and reference timings
  -h, --help           this text

output: a table with one row per check (kernel, shape, check, rel_l2,
  max_abs, median_ms, min_ms, TFLOP/s, result) and a last line
  "N passed, M failed".

exit status:
  0   every check passed (or --probe found a device)
  1   a check failed: an output mismatched the reference or was not finite
  2   bad usage or bad input: unreadable or malformed manifest or PTX file,
      unknown meta.op, parameters that do not fit the operator, a shape the
      kernel cannot handle; nothing is run
  3   a CUDA driver call failed (the message names the CUresult)
  77  no CUDA driver (libcuda.so.1 cannot be loaded) or no CUDA device:
      "gdn-run: no CUDA device: <reason>" (lets CI skip GPU tests)
  With several manifests the status is 2 if any check had bad input, else 3
  if any had a CUDA error, else 1 if any failed, else 0.
)";
}

} // namespace gdn::run
