//===- GemmReference.h - fp64 CPU reference GEMM ----------------*- C++ -*-===//
//
// The oracle of the GEMM operator check: C = A·B accumulated in fp64 from the
// f16/bf16-rounded inputs the device also sees, so the only error left in the
// comparison is the kernel's own (its fp32 accumulation order).
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_GEMMREFERENCE_H
#define GDN_TOOLS_GDN_RUN_GEMMREFERENCE_H

#include "Manifest.h"

#include <cstdint>
#include <vector>

namespace gdn::run {

/// Shape and storage of a GEMM: A is [M,K] row-major, or [K,M] when
/// `transposeA`; B is [K,N] row-major, or [N,K] when `transposeB`; C is
/// [M,N] row-major.
struct GemmProblem {
  int64_t m = 0, n = 0, k = 0;
  bool transposeA = false, transposeB = false;
};

/// Logical element A(i,k) of the stored A.
inline int64_t gemmIndexA(const GemmProblem &p, int64_t i, int64_t kk) {
  return p.transposeA ? kk * p.m + i : i * p.k + kk;
}
/// Logical element B(k,j) of the stored B.
inline int64_t gemmIndexB(const GemmProblem &p, int64_t kk, int64_t j) {
  return p.transposeB ? j * p.k + kk : kk * p.n + j;
}

/// Full reference: returns C as M*N doubles, row-major. `a` and `b` hold
/// 16-bit patterns of `type` (F16 or BF16). Packs A and B into fp64 panels
/// and runs a register-blocked kernel over (rows x columns) tiles on
/// `threads` threads (0: all hardware threads).
std::vector<double> referenceGemm(const GemmProblem &p, DType type,
                                  const uint16_t *a, const uint16_t *b,
                                  unsigned threads = 0);

/// One reference entry C(i,j), for sampled checks.
double referenceGemmEntry(const GemmProblem &p, DType type, const uint16_t *a,
                          const uint16_t *b, int64_t i, int64_t j);

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_GEMMREFERENCE_H
