//===- Npy.h - NumPy .npy files for gdn-run ---------------------*- C++ -*-===//
//
// Reads and writes the NumPy array format (versions 1.0 and 2.0, see
// numpy.lib.format): a magic string, a version, a little-endian header
// length, a Python dict literal {'descr': '<f2', 'fortran_order': False,
// 'shape': (2, 3), } padded to a multiple of 64 bytes, then the raw data.
//
// Only what gdn-run exchanges is supported: little-endian (or byte-order
// free) f2/f4/f8 floats, u2/i2 (bfloat16 bits: NumPy has no bfloat16), i4
// and i8 integers, C order. Everything else is rejected with a message that
// names the file and the problem.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_TOOLS_GDN_RUN_NPY_H
#define GDN_TOOLS_GDN_RUN_NPY_H

#include "Status.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace gdn::run {

/// Element types of .npy files gdn-run reads and writes.
enum class NpyType { F16, F32, F64, U16, I16, I32, I64 };

/// The NumPy descr of `type` ("<f2", "<u2", ...).
const char *npyDescr(NpyType type);
/// Bytes per element.
size_t npySize(NpyType type);

/// A parsed .npy header.
struct NpyHeader {
  NpyType type = NpyType::F32;
  std::vector<int64_t> shape;
  size_t dataOffset = 0; ///< bytes before the data
  int major = 1;         ///< format version 1 or 2

  /// Number of elements (product of the shape; 1 for a 0-d array).
  int64_t count() const;
  /// count() * element size.
  size_t dataBytes() const;
  /// "(2, 3)", as NumPy prints shapes.
  std::string shapeText() const;
};

/// A whole .npy file: header and data (little-endian element bytes).
struct NpyArray {
  NpyHeader header;
  std::vector<unsigned char> data;
};

/// Parses the header at the start of `bytes` (`size` bytes available);
/// `name` names the file in messages. Does not look at the data.
Status parseNpyHeader(const unsigned char *bytes, size_t size,
                      const std::string &name, NpyHeader &out);

/// Parses a whole file image: header, then exactly dataBytes() of data.
Status parseNpy(const std::string &bytes, const std::string &name,
                NpyArray &out);

/// Reads only the header of the file at `path` and checks that the file
/// size matches it (so a truncated file is reported before any data is
/// read).
Status readNpyHeader(const std::string &path, NpyHeader &out);

/// Reads the whole file at `path`.
Status readNpy(const std::string &path, NpyArray &out);

/// The header of an array's file image (the data follows it): version 1.0,
/// or 2.0 when the header does not fit 1.0's 16-bit length.
std::string encodeNpyHeader(NpyType type, const std::vector<int64_t> &shape);

/// Writes `data` (`bytes` = count * element size) as `path`.
Status writeNpy(const std::string &path, NpyType type,
                const std::vector<int64_t> &shape, const void *data,
                size_t bytes);

} // namespace gdn::run

#endif // GDN_TOOLS_GDN_RUN_NPY_H
