//===- TileTypes.cpp - tile dialect types and attributes -------------------===//
//
// Parsing, printing and verification of !tile.buffer, and the verifiers of
// the layout attributes.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileDialect.h"
#include "gdn/Dialect/Tile/IR/TileLimits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::gdn::tile;

#define GET_ATTRDEF_CLASSES
#include "gdn/Dialect/Tile/IR/TileAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "gdn/Dialect/Tile/IR/TileTypes.cpp.inc"

void TileDialect::registerTypesAndAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "gdn/Dialect/Tile/IR/TileAttrs.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "gdn/Dialect/Tile/IR/TileTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Layout attributes
//===----------------------------------------------------------------------===//

LogicalResult MmaLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                    ArrayRef<int64_t> warps,
                                    MmaEngine engine) {
  if (warps.size() != 2)
    return emitError() << "mma layout needs a 2-D warp grid, got "
                       << warps.size() << " dimensions";
  if (warps[0] <= 0 || warps[1] <= 0)
    return emitError() << "mma layout warp counts must be positive";
  // Each count is at most kMaxWarpsPerBlock, so the product cannot overflow.
  if (warps[0] > kMaxWarpsPerBlock || warps[1] > kMaxWarpsPerBlock ||
      warps[0] * warps[1] > kMaxWarpsPerBlock)
    return emitError() << "mma layout warp grid " << warps[0] << "x"
                       << warps[1] << " has more than the "
                       << kMaxWarpsPerBlock << " warps of a block";
  if (engine == MmaEngine::Wgmma && warps[0] % 4 != 0)
    return emitError() << "a wgmma layout needs a [4k, n] warp grid (whole "
                          "warpgroups along M), got ["
                       << warps[0] << ", " << warps[1] << "]";
  return success();
}

LogicalResult
BlockedLayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                          int64_t vector) {
  if (vector <= 0 || (vector & (vector - 1)) != 0)
    return emitError() << "blocked layout vector width must be a power of "
                          "two, got "
                       << vector;
  // A thread moves at most 16 bytes (16 elements of the narrowest type) at
  // once.
  if (vector > 16)
    return emitError() << "blocked layout vector width must be at most 16, "
                          "got "
                       << vector;
  return success();
}

LogicalResult SwizzleAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  int64_t bytes) {
  if (bytes != 32 && bytes != 64 && bytes != 128)
    return emitError() << "swizzle width must be 32, 64 or 128 bytes, got "
                       << bytes;
  return success();
}

LogicalResult PaddedAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 int64_t elements, int64_t groupRows,
                                 int64_t groupElements) {
  if (elements <= 0)
    return emitError() << "row padding must be positive, got " << elements;
  // Bounded so that the padded sizes below cannot overflow.
  if (elements > kMaxSharedBytesPerBlock)
    return emitError() << "row padding of " << elements
                       << " elements exceeds a block's "
                       << kMaxSharedBytesPerBlock << " bytes of shared memory";
  if ((groupRows == 0) != (groupElements == 0) || groupRows < 0 ||
      groupElements < 0)
    return emitError() << "a group skew needs positive rows and elements, got "
                       << groupRows << " and " << groupElements;
  if (groupRows > kMaxSharedBytesPerBlock ||
      groupElements > kMaxSharedBytesPerBlock)
    return emitError() << "a group skew of " << groupElements << " per "
                       << groupRows << " rows exceeds a block's "
                       << kMaxSharedBytesPerBlock << " bytes of shared memory";
  return success();
}

//===----------------------------------------------------------------------===//
// BufferType
//===----------------------------------------------------------------------===//

int64_t BufferType::getRowPadding() const {
  if (auto pad = llvm::dyn_cast_or_null<PaddedAttr>(getLayout()))
    return pad.getElements();
  return 0;
}

std::pair<int64_t, int64_t> BufferType::getGroupSkew() const {
  if (auto pad = llvm::dyn_cast_or_null<PaddedAttr>(getLayout()))
    return {pad.getGroupRows(), pad.getGroupElements()};
  return {0, 0};
}

/// The whole rows of `rowElems` elements a group skew (S elements after
/// every G rows, on `rows` rows) adds to a buffer's storage: the skews of
/// every group but the last, rounded up to rows. The verifier's size check
/// and the storage shape both count these.
static int64_t skewRows(int64_t rows, int64_t rowElems, int64_t groupRows,
                        int64_t groupElems) {
  int64_t extra = (rows - 1) / groupRows * groupElems;
  return (extra + rowElems - 1) / rowElems;
}

SmallVector<int64_t> BufferType::getStorageShape() const {
  SmallVector<int64_t> shape(getShape());
  if (shape.empty() || ShapedType::isDynamic(shape.back()))
    return shape;
  shape.back() += getRowPadding();
  auto [groupRows, groupElements] = getGroupSkew();
  // A skewed buffer has rank 2.
  if (groupRows > 0 && shape.size() == 2 && !ShapedType::isDynamic(shape[0]))
    shape[0] += skewRows(shape[0], shape.back(), groupRows, groupElements);
  return shape;
}

int64_t BufferType::getNumElements() const {
  // Verified static shapes cannot overflow (BufferType::verify).
  std::optional<int64_t> n = checkedNumElements(getShape());
  assert(n && "getNumElements of a dynamic or overflowing shape");
  return n ? *n : 0;
}

bool BufferType::hasStaticShape() const {
  return llvm::none_of(getShape(), ShapedType::isDynamic);
}

int64_t BufferType::getElementBytes() const {
  return (getElementType().getIntOrFloatBitWidth() + 7) / 8;
}

BufferType BufferType::withLayout(Attribute layout) const {
  return BufferType::get(getContext(), getShape(), getElementType(),
                         getMemorySpace(), layout);
}

Type BufferType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/true,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma())
    return {};
  StringRef spaceName;
  SMLoc spaceLoc = parser.getCurrentLocation();
  if (parser.parseKeyword(&spaceName))
    return {};
  std::optional<MemorySpace> space = symbolizeMemorySpace(spaceName);
  if (!space) {
    parser.emitError(spaceLoc, "unknown memory space '")
        << spaceName << "', expected 'global', 'shared' or 'fragment'";
    return {};
  }
  Attribute layout;
  if (succeeded(parser.parseOptionalComma()) && parser.parseAttribute(layout))
    return {};
  if (parser.parseGreater())
    return {};
  return parser.getChecked<BufferType>(parser.getContext(), shape, elementType,
                                       *space, layout);
}

void BufferType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape()) {
    if (ShapedType::isDynamic(d))
      printer << "?";
    else
      printer << d;
    printer << "x";
  }
  printer << getElementType() << ", " << stringifyMemorySpace(getMemorySpace());
  if (getLayout())
    printer << ", " << getLayout();
  printer << ">";
}

LogicalResult BufferType::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> shape, Type elementType,
                                 MemorySpace space, Attribute layout) {
  if (shape.empty())
    return emitError() << "tile buffers must have rank >= 1";
  if (!elementType.isIntOrFloat())
    return emitError() << "tile buffer element type must be an integer or "
                          "float type, got "
                       << elementType;
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d)) {
      if (space != MemorySpace::Global)
        return emitError() << "only global buffers may have dynamic "
                              "dimensions";
    } else if (d <= 0) {
      return emitError() << "tile buffer dimensions must be positive, got "
                         << d;
    }
  }
  // Sizes computed from the type (elements, bytes, strides) must fit in
  // int64; shared buffers must fit in a block's shared memory.
  int64_t elemBytes = (elementType.getIntOrFloatBitWidth() + 7) / 8;
  SmallVector<int64_t> staticDims;
  for (int64_t d : shape)
    if (!ShapedType::isDynamic(d))
      staticDims.push_back(d);
  // Padded rows (#tile.padded, checked below) count with their padding.
  if (auto pad = llvm::dyn_cast_or_null<PaddedAttr>(layout);
      pad && !staticDims.empty() && !ShapedType::isDynamic(shape.back())) {
    std::optional<int64_t> row =
        checkedAdd(staticDims.back(), pad.getElements());
    if (!row)
      return emitError() << "tile buffer " << formatShape(shape, elementType)
                         << " with its row padding has more elements than "
                            "fit in int64";
    staticDims.back() = *row;
  }
  std::optional<int64_t> bytes = checkedSizeInBytes(staticDims, elemBytes);
  if (!bytes)
    return emitError() << "tile buffer " << formatShape(shape, elementType)
                       << " has more bytes than fit in int64";
  // A group skew adds whole rows of storage (S, G bounded by the attribute's
  // verifier, the rows by the bytes above), as getStorageShape counts them.
  if (auto pad = llvm::dyn_cast_or_null<PaddedAttr>(layout);
      pad && pad.getGroupRows() > 0 && shape.size() == 2 &&
      staticDims.size() == 2)
    *bytes += skewRows(shape[0], staticDims.back(), pad.getGroupRows(),
                       pad.getGroupElements()) *
              staticDims.back() * elemBytes;
  if (space == MemorySpace::Shared && *bytes > kMaxSharedBytesPerBlock)
    return emitError() << "shared buffer " << formatShape(shape, elementType)
                       << " needs " << *bytes << " bytes, more than the "
                       << kMaxSharedBytesPerBlock
                       << " bytes of shared memory of a block";
  if (!layout)
    return success();
  int64_t elemBits = elementType.getIntOrFloatBitWidth();
  switch (space) {
  case MemorySpace::Global:
    return emitError() << "global buffers take no layout";
  case MemorySpace::Shared: {
    if (auto pad = llvm::dyn_cast<PaddedAttr>(layout)) {
      if (shape.size() < 2)
        return emitError() << "a padded shared buffer must have rank >= 2";
      if (elemBits % 8 != 0 || (pad.getElements() * elemBytes) % 16 != 0)
        return emitError() << "row padding must be a multiple of 16 bytes, "
                              "got "
                           << pad.getElements() << " x " << elementType;
      if (pad.getGroupRows() > 0 && shape.size() != 2)
        return emitError() << "a padded layout with a group skew needs a "
                              "rank-2 buffer, got rank "
                           << shape.size();
      if ((pad.getGroupElements() * elemBytes) % 16 != 0)
        return emitError() << "a group skew must be a multiple of 16 bytes, "
                              "got "
                           << pad.getGroupElements() << " x " << elementType;
      return success();
    }
    auto swz = llvm::dyn_cast<SwizzleAttr>(layout);
    if (!swz)
      return emitError() << "shared buffers take a #tile.swizzle or "
                            "#tile.padded layout, got "
                         << layout;
    if (shape.size() < 2)
      return emitError() << "a swizzled shared buffer must have rank >= 2";
    // Bounded by the buffer's bytes, checked above.
    int64_t rowBytes = shape.back() * elemBytes;
    if (elemBits % 8 != 0)
      return emitError() << "a swizzled shared buffer needs whole-byte "
                            "elements, got "
                         << elementType;
    if (rowBytes % swz.getBytes() != 0)
      return emitError() << "swizzled rows must be a multiple of "
                         << swz.getBytes() << " bytes, got " << rowBytes;
    return success();
  }
  case MemorySpace::Fragment: {
    if (auto mma = llvm::dyn_cast<MmaLayoutAttr>(layout)) {
      if (shape.size() != 2)
        return emitError() << "an mma fragment layout needs a 2-D buffer";
      ArrayRef<int64_t> warps = mma.getWarps();
      if (shape[0] % (16 * warps[0]) != 0 || shape[1] % (8 * warps[1]) != 0)
        return emitError() << "mma fragment " << shape[0] << "x" << shape[1]
                           << " is not a multiple of 16x8 atoms over a "
                           << warps[0] << "x" << warps[1] << " warp grid";
      if (mma.getEngine() == MmaEngine::Wgmma && shape[0] != 16 * warps[0])
        return emitError() << "a wgmma fragment has 16 rows per warp (one "
                              "m64 block per warpgroup): "
                           << shape[0] << "x" << shape[1] << " over a "
                           << warps[0] << "x" << warps[1] << " warp grid";
      return success();
    }
    if (auto blocked = llvm::dyn_cast<BlockedLayoutAttr>(layout)) {
      if (shape.back() % blocked.getVector() != 0)
        return emitError() << "blocked layout vector width "
                           << blocked.getVector()
                           << " does not divide the innermost dimension "
                           << shape.back();
      return success();
    }
    return emitError() << "fragments take a #tile.mma or #tile.blocked "
                          "layout, got "
                       << layout;
  }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// TensorMapType
//===----------------------------------------------------------------------===//

int64_t TensorMapType::getBoxBytes() const {
  int64_t n = (getElementType().getIntOrFloatBitWidth() + 7) / 8;
  for (int64_t d : getShape())
    n *= d;
  return n;
}

Type TensorMapType::parse(AsmParser &parser) {
  SmallVector<int64_t> shape;
  Type elementType;
  int64_t swizzle = 0;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false,
                                /*withTrailingX=*/true) ||
      parser.parseType(elementType) || parser.parseComma() ||
      parser.parseKeyword("swizzle") || parser.parseEqual() ||
      parser.parseInteger(swizzle) || parser.parseGreater())
    return {};
  return parser.getChecked<TensorMapType>(parser.getContext(), shape,
                                          elementType, swizzle);
}

void TensorMapType::print(AsmPrinter &printer) const {
  printer << "<";
  for (int64_t d : getShape())
    printer << d << "x";
  printer << getElementType() << ", swizzle = " << getSwizzle() << ">";
}

LogicalResult
TensorMapType::verify(function_ref<InFlightDiagnostic()> emitError,
                      ArrayRef<int64_t> shape, Type elementType,
                      int64_t swizzle) {
  // cuTensorMapEncodeTiled: rank 1..5, each box dimension 1..256.
  if (shape.empty() || shape.size() > 5)
    return emitError() << "a tensor map box has rank 1 to 5, got "
                       << shape.size();
  for (int64_t d : shape)
    if (d < 1 || d > 256)
      return emitError() << "tensor map box dimensions must be in [1, 256], "
                            "got "
                         << d;
  if (!elementType.isF16() && !elementType.isBF16() && !elementType.isF32() &&
      !elementType.isInteger(32) && !elementType.isInteger(64))
    return emitError() << "tensor map element type must be f16, bf16, f32, "
                          "i32 or i64, got "
                       << elementType;
  if (swizzle != 0 && swizzle != 32 && swizzle != 64 && swizzle != 128)
    return emitError() << "tensor map swizzle must be 0, 32, 64 or 128 "
                          "bytes, got "
                       << swizzle;
  int64_t rowBytes = shape.back() * elementType.getIntOrFloatBitWidth() / 8;
  if (rowBytes % 16 != 0)
    return emitError() << "a tensor map box row must be a multiple of 16 "
                          "bytes, got "
                       << rowBytes;
  if (swizzle != 0 && rowBytes > swizzle)
    return emitError() << "a box row of " << rowBytes
                       << " bytes does not fit the " << swizzle
                       << "-byte swizzle";
  return success();
}
