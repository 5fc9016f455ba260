//===- Runtime.cpp - libgdn_runtime: the C API over the GDN prefill -------===//
//
// A gdn_runtime holds one device's primary context, the kernel images (the
// embedded bundle, or a development directory) and a cache of plans. A plan
// is the GDN prefill of one problem as gdn-run runs it: the path and
// variant of the cost model (GdnPlan.h), the sequence of kernels bound by
// name (GdnSequence.h), its workspace layout and its index tensors (on the
// device). gdn_run binds the caller's pointers (GdnLaunch.h) and launches
// (KernelLaunch.h) on the caller's stream. Plans are immutable once made
// except for their replay cache (below), which a run only try-locks, so runs
// never wait for each other; plan creation and module loading take the
// runtime's mutex.
//
// Replay: a call that repeats one of the plan's recent calls (the same
// tensors, workspace and stream) launches an instantiated CUDA graph of the
// same launches instead of the kernels one by one (one driver call instead
// of one per kernel, and no tensor maps to encode): the graph is captured on
// the plan's own stream the second time a call is seen, and replayed from
// the third. The launches are those of a plain call (same kernels,
// parameters and order), so the results are bit-identical. Not while the
// caller's stream is capturing, not with an allocated workspace, not when a
// concurrent call holds the plan's replay cache (it launches plainly), and
// never with GDN_RUN_NO_REPLAY or the environment's GDN_NO_REPLAY=1.
//
//===----------------------------------------------------------------------===//

#include "gdn/Runtime/gdn_runtime.h"

#include "CudaDriver.h"
#include "GdnLaunch.h"
#include "GdnPlan.h"
#include "GdnProblem.h"
#include "GdnSequence.h"
#include "KernelBundle.h"
#include "KernelImage.h"
#include "KernelLaunch.h"
#include "Manifest.h"
#include "TensorMaps.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <dirent.h>

using namespace gdn::run;

namespace {

thread_local std::string tlsLastError;

gdn_status fail(gdn_status code, const std::string &message) {
  tlsLastError = message;
  return code;
}

/// The C API code of a Status from the shared code; `badInput` is the code
/// for BadInput.
gdn_status fromStatus(const Status &s, gdn_status badInput) {
  switch (s.code()) {
  case ExitCode::Ok:
    return GDN_SUCCESS;
  case ExitCode::BadInput:
    return fail(badInput, s.message());
  case ExitCode::CudaError:
    return fail(GDN_ERROR_CUDA, s.message());
  case ExitCode::NoDevice:
    return fail(GDN_ERROR_NO_DEVICE, s.message());
  default:
    return fail(GDN_ERROR_INTERNAL, s.message());
  }
}

#define GDN_C_TRY(expr, badInputCode)                                          \
  do {                                                                         \
    ::gdn::run::Status gdnCStatus_ = (expr);                                   \
    if (!gdnCStatus_.ok())                                                     \
      return fromStatus(gdnCStatus_, badInputCode);                            \
  } while (0)

/// One kernel module: its PTX and, when the bundle has one, its cubin.
struct ModuleImage {
  std::string name; ///< the manifest's ptxPath
  const char *ptx = nullptr;
  const unsigned char *cubin = nullptr;
  size_t cubinSize = 0;
  std::string ownedPtx; ///< development directory: the file's contents
  CUmodule module = nullptr;
  bool usedCubin = false;
};

/// A call's identity for replay: every pointer it binds and its stream.
struct ReplayKey {
  GdnTensorPointers ptrs{};
  CUdeviceptr workspace = 0;
  CUstream stream = nullptr;
  bool operator==(const ReplayKey &o) const {
    return ptrs == o.ptrs && workspace == o.workspace && stream == o.stream;
  }
};

/// One recent call of a plan: seen once (no graph yet), replayable (exec),
/// or not replayable (the capture failed; it launches plainly).
struct ReplayEntry {
  ReplayKey key;
  uint64_t lastUse = 0;
  CUgraphExec exec = nullptr;
  bool failed = false;
};

/// Calls remembered per plan (least recently used goes first).
constexpr size_t kReplayEntries = 8;

} // namespace

struct gdn_plan {
  gdn_runtime *runtime = nullptr;
  GdnProblem problem;
  GdnPathChoice choice;
  GdnSequence sequence;
  ExprVariables scalars;
  std::vector<Kernel> kernels; ///< per stage
  std::vector<size_t> wsOffsets;
  size_t wsBytes = 0;
  CUdeviceptr indexBuffer = 0; ///< index tensors and the dummy h0
  GdnTensorPointers indexPointers{};
  CUdeviceptr dummyH0 = 0;
  std::string description;
  /// Per stage: the parameter slots with the plan's scalars bound (the hot
  /// path of gdn_run copies them and fills in the pointers).
  std::vector<std::vector<uint64_t>> stageSlots;
  /// Per stage: its tensor maps with dims and strides evaluated (one per
  /// manifest tensor map; the hot path encodes each at this call's base
  /// pointer).
  std::vector<std::vector<TensorMapPlan>> stageMaps;
  /// Replay cache (see the file comment); guarded by replayMutex.
  mutable std::mutex replayMutex;
  mutable std::vector<ReplayEntry> replay;
  mutable uint64_t replayClock = 0;
  mutable CUstream captureStream = nullptr;
};

struct gdn_runtime {
  CudaDriver driver;
  int ordinal = 0;
  CUdevice device = 0;
  CUcontext context = nullptr;
  int ccMajor = 0, ccMinor = 0, smCount = 0, maxSharedOptin = 0;
  int memoryClockKHz = 0, memoryBusBits = 0; ///< the peak DRAM bandwidth
  std::string deviceName;
  std::string source; ///< "the embedded kernels" or the directory
  std::vector<std::unique_ptr<Manifest>> manifests; ///< meta.op gdn_prefill
  std::map<std::string, ModuleImage> images;       ///< by ptxPath
  std::mutex mutex;
  std::map<std::string, std::unique_ptr<gdn_plan>> plans;
  bool replay = true; ///< GDN_NO_REPLAY=1 turns replay off

  ~gdn_runtime() {
    if (!context)
      return;
    CUcontext previous = nullptr;
    bool pushed = driver.cuCtxPushCurrent(context) == CUDA_SUCCESS;
    for (auto &entry : plans) {
      gdn_plan &plan = *entry.second;
      for (ReplayEntry &r : plan.replay)
        if (r.exec)
          (void)driver.cuGraphExecDestroy(r.exec);
      if (plan.captureStream)
        (void)driver.cuStreamDestroy(plan.captureStream);
      if (plan.indexBuffer)
        (void)driver.cuMemFree(plan.indexBuffer);
    }
    for (auto &entry : images)
      if (entry.second.module)
        (void)driver.cuModuleUnload(entry.second.module);
    if (pushed)
      (void)driver.cuCtxPopCurrent(&previous);
    (void)driver.cuDevicePrimaryCtxRelease(device);
  }
};

namespace {

/// Makes the runtime's context current for a scope (and restores the
/// caller's), unless it already is.
class ContextScope {
public:
  explicit ContextScope(const gdn_runtime &rt) : driver_(rt.driver) {
    CUcontext current = nullptr;
    if (driver_.cuCtxGetCurrent(&current) == CUDA_SUCCESS &&
        current == rt.context)
      return;
    result_ = driver_.cuCtxPushCurrent(rt.context);
    pushed_ = result_ == CUDA_SUCCESS;
  }
  ~ContextScope() {
    CUcontext popped = nullptr;
    if (pushed_)
      (void)driver_.cuCtxPopCurrent(&popped);
  }
  CUresult result() const { return result_; }

private:
  const CudaDriver &driver_;
  CUresult result_ = CUDA_SUCCESS;
  bool pushed_ = false;
};

bool endsWith(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// Keeps the gdn_prefill manifests of `m`; other ops are not the
/// runtime's.
void addIfGdn(gdn_runtime &rt, std::unique_ptr<Manifest> m) {
  if (m->metaString("op") == kGdnOpName)
    rt.manifests.push_back(std::move(m));
}

gdn_status loadBundle(gdn_runtime &rt) {
  size_t count = 0;
  const BundleFile *files = kernelBundle(count);
  std::map<std::string, const BundleFile *> byName;
  for (size_t i = 0; i < count; ++i)
    byName[files[i].name] = &files[i];
  for (size_t i = 0; i < count; ++i) {
    std::string name = files[i].name;
    if (!endsWith(name, ".manifest"))
      continue;
    auto m = std::make_unique<Manifest>();
    std::string text(reinterpret_cast<const char *>(files[i].data),
                     files[i].size);
    GDN_C_TRY(parseManifest(text, "gdn_runtime:" + name, *m),
              GDN_ERROR_KERNELS);
    // parseManifest resolved `ptx` against "gdn_runtime:" (no directory).
    m->ptxPath = m->ptx;
    if (m->metaString("op") != kGdnOpName)
      continue;
    if (!rt.images.count(m->ptxPath)) {
      auto ptx = byName.find(m->ptx);
      if (ptx == byName.end())
        return fail(GDN_ERROR_KERNELS,
                    "gdn_runtime: the embedded kernels lack " + m->ptx +
                        " (named by " + name + ")");
      ModuleImage image;
      image.name = m->ptxPath;
      image.ptx = reinterpret_cast<const char *>(ptx->second->data);
      std::string stem = m->ptx.substr(0, m->ptx.rfind('.'));
      auto cubin = byName.find(stem + "." + m->target + ".cubin");
      if (cubin != byName.end()) {
        image.cubin = cubin->second->data;
        image.cubinSize = cubin->second->size;
      }
      rt.images.emplace(m->ptxPath, std::move(image));
    }
    addIfGdn(rt, std::move(m));
  }
  rt.source = "the kernels embedded in libgdn_runtime";
  if (rt.manifests.empty())
    return fail(GDN_ERROR_KERNELS,
                "gdn_runtime: this library was built without embedded "
                "kernels; pass a kernel directory (gdn-opt's output) to "
                "gdn_runtime_create or set GDN_KERNEL_DIR");
  return GDN_SUCCESS;
}

gdn_status loadDirectory(gdn_runtime &rt, const std::string &dir) {
  DIR *d = ::opendir(dir.c_str());
  if (!d)
    return fail(GDN_ERROR_KERNELS, "gdn_runtime: cannot open the kernel "
                                   "directory " +
                                       dir + ": " + std::strerror(errno));
  std::vector<std::string> names;
  while (struct dirent *e = ::readdir(d))
    if (endsWith(e->d_name, ".manifest"))
      names.push_back(e->d_name);
  ::closedir(d);
  std::sort(names.begin(), names.end());
  for (const std::string &name : names) {
    auto m = std::make_unique<Manifest>();
    GDN_C_TRY(loadManifest(dir + "/" + name, *m), GDN_ERROR_KERNELS);
    if (m->metaString("op") != kGdnOpName)
      continue;
    if (!rt.images.count(m->ptxPath)) {
      ModuleImage image;
      image.name = m->ptxPath;
      GDN_C_TRY(readFile(m->ptxPath, "PTX file", image.ownedPtx),
                GDN_ERROR_KERNELS);
      std::string note;
      GDN_C_TRY(validateKernelImage(*m, image.ownedPtx, &note),
                GDN_ERROR_KERNELS);
      rt.images.emplace(m->ptxPath, std::move(image));
      ModuleImage &stored = rt.images[m->ptxPath];
      stored.ptx = stored.ownedPtx.c_str();
    }
    addIfGdn(rt, std::move(m));
  }
  rt.source = "kernel directory " + dir;
  if (rt.manifests.empty())
    return fail(GDN_ERROR_KERNELS, "gdn_runtime: no gdn_prefill manifest "
                                   "(meta.op = gdn_prefill) in " +
                                       dir);
  return GDN_SUCCESS;
}

/// Loads the module of `m` (once): the cubin when the device runs it and the
/// driver takes it, else the PTX (JIT-compiled by the driver).
gdn_status loadModule(gdn_runtime &rt, const Manifest &m, CUmodule &out) {
  ModuleImage &image = rt.images.at(m.ptxPath);
  if (image.module) {
    out = image.module;
    return GDN_SUCCESS;
  }
  const std::string device = "sm_" + std::to_string(rt.ccMajor) +
                             std::to_string(rt.ccMinor);
  std::string cubinError;
  if (image.cubin &&
      checkTargetForDevice(m, true, rt.ccMajor, rt.ccMinor, rt.deviceName)
          .ok()) {
    Status s = loadModuleImage(rt.driver, image.cubin, image.name + " (cubin)",
                               m.target, device, false, image.module);
    if (s.ok()) {
      image.usedCubin = true;
      out = image.module;
      return GDN_SUCCESS;
    }
    cubinError = s.message();
  }
  Status target = checkTargetForDevice(m, false, rt.ccMajor, rt.ccMinor,
                                       "device " + std::to_string(rt.ordinal) +
                                           ": " + rt.deviceName);
  if (!target.ok())
    return fail(GDN_ERROR_UNSUPPORTED_DEVICE, target.message());
  Status s = loadModuleImage(rt.driver, image.ptx, image.name, m.target,
                             device, false, image.module);
  if (!s.ok())
    return fail(GDN_ERROR_CUDA,
                s.message() + (cubinError.empty()
                                   ? std::string()
                                   : "\n(after the cubin failed: " +
                                         cubinError + ")"));
  out = image.module;
  return GDN_SUCCESS;
}

/// An enum field of the caller's struct as the int it holds: a C caller may
/// store any int there, and loading one outside the enum's range as the
/// enum type is undefined behaviour in C++ (UBSan's -fsanitize=enum).
template <typename E> int rawEnum(const E &field) {
  static_assert(sizeof(E) == sizeof(int), "a C enum field");
  int v;
  std::memcpy(&v, &field, sizeof v);
  return v;
}

std::string planKey(const gdn_problem &p) {
  std::string key;
  auto add = [&](int64_t v) {
    key.append(reinterpret_cast<const char *>(&v), sizeof v);
  };
  add(p.B);
  add(p.T);
  add(p.H);
  add(p.HV);
  add(p.head_dim_k);
  add(p.head_dim_v);
  add(rawEnum(p.dtype));
  add(rawEnum(p.layout));
  add(p.has_initial_state != 0);
  add(p.use_qk_l2norm != 0);
  add(p.use_gate_in_kernel != 0);
  add(p.use_beta_sigmoid != 0);
  add(p.allow_neg_eigval != 0);
  add(p.state_v_first != 0);
  double scale = p.scale;
  int64_t bits;
  std::memcpy(&bits, &scale, sizeof bits);
  add(bits);
  add(rawEnum(p.path));
  add(p.block_v);
  add(p.cp_chunks);
  add(rawEnum(p.form));
  add(p.cu_seqlens ? static_cast<int64_t>(p.num_cu_seqlens) : -1);
  if (p.cu_seqlens)
    key.append(reinterpret_cast<const char *>(p.cu_seqlens),
               p.num_cu_seqlens * sizeof(int64_t));
  return key;
}

const char *dtypeText(gdn_dtype d) {
  switch (d) {
  case GDN_DTYPE_F16:
    return "f16";
  case GDN_DTYPE_BF16:
    return "bf16";
  case GDN_DTYPE_F32:
    return "f32";
  }
  return "?";
}

gdn_dtype toCDtype(DType t) {
  return t == DType::F16    ? GDN_DTYPE_F16
         : t == DType::BF16 ? GDN_DTYPE_BF16
                            : GDN_DTYPE_F32;
}

gdn_status makePlan(gdn_runtime &rt, const gdn_problem &in,
                    std::unique_ptr<gdn_plan> &out) {
  auto plan = std::make_unique<gdn_plan>();
  plan->runtime = &rt;
  GdnProblem &p = plan->problem;
  const int dtypeValue = rawEnum(in.dtype), layout = rawEnum(in.layout),
            path = rawEnum(in.path);
  if (dtypeValue != GDN_DTYPE_F16 && dtypeValue != GDN_DTYPE_BF16)
    return fail(GDN_ERROR_DTYPE,
                "gdn_plan_get: dtype " + std::to_string(dtypeValue) +
                    " is not supported: q, k, v and o must be f16 "
                    "(GDN_DTYPE_F16) or bf16 (GDN_DTYPE_BF16)");
  if (layout != GDN_LAYOUT_BTHD)
    return fail(GDN_ERROR_LAYOUT,
                "gdn_plan_get: layout " + std::to_string(layout) +
                    " is not supported: the kernels take [B, T, heads, D] "
                    "(GDN_LAYOUT_BTHD)");
  if (in.head_dim_k != kGdnHeadDim || in.head_dim_v != kGdnHeadDim)
    return fail(GDN_ERROR_SHAPE,
                "gdn_plan_get: head dims K = " +
                    std::to_string(in.head_dim_k) +
                    ", V = " + std::to_string(in.head_dim_v) +
                    ": the kernels are compiled for K = V = 128 only");
  p.B = in.B;
  p.T = in.T;
  p.H = in.H;
  p.HV = in.HV;
  if (in.cu_seqlens) {
    if (in.num_cu_seqlens < 2)
      return fail(GDN_ERROR_SHAPE,
                  "gdn_plan_get: cu_seqlens needs at least 2 values (0 and "
                  "T), got " +
                      std::to_string(in.num_cu_seqlens));
    p.cuSeqlens.assign(in.cu_seqlens, in.cu_seqlens + in.num_cu_seqlens);
  }
  p.hasH0 = in.has_initial_state != 0;
  p.qkL2Norm = in.use_qk_l2norm != 0;
  p.gateInKernel = in.use_gate_in_kernel != 0;
  p.betaSigmoid = in.use_beta_sigmoid != 0;
  p.negEigval = in.allow_neg_eigval != 0;
  p.stateVFirst = in.state_v_first != 0;
  if (!(std::isfinite(in.scale)))
    return fail(GDN_ERROR_INVALID_ARGUMENT,
                "gdn_plan_get: scale is not finite");
  double scale = in.scale > 0 ? in.scale : 1.0 / std::sqrt(double(kGdnHeadDim));
  p.scale = static_cast<double>(static_cast<float>(scale));
  if (!(p.scale > 0) || std::isinf(p.scale))
    return fail(GDN_ERROR_INVALID_ARGUMENT,
                "gdn_plan_get: scale " + std::to_string(in.scale) +
                    " is not representable as a positive f32");
  Status valid = validateGdnProblem(p);
  if (!valid.ok())
    return fail(GDN_ERROR_SHAPE, "gdn_plan_get: problem B=" +
                                     std::to_string(in.B) +
                                     " T=" + std::to_string(in.T) +
                                     " H=" + std::to_string(in.H) +
                                     " HV=" + std::to_string(in.HV) + ": " +
                                     valid.message());

  // The manifests of the dtype (and those without one, like the cp scan's).
  const std::string dtype = dtypeText(in.dtype);
  std::vector<const Manifest *> ofDtype;
  for (const auto &m : rt.manifests) {
    DType t;
    if (!gdnManifestDtype(*m, t) || dtypeName(t) == dtype)
      ofDtype.push_back(m.get());
  }
  bool any = false;
  for (const Manifest *m : ofDtype) {
    DType t;
    any |= gdnManifestDtype(*m, t);
  }
  if (!any)
    return fail(GDN_ERROR_DTYPE, "gdn_plan_get: no " + dtype +
                                     " kernels in " + rt.source);
  // Checked here for its messages; the path is chosen below.
  GdnPaths paths;
  GDN_C_TRY(splitGdnPaths(ofDtype, paths), GDN_ERROR_KERNELS);
  GdnPathRequest request;
  request.cp = path == GDN_PATH_CP       ? "on"
               : path == GDN_PATH_DIRECT ? "off"
                                         : "auto";
  if (path != GDN_PATH_AUTO && path != GDN_PATH_CP && path != GDN_PATH_DIRECT)
    return fail(GDN_ERROR_INVALID_ARGUMENT,
                "gdn_plan_get: path " + std::to_string(path) +
                    " is not GDN_PATH_AUTO, _DIRECT or _CP");
  if (in.block_v < 0 || in.cp_chunks < 0)
    return fail(GDN_ERROR_INVALID_ARGUMENT,
                "gdn_plan_get: block_v and cp_chunks must be >= 0 (0: the "
                "cost model chooses)");
  request.blockV = in.block_v;
  request.cpChunks = in.cp_chunks;
  if (in.form != GDN_FORM_AUTO && in.form != GDN_FORM_PAIR &&
      in.form != GDN_FORM_FUSED)
    return fail(GDN_ERROR_INVALID_ARGUMENT,
                "gdn_plan_get: form " + std::to_string(in.form) +
                    " is not GDN_FORM_AUTO, _PAIR or _FUSED");
  request.fused = in.form == GDN_FORM_FUSED  ? "on"
                  : in.form == GDN_FORM_PAIR ? "off"
                                             : "auto";
  std::vector<const Manifest *> selected;
  // The path and variant from the kernels' 32-bit build when the problem
  // fits it, else from the 64-bit one (GdnPlan.h).
  GDN_C_TRY(chooseGdnPathAndBuild(
                ofDtype, request, rt.smCount, p, plan->choice, selected,
                gdnPeakDramGBs(rt.memoryClockKHz, rt.memoryBusBits)),
            GDN_ERROR_INVALID_ARGUMENT);
  GDN_C_TRY(buildGdnSequence(selected, plan->sequence,
                             gdnQkL2NormFused(p, selected)),
            GDN_ERROR_KERNELS);
  GdnSequence &seq = plan->sequence;
  if (dtypeName(seq.dtype) != dtype)
    return fail(GDN_ERROR_DTYPE, "gdn_plan_get: the " + dtype +
                                     " kernels take " + dtypeName(seq.dtype) +
                                     " tensors");
  p.dtype = seq.dtype;
  p.gType = seq.gType;
  p.betaType = seq.betaType;
  p.cuType = seq.cuType;
  if (p.hasH0 && !seq.uses(GdnTensorId::H0))
    return fail(GDN_ERROR_KERNELS, "gdn_plan_get: has_initial_state, but no "
                                   "kernel of the sequence takes h0");
  plan->scalars = p.scalars();
  GDN_C_TRY(evaluateGdnSequence(plan->scalars, seq), GDN_ERROR_LIMIT);
  for (const GdnStage &stage : seq.stages) {
    KernelArgs args(*stage.manifest);
    bindGdnScalars(stage, plan->scalars, p.scale, p.cpTheta, args);
    std::vector<TensorMapPlan> maps;
    GDN_C_TRY(args.checkTensorMaps(plan->scalars, &maps), GDN_ERROR_LIMIT);
    plan->stageSlots.push_back(args.slots());
    plan->stageMaps.push_back(std::move(maps));
  }
  plan->wsBytes = gdnWorkspaceLayout(seq, plan->wsOffsets);
  plan->description = gdnPathText(plan->choice);
  if (!rt.context) { // planning only (GDN_DEVICE_NONE)
    out = std::move(plan);
    return GDN_SUCCESS;
  }

  ContextScope scope(rt);
  if (scope.result() != CUDA_SUCCESS)
    return fail(GDN_ERROR_CUDA, "cuCtxPushCurrent failed: " +
                                    rt.driver.describe(scope.result()));
  // Kernels. A kernel that waits for its predecessor through ready flags
  // shares the SMs with it: one shared-memory configuration for all.
  const bool flags = seq.waitsForFlags();
  for (const GdnStage &stage : seq.stages) {
    CUmodule module = nullptr;
    gdn_status st = loadModule(rt, *stage.manifest, module);
    if (st != GDN_SUCCESS)
      return st;
    Kernel k;
    Status s = prepareKernel(rt.driver, module, *stage.manifest,
                             rt.maxSharedOptin, false, k);
    if (s.ok() && flags)
      s = preferMaxSharedCarveout(rt.driver, k);
    if (!s.ok())
      return fromStatus(s, GDN_ERROR_KERNELS);
    plan->kernels.push_back(k);
  }
  // Index tensors (and a zeroed dummy h0 when there is no initial state),
  // uploaded once.
  const GdnCpSegments segments = p.cpSegments();
  std::vector<unsigned char> host;
  std::array<size_t, kGdnTensorCount> offsets{};
  auto place = [&](size_t bytes) {
    size_t at = (host.size() + 255) / 256 * 256;
    host.resize(at + std::max<size_t>(bytes, 16), 0);
    return at;
  };
  std::array<bool, kGdnTensorCount> placed{};
  for (int t = 0; t < kGdnTensorCount; ++t) {
    GdnTensorId id = static_cast<GdnTensorId>(t);
    if (!seq.uses(id) || !gdnIsIndexTensor(id))
      continue;
    std::vector<unsigned char> bytes =
        gdnIndexTensorBytes(p, seq, segments, id);
    offsets[t] = place(bytes.size());
    std::memcpy(host.data() + offsets[t], bytes.data(), bytes.size());
    placed[t] = true;
  }
  size_t dummyAt = 0;
  bool dummy = seq.uses(GdnTensorId::H0) && !p.hasH0;
  if (dummy)
    dummyAt = place(16);
  if (!host.empty()) {
    Status s = GDN_CU(rt.driver, cuMemAlloc, &plan->indexBuffer, host.size());
    if (!s.ok())
      return fail(GDN_ERROR_CUDA, "gdn_plan_get: index tensors (" +
                                      std::to_string(host.size()) +
                                      " bytes): " + s.message());
    s = GDN_CU(rt.driver, cuMemcpyHtoD, plan->indexBuffer, host.data(),
               host.size());
    if (s.ok()) // the copy must land before kernels on any stream read it
      s = GDN_CU(rt.driver, cuCtxSynchronize);
    if (!s.ok()) {
      (void)rt.driver.cuMemFree(plan->indexBuffer);
      plan->indexBuffer = 0;
      return fail(GDN_ERROR_CUDA, "gdn_plan_get: uploading the index "
                                  "tensors: " +
                                      s.message());
    }
    for (int t = 0; t < kGdnTensorCount; ++t)
      if (placed[t])
        plan->indexPointers[t] = plan->indexBuffer + offsets[t];
    if (dummy)
      plan->dummyH0 = plan->indexBuffer + dummyAt;
  }
  out = std::move(plan);
  return GDN_SUCCESS;
}

/// Checks one tensor pointer: present, aligned, on the plan's device.
gdn_status checkPointer(const gdn_plan &plan, const char *name,
                        const void *ptr, bool query) {
  const gdn_runtime &rt = *plan.runtime;
  if (!ptr)
    return fail(GDN_ERROR_MISSING_TENSOR,
                std::string("gdn_run: tensor ") + name +
                    " is null (problem " + plan.problem.shapeText() + ")");
  if (reinterpret_cast<uintptr_t>(ptr) % 16)
    return fail(GDN_ERROR_ALIGNMENT,
                std::string("gdn_run: tensor ") + name + " at " +
                    std::to_string(reinterpret_cast<uintptr_t>(ptr)) +
                    " is not 16-byte aligned");
  if (!query)
    return GDN_SUCCESS;
  CUmemorytype type = static_cast<CUmemorytype>(0);
  int ordinal = -1;
  CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
  void *values[] = {&type, &ordinal};
  CUresult r = rt.driver.cuPointerGetAttributes(
      2, attrs, values, reinterpret_cast<CUdeviceptr>(ptr));
  if (r != CUDA_SUCCESS || type == 0 || type == CU_MEMORYTYPE_HOST)
    return fail(GDN_ERROR_HOST_POINTER,
                std::string("gdn_run: tensor ") + name +
                    " is not device memory (a host pointer?): the kernels "
                    "run on device " +
                    std::to_string(rt.ordinal));
  if (ordinal >= 0 && ordinal != rt.ordinal)
    return fail(GDN_ERROR_DEVICE_MISMATCH,
                std::string("gdn_run: tensor ") + name + " is on device " +
                    std::to_string(ordinal) + ", the plan's runtime on device " +
                    std::to_string(rt.ordinal));
  return GDN_SUCCESS;
}

/// Launches the plan's kernels on `stream` with the call's pointers.
gdn_status enqueueStages(const gdn_plan &planRef, const GdnTensorPointers &ptrs,
                         CUdeviceptr ws, CUstream cuStream) {
  const gdn_plan *plan = &planRef;
  const gdn_runtime &rt = *plan->runtime;
  const GdnSequence &seq = plan->sequence;
  gdn_status result = GDN_SUCCESS;
  // Workspaces the kernels expect zeroed at each call (meta.zero_ws).
  for (size_t w = 0; w < seq.workspaces.size(); ++w) {
    if (!seq.workspaces[w].zeroed || seq.workspaces[w].bytes() == 0)
      continue;
    Status s = GDN_CU(rt.driver, cuMemsetD8Async, ws + plan->wsOffsets[w], 0,
                      seq.workspaces[w].bytes(), cuStream);
    if (!s.ok())
      return fromStatus(Status(s.code(), "gdn_run: zeroing workspace " +
                                             seq.workspaces[w].name + ": " +
                                             s.message()),
                        GDN_ERROR_CUDA);
  }
  for (size_t i = 0; i < seq.stages.size() && result == GDN_SUCCESS; ++i) {
    const GdnStage &stage = seq.stages[i];
    // Hot path: the plan's bound slots, this call's pointers, and the
    // plan's tensor maps encoded at this call's base pointers, on the stack
    // (no expression is evaluated, nothing allocated).
    constexpr size_t kMaxFastParams = 64, kMaxFastMaps = 8;
    const std::vector<uint64_t> &bound = plan->stageSlots[i];
    const std::vector<TensorMapDecl> &decls = stage.manifest->tensorMaps;
    if (!bound.empty() && bound.size() <= kMaxFastParams &&
        decls.size() <= kMaxFastMaps) {
      uint64_t slots[kMaxFastParams];
      void *argv[kMaxFastParams];
      CUtensorMap maps[kMaxFastMaps]; // alignas(64) by its declaration
      std::memcpy(slots, bound.data(), bound.size() * sizeof(uint64_t));
      for (size_t j = 0; j < bound.size(); ++j)
        argv[j] = &slots[j];
      for (size_t j = 0; j < stage.args.size(); ++j) {
        const GdnArg &arg = stage.args[j];
        if (arg.kind == GdnArg::Tensor)
          slots[j] = ptrs[arg.index];
        else if (arg.kind == GdnArg::Workspace)
          slots[j] = ws + plan->wsOffsets[arg.index];
      }
      Status s = Status::success();
      for (size_t k = 0; k < decls.size() && s.ok(); ++k) {
        s = encodeTensorMapAt(rt.driver, *stage.manifest, decls[k],
                              plan->stageMaps[i][k],
                              slots[decls[k].baseIndex], maps[k]);
        argv[decls[k].paramIndex] = &maps[k];
      }
      if (s.ok())
        s = launchKernel(rt.driver, plan->kernels[i], stage.grid, argv,
                         cuStream);
      if (!s.ok())
        result = fromStatus(
            Status(s.code(), "gdn_run: stage '" + stage.name + "' (" +
                                 stage.manifest->kernel + "): " + s.message()),
            GDN_ERROR_LIMIT);
      continue;
    }
    // Slow path (more parameters or maps than the fast path holds).
    std::vector<CUdeviceptr> wsPtrs(plan->wsOffsets.size());
    for (size_t w = 0; w < wsPtrs.size(); ++w)
      wsPtrs[w] = ws + plan->wsOffsets[w];
    KernelArgs args(*stage.manifest);
    Status s = bindGdnStage(rt.driver, stage, plan->scalars,
                            plan->problem.scale, plan->problem.cpTheta, ptrs,
                            wsPtrs, args);
    if (s.ok())
      s = launchKernel(rt.driver, plan->kernels[i], stage.grid, args.data(),
                       cuStream);
    if (!s.ok())
      result = fromStatus(Status(s.code(), "gdn_run: stage '" + stage.name +
                                               "' (" + stage.manifest->kernel +
                                               "): " + s.message()),
                          GDN_ERROR_LIMIT);
  }
  return result;
}

/// gdn_run's replay (see the file comment): true when the call was served
/// from the plan's replay cache (`result` says how the graph launch went),
/// false when the caller must launch the kernels.
bool tryReplay(const gdn_plan &plan, const GdnTensorPointers &ptrs,
               CUdeviceptr ws, CUstream stream, gdn_status &result) {
  const CudaDriver &d = plan.runtime->driver;
  CUstreamCaptureStatus capture = CU_STREAM_CAPTURE_STATUS_NONE;
  if (d.cuStreamIsCapturing(stream, &capture) != CUDA_SUCCESS ||
      capture != CU_STREAM_CAPTURE_STATUS_NONE)
    return false; // the caller's capture records the kernels themselves
  std::unique_lock<std::mutex> lock(plan.replayMutex, std::try_to_lock);
  if (!lock.owns_lock())
    return false;
  ReplayKey key{ptrs, ws, stream};
  uint64_t now = ++plan.replayClock;
  auto it = std::find_if(plan.replay.begin(), plan.replay.end(),
                         [&](const ReplayEntry &e) { return e.key == key; });
  if (it == plan.replay.end()) {
    // First sight: remember it (evicting the least recently used) and let
    // the caller launch. An evicted graph still in flight is freed by the
    // driver when it completes.
    if (plan.replay.size() == kReplayEntries) {
      auto lru = std::min_element(plan.replay.begin(), plan.replay.end(),
                                  [](const ReplayEntry &x,
                                     const ReplayEntry &y) {
                                    return x.lastUse < y.lastUse;
                                  });
      if (lru->exec)
        (void)d.cuGraphExecDestroy(lru->exec);
      plan.replay.erase(lru);
    }
    ReplayEntry e;
    e.key = key;
    e.lastUse = now;
    plan.replay.push_back(e);
    return false;
  }
  ReplayEntry &e = *it;
  e.lastUse = now;
  if (e.failed)
    return false;
  if (!e.exec) {
    // Second sight: capture the launches on the plan's own stream.
    e.failed = true; // until the graph exists
    if (!plan.captureStream &&
        d.cuStreamCreate(&plan.captureStream, CU_STREAM_NON_BLOCKING) !=
            CUDA_SUCCESS) {
      plan.captureStream = nullptr;
      return false;
    }
    if (d.cuStreamBeginCapture(plan.captureStream,
                               CU_STREAM_CAPTURE_MODE_THREAD_LOCAL) !=
        CUDA_SUCCESS)
      return false;
    std::string lastError = tlsLastError;
    gdn_status st = enqueueStages(plan, ptrs, ws, plan.captureStream);
    tlsLastError = lastError; // a failed capture is not the caller's error
    CUgraph graph = nullptr;
    CUresult ended = d.cuStreamEndCapture(plan.captureStream, &graph);
    if (st != GDN_SUCCESS || ended != CUDA_SUCCESS || !graph) {
      if (graph)
        (void)d.cuGraphDestroy(graph);
      return false;
    }
    CUresult made = d.cuGraphInstantiateWithFlags(&e.exec, graph, 0);
    (void)d.cuGraphDestroy(graph);
    if (made != CUDA_SUCCESS) {
      e.exec = nullptr;
      return false;
    }
    e.failed = false;
  }
  CUresult r = d.cuGraphLaunch(e.exec, stream);
  result = r == CUDA_SUCCESS
               ? GDN_SUCCESS
               : fail(GDN_ERROR_CUDA,
                      "gdn_run: cuGraphLaunch of the plan's replay failed: " +
                          d.describe(r));
  return true;
}

} // namespace

extern "C" {

int gdn_runtime_version(void) { return GDN_RUNTIME_VERSION; }

const char *gdn_status_name(gdn_status status) {
  switch (status) {
#define GDN_NAME(x)                                                            \
  case x:                                                                      \
    return #x;
    GDN_NAME(GDN_SUCCESS)
    GDN_NAME(GDN_ERROR_INVALID_ARGUMENT)
    GDN_NAME(GDN_ERROR_SHAPE)
    GDN_NAME(GDN_ERROR_DTYPE)
    GDN_NAME(GDN_ERROR_LAYOUT)
    GDN_NAME(GDN_ERROR_ALIGNMENT)
    GDN_NAME(GDN_ERROR_HOST_POINTER)
    GDN_NAME(GDN_ERROR_DEVICE_MISMATCH)
    GDN_NAME(GDN_ERROR_MISSING_TENSOR)
    GDN_NAME(GDN_ERROR_WORKSPACE)
    GDN_NAME(GDN_ERROR_LIMIT)
    GDN_NAME(GDN_ERROR_NO_DEVICE)
    GDN_NAME(GDN_ERROR_UNSUPPORTED_DEVICE)
    GDN_NAME(GDN_ERROR_KERNELS)
    GDN_NAME(GDN_ERROR_CUDA)
    GDN_NAME(GDN_ERROR_INTERNAL)
#undef GDN_NAME
  }
  return "GDN_ERROR_UNKNOWN";
}

const char *gdn_last_error(void) { return tlsLastError.c_str(); }

void gdn_problem_init(gdn_problem *p) {
  if (!p)
    return;
  std::memset(p, 0, sizeof *p);
  p->struct_size = sizeof *p;
  p->B = 1;
  p->head_dim_k = p->head_dim_v = kGdnHeadDim;
  p->dtype = GDN_DTYPE_F16;
  p->layout = GDN_LAYOUT_BTHD;
  p->path = GDN_PATH_AUTO;
}

gdn_status gdn_runtime_create(int device, const char *kernelDir,
                              gdn_runtime **out) {
  if (!out)
    return fail(GDN_ERROR_INVALID_ARGUMENT,
                "gdn_runtime_create: out is null");
  *out = nullptr;
  auto rt = std::make_unique<gdn_runtime>();
  rt->ordinal = device;
  std::string dir = kernelDir ? kernelDir : "";
  if (dir.empty())
    if (const char *env = std::getenv("GDN_KERNEL_DIR"))
      dir = env;
  if (device == GDN_DEVICE_NONE) {
    // Planning only: an H200's properties, no driver.
    rt->ccMajor = 9;
    rt->ccMinor = 0;
    rt->smCount = static_cast<int>(kGdnDefaultSmCount);
    rt->maxSharedOptin = 232448;
    rt->memoryClockKHz = static_cast<int>(kGdnDefaultMemoryClockKHz);
    rt->memoryBusBits = static_cast<int>(kGdnDefaultMemoryBusBits);
    rt->deviceName = "none (planning only)";
    gdn_status st = dir.empty() ? loadBundle(*rt) : loadDirectory(*rt, dir);
    if (st != GDN_SUCCESS)
      return st;
    *out = rt.release();
    return GDN_SUCCESS;
  }
  GDN_C_TRY(rt->driver.load(), GDN_ERROR_NO_DEVICE);
  CudaDriver &d = rt->driver;
  CUresult r = d.cuInit(0);
  if (r != CUDA_SUCCESS)
    return fail(GDN_ERROR_NO_DEVICE, "cuInit failed: " + d.describe(r));
  int count = 0;
  r = d.cuDeviceGetCount(&count);
  if (r != CUDA_SUCCESS || count == 0)
    return fail(GDN_ERROR_NO_DEVICE,
                r != CUDA_SUCCESS
                    ? "cuDeviceGetCount failed: " + d.describe(r)
                    : std::string("the driver reports no devices"));
  if (device < 0 || device >= count)
    return fail(GDN_ERROR_NO_DEVICE,
                "gdn_runtime_create: device " + std::to_string(device) +
                    " does not exist (" + std::to_string(count) + " device" +
                    (count == 1 ? "" : "s") + ")");
  GDN_C_TRY(GDN_CU(d, cuDeviceGet, &rt->device, device), GDN_ERROR_CUDA);
  char name[256] = {};
  GDN_C_TRY(GDN_CU(d, cuDeviceGetName, name, 255, rt->device),
            GDN_ERROR_CUDA);
  rt->deviceName = name;
  struct {
    CUdevice_attribute attr;
    int *out;
  } attrs[] = {
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, &rt->ccMajor},
      {CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, &rt->ccMinor},
      {CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, &rt->smCount},
      {CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
       &rt->maxSharedOptin},
      {CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, &rt->memoryClockKHz},
      {CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, &rt->memoryBusBits},
  };
  for (auto &a : attrs)
    GDN_C_TRY(GDN_CU(d, cuDeviceGetAttribute, a.out, a.attr, rt->device),
              GDN_ERROR_CUDA);
  gdn_status st = dir.empty() ? loadBundle(*rt) : loadDirectory(*rt, dir);
  if (st != GDN_SUCCESS)
    return st;
  if (const char *env = std::getenv("GDN_NO_REPLAY"))
    rt->replay = std::strcmp(env, "0") == 0 || env[0] == '\0';
  GDN_C_TRY(GDN_CU(d, cuDevicePrimaryCtxRetain, &rt->context, rt->device),
            GDN_ERROR_CUDA);
  *out = rt.release();
  return GDN_SUCCESS;
}

void gdn_runtime_destroy(gdn_runtime *runtime) { delete runtime; }

gdn_status gdn_runtime_device(const gdn_runtime *rt, int *smCount,
                              int *ccMajor, int *ccMinor) {
  if (!rt)
    return fail(GDN_ERROR_INVALID_ARGUMENT, "gdn_runtime_device: null runtime");
  if (smCount)
    *smCount = rt->smCount;
  if (ccMajor)
    *ccMajor = rt->ccMajor;
  if (ccMinor)
    *ccMinor = rt->ccMinor;
  return GDN_SUCCESS;
}

gdn_status gdn_plan_get(gdn_runtime *rt, const gdn_problem *problem,
                        const gdn_plan **out) {
  if (!rt || !problem || !out)
    return fail(GDN_ERROR_INVALID_ARGUMENT,
                "gdn_plan_get: runtime, problem and out must not be null");
  *out = nullptr;
  if (problem->struct_size != sizeof(gdn_problem))
    return fail(GDN_ERROR_INVALID_ARGUMENT,
                "gdn_plan_get: problem.struct_size is " +
                    std::to_string(problem->struct_size) + ", expected " +
                    std::to_string(sizeof(gdn_problem)) +
                    " (call gdn_problem_init first)");
  std::string key = planKey(*problem);
  std::lock_guard<std::mutex> lock(rt->mutex);
  auto it = rt->plans.find(key);
  if (it != rt->plans.end()) {
    *out = it->second.get();
    return GDN_SUCCESS;
  }
  std::unique_ptr<gdn_plan> plan;
  gdn_status st = makePlan(*rt, *problem, plan);
  if (st != GDN_SUCCESS)
    return st;
  *out = plan.get();
  rt->plans.emplace(std::move(key), std::move(plan));
  return GDN_SUCCESS;
}

size_t gdn_plan_workspace_bytes(const gdn_plan *plan) {
  return plan ? plan->wsBytes : 0;
}

gdn_status gdn_plan_get_info(const gdn_plan *plan, gdn_plan_info *out) {
  if (!plan || !out)
    return fail(GDN_ERROR_INVALID_ARGUMENT,
                "gdn_plan_get_info: plan and out must not be null");
  out->workspace_bytes = plan->wsBytes;
  out->num_sequences = plan->problem.numSequences();
  out->g_dtype = toCDtype(plan->sequence.gType);
  out->beta_dtype = toCDtype(plan->sequence.betaType);
  out->num_kernels = static_cast<int>(plan->sequence.stages.size());
  out->description = plan->description.c_str();
  return GDN_SUCCESS;
}

gdn_status gdn_run(const gdn_plan *plan, const gdn_tensors *tensors,
                   void *workspace, size_t workspaceBytes, gdn_stream stream,
                   unsigned flags) {
  if (!plan || !tensors)
    return fail(GDN_ERROR_INVALID_ARGUMENT,
                "gdn_run: plan and tensors must not be null");
  if (flags & ~unsigned(GDN_RUN_ALLOCATE_WORKSPACE | GDN_RUN_TRUSTED_POINTERS |
                        GDN_RUN_NO_REPLAY))
    return fail(GDN_ERROR_INVALID_ARGUMENT,
                "gdn_run: unknown flags " + std::to_string(flags));
  const gdn_runtime &rt = *plan->runtime;
  const GdnSequence &seq = plan->sequence;
  // Planning-only runtimes check what needs no device, then refuse.
  const bool query = !(flags & GDN_RUN_TRUSTED_POINTERS) && rt.context;
  GdnTensorPointers ptrs = plan->indexPointers;
  struct {
    GdnTensorId id;
    const void *ptr;
  } given[] = {
      {GdnTensorId::Q, tensors->q},        {GdnTensorId::K, tensors->k},
      {GdnTensorId::V, tensors->v},        {GdnTensorId::G, tensors->g},
      {GdnTensorId::Beta, tensors->beta},  {GdnTensorId::O, tensors->o},
      {GdnTensorId::Ht, tensors->final_state},
      {GdnTensorId::H0, plan->problem.hasH0 ? tensors->initial_state
                                            : nullptr},
      {GdnTensorId::ALog, tensors->A_log},
      {GdnTensorId::DtBias, tensors->dt_bias},
  };
  static const char *names[] = {"q",    "k", "v",           "g",
                                "beta", "o", "final_state", "initial_state",
                                "A_log", "dt_bias"};
  for (size_t i = 0; i < sizeof given / sizeof given[0]; ++i) {
    const auto &t = given[i];
    if (t.id == GdnTensorId::H0 && !plan->problem.hasH0) {
      ptrs[static_cast<int>(t.id)] = plan->dummyH0;
      continue;
    }
    // The gate's parameters are read only with use_gate_in_kernel.
    if ((t.id == GdnTensorId::ALog || t.id == GdnTensorId::DtBias) &&
        !plan->problem.gateInKernel) {
      ptrs[static_cast<int>(t.id)] = 0;
      continue;
    }
    if (!seq.uses(t.id) && t.ptr == nullptr)
      continue;
    gdn_status st = checkPointer(*plan, names[i], t.ptr, query);
    if (st != GDN_SUCCESS)
      return st;
    ptrs[static_cast<int>(t.id)] = reinterpret_cast<CUdeviceptr>(t.ptr);
  }
  CUstream cuStream = reinterpret_cast<CUstream>(stream);
  CUdeviceptr ws = reinterpret_cast<CUdeviceptr>(workspace);
  bool allocated = false;
  if (plan->wsBytes > 0 && workspace) {
    if (workspaceBytes < plan->wsBytes)
      return fail(GDN_ERROR_WORKSPACE,
                  "gdn_run: workspace of " + std::to_string(workspaceBytes) +
                      " bytes, the plan needs " +
                      std::to_string(plan->wsBytes));
    if (ws % kGdnWorkspaceAlign)
      return fail(GDN_ERROR_ALIGNMENT,
                  "gdn_run: workspace at " + std::to_string(ws) + " is not " +
                      std::to_string(kGdnWorkspaceAlign) + "-byte aligned");
  }
  if (plan->wsBytes > 0 && !workspace &&
      !(flags & GDN_RUN_ALLOCATE_WORKSPACE))
    return fail(GDN_ERROR_WORKSPACE,
                "gdn_run: the plan needs a workspace of " +
                    std::to_string(plan->wsBytes) +
                    " bytes (gdn_plan_workspace_bytes), got none");
  if (!rt.context)
    return fail(GDN_ERROR_NO_DEVICE,
                "gdn_run: the runtime was created with GDN_DEVICE_NONE "
                "(planning only)");
  ContextScope scope(rt);
  if (scope.result() != CUDA_SUCCESS)
    return fail(GDN_ERROR_CUDA, "gdn_run: cuCtxPushCurrent failed: " +
                                    rt.driver.describe(scope.result()));
  if (plan->wsBytes > 0) {
    if (!workspace) {
      CUresult r = rt.driver.cuMemAllocAsync(&ws, plan->wsBytes, cuStream);
      if (r != CUDA_SUCCESS)
        return fail(GDN_ERROR_CUDA, "gdn_run: cuMemAllocAsync of the " +
                                        std::to_string(plan->wsBytes) +
                                        "-byte workspace failed: " +
                                        rt.driver.describe(r));
      allocated = true;
    } else {
      if (query) {
        gdn_status st = checkPointer(*plan, "workspace", workspace, true);
        if (st != GDN_SUCCESS)
          return st;
      }
    }
  }
  gdn_status result = GDN_SUCCESS;
  if (!allocated && rt.replay && !(flags & GDN_RUN_NO_REPLAY) &&
      tryReplay(*plan, ptrs, ws, cuStream, result))
    return result;
  result = enqueueStages(*plan, ptrs, ws, cuStream);
  if (allocated)
    (void)rt.driver.cuMemFreeAsync(ws, cuStream);
  return result;
}

} // extern "C"
