//===- GdnInputs.h - GDN prefill inputs: families, .npy, layouts -*- C++ -*-===//
//
// The host side of a GDN prefill check: seeded input families (gdn-math.md §7),
// loading inputs from and saving tensors to .npy files, and the BHTD <-> BTHD
// transposition. Every tensor is held in the format the kernels take (16-bit
// or f32 bytes, canonical BTHD) and, when the fp64 oracle needs them, as the
// exact double values of those elements, so the oracle sees precisely what
// the GPU sees.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_GDNINPUTS_H
#define GDN_TOOLS_GDN_RUN_GDNINPUTS_H

#include "GdnProblem.h"
#include "Npy.h"

#include <cstdint>
#include <string>
#include <vector>

namespace gdn::run {

/// Input families (--family). All: q, k ~ N(0,1) L2-normalized per (token,
/// head), v ~ N(0,1), beta = sigmoid(N(0,1)), g ~ U(-0.02, 0), except:
///   nodecay   g = 0
///   strong    g ~ U(-1, 0)
///   fqstrong  g = -16 * softplus(0.5 * z + 1), z ~ N(0,1) (FlashQLA's form)
///   mixed     per value head h a decay scale A_h ~ U(0, 16), A_0 = 0,
///             A_{HV-1} = 16 (for HV = 1: 16); g = -(A_h / 16) * softplus(z),
///             z ~ N(0,1): head 0 never decays, the last decays strongly
///   beta0     beta = 0 (the state never changes: o = 0 without --h0)
///   beta1     beta = 1
///   unnorm    k = 0.1 * N(0,1), not normalized (q still normalized)
///   bigkey    k normalized, then scaled to ||k||^2 = 2.2: beta ||k||^2 > 2
///             for beta > 0.91, so I - beta k k^T is no contraction there
///             (the CP summaries' guarded warm-up must fall back)
///   collinear nearly collinear keys: per key head one direction u ~
///             N(0,1), k = u + 0.05 N(0,1) L2-normalized; beta = 1, g = 0
///             (the chunk form's worst case: (I + L)^-1's rows become
///             alternating differences, so o = P V_new telescopes and
///             16-bit roundings add up; a 16-bit product-form inverse
///             overflows; docs/perf-notes.md v54 items 3-4)
///   zerokey   the key rows of every 16th token (t mod 16 = 5) all zero
///             (padding-like tokens: no state update, and with the q/k L2
///             norm a factor 1 / sqrt(0 + 1e-6) = 1000 on a zero row),
///             v = 100 N(0,1): a 16-bit product of v with that factor
///             overflows f16 (|v| > 65.5), so a kernel must not form it
/// The random initial state (--h0) is N(0,1) in fp32.
enum class GdnFamily { Weak, NoDecay, Strong, FqStrong, Mixed, Beta0, Beta1,
                       Unnorm, BigKey, Collinear, ZeroKey };

/// The --family spelling of `family`.
const char *gdnFamilyName(GdnFamily family);
/// Parses a --family value; false when unknown.
bool parseGdnFamily(const std::string &name, GdnFamily &out);
/// "weak, nodecay, ..." for messages.
std::string gdnFamilyList();

/// Memory layouts of the 4-D tensors (and of g, beta).
enum class GdnLayout {
  BTHD, ///< [B,T,H,D] and [B,T,HV]
  BHTD, ///< [B,H,T,D] and [B,HV,T] (head-major)
};
const char *gdnLayoutName(GdnLayout layout);

/// A host tensor in the format a kernel takes.
struct HostArray {
  DType type = DType::F32;
  size_t count = 0;
  std::vector<unsigned char> bytes; ///< count elements of `type`
  std::vector<double> values;       ///< the same elements, exactly; may be
                                    ///< empty when the oracle does not run
};

/// The inputs of one run, canonical BTHD (see GdnProblem for the shapes).
struct GdnInputs {
  HostArray q, k, v, g, beta;
  HostArray h0; ///< empty unless problem.hasH0
  /// [HV] f32 each, only with problem.gateInKernel (g is then the raw gate).
  HostArray aLog, dtBias;
};

/// Rounds `values` to `type` (F16, BF16 or F32; one rounding to nearest
/// even), storing the bytes in `out` and, if `keepValues`, the rounded
/// values; `values` is consumed. Returns how many elements changed value
/// (NaN stays NaN and does not count).
size_t encodeHostArray(DType type, std::vector<double> &&values,
                       bool keepValues, HostArray &out);

/// Rounds a double to F16 or BF16 bits with one rounding to nearest even
/// (via a round-to-odd float, much faster than rounding the double directly;
/// equal to gdn::ref::f16BitsFromDouble / bf16BitsFromDouble).
uint16_t roundDoubleTo16(DType type, double x);

/// x rounded once to a float type (F16, BF16 or F32), as a double.
double roundDoubleToType(DType type, double x);

/// Exact double value of element i of a 16-bit or f32 byte array.
double hostElement(DType type, const unsigned char *bytes, size_t i);

/// Generates the inputs of `family` for `problem` (dtype, gType, betaType,
/// hasH0 decide the formats); deterministic in `seed`, independent of the
/// thread count. `keepValues`: keep the double values for the oracle.
void generateGdnInputs(const GdnProblem &problem, GdnFamily family,
                       uint64_t seed, bool keepValues, GdnInputs &out);

/// Transposes [B, heads, T, row] (head-major) into [B, T, heads, row]
/// (toHeadMajor = false), or back (toHeadMajor = true); `rowBytes` is the
/// size of the innermost row (D elements, or one element for g and beta).
void transposeHeads(const unsigned char *src, unsigned char *dst, int64_t B,
                    int64_t heads, int64_t T, size_t rowBytes,
                    bool toHeadMajor);

/// What --load found in a directory (headers only, plus cu_seqlens).
struct GdnLoadPlan {
  std::string dir;
  GdnLayout layout = GdnLayout::BTHD;
  bool bf16Bits = false; ///< <u2/<i2 arrays hold bfloat16 bits (--dtype bf16)
  NpyHeader q, k, v, g, beta, h0;
  bool hasH0 = false;
  bool hasCuSeqlens = false;
  /// Set when q.npy is a 16-bit float array: the dtype it holds.
  bool q16 = false;
  DType qDtype = DType::F16;
};

/// Whether optional input `path` (h0.npy, cu_seqlens.npy) is present:
/// false only when nothing exists at the path (lstat: ENOENT). A dangling
/// symbolic link or an unreadable directory entry is BadInput, never
/// "absent".
Status optionalFilePresent(const std::string &path, bool &present);

/// Non-finite values among the inputs (counted from the kernel-format
/// bytes, so also without the oracle's doubles).
struct GdnNonFinite {
  size_t count = 0;
  std::string first; ///< e.g. "q[0,7,0,104] = nan"; "" when count = 0
};
/// Counts the NaN and infinite values of q, k, v, g, beta and h0 of
/// `problem` (`inputs` canonical BTHD).
GdnNonFinite findNonFiniteInputs(const GdnProblem &problem,
                                 const GdnInputs &inputs);

/// Reads the headers of DIR/{q,k,v,g,beta}.npy and, if present, DIR/h0.npy
/// and DIR/cu_seqlens.npy (which is read whole), checks their shapes against
/// each other in `layout`, and sets problem.B, T, H, HV, hasH0 and cuSeqlens
/// from them. BadInput naming the file and the mismatch.
Status inspectGdnInputs(const std::string &dir, GdnLayout layout,
                        bool bf16Bits, GdnProblem &problem,
                        GdnLoadPlan &plan);

/// Reads the data planned by inspectGdnInputs, transposes head-major arrays
/// to BTHD and converts them to the formats of `problem`. The names of files
/// whose values had to be rounded are appended to `rounded`.
Status loadGdnInputs(const GdnLoadPlan &plan, const GdnProblem &problem,
                     bool keepValues, GdnInputs &out,
                     std::vector<std::string> &rounded);

/// The .npy type used to save elements of `type` (bf16 as <u2 bits).
NpyType npyTypeFor(DType type);

/// Writes DIR/NAME.npy from canonical BTHD bytes: `row` = 0 for a 3-D
/// [B,T,heads] tensor, else the innermost extent; in `layout` (head-major
/// files are transposed on the way).
Status saveGdnTensor(const std::string &dir, const std::string &name,
                     NpyType type, const unsigned char *bytes, int64_t B,
                     int64_t T, int64_t heads, int64_t row, GdnLayout layout);

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_GDNINPUTS_H
