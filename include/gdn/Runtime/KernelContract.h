//===- KernelContract.h - the typed kernel <-> runtime contract -*- C++ -*-===//
//
// A kernel's `tile.meta` dictionary becomes its manifest's `meta.*` lines,
// which the runtime (lib/Runtime) reads to plan, size and launch it. The
// expressions there -- the launch grid ("NT,HV,1"), workspace sizes
// (ws_gamma = "B*T*HV") -- are parsed by the runtime's own parser
// (GridExpr.h) at compile time: gdn-opt's verifier of `tile.meta`
// (TileDialect::verifyOperationAttribute) calls verifyKernelMeta, so a
// mistake is a compile error instead of a failed launch. Plain C++ (no
// MLIR, no CUDA): linked by the tile dialect and by the runtime.
//
// Rules (every op):
//   op, grid and ws_<X> are strings (ws_<X> may be an integer); other keys
//   are free-form unless listed below;
//   grid      three comma-separated expressions (x, y, z), each parsed;
//   ws_<X>    one expression, parsed; X a C identifier;
// and for op = "gdn_prefill", whose set of names is known (the problem
// scalars of GdnSequence.h: B T H HV DK DV N NT NS has_h0 varlen):
//   stage (string), order (integer >= 0) and grid are required;
//   every name in grid and ws_<X> is one of the scalars;
//   path is "direct" or "cp", dtype "f16" or "bf16", block_v an integer
//   that divides 128.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_RUNTIME_KERNELCONTRACT_H
#define GDN_RUNTIME_KERNELCONTRACT_H

#include <string>
#include <vector>

namespace gdn::run {

/// One tile.meta entry: a string value, an integer (isInt, text holds its
/// decimal value) or anything else (isOther: free-form keys may hold any
/// attribute; the contract's keys may not).
struct KernelMetaEntry {
  std::string key;
  std::string text;
  bool isInt = false;
  bool isOther = false;
};

/// The problem scalars grid and workspace expressions of gdn_prefill
/// kernels may use.
const std::vector<std::string> &gdnExpressionNames();

/// Checks `entries` (one kernel's tile.meta); "" when they hold, else one
/// message naming the key, e.g. "grid = \"NT,HV\": needs 3 expressions
/// (x, y, z), got 2".
std::string verifyKernelMeta(const std::vector<KernelMetaEntry> &entries);

/// The `ptx_hash` a manifest records for its PTX module file (the exact
/// bytes gdn-opt wrote): "fnv1a64w:" and 16 lowercase hex digits of a
/// 64-bit FNV-1a over the file's 8-byte little-endian words (offset basis
/// 0xcbf29ce484222325, prime 0x100000001b3: h = (h ^ word) * prime), the
/// last word zero-padded, then h ^= the length in bytes and h *= prime. The
/// runtime recomputes it: a PTX file beside a manifest of another build
/// (another tensor map box, another parameter list) is refused.
std::string ptxHash(const std::string &bytes);

} // namespace gdn::run

#endif // GDN_RUNTIME_KERNELCONTRACT_H
