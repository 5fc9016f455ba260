//===- Options.h - gdn-run command line -------------------------*- C++ -*-===//
//
// The command line is parsed by hand (no LLVM) into RunOptions, which every
// operator driver reads. Problem sizes are kept as named dimensions so that a
// new operator only has to add its options to the table in Options.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_OPTIONS_H
#define GDN_TOOLS_GDN_RUN_OPTIONS_H

#include "Status.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace gdn::run {

/// How much of an output is compared with the reference.
enum class CheckMode { Full, Sample, None };

/// "full", "sample" or "none".
const char *checkModeName(CheckMode mode);

/// Everything the command line sets.
struct RunOptions {
  std::vector<std::string> manifests;
  std::map<std::string, int64_t> dims; ///< e.g. "m" from --m
  uint64_t seed = 1;
  CheckMode check = CheckMode::Full;
  double rtol = 1e-3;
  int warmup = 10;
  int iters = 50;
  int device = 0;
  bool probe = false;
  bool help = false;
  bool verbose = false;

  /// The value of dimension `name`, or `fallback` when not given.
  int64_t dim(const std::string &name, int64_t fallback) const;
};

/// Parses argv[1..] (without the program name). BadInput on bad usage.
Status parseCommandLine(const std::vector<std::string> &args,
                        RunOptions &out);

/// The `--help` text, including the exit codes.
std::string usageText();

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_OPTIONS_H
