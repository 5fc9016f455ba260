//===- GdnDriver.h - the GDN prefill check over a kernel sequence -*- C++ -*-=//
//
// meta.op = gdn_prefill: the manifests given together form one Gated
// DeltaNet prefill forward (docs/gdn-math.md §1), several kernels run in meta.order
// with parameters bound by name (GdnSequence.h). Of manifests tagged with
// meta.path, --cp on|off|auto picks the direct or the context-parallel path
// (auto: the cost model of GdnCp.h on the problem's shape), and of a path's
// variants (meta.block_v) --block-v or the cost model picks one
// (GdnPathChoice). One check:
//
//   1. inputs: a seeded family (GdnInputs.h) or --load DIR (.npy);
//   2. one run of the whole sequence with o, ht and every workspace
//      poisoned (0xFF bytes: NaN), then o and ht are downloaded;
//   3. --determinism N more runs, re-poisoned, which must reproduce o and ht
//      bit for bit;
//   4. timing: --warmup runs, then --iters runs with a CUDA event pair around
//      each whole sequence, a 256 MiB scratch buffer written before each
//      (outside the events) so that no input stays in L2;
//   5. the fp64 token recurrence (gdn::ref::recurrentForward, threaded) on
//      exactly the rounded inputs; pass iff o and ht are finite, both
//      rel_l2 <= rtol, and the reruns were identical;
//   6. --save DIR: inputs, outputs and the reference as .npy.
//
// Like the single-kernel drivers it works in two phases: prepare() checks
// manifests, options and .npy headers on the host (BadInput), run() does
// the device work.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_GDNDRIVER_H
#define GDN_TOOLS_GDN_RUN_GDNDRIVER_H

#include "CudaSession.h"
#include "GdnCp.h"
#include "GdnLaunch.h"
#include "GdnPlan.h"
#include "GdnInputs.h"
#include "GdnProblem.h"
#include "GdnSequence.h"
#include "HostTensor.h"
#include "Operator.h"
#include "Options.h"

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace gdn::run {

/// Outcome and measurements of one GDN prefill check.
struct GdnResult {
  /// Ok, CheckFailed (mismatch, non-finite, nondeterministic), CudaError or
  /// BadInput.
  Status status;
  std::string shape;  ///< GdnProblem::shapeText()
  std::string dtype;  ///< "f16" / "bf16"
  std::string family; ///< family name ("+h0" with an initial state), "npy"
  std::string path;   ///< gdnPathText() of the chosen path; "" unknown
  CheckMode mode = CheckMode::Full;
  double rtol = 0;
  bool compared = false;
  ErrorStats o, ht;
  int determinismRuns = 0; ///< extra runs done (all identical when passed)
  /// CP path: what the summaries did (the cp_win workspace, per segment
  /// and head): windowed (the guarded warm-up shortcut) with their mean
  /// window in chunks, exact (full summary with M), none (last segments).
  bool cpReported = false;
  int64_t cpWindowed = 0, cpExact = 0, cpNone = 0;
  double cpMeanWindow = 0;
  size_t nonFiniteInputs = 0; ///< NaN/Inf among the inputs (check fails)
  bool timed = false;
  int iters = 0;
  double medianMs = 0, minMs = 0;
  /// Median time of each kernel of the sequence launched alone (same
  /// inputs, L2 flushed before each launch), in launch order.
  std::vector<std::pair<std::string, double>> stageMedianMs;
  /// --overlap-stages: when each kernel of the last timed run ended, in ms
  /// after the run's fork (launch order).
  std::vector<std::pair<std::string, double>> overlapEndMs;
  /// Host microseconds per call to enqueue the whole sequence (the driver's
  /// launches of the bound kernels; no synchronization inside a batch).
  double hostLaunchUs = 0;
  /// The same for one launch of an empty kernel (the driver's floor on
  /// this host); 0 when not measured.
  double emptyLaunchUs = 0;
  GdnCost cost;

  double tflops() const;
  double gbps() const;
  double xfloor() const;
};

/// The gdn_prefill check.
class GdnDriver {
public:
  /// Picks the manifests of a path and variant (--cp, meta.path,
  /// --block-v, meta.block_v; GdnPathChoice) and validates them as one
  /// sequence, the options and (with --load) the .npy headers, without a
  /// GPU. `numSMs` is the P of the CP segment size rule and the cost model
  /// (the device's SM count once known), `dramGBs` the device's peak DRAM
  /// bandwidth (0: unknown; the direct path's form choice, GdnPlan.h).
  /// BadInput naming the problem. May be called again (e.g. with the
  /// device's numbers).
  Status prepare(const std::vector<const Manifest *> &manifests,
                 const RunOptions &options,
                 int64_t numSMs = kGdnDefaultSmCount, double dramGBs = 0);

  /// Runs the check; `images` maps each manifest's ptxPath to its contents.
  void run(CudaSession &session,
           const std::map<std::string, std::string> &images,
           GdnResult &result);

  /// Valid after prepare().
  const GdnProblem &problem() const { return problem_; }
  const GdnSequence &sequence() const { return sequence_; }
  double rtol() const { return rtol_; }
  const GdnPathChoice &pathChoice() const { return choice_; }
  /// True when the device numbers passed to prepare() took part in the
  /// choice of path, variant, form or segment size (prepare again with the
  /// device's).
  bool dependsOnDevice() const {
    return choice_.modeled || choice_.variantModeled ||
           choice_.fusedHow == "auto" ||
           (choice_.path == GdnPath::Cp && !choice_.chunksGiven);
  }
  /// Fills the report fields that are known before the run.
  void describe(GdnResult &result) const;

  /// The host memory prepare() allows a problem (default: this machine's
  /// physical memory; for tests).
  void setHostMemoryLimit(uint64_t bytes) { hostMemoryLimit_ = bytes; }

  /// Bytes of the L2-flushing scratch buffer written before each timed run.
  static constexpr size_t kScratchBytes = size_t(256) << 20;

private:
  Status runChecked(CudaSession &session,
                    const std::map<std::string, std::string> &images,
                    GdnResult &result);
  Status compare(const std::vector<unsigned char> &o,
                 const std::vector<float> &ht, bool verbose,
                 GdnResult &result);
  Status save(const std::vector<unsigned char> &o,
              const std::vector<float> &ht) const;

  const RunOptions *options_ = nullptr;
  uint64_t hostMemoryLimit_ = physicalMemoryBytes();
  GdnSequence sequence_;
  GdnProblem problem_;
  GdnPathChoice choice_;
  GdnFamily family_ = GdnFamily::Weak;
  GdnLayout layout_ = GdnLayout::BTHD;
  bool load_ = false;
  GdnLoadPlan loadPlan_;
  double rtol_ = 0;
  GdnInputs inputs_;
  std::vector<double> refO_, refHt_;
};

/// The result table's header and one row (op, shape, dtype, family, check,
/// o_rel, ht_rel, median_ms, TFLOP/s, GB/s, xfloor, result).
std::vector<std::string> gdnTableHeader();
std::vector<std::string> gdnTableRow(const GdnResult &result);
/// Lines printed above the table: the path, errors of o and ht,
/// determinism, timing.
std::vector<std::string> gdnDetailLines(const GdnResult &result);

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_GDNDRIVER_H
