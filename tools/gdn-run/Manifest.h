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
//   target = sm_90a               # required
//   block = 128,1,1               # required
//   cluster = 1,1,1               # optional, default 1,1,1
//   shared_bytes = 98304          # dynamic shared memory, required
//   param = A:ptr<f16>            # repeated, in kernel parameter order
//   meta.op = gemm                # operator driver; other meta.* free-form
//
// `#` starts a comment, blank lines are ignored and whitespace around tokens
// is insignificant. The parser rejects unknown keys, duplicate keys (all but
// `param`), missing required keys, malformed values and other versions, with
// a `file:line: error: problem` message.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_MANIFEST_H
#define GDN_TOOLS_GDN_RUN_MANIFEST_H

#include "Status.h"

#include <array>
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

/// A parameter type: a pointer to global memory of `elem`, or a scalar.
struct ParamType {
  bool isPointer = false;
  DType elem = DType::I32;

  bool operator==(const ParamType &o) const {
    return isPointer == o.isPointer && elem == o.elem;
  }
  bool operator!=(const ParamType &o) const { return !(*this == o); }
  /// The manifest spelling, e.g. "ptr<f16>" or "i32".
  std::string str() const;
};

/// Parses "ptr<f16>", "ptr<bf16>", "ptr<f32>", "ptr<i32>", "ptr<i64>", "i32",
/// "i64" or "f32" (whitespace inside the brackets allowed). False otherwise.
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

/// A parsed manifest.
struct Manifest {
  std::string path;    ///< the manifest file, as given (used in messages)
  std::string ptx;     ///< the `ptx` value, as written
  std::string ptxPath; ///< `ptx` resolved against the manifest's directory
  int version = 0;
  std::string kernel;
  std::string target; ///< e.g. "sm_90a"
  std::array<unsigned, 3> block = {0, 0, 0};
  std::array<unsigned, 3> cluster = {1, 1, 1};
  uint32_t sharedBytes = 0;
  std::vector<Param> params;
  std::vector<MetaEntry> meta; ///< in file order

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
  /// Number of threads per block.
  unsigned threadsPerBlock() const { return block[0] * block[1] * block[2]; }
  /// True when any cluster dimension is larger than 1.
  bool hasCluster() const {
    return cluster[0] * cluster[1] * cluster[2] > 1;
  }
};

/// Parses manifest `text`; `path` names the file in diagnostics and is the
/// base for resolving `ptx`. On error returns BadInput with a message of the
/// form "path:line: error: problem".
Status parseManifest(const std::string &text, const std::string &path,
                     Manifest &out);

/// Reads and parses the manifest file at `path`.
Status loadManifest(const std::string &path, Manifest &out);

/// Reads a whole file; `what` ("manifest", "PTX file") names it in the
/// BadInput message on failure.
Status readFile(const std::string &path, const std::string &what,
                std::string &out);

/// Strict decimal integer parse (optional leading '-', no spaces, no
/// overflow). Exposed for the command line parser.
bool parseInt64(const std::string &text, int64_t &out);

/// Removes leading and trailing whitespace.
std::string trim(const std::string &text);

/// The directory part of `path` ("" when it has none, "/" for "/x").
std::string directoryOf(const std::string &path);

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_MANIFEST_H
