//===- GdnInputs.cpp - GDN prefill inputs: families, .npy, layouts --------===//
//
// Random values come from the oracle's counter-based fills (fillNormal,
// fillUniform), so they are identical for every thread count; each tensor
// draws from its own stream derived from --seed. Large arrays are converted
// in parallel blocks.
//
//===----------------------------------------------------------------------===//

#include "GdnInputs.h"

#include "HostTensor.h"

#include "gdn/Reference/GdnReference.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cerrno>
#include <cstring>
#include <tuple>

#include <sys/stat.h>

namespace gdn::run {

//===----------------------------------------------------------------------===//
// Families and layouts
//===----------------------------------------------------------------------===//

namespace {
const struct {
  GdnFamily family;
  const char *name;
} kFamilies[] = {
    {GdnFamily::Weak, "weak"},         {GdnFamily::NoDecay, "nodecay"},
    {GdnFamily::Strong, "strong"},     {GdnFamily::FqStrong, "fqstrong"},
    {GdnFamily::Mixed, "mixed"},       {GdnFamily::Beta0, "beta0"},
    {GdnFamily::Beta1, "beta1"},       {GdnFamily::Unnorm, "unnorm"},
    {GdnFamily::BigKey, "bigkey"},     {GdnFamily::Collinear, "collinear"},
    {GdnFamily::ZeroKey, "zerokey"},
};

/// Random streams of the tensors (see deriveSeed).
enum Stream : uint64_t {
  kQ = 100, kK, kV, kG, kBeta, kH0, kDecayScale, kGateBias, kKeyDirection
};

constexpr size_t kBlock = size_t(1) << 16;

size_t numBlocks(size_t n) { return (n + kBlock - 1) / kBlock; }
} // namespace

const char *gdnFamilyName(GdnFamily family) {
  for (const auto &f : kFamilies)
    if (f.family == family)
      return f.name;
  return "?";
}

bool parseGdnFamily(const std::string &name, GdnFamily &out) {
  for (const auto &f : kFamilies) {
    if (name == f.name) {
      out = f.family;
      return true;
    }
  }
  return false;
}

std::string gdnFamilyList() {
  std::string s;
  for (const auto &f : kFamilies)
    s += (s.empty() ? "" : ", ") + std::string(f.name);
  return s;
}

const char *gdnLayoutName(GdnLayout layout) {
  return layout == GdnLayout::BTHD ? "bthd" : "bhtd";
}

//===----------------------------------------------------------------------===//
// Host arrays
//===----------------------------------------------------------------------===//

double hostElement(DType type, const unsigned char *bytes, size_t i) {
  switch (type) {
  case DType::F16:
  case DType::BF16: {
    uint16_t bits;
    std::memcpy(&bits, bytes + 2 * i, 2);
    return decodeTable16(type)[bits];
  }
  case DType::F32: {
    float f;
    std::memcpy(&f, bytes + 4 * i, 4);
    return f;
  }
  case DType::I32: {
    int32_t v;
    std::memcpy(&v, bytes + 4 * i, 4);
    return v;
  }
  case DType::I64: {
    int64_t v;
    std::memcpy(&v, bytes + 8 * i, 8);
    return static_cast<double>(v);
  }
  }
  return 0;
}

uint16_t roundDoubleTo16(DType type, double x) {
  // Round to odd into float (truncate toward zero, then set the last bit if
  // anything was dropped): float keeps >= 2 more bits than f16 and bf16, so
  // the round to nearest even from there equals one direct rounding.
  float f = static_cast<float>(x);
  if (static_cast<double>(f) != x && !std::isnan(x) && std::isfinite(f)) {
    if (std::fabs(static_cast<double>(f)) > std::fabs(x))
      f = std::nextafter(f, 0.0f);
    uint32_t u;
    std::memcpy(&u, &f, 4);
    u |= 1;
    std::memcpy(&f, &u, 4);
  }
  return roundTo16(type, f);
}

double roundDoubleToType(DType type, double x) {
  if (type == DType::F32)
    return static_cast<float>(x);
  return decodeTable16(type)[roundDoubleTo16(type, x)];
}

size_t encodeHostArray(DType type, std::vector<double> &&values,
                       bool keepValues, HostArray &out) {
  const size_t n = values.size();
  const size_t size = dtypeSize(type);
  out.type = type;
  out.count = n;
  out.bytes.assign(n * size, 0);
  std::atomic<size_t> changed{0};
  parallelFor(numBlocks(n), [&](size_t blk) {
    size_t begin = blk * kBlock, end = std::min(n, begin + kBlock);
    size_t local = 0;
    for (size_t i = begin; i < end; ++i) {
      double x = values[i];
      double r;
      if (type == DType::F32) {
        float f = static_cast<float>(x);
        std::memcpy(out.bytes.data() + 4 * i, &f, 4);
        r = f;
      } else {
        uint16_t bits = roundDoubleTo16(type, x);
        std::memcpy(out.bytes.data() + 2 * i, &bits, 2);
        r = decodeTable16(type)[bits];
      }
      if (r != x && !(std::isnan(r) && std::isnan(x)))
        ++local;
      values[i] = r;
    }
    changed += local;
  });
  if (keepValues)
    out.values = std::move(values);
  else
    out.values.clear();
  values = std::vector<double>();
  return changed;
}

//===----------------------------------------------------------------------===//
// Generation
//===----------------------------------------------------------------------===//

namespace {

void normalizeRows(std::vector<double> &x, int64_t dim) {
  const size_t rows = x.size() / static_cast<size_t>(dim);
  const size_t rowsPerBlock = 4096;
  parallelFor((rows + rowsPerBlock - 1) / rowsPerBlock, [&](size_t blk) {
    size_t begin = blk * rowsPerBlock;
    size_t count = std::min(rows, begin + rowsPerBlock) - begin;
    gdn::ref::l2NormalizeRows(x.data() + begin * dim,
                              static_cast<int64_t>(count), dim);
  });
}

double softplus(double x) {
  return std::max(x, 0.0) + std::log1p(std::exp(-std::fabs(x)));
}

std::vector<double> normal(size_t n, double stddev, uint64_t seed) {
  std::vector<double> x(n);
  gdn::ref::fillNormal(x.data(), n, 0.0, stddev, seed);
  return x;
}

std::vector<double> generateG(const GdnProblem &p, GdnFamily family,
                              uint64_t seed) {
  const size_t n = static_cast<size_t>(p.gCount());
  const uint64_t gSeed = deriveSeed(seed, kG);
  std::vector<double> g(n, 0.0);
  switch (family) {
  case GdnFamily::NoDecay:
  case GdnFamily::Collinear:
    break;
  case GdnFamily::Strong:
    gdn::ref::fillUniform(g.data(), n, -1.0, 0.0, gSeed);
    break;
  case GdnFamily::FqStrong:
    g = normal(n, 1.0, gSeed);
    for (double &x : g)
      x = -16.0 * softplus(0.5 * x + 1.0);
    break;
  case GdnFamily::Mixed: {
    const size_t hv = static_cast<size_t>(p.HV);
    std::vector<double> a(hv);
    gdn::ref::fillUniform(a.data(), hv, 0.0, 16.0,
                          deriveSeed(seed, kDecayScale));
    a.front() = 0.0;
    a.back() = 16.0;
    g = normal(n, 1.0, gSeed);
    for (size_t i = 0; i < n; ++i)
      g[i] = -(a[i % hv] / 16.0) * softplus(g[i]);
    break;
  }
  default: // weak, and the beta / key families
    gdn::ref::fillUniform(g.data(), n, -0.02, 0.0, gSeed);
    break;
  }
  return g;
}

} // namespace

void generateGdnInputs(const GdnProblem &p, GdnFamily family, uint64_t seed,
                       bool keepValues, GdnInputs &out) {
  const size_t nqk = static_cast<size_t>(p.qkCount());
  const size_t nv = static_cast<size_t>(p.vCount());
  const size_t ng = static_cast<size_t>(p.gCount());

  // With p.qkL2Norm the kernels normalize q and k themselves: raw N(0,1).
  std::vector<double> q = normal(nqk, 1.0, deriveSeed(seed, kQ));
  if (!p.qkL2Norm)
    normalizeRows(q, p.DK);
  encodeHostArray(p.dtype, std::move(q), keepValues, out.q);

  bool unnorm = family == GdnFamily::Unnorm;
  bool collinear = family == GdnFamily::Collinear;
  std::vector<double> k = normal(nqk, unnorm ? 0.1 : collinear ? 0.05 : 1.0,
                                 deriveSeed(seed, kK));
  if (collinear) {
    // One direction per key head, the same for every sequence and token
    // (rows are [.., H, DK] in the generation layout).
    const size_t dk = static_cast<size_t>(p.DK), h = static_cast<size_t>(p.H);
    std::vector<double> u =
        normal(h * dk, 1.0, deriveSeed(seed, kKeyDirection));
    for (size_t i = 0; i < nqk; ++i)
      k[i] += u[i % (h * dk)];
  }
  if (!unnorm && !p.qkL2Norm)
    normalizeRows(k, p.DK);
  if (family == GdnFamily::BigKey)
    for (double &x : k)
      x *= std::sqrt(2.2);
  const bool zeroKey = family == GdnFamily::ZeroKey;
  if (zeroKey) {
    // Rows are [B, T, H, DK] in the generation layout: token t of a row
    // is (row / H) mod T.
    const size_t dk = static_cast<size_t>(p.DK), h = static_cast<size_t>(p.H);
    const size_t t = static_cast<size_t>(p.T);
    for (size_t row = 0; row < nqk / dk; ++row)
      if ((row / h) % t % 16 == 5)
        std::fill_n(k.begin() + row * dk, dk, 0.0);
  }
  encodeHostArray(p.dtype, std::move(k), keepValues, out.k);

  encodeHostArray(p.dtype,
                  normal(nv, zeroKey ? 100.0 : 1.0, deriveSeed(seed, kV)),
                  keepValues, out.v);
  // With p.gateInKernel the kernels compute g from a raw gate z ~ N(0,1)
  // and per value head a_log = log(U(1, 16)), dt_bias ~ U(-2, 1) (decays
  // from ~e^-0.1 to ~e^-50 per token: weak to strong heads).
  out.aLog = HostArray();
  out.dtBias = HostArray();
  if (p.gateInKernel) {
    encodeHostArray(p.gType, normal(ng, 1.0, deriveSeed(seed, kG)),
                    keepValues, out.g);
    const size_t hv = static_cast<size_t>(p.HV);
    std::vector<double> a(hv), d(hv);
    gdn::ref::fillUniform(a.data(), hv, 1.0, 16.0,
                          deriveSeed(seed, kDecayScale));
    for (double &x : a)
      x = std::log(x);
    gdn::ref::fillUniform(d.data(), hv, -2.0, 1.0,
                          deriveSeed(seed, kGateBias));
    encodeHostArray(DType::F32, std::move(a), keepValues, out.aLog);
    encodeHostArray(DType::F32, std::move(d), keepValues, out.dtBias);
  } else {
    encodeHostArray(p.gType, generateG(p, family, seed), keepValues, out.g);
  }

  // With p.betaSigmoid beta is the raw logit (the kernels take the sigmoid).
  std::vector<double> beta;
  if (family == GdnFamily::Beta0 || family == GdnFamily::Beta1 ||
      family == GdnFamily::Collinear) {
    beta.assign(ng, family == GdnFamily::Beta0 ? 0.0 : 1.0);
  } else {
    beta = normal(ng, 1.0, deriveSeed(seed, kBeta));
    if (!p.betaSigmoid)
      gdn::ref::sigmoidInPlace(beta.data(), ng);
  }
  encodeHostArray(p.betaType, std::move(beta), keepValues, out.beta);

  out.h0 = HostArray();
  if (p.hasH0)
    encodeHostArray(DType::F32,
                    normal(static_cast<size_t>(p.stateCount()), 1.0,
                           deriveSeed(seed, kH0)),
                    keepValues, out.h0);
}

//===----------------------------------------------------------------------===//
// Layouts
//===----------------------------------------------------------------------===//

void transposeHeads(const unsigned char *src, unsigned char *dst, int64_t B,
                    int64_t heads, int64_t T, size_t rowBytes,
                    bool toHeadMajor) {
  // Work item (b, h): the T rows of one head of one batch row.
  parallelFor(static_cast<size_t>(B * heads), [&](size_t item) {
    const int64_t b = static_cast<int64_t>(item) / heads;
    const int64_t h = static_cast<int64_t>(item) % heads;
    for (int64_t t = 0; t < T; ++t) {
      size_t headMajor = static_cast<size_t>((b * heads + h) * T + t);
      size_t tokenMajor = static_cast<size_t>((b * T + t) * heads + h);
      size_t from = toHeadMajor ? tokenMajor : headMajor;
      size_t to = toHeadMajor ? headMajor : tokenMajor;
      std::memcpy(dst + to * rowBytes, src + from * rowBytes, rowBytes);
    }
  });
}

//===----------------------------------------------------------------------===//
// Loading
//===----------------------------------------------------------------------===//

namespace {

std::string joinPath(const std::string &dir, const std::string &file) {
  if (dir.empty())
    return file;
  return dir.back() == '/' ? dir + file : dir + "/" + file;
}

} // namespace

Status optionalFilePresent(const std::string &path, bool &present) {
  present = false;
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT)
      return Status::success(); // absent
    return Status::badInput(path + ": error: cannot read optional input: " +
                            std::strerror(errno));
  }
  // Something is there: it must be readable. A dangling symbolic link is
  // an error, not an absent file (a varlen input would otherwise run as
  // non-varlen, or with a zero initial state).
  if (S_ISLNK(st.st_mode) && ::stat(path.c_str(), &st) != 0)
    return Status::badInput(
        path + ": error: is a broken symbolic link (" + std::strerror(errno) +
        "); remove it if the input is meant to be absent");
  present = true;
  return Status::success();
}

namespace {

Status fileError(const std::string &path, const std::string &problem) {
  return Status::badInput(path + ": error: " + problem);
}

bool isFloatNpy(NpyType t) {
  return t == NpyType::F16 || t == NpyType::F32 || t == NpyType::F64 ||
         t == NpyType::U16 || t == NpyType::I16;
}

/// Reads a float tensor's header and checks its element type.
Status floatHeader(const std::string &path, bool bf16Bits, NpyHeader &out) {
  GDN_RUN_TRY(readNpyHeader(path, out));
  if (!isFloatNpy(out.type))
    return fileError(path, std::string("dtype ") + npyDescr(out.type) +
                               " is not a floating-point type (expected <f2, "
                               "<f4, <f8, or <u2 bfloat16 bits)");
  if ((out.type == NpyType::U16 || out.type == NpyType::I16) && !bf16Bits)
    return fileError(path, std::string("dtype ") + npyDescr(out.type) +
                               " is read as bfloat16 bits only with --dtype "
                               "bf16 (NumPy has no bfloat16)");
  return Status::success();
}

/// Dimensions of a 4-D tensor as (B, T, heads, D), or of a 3-D one as
/// (B, T, heads, 0), in `layout`.
struct Dims {
  int64_t B = 0, T = 0, heads = 0, D = 0;
};

Status dimsOf(const std::string &path, const NpyHeader &h, size_t rank,
              GdnLayout layout, Dims &out) {
  const char *expected =
      rank == 4 ? (layout == GdnLayout::BTHD ? "[B,T,H,D]" : "[B,H,T,D]")
                : (layout == GdnLayout::BTHD ? "[B,T,HV]" : "[B,HV,T]");
  if (h.shape.size() != rank)
    return fileError(path, "shape " + h.shapeText() + " has " +
                               std::to_string(h.shape.size()) +
                               " axes, expected " + std::to_string(rank) +
                               " " + expected + " (--layout " +
                               gdnLayoutName(layout) + ")");
  Dims d;
  d.B = h.shape[0];
  bool bthd = layout == GdnLayout::BTHD;
  d.T = bthd ? h.shape[1] : h.shape[2];
  d.heads = bthd ? h.shape[2] : h.shape[1];
  d.D = rank == 4 ? h.shape[3] : 0;
  if (d.B < 1 || d.T < 1 || d.heads < 1 || (rank == 4 && d.D < 1))
    return fileError(path, "shape " + h.shapeText() +
                               " has an empty axis");
  out = d;
  return Status::success();
}

std::string dimsText(const Dims &d, GdnLayout layout, bool fourD) {
  bool bthd = layout == GdnLayout::BTHD;
  std::string s = "B = " + std::to_string(d.B) + ", " +
                  (bthd ? "T = " + std::to_string(d.T) + ", heads = " +
                              std::to_string(d.heads)
                        : "heads = " + std::to_string(d.heads) + ", T = " +
                              std::to_string(d.T));
  if (fourD)
    s += ", D = " + std::to_string(d.D);
  return s;
}

} // namespace

Status inspectGdnInputs(const std::string &dir, GdnLayout layout,
                        bool bf16Bits, GdnProblem &problem,
                        GdnLoadPlan &plan) {
  plan = GdnLoadPlan();
  plan.dir = dir;
  plan.layout = layout;
  plan.bf16Bits = bf16Bits;
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return Status::badInput("--load " + dir + ": not a directory");

  const std::string qPath = joinPath(dir, "q.npy");
  const std::string kPath = joinPath(dir, "k.npy");
  const std::string vPath = joinPath(dir, "v.npy");
  const std::string gPath = joinPath(dir, "g.npy");
  const std::string betaPath = joinPath(dir, "beta.npy");
  const std::string h0Path = joinPath(dir, "h0.npy");
  const std::string cuPath = joinPath(dir, "cu_seqlens.npy");

  Dims q, k, v, g, beta;
  GDN_RUN_TRY(floatHeader(qPath, bf16Bits, plan.q));
  GDN_RUN_TRY(dimsOf(qPath, plan.q, 4, layout, q));
  if (q.D != kGdnHeadDim)
    return fileError(qPath, "head dim DK = " + std::to_string(q.D) +
                                " (last axis of shape " + plan.q.shapeText() +
                                ") is not supported: the gdn_prefill kernels "
                                "are compiled for DK = DV = 128");
  GDN_RUN_TRY(floatHeader(kPath, bf16Bits, plan.k));
  GDN_RUN_TRY(dimsOf(kPath, plan.k, 4, layout, k));
  if (plan.k.shape != plan.q.shape)
    return fileError(kPath, "shape " + plan.k.shapeText() +
                                " differs from q.npy's " +
                                plan.q.shapeText() + " (q and k share a shape)");
  GDN_RUN_TRY(floatHeader(vPath, bf16Bits, plan.v));
  GDN_RUN_TRY(dimsOf(vPath, plan.v, 4, layout, v));
  if (v.B != q.B || v.T != q.T)
    return fileError(vPath, "shape " + plan.v.shapeText() + " (" +
                                dimsText(v, layout, true) +
                                ") does not match q.npy's " +
                                plan.q.shapeText() + " (" +
                                dimsText(q, layout, true) + ") in B and T");
  if (v.D != kGdnHeadDim)
    return fileError(vPath, "head dim DV = " + std::to_string(v.D) +
                                " (last axis of shape " + plan.v.shapeText() +
                                ") is not supported: the gdn_prefill kernels "
                                "are compiled for DK = DV = 128");
  if (v.heads % q.heads != 0)
    return fileError(vPath, "HV = " + std::to_string(v.heads) +
                                " value heads is not a multiple of H = " +
                                std::to_string(q.heads) +
                                " (q.npy): GVA needs HV % H == 0");
  for (auto [path, header, dims] :
       {std::make_tuple(gPath, &plan.g, &g),
        std::make_tuple(betaPath, &plan.beta, &beta)}) {
    GDN_RUN_TRY(floatHeader(path, bf16Bits, *header));
    GDN_RUN_TRY(dimsOf(path, *header, 3, layout, *dims));
    if (dims->B != v.B || dims->T != v.T || dims->heads != v.heads)
      return fileError(path, "shape " + header->shapeText() +
                                 " does not match [B,T,HV] = [" +
                                 std::to_string(v.B) + "," +
                                 std::to_string(v.T) + "," +
                                 std::to_string(v.heads) +
                                 "] of q.npy and v.npy (--layout " +
                                 gdnLayoutName(layout) + ")");
  }

  GdnProblem p = problem;
  p.B = q.B;
  p.T = q.T;
  p.H = q.heads;
  p.HV = v.heads;
  bool hasCu = false, hasH0 = false;
  GDN_RUN_TRY(optionalFilePresent(cuPath, hasCu));
  GDN_RUN_TRY(optionalFilePresent(h0Path, hasH0));
  if (hasCu) {
    NpyArray cu;
    GDN_RUN_TRY(readNpy(cuPath, cu));
    if (cu.header.type != NpyType::I32 && cu.header.type != NpyType::I64)
      return fileError(cuPath, std::string("dtype ") +
                                   npyDescr(cu.header.type) +
                                   " is not <i4 or <i8");
    if (cu.header.shape.size() != 1)
      return fileError(cuPath, "shape " + cu.header.shapeText() +
                                   " is not 1-D [N+1]");
    p.cuSeqlens.resize(static_cast<size_t>(cu.header.count()));
    for (size_t i = 0; i < p.cuSeqlens.size(); ++i) {
      if (cu.header.type == NpyType::I32) {
        int32_t x;
        std::memcpy(&x, cu.data.data() + 4 * i, 4);
        p.cuSeqlens[i] = x;
      } else {
        std::memcpy(&p.cuSeqlens[i], cu.data.data() + 8 * i, 8);
      }
    }
    if (p.B != 1)
      return fileError(cuPath, "varlen needs B = 1, but q.npy has B = " +
                                   std::to_string(p.B));
    if (p.cuSeqlens.size() < 2 || p.cuSeqlens.front() != 0 ||
        p.cuSeqlens.back() != p.T)
      return fileError(cuPath, "cu_seqlens must run from 0 to T = " +
                                   std::to_string(p.T) + " (q.npy) with at "
                                   "least two entries");
    for (size_t i = 1; i < p.cuSeqlens.size(); ++i)
      if (p.cuSeqlens[i] < p.cuSeqlens[i - 1])
        return fileError(cuPath, "cu_seqlens decreases at index " +
                                     std::to_string(i));
    plan.hasCuSeqlens = true;
  }
  p.hasH0 = hasH0;
  if (p.hasH0) {
    GDN_RUN_TRY(floatHeader(h0Path, bf16Bits, plan.h0));
    std::vector<int64_t> expected = {p.numSequences(), p.HV, kGdnHeadDim,
                                     kGdnHeadDim};
    if (plan.h0.shape != expected) {
      NpyHeader e;
      e.shape = expected;
      return fileError(h0Path, "shape " + plan.h0.shapeText() +
                                   " is not [N,HV,DK,DV] = " + e.shapeText() +
                                   (p.varlen() ? " (N from cu_seqlens.npy)"
                                               : " (N = B)"));
    }
    plan.hasH0 = true;
  }

  plan.q16 = plan.q.type == NpyType::F16 || plan.q.type == NpyType::U16 ||
             plan.q.type == NpyType::I16;
  plan.qDtype = plan.q.type == NpyType::F16 ? DType::F16 : DType::BF16;
  problem = p;
  return Status::success();
}

namespace {

/// Reads one planned file into `out` (canonical layout, problem formats).
Status loadOne(const GdnLoadPlan &plan, const std::string &name,
               const NpyHeader &planned, DType type, int64_t B, int64_t T,
               int64_t heads, int64_t row, bool keepValues, HostArray &out,
               std::vector<std::string> &rounded) {
  const std::string path = joinPath(plan.dir, name);
  NpyArray a;
  GDN_RUN_TRY(readNpy(path, a));
  if (a.header.type != planned.type || a.header.shape != planned.shape)
    return fileError(path, "changed while gdn-run was reading it");
  const NpyType src = a.header.type;
  const size_t size = npySize(src);
  const size_t n = static_cast<size_t>(a.header.count());
  std::vector<unsigned char> canonical;
  const unsigned char *data = a.data.data();
  if (plan.layout == GdnLayout::BHTD && heads > 0) {
    canonical.resize(a.data.size());
    transposeHeads(a.data.data(), canonical.data(), B, heads, T,
                   size * static_cast<size_t>(std::max<int64_t>(row, 1)),
                   /*toHeadMajor=*/false);
    a.data = std::vector<unsigned char>();
    data = canonical.data();
  }
  std::vector<double> values(n);
  const double *table =
      src == NpyType::F16 ? decodeTable16(DType::F16)
                          : decodeTable16(DType::BF16); // u2, i2: bf16 bits
  parallelFor(numBlocks(n), [&](size_t blk) {
    size_t begin = blk * kBlock, end = std::min(n, begin + kBlock);
    for (size_t i = begin; i < end; ++i) {
      switch (src) {
      case NpyType::F16:
      case NpyType::U16:
      case NpyType::I16: {
        uint16_t bits;
        std::memcpy(&bits, data + 2 * i, 2);
        values[i] = table[bits];
        break;
      }
      case NpyType::F32: {
        float f;
        std::memcpy(&f, data + 4 * i, 4);
        values[i] = f;
        break;
      }
      case NpyType::F64:
        std::memcpy(&values[i], data + 8 * i, 8);
        break;
      default:
        values[i] = 0;
      }
    }
  });
  canonical = std::vector<unsigned char>();
  a.data = std::vector<unsigned char>();
  if (encodeHostArray(type, std::move(values), keepValues, out) > 0)
    rounded.push_back(path + " (" + npyDescr(src) + " -> " + dtypeName(type) +
                      ")");
  return Status::success();
}

} // namespace

Status loadGdnInputs(const GdnLoadPlan &plan, const GdnProblem &p,
                     bool keepValues, GdnInputs &out,
                     std::vector<std::string> &rounded) {
  const int64_t D = kGdnHeadDim;
  GDN_RUN_TRY(loadOne(plan, "q.npy", plan.q, p.dtype, p.B, p.T, p.H, D,
                      keepValues, out.q, rounded));
  GDN_RUN_TRY(loadOne(plan, "k.npy", plan.k, p.dtype, p.B, p.T, p.H, D,
                      keepValues, out.k, rounded));
  GDN_RUN_TRY(loadOne(plan, "v.npy", plan.v, p.dtype, p.B, p.T, p.HV, D,
                      keepValues, out.v, rounded));
  GDN_RUN_TRY(loadOne(plan, "g.npy", plan.g, p.gType, p.B, p.T, p.HV, 0,
                      keepValues, out.g, rounded));
  GDN_RUN_TRY(loadOne(plan, "beta.npy", plan.beta, p.betaType, p.B, p.T, p.HV,
                      0, keepValues, out.beta, rounded));
  out.h0 = HostArray();
  if (plan.hasH0)
    GDN_RUN_TRY(loadOne(plan, "h0.npy", plan.h0, DType::F32, 0, 0, 0, 0,
                        keepValues, out.h0, rounded));
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Saving
//===----------------------------------------------------------------------===//

NpyType npyTypeFor(DType type) {
  switch (type) {
  case DType::F16:
    return NpyType::F16;
  case DType::BF16:
    return NpyType::U16;
  case DType::F32:
    return NpyType::F32;
  case DType::I32:
    return NpyType::I32;
  case DType::I64:
    return NpyType::I64;
  }
  return NpyType::F32;
}

Status saveGdnTensor(const std::string &dir, const std::string &name,
                     NpyType type, const unsigned char *bytes, int64_t B,
                     int64_t T, int64_t heads, int64_t row,
                     GdnLayout layout) {
  const std::string path = joinPath(dir, name + ".npy");
  const size_t size = npySize(type);
  std::vector<int64_t> shape;
  if (layout == GdnLayout::BTHD)
    shape = {B, T, heads};
  else
    shape = {B, heads, T};
  if (row > 0)
    shape.push_back(row);
  const size_t n = static_cast<size_t>(B * T * heads * std::max<int64_t>(row, 1));
  if (layout == GdnLayout::BTHD)
    return writeNpy(path, type, shape, bytes, n * size);
  std::vector<unsigned char> headMajor(n * size);
  transposeHeads(bytes, headMajor.data(), B, heads, T,
                 size * static_cast<size_t>(std::max<int64_t>(row, 1)),
                 /*toHeadMajor=*/true);
  return writeNpy(path, type, shape, headMajor.data(), headMajor.size());
}

GdnNonFinite findNonFiniteInputs(const GdnProblem &p,
                                 const GdnInputs &in) {
  GdnNonFinite result;
  const int64_t D = kGdnHeadDim;
  const struct {
    const char *name;
    const HostArray *array;
    std::vector<int64_t> dims;
  } arrays[] = {
      {"q", &in.q, {p.B, p.T, p.H, D}},
      {"k", &in.k, {p.B, p.T, p.H, D}},
      {"v", &in.v, {p.B, p.T, p.HV, D}},
      {"g", &in.g, {p.B, p.T, p.HV}},
      {"beta", &in.beta, {p.B, p.T, p.HV}},
      {"h0", &in.h0, {p.numSequences(), p.HV, D, D}},
  };
  for (const auto &a : arrays) {
    const HostArray &h = *a.array;
    const size_t size = dtypeSize(h.type);
    const size_t n = size ? std::min(h.count, h.bytes.size() / size) : 0;
    for (size_t i = 0; i < n; ++i) {
      double x = hostElement(h.type, h.bytes.data(), i);
      if (std::isfinite(x))
        continue;
      if (result.count++ == 0) {
        std::string index;
        size_t rest = i;
        std::vector<size_t> idx(a.dims.size());
        for (size_t d = a.dims.size(); d-- > 0;) {
          idx[d] = rest % static_cast<size_t>(a.dims[d]);
          rest /= static_cast<size_t>(a.dims[d]);
        }
        for (size_t d = 0; d < idx.size(); ++d)
          index += (d ? "," : "") + std::to_string(idx[d]);
        result.first = std::string(a.name) + "[" + index + "] = " +
                       (std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
      }
    }
  }
  return result;
}

} // namespace gdn::run
