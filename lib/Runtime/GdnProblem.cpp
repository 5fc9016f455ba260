//===- GdnProblem.cpp - one Gated DeltaNet prefill problem ----------------===//

#include "GdnProblem.h"

#include <algorithm>

namespace gdn::run {

int64_t GdnProblem::numSequences() const {
  return varlen() ? static_cast<int64_t>(cuSeqlens.size()) - 1 : B;
}

int64_t GdnProblem::totalChunks() const {
  if (!varlen())
    return B * ((T + kGdnChunk - 1) / kGdnChunk);
  int64_t nt = 0;
  for (size_t i = 1; i < cuSeqlens.size(); ++i)
    nt += (cuSeqlens[i] - cuSeqlens[i - 1] + kGdnChunk - 1) / kGdnChunk;
  return nt;
}

std::vector<int64_t> GdnProblem::deviceCuSeqlens() const {
  if (varlen())
    return cuSeqlens;
  std::vector<int64_t> cu(static_cast<size_t>(B) + 1);
  for (int64_t b = 0; b <= B; ++b)
    cu[static_cast<size_t>(b)] = b * T;
  return cu;
}

GdnCpSegments GdnProblem::cpSegments() const {
  return gdnCpSegments(deviceCuSeqlens(), cpChunks);
}

ExprVariables GdnProblem::scalars() const {
  return {{"B", B},
          {"T", T},
          {"H", H},
          {"HV", HV},
          {"DK", DK},
          {"DV", DV},
          {"N", numSequences()},
          {"NT", totalChunks()},
          {"NS", cpSegments().numSegments()},
          {"has_h0", hasH0 ? 1 : 0},
          {"varlen", varlen() ? 1 : 0},
          {"gate_in_kernel", gateInKernel ? 1 : 0},
          {"beta_sigmoid", betaSigmoid ? 1 : 0},
          {"neg_eigval", negEigval ? 1 : 0},
          {"qk_l2norm", qkL2Norm ? 1 : 0},
          {"state_v_first", stateVFirst ? 1 : 0}};
}

std::string GdnProblem::shapeText() const {
  std::string s = std::to_string(B) + "x" + std::to_string(T) + "x" +
                  std::to_string(H) + "/" + std::to_string(HV);
  if (varlen())
    s += ":N" + std::to_string(numSequences());
  return s;
}

Status validateGdnProblem(const GdnProblem &p) {
  auto bad = [](const std::string &problem) {
    return Status::badInput("bad GDN problem: " + problem);
  };
  const struct {
    const char *name;
    int64_t value;
  } extents[] = {{"B", p.B}, {"T", p.T}, {"H", p.H}, {"HV", p.HV}};
  for (const auto &e : extents)
    if (e.value < 1 || e.value > INT32_MAX)
      return bad(std::string(e.name) + " = " + std::to_string(e.value) +
                 " is out of range [1, 2147483647]");
  if (p.DK != kGdnHeadDim || p.DV != kGdnHeadDim)
    return bad("head dims DK = " + std::to_string(p.DK) + ", DV = " +
               std::to_string(p.DV) +
               " are not supported: the gdn_prefill kernels are compiled for "
               "DK = DV = 128 only");
  if (p.HV % p.H != 0)
    return bad("HV = " + std::to_string(p.HV) +
               " value heads is not a multiple of H = " + std::to_string(p.H) +
               " q/k heads (GVA needs HV % H == 0)");
  if (p.dtype != DType::F16 && p.dtype != DType::BF16)
    return bad(std::string("dtype ") + dtypeName(p.dtype) +
               " is not f16 or bf16");
  int64_t tmp = 0;
  if (__builtin_mul_overflow(p.B, p.T, &tmp) ||
      __builtin_mul_overflow(tmp, p.HV, &tmp) ||
      __builtin_mul_overflow(tmp, p.DV, &tmp) ||
      __builtin_mul_overflow(p.B * p.T, p.H, &tmp) ||
      __builtin_mul_overflow(tmp, p.DK * 8, &tmp) ||
      __builtin_mul_overflow(p.varlen() ? int64_t(p.cuSeqlens.size()) : p.B,
                             p.HV, &tmp) ||
      __builtin_mul_overflow(tmp, p.DK * p.DV * 8, &tmp))
    return bad("shape " + p.shapeText() + " is too large");
  if (p.varlen()) {
    const std::vector<int64_t> &cu = p.cuSeqlens;
    if (p.B != 1)
      return bad("varlen (cu_seqlens) requires B = 1, got B = " +
                 std::to_string(p.B));
    if (cu.size() < 2)
      return bad("cu_seqlens needs at least two entries (0 and T), got " +
                 std::to_string(cu.size()));
    if (cu.front() != 0)
      return bad("cu_seqlens must start at 0, got " +
                 std::to_string(cu.front()));
    for (size_t i = 1; i < cu.size(); ++i)
      if (cu[i] < cu[i - 1])
        return bad("cu_seqlens must be nondecreasing: cu_seqlens[" +
                   std::to_string(i) + "] = " + std::to_string(cu[i]) +
                   " < cu_seqlens[" + std::to_string(i - 1) + "] = " +
                   std::to_string(cu[i - 1]));
    if (cu.back() != p.T)
      return bad("cu_seqlens must end at T = " + std::to_string(p.T) +
                 ", got " + std::to_string(cu.back()));
  }
  if (!(p.scale > 0) || p.scale > 3.4e38)
    return bad("scale " + std::to_string(p.scale) +
               " must be positive and finite");
  return Status::success();
}

double gdnHostBytes(const GdnProblem &p) {
  const double d = static_cast<double>(kGdnHeadDim);
  const double tokens = static_cast<double>(p.B) * static_cast<double>(p.T);
  const double h = static_cast<double>(p.H), hv = static_cast<double>(p.HV);
  const double n = static_cast<double>(p.varlen() ? p.cuSeqlens.size() - 1
                                                  : static_cast<size_t>(p.B));
  const double elem = static_cast<double>(dtypeSize(p.dtype));
  const double qk = 2 * tokens * h * d * (elem + 8);
  const double v = tokens * hv * d * (elem + 8);
  const double o = tokens * hv * d * (2 * elem + 8);
  const double gates = 2 * tokens * hv * (4 + 8);
  const double state = n * hv * d * d;
  const double ht = state * (4 + 4 + 8) + (p.hasH0 ? state * (4 + 8) : 0);
  const double index = (n + 1) * 8 * 5;
  return qk + v + o + gates + ht + index;
}

GdnCost gdnCost(const GdnProblem &p) {
  const double d = static_cast<double>(kGdnHeadDim);
  const double tokens = static_cast<double>(p.B) * static_cast<double>(p.T);
  const double h = static_cast<double>(p.H), hv = static_cast<double>(p.HV);
  const double n = static_cast<double>(p.numSequences());
  const double elem = static_cast<double>(dtypeSize(p.dtype));
  GdnCost c;
  c.flop = tokens * hv * kFlopPerTokenHead;
  double state = n * hv * d * d * 4;
  c.bytes = 2 * tokens * h * d * elem + 2 * tokens * hv * d * elem +
            tokens * hv *
                static_cast<double>(dtypeSize(p.gType) +
                                    dtypeSize(p.betaType)) +
            state + (p.hasH0 ? state : 0);
  c.floorSeconds = std::max(c.bytes / kFloorBandwidth, c.flop / kFloorFlops);
  return c;
}

} // namespace gdn::run
