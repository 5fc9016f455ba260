//===- GemmReference.cpp - fp64 CPU reference GEMM ------------------------===//
//
// A small Goto-style GEMM in fp64. A is packed into panels of kMr rows stored
// k-major ([panel][k][kMr]), B into panels of kNr columns ([panel][k][kNr]),
// zero-padded to whole panels, so the micro-kernel streams both operands
// contiguously and keeps a kMr x kNr accumulator block in registers. Threads
// take (kMc x kNc) tiles of C; within a tile, K is walked in kKc chunks so
// that one B panel chunk (kKc*kNr doubles) stays in L1 while the tile's A
// chunks (kMc*kKc doubles) stay in L2. The micro-kernel is compiled twice on
// x86-64 (AVX2+FMA and baseline) and picked at load time.
//
//===----------------------------------------------------------------------===//

#include "GemmReference.h"

#include "HostTensor.h"

#include <algorithm>
#include <cstring>

namespace gdn::run {

namespace {

constexpr int64_t kMr = 4;   // micro-tile rows
constexpr int64_t kNr = 8;   // micro-tile columns
constexpr int64_t kMc = 64;  // tile rows per task (multiple of kMr)
constexpr int64_t kNc = 256; // tile columns per task (multiple of kNr)
constexpr int64_t kKc = 256; // K chunk

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

} // namespace

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GDN_GEMM_CLONES __attribute__((target_clones("arch=haswell", "default")))
#else
#define GDN_GEMM_CLONES
#endif

/// c[r*ldc + j] += sum_k ap[k*kMr + r] * bp[k*kNr + j] for a kMr x kNr block.
GDN_GEMM_CLONES
void gdnRunGemmMicroKernel(const double *ap, const double *bp, int64_t kc,
                           double *c, int64_t ldc) {
  double acc[kMr][kNr] = {};
  for (int64_t kk = 0; kk < kc; ++kk) {
    const double *a = ap + kk * kMr;
    const double *b = bp + kk * kNr;
    for (int64_t r = 0; r < kMr; ++r)
      for (int64_t j = 0; j < kNr; ++j)
        acc[r][j] += a[r] * b[j];
  }
  for (int64_t r = 0; r < kMr; ++r)
    for (int64_t j = 0; j < kNr; ++j)
      c[r * ldc + j] += acc[r][j];
}

std::vector<double> referenceGemm(const GemmProblem &p, DType type,
                                  const uint16_t *a, const uint16_t *b,
                                  unsigned threads) {
  const double *lut = decodeTable16(type);
  const int64_t m = p.m, n = p.n, k = p.k;
  const int64_t mPanels = ceilDiv(m, kMr), nPanels = ceilDiv(n, kNr);

  // Pack A: panel ip, element (k, r) = A(ip*kMr + r, k).
  std::vector<double> ap(static_cast<size_t>(mPanels * k * kMr));
  parallelFor(
      static_cast<size_t>(mPanels),
      [&](size_t ip) {
        double *dst = ap.data() + ip * k * kMr;
        for (int64_t r = 0; r < kMr; ++r) {
          int64_t i = static_cast<int64_t>(ip) * kMr + r;
          for (int64_t kk = 0; kk < k; ++kk)
            dst[kk * kMr + r] = i < m ? lut[a[gemmIndexA(p, i, kk)]] : 0.0;
        }
      },
      threads);
  // Pack B: panel jp, element (k, j) = B(k, jp*kNr + j).
  std::vector<double> bp(static_cast<size_t>(nPanels * k * kNr));
  parallelFor(
      static_cast<size_t>(nPanels),
      [&](size_t jp) {
        double *dst = bp.data() + jp * k * kNr;
        for (int64_t kk = 0; kk < k; ++kk)
          for (int64_t j = 0; j < kNr; ++j) {
            int64_t col = static_cast<int64_t>(jp) * kNr + j;
            dst[kk * kNr + j] = col < n ? lut[b[gemmIndexB(p, kk, col)]] : 0.0;
          }
      },
      threads);

  std::vector<double> c(static_cast<size_t>(m * n));
  const int64_t mTiles = ceilDiv(m, kMc), nTiles = ceilDiv(n, kNc);
  parallelFor(
      static_cast<size_t>(mTiles * nTiles),
      [&](size_t task) {
        const int64_t i0 = static_cast<int64_t>(task) / nTiles * kMc;
        const int64_t j0 = static_cast<int64_t>(task) % nTiles * kNc;
        const int64_t ipBegin = i0 / kMr,
                      ipEnd = std::min(mPanels, (i0 + kMc) / kMr);
        const int64_t jpBegin = j0 / kNr,
                      jpEnd = std::min(nPanels, (j0 + kNc) / kNr);
        std::vector<double> tile(static_cast<size_t>(kMc * kNc), 0.0);
        for (int64_t k0 = 0; k0 < k; k0 += kKc) {
          const int64_t kc = std::min(kKc, k - k0);
          for (int64_t jp = jpBegin; jp < jpEnd; ++jp) {
            const double *bPanel = bp.data() + (jp * k + k0) * kNr;
            for (int64_t ip = ipBegin; ip < ipEnd; ++ip)
              gdnRunGemmMicroKernel(ap.data() + (ip * k + k0) * kMr, bPanel,
                                    kc,
                                    tile.data() + (ip * kMr - i0) * kNc +
                                        (jp * kNr - j0),
                                    kNc);
          }
        }
        const int64_t rows = std::min(kMc, m - i0),
                      cols = std::min(kNc, n - j0);
        for (int64_t r = 0; r < rows; ++r)
          std::memcpy(c.data() + (i0 + r) * n + j0, tile.data() + r * kNc,
                      static_cast<size_t>(cols) * sizeof(double));
      },
      threads);
  return c;
}

double referenceGemmEntry(const GemmProblem &p, DType type, const uint16_t *a,
                          const uint16_t *b, int64_t i, int64_t j) {
  const double *lut = decodeTable16(type);
  double sum = 0;
  for (int64_t kk = 0; kk < p.k; ++kk)
    sum += lut[a[gemmIndexA(p, i, kk)]] * lut[b[gemmIndexB(p, kk, j)]];
  return sum;
}

} // namespace gdn::run
