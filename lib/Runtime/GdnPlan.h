//===- GdnPlan.h - the path and variant of a GDN prefill --------*- C++ -*-===//
//
// Of the manifests of a GDN prefill (GdnSequence.h) tagged with meta.path,
// the direct or the context-parallel path runs, in one of its variants
// (meta.block_v): forced by the caller (gdn-run's --cp, --block-v,
// --cp-chunks; the runtime's plan options) or chosen by the cost model of
// GdnCp.h on the problem's shape. gdn-run and the runtime library
// (gdn_runtime.h) plan through chooseGdnPath, so checks, benchmarks and
// users run the same path for the same problem.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_RUNTIME_GDNPLAN_H
#define GDN_RUNTIME_GDNPLAN_H

#include "GdnCp.h"
#include "GdnProblem.h"
#include "GdnSequence.h"

#include <string>
#include <vector>

namespace gdn::run {

/// The cost model's estimate of one path in one variant (GdnCp.h).
struct GdnVariantEstimate {
  GdnPath path = GdnPath::Direct;
  int64_t blockV = 0;        ///< meta.block_v; 0: the path has no variants
  double us = 0;             ///< estimated time of the path, microseconds,
                             ///< including its prep kernel (prepUs)
  double prepUs = 0;         ///< the prep kernel's share of us
  int64_t segmentChunks = 0; ///< cp: the m modeled
  /// The direct path's fused form (meta.form = fused) runs: us is its
  /// estimate (prepUs 0: no prep kernel).
  bool fused = false;
  /// The variant's other form's estimate where it has two (the pair's
  /// when fused, else the fused form's); 0 when it has one.
  double otherFormUs = 0;
};

/// Which path and variant run, and why.
///
/// The path: --cp on|off, or with auto the only path offered, else the
/// cost model: each path's best variant (cp at its best segment size), CP
/// iff its time without the prep kernel < kGdnCpMargin x the direct time
/// without it, plus the difference of the two variants' prep kernels (the
/// margin covers the model's error on the serial part). The variant, when the
/// path has several (meta.block_v): --block-v, else the one the cost model
/// finds fastest (the smallest block_v on ties); a path without variants
/// is modeled as block_v kGdnDefaultBlockV. With --block-v and auto, a path
/// that does not offer that block_v is no candidate. The form, where the
/// direct path's variant offers the fused one (meta.form = fused,
/// GdnSequence.h): --fused on|off, else (auto) the fused form when its
/// estimate (GdnCpEstimate::fused) is below the pair's (prep + forward),
/// each at least its DRAM traffic's time at the device's bandwidth when
/// it is known (gdnDramFloorUs: the pair's bytes, K read twice and Ag
/// through DRAM, bound it on an H100, not on an H200), and not when the
/// problem asks for an optional stage that a kernel of
/// the pair does itself (meta.fuses: the prep's q/k L2 norm and gate/beta
/// transforms) and none of the fused form's does (it would run as a
/// kernel of its own). --fused on also picks the direct path under --cp
/// auto.
struct GdnPathChoice {
  GdnPath path = GdnPath::Direct;
  /// How the path was chosen: "--cp on", "--cp off", "auto" (the cost
  /// model), "auto: no cp manifests", "auto: no direct manifests", "auto:
  /// no meta.path", "auto: block_v 64 only on the cp path".
  std::string how;
  bool modeled = false;        ///< the cost model chose the path
  bool variantModeled = false; ///< the cost model chose among variants
  int64_t blockV = 0;          ///< the variant's meta.block_v; 0: none
  bool blockVGiven = false;    ///< from --block-v
  /// The estimates the model compared: the chosen path's variants
  /// (ascending block_v, the chosen one among them); empty when the model
  /// chose nothing. `other`: the other path's best, when `modeled`.
  std::vector<GdnVariantEstimate> estimates;
  GdnVariantEstimate other;
  int64_t segmentChunks = 0; ///< cp: m (chunks per segment)
  bool chunksGiven = false;  ///< cp: m from --cp-chunks, not the rule
  int64_t segments = 0;      ///< cp: NS
  int64_t numSMs = 0;        ///< the P of the rule and the model
  /// The device's peak DRAM bandwidth, GB/s (0: unknown): the floor of
  /// each of the direct path's two forms (GdnCp.h, kGdnDramEfficiency).
  double dramGBs = 0;
  /// The direct path's fused form runs (meta.form = fused).
  bool fused = false;
  /// How the form was chosen where the variant offers two: "--fused on",
  /// "--fused off", "auto" (the model), "auto: the prep fuses the L2 norm
  /// or the gate/beta transform"; empty when it offers one.
  std::string fusedHow;
  /// The manifests of the other path and of the other variants.
  std::vector<std::string> ignored;

  /// The estimate of the chosen variant (null when the model chose
  /// nothing).
  const GdnVariantEstimate *chosen() const;
};

/// The text after "path: " in the report, one line (wrapped here):
///   direct (auto), block_v 64; model: direct 340 us (block_v 16: 568 us),
///     cp 349 us (block_v 64, 64 chunks/segment), 132 SMs
///   cp (auto), block_v 64, 64 segments of 32 chunks; model: cp 377 us
///     (block_v 16: 408 us), direct 2929 us (block_v 16), 132 SMs
///   direct (--cp off), block_v 16 (--block-v)
///   direct (auto), block_v 128, fused (auto); model: direct 275 us
///     (pair 294 us, block_v 16: 811 us), cp 281 us (...), 132 SMs,
///     3.35 TB/s DRAM
///   cp (--cp on), 2 segments of 8 chunks
///   direct (auto: no meta.path)
/// "; model: ..." only when the model chose the path or the variant: the
/// chosen path's time, in parentheses its other variants', then the other
/// path's best.
std::string gdnPathText(const GdnPathChoice &choice);

/// What the caller forces of the choice (gdn-run's options).
struct GdnPathRequest {
  std::string cp = "auto"; ///< "on" (cp), "off" (direct) or "auto"
  int64_t blockV = 0;      ///< > 0: run the variant with this meta.block_v
  int64_t cpChunks = 0;    ///< > 0: the cp path's segment size m
  /// "on" (the direct path's fused form), "off" (prep + forward) or
  /// "auto".
  std::string fused = "auto";
};

/// Chooses the path and variant of `problem` (GdnPathChoice) among `paths`
/// with `numSMs` as the P of the cost model and `dramGBs` the device's peak
/// DRAM bandwidth (GB/s; 0 when unknown), sets problem.cpChunks (m on
/// the cp path, else 0) and returns the manifests to run in `selected`
/// (one form's, selectGdnForm). BadInput naming the conflict (a forced
/// variant, path or form that is not offered, --cp-chunks with the direct
/// path, --fused on with --cp on).
Status chooseGdnPath(const GdnPaths &paths, const GdnPathRequest &request,
                     int64_t numSMs, GdnProblem &problem, GdnPathChoice &out,
                     std::vector<const Manifest *> &selected,
                     double dramGBs = 0);

/// chooseGdnPath over a kernel set that may hold two builds of the kernels
/// (GdnSequence.h, splitGdnIndexWidth): the path and variant are chosen among
/// the 32-bit build's manifests; when the chosen kernels cannot take this
/// problem's buffers (gdnFitsIndex32 with the plan's scalars), the same
/// choice is made among the 64-bit build's. A set of one build is chosen
/// from as it is. Optional stages (meta.when) are kept only when the problem
/// asks for them (problem.qkL2Norm); BadInput when it asks for one no
/// manifest provides. The qk_l2norm stage is dropped when a chosen stage
/// does it itself (gdnQkL2NormFused; pass that to buildGdnSequence).
Status chooseGdnPathAndBuild(const std::vector<const Manifest *> &manifests,
                             const GdnPathRequest &request, int64_t numSMs,
                             GdnProblem &problem, GdnPathChoice &out,
                             std::vector<const Manifest *> &selected,
                             double dramGBs = 0);

/// True when the problem asks for the q/k L2 normalization and a stage of
/// `selected` declares meta.fuses = qk_l2norm (it normalizes q and k
/// itself; buildGdnSequence's qkL2NormFused).
bool gdnQkL2NormFused(const GdnProblem &problem,
                      const std::vector<const Manifest *> &selected);

} // namespace gdn::run

#endif // GDN_RUNTIME_GDNPLAN_H
