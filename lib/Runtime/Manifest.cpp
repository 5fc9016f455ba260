//===- Manifest.cpp - gdn-run kernel manifest parser ----------------------===//
//
// Parsing runs in two phases: the text is first split into (line, key, value)
// entries, reporting syntax errors; then the version is checked before any
// key is interpreted, so that a manifest of a future format version is
// reported as such rather than as a list of unknown keys.
//
//===----------------------------------------------------------------------===//

#include "Manifest.h"

#include "GridExpr.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <algorithm>
#include <map>
#include <sstream>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

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
  if (isTensorMap)
    return "tensormap";
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
  if (t == "tensormap") {
    out = ParamType{false, DType::I64, true};
    return true;
  }
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

unsigned tmaSwizzleBytes(TmaSwizzle swizzle) {
  switch (swizzle) {
  case TmaSwizzle::None:
    return 0;
  case TmaSwizzle::B32:
    return 32;
  case TmaSwizzle::B64:
    return 64;
  case TmaSwizzle::B128:
    return 128;
  }
  return 0;
}

bool isKnownTarget(const std::string &target) {
  // CUDA architectures with a compute capability (sm_XX = X.X).
  static const int known[] = {50, 52, 53, 60, 61, 62, 70, 72, 75, 80, 86,
                              87, 88, 89, 90, 100, 101, 103, 110, 120, 121};
  const std::string prefix = "sm_";
  if (target.compare(0, prefix.size(), prefix) != 0)
    return false;
  std::string digits = target.substr(prefix.size());
  char suffix = 0;
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) {
    suffix = digits.back();
    digits.pop_back();
  }
  if (digits.empty() || digits.size() > 3 || digits[0] == '0')
    return false;
  for (char c : digits)
    if (c < '0' || c > '9')
      return false;
  int sm = std::stoi(digits);
  bool isKnown = false;
  for (int k : known)
    isKnown |= k == sm;
  if (!isKnown)
    return false;
  if (suffix == 'a')
    return sm >= 90;
  if (suffix == 'f')
    return sm >= 100;
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

const Param *Manifest::findParam(const std::string &name) const {
  for (const Param &p : params)
    if (p.name == name)
      return &p;
  return nullptr;
}

const TensorMapDecl *
Manifest::findTensorMap(const std::string &name) const {
  for (const TensorMapDecl &t : tensorMaps)
    if (t.name == name)
      return &t;
  return nullptr;
}

std::string Manifest::metaString(const std::string &key,
                                 const std::string &fallback) const {
  const MetaEntry *e = findMeta(key);
  return e ? e->value : fallback;
}

Status checkRequiredMultiples(const Manifest &m,
                              const std::map<std::string, int64_t> &values) {
  for (const RequiredMultiple &r : m.requiredMultiples) {
    auto it = values.find(r.name);
    if (it == values.end())
      return Status::badInput(
          m.location(r.line) + ": error: kernel " + m.kernel +
          " requires a multiple of " + std::to_string(r.multiple) + " of " +
          r.name + ", a scalar this launcher does not bind");
    if (it->second % r.multiple == 0)
      continue;
    return Status::badInput(
        m.location(r.line) + ": error: kernel " + m.kernel + " needs " +
        r.name + " to be a multiple of " + std::to_string(r.multiple) +
        " (its vector accesses rely on it), got " + r.name + " = " +
        std::to_string(it->second));
  }
  return Status::success();
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
  Status parseTensorMap(const Entry &e);

  const std::string &path;
  Manifest &m;
  std::map<std::string, int> firstLine; ///< non-repeatable key -> line
  std::vector<Entry> tensorMapEntries;  ///< tensormap.* lines, in order
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
                             "i64, f32 or tensormap)");
  for (const Param &q : m.params)
    if (q.name == p.name)
      return error(e.line, "duplicate parameter '" + p.name +
                               "' (first declared on line " +
                               std::to_string(q.line) + ")");
  m.params.push_back(std::move(p));
  return Status::success();
}

Status Parser::parseTensorMap(const Entry &e) {
  TensorMapDecl t;
  t.name = e.key.substr(10);
  t.line = e.line;
  const std::string where = "tensormap." + t.name;
  auto bad = [&](const std::string &problem) {
    return error(e.line, where + ": " + problem);
  };
  const Param *param = m.findParam(t.name);
  if (!param)
    return bad("no parameter '" + t.name +
               "' (declare it first: param = " + t.name + ":tensormap)");
  if (!param->type.isTensorMap)
    return bad("parameter " + t.name + " is " + param->type.str() +
               ", not tensormap");
  t.paramIndex = static_cast<size_t>(param - m.params.data());

  // Fields: key=value, separated by ';'.
  std::map<std::string, std::string> fields;
  size_t start = 0;
  while (true) {
    size_t semi = e.value.find(';', start);
    std::string field = trim(e.value.substr(
        start, semi == std::string::npos ? std::string::npos : semi - start));
    if (field.empty())
      return bad("empty field in '" + e.value +
                 "' (fields are 'key=value' separated by ';')");
    size_t eq = field.find('=');
    if (eq == std::string::npos)
      return bad("expected 'key=value', got '" + field + "'");
    std::string key = trim(field.substr(0, eq));
    std::string value = trim(field.substr(eq + 1));
    static const char *const keys[] = {"base", "dims",    "strides", "box",
                                       "swizzle", "l2", "fill"};
    bool knownKey = false;
    for (const char *k : keys)
      knownKey |= key == k;
    if (!knownKey)
      return bad("unknown field '" + key +
                 "' (known: base, dims, strides, box, swizzle, l2, fill)");
    if (value.empty() && key != "strides")
      return bad("empty value for '" + key + "'");
    if (!fields.emplace(key, value).second)
      return bad("duplicate field '" + key + "'");
    if (semi == std::string::npos)
      break;
    start = semi + 1;
  }
  for (const char *k : {"base", "dims", "strides", "box", "swizzle"})
    if (!fields.count(k))
      return bad(std::string("missing field '") + k +
                 "' (required: base, dims, strides, box, swizzle)");

  // base
  t.base = fields["base"];
  const Param *base = m.findParam(t.base);
  if (!base)
    return bad("base '" + t.base + "' is not a parameter of the kernel");
  if (!base->type.isPointer)
    return bad("base " + t.base + " is " + base->type.str() +
               ", not a ptr<...> parameter");
  t.baseIndex = static_cast<size_t>(base - m.params.data());
  t.elem = base->type.elem;
  const size_t elemBytes = dtypeSize(t.elem);

  // dims, strides: expressions.
  t.dims = splitExprList(fields["dims"]);
  if (t.dims.size() > 5)
    return bad("dims has " + std::to_string(t.dims.size()) +
               " entries; a tensor map has rank 1 to 5");
  for (size_t i = 0; i < t.dims.size(); ++i) {
    Status s = checkIntExprSyntax(t.dims[i]);
    if (!s.ok())
      return bad("dims[" + std::to_string(i) + "]: " + s.message());
  }
  if (!trim(fields["strides"]).empty())
    t.strides = splitExprList(fields["strides"]);
  if (t.strides.size() != t.rank() - 1)
    return bad("strides has " + std::to_string(t.strides.size()) +
               " entries, expected rank - 1 = " +
               std::to_string(t.rank() - 1) +
               " (the strides of dims 1.." + std::to_string(t.rank() - 1) +
               " in elements; dim 0 is contiguous)");
  for (size_t i = 0; i < t.strides.size(); ++i) {
    Status s = checkIntExprSyntax(t.strides[i]);
    if (!s.ok())
      return bad("strides[" + std::to_string(i) + "]: " + s.message());
  }

  // box: integer literals.
  std::vector<std::string> box = splitExprList(fields["box"]);
  if (box.size() != t.rank())
    return bad("box has " + std::to_string(box.size()) +
               " entries, expected one per dim (" + std::to_string(t.rank()) +
               ")");
  for (size_t i = 0; i < box.size(); ++i) {
    int64_t v = 0;
    if (!parseInt64(box[i], v))
      return bad("box[" + std::to_string(i) + "]: expected an integer, got '" +
                 box[i] + "'");
    if (v < 1 || v > 256)
      return bad("box[" + std::to_string(i) + "] = " + box[i] +
                 " is out of range [1, 256]");
    t.box.push_back(static_cast<uint32_t>(v));
  }

  // swizzle, l2, fill.
  const std::string &sw = fields["swizzle"];
  if (sw == "none")
    t.swizzle = TmaSwizzle::None;
  else if (sw == "32")
    t.swizzle = TmaSwizzle::B32;
  else if (sw == "64")
    t.swizzle = TmaSwizzle::B64;
  else if (sw == "128")
    t.swizzle = TmaSwizzle::B128;
  else
    return bad("swizzle: expected none, 32, 64 or 128, got '" + sw + "'");
  const uint64_t innerBytes = uint64_t(t.box[0]) * elemBytes;
  if (innerBytes % 16 != 0)
    return bad("box[0] = " + std::to_string(t.box[0]) + " " +
               dtypeName(t.elem) + " elements = " +
               std::to_string(innerBytes) +
               " bytes is not a multiple of 16 bytes (required by "
               "cuTensorMapEncodeTiled)");
  if (t.swizzle != TmaSwizzle::None && innerBytes > tmaSwizzleBytes(t.swizzle))
    return bad("box[0] = " + std::to_string(t.box[0]) + " " +
               dtypeName(t.elem) + " elements = " +
               std::to_string(innerBytes) + " bytes exceeds the " + sw +
               "-byte swizzle span (box[0] * element size must be <= the "
               "swizzle size)");
  if (fields.count("l2")) {
    const std::string &l2 = fields["l2"];
    if (l2 == "none")
      t.l2 = TmaL2Promotion::None;
    else if (l2 == "64")
      t.l2 = TmaL2Promotion::B64;
    else if (l2 == "128")
      t.l2 = TmaL2Promotion::B128;
    else if (l2 == "256")
      t.l2 = TmaL2Promotion::B256;
    else
      return bad("l2: expected none, 64, 128 or 256, got '" + l2 + "'");
  }
  if (fields.count("fill")) {
    const std::string &fill = fields["fill"];
    if (fill == "zero")
      t.fill = TmaFill::Zero;
    else if (fill == "nan")
      t.fill = TmaFill::Nan;
    else
      return bad("fill: expected zero or nan, got '" + fill + "'");
    if (t.fill == TmaFill::Nan &&
        (t.elem == DType::I32 || t.elem == DType::I64))
      return bad(std::string("fill=nan needs a floating-point map, but base ") +
                 t.base + " is " + base->type.str());
  }
  m.tensorMaps.push_back(std::move(t));
  return Status::success();
}

Status Parser::apply(const Entry &e) {
  if (e.key == "param")
    return parseParam(e);

  bool isMeta = e.key.compare(0, 5, "meta.") == 0;
  if (e.key.compare(0, 10, "tensormap.") == 0) {
    if (e.key.size() == 10)
      return error(e.line, "empty tensor map name 'tensormap.'");
    auto inserted = firstLine.emplace(e.key, e.line);
    if (!inserted.second)
      return error(e.line, "duplicate key '" + e.key +
                               "' (first set on line " +
                               std::to_string(inserted.first->second) + ")");
    tensorMapEntries.push_back(e); // checked once every param is known
    return Status::success();
  }
  if (e.key.compare(0, 18, "requires_multiple.") == 0) {
    std::string name = e.key.substr(18);
    if (!isIdentifier(name, /*allowDollar=*/false))
      return error(e.line, "requires_multiple: '" + name +
                               "' is not a parameter name");
    auto inserted = firstLine.emplace(e.key, e.line);
    if (!inserted.second)
      return error(e.line, "duplicate key '" + e.key + "' (first set on line " +
                               std::to_string(inserted.first->second) + ")");
    uint64_t v = 0;
    GDN_RUN_TRY(parseUnsigned(e, uint64_t(1) << 30, v));
    if (v == 0)
      return error(e.line, e.key + ": the multiple must be positive");
    m.requiredMultiples.push_back(
        RequiredMultiple{name, static_cast<int64_t>(v), e.line});
    return Status::success();
  }
  static const char *const known[] = {"gdn_manifest", "kernel", "ptx",
                                      "ptx_hash",     "target", "block",
                                      "cluster",      "shared_bytes",
                                      "index_bits",   "grid_dependency"};
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
  if (e.key == "ptx_hash") {
    // "fnv1a64w:" and 16 lowercase hex digits (ptxHash()).
    const std::string &v = e.value;
    bool ok = v.size() == 25 && v.compare(0, 9, "fnv1a64w:") == 0;
    for (size_t i = 9; ok && i < v.size(); ++i)
      ok = std::isdigit(static_cast<unsigned char>(v[i])) ||
           (v[i] >= 'a' && v[i] <= 'f');
    if (!ok)
      return error(e.line, "ptx_hash: expected 'fnv1a64w:' and 16 lowercase "
                           "hex digits, got '" + v + "'");
    m.ptxHash = v;
    m.ptxHashLine = e.line;
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
    if (!isKnownTarget(v))
      return error(e.line, "target: unknown CUDA architecture '" + v +
                               "' (known: sm_50 ... sm_121; the 'a' suffix "
                               "from sm_90 on, 'f' from sm_100 on)");
    m.target = v;
    return Status::success();
  }
  if (e.key == "block") {
    GDN_RUN_TRY(parseDims(e, m.block));
    // The product is taken in 64 bits: 4096 x 4096 x 256 must not wrap to 0.
    if (m.threadsPerBlock() > 1024)
      return error(e.line, "block: " + std::to_string(m.threadsPerBlock()) +
                               " threads per block, more than 1024 (" +
                               std::to_string(m.block[0]) + " x " +
                               std::to_string(m.block[1]) + " x " +
                               std::to_string(m.block[2]) + ")");
    if (m.block[0] > 1024 || m.block[1] > 1024 || m.block[2] > 64)
      return error(e.line, "block: " + e.value +
                               " exceeds the block limits (x, y <= 1024, "
                               "z <= 64)");
    return Status::success();
  }
  if (e.key == "cluster") {
    GDN_RUN_TRY(parseDims(e, m.cluster));
    if (m.blocksPerCluster() > 16)
      return error(e.line, "cluster: " + std::to_string(m.blocksPerCluster()) +
                               " blocks per cluster, more than 16");
    return Status::success();
  }
  uint64_t v = 0;
  if (e.key == "index_bits") {
    if (e.value != "32" && e.value != "64")
      return error(e.line, "index_bits: expected 32 or 64, got '" + e.value +
                               "'");
    m.indexBits = e.value == "32" ? 32 : 64;
    return Status::success();
  }
  if (e.key == "grid_dependency") {
    if (e.value.size() != 1 || e.value[0] < '0' || e.value[0] > '3')
      return error(e.line, "grid_dependency: expected 0, 1, 2 or 3, got '" +
                               e.value + "'");
    m.gridDependency = e.value[0] - '0';
    return Status::success();
  }
  // shared_bytes
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
  for (const Entry &e : tensorMapEntries)
    GDN_RUN_TRY(parseTensorMap(e));
  for (const RequiredMultiple &r : m.requiredMultiples) {
    const Param *p = m.findParam(r.name);
    if (!p || !p->type.isIntScalar())
      return error(r.line, "requires_multiple." + r.name + ": " + r.name +
                               " is not an integer scalar parameter");
  }
  for (size_t i = 0; i < m.params.size(); ++i)
    if (m.params[i].type.isTensorMap && !m.findTensorMap(m.params[i].name))
      return error(m.params[i].line,
                   "parameter " + m.params[i].name +
                       " is a tensormap but no 'tensormap." +
                       m.params[i].name + " = base=...; dims=...; ...' line "
                                          "describes it");
  std::sort(m.tensorMaps.begin(), m.tensorMaps.end(),
            [](const TensorMapDecl &a, const TensorMapDecl &b) {
              return a.paramIndex < b.paramIndex;
            });
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

Status openRegularFile(const std::string &path, const std::string &what,
                       int &fd, uint64_t &size) {
  auto fail = [&](const std::string &why) {
    return Status::badInput(path + ": error: cannot read " + what + ": " +
                            why);
  };
  // O_NONBLOCK: opening a FIFO without a writer would block forever.
  int f = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (f < 0)
    return fail(std::strerror(errno));
  struct stat st;
  if (::fstat(f, &st) != 0) {
    int err = errno;
    ::close(f);
    return fail(std::strerror(err));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(f);
    return fail(S_ISDIR(st.st_mode)    ? "is a directory"
                : S_ISFIFO(st.st_mode) ? "is a FIFO, not a regular file"
                : S_ISSOCK(st.st_mode) ? "is a socket, not a regular file"
                                       : "is a device, not a regular file");
  }
  int flags = ::fcntl(f, F_GETFL);
  if (flags < 0 || ::fcntl(f, F_SETFL, flags & ~O_NONBLOCK) != 0) {
    int err = errno;
    ::close(f);
    return fail(std::strerror(err));
  }
  fd = f;
  size = static_cast<uint64_t>(st.st_size);
  return Status::success();
}

Status readFile(const std::string &path, const std::string &what,
                std::string &out) {
  int fd = -1;
  uint64_t size = 0;
  GDN_RUN_TRY(openRegularFile(path, what, fd, size));
  std::string data;
  data.reserve(static_cast<size_t>(size));
  char buffer[1 << 16];
  while (true) {
    ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return Status::badInput(path + ": error: cannot read " + what + ": " +
                              std::strerror(err));
    }
    if (n == 0)
      break;
    data.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  out = std::move(data);
  return Status::success();
}

Status loadManifest(const std::string &path, Manifest &out) {
  std::string text;
  GDN_RUN_TRY(readFile(path, "manifest", text));
  return parseManifest(text, path, out);
}

} // namespace gdn::run
