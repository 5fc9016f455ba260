//===- TileFlagOps.cpp - ready flags between thread blocks -----------------===//
//
// Verifiers of the ops in TileFlagOps.td.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileOps.h"

#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::gdn::tile;

/// A 1-D global buffer of i32 flags; a constant index must address one of
/// them where the buffer's size is known.
static LogicalResult verifyFlags(Operation *op, Value flags, Value index) {
  auto type = cast<BufferType>(flags.getType());
  if (!type.isGlobal() || type.getRank() != 1 ||
      !type.getElementType().isInteger(32))
    return op->emitOpError("flags must be a 1-D global buffer of i32, got ")
           << type;
  APInt c;
  if (!matchPattern(index, m_ConstantInt(&c)))
    return success();
  int64_t size = type.getShape()[0];
  if (c.isNegative() || (!ShapedType::isDynamic(size) && c.getSExtValue() >= size))
    return op->emitOpError("flag index ")
           << c.getSExtValue() << " is out of bounds for "
           << (ShapedType::isDynamic(size) ? std::string("a buffer")
                                           : std::to_string(size) + " flags");
  return success();
}

LogicalResult FlagReleaseOp::verify() {
  // The release starts with a barrier over the threads that reach it.
  if (failed(verifyBlockCollective(*this, "one thread runs it, and the "
                                          "release waits for all threads of "
                                          "the block")))
    return failure();
  return verifyFlags(*this, getFlags(), getIndex());
}

LogicalResult FlagWaitOp::verify() {
  return verifyFlags(*this, getFlags(), getIndex());
}
