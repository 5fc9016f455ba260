//===- GdnPlan.cpp - the path and variant of a GDN prefill ----------------===//

#include "GdnPlan.h"

#include <algorithm>

#include <cstdio>

namespace gdn::run {

namespace {

std::string format(const char *fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

/// Whether some manifest of `manifests` has meta.`key` = `value`.
bool hasMeta(const std::vector<const Manifest *> &manifests,
             const char *key, const std::string &value) {
  return std::any_of(manifests.begin(), manifests.end(),
                     [&](const Manifest *m) {
                       const MetaEntry *e = m->findMeta(key);
                       return e && e->value == value;
                     });
}

/// The optional stages (meta.when) and whether `problem` asks for each.
struct OptionalStage {
  const char *when;
  bool asked;
  const char *what; ///< for messages: "the problem asks for ..."
};
std::vector<OptionalStage> optionalStages(const GdnProblem &problem) {
  return {{kGdnWhenQkL2Norm, problem.qkL2Norm,
           "the L2 normalization of q and k"},
          {kGdnWhenGateBeta, problem.gateBeta(), "the gate or beta transform"}};
}

} // namespace

Status chooseGdnPath(const GdnPaths &paths, const GdnPathRequest &request,
                     int64_t numSMs, GdnProblem &p, GdnPathChoice &out,
                     std::vector<const Manifest *> &selected,
                     double dramGBs) {
  auto usage = [](const std::string &problem) {
    return Status::badInput(problem + " (see gdn-run --help)");
  };
  // The path and its variant: --cp, --block-v, the manifests offered and,
  // where they leave a choice, the cost model (GdnPathChoice).
  GdnPathChoice choice;
  choice.numSMs = numSMs;
  choice.dramGBs = std::max(dramGBs, 0.0);
  choice.chunksGiven = request.cpChunks > 0;
  choice.blockVGiven = request.blockV > 0;
  GdnCpShape cpShape = gdnCpShape(p.deviceCuSeqlens(), p.HV, p.hasH0);
  cpShape.warmupChunks = p.cpTheta > 0 ? kGdnCpWarmupChunks : 0;
  // The refined kernels each path would launch (charged as exits).
  cpShape.refineDirect = hasMeta(paths.direct, "stage", "chunk_refine");
  cpShape.refineCpSummary = hasMeta(paths.cp, "stage", "cp_summary_refine");
  cpShape.refineCpReplay = hasMeta(paths.cp, "stage", "cp_refine");
  // The DRAM traffic of the direct path's two forms (their floors on this
  // device, GdnCp.h): the problem's own bytes (gdnCost), and for the pair
  // K read again by the prep (16-bit, 256 bytes a token and q/k head) and
  // Ag's stored blocks written and read back (6 of its 8 KB per chunk and
  // value head: 96 bytes a token, twice), gamma written and read and the
  // flags written (12); for the fused form gamma and the flags written.
  const double tokens = static_cast<double>(p.B) * static_cast<double>(p.T);
  const double problemBytes = gdnCost(p).bytes;
  const double pairBytes = problemBytes +
                           tokens * static_cast<double>(p.H) * 256 +
                           tokens * static_cast<double>(p.HV) * (192 + 12);
  const double fusedBytes =
      problemBytes + tokens * static_cast<double>(p.HV) * 8;
  if (request.fused != "auto" && request.fused != "on" &&
      request.fused != "off")
    return usage("--fused " + request.fused + ": expected on, off or auto");
  const bool fusedOn = request.fused == "on";
  if (fusedOn && request.cp == "on")
    return usage("--fused on runs the direct path's fused kernel, but --cp "
                 "on asks for the cp path");
  // The manifests of the direct path's variant `v` (both forms).
  auto variantOf = [&](int64_t v) {
    std::vector<const Manifest *> variant;
    for (size_t i = 0; i < paths.all.size(); ++i)
      if (std::find(paths.direct.begin(), paths.direct.end(),
                    paths.all[i]) != paths.direct.end() &&
          (!paths.blockV[i] || paths.blockV[i] == v))
        variant.push_back(paths.all[i]);
    return variant;
  };
  // Whether the direct path's variant `v` offers the fused form.
  auto offersFused = [&](int64_t v) {
    return gdnOffersForm(variantOf(v), kGdnFormFused);
  };
  // Whether auto may count on the fused form of variant `v`: not when the
  // problem asks for an optional stage that a default-form kernel does
  // itself (meta.fuses: the prep's L2 norm and gate/beta transforms) and
  // no kernel of the form does, which would run it as a kernel of its own
  // (a pass over q and k, or g and beta).
  auto fusedEligible = [&](int64_t v) {
    const std::vector<const Manifest *> variant = variantOf(v);
    for (const OptionalStage &o : optionalStages(p)) {
      bool pair = false, form = false;
      for (const Manifest *m : variant) {
        if (!o.asked || !gdnStageFuses(*m, o.when))
          continue;
        const MetaEntry *f = m->findMeta("form");
        (f && f->value == kGdnFormFused ? form : pair) = true;
      }
      if (pair && !form)
        return false;
    }
    return true;
  };
  // The candidate variants of `path` (the one forced, else all; {0} for a
  // path without variants), each estimated, cp at its segment size; with
  // --fused on the direct path's variants without the fused form are none.
  auto estimatePath = [&](GdnPath path) {
    std::vector<int64_t> values = paths.variants(path);
    if (choice.blockVGiven)
      values = {request.blockV};
    else if (values.empty())
      values = {0};
    if (fusedOn && path == GdnPath::Direct)
      values.erase(std::remove_if(values.begin(), values.end(),
                                  [&](int64_t v) { return !offersFused(v); }),
                   values.end());
    std::vector<GdnVariantEstimate> list;
    for (int64_t v : values) {
      GdnVariantEstimate e;
      e.path = path;
      e.blockV = v;
      const int64_t modelV = v > 0 ? v : kGdnDefaultBlockV;
      if (path == GdnPath::Cp) {
        e.segmentChunks =
            choice.chunksGiven
                ? request.cpChunks
                : gdnCpSegmentChunks(cpShape, numSMs,
                                     /*split=*/request.cp == "on", modelV);
        const GdnCpEstimate est =
            gdnCpEstimate(cpShape, e.segmentChunks, numSMs, modelV);
        e.prepUs = est.prep;
        e.us = est.cp + est.prep;
      } else {
        const GdnCpEstimate est = gdnCpEstimate(cpShape, 1, numSMs, modelV);
        e.prepUs = est.prep;
        e.us = est.direct + est.prep;
        if (offersFused(v) && request.fused != "off") {
          // Each form at least its DRAM traffic's time on this device: on
          // an H100 the pair runs at its bytes' pace, the fused form at
          // its task's (GdnCp.h, kGdnDramEfficiency).
          const double pairUs =
              std::max(e.us, gdnDramFloorUs(pairBytes, choice.dramGBs));
          const double fusedUs =
              std::max(est.fused > 0 ? est.fused : e.us,
                       gdnDramFloorUs(fusedBytes, choice.dramGBs));
          if (fusedOn || (fusedEligible(v) && fusedUs < pairUs)) {
            e.otherFormUs = pairUs;
            e.us = fusedUs;
            e.prepUs = 0;
            e.fused = true;
          } else {
            e.us = pairUs;
            e.otherFormUs = fusedUs;
          }
        }
      }
      list.push_back(e);
    }
    return list;
  };
  // The fastest of a path's estimates (the first, smallest block_v, on ties).
  auto fastest = [](const std::vector<GdnVariantEstimate> &list) {
    size_t best = 0;
    for (size_t i = 1; i < list.size(); ++i)
      if (list[i].us < list[best].us)
        best = i;
    return best;
  };
  auto variantsText = [&](GdnPath path) {
    return std::string(gdnPathName(path)) +
           ": meta.block_v = " + gdnBlockVList(paths.variants(path));
  };
  const std::string forced = "--block-v " + std::to_string(request.blockV);
  if (request.cp == "on" || request.cp == "off") {
    choice.path = request.cp == "on" ? GdnPath::Cp : GdnPath::Direct;
    choice.how = "--cp " + request.cp;
  } else if (fusedOn) {
    choice.how = "--fused on";
  } else if (paths.untagged()) {
    choice.how = "auto: no meta.path";
  } else if (!paths.offers(GdnPath::Cp)) {
    choice.how = "auto: no cp manifests";
  } else if (!paths.offers(GdnPath::Direct)) {
    choice.path = GdnPath::Cp;
    choice.how = "auto: no direct manifests";
  } else if (choice.blockVGiven &&
             paths.offersVariant(GdnPath::Direct, request.blockV) !=
                 paths.offersVariant(GdnPath::Cp, request.blockV)) {
    choice.path = paths.offersVariant(GdnPath::Cp, request.blockV)
                      ? GdnPath::Cp
                      : GdnPath::Direct;
    choice.how = "auto: block_v " + std::to_string(request.blockV) +
                 " only on the " + gdnPathName(choice.path) + " path";
  } else if (choice.blockVGiven &&
             !paths.offersVariant(GdnPath::Direct, request.blockV)) {
    return Status::badInput(forced + ": neither path offers it (" +
                            variantsText(GdnPath::Direct) + "; " +
                            variantsText(GdnPath::Cp) + ")");
  } else {
    choice.how = "auto";
    choice.modeled = true;
  }
  // A forced variant the path lacks (a path not offered at all is reported
  // by selectGdnPath below).
  if (choice.blockVGiven && paths.offers(choice.path) &&
      !paths.offersVariant(choice.path, request.blockV)) {
    const std::vector<int64_t> &offered = paths.variants(choice.path);
    return Status::badInput(
        forced + ": the " + gdnPathName(choice.path) + " path (" + choice.how +
        ") " +
        (offered.empty() ? std::string("has no variants (none of its "
                                       "manifests has meta.block_v)")
                         : "offers meta.block_v = " + gdnBlockVList(offered)));
  }
  GdnVariantEstimate picked;
  if (choice.modeled) {
    std::vector<GdnVariantEstimate> direct = estimatePath(GdnPath::Direct);
    std::vector<GdnVariantEstimate> cp = estimatePath(GdnPath::Cp);
    const GdnVariantEstimate &bestDirect = direct[fastest(direct)];
    const GdnVariantEstimate &bestCp = cp[fastest(cp)];
    const bool useCp = bestCp.us - bestCp.prepUs <
                       kGdnCpMargin * (bestDirect.us - bestDirect.prepUs) +
                           (bestDirect.prepUs - bestCp.prepUs);
    choice.path = useCp ? GdnPath::Cp : GdnPath::Direct;
    picked = useCp ? bestCp : bestDirect;
    choice.other = useCp ? bestDirect : bestCp;
    choice.estimates = useCp ? cp : direct;
  } else {
    std::vector<GdnVariantEstimate> list = estimatePath(choice.path);
    if (list.empty())
      return Status::badInput(
          "--fused on: no variant of the direct path" +
          std::string(choice.blockVGiven ? " with " + forced : "") +
          " has the fused kernel (meta.form = fused; kernels built before "
          "it?)");
    picked = list[fastest(list)];
    if (list.size() > 1 || picked.otherFormUs > 0)
      choice.estimates = std::move(list);
  }
  choice.variantModeled = choice.estimates.size() > 1;
  choice.blockV = picked.blockV;
  choice.fused = picked.fused;
  if (choice.path == GdnPath::Direct && offersFused(picked.blockV))
    choice.fusedHow = request.fused != "auto" ? "--fused " + request.fused
                      : fusedEligible(picked.blockV)
                          ? "auto"
                          : "auto: the prep fuses the L2 norm or the "
                            "gate/beta transform";
  if (choice.path == GdnPath::Direct && choice.chunksGiven && !choice.modeled)
    return usage("--cp-chunks sets the segment size of the cp path, but the "
                 "direct path runs (" +
                 choice.how + ")");
  Status chosen = selectGdnPath(paths, choice.path, selected, choice.ignored,
                                choice.blockV);
  if (chosen.ok())
    chosen = selectGdnForm(selected, choice.fused ? kGdnFormFused : "",
                           choice.ignored);
  if (!chosen.ok())
    return Status::badInput(choice.how + ": " + chosen.message());
  p.cpChunks = choice.path == GdnPath::Cp ? picked.segmentChunks : 0;
  if (choice.path == GdnPath::Cp) {
    choice.segmentChunks = picked.segmentChunks;
    choice.segments = p.cpSegments().numSegments();
  }

  out = std::move(choice);
  return Status::success();
}

namespace {

Status chooseAmongBuilds(const std::vector<const Manifest *> &all,
                         const GdnPathRequest &request, int64_t numSMs,
                         GdnProblem &problem, GdnPathChoice &out,
                         std::vector<const Manifest *> &selected,
                         double dramGBs) {
  // Optional stages (meta.when) run only when the problem asks for them.
  std::vector<const Manifest *> manifests;
  for (const Manifest *m : all) {
    const MetaEntry *when = m->findMeta("when");
    bool keep = !when;
    for (const OptionalStage &o : optionalStages(problem))
      keep |= when && o.asked && when->value == o.when;
    if (keep)
      manifests.push_back(m);
  }
  for (const OptionalStage &o : optionalStages(problem))
    if (o.asked && !hasMeta(all, "when", o.when))
      return Status::badInput(std::string("gdn_prefill: the problem asks "
                                          "for ") +
                              o.what + ", but no kernel has meta.when = " +
                              o.when + " (kernels built before it?)");
  std::vector<const Manifest *> narrow, wide;
  splitGdnIndexWidth(manifests, narrow, wide);
  GdnPaths paths;
  Status first = splitGdnPaths(narrow.empty() ? wide : narrow, paths);
  if (first.ok())
    first = chooseGdnPath(paths, request, numSMs, problem, out, selected,
                          dramGBs);
  if (narrow.empty() || wide.empty() ||
      (first.ok() && gdnFitsIndex32(selected, problem.scalars())))
    return first;
  // The 64-bit build: the problem is too large for the 32-bit kernels, or
  // they do not offer what was asked (then its error stands unless the
  // 64-bit build does).
  Status second = splitGdnPaths(wide, paths);
  if (second.ok())
    second = chooseGdnPath(paths, request, numSMs, problem, out, selected,
                           dramGBs);
  return second.ok() || first.ok() ? second : first;
}

} // namespace

Status chooseGdnPathAndBuild(const std::vector<const Manifest *> &all,
                             const GdnPathRequest &request, int64_t numSMs,
                             GdnProblem &problem, GdnPathChoice &out,
                             std::vector<const Manifest *> &selected,
                             double dramGBs) {
  GDN_RUN_TRY(chooseAmongBuilds(all, request, numSMs, problem, out, selected,
                                dramGBs));
  // A chosen stage that does an optional stage's work itself (meta.fuses)
  // replaces that stage: one launch (and for the L2 norm one pass over q
  // and k) fewer.
  auto fused = [&](const char *when) {
    return std::any_of(selected.begin(), selected.end(),
                       [&](const Manifest *m) {
                         return gdnStageFuses(*m, when);
                       });
  };
  for (const OptionalStage &o : optionalStages(problem))
    if (o.asked && fused(o.when))
      selected.erase(std::remove_if(selected.begin(), selected.end(),
                                    [&](const Manifest *m) {
                                      const MetaEntry *e = m->findMeta("when");
                                      return e && e->value == o.when;
                                    }),
                     selected.end());
  // The build chosen must hold the optional stages the problem asked for.
  for (const OptionalStage &o : optionalStages(problem))
    if (o.asked && !hasMeta(selected, "when", o.when) && !fused(o.when))
      return Status::badInput(
          "gdn_prefill: the chosen kernels (" +
          std::string(selected.empty() ? "none" : selected.front()->path) +
          ", ...) have no stage with meta.when = " + o.when +
          ", which the problem asks for");
  return Status::success();
}

bool gdnQkL2NormFused(const GdnProblem &problem,
                      const std::vector<const Manifest *> &selected) {
  return problem.qkL2Norm &&
         std::any_of(selected.begin(), selected.end(), [](const Manifest *m) {
           return gdnStageFuses(*m, kGdnWhenQkL2Norm);
         });
}

const GdnVariantEstimate *GdnPathChoice::chosen() const {
  for (const GdnVariantEstimate &e : estimates)
    if (e.path == path && e.blockV == blockV)
      return &e;
  return nullptr;
}

std::string gdnPathText(const GdnPathChoice &c) {
  auto us = [](double v) { return format("%.0f us", v); };
  auto plural = [](int64_t n, const char *word) {
    return std::to_string(n) + " " + word + (n == 1 ? "" : "s");
  };
  std::string text = std::string(gdnPathName(c.path)) + " (" + c.how + ")";
  if (c.blockV > 0)
    text += ", block_v " + std::to_string(c.blockV) +
            (c.blockVGiven ? " (--block-v)" : "");
  if (!c.fusedHow.empty())
    text += std::string(c.fused ? ", fused (" : ", pair (") + c.fusedHow +
            ")";
  if (c.path == GdnPath::Cp)
    text += ", " + plural(c.segments, "segment") + " of " +
            plural(c.segmentChunks, "chunk") +
            (c.chunksGiven ? " (--cp-chunks)" : "");
  const GdnVariantEstimate *chosen = c.chosen();
  if (!chosen)
    return text;
  text += std::string("; model: ") + gdnPathName(c.path) + " " + us(chosen->us);
  std::string others;
  if (chosen->otherFormUs > 0)
    others = std::string(chosen->fused ? "pair " : "fused ") +
             us(chosen->otherFormUs);
  for (const GdnVariantEstimate &e : c.estimates)
    if (&e != chosen)
      others += (others.empty() ? "" : ", ") + std::string("block_v ") +
                std::to_string(e.blockV) + ": " + us(e.us);
  if (!others.empty())
    text += " (" + others + ")";
  if (c.modeled) {
    const GdnVariantEstimate &o = c.other;
    std::string detail;
    if (o.blockV > 0)
      detail = "block_v " + std::to_string(o.blockV);
    if (o.path == GdnPath::Cp)
      detail += (detail.empty() ? "" : ", ") + std::to_string(o.segmentChunks) +
                " chunks/segment";
    text += ", " + std::string(gdnPathName(o.path)) + " " + us(o.us) +
            (detail.empty() ? "" : " (" + detail + ")");
  }
  text += ", " + std::to_string(c.numSMs) + " SMs";
  if (c.dramGBs > 0)
    text += format(", %.2f TB/s DRAM", c.dramGBs / 1e3);
  return text;
}

} // namespace gdn::run
