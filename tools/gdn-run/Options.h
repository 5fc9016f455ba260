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
#include <set>
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
  std::map<std::string, int64_t> dims; ///< e.g. "m" from --m, "HV" from --HV
  std::string op; ///< --op: "" (from the manifests' meta.op) or a meta.op
  uint64_t seed = 1;
  CheckMode check = CheckMode::Full;
  double rtol = 1e-3;
  bool rtolSet = false; ///< --rtol was given (operators have own defaults)

  // gdn_prefill (see GdnDriver.h).
  std::string dtype;             ///< --dtype f16|bf16; "": the manifests'
  std::string family = "weak";   ///< --family (checked by the operator)
  double scale = 0;              ///< --scale; 0: DK^-1/2
  double cpTheta = 14;           ///< --cp-theta; 0: exact CP summaries only
  bool h0 = false;               ///< --h0: random fp32 initial state
  bool qkL2Norm = false;         ///< --qk-l2norm: the kernels normalize q, k
  bool gateInKernel = false;     ///< --gate-in-kernel: g from a_log, dt_bias
  bool betaSigmoid = false;      ///< --beta-sigmoid: beta = sigmoid(beta)
  bool negEigval = false;        ///< --neg-eigval: beta = 2 beta
  bool stateVFirst = false;      ///< --state-v-first: h0/ht as [N,HV,V,K]
  bool overlapStages = false;    ///< --overlap-stages: timing experiment
  bool maxCarveout = false;      ///< --max-carveout (implied by the above)
  std::vector<int64_t> cuSeqlens; ///< --cu-seqlens; empty: not varlen
  int determinism = 2;           ///< --determinism: extra bit-exact runs
  std::string loadDir, saveDir;  ///< --load, --save
  std::string layout = "bthd";   ///< --layout bthd|bhtd
  std::string cp = "auto";       ///< --cp on|off|auto: the CP path
  int64_t cpChunks = 0;          ///< --cp-chunks: chunks per segment; 0: rule
  int64_t blockV = 0;            ///< --block-v: the variant; 0: cost model
  std::string fused = "auto";    ///< --fused on|off|auto: the direct form

  /// Every option given, as spelled without a value ("--family", "-v").
  std::set<std::string> given;
  int warmup = 10;
  int iters = 50;
  int device = 0;
  bool probe = false;
  bool help = false;
  bool verbose = false;

  /// The value of dimension `name`, or `fallback` when not given.
  int64_t dim(const std::string &name, int64_t fallback) const;
  /// True when option `name` ("--T", "--family") was given.
  bool has(const std::string &name) const { return given.count(name) != 0; }
};

/// Parses argv[1..] (without the program name). BadInput on bad usage.
Status parseCommandLine(const std::vector<std::string> &args,
                        RunOptions &out);

/// The `--help` text, including the exit codes.
std::string usageText();

/// Options that apply only to meta.op = gemm, and only to gdn_prefill.
const std::vector<std::string> &gemmOnlyOptions();
const std::vector<std::string> &gdnOnlyOptions();

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_OPTIONS_H
