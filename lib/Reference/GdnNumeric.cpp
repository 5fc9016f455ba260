//===- GdnNumeric.cpp - metrics, inputs and 16-bit rounding for the oracle -===//
//
// The numeric helpers of the GDN oracle: error metrics, a reproducible
// splitmix64 input generator, row L2 normalization, and exact IEEE
// round-to-nearest-even conversions between double/float and binary16 /
// bfloat16. The rounding is done in integer-exact double arithmetic (no
// dependence on the FPU rounding mode and a single rounding from double).
//
//===----------------------------------------------------------------------===//

#include "gdn/Reference/GdnReference.h"

#include "Parallel.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace gdn::ref {
namespace {

//===----------------------------------------------------------------------===//
// Generic binary floating-point format
//===----------------------------------------------------------------------===//

/// A binary interchange-style format with `mantBits` stored fraction bits and
/// `expBits` exponent bits (bias 2^(expBits-1) - 1).
struct Format {
  int mantBits;
  int expBits;
  int bias() const { return (1 << (expBits - 1)) - 1; }
  int minNormalExp() const { return 1 - bias(); }
  int maxExp() const { return bias(); }
  double maxFinite() const {
    return std::ldexp(2.0 - std::ldexp(1.0, -mantBits), maxExp());
  }
};

constexpr Format kF16{10, 5};
constexpr Format kBF16{7, 8};

/// Round half to even of y >= 0 (to an integer-valued double).
double roundHalfEven(double y) {
  const double fl = std::floor(y);
  const double diff = y - fl; // exact for y >= 0 (Sterbenz when y >= 1)
  if (diff > 0.5)
    return fl + 1;
  if (diff < 0.5)
    return fl;
  return std::fmod(fl, 2.0) == 0 ? fl : fl + 1;
}

/// Rounds x to the nearest value of format f (ties to even), as a double.
double roundToFormat(double x, const Format &f) {
  if (std::isnan(x) || std::isinf(x) || x == 0)
    return x;
  int e;
  std::frexp(x, &e); // |x| = m 2^e with m in [0.5, 1): floor(log2|x|) = e-1
  const int expo = std::max(e - 1, f.minNormalExp());
  const int qexp = expo - f.mantBits; // the quantum (ulp) is 2^qexp
  // Scaling by a power of two is exact here (no overflow: |x| / ulp < 2^54).
  // Round the magnitude so that tiny negative values become -0.
  const double r =
      std::ldexp(roundHalfEven(std::ldexp(std::fabs(x), -qexp)), qexp);
  if (r > f.maxFinite())
    return std::copysign(std::numeric_limits<double>::infinity(), x);
  return std::copysign(r, x);
}

/// Encodes a value exactly representable in format f (or inf/NaN) as bits.
/// NaNs become the quiet NaN with the given payload (already truncated).
uint32_t encodeExact(double r, const Format &f, uint32_t nanPayload) {
  const uint32_t sign = std::signbit(r) ? 1u : 0u;
  const uint32_t expAll = (1u << f.expBits) - 1;
  const uint32_t quiet = 1u << (f.mantBits - 1);
  const int total = 1 + f.expBits + f.mantBits;
  const uint32_t signBit = sign << (total - 1);
  if (std::isnan(r))
    return signBit | (expAll << f.mantBits) | quiet | nanPayload;
  if (std::isinf(r))
    return signBit | (expAll << f.mantBits);
  const double a = std::fabs(r);
  if (a == 0)
    return signBit;
  int e;
  std::frexp(a, &e);
  const int expo = e - 1;
  if (expo < f.minNormalExp()) {
    // Subnormal: a = mant * 2^(minNormalExp - mantBits).
    const double mant = std::ldexp(a, f.mantBits - f.minNormalExp());
    return signBit | static_cast<uint32_t>(mant);
  }
  const double frac = std::ldexp(a, -expo) - 1.0; // in [0, 1)
  const uint32_t mant = static_cast<uint32_t>(std::ldexp(frac, f.mantBits));
  const uint32_t biased = static_cast<uint32_t>(expo + f.bias());
  return signBit | (biased << f.mantBits) | mant;
}

uint32_t floatBits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

float bitsFloat(uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ull;

/// splitmix64 step: advances state by the golden gamma and mixes it.
uint64_t splitmix64(uint64_t &state) {
  state += kGolden;
  uint64_t z = state;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/// Uniform in [0, 1) with 53 random bits.
double unit53(uint64_t z) { return static_cast<double>(z >> 11) * 0x1.0p-53; }

} // namespace

//===----------------------------------------------------------------------===//
// Metrics
//===----------------------------------------------------------------------===//

double relativeL2(const double *x, const double *ref, size_t n) {
  double num = 0, den = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = x[i] - ref[i];
    num += d * d;
    den += ref[i] * ref[i];
  }
  if (std::isnan(num) || std::isnan(den))
    return std::numeric_limits<double>::quiet_NaN();
  if (den == 0)
    return num == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(num) / std::sqrt(den);
}

double maxAbsDiff(const double *x, const double *ref, size_t n) {
  double m = 0;
  for (size_t i = 0; i < n; ++i) {
    const double d = std::fabs(x[i] - ref[i]);
    if (std::isnan(d))
      return std::numeric_limits<double>::quiet_NaN();
    m = std::max(m, d);
  }
  return m;
}

bool allFinite(const double *x, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (!std::isfinite(x[i]))
      return false;
  return true;
}

//===----------------------------------------------------------------------===//
// Inputs
//===----------------------------------------------------------------------===//

namespace {

/// Calls fill(begin, end) over [0, n) in blocks of kFillBlock elements (an
/// even number), in parallel when n is large. Each block restarts the
/// splitmix64 stream at its own counter, so the values do not depend on the
/// split.
constexpr size_t kFillBlock = size_t(1) << 16;

template <typename Fill> void fillBlocks(size_t n, const Fill &fill) {
  const int64_t blocks = static_cast<int64_t>((n + kFillBlock - 1) / kFillBlock);
  detail::parallelFor(blocks, blocks > 16 ? 0 : 1, [&](int64_t blk) {
    const size_t b = static_cast<size_t>(blk) * kFillBlock;
    fill(b, std::min(n, b + kFillBlock));
  });
}

} // namespace

void fillUniform(double *x, size_t n, double lo, double hi, uint64_t seed) {
  const double span = hi - lo;
  fillBlocks(n, [&](size_t begin, size_t end) {
    // State after `begin` draws of the stream started at `seed`.
    uint64_t state = seed + static_cast<uint64_t>(begin) * kGolden;
    for (size_t i = begin; i < end; ++i)
      x[i] = lo + span * unit53(splitmix64(state));
  });
}

void fillNormal(double *x, size_t n, double mean, double stddev,
                uint64_t seed) {
  constexpr double kTwoPi = 6.283185307179586476925286766559;
  fillBlocks(n, [&](size_t begin, size_t end) {
    // Element pair (i, i+1), i even, uses draws i and i+1 of the stream.
    uint64_t state = seed + static_cast<uint64_t>(begin) * kGolden;
    for (size_t i = begin; i < end; i += 2) {
      // u1 in (0, 1] keeps the log finite.
      const double u1 =
          static_cast<double>((splitmix64(state) >> 11) + 1) * 0x1.0p-53;
      const double u2 = unit53(splitmix64(state));
      const double rad = std::sqrt(-2.0 * std::log(u1));
      x[i] = mean + stddev * rad * std::cos(kTwoPi * u2);
      if (i + 1 < end)
        x[i + 1] = mean + stddev * rad * std::sin(kTwoPi * u2);
    }
  });
}

void l2NormalizeRows(double *x, int64_t rows, int64_t dim, double eps) {
  for (int64_t r = 0; r < rows; ++r) {
    double *row = x + r * dim;
    double ss = 0;
    for (int64_t i = 0; i < dim; ++i)
      ss += row[i] * row[i];
    const double nrm = std::sqrt(ss + eps);
    if (nrm == 0)
      continue;
    for (int64_t i = 0; i < dim; ++i)
      row[i] /= nrm;
  }
}

void sigmoidInPlace(double *x, size_t n) {
  for (size_t i = 0; i < n; ++i)
    x[i] = 1.0 / (1.0 + std::exp(-x[i]));
}

void logSigmoidInPlace(double *x, size_t n) {
  for (size_t i = 0; i < n; ++i)
    x[i] = std::min(x[i], 0.0) - std::log1p(std::exp(-std::fabs(x[i])));
}

//===----------------------------------------------------------------------===//
// fp16 / bf16
//===----------------------------------------------------------------------===//

double roundToF16(double x) { return roundToFormat(x, kF16); }

double roundToBF16(double x) { return roundToFormat(x, kBF16); }

uint16_t f16BitsFromDouble(double x) {
  return static_cast<uint16_t>(encodeExact(roundToF16(x), kF16, 0));
}

uint16_t bf16BitsFromDouble(double x) {
  return static_cast<uint16_t>(encodeExact(roundToBF16(x), kBF16, 0));
}

uint16_t toF16Bits(float x) {
  // float -> double is exact, so this is a single rounding. NaNs keep the
  // top 9 payload bits below the quiet bit.
  const uint32_t payload = (floatBits(x) >> 13) & 0x1FFu;
  return static_cast<uint16_t>(
      encodeExact(roundToF16(static_cast<double>(x)), kF16, payload));
}

float fromF16Bits(uint16_t bits) {
  const uint32_t sign = (bits >> 15) & 1u;
  const uint32_t expo = (bits >> 10) & 0x1Fu;
  const uint32_t mant = bits & 0x3FFu;
  if (expo == 0x1F) // inf or NaN: widen the fraction into float's
    return bitsFloat((sign << 31) | 0x7F800000u | (mant << 13));
  double mag;
  if (expo == 0)
    mag = std::ldexp(static_cast<double>(mant), -24);
  else
    mag = std::ldexp(static_cast<double>(mant | 0x400u),
                     static_cast<int>(expo) - 25);
  return static_cast<float>(sign ? -mag : mag);
}

uint16_t toBF16Bits(float x) {
  const uint32_t u = floatBits(x);
  if (std::isnan(x)) // keep sign and top payload, force quiet
    return static_cast<uint16_t>((u >> 16) | 0x0040u);
  // Round to nearest even on the 16 dropped bits; carries propagate into
  // the exponent (and to inf on overflow) as they should.
  const uint32_t lsb = (u >> 16) & 1u;
  return static_cast<uint16_t>((u + 0x7FFFu + lsb) >> 16);
}

float fromBF16Bits(uint16_t bits) {
  return bitsFloat(static_cast<uint32_t>(bits) << 16);
}

} // namespace gdn::ref
