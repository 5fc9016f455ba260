//===- HostTensor.h - host-side numerics for gdn-run ------------*- C++ -*-===//
//
// Pure host code shared by the operator drivers: IEEE binary16 and bfloat16
// conversion with round-to-nearest-even (written here, no compiler
// intrinsics, so results do not depend on the host's F16C support), a seeded
// splitmix64 generator for reproducible inputs, error statistics for
// comparing a device result with an fp64 reference, and a parallel-for over
// std::thread.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_HOSTTENSOR_H
#define GDN_TOOLS_GDN_RUN_HOSTTENSOR_H

#include "Manifest.h"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace gdn::run {

/// float -> IEEE binary16 bits, round to nearest even; overflow gives
/// infinity, NaN stays a (quiet) NaN with the sign kept.
uint16_t floatToHalf(float value);
/// IEEE binary16 bits -> float (exact).
float halfToFloat(uint16_t bits);
/// float -> bfloat16 bits, round to nearest even; NaN stays a quiet NaN.
uint16_t floatToBFloat16(float value);
/// bfloat16 bits -> float (exact).
float bfloat16ToFloat(uint16_t bits);

/// Rounds `value` to the 16-bit float type `type` (F16 or BF16).
uint16_t roundTo16(DType type, float value);
/// A 65536-entry table mapping 16-bit patterns of `type` (F16 or BF16) to
/// their exact double values; built once, thread-safe.
const double *decodeTable16(DType type);

/// splitmix64 (Steele, Lea, Flood 2014): tiny, fast, and every seed gives a
/// full-period stream, which is all input generation needs.
class SplitMix64 {
public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next() {
    uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  /// Uniform float in [-1, 1) with 24 random bits.
  float nextSymmetric() {
    return static_cast<float>(next() >> 40) * (1.0f / 8388608.0f) - 1.0f;
  }
  /// Uniform integer in [0, bound) (bound > 0; negligible bias).
  uint64_t nextBelow(uint64_t bound) { return next() % bound; }

private:
  uint64_t state_;
};

/// Derives independent seeds for the tensors of one check from the user's
/// seed, so that tensor `stream` gets the same data whatever else is drawn.
uint64_t deriveSeed(uint64_t seed, uint64_t stream);

/// `count` values uniform in [-1, 1), rounded to `type` (F16 or BF16). Values
/// that round to zero are redrawn, so no element is zero. Filled in parallel;
/// the result depends only on (type, count, seed).
std::vector<uint16_t> randomTensor16(DType type, size_t count, uint64_t seed);

/// Runs body(i) for i in [0, count) on `threads` std::threads (0: hardware
/// concurrency), handing out indices dynamically.
void parallelFor(size_t count, const std::function<void(size_t)> &body,
                 unsigned threads = 0);

/// Number of worker threads parallelFor uses for `threads` = 0.
unsigned defaultThreadCount();

/// Error of a result against a reference; non-finite results are counted
/// apart and excluded from the norms.
struct ErrorStats {
  size_t count = 0;     ///< elements compared
  size_t nonFinite = 0; ///< results that are NaN or infinite
  double errSq = 0;     ///< sum of squared errors over finite results
  double refSq = 0;     ///< sum of squared reference values
  double maxAbs = 0;    ///< max |result - reference| over finite results

  void add(double result, double reference);
  void merge(const ErrorStats &other);
  /// ||result - ref|| / ||ref||; 0 when both are zero, +inf when only the
  /// reference is zero.
  double relL2() const;
  /// True iff every result is finite and relL2() <= rtol.
  bool passes(double rtol) const;
};

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_HOSTTENSOR_H
