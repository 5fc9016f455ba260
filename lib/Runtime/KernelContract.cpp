//===- KernelContract.cpp - the typed kernel <-> runtime contract ---------===//

#include "gdn/Runtime/KernelContract.h"

#include "GridExpr.h"
#include "Manifest.h"

#include <algorithm>
#include <cctype>
#include <cstdint>

namespace gdn::run {

const std::vector<std::string> &gdnExpressionNames() {
  static const std::vector<std::string> names = {
      "B",  "T",      "H",      "HV",           "DK",
      "DV", "N",      "NT",     "NS",           "has_h0",
      "varlen", "gate_in_kernel", "beta_sigmoid", "neg_eigval", "qk_l2norm",
      "state_v_first"};
  return names;
}

namespace {

/// The identifiers of an expression other than its functions (cdiv, min).
std::vector<std::string> namesIn(const std::string &text) {
  std::vector<std::string> out;
  for (size_t i = 0; i < text.size();) {
    unsigned char c = text[i];
    if (std::isalpha(c) || c == '_') {
      size_t j = i;
      while (j < text.size() &&
             (std::isalnum(static_cast<unsigned char>(text[j])) ||
              text[j] == '_'))
        ++j;
      std::string name = text.substr(i, j - i);
      if (name != "cdiv" && name != "min")
        out.push_back(name);
      i = j;
    } else if (std::isdigit(c)) {
      while (i < text.size() &&
             std::isalnum(static_cast<unsigned char>(text[i])))
        ++i;
    } else {
      ++i;
    }
  }
  return out;
}

std::string quoted(const KernelMetaEntry &e) {
  return e.key + " = " + (e.isInt ? e.text : "\"" + e.text + "\"");
}

bool isIdentifier(const std::string &s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_'))
    return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

/// Syntax, then (when `known` is given) names.
std::string checkExpr(const KernelMetaEntry &e, const std::string &expr,
                      const std::string &what,
                      const std::vector<std::string> *known) {
  Status s = checkIntExprSyntax(expr);
  if (!s.ok())
    return quoted(e) + ": " + what + ": " + s.message();
  if (!known)
    return "";
  for (const std::string &name : namesIn(expr))
    if (std::find(known->begin(), known->end(), name) == known->end()) {
      std::string list;
      for (const std::string &k : *known)
        list += (list.empty() ? "" : " ") + k;
      return quoted(e) + ": " + what + ": unknown name '" + name +
             "' (gdn_prefill expressions use: " + list + ")";
    }
  return "";
}

} // namespace

std::string verifyKernelMeta(const std::vector<KernelMetaEntry> &entries) {
  const KernelMetaEntry *op = nullptr;
  for (const KernelMetaEntry &e : entries)
    if (e.key == "op")
      op = &e;
  if (op && (op->isInt || op->isOther))
    return "op must be a string";
  const bool gdn = op && op->text == "gdn_prefill";
  const std::vector<std::string> *known = gdn ? &gdnExpressionNames() : nullptr;
  bool hasStage = false, hasOrder = false, hasGrid = false;
  static const char *gdnKeys[] = {"stage", "order", "path",   "dtype",
                                  "block_v", "when", "fuses", "zero_ws"};
  for (const KernelMetaEntry &e : entries) {
    if (e.isOther) {
      bool contract = e.key == "op" || e.key == "grid" ||
                      e.key.rfind("ws_", 0) == 0;
      for (const char *k : gdnKeys)
        contract |= gdn && e.key == k;
      if (contract)
        return e.key + " must be a string or an integer, got " + e.text;
      continue;
    }
    if (e.key == "grid" && e.isInt)
      return quoted(e) + ": must be a string of 3 expressions \"x, y, z\"";
    if (e.key == "grid") {
      hasGrid = true;
      std::vector<std::string> parts = splitExprList(e.text);
      if (parts.size() != 3)
        return quoted(e) + ": needs 3 expressions (x, y, z), got " +
               std::to_string(parts.size());
      static const char *axis[] = {"x", "y", "z"};
      for (size_t i = 0; i < 3; ++i) {
        std::string err =
            checkExpr(e, parts[i], std::string("grid ") + axis[i], known);
        if (!err.empty())
          return err;
      }
    } else if (e.key.rfind("ws_", 0) == 0) {
      if (!isIdentifier(e.key.substr(3)))
        return quoted(e) + ": '" + e.key.substr(3) +
               "' is not a workspace parameter name";
      std::string err = checkExpr(e, e.text, "workspace size", known);
      if (!err.empty())
        return err;
    } else if (gdn && e.key == "stage") {
      hasStage = !e.isInt;
      if (e.isInt)
        return quoted(e) + ": must be a string";
    } else if (gdn && e.key == "order") {
      int64_t v;
      if (!e.isInt || !parseInt64(e.text, v) || v < 0)
        return quoted(e) + ": must be an integer >= 0 (the launch order)";
      hasOrder = true;
    } else if (gdn && e.key == "path") {
      if (e.isInt || (e.text != "direct" && e.text != "cp"))
        return quoted(e) + ": must be \"direct\" or \"cp\"";
    } else if (gdn && e.key == "when") {
      if (e.isInt || (e.text != "qk_l2norm" && e.text != "gate_beta"))
        return quoted(e) + ": must be \"qk_l2norm\" or \"gate_beta\" (the "
                           "optional stages: q and k L2-normalized, the "
                           "per-token gate and beta transforms)";
    } else if (gdn && e.key == "fuses") {
      bool ok = !e.isInt && !e.text.empty();
      for (const std::string &part : splitExprList(e.text))
        ok &= part == "qk_l2norm" || part == "gate_beta";
      if (!ok)
        return quoted(e) + ": must list \"qk_l2norm\" and/or \"gate_beta\" "
                           "(the optional stages this one does itself)";
    } else if (gdn && e.key == "zero_ws") {
      bool ok = !e.isInt && !e.text.empty();
      for (const std::string &part : splitExprList(e.text)) {
        bool declared = false;
        for (const KernelMetaEntry &w : entries)
          declared |= w.key == "ws_" + part;
        ok &= isIdentifier(part) && declared;
      }
      if (!ok)
        return quoted(e) + ": must list workspaces this kernel declares "
                           "(meta.ws_X), to be zero-filled before each call";
    } else if (gdn && e.key == "dtype") {
      if (e.isInt || (e.text != "f16" && e.text != "bf16"))
        return quoted(e) + ": must be \"f16\" or \"bf16\"";
    } else if (gdn && e.key == "block_v") {
      int64_t v;
      if (!e.isInt || !parseInt64(e.text, v) || v <= 0 || 128 % v != 0)
        return quoted(e) + ": must be an integer that divides 128 (value "
                           "columns per block)";
    }
  }
  if (gdn) {
    if (!hasStage)
      return "op = \"gdn_prefill\" needs stage (a name for messages)";
    if (!hasOrder)
      return "op = \"gdn_prefill\" needs order (the launch order)";
    if (!hasGrid)
      return "op = \"gdn_prefill\" needs grid (\"x, y, z\" expressions)";
  }
  return "";
}

std::string ptxHash(const std::string &bytes) {
  const uint64_t prime = 0x100000001b3ULL;
  uint64_t h = 0xcbf29ce484222325ULL;
  const size_t n = bytes.size();
  for (size_t i = 0; i < n; i += 8) {
    uint64_t word = 0;
    for (size_t b = 0; b < 8 && i + b < n; ++b)
      word |= static_cast<uint64_t>(static_cast<unsigned char>(bytes[i + b]))
              << (8 * b);
    h = (h ^ word) * prime;
  }
  h = (h ^ static_cast<uint64_t>(n)) * prime;
  static const char digits[] = "0123456789abcdef";
  std::string out = "fnv1a64w:";
  for (int shift = 60; shift >= 0; shift -= 4)
    out += digits[(h >> shift) & 0xf];
  return out;
}

} // namespace gdn::run
