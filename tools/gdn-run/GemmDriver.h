//===- GemmDriver.h - the GEMM operator check -------------------*- C++ -*-===//
//
// meta.op = gemm: the kernel computes C[M,N] (f32, row-major) = A·B with
// A [M,K] row-major ([K,M] when meta.transpose_a = 1) and B [K,N] row-major
// ([N,K] when meta.transpose_b = 1), A and B both f16 or both bf16. Its
// parameters are exactly (A, B, C, M, N, K); M, N, K are i32 or i64. One CTA
// computes a meta.block_m x meta.block_n tile: grid = (ceil(N/block_n),
// ceil(M/block_m), 1). meta.requires_divisible = 1 restricts shapes to
// multiples of the block sizes (meta.block_k included).
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_GEMMDRIVER_H
#define GDN_TOOLS_GDN_RUN_GEMMDRIVER_H

#include "GemmReference.h"
#include "Operator.h"

#include <memory>

namespace gdn::run {

/// The GEMM operator driver.
class GemmDriver : public OperatorDriver {
public:
  Status prepare(const Manifest &manifest, const RunOptions &options) override;
  std::string shape() const override;
  void run(CudaSession &session, const Kernel &kernel,
           CheckResult &result) override;

  /// Valid after prepare(); exposed for tests.
  const GemmProblem &problem() const { return problem_; }
  DType inputType() const { return inputType_; }
  Dim3 grid() const { return grid_; }

  /// Default problem size per dimension when --m/--n/--k are not given.
  static constexpr int64_t kDefaultSize = 4096;
  /// Entries compared by --check sample.
  static constexpr size_t kSampleCount = 4096;

private:
  Status runChecked(CudaSession &session, const Kernel &kernel,
                    CheckResult &result);
  void compare(const std::vector<uint16_t> &a, const std::vector<uint16_t> &b,
               const std::vector<float> &c, bool verbose,
               CheckResult &result) const;

  const Manifest *manifest_ = nullptr;
  const RunOptions *options_ = nullptr;
  GemmProblem problem_;
  DType inputType_ = DType::F16;
  bool sizes64_ = false; ///< M, N, K are i64 parameters
  int64_t blockM_ = 0, blockN_ = 0, blockK_ = 0;
  Dim3 grid_;
};

/// Factory for the operator registry.
std::unique_ptr<OperatorDriver> createGemmDriver();

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_GEMMDRIVER_H
