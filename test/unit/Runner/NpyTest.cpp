//===- NpyTest.cpp - .npy reader and writer tests -------------------------===//
//
// Round trips through files and in-memory images, the exact header bytes
// NumPy expects, and every rejection (with the file named).
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "TestSupport.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include <unistd.h>

using namespace gdn::run;

namespace {

using test::TempDir;

/// A file image with a hand-written header (version 1.0, padded to 64).
std::string image(const std::string &dict, const std::string &data,
                  int major = 1) {
  std::string h = dict;
  size_t prefix = major == 1 ? 10 : 12;
  while ((prefix + h.size() + 1) % 64)
    h += ' ';
  h += '\n';
  std::string out("\x93NUMPY", 6);
  out.push_back(static_cast<char>(major));
  out.push_back(0);
  size_t len = h.size();
  for (size_t i = 0; i < prefix - 8; ++i)
    out.push_back(static_cast<char>((len >> (8 * i)) & 0xff));
  return out + h + data;
}

std::string parseError(const std::string &bytes) {
  NpyArray a;
  Status s = parseNpy(bytes, "dir/x.npy", a);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "dir/x.npy: error: ");
  return s.message();
}

void writeBytes(const std::string &path, const std::string &bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

} // namespace

TEST(NpyTest, HeaderMatchesNumPy) {
  // What np.save writes for np.zeros((2, 3), '<f4').
  std::string h = encodeNpyHeader(NpyType::F32, {2, 3});
  EXPECT_EQ(h.size(), 128u);
  EXPECT_EQ(h.substr(0, 8), std::string("\x93NUMPY\x01\x00", 8));
  EXPECT_EQ(h.substr(10, 59),
            "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }");
  EXPECT_EQ(h.substr(69, 58), std::string(58, ' '));
  EXPECT_EQ(h.back(), '\n');
  EXPECT_EQ(static_cast<unsigned char>(h[8]) | (h[9] << 8), 118);
  // 1-D shapes have a trailing comma, 0-d ones are ().
  EXPECT_NE(encodeNpyHeader(NpyType::I32, {7}).find("'shape': (7,), }"),
            std::string::npos);
  EXPECT_NE(encodeNpyHeader(NpyType::F64, {}).find("'shape': (), }"),
            std::string::npos);
  for (auto shape : {std::vector<int64_t>{}, {1}, {1, 2, 3, 4, 5, 6, 7, 8}})
    EXPECT_EQ(encodeNpyHeader(NpyType::F16, shape).size() % 64, 0u);
}

TEST(NpyTest, RoundTripEveryType) {
  TempDir dir;
  const NpyType types[] = {NpyType::F16, NpyType::F32, NpyType::F64,
                           NpyType::U16, NpyType::I16, NpyType::I32,
                           NpyType::I64};
  for (NpyType t : types) {
    for (auto shape : {std::vector<int64_t>{}, {5}, {2, 3, 4}, {0, 3}}) {
      NpyHeader h;
      h.shape = shape;
      h.type = t;
      std::vector<unsigned char> data(h.dataBytes());
      for (size_t i = 0; i < data.size(); ++i)
        data[i] = static_cast<unsigned char>(i * 37 + 11);
      std::string path = dir.file(std::string("a") + npyDescr(t) + ".npy");
      ASSERT_TRUE(writeNpy(path, t, shape, data.data(), data.size()).ok());
      NpyArray a;
      Status s = readNpy(path, a);
      ASSERT_TRUE(s.ok()) << s.message();
      EXPECT_EQ(a.header.type, t);
      EXPECT_EQ(a.header.shape, shape);
      EXPECT_EQ(a.header.major, 1);
      EXPECT_EQ(a.header.dataOffset % 64, 0u);
      EXPECT_EQ(a.data, data);
      NpyHeader only;
      ASSERT_TRUE(readNpyHeader(path, only).ok());
      EXPECT_EQ(only.shape, shape);
    }
  }
  EXPECT_EQ(npySize(NpyType::U16), 2u);
  EXPECT_STREQ(npyDescr(NpyType::I64), "<i8");
}

TEST(NpyTest, AcceptsVersion2AndVariants) {
  float values[2] = {1.5f, -2.0f};
  std::string data(reinterpret_cast<const char *>(values), sizeof values);
  NpyArray a;
  Status s = parseNpy(
      image("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), }",
            data, 2),
      "v2.npy", a);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(a.header.major, 2);
  EXPECT_EQ(a.header.count(), 2);
  // Double quotes, no trailing commas, other key order, '=' and '|' orders.
  s = parseNpy(image("{\"shape\": (2, 1), \"fortran_order\": False, "
                     "\"descr\": \"=f4\"}",
                     data),
               "q.npy", a);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(a.header.shape, (std::vector<int64_t>{2, 1}));
  s = parseNpy(image("{'descr': '|i2', 'fortran_order': False, 'shape': "
                     "(4,)}",
                     data),
               "q.npy", a);
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(a.header.type, NpyType::I16);
}

TEST(NpyTest, Rejections) {
  const std::string f4 = "{'descr': '<f4', 'fortran_order': False, "
                         "'shape': (2,), }";
  const std::string eight(8, '\0');
  EXPECT_CONTAINS(parseError("hello"), "not a .npy file");
  EXPECT_CONTAINS(parseError(std::string("\x93NUMPY\x03\x00", 8) +
                             std::string(60, ' ')),
                  "unsupported .npy format version 3.0");
  EXPECT_CONTAINS(parseError(image(f4, eight).substr(0, 30)),
                  "truncated .npy header");
  EXPECT_CONTAINS(parseError(image(f4, "1234")),
                  "data size mismatch: shape (2,) of <f4 needs 8 bytes, the "
                  "file has 4");
  EXPECT_CONTAINS(parseError(image(f4, eight + "x")), "the file has 9");
  EXPECT_CONTAINS(
      parseError(image("{'descr': '<f4', 'fortran_order': True, 'shape': "
                       "(2,), }",
                       eight)),
      "Fortran-order arrays are not supported");
  EXPECT_CONTAINS(
      parseError(image("{'descr': '>f4', 'fortran_order': False, 'shape': "
                       "(2,), }",
                       eight)),
      "big-endian dtype '>f4' is not supported");
  EXPECT_CONTAINS(
      parseError(image("{'descr': '<c8', 'fortran_order': False, 'shape': "
                       "(1,), }",
                       eight)),
      "unsupported dtype '<c8'");
  EXPECT_CONTAINS(
      parseError(image("{'descr': [('a', '<f4')], 'fortran_order': False, "
                       "'shape': (1,), }",
                       std::string(4, '\0'))),
      "structured dtypes are not supported");
  EXPECT_CONTAINS(parseError(image("{'descr': '<f4', 'shape': (2,), }",
                                   eight)),
                  "lacks one of 'descr', 'fortran_order', 'shape'");
  EXPECT_CONTAINS(parseError(image("{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (2,), 'extra': 1}",
                                   eight)),
                  "unexpected key 'extra'");
  EXPECT_CONTAINS(parseError(image("{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (2,)",
                                   eight)),
                  "malformed .npy header");
  EXPECT_CONTAINS(parseError(image("{'descr': '<f4', 'fortran_order': False, "
                                   "'shape': (-2,)}",
                                   eight)),
                  "negative dimension");
  EXPECT_CONTAINS(parseError(image("{'descr': '<f4', 'fortran_order': 0, "
                                   "'shape': (2,)}",
                                   eight)),
                  "'fortran_order' is not True or False");
}

TEST(NpyTest, FileErrorsNameTheFile) {
  TempDir dir;
  NpyArray a;
  Status s = readNpy(dir.file("missing.npy"), a);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "missing.npy: error: cannot read .npy file");
  s = readNpy(dir.path, a);
  EXPECT_CONTAINS(s.message(), "is a directory");

  // A truncated file is found from the header alone.
  std::vector<float> data(1000, 1.0f);
  std::string path = dir.file("t.npy");
  ASSERT_TRUE(writeNpy(path, NpyType::F32, {1000}, data.data(),
                       data.size() * 4)
                  .ok());
  std::string bytes;
  {
    std::ifstream in(path, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  writeBytes(path, bytes.substr(0, bytes.size() - 100));
  NpyHeader h;
  s = readNpyHeader(path, h);
  EXPECT_EQ(s.code(), ExitCode::BadInput);
  EXPECT_CONTAINS(s.message(), "t.npy: error: data size mismatch");
  EXPECT_CONTAINS(s.message(), "(truncated?)");

  s = writeNpy(dir.file("no/such/dir.npy"), NpyType::F32, {1}, data.data(), 4);
  EXPECT_CONTAINS(s.message(), "cannot write .npy file");
  s = writeNpy(dir.file("bad.npy"), NpyType::F32, {2}, data.data(), 4);
  EXPECT_CONTAINS(s.message(), "internal error");
}
