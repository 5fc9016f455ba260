//===- GemmDriver.cpp - the GEMM operator check ---------------------------===//
//
// One check: seeded random A and B (f16/bf16-rounded on the host, no zeros),
// a launch into a NaN-poisoned C so unwritten elements show up, a compare
// with the fp64 reference (all of C, or kSampleCount random entries), then
// warmup and timed launches.
//
//===----------------------------------------------------------------------===//

#include "GemmDriver.h"

#include "TensorMaps.h"

#include <chrono>
#include <algorithm>
#include <cstdint>
#include <cmath>
#include <cstdio>

namespace gdn::run {

std::unique_ptr<OperatorDriver> createGemmDriver() {
  return std::make_unique<GemmDriver>();
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static const Param *findParam(const Manifest &m, const std::string &name) {
  return m.findParam(name);
}

Dim3 GemmDriver::persistentGrid(int64_t tiles, int64_t smCount,
                                int64_t blocksPerSm, unsigned clusterX) {
  int64_t slots = 0;
  if (__builtin_mul_overflow(std::max<int64_t>(smCount, 1),
                             std::max<int64_t>(blocksPerSm, 1), &slots))
    slots = INT64_MAX;
  int64_t x = std::min(std::max<int64_t>(tiles, 1), slots);
  const int64_t c = std::max<unsigned>(clusterX, 1);
  x = std::max(c, x / c * c);
  Dim3 grid;
  grid.x = static_cast<unsigned>(std::min<int64_t>(x, INT32_MAX));
  return grid;
}

Status GemmDriver::prepare(const Manifest &manifest,
                           const RunOptions &options) {
  manifest_ = &manifest;
  options_ = &options;
  GDN_RUN_TRY(checkParamNames(manifest, {"A", "B", "C", "M", "N", "K"}));

  // Parameter types.
  auto typeError = [&](const Param &p, const std::string &expected) {
    return Status::badInput(manifest.location(p.line) +
                            ": error: gemm parameter " + p.name +
                            " must be " + expected + ", got " +
                            p.type.str());
  };
  const Param &a = *findParam(manifest, "A");
  const Param &b = *findParam(manifest, "B");
  const Param &c = *findParam(manifest, "C");
  if (!a.type.isPointer ||
      (a.type.elem != DType::F16 && a.type.elem != DType::BF16))
    return typeError(a, "ptr<f16> or ptr<bf16>");
  if (b.type != a.type)
    return typeError(b, a.type.str() + " (the type of A)");
  if (c.type != ParamType{true, DType::F32})
    return typeError(c, "ptr<f32>");
  inputType_ = a.type.elem;
  const Param &m = *findParam(manifest, "M");
  if (m.type != ParamType{false, DType::I32} &&
      m.type != ParamType{false, DType::I64})
    return typeError(m, "i32 or i64");
  for (const char *name : {"N", "K"}) {
    const Param &p = *findParam(manifest, name);
    if (p.type != m.type)
      return typeError(p, m.type.str() + " (the type of M)");
  }
  sizes64_ = m.type.elem == DType::I64;

  // Tile configuration.
  int64_t transposeA = 0, transposeB = 0, divisible = 0;
  GDN_RUN_TRY(manifest.metaInt("block_m", blockM_, true, 0, 1, 65536));
  GDN_RUN_TRY(manifest.metaInt("block_n", blockN_, true, 0, 1, 65536));
  GDN_RUN_TRY(manifest.metaInt("block_k", blockK_, true, 0, 1, 65536));
  GDN_RUN_TRY(manifest.metaInt("transpose_a", transposeA, false, 0, 0, 1));
  GDN_RUN_TRY(manifest.metaInt("transpose_b", transposeB, false, 0, 0, 1));
  GDN_RUN_TRY(
      manifest.metaInt("requires_divisible", divisible, false, 0, 0, 1));
  int64_t persistent = 0;
  GDN_RUN_TRY(manifest.metaInt("persistent", persistent, false, 0, 0, 1));
  persistent_ = persistent != 0;
  GDN_RUN_TRY(
      manifest.metaInt("blocks_per_sm", blocksPerSm_, false, 1, 1, 64));
  if (!persistent_ && manifest.findMeta("blocks_per_sm"))
    return Status::badInput(
        manifest.location(manifest.findMeta("blocks_per_sm")->line) +
        ": error: meta.blocks_per_sm applies only to meta.persistent = 1");
  if (persistent_ && (manifest.cluster[1] != 1 || manifest.cluster[2] != 1))
    return Status::badInput(
        manifest.location(manifest.findMeta("persistent")->line) +
        ": error: a persistent kernel has a 1-D grid: cluster must be N,1,1");

  // Shape.
  problem_.m = options.dim("m", kDefaultSize);
  problem_.n = options.dim("n", kDefaultSize);
  problem_.k = options.dim("k", kDefaultSize);
  problem_.transposeA = transposeA != 0;
  problem_.transposeB = transposeB != 0;
  const struct {
    const char *option;
    int64_t value;
    int64_t block;
    const char *blockKey;
  } dims[] = {{"--m", problem_.m, blockM_, "block_m"},
              {"--n", problem_.n, blockN_, "block_n"},
              {"--k", problem_.k, blockK_, "block_k"}};
  for (const auto &d : dims) {
    if (d.value <= 0 || d.value > INT32_MAX)
      return Status::badInput(
          manifest.path + ": error: bad GEMM shape: " + d.option + " " +
          std::to_string(d.value) + " is out of range [1, 2147483647]");
    if (divisible && d.value % d.block != 0)
      return Status::badInput(
          manifest.path + ": error: shape " + shape() +
          " is not supported by kernel " + manifest.kernel + ": " + d.option +
          " " + std::to_string(d.value) + " is not a multiple of meta." +
          d.blockKey + " = " + std::to_string(d.block) +
          " (meta.requires_divisible = 1)");
  }
  GDN_RUN_TRY(checkRequiredMultiples(
      manifest, {{"M", problem_.m}, {"N", problem_.n}, {"K", problem_.k}}));
  // M, N, K <= 2^31 - 1: the products below cannot overflow int64.
  if (manifest.indexBits == 32) {
    // Rounded up to whole tiles: the offsets of a masked tile's rows past
    // the end stay within the bound too.
    int64_t m = ceilDiv(problem_.m, blockM_) * blockM_;
    int64_t n = ceilDiv(problem_.n, blockN_) * blockN_;
    int64_t k = ceilDiv(problem_.k, blockK_) * blockK_;
    const struct {
      const char *name;
      int64_t elements;
    } buffers[] = {{"A", m * k}, {"B", k * n}, {"C", m * n}};
    for (const auto &buf : buffers)
      if (buf.elements > Manifest::kMaxElements32)
        return Status::badInput(
            manifest.path + ": error: shape " + shape() +
            " is not supported by kernel " + manifest.kernel + ": " +
            buf.name + " has " + std::to_string(buf.elements) +
            " elements, more than the " +
            std::to_string(Manifest::kMaxElements32) +
            " a kernel with index_bits = 32 may take");
  }
  tiles_ = ceilDiv(problem_.m, blockM_) * ceilDiv(problem_.n, blockN_);
  if (persistent_) {
    grid_ = persistentGrid(tiles_, kDefaultSmCount, blocksPerSm_,
                           manifest.cluster[0]);
  } else {
    grid_.x = static_cast<unsigned>(
        std::min<int64_t>(ceilDiv(problem_.n, blockN_), UINT32_MAX));
    grid_.y = static_cast<unsigned>(
        std::min<int64_t>(ceilDiv(problem_.m, blockM_), UINT32_MAX));
    grid_.z = 1;
  }
  GDN_RUN_TRY(checkLaunchGrid(manifest, grid_));
  // Host copies (inputs, output, fp64 reference) must fit in memory.
  const int64_t kMaxElements = int64_t(1) << 33;
  if (problem_.m * problem_.k > kMaxElements ||
      problem_.k * problem_.n > kMaxElements ||
      problem_.m * problem_.n > kMaxElements)
    return Status::badInput(manifest.path + ": error: GEMM shape " + shape() +
                            " is too large (an operand has more than 2^33 "
                            "elements)");
  const double mn = double(problem_.m) * double(problem_.n);
  const double hostBytes =
      2.0 * double(problem_.k) * (double(problem_.m) + double(problem_.n)) +
      4.0 * mn + (options.check == CheckMode::Full ? 8.0 * mn : 0.0);
  GDN_RUN_TRY(checkHostMemory(manifest.path + ": error: GEMM shape " +
                                  shape(),
                              hostBytes));
  // Tensor maps: their dims and strides over M, N, K, before any GPU work.
  KernelArgs args(manifest);
  bindScalars(args);
  return args.checkTensorMaps({});
}

void GemmDriver::bindScalars(KernelArgs &args) const {
  const Manifest &m = *manifest_;
  const struct {
    const char *name;
    int64_t value;
  } dims[] = {{"M", problem_.m}, {"N", problem_.n}, {"K", problem_.k}};
  for (const auto &d : dims)
    args.setInt(static_cast<size_t>(m.findParam(d.name) - m.params.data()),
                d.value);
}

std::string GemmDriver::shape() const {
  return std::to_string(problem_.m) + "x" + std::to_string(problem_.n) + "x" +
         std::to_string(problem_.k);
}

void GemmDriver::run(CudaSession &session, const Kernel &kernel,
                     CheckResult &result) {
  result.shape = shape();
  result.mode = options_->check;
  result.flop = 2.0 * static_cast<double>(problem_.m) *
                static_cast<double>(problem_.n) *
                static_cast<double>(problem_.k);
  Status s = runChecked(session, kernel, result);
  if (!s.ok())
    result.status = s;
}

namespace {
/// Seconds since `start`, for --verbose.
double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                       start)
      .count();
}
} // namespace

Status GemmDriver::runChecked(CudaSession &session, const Kernel &kernel,
                              CheckResult &result) {
  const GemmProblem &p = problem_;
  const RunOptions &opts = *options_;
  const size_t aCount = static_cast<size_t>(p.m * p.k);
  const size_t bCount = static_cast<size_t>(p.k * p.n);
  const size_t cCount = static_cast<size_t>(p.m * p.n);

  auto start = std::chrono::steady_clock::now();
  std::vector<uint16_t> a =
      randomTensor16(inputType_, aCount, deriveSeed(opts.seed, 0));
  std::vector<uint16_t> b =
      randomTensor16(inputType_, bCount, deriveSeed(opts.seed, 1));
  if (session.verbose())
    std::fprintf(stderr, "gdn-run: %s: inputs generated in %.2f s\n",
                 manifest_->kernel.c_str(), secondsSince(start));

  DeviceBuffer dA, dB, dC;
  GDN_RUN_TRY(dA.allocate(session, aCount * sizeof(uint16_t)));
  GDN_RUN_TRY(dB.allocate(session, bCount * sizeof(uint16_t)));
  GDN_RUN_TRY(dC.allocate(session, cCount * sizeof(float)));
  GDN_RUN_TRY(dA.upload(a.data(), dA.bytes()));
  GDN_RUN_TRY(dB.upload(b.data(), dB.bytes()));

  // Parameters by name (tensor maps may sit anywhere between them); then
  // the tensor maps from the bound pointers and M, N, K.
  const Manifest &mf = *manifest_;
  KernelArgs args(mf);
  auto index = [&](const char *name) {
    return static_cast<size_t>(mf.findParam(name) - mf.params.data());
  };
  args.setPointer(index("A"), dA.ptr());
  args.setPointer(index("B"), dB.ptr());
  args.setPointer(index("C"), dC.ptr());
  bindScalars(args);
  GDN_RUN_TRY(args.bindTensorMaps(session.driver(), {}, session.verbose()));
  if (persistent_)
    grid_ = persistentGrid(tiles_, session.device().smCount, blocksPerSm_,
                           mf.cluster[0]);
  GDN_RUN_TRY(checkLaunchGrid(mf, grid_));
  if (session.verbose()) {
    std::string how =
        persistent_ ? " (persistent: " + std::to_string(tiles_) + " tiles, " +
                          std::to_string(session.device().smCount) +
                          " SMs x " + std::to_string(blocksPerSm_) +
                          " block" + (blocksPerSm_ == 1 ? "" : "s") +
                          " per SM)"
                    : "";
    std::fprintf(stderr, "gdn-run: %s: grid %ux%ux%u%s\n", mf.kernel.c_str(),
                 grid_.x, grid_.y, grid_.z, how.c_str());
  }
  auto launchOnce = [&]() {
    return session.launch(kernel, grid_, args.data());
  };
  const std::string what = "launching " + manifest_->kernel;

  std::vector<float> c;
  GDN_RUN_TRY(
      launchForCheck(session, opts, launchOnce, what, dC, cCount, c));

  GDN_RUN_TRY(timeKernel(session, opts, launchOnce, result));

  if (opts.check != CheckMode::None)
    compare(a, b, c, session.verbose(), result);
  return Status::success();
}

void GemmDriver::compare(const std::vector<uint16_t> &a,
                         const std::vector<uint16_t> &b,
                         const std::vector<float> &c, bool verbose,
                         CheckResult &result) const {
  const GemmProblem &p = problem_;
  const RunOptions &opts = *options_;
  const size_t cCount = static_cast<size_t>(p.m * p.n);
  auto start = std::chrono::steady_clock::now();

  // Compared entry s is C[flat(s)] against ref[s].
  std::vector<size_t> sampled; // empty: all of C, flat(s) = s
  std::vector<double> ref;
  if (opts.check == CheckMode::Full || cCount <= kSampleCount) {
    ref = referenceGemm(p, inputType_, a.data(), b.data());
  } else {
    SplitMix64 rng(deriveSeed(opts.seed, 2));
    sampled.resize(kSampleCount);
    for (size_t &i : sampled)
      i = static_cast<size_t>(rng.nextBelow(cCount));
    ref.resize(kSampleCount);
    parallelFor(kSampleCount, [&](size_t s) {
      int64_t i = static_cast<int64_t>(sampled[s]) / p.n;
      int64_t j = static_cast<int64_t>(sampled[s]) % p.n;
      ref[s] = referenceGemmEntry(p, inputType_, a.data(), b.data(), i, j);
    });
  }
  if (verbose)
    std::fprintf(stderr,
                 "gdn-run: %s: fp64 reference (%zu entries) on %u threads "
                 "in %.2f s\n",
                 manifest_->kernel.c_str(), ref.size(), defaultThreadCount(),
                 secondsSince(start));
  auto flat = [&](size_t s) { return sampled.empty() ? s : sampled[s]; };

  ErrorStats stats;
  size_t firstNonFinite = SIZE_MAX, worst = SIZE_MAX;
  double worstErr = -1;
  for (size_t s = 0; s < ref.size(); ++s) {
    double got = c[flat(s)];
    stats.add(got, ref[s]);
    if (!std::isfinite(got)) {
      if (firstNonFinite == SIZE_MAX)
        firstNonFinite = s;
    } else if (std::fabs(got - ref[s]) > worstErr) {
      worstErr = std::fabs(got - ref[s]);
      worst = s;
    }
  }
  result.compared = true;
  result.stats = stats;
  if (stats.passes(opts.rtol))
    return;

  auto describe = [&](size_t s) {
    size_t idx = flat(s), n = static_cast<size_t>(p.n);
    char buf[160];
    std::snprintf(buf, sizeof buf, "C[%zu,%zu] = %g, expected %.6g", idx / n,
                  idx % n, static_cast<double>(c[idx]), ref[s]);
    return std::string(buf);
  };
  char head[200];
  std::string msg;
  if (stats.nonFinite) {
    std::snprintf(head, sizeof head,
                  "%zu of %zu compared outputs are not finite (first: ",
                  stats.nonFinite, stats.count);
    msg = head + describe(firstNonFinite) +
          "); C is filled with NaN before the launch, so these may be "
          "elements the kernel never wrote";
  } else {
    std::snprintf(head, sizeof head,
                  "rel_l2 %.3e exceeds --rtol %.3e (max |err| %.3e at ",
                  stats.relL2(), opts.rtol, stats.maxAbs);
    msg = head + describe(worst) + ")";
  }
  result.status = Status(ExitCode::CheckFailed, msg);
}

} // namespace gdn::run
