//===- KernelImage.cpp - host-side checks of PTX and cubin files ----------===//
//
// The PTX scanner strips comments and reads directives as whitespace-
// separated tokens; it does not parse PTX. The ELF reader bounds-checks
// every offset it follows.
//
//===----------------------------------------------------------------------===//

#include "KernelImage.h"

#include "gdn/Runtime/KernelContract.h"

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <vector>

namespace gdn::run {

bool isElfImage(const std::string &image) {
  return image.size() >= 4 && std::memcmp(image.data(), "\x7f"
                                                        "ELF",
                                          4) == 0;
}

namespace {

/// `ptx` without // and /* */ comments (string literals do not occur in
/// the directives we read).
std::string stripComments(const std::string &ptx) {
  std::string out;
  out.reserve(ptx.size());
  for (size_t i = 0; i < ptx.size(); ++i) {
    if (ptx.compare(i, 2, "//") == 0) {
      while (i < ptx.size() && ptx[i] != '\n')
        ++i;
      out += '\n';
      continue;
    }
    if (ptx.compare(i, 2, "/*") == 0) {
      size_t end = ptx.find("*/", i + 2);
      i = end == std::string::npos ? ptx.size() : end + 1;
      out += ' ';
      continue;
    }
    out += ptx[i];
  }
  return out;
}

bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '$' ||
         c == '.' || c == '%';
}

/// The token after `directive` at each occurrence that starts a token
/// (".entry foo(" -> "foo"; ".target sm_90a, debug" -> "sm_90a").
std::vector<std::string> tokensAfter(const std::string &text,
                                     const std::string &directive) {
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = text.find(directive, pos)) != std::string::npos) {
    size_t end = pos + directive.size();
    bool starts = pos == 0 || !isIdentChar(text[pos - 1]);
    bool ends = end < text.size() &&
                std::isspace(static_cast<unsigned char>(text[end]));
    pos = end;
    if (!starts || !ends)
      continue;
    while (end < text.size() &&
           std::isspace(static_cast<unsigned char>(text[end])))
      ++end;
    size_t b = end;
    while (end < text.size() && isIdentChar(text[end]))
      ++end;
    out.push_back(text.substr(b, end - b));
  }
  return out;
}

uint64_t readLE(const std::string &s, size_t at, size_t bytes) {
  uint64_t v = 0;
  for (size_t i = 0; i < bytes; ++i)
    v |= static_cast<uint64_t>(static_cast<unsigned char>(s[at + i])) << (8 * i);
  return v;
}

/// The index of the first non-space character at or after `at`.
size_t skipSpace(const std::string &text, size_t at) {
  while (at < text.size() &&
         std::isspace(static_cast<unsigned char>(text[at])))
    ++at;
  return at;
}

/// The index just after the name in `.entry kernel` of comment-free PTX
/// `text`, or npos.
size_t findEntry(const std::string &text, const std::string &kernel) {
  size_t pos = 0;
  while ((pos = text.find(".entry", pos)) != std::string::npos) {
    size_t at = skipSpace(text, pos + 6);
    pos += 6;
    if (text.compare(at, kernel.size(), kernel) != 0 ||
        (at + kernel.size() < text.size() &&
         isIdentChar(text[at + kernel.size()])))
      continue;
    return at + kernel.size();
  }
  return std::string::npos;
}

/// The body of `.entry kernel` in comment-free PTX `text` (from its first
/// `{` to the matching `}`), or empty.
std::string entryBody(const std::string &text, const std::string &kernel) {
  size_t at = findEntry(text, kernel);
  size_t open = at == std::string::npos ? at : text.find('{', at);
  if (open == std::string::npos)
    return "";
  int depth = 0;
  for (size_t i = open; i < text.size(); ++i) {
    depth += text[i] == '{' ? 1 : text[i] == '}' ? -1 : 0;
    if (depth == 0)
      return text.substr(open, i + 1 - open);
  }
  return "";
}

/// `decl` (".param [.align N] [.ptr ...] .TYPE NAME[[N]]") into `out`;
/// false when it is not such a declaration.
bool parsePtxParam(const std::string &decl, PtxParam &out) {
  std::vector<std::string> tokens;
  for (size_t i = skipSpace(decl, 0); i < decl.size();) {
    size_t b = i;
    while (i < decl.size() &&
           !std::isspace(static_cast<unsigned char>(decl[i])))
      ++i;
    tokens.push_back(decl.substr(b, i - b));
    i = skipSpace(decl, i);
  }
  for (const std::string &t : tokens)
    out.text += (out.text.empty() ? "" : " ") + t;
  if (tokens.size() < 3 || tokens[0] != ".param")
    return false;
  for (size_t k = 1; k + 1 < tokens.size(); ++k) {
    const std::string &t = tokens[k];
    if (t == ".align" && k + 2 < tokens.size()) {
      out.align = std::strtoull(tokens[++k].c_str(), nullptr, 10);
    } else if (t.size() >= 3 && t[0] == '.' &&
               std::strchr("usbf", t[1]) &&
               std::isdigit(static_cast<unsigned char>(t[2]))) {
      out.type = t;
    } else if (t != ".ptr" && t != ".global" && t != ".const" &&
               t != ".shared" && t != ".local") {
      return false;
    }
  }
  const std::string &name = tokens.back();
  size_t lb = name.find('[');
  if (lb != std::string::npos) {
    char *end = nullptr;
    out.count = std::strtoull(name.c_str() + lb + 1, &end, 10);
    if (!end || *end != ']' || out.count == 0)
      return false;
  }
  return !out.type.empty();
}

/// The parameters of `.entry kernel` in comment-free PTX `text` (what
/// stands between its parentheses, split at commas and parsed), or false
/// when the entry has no parenthesized list.
bool entryParams(const std::string &text, const std::string &kernel,
                 std::vector<PtxParam> &out) {
  size_t at = findEntry(text, kernel);
  if (at == std::string::npos)
    return false;
  at = skipSpace(text, at);
  size_t close = text.find(')', at);
  if (at >= text.size() || text[at] != '(' || close == std::string::npos)
    return false;
  const std::string list = text.substr(at + 1, close - at - 1);
  for (size_t b = 0; b <= list.size();) {
    size_t e = std::min(list.find(',', b), list.size());
    std::string item = list.substr(b, e - b);
    if (item.find_first_not_of(" \t\r\n") != std::string::npos) {
      PtxParam p;
      if (!parsePtxParam(item, p))
        p.type.clear(); // matches no manifest type
      out.push_back(p);
    }
    b = e + 1;
  }
  return true;
}

/// What a manifest parameter of type `t` is declared as in PTX.
std::string ptxDeclFor(const ParamType &t) {
  if (t.isTensorMap)
    return "a 128-byte CUtensorMap by value (.param .align 64 .b8 "
           "NAME[128])";
  if (t.isPointer || t.elem == DType::I64)
    return std::string(t.isPointer ? "a 64-bit address"
                                   : "a 64-bit integer") +
           " (.u64, .s64 or .b64)";
  if (t.elem == DType::F32)
    return "a 32-bit float (.f32 or .b32)";
  return "a 32-bit integer (.u32, .s32 or .b32)";
}

/// Whether the PTX parameter `p` can carry a manifest parameter of type
/// `t` (as ptxDeclFor() says).
bool paramMatches(const ParamType &t, const PtxParam &p) {
  auto is = [&](std::initializer_list<const char *> types) {
    for (const char *x : types)
      if (p.type == x)
        return p.count == 0;
    return false;
  };
  if (t.isTensorMap)
    return p.type == ".b8" && p.count == 128 && p.align >= 64 &&
           p.align % 64 == 0;
  if (t.isPointer || t.elem == DType::I64)
    return is({".u64", ".s64", ".b64"});
  if (t.elem == DType::F32)
    return is({".f32", ".b32"});
  return is({".u32", ".s32", ".b32"});
}

/// The manifest's `param` lines against the PTX entry's parameters: a
/// manifest from another build than its PTX would bind arguments to the
/// wrong parameters (and a launch could hang on a tensor map the kernel
/// does not expect), so a mismatch is bad input.
Status checkParams(const Manifest &m, const std::string &text,
                   const std::function<Status(const std::string &)> &bad) {
  std::vector<PtxParam> params;
  if (!entryParams(text, m.kernel, params))
    return bad("cannot read the parameter list of '.entry " + m.kernel +
               "' in the PTX");
  if (params.size() != m.params.size())
    return bad("kernel '" + m.kernel + "' takes " +
               std::to_string(params.size()) + " parameter" +
               (params.size() == 1 ? "" : "s") + " in the PTX, but the " +
               "manifest declares " + std::to_string(m.params.size()) +
               " (param lines): the PTX and the manifest are not from one "
               "build");
  for (size_t i = 0; i < params.size(); ++i) {
    const Param &q = m.params[i];
    if (paramMatches(q.type, params[i]))
      continue;
    return bad("parameter " + std::to_string(i) + " of kernel '" + m.kernel +
               "' is '" + params[i].text +
               "' in the PTX, but the manifest's '" + q.name + ":" +
               q.type.str() + "' (" + m.location(q.line) +
               ") is passed as " + ptxDeclFor(q.type) +
               ": the PTX and the manifest are not from one build");
  }
  return Status::success();
}

/// The manifest's `ptx_hash` against the PTX's bytes. gdn-opt writes the
/// two together, so a difference means they are not from one build, even
/// where the parameters agree (a tensor map's box lives in the manifest
/// alone). GDN_ALLOW_PTX_EDITS=1 accepts an edited PTX (timing
/// experiments that patch a built kernel).
Status checkPtxHash(const Manifest &m, const std::string &image,
                    const std::function<Status(const std::string &)> &bad) {
  if (m.ptxHash.empty())
    return Status::success();
  const char *allow = std::getenv("GDN_ALLOW_PTX_EDITS");
  if (allow && std::string(allow) == "1")
    return Status::success();
  const std::string h = ptxHash(image);
  if (h == m.ptxHash)
    return Status::success();
  return bad("the PTX's hash is " + h + ", but the manifest says ptx_hash = " +
             m.ptxHash + " (" + m.location(m.ptxHashLine) +
             "): the PTX is not the one gdn-opt wrote with this manifest "
             "(another build, or an edited file: GDN_ALLOW_PTX_EDITS=1 "
             "runs an edited PTX)");
}

/// A manifest's grid_dependency = 1 lets the launcher start the kernel
/// before its predecessor completes: only safe when the kernel waits
/// (griddepcontrol.wait) itself; = 2 when it waits for ready flags
/// (tile.flag_wait: ld.acquire); = 3 when it does both.
Status checkGridDependency(
    const Manifest &m, const std::string &text,
    const std::function<Status(const std::string &)> &bad) {
  const std::string body = entryBody(text, m.kernel);
  for (const bool flags : {false, true}) {
    if (flags ? !m.waitsForFlags() : !m.waitsForGrid())
      continue;
    const char *wait = flags ? "ld.acquire" : "griddepcontrol.wait";
    if (body.find(wait) != std::string::npos)
      continue;
    return bad("the manifest says grid_dependency = " +
               std::to_string(m.gridDependency) + ", but kernel '" + m.kernel +
               "' has no " + wait + (flags ? " (a ready-flag wait)" : "") +
               ": launched early it could read " +
               (flags ? "an earlier kernel's" : "its predecessor's") +
               " outputs before they are written");
  }
  return Status::success();
}

Status validatePtx(const Manifest &m, const std::string &image,
                   const std::function<Status(const std::string &)> &bad) {
  if (image.find('\0') != std::string::npos)
    return bad("not a PTX text file (it contains NUL bytes) and not a cubin "
               "(no ELF header)");
  const std::string text = stripComments(image);
  std::vector<std::string> versions = tokensAfter(text, ".version");
  if (versions.empty() || versions[0].empty() ||
      !std::isdigit(static_cast<unsigned char>(versions[0][0])))
    return bad("no '.version X.Y' directive: not a PTX file (nor a cubin)");
  std::vector<std::string> targets = tokensAfter(text, ".target");
  if (targets.empty() || targets[0].empty())
    return bad("no '.target sm_XX' directive in the PTX");
  if (targets[0] != m.target)
    return bad("the PTX is compiled for .target " + targets[0] +
               ", but the manifest says target = " + m.target);
  std::vector<std::string> entries = ptxEntryNames(image);
  for (const std::string &e : entries)
    if (e == m.kernel) {
      GDN_RUN_TRY(checkParams(m, text, bad));
      GDN_RUN_TRY(checkPtxHash(m, image, bad));
      return checkGridDependency(m, text, bad);
    }
  std::string list;
  for (const std::string &e : entries)
    list += (list.empty() ? "" : ", ") + e;
  return bad("kernel '" + m.kernel + "' has no '.entry " + m.kernel +
             "' in the PTX (entries: " + (list.empty() ? "none" : list) +
             ")");
}

Status validateCubin(const Manifest &m, const std::string &image,
                     const std::function<Status(const std::string &)> &bad,
                     std::string *note) {
  const size_t n = image.size();
  if (n < 64)
    return bad("truncated ELF header (" + std::to_string(n) + " bytes)");
  if (image[4] != 2)
    return bad("not a 64-bit ELF file (EI_CLASS " +
               std::to_string(static_cast<int>(image[4])) +
               "): not a cubin");
  if (image[5] != 1)
    return bad("not a little-endian ELF file: not a cubin");
  const uint64_t machine = readLE(image, 18, 2);
  if (machine != 190)
    return bad("ELF e_machine is " + std::to_string(machine) +
               ", not EM_CUDA (190): not a cubin for an NVIDIA GPU");
  const uint64_t shoff = readLE(image, 0x28, 8);
  const uint64_t shentsize = readLE(image, 0x3A, 2);
  const uint64_t shnum = readLE(image, 0x3C, 2);
  auto inside = [n](uint64_t off, uint64_t size) {
    return off <= n && size <= n - off;
  };
  if (shnum == 0 || shentsize < 64 ||
      !inside(shoff, shnum * shentsize)) {
    if (note)
      *note = m.ptxPath + ": note: cubin without readable section headers; "
                          "kernel '" + m.kernel + "' not checked on the host";
    return Status::success();
  }
  bool sawSymtab = false;
  for (uint64_t i = 0; i < shnum; ++i) {
    const size_t sh = static_cast<size_t>(shoff + i * shentsize);
    if (readLE(image, sh + 4, 4) != 2) // SHT_SYMTAB
      continue;
    sawSymtab = true;
    const uint64_t off = readLE(image, sh + 0x18, 8);
    const uint64_t size = readLE(image, sh + 0x20, 8);
    const uint64_t link = readLE(image, sh + 0x28, 4);
    const uint64_t entsize = readLE(image, sh + 0x38, 8);
    if (entsize < 24 || !inside(off, size) || link >= shnum)
      return bad("malformed ELF symbol table");
    const size_t str = static_cast<size_t>(shoff + link * shentsize);
    const uint64_t strOff = readLE(image, str + 0x18, 8);
    const uint64_t strSize = readLE(image, str + 0x20, 8);
    if (!inside(strOff, strSize))
      return bad("malformed ELF string table");
    for (uint64_t s = 0; s + entsize <= size; s += entsize) {
      const size_t sym = static_cast<size_t>(off + s);
      const uint64_t name = readLE(image, sym, 4);
      const unsigned info = static_cast<unsigned char>(image[sym + 4]);
      if (name >= strSize || (info & 0xf) != 2) // STT_FUNC
        continue;
      const char *begin = image.data() + strOff + name;
      size_t len = strnlen(begin, static_cast<size_t>(strSize - name));
      if (std::string(begin, len) == m.kernel)
        return Status::success();
    }
  }
  if (!sawSymtab) {
    if (note)
      *note = m.ptxPath + ": note: cubin has no symbol table; kernel '" +
              m.kernel + "' not checked on the host";
    return Status::success();
  }
  return bad("kernel '" + m.kernel +
             "' is not a function symbol of the cubin");
}

} // namespace

bool ptxEntryParams(const std::string &ptx, const std::string &kernel,
                    std::vector<PtxParam> &out) {
  return entryParams(stripComments(ptx), kernel, out);
}

size_t PtxParam::bytes() const {
  size_t bits = 0;
  if (type.size() >= 3)
    bits = std::strtoul(type.c_str() + 2, nullptr, 10);
  return (count ? count : 1) * (bits / 8);
}

std::vector<std::string> ptxEntryNames(const std::string &ptx) {
  return tokensAfter(stripComments(ptx), ".entry");
}

Status validateKernelImage(const Manifest &manifest, const std::string &image,
                           std::string *note) {
  auto bad = [&](const std::string &problem) {
    return Status::badInput(manifest.ptxPath + ": error: " + problem +
                            " (named by " + manifest.path + ")");
  };
  if (image.empty())
    return bad("the file is empty");
  if (isElfImage(image)) {
    Status s = validateCubin(manifest, image, bad, note);
    // SASS is not scanned for the wait a PTX image is checked for.
    if (s.ok() && manifest.gridDependency && note && note->empty())
      *note = manifest.ptxPath + ": note: cubin; its " +
              (manifest.gridDependency == 3
                   ? "griddepcontrol.wait and ready-flag wait "
                     "(grid_dependency = 3)"
               : manifest.gridDependency == 2
                   ? "ready-flag wait (grid_dependency = 2)"
                   : "griddepcontrol.wait (grid_dependency = 1)") +
              (manifest.gridDependency == 3 ? " are" : " is") +
              " not checked on the host";
    return s;
  }
  return validatePtx(manifest, image, bad);
}

bool parseTarget(const std::string &target, int &major, int &minor,
                 char &suffix) {
  if (!isKnownTarget(target))
    return false;
  std::string digits = target.substr(3);
  suffix = 0;
  if (digits.back() == 'a' || digits.back() == 'f') {
    suffix = digits.back();
    digits.pop_back();
  }
  int sm = std::stoi(digits);
  major = sm / 10;
  minor = sm % 10;
  return true;
}

Status checkTargetForDevice(const Manifest &manifest, bool cubin, int ccMajor,
                            int ccMinor, const std::string &deviceName) {
  int major = 0, minor = 0;
  char suffix = 0;
  if (!parseTarget(manifest.target, major, minor, suffix))
    return Status::badInput(manifest.location(0) + ": error: unknown target " +
                            manifest.target);
  const std::string cc = std::to_string(major) + "." + std::to_string(minor);
  bool ok = false;
  std::string rule;
  if (suffix == 'a') {
    ok = ccMajor == major && ccMinor == minor;
    rule = "architecture-specific (sm_XXa) code runs only on compute "
           "capability " + cc;
  } else if (suffix == 'f' || cubin) {
    ok = ccMajor == major && ccMinor >= minor;
    rule = std::string(suffix == 'f' ? "family-specific (sm_XXf)"
                                     : "a cubin's") +
           " code runs only on compute capability " + std::to_string(major) +
           ".x with x >= " + std::to_string(minor);
  } else {
    ok = ccMajor > major || (ccMajor == major && ccMinor >= minor);
    rule = "PTX for it runs on compute capability " + cc + " or newer";
  }
  if (ok)
    return Status::success();
  return Status::badInput(
      manifest.location(0) + ": error: kernel " + manifest.kernel +
      " is compiled for " + manifest.target + ", but the device (" +
      deviceName + ") is sm_" + std::to_string(ccMajor) +
      std::to_string(ccMinor) + " (compute capability " +
      std::to_string(ccMajor) + "." + std::to_string(ccMinor) + "): " + rule);
}

} // namespace gdn::run
