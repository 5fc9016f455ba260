//===- Manifest.cpp - gdn-run kernel manifest parser ----------------------===//
//
// Parsing runs in two phases: the text is first split into (line, key, value)
// entries, reporting syntax errors; then the version is checked before any
// key is interpreted, so that a manifest of a future format version is
// reported as such rather than as a list of unknown keys.
//
//===----------------------------------------------------------------------===//

#include "Manifest.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include <sys/stat.h>

namespace gdn::run {

//===----------------------------------------------------------------------===//
// Types
//===----------------------------------------------------------------------===//

const char *dtypeName(DType type) {
  switch (type) {
  case DType::F16:
    return "f16";
  case DType::BF16:
    return "bf16";
  case DType::F32:
    return "f32";
  case DType::I32:
    return "i32";
  case DType::I64:
    return "i64";
  }
  return "?";
}

size_t dtypeSize(DType type) {
  switch (type) {
  case DType::F16:
  case DType::BF16:
    return 2;
  case DType::F32:
  case DType::I32:
    return 4;
  case DType::I64:
    return 8;
  }
  return 0;
}

std::string ParamType::str() const {
  if (isPointer)
    return std::string("ptr<") + dtypeName(elem) + ">";
  return dtypeName(elem);
}

static bool parseDType(const std::string &text, DType &out) {
  static const DType all[] = {DType::F16, DType::BF16, DType::F32, DType::I32,
                              DType::I64};
  for (DType t : all) {
    if (text == dtypeName(t)) {
      out = t;
      return true;
    }
  }
  return false;
}

bool parseParamType(const std::string &text, ParamType &out) {
  std::string t = trim(text);
  const std::string prefix = "ptr<";
  if (t.size() > prefix.size() && t.compare(0, prefix.size(), prefix) == 0 &&
      t.back() == '>') {
    DType elem;
    if (!parseDType(trim(t.substr(prefix.size(),
                                  t.size() - prefix.size() - 1)),
                    elem))
      return false;
    out = ParamType{true, elem};
    return true;
  }
  // Scalars: the kernel ABI has no f16/bf16 scalar parameters.
  DType elem;
  if (!parseDType(t, elem) || elem == DType::F16 || elem == DType::BF16)
    return false;
  out = ParamType{false, elem};
  return true;
}

//===----------------------------------------------------------------------===//
// String helpers
//===----------------------------------------------------------------------===//

std::string trim(const std::string &text) {
  size_t b = 0, e = text.size();
  while (b < e && std::isspace(static_cast<unsigned char>(text[b])))
    ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(text[e - 1])))
    --e;
  return text.substr(b, e - b);
}

bool parseInt64(const std::string &text, int64_t &out) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && text[i] == '-') {
    negative = true;
    ++i;
  }
  if (i == text.size())
    return false;
  // Accumulate as a negative number so that INT64_MIN parses too.
  int64_t value = 0;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c < '0' || c > '9')
      return false;
    int digit = c - '0';
    if (value < (INT64_MIN + digit) / 10)
      return false;
    value = value * 10 - digit;
  }
  if (!negative) {
    if (value == INT64_MIN)
      return false;
    value = -value;
  }
  out = value;
  return true;
}

std::string directoryOf(const std::string &path) {
  size_t slash = path.find_last_of('/');
  if (slash == std::string::npos)
    return "";
  if (slash == 0)
    return "/";
  return path.substr(0, slash);
}

static bool isIdentifier(const std::string &s, bool allowDollar) {
  if (s.empty())
    return false;
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    bool ok = std::isalpha(c) || c == '_' || (allowDollar && c == '$') ||
              (i > 0 && std::isdigit(c));
    if (!ok)
      return false;
  }
  return true;
}

static bool isKeyChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.';
}

//===----------------------------------------------------------------------===//
// Manifest accessors
//===----------------------------------------------------------------------===//

const MetaEntry *Manifest::findMeta(const std::string &key) const {
  for (const MetaEntry &e : meta)
    if (e.key == key)
      return &e;
  return nullptr;
}

std::string Manifest::metaString(const std::string &key,
                                 const std::string &fallback) const {
  const MetaEntry *e = findMeta(key);
  return e ? e->value : fallback;
}

std::string Manifest::location(int line) const {
  if (line <= 0)
    return path;
  return path + ":" + std::to_string(line);
}

Status Manifest::metaInt(const std::string &key, int64_t &out, bool required,
                         int64_t fallback, int64_t minValue,
                         int64_t maxValue) const {
  const MetaEntry *e = findMeta(key);
  if (!e) {
    if (required)
      return Status::badInput(location(0) + ": error: missing key 'meta." +
                              key + "' (required by meta.op = " +
                              metaString("op", "?") + ")");
    out = fallback;
    return Status::success();
  }
  int64_t v = 0;
  if (!parseInt64(e->value, v))
    return Status::badInput(location(e->line) + ": error: meta." + key +
                            ": expected an integer, got '" + e->value + "'");
  if (v < minValue || v > maxValue)
    return Status::badInput(location(e->line) + ": error: meta." + key +
                            " = " + e->value + " is out of range [" +
                            std::to_string(minValue) + ", " +
                            std::to_string(maxValue) + "]");
  out = v;
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Parser
//===----------------------------------------------------------------------===//

namespace {

struct Entry {
  int line;
  std::string key;
  std::string value;
};

class Parser {
public:
  Parser(const std::string &fileName, Manifest &manifest)
      : path(fileName), m(manifest) {}

  Status parse(const std::string &text);

private:
  Status error(int line, const std::string &problem) const {
    std::string loc = line > 0 ? path + ":" + std::to_string(line) : path;
    return Status::badInput(loc + ": error: " + problem);
  }
  Status tokenize(const std::string &text, std::vector<Entry> &entries);
  Status checkVersion(const std::vector<Entry> &entries);
  Status apply(const Entry &e);
  Status parseUnsigned(const Entry &e, uint64_t maxValue, uint64_t &out);
  Status parseDims(const Entry &e, std::array<unsigned, 3> &out);
  Status parseParam(const Entry &e);

  const std::string &path;
  Manifest &m;
  std::map<std::string, int> firstLine; ///< non-repeatable key -> line
};

} // namespace

Status Parser::tokenize(const std::string &text,
                        std::vector<Entry> &entries) {
  std::istringstream in(text);
  std::string raw;
  int lineNo = 0;
  while (std::getline(in, raw)) {
    ++lineNo;
    if (raw.find('\0') != std::string::npos)
      return error(lineNo, "unexpected NUL byte (is this a text file?)");
    std::string line = raw;
    size_t hash = line.find('#');
    if (hash != std::string::npos)
      line.resize(hash);
    line = trim(line);
    if (line.empty())
      continue;
    size_t eq = line.find('=');
    if (eq == std::string::npos)
      return error(lineNo, "expected 'key = value', got '" + line + "'");
    Entry e{lineNo, trim(line.substr(0, eq)), trim(line.substr(eq + 1))};
    if (e.key.empty())
      return error(lineNo, "missing key before '='");
    for (char c : e.key)
      if (!isKeyChar(c))
        return error(lineNo, "malformed key '" + e.key + "'");
    if (e.value.empty())
      return error(lineNo, "missing value for key '" + e.key + "'");
    entries.push_back(std::move(e));
  }
  return Status::success();
}

Status Parser::checkVersion(const std::vector<Entry> &entries) {
  for (const Entry &e : entries) {
    if (e.key != "gdn_manifest")
      continue;
    int64_t v = 0;
    if (!parseInt64(e.value, v))
      return error(e.line, "gdn_manifest: expected an integer version, got '" +
                               e.value + "'");
    if (v != 1)
      return error(e.line, "unsupported manifest version " + e.value +
                               " (this gdn-run reads version 1)");
    return Status::success(); // duplicates are reported by apply()
  }
  return error(0, "missing required key 'gdn_manifest' (the format version; "
                  "is this a gdn manifest?)");
}

Status Parser::parseUnsigned(const Entry &e, uint64_t maxValue,
                             uint64_t &out) {
  int64_t v = 0;
  if (!parseInt64(e.value, v))
    return error(e.line, e.key + ": expected a non-negative integer, got '" +
                             e.value + "'");
  if (v < 0 || static_cast<uint64_t>(v) > maxValue)
    return error(e.line, e.key + " = " + e.value + " is out of range [0, " +
                             std::to_string(maxValue) + "]");
  out = static_cast<uint64_t>(v);
  return Status::success();
}

Status Parser::parseDims(const Entry &e, std::array<unsigned, 3> &out) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t comma = e.value.find(',', start);
    parts.push_back(trim(e.value.substr(start, comma == std::string::npos
                                                   ? std::string::npos
                                                   : comma - start)));
    if (comma == std::string::npos)
      break;
    start = comma + 1;
  }
  if (parts.size() != 3)
    return error(e.line, e.key + ": expected three comma-separated integers "
                                 "'x,y,z', got '" +
                             e.value + "'");
  for (size_t i = 0; i < 3; ++i) {
    int64_t v = 0;
    if (!parseInt64(parts[i], v))
      return error(e.line, e.key + ": malformed integer '" + parts[i] +
                               "' in '" + e.value + "'");
    if (v < 1 || v > 65535)
      return error(e.line, e.key + ": dimension " + parts[i] +
                               " is out of range [1, 65535]");
    out[i] = static_cast<unsigned>(v);
  }
  return Status::success();
}

Status Parser::parseParam(const Entry &e) {
  size_t colon = e.value.find(':');
  if (colon == std::string::npos)
    return error(e.line, "param: expected 'name:type', got '" + e.value + "'");
  Param p;
  p.name = trim(e.value.substr(0, colon));
  p.line = e.line;
  std::string type = trim(e.value.substr(colon + 1));
  if (!isIdentifier(p.name, /*allowDollar=*/false))
    return error(e.line, "param: malformed parameter name '" + p.name + "'");
  if (!parseParamType(type, p.type))
    return error(e.line, "param " + p.name + ": unknown type '" + type +
                             "' (expected ptr<f16|bf16|f32|i32|i64>, i32, "
                             "i64 or f32)");
  for (const Param &q : m.params)
    if (q.name == p.name)
      return error(e.line, "duplicate parameter '" + p.name +
                               "' (first declared on line " +
                               std::to_string(q.line) + ")");
  m.params.push_back(std::move(p));
  return Status::success();
}

Status Parser::apply(const Entry &e) {
  if (e.key == "param")
    return parseParam(e);

  bool isMeta = e.key.compare(0, 5, "meta.") == 0;
  static const char *const known[] = {"gdn_manifest", "kernel", "ptx",
                                      "target",       "block",  "cluster",
                                      "shared_bytes"};
  bool isKnown = false;
  for (const char *k : known)
    isKnown |= e.key == k;
  if (!isMeta && !isKnown)
    return error(e.line, "unknown key '" + e.key + "'");
  if (isMeta && e.key.size() == 5)
    return error(e.line, "empty meta key 'meta.'");

  auto inserted = firstLine.emplace(e.key, e.line);
  if (!inserted.second)
    return error(e.line, "duplicate key '" + e.key + "' (first set on line " +
                             std::to_string(inserted.first->second) + ")");

  if (isMeta) {
    m.meta.push_back(MetaEntry{e.key.substr(5), e.value, e.line});
    return Status::success();
  }
  if (e.key == "gdn_manifest") {
    m.version = 1; // checkVersion() accepted it
    return Status::success();
  }
  if (e.key == "kernel") {
    if (!isIdentifier(e.value, /*allowDollar=*/true))
      return error(e.line, "kernel: malformed symbol name '" + e.value + "'");
    m.kernel = e.value;
    return Status::success();
  }
  if (e.key == "ptx") {
    m.ptx = e.value;
    return Status::success();
  }
  if (e.key == "target") {
    // sm_<digits> with an optional architecture-specific suffix (sm_90a).
    const std::string &v = e.value;
    size_t i = 3;
    bool ok = v.size() > 3 && v.compare(0, 3, "sm_") == 0;
    while (ok && i < v.size() && std::isdigit(static_cast<unsigned char>(v[i])))
      ++i;
    ok = ok && i > 3 && (i == v.size() || (i + 1 == v.size() &&
                                           (v[i] == 'a' || v[i] == 'f')));
    if (!ok)
      return error(e.line, "target: expected 'sm_<NN>' or 'sm_<NN>a', got '" +
                               v + "'");
    m.target = v;
    return Status::success();
  }
  if (e.key == "block") {
    GDN_RUN_TRY(parseDims(e, m.block));
    if (m.threadsPerBlock() > 1024)
      return error(e.line, "block: " + std::to_string(m.threadsPerBlock()) +
                               " threads per block, more than 1024");
    return Status::success();
  }
  if (e.key == "cluster")
    return parseDims(e, m.cluster);
  // shared_bytes
  uint64_t v = 0;
  GDN_RUN_TRY(parseUnsigned(e, 0x7fffffffu, v));
  m.sharedBytes = static_cast<uint32_t>(v);
  return Status::success();
}

Status Parser::parse(const std::string &text) {
  std::vector<Entry> entries;
  GDN_RUN_TRY(tokenize(text, entries));
  GDN_RUN_TRY(checkVersion(entries));
  for (const Entry &e : entries)
    GDN_RUN_TRY(apply(e));
  static const char *const required[] = {"gdn_manifest", "kernel", "ptx",
                                         "target", "block", "shared_bytes"};
  for (const char *k : required)
    if (!firstLine.count(k))
      return error(0, std::string("missing required key '") + k + "'");
  if (m.ptx.front() == '/')
    m.ptxPath = m.ptx;
  else {
    std::string dir = directoryOf(path);
    m.ptxPath = dir.empty() ? m.ptx
                            : (dir == "/" ? "/" + m.ptx : dir + "/" + m.ptx);
  }
  return Status::success();
}

Status parseManifest(const std::string &text, const std::string &path,
                     Manifest &out) {
  Manifest m;
  m.path = path;
  Parser parser(path, m);
  GDN_RUN_TRY(parser.parse(text));
  out = std::move(m);
  return Status::success();
}

Status readFile(const std::string &path, const std::string &what,
                std::string &out) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0)
    return Status::badInput(path + ": error: cannot read " + what + ": " +
                            std::strerror(errno));
  if (S_ISDIR(st.st_mode))
    return Status::badInput(path + ": error: cannot read " + what +
                            ": is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return Status::badInput(path + ": error: cannot read " + what + ": " +
                            std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad())
    return Status::badInput(path + ": error: cannot read " + what +
                            ": I/O error");
  out = buffer.str();
  return Status::success();
}

Status loadManifest(const std::string &path, Manifest &out) {
  std::string text;
  GDN_RUN_TRY(readFile(path, "manifest", text));
  return parseManifest(text, path, out);
}

} // namespace gdn::run
