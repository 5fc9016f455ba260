//===- Manifest.h - gdn-run kernel manifest ---------------------*- C++ -*-===//
//
// A manifest describes one kernel of a PTX (or cubin) file that gdn-opt wrote:
// its symbol, launch configuration (block, cluster, dynamic shared memory),
// parameter list, and free-form `meta.*` keys that configure the operator
// driver which checks it. The format is text, one `key = value` per line:
//
//   gdn_manifest = 1              # format version, required, must be 1
//   kernel = gemm_f16_128x128x64  # kernel symbol, required
//   ptx = gemm.ptx                # relative to the manifest's directory
//   ptx_hash = fnv1a64w:0123...   # optional: ptxHash() (KernelContract.h)
//                                 # of the PTX gdn-opt wrote with it; the
//                                 # host checks it (KernelImage.h)
//   target = sm_90a               # required
//   block = 128,1,1               # required
//   cluster = 1,1,1               # optional, default 1,1,1
//   shared_bytes = 98304          # dynamic shared memory, required
//   requires_multiple.K = 8       # optional, per integer scalar param: the
//                                 # kernel's vector accesses need K % 8 == 0
//                                 # (tile-assign-layouts; checkRequired-
//                                 # Multiples checks it before a launch)
//   index_bits = 32               # optional, 32 or 64 (default): with 32
//                                 # the kernel's element offsets are i32, so
//                                 # every buffer it takes must hold at most
//                                 # kMaxElements32 elements (the operator
//                                 # driver checks before binding)
//   grid_dependency = 1           # optional, 0 (default) to 3: 1, the
//                                 # kernel waits for the kernel before it
//                                 # in its stream (griddepcontrol.wait: at
//                                 # entry, or where a "deferred" kernel's
//                                 # blocks must), so the launcher
//                                 # may start it early (programmatic stream
//                                 # serialization); 2, launched so, it
//                                 # waits through ready flags instead; 3,
//                                 # both (Manifest::gridDependency)
//   param = A:ptr<f16>            # repeated, in kernel parameter order
//   param = tmA:tensormap         # a TMA descriptor passed by value
//   tensormap.tmA = base=A; dims=K, M; strides=K; box=64, 128; swizzle=128
//   meta.op = gemm                # operator driver; other meta.* free-form
//
// `#` starts a comment, blank lines are ignored and whitespace around tokens
// is insignificant. The parser rejects unknown keys, duplicate keys (all but
// `param`), missing required keys, malformed values and other versions, with
// a `file:line: error: problem` message.
//
// Tensor maps (TMA): a `tensormap` parameter is a 128-byte CUtensorMap the
// kernel takes by value (`.param .align 64 .b8 name[128]`). The host builds
// it with cuTensorMapEncodeTiled (TensorMaps.h) from the line
// `tensormap.<name> = key=value; key=value; ...` (one per tensormap
// parameter, keys in any order):
//
//   base=P          a ptr<...> parameter: the global address; its element
//                   type is the map's (f16, bf16, f32, i32, i64)
//   dims=E, E, ...  the extents, innermost first (as cuTensorMapEncodeTiled
//                   and PTX order them), rank 1..5
//   strides=E, ...  rank-1 strides of dims 1..rank-1, in elements
//   box=N, N, ...   the box (shared memory tile) per dim, integers 1..256
//   swizzle=S       none | 32 | 64 | 128 (bytes); box[0] * element size must
//                   not exceed the swizzle span
//   l2=L            none | 64 | 128 | 256 (L2 promotion; default none)
//   fill=F          zero | nan (out-of-bounds fill; default zero; nan only
//                   for floating-point maps)
//
// E are integer expressions (GridExpr.h) over the names the operator driver
// binds (e.g. M, N, K): their syntax is checked here, their values when the
// kernel's arguments are bound.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_MANIFEST_H
#define GDN_TOOLS_GDN_RUN_MANIFEST_H

#include "Status.h"

#include <array>
#include <map>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gdn::run {

/// Element types of kernel parameters.
enum class DType { F16, BF16, F32, I32, I64 };

/// The manifest spelling of `type` ("f16", "bf16", ...).
const char *dtypeName(DType type);
/// Size of one element in bytes.
size_t dtypeSize(DType type);

/// A parameter type: a pointer to global memory of `elem`, a scalar, or a
/// TMA tensor map (128 bytes by value; `elem` unused).
struct ParamType {
  bool isPointer = false;
  DType elem = DType::I32;
  bool isTensorMap = false;

  bool operator==(const ParamType &o) const {
    return isPointer == o.isPointer && elem == o.elem &&
           isTensorMap == o.isTensorMap;
  }
  bool operator!=(const ParamType &o) const { return !(*this == o); }
  /// True for i32 and i64 scalars.
  bool isIntScalar() const {
    return !isPointer && !isTensorMap &&
           (elem == DType::I32 || elem == DType::I64);
  }
  /// The manifest spelling, e.g. "ptr<f16>", "i32" or "tensormap".
  std::string str() const;
};

/// Parses "ptr<f16>", "ptr<bf16>", "ptr<f32>", "ptr<i32>", "ptr<i64>", "i32",
/// "i64", "f32" or "tensormap" (whitespace inside the brackets allowed).
/// False otherwise.
bool parseParamType(const std::string &text, ParamType &out);

/// One kernel parameter, as declared by a `param = name:type` line.
struct Param {
  std::string name;
  ParamType type;
  int line = 0;
};

/// One `meta.<key> = value` entry (key stored without the "meta." prefix).
struct MetaEntry {
  std::string key;
  std::string value;
  int line = 0;
};

/// Swizzle, L2 promotion and out-of-bounds fill of a tensor map.
enum class TmaSwizzle { None, B32, B64, B128 };
enum class TmaL2Promotion { None, B64, B128, B256 };
enum class TmaFill { Zero, Nan };

/// One `tensormap.<name> = ...` line (see the file comment).
struct TensorMapDecl {
  std::string name;   ///< the tensormap parameter
  int line = 0;
  size_t paramIndex = 0; ///< index of the tensormap parameter in `params`
  std::string base;      ///< the ptr<...> parameter
  size_t baseIndex = 0;  ///< its index in `params`
  DType elem = DType::F16; ///< the base pointer's element type
  std::vector<std::string> dims;    ///< expressions, innermost first
  std::vector<std::string> strides; ///< rank-1 expressions, in elements
  std::vector<uint32_t> box;        ///< rank integers 1..256
  TmaSwizzle swizzle = TmaSwizzle::None;
  TmaL2Promotion l2 = TmaL2Promotion::None;
  TmaFill fill = TmaFill::Zero;

  size_t rank() const { return dims.size(); }
};

/// Bytes of one swizzle span (0 for none).
unsigned tmaSwizzleBytes(TmaSwizzle swizzle);

/// A `requires_multiple.<name> = <multiple>` line.
struct RequiredMultiple {
  std::string name; ///< an integer scalar parameter
  int64_t multiple = 1;
  int line = 0;
};

/// A parsed manifest.
struct Manifest {
  std::string path;    ///< the manifest file, as given (used in messages)
  std::string ptx;     ///< the `ptx` value, as written
  std::string ptxPath; ///< `ptx` resolved against the manifest's directory
  /// `ptx_hash` (optional): ptxHash() of the PTX file gdn-opt wrote beside
  /// this manifest (KernelContract.h); empty when the manifest has none.
  std::string ptxHash;
  int ptxHashLine = 0;
  int version = 0;
  std::string kernel;
  std::string target; ///< e.g. "sm_90a"
  std::array<unsigned, 3> block = {0, 0, 0};
  std::array<unsigned, 3> cluster = {1, 1, 1};
  uint32_t sharedBytes = 0;
  /// Width of the kernel's index arithmetic (index_bits): 32 or 64.
  int indexBits = 64;
  /// grid_dependency: 1, the kernel waits for its stream predecessor (at
  /// entry, or, tile.grid_dependency = "deferred", before each block
  /// touches what that one writes, and always in some block), so it may be
  /// launched with programmatic stream serialization; 2, launched so too,
  /// it runs beside its predecessor and waits for that one's data through
  /// ready flags (ld.acquire); 3, both:
  /// it waits at entry for its predecessor and through ready flags for an
  /// earlier kernel that may still run; 0, neither.
  int gridDependency = 0;
  /// grid_dependency 1 or 3: the kernel runs griddepcontrol.wait.
  bool waitsForGrid() const {
    return gridDependency == 1 || gridDependency == 3;
  }
  /// grid_dependency 2 or 3: the kernel waits for ready flags.
  bool waitsForFlags() const { return gridDependency >= 2; }
  /// The most elements a buffer of a kernel with 32-bit indices may hold:
  /// 2^30, half the i32 range, so that the offsets a masked tile computes
  /// past the end of a buffer (up to a tile's rows further) stay in range
  /// as long as a tile's rows times the row stride are below 2^30 too: the
  /// GDN buffers' strides are at most HV * 128 elements per token (HV <=
  /// 65535, the grid's y limit; 64-row tiles: < 2^29), and the GEMM driver
  /// bounds the operands rounded up to whole tiles.
  static constexpr int64_t kMaxElements32 = int64_t(1) << 30;
  std::vector<Param> params;
  std::vector<MetaEntry> meta; ///< in file order
  /// One per tensormap parameter, in parameter order.
  std::vector<TensorMapDecl> tensorMaps;
  /// The launch requirements, in file order.
  std::vector<RequiredMultiple> requiredMultiples;

  /// The entry for `meta.<key>`, or null.
  const MetaEntry *findMeta(const std::string &key) const;
  /// The value of `meta.<key>`, or `fallback` when absent.
  std::string metaString(const std::string &key,
                         const std::string &fallback = "") const;
  /// Reads `meta.<key>` as an integer in [minValue, maxValue]. When absent,
  /// `out` = `fallback` if `required` is false, otherwise a BadInput error.
  Status metaInt(const std::string &key, int64_t &out, bool required,
                 int64_t fallback = 0, int64_t minValue = INT64_MIN,
                 int64_t maxValue = INT64_MAX) const;
  /// "path:line" (or "path" for line 0), the prefix of diagnostics.
  std::string location(int line) const;
  /// The parameter called `name`, or null.
  const Param *findParam(const std::string &name) const;
  /// The tensor map of parameter `name`, or null.
  const TensorMapDecl *findTensorMap(const std::string &name) const;
  /// Number of threads per block (64-bit: three 16-bit dims cannot wrap).
  uint64_t threadsPerBlock() const {
    return uint64_t(block[0]) * block[1] * block[2];
  }
  /// Blocks per cluster.
  uint64_t blocksPerCluster() const {
    return uint64_t(cluster[0]) * cluster[1] * cluster[2];
  }
  /// True when any cluster dimension is larger than 1.
  bool hasCluster() const { return blocksPerCluster() > 1; }
};

/// Parses manifest `text`; `path` names the file in diagnostics and is the
/// base for resolving `ptx`. On error returns BadInput with a message of the
/// form "path:line: error: problem".
Status parseManifest(const std::string &text, const std::string &path,
                     Manifest &out);

/// Checks the manifest's requires_multiple lines against the scalars the
/// launcher binds (`values`: name -> value; a name it does not bind is an
/// error too). BadInput "path:line: error: kernel K needs N to be a
/// multiple of 8 (its vector accesses rely on it), got N = 4100".
Status checkRequiredMultiples(const Manifest &m,
                              const std::map<std::string, int64_t> &values);

/// Reads and parses the manifest file at `path`.
Status loadManifest(const std::string &path, Manifest &out);

/// Reads a whole file; `what` ("manifest", "PTX file") names it in the
/// BadInput message on failure. Only regular files are read: a FIFO, a
/// device or a directory is refused (opened without blocking, so that a
/// FIFO without a writer cannot hang gdn-run).
Status readFile(const std::string &path, const std::string &what,
                std::string &out);

/// Opens `path` for reading (O_RDONLY | O_CLOEXEC, without blocking on a
/// FIFO) and checks that it is a regular file; `fd` is the open descriptor
/// in blocking mode and `size` its size. BadInput "PATH: error: cannot read
/// WHAT: ..." otherwise (nothing left open).
Status openRegularFile(const std::string &path, const std::string &what,
                       int &fd, uint64_t &size);

/// True for a manifest `target` this gdn-run knows: sm_XX for a CUDA
/// architecture (50 ... 121), with an `a` suffix from sm_90 on and an `f`
/// suffix from sm_100 on.
bool isKnownTarget(const std::string &target);

/// Strict decimal integer parse (optional leading '-', no spaces, no
/// overflow). Exposed for the command line parser.
bool parseInt64(const std::string &text, int64_t &out);

/// Removes leading and trailing whitespace.
std::string trim(const std::string &text);

/// The directory part of `path` ("" when it has none, "/" for "/x").
std::string directoryOf(const std::string &path);

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_MANIFEST_H
