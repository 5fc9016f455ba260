//===- TileLimits.cpp - hardware limits and checked size arithmetic --------===//

#include "gdn/Dialect/Tile/IR/TileLimits.h"
#include "gdn/Dialect/Tile/IR/TileDialect.h"

#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CheckedArithmetic.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/raw_ostream.h"

namespace mlir::gdn::tile {

std::optional<int64_t> checkedMul(int64_t a, int64_t b) {
  return llvm::checkedMul(a, b);
}

std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  return llvm::checkedAdd(a, b);
}

std::optional<int64_t> checkedNumElements(ArrayRef<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d) || d <= 0)
      return std::nullopt;
    std::optional<int64_t> m = llvm::checkedMul(n, d);
    if (!m)
      return std::nullopt;
    n = *m;
  }
  return n;
}

std::optional<int64_t> checkedSizeInBytes(ArrayRef<int64_t> shape,
                                          int64_t elementBytes) {
  std::optional<int64_t> n = checkedNumElements(shape);
  if (!n)
    return std::nullopt;
  return llvm::checkedMul(*n, elementBytes);
}

std::optional<int64_t> getInt64(Attribute attr) {
  auto i = dyn_cast_or_null<IntegerAttr>(attr);
  if (!i || !(i.getType().isIntOrIndex()))
    return std::nullopt;
  const APInt &v = i.getValue();
  bool isUnsigned = i.getType().isUnsignedInteger();
  if (isUnsigned ? v.getActiveBits() > 63 : v.getSignificantBits() > 64)
    return std::nullopt;
  if (i.getType().isInteger(1))
    return v.getBoolValue() ? 1 : 0;
  return isUnsigned ? static_cast<int64_t>(v.getZExtValue()) : v.getSExtValue();
}

static bool isIdentifier(StringRef name, bool allowDollar) {
  if (name.empty())
    return false;
  auto isStart = [&](char c) {
    return llvm::isAlpha(c) || c == '_' || (allowDollar && c == '$');
  };
  if (!isStart(name.front()))
    return false;
  return llvm::all_of(name.drop_front(),
                      [&](char c) { return isStart(c) || llvm::isDigit(c); });
}

bool isPtxIdentifier(StringRef name) { return isIdentifier(name, true); }
bool isCIdentifier(StringRef name) { return isIdentifier(name, false); }

bool isL2PromotionBytes(int64_t bytes) {
  return bytes == 0 || bytes == 64 || bytes == 128 || bytes == 256;
}

std::optional<int64_t> getKernelThreads(Operation *op) {
  for (Operation *p = op; p; p = p->getParentOp()) {
    if (!isa<FunctionOpInterface>(p))
      continue;
    std::optional<int64_t> warps =
        getInt64(p->getAttr(TileDialect::getNumWarpsAttrName()));
    if (!warps || *warps <= 0 || *warps > kMaxWarpsPerBlock)
      return std::nullopt;
    return 32 * *warps;
  }
  return std::nullopt;
}

std::optional<int64_t> estimateFragmentRegisters(BufferType type,
                                                 int64_t numThreads) {
  if (numThreads <= 0)
    return std::nullopt;
  std::optional<int64_t> numElements = checkedNumElements(type.getShape());
  if (!numElements)
    return std::nullopt;
  // Elements one thread holds.
  int64_t perThread;
  if (auto mma = dyn_cast_or_null<MmaLayoutAttr>(type.getLayout())) {
    std::optional<int64_t> warps =
        checkedMul(mma.getWarps()[0], mma.getWarps()[1]);
    std::optional<int64_t> threads = warps ? checkedMul(*warps, 32) : warps;
    if (!threads)
      return std::nullopt;
    perThread = llvm::divideCeil(*numElements, *threads);
  } else if (auto blocked =
                 dyn_cast_or_null<BlockedLayoutAttr>(type.getLayout())) {
    int64_t vector = blocked.getVector();
    int64_t vectors = llvm::divideCeil(*numElements, vector);
    std::optional<int64_t> p =
        checkedMul(llvm::divideCeil(vectors, numThreads), vector);
    if (!p)
      return std::nullopt;
    perThread = *p;
  } else {
    perThread = llvm::divideCeil(*numElements, numThreads);
  }
  std::optional<int64_t> bytes = checkedMul(perThread, type.getElementBytes());
  if (!bytes)
    return std::nullopt;
  return llvm::divideCeil(*bytes, 4);
}

std::string formatShape(ArrayRef<int64_t> shape, Type elementType) {
  std::string s;
  llvm::raw_string_ostream os(s);
  for (int64_t d : shape) {
    if (ShapedType::isDynamic(d))
      os << "?";
    else
      os << d;
    os << "x";
  }
  os << elementType;
  return s;
}

} // namespace mlir::gdn::tile
