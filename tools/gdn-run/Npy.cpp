//===- Npy.cpp - NumPy .npy files for gdn-run -----------------------------===//
//
// The header dict is parsed with a small tokenizer for the subset of Python
// literals NumPy writes there: quoted strings, True/False, integers and
// tuples of integers, with optional trailing commas.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "Manifest.h"

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#include <sys/stat.h>
#include <unistd.h>

namespace gdn::run {

const char *npyDescr(NpyType type) {
  switch (type) {
  case NpyType::F16:
    return "<f2";
  case NpyType::F32:
    return "<f4";
  case NpyType::F64:
    return "<f8";
  case NpyType::U16:
    return "<u2";
  case NpyType::I16:
    return "<i2";
  case NpyType::I32:
    return "<i4";
  case NpyType::I64:
    return "<i8";
  }
  return "?";
}

size_t npySize(NpyType type) {
  switch (type) {
  case NpyType::F16:
  case NpyType::U16:
  case NpyType::I16:
    return 2;
  case NpyType::F32:
  case NpyType::I32:
    return 4;
  case NpyType::F64:
  case NpyType::I64:
    return 8;
  }
  return 0;
}

int64_t NpyHeader::count() const {
  int64_t n = 1;
  for (int64_t d : shape)
    n *= d;
  return n;
}

size_t NpyHeader::dataBytes() const {
  return static_cast<size_t>(count()) * npySize(type);
}

std::string NpyHeader::shapeText() const {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i)
    s += (i ? ", " : "") + std::to_string(shape[i]);
  if (shape.size() == 1)
    s += ",";
  return s + ")";
}

namespace {

const char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

Status npyError(const std::string &name, const std::string &problem) {
  return Status::badInput(name + ": error: " + problem);
}

/// One value of the header dict.
struct Value {
  enum Kind { String, Bool, Int, Tuple } kind = Int;
  std::string text;
  bool flag = false;
  int64_t number = 0;
  std::vector<int64_t> items;
};

/// Parses the header's dict literal.
class DictParser {
public:
  DictParser(const std::string &text, const std::string &name)
      : text_(text), name_(name) {}

  Status parse(std::map<std::string, Value> &out) {
    GDN_RUN_TRY(expect('{'));
    while (true) {
      if (accept('}'))
        break;
      Value key;
      GDN_RUN_TRY(parseString(key));
      GDN_RUN_TRY(expect(':'));
      Value value;
      GDN_RUN_TRY(parseValue(value));
      if (out.count(key.text))
        return error("duplicate key '" + key.text + "'");
      out[key.text] = value;
      if (accept('}'))
        break;
      GDN_RUN_TRY(expect(','));
    }
    skipSpace();
    if (pos_ != text_.size())
      return error("unexpected text after the header dict");
    return Status::success();
  }

private:
  Status error(const std::string &problem) const {
    return npyError(name_, "malformed .npy header: " + problem + " in \"" +
                               trim(text_) + "\"");
  }
  void skipSpace() {
    while (pos_ < text_.size() &&
           std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool accept(char c) {
    skipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  Status expect(char c) {
    if (accept(c))
      return Status::success();
    return error(std::string("expected '") + c + "'");
  }
  Status parseString(Value &out) {
    skipSpace();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      return error("expected a quoted string");
    char quote = text_[pos_++];
    size_t end = text_.find(quote, pos_);
    if (end == std::string::npos)
      return error("unterminated string");
    out.kind = Value::String;
    out.text = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return Status::success();
  }
  Status parseInt(int64_t &out) {
    skipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[pos_])) ||
            text_[pos_] == '-'))
      ++pos_;
    // NumPy on some platforms writes 'L' suffixes (Python 2 longs).
    std::string digits = text_.substr(start, pos_ - start);
    if (pos_ < text_.size() && text_[pos_] == 'L')
      ++pos_;
    if (!parseInt64(digits, out))
      return error("expected an integer");
    return Status::success();
  }
  Status parseValue(Value &out) {
    skipSpace();
    if (pos_ >= text_.size())
      return error("expected a value");
    char c = text_[pos_];
    if (c == '\'' || c == '"')
      return parseString(out);
    if (text_.compare(pos_, 4, "True") == 0) {
      pos_ += 4;
      out.kind = Value::Bool;
      out.flag = true;
      return Status::success();
    }
    if (text_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
      out.kind = Value::Bool;
      out.flag = false;
      return Status::success();
    }
    if (c == '(') {
      ++pos_;
      out.kind = Value::Tuple;
      while (!accept(')')) {
        int64_t v = 0;
        GDN_RUN_TRY(parseInt(v));
        out.items.push_back(v);
        if (accept(')'))
          break;
        GDN_RUN_TRY(expect(','));
      }
      return Status::success();
    }
    if (c == '[' || c == '{')
      return error("structured dtypes are not supported");
    out.kind = Value::Int;
    return parseInt(out.number);
  }

  const std::string &text_;
  const std::string &name_;
  size_t pos_ = 0;
};

uint32_t readLE(const unsigned char *p, size_t bytes) {
  uint32_t v = 0;
  for (size_t i = 0; i < bytes; ++i)
    v |= static_cast<uint32_t>(p[i]) << (8 * i);
  return v;
}

Status descrToType(const std::string &descr, const std::string &name,
                   NpyType &out) {
  static const NpyType all[] = {NpyType::F16, NpyType::F32, NpyType::F64,
                                NpyType::U16, NpyType::I16, NpyType::I32,
                                NpyType::I64};
  std::string d = descr;
  // '=' (native) and '|' (not applicable) mean little-endian here only for
  // what NumPy itself would write on this (little-endian) host.
  if (!d.empty() && (d[0] == '=' || d[0] == '|'))
    d[0] = '<';
  for (NpyType t : all) {
    if (d == npyDescr(t)) {
      out = t;
      return Status::success();
    }
  }
  if (!descr.empty() && descr[0] == '>')
    return npyError(name, "big-endian dtype '" + descr +
                              "' is not supported (save the array with a "
                              "little-endian dtype, e.g. astype('<f4'))");
  return npyError(name, "unsupported dtype '" + descr +
                            "' (supported: <f2, <f4, <f8, <u2 or <i2 holding "
                            "bfloat16 bits, <i4, <i8)");
}

} // namespace

Status parseNpyHeader(const unsigned char *bytes, size_t size,
                      const std::string &name, NpyHeader &out) {
  if (size < kMagicSize + 2 ||
      std::memcmp(bytes, kMagic, kMagicSize) != 0)
    return npyError(name, "not a .npy file (missing the \\x93NUMPY magic)");
  int major = bytes[6], minor = bytes[7];
  if ((major != 1 && major != 2) || minor != 0)
    return npyError(name, "unsupported .npy format version " +
                              std::to_string(major) + "." +
                              std::to_string(minor) +
                              " (gdn-run reads 1.0 and 2.0)");
  size_t lenBytes = major == 1 ? 2 : 4;
  if (size < kMagicSize + 2 + lenBytes)
    return npyError(name, "truncated .npy header");
  size_t headerLen = readLE(bytes + kMagicSize + 2, lenBytes);
  size_t offset = kMagicSize + 2 + lenBytes;
  if (size < offset + headerLen)
    return npyError(name, "truncated .npy header (it announces " +
                              std::to_string(headerLen) + " bytes)");
  std::string text(reinterpret_cast<const char *>(bytes + offset), headerLen);

  std::map<std::string, Value> dict;
  DictParser parser(text, name);
  GDN_RUN_TRY(parser.parse(dict));
  for (const auto &entry : dict)
    if (entry.first != "descr" && entry.first != "fortran_order" &&
        entry.first != "shape")
      return npyError(name, "unexpected key '" + entry.first +
                                "' in the .npy header");
  auto descr = dict.find("descr");
  auto fortran = dict.find("fortran_order");
  auto shape = dict.find("shape");
  if (descr == dict.end() || fortran == dict.end() || shape == dict.end())
    return npyError(name, "the .npy header lacks one of 'descr', "
                          "'fortran_order', 'shape'");
  if (descr->second.kind != Value::String)
    return npyError(name, "'descr' is not a string (structured dtypes are "
                          "not supported)");
  if (fortran->second.kind != Value::Bool)
    return npyError(name, "'fortran_order' is not True or False");
  if (shape->second.kind != Value::Tuple)
    return npyError(name, "'shape' is not a tuple");

  NpyHeader h;
  GDN_RUN_TRY(descrToType(descr->second.text, name, h.type));
  if (fortran->second.flag)
    return npyError(name, "Fortran-order arrays are not supported (save a "
                          "C-order array, e.g. np.ascontiguousarray)");
  int64_t count = 1;
  for (int64_t d : shape->second.items) {
    if (d < 0)
      return npyError(name, "negative dimension in shape");
    if (__builtin_mul_overflow(count, d, &count))
      return npyError(name, "shape is too large");
  }
  int64_t bytesTotal = 0;
  if (__builtin_mul_overflow(count, static_cast<int64_t>(npySize(h.type)),
                             &bytesTotal))
    return npyError(name, "shape is too large");
  h.shape = shape->second.items;
  h.dataOffset = offset + headerLen;
  h.major = major;
  out = std::move(h);
  return Status::success();
}

Status parseNpy(const std::string &bytes, const std::string &name,
                NpyArray &out) {
  NpyHeader h;
  GDN_RUN_TRY(parseNpyHeader(
      reinterpret_cast<const unsigned char *>(bytes.data()), bytes.size(),
      name, h));
  size_t have = bytes.size() - h.dataOffset;
  if (have != h.dataBytes())
    return npyError(name, "data size mismatch: shape " + h.shapeText() +
                              " of " + npyDescr(h.type) + " needs " +
                              std::to_string(h.dataBytes()) +
                              " bytes, the file has " + std::to_string(have));
  out.header = h;
  out.data.assign(bytes.begin() + static_cast<std::ptrdiff_t>(h.dataOffset),
                  bytes.end());
  return Status::success();
}

namespace {

/// Closes a FILE on every return path.
struct File {
  std::FILE *f = nullptr;
  ~File() {
    if (f)
      std::fclose(f);
  }
};

Status openForRead(const std::string &path, File &file, size_t &fileSize) {
  // Only regular files: a FIFO named q.npy must not block gdn-run.
  int fd = -1;
  uint64_t size = 0;
  Status s = openRegularFile(path, ".npy file", fd, size);
  if (!s.ok())
    return s;
  file.f = ::fdopen(fd, "rb");
  if (!file.f) {
    int err = errno;
    ::close(fd);
    return npyError(path, std::string("cannot read .npy file: ") +
                              std::strerror(err));
  }
  fileSize = static_cast<size_t>(size);
  return Status::success();
}

Status readHeaderFrom(const std::string &path, File &file, size_t fileSize,
                      NpyHeader &out) {
  // Headers are short; 64 KiB + 12 covers every version-1 header, a longer
  // version-2 header is read in a second step.
  std::vector<unsigned char> head(std::min<size_t>(fileSize, 65536 + 12));
  if (std::fread(head.data(), 1, head.size(), file.f) != head.size())
    return npyError(path, "I/O error reading the .npy header");
  if (head.size() >= 12 && head[6] == 2) {
    size_t need = 12 + readLE(head.data() + 8, 4);
    if (need > head.size() && need <= fileSize) {
      size_t old = head.size();
      head.resize(need);
      if (std::fread(head.data() + old, 1, need - old, file.f) != need - old)
        return npyError(path, "I/O error reading the .npy header");
    }
  }
  NpyHeader h;
  GDN_RUN_TRY(parseNpyHeader(head.data(), head.size(), path, h));
  size_t have = fileSize - h.dataOffset;
  if (have != h.dataBytes())
    return npyError(path, "data size mismatch: shape " + h.shapeText() +
                              " of " + npyDescr(h.type) + " needs " +
                              std::to_string(h.dataBytes()) +
                              " bytes, the file has " + std::to_string(have) +
                              (have < h.dataBytes() ? " (truncated?)" : ""));
  out = h;
  return Status::success();
}

} // namespace

Status readNpyHeader(const std::string &path, NpyHeader &out) {
  File file;
  size_t size = 0;
  GDN_RUN_TRY(openForRead(path, file, size));
  return readHeaderFrom(path, file, size, out);
}

Status readNpy(const std::string &path, NpyArray &out) {
  File file;
  size_t size = 0;
  GDN_RUN_TRY(openForRead(path, file, size));
  NpyHeader h;
  GDN_RUN_TRY(readHeaderFrom(path, file, size, h));
  if (std::fseek(file.f, static_cast<long>(h.dataOffset), SEEK_SET) != 0)
    return npyError(path, "I/O error seeking to the .npy data");
  std::vector<unsigned char> data(h.dataBytes());
  if (!data.empty() &&
      std::fread(data.data(), 1, data.size(), file.f) != data.size())
    return npyError(path, "I/O error reading the .npy data");
  out.header = h;
  out.data = std::move(data);
  return Status::success();
}

std::string encodeNpyHeader(NpyType type, const std::vector<int64_t> &shape) {
  NpyHeader h;
  h.type = type;
  h.shape = shape;
  std::string dict = std::string("{'descr': '") + npyDescr(type) +
                     "', 'fortran_order': False, 'shape': " + h.shapeText() +
                     ", }";
  // Pad with spaces and a final newline so the data starts at a multiple of
  // 64 bytes; version 2.0 only when the padded dict overflows 16 bits.
  for (int major = 1;; ++major) {
    size_t prefix = kMagicSize + 2 + (major == 1 ? 2 : 4);
    size_t total = prefix + dict.size() + 1;
    size_t len = (total + 63) / 64 * 64 - prefix;
    if (major == 1 && len > 65535)
      continue;
    std::string out(kMagic, kMagicSize);
    out.push_back(static_cast<char>(major));
    out.push_back(0);
    for (size_t i = 0; i < (major == 1 ? 2u : 4u); ++i)
      out.push_back(static_cast<char>((len >> (8 * i)) & 0xff));
    out += dict;
    out.append(len - dict.size() - 1, ' ');
    out.push_back('\n');
    return out;
  }
}

Status writeNpy(const std::string &path, NpyType type,
                const std::vector<int64_t> &shape, const void *data,
                size_t bytes) {
  NpyHeader h;
  h.type = type;
  h.shape = shape;
  if (h.dataBytes() != bytes)
    return npyError(path, "internal error: writing " + std::to_string(bytes) +
                              " bytes as shape " + h.shapeText());
  std::string header = encodeNpyHeader(type, shape);
  File file;
  file.f = std::fopen(path.c_str(), "wb");
  if (!file.f)
    return npyError(path, std::string("cannot write .npy file: ") +
                              std::strerror(errno));
  bool ok = std::fwrite(header.data(), 1, header.size(), file.f) ==
            header.size();
  ok = ok && (bytes == 0 || std::fwrite(data, 1, bytes, file.f) == bytes);
  int rc = std::fclose(file.f);
  file.f = nullptr;
  if (!ok || rc != 0)
    return npyError(path, std::string("I/O error writing .npy file: ") +
                              std::strerror(errno));
  return Status::success();
}

} // namespace gdn::run
