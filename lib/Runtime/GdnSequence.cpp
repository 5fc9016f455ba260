//===- GdnSequence.cpp - the kernels of a GDN prefill, bound by name ------===//

#include "GdnSequence.h"

#include "KernelLaunch.h"

#include <algorithm>
#include <map>

namespace gdn::run {

const char *gdnTensorName(GdnTensorId id) {
  static const char *const names[kGdnTensorCount] = {
      "q",  "k",          "v",         "o",      "g",       "beta",        "h0",
      "ht", "cu_seqlens", "cp_bounds", "cp_seq", "cp_last", "cp_seg_start",
      "chunk_map", "a_log", "dt_bias"};
  return names[static_cast<int>(id)];
}

bool gdnIsIndexTensor(GdnTensorId id) {
  switch (id) {
  case GdnTensorId::CuSeqlens:
  case GdnTensorId::CpBounds:
  case GdnTensorId::CpSeq:
  case GdnTensorId::CpLast:
  case GdnTensorId::CpSegStart:
  case GdnTensorId::ChunkMap:
    return true;
  default:
    return false;
  }
}

std::vector<int64_t> gdnChunkMap(const std::vector<int64_t> &cu) {
  std::vector<int64_t> map;
  for (size_t s = 0; s + 1 < cu.size(); ++s) {
    int64_t chunks = (std::max<int64_t>(cu[s + 1] - cu[s], 0) + 63) / 64;
    for (int64_t c = 0; c < chunks; ++c) {
      map.push_back(static_cast<int64_t>(s));
      map.push_back(c);
      map.push_back(cu[s]);
      map.push_back(cu[s + 1]);
    }
  }
  return map;
}

bool gdnIsFloatScalar(GdnScalarId id) {
  return id == GdnScalarId::Scale || id == GdnScalarId::CpTheta;
}

const char *gdnScalarName(GdnScalarId id) {
  static const char *const names[kGdnScalarCount] = {
      "B", "T",  "H",  "HV",     "DK",     "DV",
      "N", "NT", "NS", "has_h0", "varlen", "scale", "cp_theta",
      "gate_in_kernel", "beta_sigmoid", "neg_eigval", "qk_l2norm",
      "state_v_first"};
  return names[static_cast<int>(id)];
}

bool GdnSequence::waitsForFlags() const {
  for (const GdnStage &stage : stages)
    if (stage.manifest->waitsForFlags())
      return true;
  return false;
}

bool gdnStageFuses(const Manifest &m, const std::string &stage) {
  const MetaEntry *e = m.findMeta("fuses");
  if (!e)
    return false;
  for (const std::string &part : splitExprList(e->value))
    if (part == stage)
      return true;
  return false;
}

namespace {

bool findTensor(const std::string &name, GdnTensorId &out) {
  for (int i = 0; i < kGdnTensorCount; ++i) {
    if (name == gdnTensorName(static_cast<GdnTensorId>(i))) {
      out = static_cast<GdnTensorId>(i);
      return true;
    }
  }
  return false;
}

bool findScalar(const std::string &name, GdnScalarId &out) {
  for (int i = 0; i < kGdnScalarCount; ++i) {
    if (name == gdnScalarName(static_cast<GdnScalarId>(i))) {
      out = static_cast<GdnScalarId>(i);
      return true;
    }
  }
  return false;
}

std::string scalarList() {
  std::string s;
  for (int i = 0; i < kGdnScalarCount; ++i)
    s += (i ? ", " : "") + std::string(gdnScalarName(static_cast<GdnScalarId>(i)));
  return s;
}

std::string tensorList() {
  std::string s;
  for (int i = 0; i < kGdnTensorCount; ++i)
    s += (i ? ", " : "") + std::string(gdnTensorName(static_cast<GdnTensorId>(i)));
  return s;
}

Status error(const Manifest &m, int line, const std::string &problem) {
  return Status::badInput(m.location(line) + ": error: " + problem);
}

bool is16(DType t) { return t == DType::F16 || t == DType::BF16; }

/// Checks a tensor parameter's type on its own (the cross-manifest and
/// dtype agreement is checked afterwards).
Status checkTensorType(const Manifest &m, const Param &p, GdnTensorId id) {
  const ParamType &t = p.type;
  std::string expected;
  bool ok = t.isPointer;
  switch (id) {
  case GdnTensorId::Q:
  case GdnTensorId::K:
  case GdnTensorId::V:
  case GdnTensorId::O:
    ok = ok && is16(t.elem);
    expected = "ptr<f16> or ptr<bf16>";
    break;
  case GdnTensorId::G:
  case GdnTensorId::Beta:
    ok = ok && (is16(t.elem) || t.elem == DType::F32);
    expected = "ptr<f32>, ptr<f16> or ptr<bf16>";
    break;
  case GdnTensorId::H0:
  case GdnTensorId::Ht:
  case GdnTensorId::ALog:
  case GdnTensorId::DtBias:
    ok = ok && t.elem == DType::F32;
    expected = "ptr<f32>";
    break;
  case GdnTensorId::CuSeqlens:
  case GdnTensorId::CpBounds:
  case GdnTensorId::CpSeq:
  case GdnTensorId::CpLast:
  case GdnTensorId::CpSegStart:
  case GdnTensorId::ChunkMap:
    ok = ok && (t.elem == DType::I32 || t.elem == DType::I64);
    expected = "ptr<i32> or ptr<i64>";
    break;
  }
  if (ok)
    return Status::success();
  return error(m, p.line, "gdn_prefill parameter " + p.name + " must be " +
                              expected + ", got " + t.str());
}

Status checkScalarType(const Manifest &m, const Param &p, GdnScalarId id) {
  const ParamType &t = p.type;
  if (gdnIsFloatScalar(id)) {
    if (t == ParamType{false, DType::F32})
      return Status::success();
    return error(m, p.line, "gdn_prefill parameter " + p.name +
                                " must be f32, got " + t.str());
  }
  if (t == ParamType{false, DType::I32} || t == ParamType{false, DType::I64})
    return Status::success();
  return error(m, p.line, "gdn_prefill parameter " + p.name +
                              " is a scalar and must be i32 or i64, got " +
                              t.str());
}

/// The first declaration of a name's type, to report disagreements.
struct TypeDecl {
  const Manifest *manifest;
  const Param *param;
};

} // namespace

bool gdnManifestDtype(const Manifest &manifest, DType &out) {
  for (const Param &p : manifest.params) {
    GdnTensorId id;
    if (!findTensor(p.name, id) || !p.type.isPointer || !is16(p.type.elem))
      continue;
    if (id == GdnTensorId::Q || id == GdnTensorId::K || id == GdnTensorId::V ||
        id == GdnTensorId::O) {
      out = p.type.elem;
      return true;
    }
  }
  // Kernels without q/k/v/o (the CP scan) may name their build's dtype.
  if (const MetaEntry *e = manifest.findMeta("dtype")) {
    for (DType t : {DType::F16, DType::BF16}) {
      if (e->value == dtypeName(t)) {
        out = t;
        return true;
      }
    }
  }
  return false;
}

Status selectGdnManifests(const std::vector<const Manifest *> &manifests,
                          const std::string &dtype,
                          std::vector<const Manifest *> &selected,
                          std::vector<std::string> &ignored) {
  selected.clear();
  ignored.clear();
  std::map<std::string, std::vector<std::string>> byDtype;
  for (const Manifest *m : manifests) {
    DType t;
    if (gdnManifestDtype(*m, t))
      byDtype[dtypeName(t)].push_back(m->path);
  }
  if (byDtype.size() <= 1) {
    selected = manifests;
    return Status::success();
  }
  std::string groups;
  for (const auto &entry : byDtype) {
    groups += (groups.empty() ? "" : "; ") + entry.first + ":";
    for (const std::string &path : entry.second)
      groups += " " + path;
  }
  if (dtype.empty())
    return Status::badInput("the gdn_prefill manifests are for several "
                            "dtypes (" +
                            groups + "): choose one with --dtype");
  if (!byDtype.count(dtype))
    return Status::badInput("--dtype " + dtype + ": no manifest takes " +
                            dtype + " tensors (" + groups + ")");
  for (const Manifest *m : manifests) {
    DType t;
    if (gdnManifestDtype(*m, t) && dtype != dtypeName(t))
      ignored.push_back(m->path);
    else
      selected.push_back(m);
  }
  return Status::success();
}

bool GdnSequence::usesCpTensors() const {
  return uses(GdnTensorId::CpBounds) || uses(GdnTensorId::CpSeq) ||
         uses(GdnTensorId::CpLast) || uses(GdnTensorId::CpSegStart);
}

const char *gdnPathName(GdnPath path) {
  return path == GdnPath::Cp ? "cp" : "direct";
}

bool gdnOffersForm(const std::vector<const Manifest *> &manifests,
                   const std::string &form) {
  // A form's kernels stand for the stages one of them lists in
  // meta.replaces: without that list (e.g. only its refined kernel given)
  // they would run beside the default form's.
  return std::any_of(manifests.begin(), manifests.end(),
                     [&](const Manifest *m) {
                       const MetaEntry *e = m->findMeta("form");
                       return e && e->value == form &&
                              m->findMeta("replaces");
                     });
}

Status selectGdnForm(std::vector<const Manifest *> &selected,
                     const std::string &form,
                     std::vector<std::string> &ignored) {
  auto formOf = [](const Manifest *m) {
    const MetaEntry *e = m->findMeta("form");
    return e ? e->value : std::string();
  };
  auto stageOf = [](const Manifest *m) {
    const MetaEntry *e = m->findMeta("stage");
    return e ? e->value : std::string();
  };
  if (!form.empty() && !gdnOffersForm(selected, form))
    return Status::badInput("no kernel of the chosen path and variant has "
                            "meta.form = " +
                            form + " with meta.replaces");
  // The default form's stages the form replaces (a stage no kernel of the
  // set has is nothing to drop: e.g. the pair's refined kernel left out; a
  // misspelt one leaves its stage beside the form's kernel, whose equal
  // meta.order buildGdnSequence refuses).
  std::vector<std::string> replaced;
  for (const Manifest *m : selected) {
    const MetaEntry *e = m->findMeta("replaces");
    if (!e || form.empty() || formOf(m) != form)
      continue;
    for (const std::string &stage : splitExprList(e->value))
      replaced.push_back(stage);
  }
  std::vector<const Manifest *> kept;
  for (const Manifest *m : selected) {
    const std::string f = formOf(m);
    const bool keep = f.empty() ? std::find(replaced.begin(), replaced.end(),
                                            stageOf(m)) == replaced.end()
                                : f == form;
    if (keep)
      kept.push_back(m);
    else
      ignored.push_back(m->path);
  }
  selected = std::move(kept);
  return Status::success();
}

bool GdnPaths::offersVariant(GdnPath path, int64_t value) const {
  const std::vector<int64_t> &v = variants(path);
  return std::find(v.begin(), v.end(), value) != v.end();
}

std::string gdnBlockVList(const std::vector<int64_t> &values) {
  std::string list;
  for (int64_t v : values)
    list += (list.empty() ? "" : ", ") + std::to_string(v);
  return list.empty() ? "none" : list;
}

Status splitGdnPaths(const std::vector<const Manifest *> &manifests,
                     GdnPaths &out) {
  GdnPaths paths;
  paths.all = manifests;
  for (const Manifest *m : manifests) {
    const MetaEntry *path = m->findMeta("path");
    if (!path) {
      paths.direct.push_back(m);
      paths.cp.push_back(m);
    } else if (path->value == "direct") {
      paths.direct.push_back(m);
      paths.directTagged = true;
    } else if (path->value == "cp") {
      paths.cp.push_back(m);
      paths.cpTagged = true;
    } else {
      return error(*m, path->line,
                   "meta.path = " + path->value +
                       ": expected direct or cp (or no meta.path for a "
                       "kernel of both paths)");
    }
    int64_t blockV = 0;
    if (const MetaEntry *e = m->findMeta("block_v")) {
      if (!parseInt64(e->value, blockV) || blockV <= 0)
        return error(*m, e->line,
                     "meta.block_v = " + e->value +
                         ": expected a positive integer (the value columns "
                         "one block owns)");
    }
    paths.blockV.push_back(blockV);
  }
  // The variants: block_v of each path's own manifests (every manifest's
  // when none is tagged: they all form the direct path).
  for (size_t i = 0; i < manifests.size(); ++i) {
    if (!paths.blockV[i])
      continue;
    const MetaEntry *path = manifests[i]->findMeta("path");
    std::vector<int64_t> *variants =
        !path ? (paths.untagged() ? &paths.directVariants : nullptr)
        : path->value == "cp" ? &paths.cpVariants
                              : &paths.directVariants;
    if (variants && std::find(variants->begin(), variants->end(),
                              paths.blockV[i]) == variants->end())
      variants->push_back(paths.blockV[i]);
  }
  std::sort(paths.directVariants.begin(), paths.directVariants.end());
  std::sort(paths.cpVariants.begin(), paths.cpVariants.end());
  out = std::move(paths);
  return Status::success();
}

Status selectGdnPath(const GdnPaths &paths, GdnPath path,
                     std::vector<const Manifest *> &selected,
                     std::vector<std::string> &ignored, int64_t blockV) {
  selected.clear();
  ignored.clear();
  const char *name = gdnPathName(path);
  if (!paths.offers(path)) {
    std::string list;
    for (const Manifest *m : paths.all) {
      const MetaEntry *e = m->findMeta("path");
      list += (list.empty() ? "" : ", ") + m->path +
              (e ? " (meta.path = " + e->value + ")" : "");
    }
    return Status::badInput(
        std::string("no manifest for the ") + name + " path (meta.path = " +
        name + ") among " + (list.empty() ? "(none)" : list) +
        (paths.untagged() ? "; none has meta.path, so they all form the "
                            "direct path"
                          : ""));
  }
  const std::vector<int64_t> &variants = paths.variants(path);
  if (variants.empty() && blockV != 0)
    return Status::badInput(
        std::string("the ") + name +
        " path has no variant with meta.block_v = " + std::to_string(blockV) +
        " (none of its manifests has meta.block_v)");
  if (!variants.empty() && !paths.offersVariant(path, blockV))
    return Status::badInput(
        std::string("the ") + name + " path has " +
        (blockV ? "no variant with meta.block_v = " + std::to_string(blockV)
                : std::string("variants: choose one")) +
        " (offered: meta.block_v = " + gdnBlockVList(variants) + ")");
  const std::vector<const Manifest *> &own =
      path == GdnPath::Cp ? paths.cp : paths.direct;
  for (size_t i = 0; i < paths.all.size(); ++i) {
    const Manifest *m = paths.all[i];
    if (std::find(own.begin(), own.end(), m) == own.end())
      continue;
    // A manifest without meta.block_v belongs to every variant of its
    // path(s); one with it only to that variant, a common one (no
    // meta.path) too: the prep kernel of one forward variant.
    if (!paths.blockV[i] || paths.blockV[i] == blockV)
      selected.push_back(m);
  }
  // A stage whose common kernels all belong to other variants (e.g. only
  // gdn_chunk_prep_k, block_v 128, for a block_v 16 forward) would leave
  // the sequence without it: say so here, not as a missing workspace.
  // (A missing or malformed meta.order is buildGdnSequence's to report.)
  auto orderOf = [](const Manifest &m, int64_t &order) {
    return m.findMeta("order") && m.metaInt("order", order, true).ok();
  };
  if (!paths.untagged()) {
    for (size_t i = 0; i < paths.all.size(); ++i) {
      const Manifest *m = paths.all[i];
      int64_t order = 0;
      if (m->findMeta("path") || !paths.blockV[i] || !orderOf(*m, order))
        continue;
      bool covered = false;
      for (const Manifest *s : selected) {
        int64_t o = 0;
        covered = covered || (orderOf(*s, o) && o == order);
      }
      if (!covered)
        return Status::badInput(
            std::string("the ") + name + " path in variant meta.block_v = " +
            std::to_string(blockV) + " has no kernel for meta.order = " +
            std::to_string(order) + ": " + m->path + " (meta.block_v = " +
            std::to_string(paths.blockV[i]) +
            ") runs only in its own variant");
    }
  }
  for (const Manifest *m : paths.all)
    if (std::find(selected.begin(), selected.end(), m) == selected.end())
      ignored.push_back(m->path);
  return Status::success();
}

Status buildGdnSequence(const std::vector<const Manifest *> &manifests,
                        GdnSequence &out, bool qkL2NormFused) {
  GdnSequence seq;
  if (manifests.empty())
    return Status::badInput("gdn_prefill: no manifests given");

  // Stage keys and order.
  std::map<int64_t, const Manifest *> byOrder;
  for (const Manifest *m : manifests) {
    const MetaEntry *op = m->findMeta("op");
    if (!op || op->value != kGdnOpName)
      return error(*m, op ? op->line : 0,
                   std::string("meta.op = ") + (op ? op->value : "(missing)") +
                       ", expected " + kGdnOpName +
                       " (every manifest of a GDN prefill sequence)");
    GdnStage stage;
    stage.manifest = m;
    const MetaEntry *name = m->findMeta("stage");
    if (!name)
      return error(*m, 0, "missing key 'meta.stage' (the kernel's stage "
                          "name, required by meta.op = gdn_prefill)");
    stage.name = name->value;
    GDN_RUN_TRY(m->metaInt("order", stage.order, /*required=*/true));
    if (!m->findMeta("grid"))
      return error(*m, 0, "missing key 'meta.grid' (three integer "
                          "expressions 'x, y, z', required by meta.op = "
                          "gdn_prefill)");
    auto inserted = byOrder.emplace(stage.order, m);
    if (!inserted.second)
      return error(*m, m->findMeta("order")->line,
                   "duplicate meta.order = " + std::to_string(stage.order) +
                       " (also in " + inserted.first->second->path +
                       "): the order must be unique in the sequence");
    seq.stages.push_back(std::move(stage));
  }
  std::stable_sort(seq.stages.begin(), seq.stages.end(),
                   [](const GdnStage &a, const GdnStage &b) {
                     return a.order < b.order;
                   });

  // Workspace declarations (meta.ws_X), in launch order.
  std::map<std::string, size_t> wsIndex;
  for (const GdnStage &stage : seq.stages) {
    const Manifest &m = *stage.manifest;
    for (const MetaEntry &e : m.meta) {
      if (e.key.compare(0, 3, "ws_") != 0)
        continue;
      std::string name = e.key.substr(3);
      GdnTensorId tid;
      GdnScalarId sid;
      if (name.empty())
        return error(m, e.line, "meta.ws_ names no workspace");
      if (findTensor(name, tid) || findScalar(name, sid))
        return error(m, e.line, "meta.ws_" + name + ": " + name +
                                    " is a GDN tensor or scalar of the "
                                    "kernel ABI, not a workspace");
      auto it = wsIndex.find(name);
      if (it == wsIndex.end()) {
        it = wsIndex.emplace(name, seq.workspaces.size()).first;
        GdnWorkspace ws;
        ws.name = name;
        seq.workspaces.push_back(ws);
      }
      seq.workspaces[it->second].decls.push_back({&m, &e});
    }
  }
  // Workspaces zero-filled before each call (meta.zero_ws), each declared
  // by the manifest that names it.
  for (const GdnStage &stage : seq.stages) {
    const Manifest &m = *stage.manifest;
    const MetaEntry *z = m.findMeta("zero_ws");
    if (!z)
      continue;
    std::vector<std::string> names = splitExprList(z->value);
    if (names.empty())
      return error(m, z->line, "meta.zero_ws names no workspace");
    for (const std::string &name : names) {
      auto it = wsIndex.find(name);
      if (it == wsIndex.end() || !m.findMeta("ws_" + name))
        return error(m, z->line,
                     "meta.zero_ws: '" + name + "' is not a workspace this "
                     "manifest declares (meta.ws_" + name + ")");
      seq.workspaces[it->second].zeroed = true;
    }
  }

  // Parameters.
  std::map<std::string, TypeDecl> firstDecl;
  std::vector<bool> wsUsed(seq.workspaces.size(), false);
  for (GdnStage &stage : seq.stages) {
    const Manifest &m = *stage.manifest;
    for (const Param &p : m.params) {
      GdnArg arg;
      arg.param = &p;
      GdnTensorId tid;
      GdnScalarId sid;
      if (p.type.isTensorMap) {
        if (findTensor(p.name, tid) || findScalar(p.name, sid))
          return error(m, p.line,
                       "parameter " + p.name + " is a tensor or scalar of the "
                       "GDN kernel ABI and cannot be a tensormap");
        arg.kind = GdnArg::TensorMap;
        stage.args.push_back(arg);
        continue;
      }
      if (findTensor(p.name, tid)) {
        GDN_RUN_TRY(checkTensorType(m, p, tid));
        arg.kind = GdnArg::Tensor;
        arg.index = static_cast<int>(tid);
        seq.usesTensor[arg.index] = true;
      } else if (findScalar(p.name, sid)) {
        if (p.type.isPointer)
          return error(m, p.line, "gdn_prefill parameter " + p.name +
                                      " is a scalar of the kernel ABI but is "
                                      "declared " +
                                      p.type.str());
        GDN_RUN_TRY(checkScalarType(m, p, sid));
        arg.kind = GdnArg::Scalar;
        arg.index = static_cast<int>(sid);
      } else if (p.type.isPointer) {
        auto it = wsIndex.find(p.name);
        bool declaredBefore = false;
        if (it != wsIndex.end())
          for (const GdnWorkspace::Decl &d : seq.workspaces[it->second].decls)
            for (const GdnStage &s : seq.stages)
              if (s.manifest == d.manifest && s.order <= stage.order)
                declaredBefore = true;
        if (!declaredBefore)
          return error(
              m, p.line,
              "parameter " + p.name + " of stage '" + stage.name +
                  "' is a workspace (not one of the GDN tensors " +
                  tensorList() + "), but no meta.ws_" + p.name +
                  " (its element count) is declared in this manifest or an "
                  "earlier one of the sequence" +
                  (it != wsIndex.end() ? " (only in a later one)" : ""));
        GdnWorkspace &ws = seq.workspaces[it->second];
        ws.elemSize = std::max(ws.elemSize, dtypeSize(p.type.elem));
        wsUsed[it->second] = true;
        arg.kind = GdnArg::Workspace;
        arg.index = static_cast<int>(it->second);
      } else {
        return error(m, p.line, "unknown scalar parameter '" + p.name +
                                    "' (gdn_prefill binds parameters by "
                                    "name; scalars: " +
                                    scalarList() + ")");
      }
      // One type per tensor across the sequence: they are one buffer.
      // (Scalars are passed by value: i32 in one kernel, i64 in another is
      // fine. Workspaces take the widest element type.)
      if (arg.kind == GdnArg::Tensor) {
        auto first = firstDecl.emplace(p.name, TypeDecl{&m, &p});
        const TypeDecl &d = first.first->second;
        if (!first.second && d.param->type != p.type)
          return error(m, p.line,
                       "parameter " + p.name + " is " + p.type.str() +
                           " here but " + d.param->type.str() + " in " +
                           d.manifest->location(d.param->line) +
                           " (one type per name in a sequence)");
      }
      stage.args.push_back(arg);
    }
  }
  // Optional stages (meta.when) transform inputs into workspaces that every
  // later stage reads instead: qk_l2norm q and k into q_l2 and k_l2,
  // gate_beta g and beta into g_act and beta_act.
  // A stage with meta.fuses = qk_l2norm does the same for q and k when the
  // problem asks for it (qkL2NormFused), in place of the meta.when stage,
  // or (declaring no q_l2 / k_l2) normalizes only for itself.
  for (size_t i = 0; i < seq.stages.size(); ++i) {
    const Manifest &m = *seq.stages[i].manifest;
    const MetaEntry *when = m.findMeta("when");
    if (const MetaEntry *fuses = m.findMeta("fuses")) {
      for (const std::string &part : splitExprList(fuses->value))
        if (part != kGdnWhenQkL2Norm && part != kGdnWhenGateBeta)
          return error(m, fuses->line,
                       "meta.fuses = " + fuses->value + ": '" + part +
                           "' is not an optional stage ('" + kGdnWhenQkL2Norm +
                           "', '" + kGdnWhenGateBeta + "')");
      // Fusing gate_beta rebinds nothing: the fusing stages (the preps) are
      // the only readers of g and beta and transform what they load.
      if (!when && qkL2NormFused && gdnStageFuses(m, kGdnWhenQkL2Norm))
        when = fuses;
    }
    if (!when)
      continue;
    std::vector<std::pair<std::string, std::string>> rebound;
    if (when->value == kGdnWhenQkL2Norm || when->key == "fuses")
      rebound = {{"q", "q_l2"}, {"k", "k_l2"}};
    else if (when->value == kGdnWhenGateBeta)
      rebound = {{"g", "g_act"}, {"beta", "beta_act"}};
    else
      return error(m, when->line,
                   "meta.when = " + when->value + ": the optional stages "
                   "are '" + kGdnWhenQkL2Norm + "' and '" + kGdnWhenGateBeta +
                   "'");
    // A stage that takes the scalar qk_l2norm reads q and k as given and
    // applies the norm itself (the value-major forward kernels: the
    // norm's factors as shifts of its gate exponents), so the norm's
    // copies are not bound to it. A fusing stage (meta.fuses) that writes
    // no copies normalizes only for itself: every later reader of q and k
    // must then be such a stage.
    auto selfNormalizes = [](const GdnStage &st) {
      for (const GdnArg &a : st.args)
        if (a.kind == GdnArg::Scalar && a.param->name == "qk_l2norm")
          return true;
      return false;
    };
    const bool qkNorm = rebound.front().first == "q";
    bool copies = true;
    if (qkNorm && when->key == "fuses") {
      copies = false;
      for (const GdnArg &a : seq.stages[i].args)
        copies |= a.kind == GdnArg::Workspace &&
                  (a.param->name == "q_l2" || a.param->name == "k_l2");
    }
    if (!copies) {
      // (Stages before it read q and k as given too: the same rule.)
      for (size_t j = 0; j < seq.stages.size(); ++j)
        for (const GdnArg &a : seq.stages[j].args)
          if (j != i && a.kind == GdnArg::Tensor &&
              (a.param->name == "q" || a.param->name == "k") &&
              !selfNormalizes(seq.stages[j]))
            return error(*seq.stages[j].manifest, a.param->line,
                         "stage '" + seq.stages[j].name + "' reads " +
                             a.param->name + ", which stage '" +
                             seq.stages[i].name +
                             "' normalizes only for itself (no q_l2 / "
                             "k_l2), and takes no scalar qk_l2norm");
      continue;
    }
    for (const auto &[name, out] : rebound) {
      auto it = wsIndex.find(out);
      bool reads = false, writes = false;
      for (const GdnArg &a : seq.stages[i].args) {
        reads |= a.kind == GdnArg::Tensor && a.param->name == name;
        writes |= a.kind == GdnArg::Workspace && a.param->name == out;
      }
      if (!reads || !writes || it == wsIndex.end())
        return error(m, when->line,
                     "meta." + when->key + " = " + when->value + ": the stage must take " +
                         name + " and write the workspace " + out +
                         " (declared by meta.ws_" + out + ")");
      for (size_t j = 0; j < i; ++j)
        for (const GdnArg &a : seq.stages[j].args)
          if (a.kind == GdnArg::Tensor && a.param->name == name)
            return error(*seq.stages[j].manifest, a.param->line,
                         "stage '" + seq.stages[j].name + "' reads " + name +
                             " before the " + when->value + " stage '" +
                             seq.stages[i].name +
                             "' transforms it (meta.order)");
      for (size_t j = i + 1; j < seq.stages.size(); ++j)
        for (GdnArg &a : seq.stages[j].args)
          if (a.kind == GdnArg::Tensor && a.param->name == name &&
              !(qkNorm && selfNormalizes(seq.stages[j]))) {
            a.kind = GdnArg::Workspace;
            a.index = static_cast<int>(it->second);
          }
    }
  }
  for (size_t i = 0; i < seq.workspaces.size(); ++i) {
    if (wsUsed[i])
      continue;
    const GdnWorkspace::Decl &d = seq.workspaces[i].decls.front();
    return error(*d.manifest, d.entry->line,
                 "meta.ws_" + seq.workspaces[i].name +
                     " declares a workspace that no kernel of the sequence "
                     "takes (no parameter " +
                     seq.workspaces[i].name + ")");
  }
  // A kernel that waits for ready flags (grid_dependency 2 or 3) must find
  // them cleared at each call: it takes a zero-filled workspace, or a flag
  // left set by the previous call would let it read before the data is
  // rewritten (same values in a timing loop: a silent error elsewhere).
  for (const GdnStage &stage : seq.stages) {
    if (!stage.manifest->waitsForFlags())
      continue;
    bool flags = false;
    for (const GdnArg &a : stage.args)
      flags |= a.kind == GdnArg::Workspace && seq.workspaces[a.index].zeroed;
    if (!flags)
      return Status::badInput(
          stage.manifest->path + ": error: stage '" + stage.name + "' (" +
          stage.manifest->kernel +
          ") waits for ready flags (grid_dependency = " +
          std::to_string(stage.manifest->gridDependency) +
          ") but takes no "
          "workspace that the launcher zero-fills (meta.zero_ws): flags left "
          "set by the previous call would read as ready");
  }

  // Tensor dtypes.
  auto typeOf = [&](GdnTensorId id, DType &t) {
    auto it = firstDecl.find(gdnTensorName(id));
    if (it == firstDecl.end())
      return false;
    t = it->second.param->type.elem;
    return true;
  };
  if (!seq.uses(GdnTensorId::O) || !seq.uses(GdnTensorId::Ht)) {
    const char *missing = !seq.uses(GdnTensorId::O) ? "o" : "ht";
    return Status::badInput(
        seq.stages.front().manifest->path + ": error: no kernel of the "
        "gdn_prefill sequence (" + std::to_string(seq.stages.size()) +
        " manifest" + (seq.stages.size() == 1 ? "" : "s") +
        ") takes parameter " + missing + " (" +
        (missing[0] == 'o' ? "the output" : "the final state") +
        "): is a manifest missing from the command line?");
  }
  typeOf(GdnTensorId::O, seq.dtype);
  const TypeDecl &oDecl = firstDecl.at("o");
  for (GdnTensorId id : {GdnTensorId::Q, GdnTensorId::K, GdnTensorId::V}) {
    DType t;
    if (typeOf(id, t) && t != seq.dtype) {
      const TypeDecl &d = firstDecl.at(gdnTensorName(id));
      return error(*d.manifest, d.param->line,
                   std::string("parameter ") + gdnTensorName(id) + " is " +
                       d.param->type.str() + " but o is " +
                       oDecl.param->type.str() + " (in " +
                       oDecl.manifest->location(oDecl.param->line) +
                       "): q, k, v and o share one dtype");
    }
  }
  seq.betaType = seq.dtype;
  seq.gType = DType::F32;
  typeOf(GdnTensorId::G, seq.gType);
  if (typeOf(GdnTensorId::Beta, seq.betaType) && seq.betaType != seq.dtype &&
      seq.betaType != DType::F32) {
    const TypeDecl &d = firstDecl.at("beta");
    return error(*d.manifest, d.param->line,
                 "parameter beta is " + d.param->type.str() +
                     ": it must be f32 or the dtype of q, k, v, o (" +
                     dtypeName(seq.dtype) + ")");
  }
  typeOf(GdnTensorId::CuSeqlens, seq.cuType);
  for (int t = 0; t < kGdnTensorCount; ++t)
    typeOf(static_cast<GdnTensorId>(t), seq.tensorTypes[t]);
  out = std::move(seq);
  return Status::success();
}

int64_t gdnTensorElements(GdnTensorId id, const ExprVariables &scalars) {
  // A scalar the problem does not define makes the count unknown: as large
  // as possible, so that bounds on it fail closed.
  bool missing = false;
  auto at = [&](const char *name) {
    auto it = scalars.find(name);
    missing |= it == scalars.end();
    return it == scalars.end() ? int64_t(0) : it->second;
  };
  int64_t tokens = at("B") * at("T");
  int64_t n = 0;
  switch (id) {
  case GdnTensorId::Q:
  case GdnTensorId::K:
    n = tokens * at("H") * at("DK");
    break;
  case GdnTensorId::V:
  case GdnTensorId::O:
    n = tokens * at("HV") * at("DV");
    break;
  case GdnTensorId::G:
  case GdnTensorId::Beta:
    n = tokens * at("HV");
    break;
  case GdnTensorId::ALog:
  case GdnTensorId::DtBias:
    n = at("HV");
    break;
  case GdnTensorId::H0:
  case GdnTensorId::Ht:
    n = at("N") * at("HV") * at("DK") * at("DV");
    break;
  case GdnTensorId::CuSeqlens:
  case GdnTensorId::CpSegStart:
    n = at("N") + 1;
    break;
  case GdnTensorId::CpBounds:
    n = at("NS") + 1;
    break;
  case GdnTensorId::ChunkMap:
    n = 4 * at("NT");
    break;
  case GdnTensorId::CpSeq:
  case GdnTensorId::CpLast:
    n = at("NS");
    break;
  }
  return missing ? INT64_MAX : n;
}

void splitGdnIndexWidth(const std::vector<const Manifest *> &manifests,
                        std::vector<const Manifest *> &narrow,
                        std::vector<const Manifest *> &wide) {
  narrow.clear();
  wide.clear();
  for (const Manifest *m : manifests)
    (m->indexBits == 32 ? narrow : wide).push_back(m);
}

bool gdnFitsIndex32(const std::vector<const Manifest *> &manifests,
                    const ExprVariables &scalars) {
  auto fits = [](int64_t n) { return n <= Manifest::kMaxElements32; };
  for (const Manifest *m : manifests) {
    if (m->indexBits != 32)
      continue;
    for (const Param &param : m->params) {
      GdnTensorId id;
      if (param.type.isPointer && findTensor(param.name, id) &&
          !fits(gdnTensorElements(id, scalars)))
        return false;
    }
    for (const MetaEntry &e : m->meta) {
      if (e.key.compare(0, 3, "ws_") != 0)
        continue;
      int64_t n = 0;
      if (!evaluateIntExpr(e.value, scalars, n).ok() || !fits(n))
        return false;
    }
  }
  return true;
}

Status evaluateGdnSequence(const ExprVariables &scalars, GdnSequence &seq) {
  auto vFirst = scalars.find("state_v_first");
  const bool stateVFirst = vFirst != scalars.end() && vFirst->second != 0;
  for (GdnStage &stage : seq.stages) {
    const Manifest &m = *stage.manifest;
    // A kernel that reads h0 or writes ht without the scalar state_v_first
    // would take a [V, K] state for [K, V].
    if (stateVFirst) {
      const GdnArg *state = nullptr;
      bool takesFlag = false;
      for (const GdnArg &arg : stage.args) {
        if (!state && arg.kind == GdnArg::Tensor &&
            (arg.index == static_cast<int>(GdnTensorId::H0) ||
             arg.index == static_cast<int>(GdnTensorId::Ht)))
          state = &arg;
        takesFlag |= arg.kind == GdnArg::Scalar &&
                     arg.index == static_cast<int>(GdnScalarId::StateVFirst);
      }
      if (state && !takesFlag)
        return error(m, state->param->line,
                     "the problem's states are [N, HV, V, K] "
                     "(state_v_first), but kernel " + m.kernel + " takes " +
                         state->param->name +
                         " without the scalar state_v_first");
    }
    const MetaEntry *grid = m.findMeta("grid");
    std::array<int64_t, 3> g = {0, 0, 0};
    Status s = evaluateExprTriple(grid->value, scalars, g);
    if (!s.ok())
      return error(m, grid->line, "meta.grid: " + s.message());
    static const char *const axis[] = {"x", "y", "z"};
    static const int64_t limit[] = {INT32_MAX, 65535, 65535};
    for (int i = 0; i < 3; ++i)
      if (g[i] < 1 || g[i] > limit[i])
        return error(m, grid->line,
                     std::string("meta.grid = ") + grid->value + ": " +
                         axis[i] + " = " + std::to_string(g[i]) +
                         " is out of range [1, " + std::to_string(limit[i]) +
                         "] for this problem");
    GDN_RUN_TRY(checkRequiredMultiples(m, scalars));
    stage.grid.x = static_cast<unsigned>(g[0]);
    stage.grid.y = static_cast<unsigned>(g[1]);
    stage.grid.z = static_cast<unsigned>(g[2]);
    GDN_RUN_TRY(checkLaunchGrid(m, stage.grid));

    for (const GdnArg &arg : stage.args) {
      if (arg.kind != GdnArg::Scalar ||
          gdnIsFloatScalar(static_cast<GdnScalarId>(arg.index)) ||
          arg.param->type.elem != DType::I32)
        continue;
      int64_t v = scalars.at(arg.param->name);
      if (v > INT32_MAX)
        return error(m, arg.param->line,
                     "scalar " + arg.param->name + " = " + std::to_string(v) +
                         " does not fit the i32 parameter (declare it i64)");
    }
  }
  // Index tensors declared ptr<i32> must hold their largest entry.
  for (const GdnStage &stage : seq.stages) {
    for (const GdnArg &arg : stage.args) {
      if (arg.kind != GdnArg::Tensor ||
          !gdnIsIndexTensor(static_cast<GdnTensorId>(arg.index)) ||
          arg.param->type.elem != DType::I32)
        continue;
      const char *what = "B*T";
      int64_t largest = scalars.at("B") * scalars.at("T");
      switch (static_cast<GdnTensorId>(arg.index)) {
      case GdnTensorId::CpSeq:
        what = "N";
        largest = scalars.at("N");
        break;
      case GdnTensorId::CpSegStart:
        what = "NS";
        largest = scalars.at("NS");
        break;
      case GdnTensorId::CpLast:
        largest = 1;
        break;
      case GdnTensorId::ChunkMap: // sequence bounds: up to B*T
      default:
        break;
      }
      if (largest > INT32_MAX)
        return error(*stage.manifest, arg.param->line,
                     arg.param->name + " entries up to " + what + " = " +
                         std::to_string(largest) +
                         " do not fit ptr<i32> (declare it ptr<i64>)");
    }
  }

  const int64_t kMaxWorkspaceBytes = int64_t(1) << 40;
  for (GdnWorkspace &ws : seq.workspaces) {
    bool first = true;
    for (const GdnWorkspace::Decl &d : ws.decls) {
      int64_t n = 0;
      Status s = evaluateIntExpr(d.entry->value, scalars, n);
      if (!s.ok())
        return error(*d.manifest, d.entry->line,
                     "meta.ws_" + ws.name + ": " + s.message());
      if (n < 0 || n > kMaxWorkspaceBytes / static_cast<int64_t>(ws.elemSize))
        return error(*d.manifest, d.entry->line,
                     "meta.ws_" + ws.name + " = " + d.entry->value + " = " +
                         std::to_string(n) +
                         " elements is out of range for this problem (0 to "
                         "2^40 bytes)");
      if (!first && n != ws.elements) {
        const GdnWorkspace::Decl &d0 = ws.decls.front();
        return error(*d.manifest, d.entry->line,
                     "meta.ws_" + ws.name + " = " + std::to_string(n) +
                         " elements, but " +
                         d0.manifest->location(d0.entry->line) +
                         " declares " + std::to_string(ws.elements));
      }
      ws.elements = n;
      first = false;
    }
  }
  // Kernels with 32-bit indices (index_bits = 32) take no buffer larger than
  // Manifest::kMaxElements32.
  for (const GdnStage &stage : seq.stages) {
    const Manifest &m = *stage.manifest;
    if (m.indexBits != 32)
      continue;
    for (const GdnArg &arg : stage.args) {
      int64_t n = 0;
      if (arg.kind == GdnArg::Tensor)
        n = gdnTensorElements(static_cast<GdnTensorId>(arg.index), scalars);
      else if (arg.kind == GdnArg::Workspace)
        n = seq.workspaces[arg.index].elements;
      else
        continue;
      if (n > Manifest::kMaxElements32)
        return error(m, arg.param->line,
                     arg.param->name + " has " + std::to_string(n) +
                         " elements for this problem, more than the " +
                         std::to_string(Manifest::kMaxElements32) +
                         " a kernel with index_bits = 32 may take");
    }
  }
  return Status::success();
}

} // namespace gdn::run
