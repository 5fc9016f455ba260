//===- GdnDriver.cpp - the GDN prefill check over a kernel sequence -------===//

#include "GdnDriver.h"

#include "Operator.h"
#include "TensorMaps.h"

#include "gdn/Reference/GdnReference.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <functional>
#include <memory>

#include <sys/stat.h>

namespace gdn::run {

namespace {
/// The host launch-cost measurement: batches, and sequences per batch.
constexpr int kHostBatches = 11, kHostBatch = 20;

/// The host microseconds per call of `launch` (enqueueing only): the median
/// of kHostBatches batches of kHostBatch calls, `sync` between batches so the
/// launch queue never fills.
Status medianLaunchUs(const std::function<Status()> &launch,
                      const std::function<Status()> &sync, double &us) {
  std::vector<double> perCall;
  for (int batch = 0; batch < kHostBatches; ++batch) {
    auto t0 = std::chrono::steady_clock::now();
    for (int r = 0; r < kHostBatch; ++r)
      GDN_RUN_TRY(launch());
    auto t1 = std::chrono::steady_clock::now();
    GDN_RUN_TRY(sync());
    perCall.push_back(
        std::chrono::duration<double, std::micro>(t1 - t0).count() /
        kHostBatch);
  }
  std::sort(perCall.begin(), perCall.end());
  us = perCall[perCall.size() / 2];
  return Status::success();
}

/// medianLaunchUs of one cuLaunchKernel of an empty kernel (no parameters,
/// one warp) on the session's stream: the floor any launch pays on this
/// host, beside which the `host:` line reads. 0 when the probe module does
/// not load or launch (the line then omits it).
double emptyLaunchUs(CudaSession &session) {
  static const char kPtx[] = ".version 7.0\n"
                             ".target sm_70\n"
                             ".address_size 64\n"
                             ".visible .entry gdn_run_empty() { ret; }\n";
  CudaDriver &d = session.driver();
  CUmodule module = nullptr;
  CUfunction fn = nullptr;
  if (d.cuModuleLoadDataEx(&module, kPtx, 0, nullptr, nullptr) !=
      CUDA_SUCCESS)
    return 0;
  double us = 0;
  if (d.cuModuleGetFunction(&fn, module, "gdn_run_empty") == CUDA_SUCCESS) {
    auto check = [](CUresult r) {
      return r == CUDA_SUCCESS ? Status::success()
                               : Status::cudaError("empty-kernel probe");
    };
    Status s = medianLaunchUs(
        [&] {
          return check(d.cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0,
                                        session.stream(), nullptr, nullptr));
        },
        [&] { return check(d.cuStreamSynchronize(session.stream())); }, us);
    if (!s.ok())
      us = 0;
  }
  (void)d.cuModuleUnload(module);
  return us;
}
} // namespace

double GdnResult::tflops() const {
  return medianMs > 0 ? cost.flop / (medianMs * 1e-3) / 1e12 : 0.0;
}

double GdnResult::gbps() const {
  return medianMs > 0 ? cost.bytes / (medianMs * 1e-3) / 1e9 : 0.0;
}

double GdnResult::xfloor() const {
  return cost.floorSeconds > 0 ? medianMs * 1e-3 / cost.floorSeconds : 0.0;
}

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}

std::string format(const char *fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

bool isDirectory(const std::string &path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

} // namespace

namespace {

/// The parameter declaring tensor `id` first, for messages.
std::string whereDeclared(const GdnSequence &seq, GdnTensorId id) {
  for (const GdnStage &stage : seq.stages)
    for (const GdnArg &arg : stage.args)
      if (arg.kind == GdnArg::Tensor && arg.index == static_cast<int>(id))
        return stage.manifest->location(arg.param->line);
  return "?";
}

} // namespace

//===----------------------------------------------------------------------===//
// prepare
//===----------------------------------------------------------------------===//

Status GdnDriver::prepare(const std::vector<const Manifest *> &manifests,
                          const RunOptions &options, int64_t numSMs,
                          double dramGBs) {
  options_ = &options;
  GdnPaths paths;
  GDN_RUN_TRY(splitGdnPaths(manifests, paths));
  auto usage = [](const std::string &problem) {
    return Status::badInput(problem + " (see gdn-run --help)");
  };

  if (options.check == CheckMode::Sample)
    return usage("--check sample is not supported by gdn_prefill (use full "
                 "or none)");
  load_ = !options.loadDir.empty();
  layout_ = options.layout == "bhtd" ? GdnLayout::BHTD : GdnLayout::BTHD;
  if (!parseGdnFamily(options.family, family_))
    return usage("--family: unknown input family '" + options.family +
                 "' (known: " + gdnFamilyList() + ")");
  if (options.qkL2Norm &&
      (family_ == GdnFamily::Unnorm || family_ == GdnFamily::BigKey))
    return usage("--family " + options.family + " sets the key norms, which "
                 "--qk-l2norm normalizes away (q and k are then generated "
                 "N(0,1) and normalized by the kernels)");
  if (options.gateInKernel && options.has("--family") &&
      !(family_ == GdnFamily::Weak || family_ == GdnFamily::Beta0 ||
        family_ == GdnFamily::Beta1 || family_ == GdnFamily::ZeroKey))
    return usage("--family " + options.family + " sets the decay g, which "
                 "--gate-in-kernel computes (from a raw N(0,1) gate, a_log "
                 "and dt_bias)");
  if (options.betaSigmoid &&
      (family_ == GdnFamily::Beta0 || family_ == GdnFamily::Beta1 ||
       family_ == GdnFamily::Collinear))
    return usage("--family " + options.family + " sets beta, which "
                 "--beta-sigmoid computes from a raw N(0,1) logit");
  if ((load_ || !options.saveDir.empty()) && options.gateInKernel)
    return usage(std::string("--gate-in-kernel needs a_log and dt_bias, "
                             "which ") +
                 (load_ ? "--load does not read" : "--save does not write"));
  if (load_ && options.has("--family"))
    return usage("--family generates inputs; it cannot be combined with "
                 "--load");
  if (load_ && options.has("--h0"))
    return usage("--h0 generates an initial state; with --load it is read "
                 "from DIR/h0.npy when present");
  if (!load_ && options.has("--layout") && options.saveDir.empty())
    return usage("--layout applies to the .npy files of --load and --save");
  if (options.cp == "off" && options.has("--cp-chunks"))
    return usage("--cp-chunks sets the segment size of the cp path; it "
                 "cannot be combined with --cp off");
  if (options.overlapStages &&
      (options.check != CheckMode::None || !options.saveDir.empty()))
    return usage("--overlap-stages runs the kernels unordered (wrong "
                 "results): it needs --check none and no --save");

  // The problem's shape (the path may depend on it).
  GdnProblem p;
  if (load_) {
    GDN_RUN_TRY(inspectGdnInputs(options.loadDir, layout_,
                                 options.dtype == "bf16", p, loadPlan_));
    const struct {
      const char *option;
      const char *name;
      int64_t value;
    } dims[] = {{"--B", "B", p.B},
                {"--T", "T", p.T},
                {"--H", "H", p.H},
                {"--HV", "HV", p.HV}};
    for (const auto &d : dims)
      if (options.has(d.option) && options.dim(d.name, 0) != d.value)
        return usage(std::string(d.option) + " " +
                     std::to_string(options.dim(d.name, 0)) +
                     " contradicts the loaded inputs (" + d.name + " = " +
                     std::to_string(d.value) + " in " + options.loadDir +
                     "/q.npy or v.npy)");
    if (!options.cuSeqlens.empty()) {
      if (loadPlan_.hasCuSeqlens)
        return usage("--cu-seqlens given, but " + options.loadDir +
                     "/cu_seqlens.npy exists too");
      p.cuSeqlens = options.cuSeqlens;
    }
  } else {
    p.cuSeqlens = options.cuSeqlens;
    p.B = options.dim("B", 1);
    p.T = options.dim("T", p.cuSeqlens.empty() ? 4096 : p.cuSeqlens.back());
    p.H = options.dim("H", 16);
    p.HV = options.dim("HV", p.H);
    p.hasH0 = options.h0;
  }
  // Loaded or generated, q and k are then the raw inputs the kernels
  // normalize (and the fp64 reference the same way).
  p.qkL2Norm = options.qkL2Norm;
  p.gateInKernel = options.gateInKernel;
  p.betaSigmoid = options.betaSigmoid;
  p.negEigval = options.negEigval;
  p.stateVFirst = options.stateVFirst;
  // The kernels receive scale as f32; the oracle uses the same value.
  double scale = options.scale > 0 ? options.scale
                                   : 1.0 / std::sqrt(double(kGdnHeadDim));
  p.scale = static_cast<double>(static_cast<float>(scale));
  p.cpTheta = options.cpTheta;
  GDN_RUN_TRY(validateGdnProblem(p));
  // Before anything of the problem's size is allocated (the segmentation
  // below holds B + 1 boundaries): --B 2147483647 is bad input, not an
  // out-of-memory kill.
  GDN_RUN_TRY(checkHostMemory("gdn_prefill problem " + p.shapeText(),
                              gdnHostBytes(p), hostMemoryLimit_));
  gdn::ref::GdnShape refShape{p.B, p.T, p.H, p.HV, p.DK, p.DV};
  gdn::ref::GdnOptions refOptions;
  refOptions.cuSeqlens = p.cuSeqlens;
  std::string refError = gdn::ref::validate(refShape, refOptions);
  if (!refError.empty())
    return Status::badInput("bad GDN problem: " + refError);

  // The path and its variant, from the kernels' 32-bit build when the
  // problem fits it, else from the 64-bit one (GdnPlan.h).
  GdnPathRequest request;
  request.cp = options.cp;
  request.blockV = options.blockV;
  request.cpChunks = options.cpChunks;
  request.fused = options.fused;
  GdnPathChoice choice;
  std::vector<const Manifest *> selected;
  GDN_RUN_TRY(
      chooseGdnPathAndBuild(manifests, request, numSMs, p, choice, selected,
                            dramGBs));

  GDN_RUN_TRY(
      buildGdnSequence(selected, sequence_, gdnQkL2NormFused(p, selected)));
  const GdnSequence &seq = sequence_;
  for (const GdnStage &stage : seq.stages)
    if (options.overlapStages && stage.manifest->waitsForFlags())
      return Status::badInput(
          "--overlap-stages launches the kernels unordered, but stage '" +
          stage.name + "' (" + stage.manifest->kernel +
          ") waits for an earlier stage's ready flags (grid_dependency = " +
          std::to_string(stage.manifest->gridDependency) + "): "
          "launched first, its blocks could wait for flags that no block "
          "sets; time the sequence in order");
  if (!options.dtype.empty()) {
    DType wanted = options.dtype == "bf16" ? DType::BF16 : DType::F16;
    if (wanted != seq.dtype)
      return Status::badInput(
          "--dtype " + options.dtype + " does not match the kernels: o is " +
          ParamType{true, seq.dtype}.str() + " in " +
          whereDeclared(seq, GdnTensorId::O));
  }
  if (load_ && loadPlan_.q16 && loadPlan_.qDtype != seq.dtype)
    return Status::badInput(
        loadPlan_.dir + "/q.npy: error: holds " + dtypeName(loadPlan_.qDtype) +
        " but the kernels take " + dtypeName(seq.dtype) + " (o in " +
        whereDeclared(seq, GdnTensorId::O) + ")");
  p.dtype = seq.dtype;
  p.gType = seq.gType;
  p.betaType = seq.betaType;
  p.cuType = seq.cuType;

  if (p.hasH0 && !seq.uses(GdnTensorId::H0))
    return Status::badInput(
        std::string(load_ ? "the loaded inputs include h0.npy"
                          : "--h0 asks for an initial state") +
        ", but no kernel of the sequence takes parameter h0");
  if (p.varlen() && !seq.uses(GdnTensorId::CuSeqlens) &&
      !seq.uses(GdnTensorId::CpBounds))
    return Status::badInput("varlen inputs (cu_seqlens), but no kernel of the "
                            "sequence takes parameter cu_seqlens (or "
                            "cp_bounds)");
  const ExprVariables scalars = p.scalars();
  GDN_RUN_TRY(evaluateGdnSequence(scalars, sequence_));
  // Tensor maps: dims and strides for this problem, before any GPU work.
  for (const GdnStage &stage : sequence_.stages) {
    KernelArgs args(*stage.manifest);
    bindGdnScalars(stage, scalars, p.scale, p.cpTheta, args);
    GDN_RUN_TRY(args.checkTensorMaps(scalars));
  }

  if (!options.saveDir.empty()) {
    struct stat st;
    const std::string &dir = options.saveDir;
    if (::stat(dir.c_str(), &st) == 0) {
      if (!S_ISDIR(st.st_mode))
        return Status::badInput("--save " + dir + ": exists and is not a "
                                "directory");
    } else {
      std::string trimmed = dir;
      while (trimmed.size() > 1 && trimmed.back() == '/')
        trimmed.pop_back();
      std::string parent = directoryOf(trimmed);
      if (!parent.empty() && !isDirectory(parent))
        return Status::badInput("--save " + dir + ": the parent directory " +
                                parent + " does not exist");
    }
  }
  rtol_ = options.rtolSet ? options.rtol
                          : (p.dtype == DType::F16 ? 2e-3 : 8e-3);
  problem_ = p;
  choice_ = std::move(choice);
  return Status::success();
}

void GdnDriver::describe(GdnResult &result) const {
  result.shape = problem_.shapeText();
  result.dtype = dtypeName(problem_.dtype);
  result.family = load_ ? "npy" : gdnFamilyName(family_);
  result.path = gdnPathText(choice_);
  if (problem_.hasH0 && !load_)
    result.family += "+h0";
  result.mode = options_->check;
  result.rtol = rtol_;
  result.cost = gdnCost(problem_);
}

//===----------------------------------------------------------------------===//
// run
//===----------------------------------------------------------------------===//

void GdnDriver::run(CudaSession &session,
                    const std::map<std::string, std::string> &images,
                    GdnResult &result) {
  describe(result);
  Status s = runChecked(session, images, result);
  if (!s.ok())
    result.status = s;
}

namespace {

/// Adds `problem` to a CheckFailed status (joins several failures).
void addFailure(GdnResult &result, const std::string &problem) {
  if (result.status.code() == ExitCode::CheckFailed)
    result.status = Status(ExitCode::CheckFailed,
                           result.status.message() + "; " + problem);
  else if (result.status.ok())
    result.status = Status(ExitCode::CheckFailed, problem);
}

/// Transposes each [DK, DV] = [128, 128] f32 state of a flat [N, HV, 128,
/// 128] array in place (--state-v-first: [K, V] <-> [V, K]).
void transposeStates(unsigned char *bytes, size_t size) {
  constexpr size_t d = kGdnHeadDim;
  float *f = reinterpret_cast<float *>(bytes);
  for (size_t m = 0; m < size / sizeof(float) / (d * d); ++m, f += d * d)
    for (size_t i = 0; i < d; ++i)
      for (size_t j = i + 1; j < d; ++j)
        std::swap(f[i * d + j], f[j * d + i]);
}

/// "o[b,t,hv,d]" / "ht[n,hv,k,v]" for a flat index into a 4-D tensor.
std::string indexText(const char *name, size_t i,
                      const std::array<int64_t, 4> &dims) {
  size_t idx[4];
  for (int a = 3; a >= 0; --a) {
    idx[a] = i % static_cast<size_t>(dims[a]);
    i /= static_cast<size_t>(dims[a]);
  }
  char buf[128];
  std::snprintf(buf, sizeof buf, "%s[%zu,%zu,%zu,%zu]", name, idx[0], idx[1],
                idx[2], idx[3]);
  return buf;
}

/// Error statistics of n results against a reference, plus the positions
/// of the first non-finite and the largest error. Blocks are reduced in
/// order, so the sums do not depend on the thread count.
struct Comparison {
  ErrorStats stats;
  size_t firstNonFinite = SIZE_MAX;
  size_t worst = SIZE_MAX;
  double worstErr = -1;
};

template <typename Get>
Comparison compareArrays(size_t n, const Get &got, const double *ref) {
  constexpr size_t kBlock = size_t(1) << 16;
  const size_t blocks = (n + kBlock - 1) / kBlock;
  std::vector<Comparison> partial(blocks);
  parallelFor(blocks, [&](size_t blk) {
    Comparison &c = partial[blk];
    size_t end = std::min(n, (blk + 1) * kBlock);
    for (size_t i = blk * kBlock; i < end; ++i) {
      double x = got(i);
      c.stats.add(x, ref[i]);
      if (!std::isfinite(x)) {
        if (c.firstNonFinite == SIZE_MAX)
          c.firstNonFinite = i;
      } else if (std::fabs(x - ref[i]) > c.worstErr) {
        c.worstErr = std::fabs(x - ref[i]);
        c.worst = i;
      }
    }
  });
  Comparison all;
  for (const Comparison &c : partial) {
    all.stats.merge(c.stats);
    if (all.firstNonFinite == SIZE_MAX)
      all.firstNonFinite = c.firstNonFinite;
    if (c.worstErr > all.worstErr) {
      all.worstErr = c.worstErr;
      all.worst = c.worst;
    }
  }
  return all;
}

} // namespace

Status GdnDriver::runChecked(CudaSession &session,
                             const std::map<std::string, std::string> &images,
                             GdnResult &result) {
  const GdnProblem &p = problem_;
  const RunOptions &opts = *options_;
  const bool check = opts.check != CheckMode::None;
  const bool verbose = session.verbose();
  const std::vector<GdnStage> &stages = sequence_.stages;

  // Kernels, in launch order. A kernel that waits for its predecessor
  // through ready flags is meant to share the SMs with it (see below).
  const bool flags = sequence_.waitsForFlags();
  std::vector<Kernel> kernels(stages.size());
  for (size_t i = 0; i < stages.size(); ++i) {
    const Manifest &m = *stages[i].manifest;
    Status s = session.loadKernel(m, images.at(m.ptxPath), kernels[i]);
    if (!s.ok())
      return Status(s.code(), "stage '" + stages[i].name + "' (" + m.path +
                                  "): " + s.message());
    // Overlapped stages and flag waiters share an SM only under one
    // shared-memory carveout: the largest, for every kernel.
    // --max-carveout alone gives the sequential control.
    if (opts.overlapStages || opts.maxCarveout || flags)
      GDN_RUN_TRY(preferMaxSharedCarveout(session.driver(), kernels[i]));
  }

  // Host inputs.
  auto start = std::chrono::steady_clock::now();
  if (load_) {
    std::vector<std::string> rounded;
    GDN_RUN_TRY(loadGdnInputs(loadPlan_, p, check, inputs_, rounded));
    if (!rounded.empty()) {
      std::string list;
      for (const std::string &r : rounded)
        list += (list.empty() ? "" : ", ") + r;
      std::fprintf(stderr,
                   "gdn-run: warning: inputs were rounded to the kernel "
                   "formats (round to nearest even): %s\n",
                   list.c_str());
    }
  } else {
    generateGdnInputs(p, family_, opts.seed, check, inputs_);
  }
  if (verbose)
    std::fprintf(stderr, "gdn-run: gdn_prefill: inputs %s in %.2f s\n",
                 load_ ? "loaded" : "generated", secondsSince(start));
  // Non-finite inputs run like any other (the kernels must finish without a
  // fault); the check then fails (the error norms are undefined).
  const GdnNonFinite nonFinite = findNonFiniteInputs(p, inputs_);
  if (nonFinite.count) {
    result.nonFiniteInputs = nonFinite.count;
    std::fprintf(stderr,
                 "gdn-run: warning: the inputs hold %zu non-finite value%s "
                 "(first: %s)\n",
                 nonFinite.count, nonFinite.count == 1 ? "" : "s",
                 nonFinite.first.c_str());
  }

  // Device buffers: the GDN tensors the kernels take, then the workspaces.
  std::array<DeviceBuffer, kGdnTensorCount> tensors;
  const size_t dsize = dtypeSize(p.dtype);
  // The index tensors (cu_seqlens, the CP segmentation of GdnCp.h) in the
  // element type the kernels declare: uploaded once, never poisoned.
  const GdnCpSegments segments = p.cpSegments();
  std::array<std::vector<unsigned char>, kGdnTensorCount> indexBytes;
  std::vector<unsigned char> h0VFirst; // with --state-v-first
  for (int t = 0; t < kGdnTensorCount; ++t) {
    GdnTensorId id = static_cast<GdnTensorId>(t);
    if (sequence_.uses(id) && gdnIsIndexTensor(id))
      indexBytes[t] = gdnIndexTensorBytes(p, sequence_, segments, id);
  }
  for (int t = 0; t < kGdnTensorCount; ++t) {
    GdnTensorId id = static_cast<GdnTensorId>(t);
    if (!sequence_.uses(id))
      continue;
    const std::vector<unsigned char> *host = nullptr;
    size_t bytes = 0;
    switch (id) {
    case GdnTensorId::Q:
      host = &inputs_.q.bytes;
      break;
    case GdnTensorId::K:
      host = &inputs_.k.bytes;
      break;
    case GdnTensorId::V:
      host = &inputs_.v.bytes;
      break;
    case GdnTensorId::G:
      host = &inputs_.g.bytes;
      break;
    case GdnTensorId::Beta:
      host = &inputs_.beta.bytes;
      break;
    case GdnTensorId::H0:
      if (p.hasH0 && p.stateVFirst) {
        h0VFirst = inputs_.h0.bytes; // [N, HV, V, K] for the kernels
        transposeStates(h0VFirst.data(), h0VFirst.size());
        host = &h0VFirst;
      } else if (p.hasH0)
        host = &inputs_.h0.bytes;
      else
        bytes = 16; // a valid dummy; has_h0 = 0
      break;
    case GdnTensorId::ALog:
    case GdnTensorId::DtBias:
      if (p.gateInKernel)
        host = id == GdnTensorId::ALog ? &inputs_.aLog.bytes
                                       : &inputs_.dtBias.bytes;
      else
        bytes = 16; // not read without gate_in_kernel
      break;
    case GdnTensorId::CuSeqlens:
    case GdnTensorId::CpBounds:
    case GdnTensorId::CpSeq:
    case GdnTensorId::CpLast:
    case GdnTensorId::CpSegStart:
    case GdnTensorId::ChunkMap:
      host = &indexBytes[t];
      break;
    case GdnTensorId::O:
      bytes = static_cast<size_t>(p.vCount()) * dsize;
      break;
    case GdnTensorId::Ht:
      bytes = static_cast<size_t>(p.stateCount()) * sizeof(float);
      break;
    }
    if (host)
      bytes = host->size();
    Status s = tensors[t].allocate(session, std::max<size_t>(bytes, 16));
    if (s.ok() && host)
      s = tensors[t].upload(host->data(), host->size());
    else if (s.ok() && id == GdnTensorId::H0)
      s = tensors[t].fill(0);
    if (!s.ok())
      return Status(s.code(), std::string("tensor ") + gdnTensorName(id) +
                                  ": " + s.message());
  }
  std::vector<std::unique_ptr<DeviceBuffer>> workspaces;
  for (const GdnWorkspace &ws : sequence_.workspaces) {
    workspaces.push_back(std::make_unique<DeviceBuffer>());
    Status s =
        workspaces.back()->allocate(session, std::max<size_t>(ws.bytes(), 16));
    if (!s.ok())
      return Status(s.code(), "workspace " + ws.name + " (" +
                                  std::to_string(ws.elements) +
                                  " elements): " + s.message());
    if (verbose)
      std::fprintf(stderr, "gdn-run: gdn_prefill: workspace %s: %lld x %zu B\n",
                   ws.name.c_str(), static_cast<long long>(ws.elements),
                   ws.elemSize);
  }

  // Kernel arguments, bound by name; then each kernel's tensor maps from
  // its bound pointers and the problem scalars (TensorMaps.h).
  const ExprVariables scalars = p.scalars();
  GdnTensorPointers pointers{};
  for (int t = 0; t < kGdnTensorCount; ++t)
    pointers[t] = tensors[t].ptr();
  std::vector<CUdeviceptr> wsPointers;
  for (auto &ws : workspaces)
    wsPointers.push_back(ws->ptr());
  std::vector<std::unique_ptr<KernelArgs>> bound;
  for (size_t i = 0; i < stages.size(); ++i) {
    bound.push_back(std::make_unique<KernelArgs>(*stages[i].manifest));
    GDN_RUN_TRY(bindGdnStage(session.driver(), stages[i], scalars, p.scale,
                             p.cpTheta,
                             pointers, wsPointers, *bound.back(), verbose));
  }

  auto launchAll = [&]() -> Status {
    // Workspaces the kernels expect zeroed at each call (meta.zero_ws).
    for (size_t w = 0; w < sequence_.workspaces.size(); ++w)
      if (sequence_.workspaces[w].zeroed)
        GDN_RUN_TRY(workspaces[w]->fill(0));
    if (opts.overlapStages) { // a timing experiment (checked: --check none)
      std::vector<const Kernel *> ks;
      std::vector<Dim3> grids;
      std::vector<void **> as;
      for (size_t i = 0; i < stages.size(); ++i) {
        ks.push_back(&kernels[i]);
        grids.push_back(stages[i].grid);
        as.push_back(bound[i]->data());
      }
      return session.launchConcurrently(ks, grids, as);
    }
    for (size_t i = 0; i < stages.size(); ++i) {
      Status s = session.launch(kernels[i], stages[i].grid,
                                bound[i]->data());
      if (!s.ok())
        return Status(s.code(), "launching stage '" + stages[i].name +
                                    "' (" + stages[i].manifest->kernel +
                                    "): " + s.message());
    }
    return Status::success();
  };
  auto poison = [&]() -> Status {
    GDN_RUN_TRY(tensors[static_cast<int>(GdnTensorId::O)].fill(0xFF));
    GDN_RUN_TRY(tensors[static_cast<int>(GdnTensorId::Ht)].fill(0xFF));
    for (auto &ws : workspaces)
      GDN_RUN_TRY(ws->fill(0xFF));
    return Status::success();
  };
  const std::string what = "running the gdn_prefill sequence (" +
                           std::to_string(stages.size()) + " kernel" +
                           (stages.size() == 1 ? "" : "s") + ")";
  std::vector<unsigned char> o(static_cast<size_t>(p.vCount()) * dsize);
  std::vector<float> ht(static_cast<size_t>(p.stateCount()));
  auto download = [&](std::vector<unsigned char> &oOut,
                      std::vector<float> &htOut) -> Status {
    GDN_RUN_TRY(session.synchronize(what));
    GDN_RUN_TRY(tensors[static_cast<int>(GdnTensorId::O)].download(
        oOut.data(), oOut.size()));
    GDN_RUN_TRY(tensors[static_cast<int>(GdnTensorId::Ht)].download(
        htOut.data(), htOut.size() * sizeof(float)));
    if (p.stateVFirst) // back to [N, HV, K, V]
      transposeStates(reinterpret_cast<unsigned char *>(htOut.data()),
                      htOut.size() * sizeof(float));
    return Status::success();
  };

  if (check) {
    GDN_RUN_TRY(poison());
    GDN_RUN_TRY(launchAll());
    GDN_RUN_TRY(download(o, ht));
    // What the CP summaries did (gdn_cp_summary writes cp_win).
    for (size_t w = 0; w < sequence_.workspaces.size(); ++w) {
      const GdnWorkspace &ws = sequence_.workspaces[w];
      if (ws.name != "cp_win" || ws.elemSize != 4 || ws.elements <= 0)
        continue;
      std::vector<int32_t> win(static_cast<size_t>(ws.elements));
      GDN_RUN_TRY(workspaces[w]->download(win.data(), win.size() * 4));
      int64_t chunks = 0;
      for (int32_t v : win) {
        if (v > 0) {
          ++result.cpWindowed;
          chunks += v;
        } else if (v < 0) {
          ++result.cpExact;
        } else {
          ++result.cpNone;
        }
      }
      result.cpReported = true;
      result.cpMeanWindow =
          result.cpWindowed ? double(chunks) / result.cpWindowed : 0;
    }
    std::vector<unsigned char> o2(o.size());
    std::vector<float> ht2(ht.size());
    for (int r = 1; r <= opts.determinism; ++r) {
      GDN_RUN_TRY(poison());
      GDN_RUN_TRY(launchAll());
      GDN_RUN_TRY(download(o2, ht2));
      result.determinismRuns = r;
      bool oSame = std::memcmp(o.data(), o2.data(), o.size()) == 0;
      bool htSame =
          std::memcmp(ht.data(), ht2.data(), ht.size() * sizeof(float)) == 0;
      if (oSame && htSame)
        continue;
      std::string where;
      if (!oSame) {
        size_t i = 0;
        while (std::memcmp(&o[i * dsize], &o2[i * dsize], dsize) == 0)
          ++i;
        where = indexText("o", i, {p.B, p.T, p.HV, p.DV}) + " = " +
                format("%.9g", hostElement(p.dtype, o2.data(), i)) +
                " vs " + format("%.9g", hostElement(p.dtype, o.data(), i));
      } else {
        size_t i = 0;
        while (std::memcmp(&ht[i], &ht2[i], sizeof(float)) == 0)
          ++i;
        where = indexText("ht", i, {p.numSequences(), p.HV, p.DK, p.DV}) +
                " = " + format("%.9g", ht2[i]) + " vs " +
                format("%.9g", ht[i]);
      }
      addFailure(result, "not deterministic: run " + std::to_string(r + 1) +
                             " differs from run 1 (first difference: " +
                             where + ")");
      break;
    }
  } else if (opts.warmup == 0 && opts.iters == 0) {
    GDN_RUN_TRY(launchAll()); // run the sequence at least once
    GDN_RUN_TRY(session.synchronize(what));
  }

  // Timing: the whole sequence per event pair; the scratch write before each
  // timed run evicts the inputs from L2.
  if (opts.warmup > 0 || opts.iters > 0) {
    DeviceBuffer scratch;
    if (opts.iters > 0)
      GDN_RUN_TRY(scratch.allocate(session, kScratchBytes));
    std::vector<float> ms;
    std::function<Status()> flush;
    if (opts.iters > 0)
      flush = [&]() { return scratch.fill(static_cast<unsigned char>(0)); };
    GDN_RUN_TRY(session.timeLaunches(launchAll, opts.warmup, opts.iters, ms,
                                     flush));
    if (opts.overlapStages && !ms.empty()) {
      std::vector<float> ends;
      GDN_RUN_TRY(session.concurrentEndTimes(ends));
      for (size_t i = 0; i < ends.size() && i < stages.size(); ++i)
        result.overlapEndMs.push_back({stages[i].name, double(ends[i])});
    }
    if (!ms.empty()) {
      std::sort(ms.begin(), ms.end());
      size_t n = ms.size();
      result.medianMs =
          n % 2 ? ms[n / 2] : 0.5 * (double(ms[n / 2 - 1]) + ms[n / 2]);
      result.minMs = ms.front();
      result.iters = static_cast<int>(n);
      result.timed = true;
      // Each kernel alone: where the time goes.
      for (size_t i = 0; i < stages.size(); ++i) {
        auto launchOne = [&]() -> Status {
          return session.launch(kernels[i], stages[i].grid,
                                bound[i]->data());
        };
        std::vector<float> one;
        GDN_RUN_TRY(session.timeLaunches(launchOne, 1,
                                         std::max(1, std::min(opts.iters, 10)),
                                         one, flush));
        std::sort(one.begin(), one.end());
        result.stageMedianMs.push_back(
            {stages[i].name, one.empty() ? 0.0 : double(one[one.size() / 2])});
      }
      // The host's cost of enqueueing the sequence (the driver's launches
      // of pre-bound kernels, nothing of ours): kHostBatches batches of
      // kHostBatch between synchronizations, so the launch queue never
      // fills; the median batch. gdn_run's own overhead is what
      // tools/bench-coldstart.py measures beyond this. Only when timing in
      // earnest (--iters >= 10): it runs the sequence 220 more times.
      if (opts.iters >= 10) {
        GDN_RUN_TRY(medianLaunchUs(
            launchAll, [&] { return session.synchronize(what); },
            result.hostLaunchUs));
        result.emptyLaunchUs = emptyLaunchUs(session);
      }
    }
  }

  if (!check && !opts.saveDir.empty())
    GDN_RUN_TRY(download(o, ht)); // the outputs of the last run
  if (check) {
    GDN_RUN_TRY(compare(o, ht, verbose, result));
    if (nonFinite.count)
      addFailure(result,
                 "the inputs hold " + std::to_string(nonFinite.count) +
                     " non-finite value" + (nonFinite.count == 1 ? "" : "s") +
                     " (first: " + nonFinite.first +
                     "): the outputs cannot match the reference (the kernels "
                     "ran to completion; --check none runs without checking)");
  }
  if (!opts.saveDir.empty()) {
    auto saveStart = std::chrono::steady_clock::now();
    GDN_RUN_TRY(save(o, ht));
    if (verbose)
      std::fprintf(stderr, "gdn-run: gdn_prefill: saved to %s in %.2f s\n",
                   opts.saveDir.c_str(), secondsSince(saveStart));
  }
  return Status::success();
}

Status GdnDriver::compare(const std::vector<unsigned char> &o,
                          const std::vector<float> &ht, bool verbose,
                          GdnResult &result) {
  const GdnProblem &p = problem_;
  auto start = std::chrono::steady_clock::now();
  gdn::ref::GdnShape shape{p.B, p.T, p.H, p.HV, p.DK, p.DV};
  gdn::ref::GdnOptions ro;
  ro.scale = p.scale;
  ro.cuSeqlens = p.cuSeqlens;
  ro.hasInitialState = p.hasH0;
  ro.numThreads = 0; // every core
  refO_.assign(static_cast<size_t>(p.vCount()), 0.0);
  refHt_.assign(static_cast<size_t>(p.stateCount()), 0.0);
  // With --qk-l2norm the kernels see raw q and k: the reference normalizes
  // the same (rounded) inputs in fp64, x / sqrt(sum x^2 + 1e-6).
  if (p.qkL2Norm)
    for (HostArray *a : {&inputs_.q, &inputs_.k})
      gdn::ref::l2NormalizeRows(a->values.data(),
                                static_cast<int64_t>(a->values.size()) / p.DK,
                                p.DK, 1e-6);
  // The gate_beta stage's transforms in fp64; beta is then rounded to its
  // type once, as the kernel stores it.
  if (p.gateInKernel) {
    std::vector<double> &g = inputs_.g.values;
    for (size_t i = 0; i < g.size(); ++i) {
      size_t hv = i % static_cast<size_t>(p.HV);
      double x = g[i] + inputs_.dtBias.values[hv];
      double sp = x > 20 ? x : std::log1p(std::exp(x));
      g[i] = -std::exp(inputs_.aLog.values[hv]) * sp;
    }
  }
  if (p.betaSigmoid || p.negEigval) {
    std::vector<double> &b = inputs_.beta.values;
    if (p.betaSigmoid)
      gdn::ref::sigmoidInPlace(b.data(), b.size());
    for (double &x : b)
      x = roundDoubleToType(p.betaType, p.negEigval ? 2 * x : x);
  }
  std::string err = gdn::ref::recurrentForward(
      shape, ro, inputs_.q.values.data(), inputs_.k.values.data(),
      inputs_.v.values.data(), inputs_.g.values.data(),
      inputs_.beta.values.data(), p.hasH0 ? inputs_.h0.values.data() : nullptr,
      refO_.data(), refHt_.data());
  if (!err.empty())
    return Status::badInput("fp64 reference: " + err);
  if (verbose)
    std::fprintf(stderr,
                 "gdn-run: gdn_prefill: fp64 reference on %u threads in "
                 "%.2f s\n",
                 defaultThreadCount(), secondsSince(start));
  // The double inputs are no longer needed (their bytes stay for --save).
  for (HostArray *a : {&inputs_.q, &inputs_.k, &inputs_.v, &inputs_.g,
                       &inputs_.beta, &inputs_.h0})
    std::vector<double>().swap(a->values);

  const double *table = decodeTable16(p.dtype);
  auto oValue = [&](size_t i) {
    uint16_t bits;
    std::memcpy(&bits, &o[2 * i], 2);
    return table[bits];
  };
  auto htValue = [&](size_t i) { return static_cast<double>(ht[i]); };
  Comparison co = compareArrays(refO_.size(), oValue, refO_.data());
  Comparison ch = compareArrays(refHt_.size(), htValue, refHt_.data());
  result.compared = true;
  result.o = co.stats;
  result.ht = ch.stats;

  const struct {
    const char *name;
    const Comparison &c;
    std::array<int64_t, 4> dims;
    const double *ref;
  } outputs[] = {
      {"o", co, {p.B, p.T, p.HV, p.DV}, refO_.data()},
      {"ht", ch, {p.numSequences(), p.HV, p.DK, p.DV}, refHt_.data()},
  };
  for (const auto &out : outputs) {
    if (out.c.stats.passes(rtol_))
      continue;
    auto describeAt = [&](size_t i) {
      double got = out.name[0] == 'o' ? oValue(i) : htValue(i);
      return indexText(out.name, i, out.dims) + " = " + format("%.6g", got) +
             ", expected " + format("%.6g", out.ref[i]);
    };
    char head[200];
    if (out.c.stats.nonFinite) {
      std::snprintf(head, sizeof head, "%zu of %zu elements of %s are not "
                                       "finite (first: ",
                    out.c.stats.nonFinite, out.c.stats.count, out.name);
      addFailure(result, head + describeAt(out.c.firstNonFinite) + "); " +
                             out.name + " is filled with NaN before the run, so these "
                             "may be elements no kernel wrote");
    } else {
      std::snprintf(head, sizeof head,
                    "%s: rel_l2 %.3e exceeds rtol %.3e (max |err| %.3e at ",
                    out.name, out.c.stats.relL2(), rtol_, out.c.stats.maxAbs);
      addFailure(result, head + describeAt(out.c.worst) + ")");
    }
  }
  return Status::success();
}

Status GdnDriver::save(const std::vector<unsigned char> &o,
                       const std::vector<float> &ht) const {
  const GdnProblem &p = problem_;
  const std::string &dir = options_->saveDir;
  if (!isDirectory(dir) && ::mkdir(dir.c_str(), 0777) != 0)
    return Status::badInput("--save " + dir + ": cannot create directory: " +
                            std::strerror(errno));
  const int64_t D = kGdnHeadDim;
  const NpyType dt = npyTypeFor(p.dtype);
  GDN_RUN_TRY(saveGdnTensor(dir, "q", dt, inputs_.q.bytes.data(), p.B, p.T,
                            p.H, D, layout_));
  GDN_RUN_TRY(saveGdnTensor(dir, "k", dt, inputs_.k.bytes.data(), p.B, p.T,
                            p.H, D, layout_));
  GDN_RUN_TRY(saveGdnTensor(dir, "v", dt, inputs_.v.bytes.data(), p.B, p.T,
                            p.HV, D, layout_));
  GDN_RUN_TRY(saveGdnTensor(dir, "g", npyTypeFor(p.gType),
                            inputs_.g.bytes.data(), p.B, p.T, p.HV, 0,
                            layout_));
  GDN_RUN_TRY(saveGdnTensor(dir, "beta", npyTypeFor(p.betaType),
                            inputs_.beta.bytes.data(), p.B, p.T, p.HV, 0,
                            layout_));
  GDN_RUN_TRY(saveGdnTensor(dir, "o", dt, o.data(), p.B, p.T, p.HV, D,
                            layout_));
  const std::string slash = dir.back() == '/' ? "" : "/";
  const std::vector<int64_t> stateShape = {p.numSequences(), p.HV, p.DK,
                                           p.DV};
  if (p.hasH0)
    GDN_RUN_TRY(writeNpy(dir + slash + "h0.npy", NpyType::F32, stateShape,
                         inputs_.h0.bytes.data(), inputs_.h0.bytes.size()));
  if (p.varlen()) {
    std::vector<unsigned char> cu(p.cuSeqlens.size() * dtypeSize(p.cuType));
    for (size_t i = 0; i < p.cuSeqlens.size(); ++i) {
      if (p.cuType == DType::I32) {
        int32_t v = static_cast<int32_t>(p.cuSeqlens[i]);
        std::memcpy(cu.data() + 4 * i, &v, 4);
      } else {
        std::memcpy(cu.data() + 8 * i, &p.cuSeqlens[i], 8);
      }
    }
    GDN_RUN_TRY(writeNpy(dir + slash + "cu_seqlens.npy", npyTypeFor(p.cuType),
                         {static_cast<int64_t>(p.cuSeqlens.size())},
                         cu.data(), cu.size()));
  }
  GDN_RUN_TRY(writeNpy(dir + slash + "ht.npy", NpyType::F32, stateShape,
                       ht.data(), ht.size() * sizeof(float)));
  if (!refO_.empty()) {
    GDN_RUN_TRY(saveGdnTensor(
        dir, "ref_o", NpyType::F64,
        reinterpret_cast<const unsigned char *>(refO_.data()), p.B, p.T, p.HV,
        D, layout_));
    GDN_RUN_TRY(writeNpy(dir + slash + "ref_ht.npy", NpyType::F64, stateShape,
                         refHt_.data(), refHt_.size() * sizeof(double)));
  }
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Report
//===----------------------------------------------------------------------===//

std::vector<std::string> gdnTableHeader() {
  return {"op",     "shape",     "dtype",   "family", "check",  "o_rel",
          "ht_rel", "median_ms", "TFLOP/s", "GB/s",   "xfloor", "result"};
}

std::vector<std::string> gdnTableRow(const GdnResult &r) {
  const char *verdict = r.status.ok()                               ? "PASS"
                        : r.status.code() == ExitCode::CheckFailed ? "FAIL"
                                                                    : "ERROR";
  auto rel = [&](const ErrorStats &s) -> std::string {
    if (!r.compared)
      return "-";
    if (s.nonFinite)
      return "nonfinite:" + std::to_string(s.nonFinite);
    return format("%.3e", s.relL2());
  };
  std::vector<std::string> row = {kGdnOpName,
                                  r.shape.empty() ? "-" : r.shape,
                                  r.dtype.empty() ? "-" : r.dtype,
                                  r.family.empty() ? "-" : r.family,
                                  checkModeName(r.mode),
                                  rel(r.o),
                                  rel(r.ht)};
  if (r.timed) {
    double tf = r.tflops();
    row.push_back(format("%.4f", r.medianMs));
    row.push_back(format(tf >= 1 ? "%.1f" : "%.3f", tf));
    row.push_back(format("%.0f", r.gbps()));
    row.push_back(format("%.2f", r.xfloor()));
  } else {
    row.insert(row.end(), {"-", "-", "-", "-"});
  }
  row.push_back(verdict);
  return row;
}

std::vector<std::string> gdnDetailLines(const GdnResult &r) {
  std::vector<std::string> lines;
  if (!r.path.empty())
    lines.push_back("path: " + r.path);
  if (r.compared) {
    for (const auto &[name, s] :
         {std::pair<const char *, const ErrorStats &>{"o ", r.o},
          std::pair<const char *, const ErrorStats &>{"ht", r.ht}}) {
      char buf[200];
      std::snprintf(buf, sizeof buf,
                    "%s: rel_l2 %.3e  max_abs %.3e  non-finite %zu of %zu  "
                    "(rtol %.1e)",
                    name, s.relL2(), s.maxAbs, s.nonFinite, s.count, r.rtol);
      lines.push_back(buf);
    }
  }
  if (r.cpReported) {
    char buf[200];
    std::snprintf(buf, sizeof buf,
                  "cp summaries: %lld windowed (mean %.1f chunks), %lld "
                  "exact, %lld last segments (per segment and head)",
                  static_cast<long long>(r.cpWindowed), r.cpMeanWindow,
                  static_cast<long long>(r.cpExact),
                  static_cast<long long>(r.cpNone));
    lines.push_back(buf);
  }
  if (r.determinismRuns > 0)
    lines.push_back("determinism: " + std::to_string(r.determinismRuns) +
                    " extra run" + (r.determinismRuns == 1 ? "" : "s") +
                    (r.status.ok() ||
                             r.status.message().find("not deterministic") ==
                                 std::string::npos
                         ? ", o and ht bit-identical"
                         : ", outputs differ"));
  if (r.timed) {
    char buf[240];
    std::snprintf(buf, sizeof buf,
                  "time: median %.4f ms, min %.4f ms over %d runs; floor "
                  "%.4f ms (%.3f GB, %.1f GFLOP)",
                  r.medianMs, r.minMs, r.iters, r.cost.floorSeconds * 1e3,
                  r.cost.bytes / 1e9, r.cost.flop / 1e9);
    lines.push_back(buf);
    for (const auto &[name, ms] : r.stageMedianMs) {
      std::snprintf(buf, sizeof buf, "  stage %-12s median %.4f ms alone",
                    name.c_str(), ms);
      lines.push_back(buf);
    }
    for (const auto &[name, ms] : r.overlapEndMs) {
      std::snprintf(buf, sizeof buf,
                    "  overlapped: stage %-12s ended at %.4f ms (last run)",
                    name.c_str(), ms);
      lines.push_back(buf);
    }
    if (r.hostLaunchUs > 0) {
      std::snprintf(buf, sizeof buf,
                    "host: %.2f us per call to launch the %zu kernels "
                    "(driver launches of bound kernels, median of %d "
                    "batches of %d)",
                    r.hostLaunchUs, r.stageMedianMs.size(), kHostBatches,
                    kHostBatch);
      lines.push_back(buf);
      if (r.emptyLaunchUs > 0) {
        std::snprintf(buf, sizeof buf,
                      "host: %.2f us per launch of an empty kernel (this "
                      "host's floor per kernel)",
                      r.emptyLaunchUs);
        lines.push_back(buf);
      }
    }
  }
  return lines;
}

} // namespace gdn::run
