//===- TrilInverseDriver.h - the triangular-inverse operator check -*- C++ -*-===//
//
// meta.op = tril_inverse: a hardware check of the compiler's blocked exact
// inverse (tile.tril_inverse and the phases tile-expand-tril-inverse makes
// of it: the diagonal blocks, the doubling merges, the levels, the packed
// form) at sizes and forms the GDN kernels do not use. The kernel takes
// exactly (L, T, count): L and T are `count` row-major n x n f32 matrices
// (n = meta.n), one block per matrix (grid = (count, 1, 1)); it writes T =
// (I + strict_lower(L))^-1, lower triangular with a unit diagonal and exact
// zeros above it, reading nothing of L on or above its diagonal.
//
// The check: L's strict lower part is beta_i <k_i, k_j> of random unit keys
// k_i in R^128 and beta_i in [0.1, 1) (the GDN prep's L0); its diagonal
// holds 3.0 and its upper part NaN, which the kernel must ignore. T is
// poisoned with NaN before the launch, compared with the fp64 forward
// substitution (relative L2 over all matrices, default --rtol 1e-5: the
// split-tf32 products are fp32-accurate), and every element above the
// diagonal must be exactly zero.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_TRILINVERSEDRIVER_H
#define GDN_TOOLS_GDN_RUN_TRILINVERSEDRIVER_H

#include "Operator.h"

#include <memory>
#include <vector>

namespace gdn::run {

/// The tril_inverse operator driver.
class TrilInverseDriver : public OperatorDriver {
public:
  Status prepare(const Manifest &manifest, const RunOptions &options) override;
  std::string shape() const override;
  void run(CudaSession &session, const Kernel &kernel,
           CheckResult &result) override;

  /// Valid after prepare(); exposed for tests.
  int64_t n() const { return n_; }
  int64_t count() const { return count_; }
  double rtol() const { return rtol_; }

  /// Matrices per launch when --m is not given.
  static constexpr int64_t kDefaultCount = 1024;
  /// The default --rtol.
  static constexpr double kDefaultRtol = 1e-5;

  /// `count` inputs of size n (seeded), as described above.
  static std::vector<float> makeInputs(int64_t n, int64_t count,
                                       uint64_t seed);
  /// (I + strict_lower(L))^-1 of each n x n matrix of `l`, in fp64.
  static std::vector<double> reference(const std::vector<float> &l, int64_t n,
                                       int64_t count);

private:
  Status runChecked(CudaSession &session, const Kernel &kernel,
                    CheckResult &result);

  const Manifest *manifest_ = nullptr;
  const RunOptions *options_ = nullptr;
  int64_t n_ = 0, count_ = 0;
  double rtol_ = kDefaultRtol;
};

/// Factory for the operator registry.
std::unique_ptr<OperatorDriver> createTrilInverseDriver();

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_TRILINVERSEDRIVER_H
