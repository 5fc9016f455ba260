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
// meta.persistent = 1: the kernel loops over the tiles itself; the grid is
// (min(tiles, SMs * meta.blocks_per_sm), 1, 1) with tiles = ceil(M/block_m)
// * ceil(N/block_n) and meta.blocks_per_sm defaulting to 1 (rounded down to
// a multiple of cluster.x, at least cluster.x; cluster.y = cluster.z = 1).
//
// Tensor maps (`param = X:tensormap`, Manifest.h) may appear anywhere in
// the parameter list; their expressions use M, N and K (TensorMaps.h).
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_GEMMDRIVER_H
#define GDN_TOOLS_GDN_RUN_GEMMDRIVER_H

#include "GemmReference.h"
#include "Operator.h"

#include <memory>

namespace gdn::run {

class KernelArgs;

/// The GEMM operator driver.
class GemmDriver : public OperatorDriver {
public:
  Status prepare(const Manifest &manifest, const RunOptions &options) override;
  std::string shape() const override;
  void run(CudaSession &session, const Kernel &kernel,
           CheckResult &result) override;

  /// Valid after prepare(); exposed for tests. For a persistent kernel the
  /// grid is the one for kDefaultSmCount SMs until run() knows the device.
  const GemmProblem &problem() const { return problem_; }
  DType inputType() const { return inputType_; }
  Dim3 grid() const { return grid_; }
  bool persistent() const { return persistent_; }
  int64_t tiles() const { return tiles_; }

  /// The grid of a persistent kernel: (min(tiles, smCount * blocksPerSm),
  /// 1, 1), rounded down to a multiple of clusterX (at least clusterX).
  static Dim3 persistentGrid(int64_t tiles, int64_t smCount,
                             int64_t blocksPerSm, unsigned clusterX);

  /// SM count assumed by prepare() for persistent grids (an H100/H200).
  static constexpr int64_t kDefaultSmCount = 132;

  /// Default problem size per dimension when --m/--n/--k are not given.
  static constexpr int64_t kDefaultSize = 4096;
  /// Entries compared by --check sample.
  static constexpr size_t kSampleCount = 4096;

private:
  /// Binds M, N, K (i32 or i64 as declared).
  void bindScalars(KernelArgs &args) const;
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
  bool persistent_ = false;
  int64_t blocksPerSm_ = 1;
  int64_t tiles_ = 0;
  Dim3 grid_;
};

/// Factory for the operator registry.
std::unique_ptr<OperatorDriver> createGemmDriver();

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_GEMMDRIVER_H
