//===- TrilInverseDriver.cpp - the triangular-inverse operator check ------===//
//
// See TrilInverseDriver.h.
//
//===----------------------------------------------------------------------===//

#include "TrilInverseDriver.h"

#include "TensorMaps.h"

#include <cmath>
#include <cstdio>
#include <limits>

namespace gdn::run {

std::unique_ptr<OperatorDriver> createTrilInverseDriver() {
  return std::make_unique<TrilInverseDriver>();
}

namespace {
/// Key dimension of the generated L (the GDN head size).
constexpr int64_t kKeyDim = 128;
} // namespace

Status TrilInverseDriver::prepare(const Manifest &manifest,
                                  const RunOptions &options) {
  manifest_ = &manifest;
  options_ = &options;
  GDN_RUN_TRY(checkParamNames(manifest, {"L", "T", "count"}));
  auto typeError = [&](const char *name, const std::string &expected) {
    const Param &p = *manifest.findParam(name);
    return Status::badInput(manifest.location(p.line) +
                            ": error: tril_inverse parameter " + p.name +
                            " must be " + expected + ", got " + p.type.str());
  };
  for (const char *name : {"L", "T"})
    if (manifest.findParam(name)->type != ParamType{true, DType::F32})
      return typeError(name, "ptr<f32>");
  if (manifest.findParam("count")->type != ParamType{false, DType::I32})
    return typeError("count", "i32");
  GDN_RUN_TRY(manifest.metaInt("n", n_, true, 0, 1, 256));
  if (options.check == CheckMode::Sample)
    return Status::badInput(manifest.path +
                            ": error: --check sample is for gemm; "
                            "tril_inverse compares every element (full) or "
                            "none");
  count_ = options.dim("m", kDefaultCount);
  if (count_ < 1 || count_ > INT32_MAX)
    return Status::badInput(manifest.path + ": error: --m (the number of " +
                            "matrices) " + std::to_string(count_) +
                            " is out of range [1, 2147483647]");
  const double elements = double(count_) * double(n_) * double(n_);
  if (elements > double(Manifest::kMaxElements32))
    return Status::badInput(manifest.path + ": error: " + shape() +
                            " has more than " +
                            std::to_string(Manifest::kMaxElements32) +
                            " elements per matrix buffer");
  // L and T (f32), the reference (f64).
  GDN_RUN_TRY(checkHostMemory(manifest.path + ": error: " + shape(),
                              elements * (4.0 + 4.0 + 8.0)));
  rtol_ = options.rtolSet ? options.rtol : kDefaultRtol;
  Dim3 grid;
  grid.x = static_cast<unsigned>(count_);
  return checkLaunchGrid(manifest, grid);
}

std::string TrilInverseDriver::shape() const {
  return std::to_string(count_) + "x" + std::to_string(n_) + "x" +
         std::to_string(n_);
}

std::vector<float> TrilInverseDriver::makeInputs(int64_t n, int64_t count,
                                                 uint64_t seed) {
  const size_t nn = static_cast<size_t>(n * n);
  std::vector<float> l(static_cast<size_t>(count) * nn);
  parallelFor(static_cast<size_t>(count), [&](size_t b) {
    SplitMix64 rng(deriveSeed(seed, b));
    std::vector<double> k(static_cast<size_t>(n * kKeyDim));
    std::vector<double> beta(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) {
      double norm = 0;
      for (int64_t d = 0; d < kKeyDim; ++d) {
        double x = rng.nextSymmetric();
        k[i * kKeyDim + d] = x;
        norm += x * x;
      }
      norm = std::sqrt(norm);
      for (int64_t d = 0; d < kKeyDim; ++d)
        k[i * kKeyDim + d] /= norm;
      beta[i] = 0.55 + 0.45 * rng.nextSymmetric(); // [0.1, 1)
    }
    float *m = l.data() + b * nn;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < n; ++j) {
        float v;
        if (j < i) {
          double dot = 0;
          for (int64_t d = 0; d < kKeyDim; ++d)
            dot += k[i * kKeyDim + d] * k[j * kKeyDim + d];
          v = static_cast<float>(beta[i] * dot);
        } else {
          v = j == i ? 3.0f : std::numeric_limits<float>::quiet_NaN();
        }
        m[i * n + j] = v;
      }
  });
  return l;
}

std::vector<double> TrilInverseDriver::reference(const std::vector<float> &l,
                                                 int64_t n, int64_t count) {
  const size_t nn = static_cast<size_t>(n * n);
  std::vector<double> t(static_cast<size_t>(count) * nn, 0.0);
  parallelFor(static_cast<size_t>(count), [&](size_t b) {
    const float *m = l.data() + b * nn;
    double *x = t.data() + b * nn;
    // Column j: x_jj = 1, x_ij = -sum_{j <= k < i} L_ik x_kj.
    for (int64_t j = 0; j < n; ++j) {
      x[j * n + j] = 1.0;
      for (int64_t i = j + 1; i < n; ++i) {
        double s = 0;
        for (int64_t k = j; k < i; ++k)
          s += double(m[i * n + k]) * x[k * n + j];
        x[i * n + j] = -s;
      }
    }
  });
  return t;
}

void TrilInverseDriver::run(CudaSession &session, const Kernel &kernel,
                            CheckResult &result) {
  result.shape = shape();
  result.mode = options_->check;
  // The forward substitution's multiply-adds, n^3 / 6 per matrix.
  result.flop = 2.0 * double(count_) * double(n_) * double(n_) * double(n_) /
                6.0;
  Status s = runChecked(session, kernel, result);
  if (!s.ok())
    result.status = s;
}

Status TrilInverseDriver::runChecked(CudaSession &session,
                                     const Kernel &kernel,
                                     CheckResult &result) {
  const RunOptions &opts = *options_;
  const Manifest &mf = *manifest_;
  const int64_t n = n_;
  const size_t total = static_cast<size_t>(count_ * n * n);
  std::vector<float> l = makeInputs(n, count_, opts.seed);

  DeviceBuffer dL, dT;
  GDN_RUN_TRY(dL.allocate(session, total * sizeof(float)));
  GDN_RUN_TRY(dT.allocate(session, total * sizeof(float)));
  GDN_RUN_TRY(dL.upload(l.data(), dL.bytes()));
  KernelArgs args(mf);
  auto index = [&](const char *name) {
    return static_cast<size_t>(mf.findParam(name) - mf.params.data());
  };
  args.setPointer(index("L"), dL.ptr());
  args.setPointer(index("T"), dT.ptr());
  args.setInt(index("count"), count_);
  GDN_RUN_TRY(args.bindTensorMaps(session.driver(), {}, session.verbose()));
  Dim3 grid;
  grid.x = static_cast<unsigned>(count_);
  auto launchOnce = [&]() { return session.launch(kernel, grid, args.data()); };
  const std::string what = "launching " + mf.kernel;

  std::vector<float> t;
  GDN_RUN_TRY(
      launchForCheck(session, opts, launchOnce, what, dT, total, t));
  GDN_RUN_TRY(timeKernel(session, opts, launchOnce, result));
  if (opts.check == CheckMode::None)
    return Status::success();

  std::vector<double> ref = reference(l, n, count_);
  ErrorStats stats;
  size_t firstNonFinite = SIZE_MAX, firstUpper = SIZE_MAX, worst = SIZE_MAX;
  double worstErr = -1;
  for (size_t e = 0; e < total; ++e) {
    const int64_t i = static_cast<int64_t>(e / n) % n,
                  j = static_cast<int64_t>(e % n);
    if (j > i && t[e] != 0.0f && firstUpper == SIZE_MAX)
      firstUpper = e;
    stats.add(t[e], ref[e]);
    if (!std::isfinite(t[e])) {
      if (firstNonFinite == SIZE_MAX)
        firstNonFinite = e;
    } else if (std::fabs(t[e] - ref[e]) > worstErr) {
      worstErr = std::fabs(t[e] - ref[e]);
      worst = e;
    }
  }
  result.compared = true;
  result.stats = stats;
  auto describe = [&](size_t e) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "T[%zu][%zu][%zu] = %g, expected %.9g",
                  e / static_cast<size_t>(n * n),
                  (e / static_cast<size_t>(n)) % static_cast<size_t>(n),
                  e % static_cast<size_t>(n), static_cast<double>(t[e]),
                  ref[e]);
    return std::string(buf);
  };
  char head[200];
  if (stats.nonFinite) {
    std::snprintf(head, sizeof head,
                  "%zu of %zu outputs are not finite (first: ",
                  stats.nonFinite, stats.count);
    result.status = Status(
        ExitCode::CheckFailed,
        head + describe(firstNonFinite) +
            "); T is filled with NaN before the launch and L holds NaN "
            "above its diagonal: unwritten elements or reads of L's upper "
            "part");
  } else if (firstUpper != SIZE_MAX) {
    result.status = Status(ExitCode::CheckFailed,
                           "an element above the diagonal is not zero: " +
                               describe(firstUpper));
  } else if (!stats.passes(rtol_)) {
    std::snprintf(head, sizeof head,
                  "rel_l2 %.3e exceeds --rtol %.3e (max |err| %.3e at ",
                  stats.relL2(), rtol_, stats.maxAbs);
    result.status =
        Status(ExitCode::CheckFailed, head + describe(worst) + ")");
  }
  return Status::success();
}

} // namespace gdn::run
