//===- HostTensor.cpp - host-side numerics for gdn-run --------------------===//
//
// The binary16 conversion works on the float's bit pattern: normal results
// rebias the exponent and round the 13 dropped mantissa bits, subnormal
// results shift the 24-bit significand right and round the dropped bits, both
// to nearest even. A carry out of the mantissa correctly bumps the exponent
// (up to infinity).
//
//===----------------------------------------------------------------------===//

#include "HostTensor.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstring>
#include <limits>
#include <thread>

namespace gdn::run {

static uint32_t floatBits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

static float bitsFloat(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

/// Shifts `value` right by `shift` (1..31) rounding to nearest even.
static uint32_t shiftRightRne(uint32_t value, unsigned shift) {
  uint32_t kept = value >> shift;
  uint32_t rem = value & ((1u << shift) - 1);
  uint32_t half = 1u << (shift - 1);
  if (rem > half || (rem == half && (kept & 1)))
    ++kept;
  return kept;
}

uint16_t floatToHalf(float value) {
  uint32_t x = floatBits(value);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000);
  uint32_t ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) {
    if (ax == 0x7f800000u)
      return sign | 0x7c00;
    // NaN: keep the top payload bits, force quiet.
    return sign | 0x7e00 | static_cast<uint16_t>((ax >> 13) & 0x3ff);
  }
  // 65520 = 0x477ff000 is halfway between 65504 (max half, odd mantissa) and
  // 65536: ties-to-even rounds it and everything above to infinity.
  if (ax >= 0x477ff000u)
    return sign | 0x7c00;
  if (ax >= 0x38800000u) // >= 2^-14: normal half
    return sign | static_cast<uint16_t>(shiftRightRne(ax - 0x38000000u, 13));
  // Subnormal half (or zero): units of 2^-24. value = m * 2^(e-150), so the
  // count of units is m >> (126 - e).
  unsigned e = ax >> 23;
  unsigned shift = 126 - e; // >= 14 here
  if (shift > 24)
    return sign; // < 2^-25: rounds to zero
  uint32_t m = (ax & 0x7fffffu) | (e ? 0x800000u : 0);
  return sign | static_cast<uint16_t>(shiftRightRne(m, shift));
}

float halfToFloat(uint16_t bits) {
  uint32_t sign = static_cast<uint32_t>(bits & 0x8000) << 16;
  uint32_t exp = (bits >> 10) & 0x1f;
  uint32_t mant = bits & 0x3ff;
  if (exp == 0x1f)
    return bitsFloat(sign | 0x7f800000u | (mant << 13));
  if (exp == 0) {
    // Zero or subnormal: mant * 2^-24, exact in float.
    float v = static_cast<float>(mant) * (1.0f / 16777216.0f);
    return sign ? -v : v;
  }
  return bitsFloat(sign | ((exp + 112) << 23) | (mant << 13));
}

uint16_t floatToBFloat16(float value) {
  uint32_t x = floatBits(value);
  if ((x & 0x7fffffffu) > 0x7f800000u) // NaN: truncate, force quiet
    return static_cast<uint16_t>((x >> 16) | 0x0040);
  // Round to nearest even; a carry into the exponent is correct, including
  // overflow to infinity.
  x += 0x7fffu + ((x >> 16) & 1);
  return static_cast<uint16_t>(x >> 16);
}

float bfloat16ToFloat(uint16_t bits) {
  return bitsFloat(static_cast<uint32_t>(bits) << 16);
}

uint16_t roundTo16(DType type, float value) {
  return type == DType::BF16 ? floatToBFloat16(value) : floatToHalf(value);
}

const double *decodeTable16(DType type) {
  struct Tables {
    std::vector<double> f16, bf16;
    Tables() : f16(65536), bf16(65536) {
      for (uint32_t i = 0; i < 65536; ++i) {
        f16[i] = halfToFloat(static_cast<uint16_t>(i));
        bf16[i] = bfloat16ToFloat(static_cast<uint16_t>(i));
      }
    }
  };
  static const Tables tables;
  return type == DType::BF16 ? tables.bf16.data() : tables.f16.data();
}

uint64_t deriveSeed(uint64_t seed, uint64_t stream) {
  SplitMix64 a(seed);
  SplitMix64 b(stream * 0xd1b54a32d192ed03ull + 0x8bb84b93962eacc9ull);
  return a.next() ^ b.next();
}

std::vector<uint16_t> randomTensor16(DType type, size_t count, uint64_t seed) {
  // Fixed-size chunks with their own streams: the data depends only on the
  // seed, not on the number of threads filling it.
  constexpr size_t kChunk = size_t(1) << 16;
  std::vector<uint16_t> out(count);
  parallelFor((count + kChunk - 1) / kChunk, [&](size_t chunk) {
    SplitMix64 rng(deriveSeed(seed, chunk));
    size_t end = std::min(count, (chunk + 1) * kChunk);
    for (size_t i = chunk * kChunk; i < end; ++i) {
      uint16_t bits;
      do {
        bits = roundTo16(type, rng.nextSymmetric());
      } while ((bits & 0x7fff) == 0);
      out[i] = bits;
    }
  });
  return out;
}

unsigned defaultThreadCount() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : n;
}

void parallelFor(size_t count, const std::function<void(size_t)> &body,
                 unsigned threads) {
  if (threads == 0)
    threads = defaultThreadCount();
  if (static_cast<size_t>(threads) > count)
    threads = static_cast<unsigned>(count);
  if (threads <= 1) {
    for (size_t i = 0; i < count; ++i)
      body(i);
    return;
  }
  std::atomic<size_t> nextIndex{0};
  auto worker = [&]() {
    for (size_t i = nextIndex++; i < count; i = nextIndex++)
      body(i);
  };
  std::vector<std::thread> pool;
  pool.reserve(threads - 1);
  for (unsigned t = 1; t < threads; ++t)
    pool.emplace_back(worker);
  worker();
  for (std::thread &t : pool)
    t.join();
}

void ErrorStats::add(double result, double reference) {
  ++count;
  refSq += reference * reference;
  if (!std::isfinite(result)) {
    ++nonFinite;
    return;
  }
  double err = result - reference;
  errSq += err * err;
  maxAbs = std::max(maxAbs, std::fabs(err));
}

void ErrorStats::merge(const ErrorStats &o) {
  count += o.count;
  nonFinite += o.nonFinite;
  errSq += o.errSq;
  refSq += o.refSq;
  maxAbs = std::max(maxAbs, o.maxAbs);
}

double ErrorStats::relL2() const {
  if (refSq == 0)
    return errSq == 0 ? 0.0 : std::numeric_limits<double>::infinity();
  return std::sqrt(errSq) / std::sqrt(refSq);
}

bool ErrorStats::passes(double rtol) const {
  return nonFinite == 0 && relL2() <= rtol;
}

} // namespace gdn::run
