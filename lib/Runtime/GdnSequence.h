//===- GdnSequence.h - the kernels of a GDN prefill, bound by name -*- C++ -*-//
//
// The GDN prefill runs as several kernels in order, each with its own
// manifest. This file validates such a set of manifests and binds every
// kernel parameter by its name to a GDN tensor, a shared workspace or a
// problem scalar (the "GDN kernel ABI"):
//
//   meta.op    = gdn_prefill                  required on every manifest
//   meta.stage = <name>                       required, for messages
//   meta.order = <int>                        required, unique: launch order
//   meta.grid  = <expr>, <expr>, <expr>       required, see GridExpr.h
//   meta.ws_X  = <expr>                       element count of workspace X
//   meta.path  = direct | cp                  optional, see below
//   meta.when  = qk_l2norm                    optional, see below
//   meta.block_v = <int>                      optional, see below
//   meta.form  = fused                        optional, see below
//   meta.replaces = <stage>, ...              with meta.form, see below
//
// meta.path: the prefill runs either directly (one block walks a whole
// sequence) or context-parallel (GdnCp.h: segment summaries, correction
// scan, replay). A manifest with meta.path belongs to that path only, one
// without it to both (e.g. the shared prep kernel); when no manifest has
// meta.path, all of them form the direct path.
//
// meta.block_v (> 0): the value columns one block owns. A kernel directory
// may hold the forward-type kernels of a path in several variants that
// differ in block_v (e.g. gdn_chunk_fwd_f16 with block_v 16 and
// gdn_chunk_fwd_vm128_f16 with block_v 128, same meta.order). The variants
// of a path are the distinct meta.block_v values among the path's own
// manifests (meta.path equal to the path; all manifests when none has
// meta.path); a path without any meta.block_v has one variant. Variant V of
// path P runs the manifests of P and those without meta.path whose
// meta.block_v is absent or V (e.g. the cp scan, which has no block_v, in
// every cp variant; gdn_chunk_prep with block_v 16 and gdn_chunk_prep_k
// with block_v 128, common to both paths, each in its variant; a variant
// left without any kernel of such a stage (meta.order) is an error that
// names the other variant's kernel). selectGdnPath picks the manifests of
// a path and variant before buildGdnSequence.
//
// meta.form: a path's variant may come in two forms, the default one and
// `fused` (one kernel that forms the prep's products and runs the chunk
// loop, then its prep for flagged sequences and its refined kernel): a
// manifest with meta.form = F belongs to
// form F only, one without it to the default form, and the stages (by
// meta.stage) that some manifest of form F lists in its meta.replaces run
// only in the default form; the rest (the optional stages) run in both.
// selectGdnForm keeps one form after selectGdnPath.
//
// meta.when = qk_l2norm: the stage runs only when the problem asks for the
// L2 normalization of q and k (GdnProblem::qkL2Norm; the path choice drops
// it otherwise). It takes q and k and writes the workspaces q_l2 and k_l2
// (declaring meta.ws_q_l2 and meta.ws_k_l2); every later stage's q and k
// are then bound to those workspaces instead of the caller's tensors.
// meta.when = gate_beta likewise for g and beta (workspaces g_act and
// beta_act), when the problem asks for a per-token transform of them
// (GdnProblem::gateInKernel, betaSigmoid, negEigval; the scalars
// gate_in_kernel, beta_sigmoid and neg_eigval say which, the tensors
// a_log and dt_bias [HV] f32 feed the gate and may be null without it).
//
// Parameters (`param = name:type`):
//   q, k        ptr<f16|bf16>  [B,T,H,DK]    all 16-bit tensors share one
//   v, o        ptr<f16|bf16>  [B,T,HV,DV]   dtype (q's)
//   g           ptr<f32> (or ptr<f16|bf16>)  [B,T,HV]
//   beta        ptr<dtype> or ptr<f32>       [B,T,HV]
//   h0, ht      ptr<f32>       [N,HV,DK,DV]  initial / final state
//   cu_seqlens  ptr<i32|i64>   [N+1]
//   cp_bounds   ptr<i32|i64>   [NS+1]       CP segmentation (GdnCp.h):
//   cp_seq      ptr<i32|i64>   [NS]         segment s covers packed tokens
//   cp_last     ptr<i32|i64>   [NS]         [cp_bounds[s], cp_bounds[s+1])
//   cp_seg_start ptr<i32|i64>  [N+1]        of sequence cp_seq[s]; cp_last[s]
//                                           = 1 for the last segment of a
//                                           sequence; sequence n has segments
//                                           cp_seg_start[n] .. [n+1]-1
//   a_log       ptr<f32>       [HV]         the gate's parameters (gate_beta
//   dt_bias     ptr<f32>       [HV]         stage, with gate_in_kernel)
//   chunk_map   ptr<i32|i64>   [NT,4]       for each chunk of 64 tokens in
//                                           packed order (chunks never span
//                                           two sequences): its sequence, its
//                                           index in that sequence and the
//                                           sequence's bounds cu_seqlens[s],
//                                           cu_seqlens[s+1], so a kernel with
//                                           a block per chunk finds them all
//                                           with one round of loads (no
//                                           search of cu_seqlens, no load
//                                           that waits for another)
//   gate_in_kernel beta_sigmoid neg_eigval   i32 or i64 flags (0 or 1)
//   qk_l2norm state_v_first                  (state_v_first: h0 and ht are
//                                           [N, HV, DV, DK])
//   B T H HV DK DV N NT NS has_h0 varlen     i32 or i64 scalars (NS: number
//                                           of CP segments; N on the direct
//                                           path, one segment per sequence)
//   scale                                    f32 scalar
//   X:tensormap                              a TMA tensor map over another
//                                           parameter of the kernel (its
//                                           tensormap.X line, Manifest.h);
//                                           dims/strides over the scalars
//   any other ptr<...> X: a workspace. Some manifest at or before X's first
//   user in launch order must declare meta.ws_X; one buffer per name is
//   shared by the whole sequence and holds ws_X elements of the widest
//   element type any kernel declares for X. meta.zero_ws = "X, ..." (on a
//   manifest that declares each meta.ws_X it names): the launcher fills
//   those workspaces with zeros before the sequence's first kernel, on
//   every call (e.g. ready flags that kernels set and wait for). A kernel
//   with grid_dependency 2 or 3 (it waits for ready flags) must take such a
//   workspace.
// cu_seqlens, the cp_* tensors and chunk_map are computed on the host and uploaded
// once per problem (not poisoned, not timed). Scalars are passed by value,
// so each manifest picks i32 or i64 for itself. A tensor declared with two
// different types across the sequence, any other scalar name, a workspace no
// kernel takes, and a sequence in which no kernel takes o or ht are errors.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_GDNSEQUENCE_H
#define GDN_TOOLS_GDN_RUN_GDNSEQUENCE_H

#include "KernelLaunch.h"
#include "GridExpr.h"
#include "Manifest.h"

#include <array>
#include <string>
#include <vector>

namespace gdn::run {

/// The meta.op value of GDN prefill kernels.
constexpr const char *kGdnOpName = "gdn_prefill";
/// The meta.when value of the optional q/k L2-normalization stage.
constexpr const char *kGdnWhenQkL2Norm = "qk_l2norm";
/// The meta.when value of the optional per-token gate/beta transform stage.
constexpr const char *kGdnWhenGateBeta = "gate_beta";

/// True when `m` declares meta.fuses listing `stage` (a meta.when value): it
/// does that optional stage's work itself.
bool gdnStageFuses(const Manifest &m, const std::string &stage);

/// Tensors of the GDN kernel ABI.
enum class GdnTensorId {
  Q, K, V, O, G, Beta, H0, Ht, CuSeqlens,
  CpBounds, CpSeq, CpLast, CpSegStart, ChunkMap, ALog, DtBias
};
constexpr int kGdnTensorCount = 16;
/// True for the host-computed int tensors (cu_seqlens, cp_*, chunk_map).
bool gdnIsIndexTensor(GdnTensorId id);
/// The parameter name of `id` ("q", "cu_seqlens", ...).
const char *gdnTensorName(GdnTensorId id);

/// chunk_map for packed boundaries `cu` ({0, ..., B*T}): for each chunk of
/// 64 tokens, sequence by sequence, {sequence, chunk index within it,
/// cu[sequence], cu[sequence + 1]} (4 * NT values; an empty sequence has no
/// chunk).
std::vector<int64_t> gdnChunkMap(const std::vector<int64_t> &cu);

/// Scalars of the GDN kernel ABI.
enum class GdnScalarId {
  B, T, H, HV, DK, DV, N, NT, NS, HasH0, Varlen, Scale, CpTheta,
  GateInKernel, BetaSigmoid, NegEigval, QkL2Norm, StateVFirst
};
constexpr int kGdnScalarCount = 18;
/// True for the f32 scalars (scale, cp_theta), bound from the problem's
/// doubles; the others are integers of ExprVariables.
bool gdnIsFloatScalar(GdnScalarId id);
/// The parameter name of `id` ("B", "has_h0", "scale", ...).
const char *gdnScalarName(GdnScalarId id);

/// The number of elements of tensor `id` for the problem's scalars (B, T,
/// H, HV, DK, DV, N, NS; a missing one counts as 0).
int64_t gdnTensorElements(GdnTensorId id, const ExprVariables &scalars);

/// Splits a kernel set into its build with 32-bit indices (manifests with
/// index_bits = 32) and the rest (64-bit indices).
void splitGdnIndexWidth(const std::vector<const Manifest *> &manifests,
                        std::vector<const Manifest *> &narrow,
                        std::vector<const Manifest *> &wide);

/// True when no manifest of `manifests` with index_bits = 32 takes a tensor
/// or workspace of more than Manifest::kMaxElements32 elements for
/// `scalars` (evaluateGdnSequence reports the first that does).
bool gdnFitsIndex32(const std::vector<const Manifest *> &manifests,
                    const ExprVariables &scalars);

/// How one kernel parameter is bound.
struct GdnArg {
  /// TensorMap: a `param = X:tensormap` (Manifest.h), built from its base
  /// tensor or workspace after the others are bound (TensorMaps.h); its
  /// expressions use the problem scalars.
  enum Kind { Tensor, Workspace, Scalar, TensorMap };
  Kind kind = Tensor;
  int index = 0; ///< GdnTensorId, index into workspaces, or GdnScalarId
  const Param *param = nullptr;
};

/// One kernel of the sequence.
struct GdnStage {
  const Manifest *manifest = nullptr;
  std::string name; ///< meta.stage
  int64_t order = 0;
  std::vector<GdnArg> args; ///< one per manifest parameter, in order
  Dim3 grid;                ///< set by evaluateGdnSequence
};

/// A workspace buffer shared by the kernels of the sequence.
struct GdnWorkspace {
  std::string name;
  size_t elemSize = 0; ///< the widest element type declared for it
  /// The meta.ws_<name> entries (one per declaring manifest).
  struct Decl {
    const Manifest *manifest = nullptr;
    const MetaEntry *entry = nullptr;
  };
  std::vector<Decl> decls;
  int64_t elements = 0; ///< set by evaluateGdnSequence
  /// Named by a declaring manifest's meta.zero_ws: zero-filled before the
  /// first kernel of every call.
  bool zeroed = false;
  size_t bytes() const { return static_cast<size_t>(elements) * elemSize; }
};

/// A validated sequence.
struct GdnSequence {
  std::vector<GdnStage> stages; ///< in launch order
  std::vector<GdnWorkspace> workspaces;
  DType dtype = DType::F16;    ///< q, k, v, o
  DType gType = DType::F32;    ///< g (f32 unless a manifest says otherwise)
  DType betaType = DType::F16; ///< beta (dtype unless a manifest says f32)
  DType cuType = DType::I32;   ///< cu_seqlens
  std::array<bool, kGdnTensorCount> usesTensor{}; ///< taken by some kernel
  /// The element type of each tensor some kernel takes.
  std::array<DType, kGdnTensorCount> tensorTypes{};

  bool uses(GdnTensorId id) const {
    return usesTensor[static_cast<int>(id)];
  }
  DType typeOf(GdnTensorId id) const {
    return tensorTypes[static_cast<int>(id)];
  }
  /// True when some kernel takes a cp_* tensor.
  bool usesCpTensors() const;
  /// True when some kernel waits for an earlier one through ready flags
  /// (grid_dependency 2 or 3): the kernels share the SMs, so every one gets
  /// the largest shared-memory carveout (preferMaxSharedCarveout).
  bool waitsForFlags() const;
};

/// The two ways of running the prefill (meta.path).
enum class GdnPath { Direct, Cp };
/// "direct" or "cp".
const char *gdnPathName(GdnPath path);

/// A set of manifests split by meta.path and meta.block_v.
struct GdnPaths {
  /// The manifests of each path, all variants (both include the untagged
  /// ones), in the order given.
  std::vector<const Manifest *> direct, cp;
  /// Some manifest says meta.path = direct / cp.
  bool directTagged = false, cpTagged = false;
  /// All manifests, for messages.
  std::vector<const Manifest *> all;
  /// meta.block_v of each manifest of `all` (0: none), in the same order.
  std::vector<int64_t> blockV;
  /// The variants of each path: the distinct meta.block_v of its own
  /// manifests, ascending; empty when none has one (a single variant).
  std::vector<int64_t> directVariants, cpVariants;

  /// No manifest has meta.path (then all form the direct path).
  bool untagged() const { return !directTagged && !cpTagged; }
  /// True when `path` has its own manifests (the direct path also when no
  /// manifest is tagged).
  bool offers(GdnPath path) const {
    return path == GdnPath::Cp ? cpTagged : directTagged || untagged();
  }
  /// directVariants or cpVariants.
  const std::vector<int64_t> &variants(GdnPath path) const {
    return path == GdnPath::Cp ? cpVariants : directVariants;
  }
  /// True when `path` has a variant with meta.block_v = `blockV`.
  bool offersVariant(GdnPath path, int64_t blockV) const;
};

/// "16, 64": a list of block_v values for messages ("none" when empty).
std::string gdnBlockVList(const std::vector<int64_t> &values);

/// Splits `manifests` by meta.path and collects the meta.block_v variants.
/// BadInput "manifest:line: error: ..." for a meta.path other than direct
/// or cp, and for a meta.block_v that is not a positive integer.
Status splitGdnPaths(const std::vector<const Manifest *> &manifests,
                     GdnPaths &out);

/// The manifests of `path` in the variant with meta.block_v = `blockV`
/// (untagged ones included); `ignored` lists the paths of the other path's
/// manifests and of the other variants'. `blockV` must be one of
/// paths.variants(path), or 0 when the path has a single variant. BadInput
/// "no manifest for the cp path (meta.path = cp) among ..." when `path` is
/// not offered, "the cp path has no variant with meta.block_v = 32
/// (offered: meta.block_v = 16, 64)" for a wrong `blockV`.
Status selectGdnPath(const GdnPaths &paths, GdnPath path,
                     std::vector<const Manifest *> &selected,
                     std::vector<std::string> &ignored, int64_t blockV = 0);

/// meta.form of the fused prep + forward kernel and the two kernels after
/// it (its prep for flagged sequences, its refined kernel).
constexpr const char *kGdnFormFused = "fused";

/// True when some manifest of `manifests` has meta.form = `form` and
/// meta.replaces (a form without that list is not offered: its kernels
/// would run beside the default form's).
bool gdnOffersForm(const std::vector<const Manifest *> &manifests,
                   const std::string &form);

/// Keeps the manifests of form `form` of `selected` (one path's variant,
/// selectGdnPath; "" the default form): with a form, its own manifests and
/// those without meta.form whose meta.stage none of its meta.replaces
/// lists; without, those without meta.form. The paths dropped are appended
/// to `ignored`. BadInput when `form` is not offered (gdnOffersForm). A
/// replaced stage that no manifest has is nothing to drop (a misspelt one
/// leaves its kernel beside the form's, with the same meta.order, which
/// buildGdnSequence refuses).
Status selectGdnForm(std::vector<const Manifest *> &selected,
                     const std::string &form,
                     std::vector<std::string> &ignored);

/// The 16-bit dtype of a manifest's q, k, v or o parameter (the first one
/// declared), else its `meta.dtype = f16|bf16` (kernels of a dtype's build
/// that take none of those tensors, like the CP scan); false when it has
/// neither.
bool gdnManifestDtype(const Manifest &manifest, DType &out);

/// Picks the manifests of one dtype from a set that holds several (e.g. a
/// kernel directory with the f16 and the bf16 build): with `dtype` ("f16",
/// "bf16") those of that dtype plus those without q/k/v/o parameters; with
/// "" all manifests when they agree, else BadInput asking for --dtype.
/// `ignored` lists the paths left out.
Status selectGdnManifests(const std::vector<const Manifest *> &manifests,
                          const std::string &dtype,
                          std::vector<const Manifest *> &selected,
                          std::vector<std::string> &ignored);

/// Validates `manifests` (all meta.op = gdn_prefill) as one sequence and
/// binds their parameters; nothing here depends on the problem size.
/// With `qkL2NormFused` (the problem asks for the q/k L2 normalization and
/// a stage declares meta.fuses = qk_l2norm: it normalizes q and k itself
/// instead of a meta.when stage), the stages after it read q and k from
/// its workspaces q_l2 and k_l2 where it declares them; a fusing stage
/// without them normalizes only for itself, and every other reader of q
/// and k must then take the scalar qk_l2norm (it applies the norm to
/// what it reads).
/// BadInput with a "manifest:line: error: ..." message on the first problem.
Status buildGdnSequence(const std::vector<const Manifest *> &manifests,
                        GdnSequence &out, bool qkL2NormFused = false);

/// Evaluates grids and workspace sizes for the problem `scalars` (see
/// GdnProblem::scalars) and checks launch limits and that every integer
/// scalar parameter declared i32 fits in 32 bits (the index tensors too:
/// cu_seqlens and cp_bounds hold up to B*T, cp_seq up to N, cp_seg_start up
/// to NS).
Status evaluateGdnSequence(const ExprVariables &scalars, GdnSequence &seq);

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_GDNSEQUENCE_H
