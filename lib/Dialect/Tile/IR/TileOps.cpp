//===- TileOps.cpp - tile dialect operations -------------------------------===//
//
// Verifiers and custom assembly of the tile ops.
//
//===----------------------------------------------------------------------===//

#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/IR/TileLimits.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::gdn::tile;

/// `x`, `y` or `z` of tile.program_id.
static ParseResult parseDim(OpAsmParser &parser, DimAttr &dim) {
  StringRef name;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&name))
    return failure();
  std::optional<Dim> d = symbolizeDim(name);
  if (!d)
    return parser.emitError(loc, "expected 'x', 'y' or 'z', got '")
           << name << "'";
  dim = DimAttr::get(parser.getContext(), *d);
  return success();
}

static void printDim(OpAsmPrinter &p, Operation *, DimAttr dim) {
  p << stringifyDim(dim.getValue());
}

/// `add`, `max` or `min` of tile.reduce.
static ParseResult parseReduceKind(OpAsmParser &parser, ReduceKindAttr &kind) {
  StringRef name;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&name))
    return failure();
  std::optional<ReduceKind> k = symbolizeReduceKind(name);
  if (!k)
    return parser.emitError(loc, "expected 'add', 'max' or 'min', got '")
           << name << "'";
  kind = ReduceKindAttr::get(parser.getContext(), *k);
  return success();
}

static void printReduceKind(OpAsmPrinter &p, Operation *, ReduceKindAttr kind) {
  p << stringifyReduceKind(kind.getValue());
}

#define GET_OP_CLASSES
#include "gdn/Dialect/Tile/IR/TileOps.cpp.inc"

namespace {
/// Prints a shape as 128x64.
std::string shapeStr(ArrayRef<int64_t> shape) {
  std::string s;
  llvm::raw_string_ostream os(s);
  llvm::interleave(
      shape, os,
      [&](int64_t d) {
        if (ShapedType::isDynamic(d))
          os << "?";
        else
          os << d;
      },
      "x");
  return s;
}
/// Prints a type without the quotes diagnostics add.
std::string typeStr(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << t;
  return s;
}
/// The value of a constant index operand, if it is one that fits in int64.
std::optional<int64_t> constantIndex(Value v) {
  APInt value;
  if (!matchPattern(v, m_ConstantInt(&value)) ||
      value.getSignificantBits() > 64)
    return std::nullopt;
  return value.getSExtValue();
}
/// Rejects constant indices outside `[0, shape[i])` (only `>= 0` for
/// dynamic dimensions); `what` names the indices in the message.
LogicalResult verifyConstantIndices(Operation *op, ValueRange indices,
                                    ArrayRef<int64_t> shape, StringRef what) {
  for (auto [i, v] : llvm::enumerate(indices)) {
    std::optional<int64_t> c = constantIndex(v);
    if (!c || i >= shape.size())
      continue;
    if (*c < 0)
      return op->emitOpError() << what << " #" << i << " is " << *c
                               << ", out of bounds (negative)";
    if (!ShapedType::isDynamic(shape[i]) && *c >= shape[i])
      return op->emitOpError() << what << " #" << i << " is " << *c
                               << ", out of bounds for dimension " << i
                               << " of size " << shape[i];
  }
  return success();
}
} // namespace

//===----------------------------------------------------------------------===//
// ViewOp
//===----------------------------------------------------------------------===//

LogicalResult ViewOp::verify() {
  auto type = cast<BufferType>(getResult().getType());
  if (!type.isGlobal())
    return emitOpError("result must be a global buffer");
  if (type.getElementType() != getPtr().getType().getElementType())
    return emitOpError("result element type ")
           << type.getElementType() << " does not match the pointer's "
           << getPtr().getType().getElementType();
  int64_t numDynamic = llvm::count_if(type.getShape(), ShapedType::isDynamic);
  if (static_cast<int64_t>(getSizes().size()) != numDynamic)
    return emitOpError("expected ")
           << numDynamic << " size operands (one per dynamic dimension), got "
           << getSizes().size();
  return success();
}

//===----------------------------------------------------------------------===//
// AllocOp
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  auto type = cast<BufferType>(getResult().getType());
  if (type.isGlobal())
    return emitOpError("cannot allocate global memory; use tile.view");
  if (getNoReuse() && !type.isShared())
    return emitOpError("only shared buffers take no_reuse");
  if (getOffset()) {
    if (!type.isShared())
      return emitOpError("only shared buffers have an offset");
    std::optional<int64_t> offset = getInt64(getOffsetAttr());
    if (!offset || *offset < 0)
      return emitOpError("offset must be non-negative");
    std::optional<int64_t> bytes =
        checkedSizeInBytes(type.getStorageShape(), type.getElementBytes());
    std::optional<int64_t> end = bytes ? checkedAdd(*offset, *bytes) : bytes;
    if (!end || *end > kMaxSharedBytesPerBlock)
      return emitOpError("offset ")
             << *offset << " places the buffer beyond the "
             << kMaxSharedBytesPerBlock << " bytes of shared memory of a block";
  }
  if (type.isFragment()) {
    std::optional<int64_t> threads = getKernelThreads(*this);
    if (auto task = (*this)->getParentOfType<ProducerTaskOp>())
      threads = 32 * task.getNumWarps();
    // A layout written by hand must spread the fragment over the warps
    // that run it (the kernel's, or a producer task's): another grid
    // computes (or stores) only part of the tile.
    if (auto mma = dyn_cast_or_null<MmaLayoutAttr>(type.getLayout());
        mma && threads) {
      int64_t warps = mma.getWarps()[0] * mma.getWarps()[1];
      if (32 * warps != *threads)
        return emitOpError("mma layout over a ")
               << mma.getWarps()[0] << "x" << mma.getWarps()[1]
               << " warp grid (" << warps << " warps) does not match the "
               << *threads / 32 << " warps of the kernel";
    }
    // Fragments live in registers: bound them before anything unrolls the
    // per-thread code. Outside a kernel, assume the largest block (the
    // smallest share per thread).
    int64_t numThreads = threads.value_or(kMaxThreadsPerBlock);
    std::optional<int64_t> regs = estimateFragmentRegisters(type, numThreads);
    if (!regs || *regs > kMaxRegistersPerThread) {
      InFlightDiagnostic diag =
          emitOpError("fragment ")
          << formatShape(type.getShape(), type.getElementType()) << " needs ";
      if (regs)
        diag << "an estimated " << *regs;
      else
        diag << "more than 2^63";
      diag << " registers per thread with " << numThreads
           << " threads, more than the " << kMaxRegistersPerThread
           << " a thread may use";
      return diag;
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// SliceOp
//===----------------------------------------------------------------------===//

LogicalResult SliceOp::verify() {
  auto src = cast<BufferType>(getSource().getType());
  auto res = cast<BufferType>(getResult().getType());
  if (!src.isShared())
    return emitOpError("source must be a shared buffer");
  if (src.getRank() < 2)
    return emitOpError("source must have rank >= 2");
  if (res.getShape() != src.getShape().drop_front() ||
      res.getElementType() != src.getElementType() ||
      res.getMemorySpace() != src.getMemorySpace() ||
      res.getLayout() != src.getLayout())
    return emitOpError("result type must be the source type without its "
                       "leading dimension, expected ")
           << shapeStr(src.getShape().drop_front()) << "x"
           << typeStr(src.getElementType());
  return verifyConstantIndices(*this, getIndex(), src.getShape(), "index");
}

//===----------------------------------------------------------------------===//
// CopyOp / AsyncCopyOp
//===----------------------------------------------------------------------===//

/// Checks the endpoints of a copy; `tileShape` receives the copied shape.
static LogicalResult verifyCopyEndpoints(Operation *op, BufferType src,
                                         size_t numSrcOffsets, BufferType dst,
                                         size_t numDstOffsets, bool masked,
                                         SmallVectorImpl<int64_t> &tileShape,
                                         bool transpose = false) {
  if (transpose) {
    if (!src.isFragment() && !dst.isFragment())
      return op->emitOpError("'transpose' needs a fragment endpoint");
    if (src.getRank() != 2 || dst.getRank() != 2)
      return op->emitOpError("'transpose' needs 2-D endpoints");
    // Compare in memory coordinates: the fragment's shape reversed.
    auto reversed = [](BufferType t) {
      SmallVector<int64_t> s(llvm::reverse(t.getShape()));
      return BufferType::get(s, t.getElementType(), t.getMemorySpace(),
                             nullptr);
    };
    if (src.isFragment())
      src = reversed(src);
    else
      dst = reversed(dst);
  }
  if (src.isGlobal() && dst.isGlobal())
    return op->emitOpError("cannot copy global to global memory");
  if (src.isShared() && dst.isShared())
    return op->emitOpError("cannot copy shared to shared memory");
  // A shared operand copied to or from a fragment may take offsets: the
  // fragment is then a sub-tile of it.
  bool withFragment = src.isFragment() || dst.isFragment();
  auto checkOffsets = [&](BufferType t, size_t n,
                          StringRef which) -> LogicalResult {
    if (t.isGlobal() && n != static_cast<size_t>(t.getRank()))
      return op->emitOpError("the global ")
             << which << " takes " << t.getRank() << " offsets, got " << n;
    if (t.isShared() && withFragment && n != 0 &&
        n != static_cast<size_t>(t.getRank()))
      return op->emitOpError("the shared ")
             << which << " takes 0 or " << t.getRank() << " offsets, got "
             << n;
    if (!t.isGlobal() && n != 0 && !(t.isShared() && withFragment))
      return op->emitOpError("only global operands (and shared operands of "
                             "a copy to or from a fragment) take offsets, "
                             "but the ")
             << which << " has " << n;
    return success();
  };
  if (failed(checkOffsets(src, numSrcOffsets, "source")) ||
      failed(checkOffsets(dst, numDstOffsets, "destination")))
    return failure();
  // The tile is the fragment, else the shared endpoint.
  bool srcIsTile = src.isFragment() || (!dst.isFragment() && !src.isGlobal());
  BufferType tile = srcIsTile ? src : dst;
  BufferType other = srcIsTile ? dst : src;
  size_t numOtherOffsets = srcIsTile ? numDstOffsets : numSrcOffsets;
  if (other.getRank() != tile.getRank())
    return op->emitOpError("rank mismatch: ")
           << tile.getRank() << "-D tile and " << other.getRank()
           << "-D buffer";
  if (other.isShared() && numOtherOffsets != 0) {
    // A sub-tile: constant offsets (checked here, not assumed), inside the
    // buffer, the innermost one on 16 bytes (vector accesses stay aligned).
    ValueRange offsets = op->getOperands().slice(
        srcIsTile ? 2 + numSrcOffsets : 1, numOtherOffsets);
    for (auto [i, v] : llvm::enumerate(offsets)) {
      std::optional<int64_t> c = constantIndex(v);
      if (!c)
        return op->emitOpError("offset #")
               << i << " of the shared buffer must be a constant";
      int64_t d = other.getShape()[i];
      if (*c < 0 || *c > d - tile.getShape()[i])
        return op->emitOpError("offset #")
               << i << " is " << *c << ": the " << tile.getShape()[i]
               << "-element tile does not fit in dimension " << i
               << " of size " << d << " of the shared buffer";
      if (i + 1 == offsets.size() && (*c * other.getElementBytes()) % 16)
        return op->emitOpError("the innermost offset into the shared "
                               "buffer (")
               << *c << " elements) is not a multiple of 16 bytes";
    }
  } else if (!other.isGlobal()) {
    if (other.getShape() != tile.getShape())
      return op->emitOpError("shape mismatch: ")
             << shapeStr(src.getShape()) << " vs " << shapeStr(dst.getShape());
  } else {
    for (auto [t, g] : llvm::zip(tile.getShape(), other.getShape()))
      if (!ShapedType::isDynamic(g) && t > g)
        return op->emitOpError("tile ")
               << shapeStr(tile.getShape())
               << " is larger than the global buffer "
               << shapeStr(other.getShape());
  }
  if (src.getElementType() != dst.getElementType()) {
    bool convertible = (src.isFragment() || dst.isFragment()) &&
                       isa<FloatType>(src.getElementType()) &&
                       isa<FloatType>(dst.getElementType());
    if (!convertible)
      return op->emitOpError("element types differ (")
             << src.getElementType() << " vs " << dst.getElementType()
             << "); only a copy to or from a fragment may convert floats";
  }
  if (masked && !src.isGlobal() && !dst.isGlobal())
    return op->emitOpError("'masked' needs a global operand");
  // Constant offsets of the global operand: never negative and, unmasked,
  // the tile must lie inside static dimensions.
  if (other.isGlobal()) {
    ValueRange offsets = op->getOperands().slice(
        src.isGlobal() ? 1 : 2 + numSrcOffsets,
        src.isGlobal() ? numSrcOffsets : numDstOffsets);
    for (auto [i, v] : llvm::enumerate(offsets)) {
      std::optional<int64_t> c = constantIndex(v);
      if (!c)
        continue;
      if (*c < 0)
        return op->emitOpError("offset #")
               << i << " is " << *c << ", out of bounds (negative)";
      int64_t g = other.getShape()[i];
      if (!masked && !ShapedType::isDynamic(g) && *c > g - tile.getShape()[i])
        return op->emitOpError("offset #")
               << i << " is " << *c << ": the " << tile.getShape()[i]
               << "-element tile does not fit in dimension " << i
               << " of size " << g << " (use 'masked')";
    }
  }
  tileShape.assign(tile.getShape().begin(), tile.getShape().end());
  return success();
}

LogicalResult CopyOp::verify() {
  SmallVector<int64_t> shape;
  auto src = cast<BufferType>(getSource().getType());
  auto dst = cast<BufferType>(getDest().getType());
  // diagonal: a square [N, N] fragment's diagonal into a whole [N] shared
  // buffer (the shapes differ by design: checked here, not below).
  if (getDiagonal()) {
    if (!src.isFragment() || !dst.isShared() || !getSourceOffsets().empty() ||
        !getDestOffsets().empty() || getTranspose() || getMasked() ||
        getBlockDiagonal() || getBlockLower() || getL2Hint())
      return emitOpError("diagonal stores a whole fragment to a whole shared "
                         "buffer (no offsets, transpose, masked, block "
                         "attribute or l2_hint)");
    if (src.getRank() != 2 || src.getShape()[0] != src.getShape()[1] ||
        dst.getRank() != 1 || dst.getShape()[0] != src.getShape()[0])
      return emitOpError("diagonal needs a square [N, N] fragment and an "
                         "[N] destination, not ")
             << src << " and " << dst;
    if (!isa<FloatType>(src.getElementType()) ||
        !isa<FloatType>(dst.getElementType()))
      return emitOpError("diagonal moves float elements");
    return success();
  }
  if (failed(verifyCopyEndpoints(*this, src, getSourceOffsets().size(), dst,
                                 getDestOffsets().size(), getMasked(), shape,
                                 getTranspose())))
    return failure();
  // An L2 eviction priority is about global memory's lines.
  if (getL2Hint() && !src.isGlobal() && !dst.isGlobal())
    return emitOpError("l2_hint needs a global source or destination (it is "
                       "the L2 eviction priority of the global accesses)");
  // block_diagonal / block_lower = K: a whole square 2-D tile that K divides.
  auto squareBlocks = [&](StringRef name, int64_t k) -> LogicalResult {
    BufferType tile = src.isGlobal() ? dst : src;
    if (tile.getRank() != 2 || tile.getShape()[0] != tile.getShape()[1] ||
        tile.getShape()[0] % k != 0)
      return emitOpError(name) << " = " << k
                               << " needs a square 2-D tile whose size it "
                                  "divides";
    return success();
  };
  if (std::optional<int64_t> k = getBlockDiagonal()) {
    if (!src.isFragment() || !dst.isShared() || !getDestOffsets().empty() ||
        getTranspose() || getMasked())
      return emitOpError("block_diagonal copies a whole fragment to a shared "
                         "buffer (no offsets, transpose or masked)");
    if (failed(squareBlocks("block_diagonal", *k)))
      return failure();
  }
  if (std::optional<int64_t> k = getBlockLower()) {
    if (getBlockDiagonal())
      return emitOpError("block_lower and block_diagonal exclude each other");
    bool store = src.isFragment() && dst.isShared();
    bool load = src.isShared() && dst.isFragment();
    // A fragment stored to a global view: its tile's blocks on and below
    // the diagonal (masked and at offsets as any store to global memory).
    bool globalStore = src.isFragment() && dst.isGlobal();
    // A global tile loaded into a shared buffer (whole: shared offsets
    // and transposes need a fragment endpoint, checked above); a TMA
    // ring's load skips the boxes above the diagonal blocks.
    bool globalLoad = src.isGlobal() && dst.isShared();
    if (globalStore) {
      if (getTranspose())
        return emitOpError("block_lower stores a fragment to global memory "
                           "untransposed");
    } else if (globalLoad) {
      // Nothing more to check.
    } else if ((!store && !load) || !getSourceOffsets().empty() ||
               !getDestOffsets().empty() || getMasked()) {
      // (Transposed, the blocks are the shared buffer's: the fragment's
      // blocks on and above its diagonal move.)
      return emitOpError("block_lower copies a whole fragment to or from a "
                         "shared buffer (no offsets or masked), stores one "
                         "to global memory or loads a global tile into a "
                         "whole shared buffer");
    }
    if (failed(squareBlocks("block_lower", *k)))
      return failure();
  }
  return success();
}

SmallVector<int64_t> CopyOp::getTileShape() {
  auto src = cast<BufferType>(getSource().getType());
  auto dst = cast<BufferType>(getDest().getType());
  ArrayRef<int64_t> shape = src.isGlobal() ? dst.getShape() : src.getShape();
  SmallVector<int64_t> result(shape);
  if (getTranspose())
    std::reverse(result.begin(), result.end());
  return result;
}

LogicalResult AsyncCopyOp::verify() {
  auto src = cast<BufferType>(getSource().getType());
  auto dst = cast<BufferType>(getDest().getType());
  if (!src.isGlobal() || !dst.isShared())
    return emitOpError("copies from global to shared memory only");
  if (src.getElementType() != dst.getElementType())
    return emitOpError("element types differ (")
           << src.getElementType() << " vs " << dst.getElementType() << ")";
  SmallVector<int64_t> shape;
  return verifyCopyEndpoints(*this, src, getSourceOffsets().size(), dst, 0,
                             getMasked(), shape);
}

//===----------------------------------------------------------------------===//
// FillOp
//===----------------------------------------------------------------------===//

LogicalResult FillOp::verify() {
  auto type = cast<BufferType>(getDest().getType());
  if (!type.isFragment())
    return emitOpError("destination must be a fragment");
  if (getValue().getType() != type.getElementType())
    return emitOpError("value type ")
           << getValue().getType() << " does not match the element type "
           << type.getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// ZeroTailOp
//===----------------------------------------------------------------------===//

LogicalResult ZeroTailOp::verify() {
  auto type = cast<BufferType>(getDest().getType());
  if (!type.isShared())
    return emitOpError("destination must be a shared buffer");
  if (!type.hasStaticShape())
    return emitOpError("destination must have a static shape");
  return success();
}

//===----------------------------------------------------------------------===//
// GemmOp
//===----------------------------------------------------------------------===//

LogicalResult GemmOp::verify() {
  auto a = cast<BufferType>(getA().getType());
  auto b = cast<BufferType>(getB().getType());
  auto c = cast<BufferType>(getC().getType());
  if (!b.isShared())
    return emitOpError("operand B must be a shared buffer");
  if (!a.isShared() && !a.isFragment())
    return emitOpError("operand A must be a shared buffer or a fragment "
                       "(register-A wgmma)");
  if (a.isFragment() && getTransposeA())
    return emitOpError("a fragment A (register operand) is not transposed");
  if (!c.isFragment())
    return emitOpError("accumulator C must be a fragment");
  if (a.getRank() != 2 || b.getRank() != 2 || c.getRank() != 2)
    return emitOpError("operands must be 2-D");
  Type et = a.getElementType();
  if (!(et.isF16() || et.isBF16()) || b.getElementType() != et)
    return emitOpError("A and B must both be f16 or both bf16, got ")
           << a.getElementType() << " and " << b.getElementType();
  if (!c.getElementType().isF32())
    return emitOpError("accumulator must be f32, got ") << c.getElementType();
  int64_t m = getTransposeA() ? a.getShape()[1] : a.getShape()[0];
  int64_t ka = getTransposeA() ? a.getShape()[0] : a.getShape()[1];
  int64_t kb = getTransposeB() ? b.getShape()[1] : b.getShape()[0];
  int64_t n = getTransposeB() ? b.getShape()[0] : b.getShape()[1];
  if (ka != kb)
    return emitOpError("contraction sizes differ: A has K = ")
           << ka << ", B has K = " << kb;
  if (c.getShape()[0] != m || c.getShape()[1] != n)
    return emitOpError("accumulator must be ")
           << m << "x" << n << ", got " << shapeStr(c.getShape());
  if (ka % 16 != 0)
    return emitOpError("K = ") << ka << " must be a multiple of 16";
  if (std::optional<int64_t> s = getBBlockLower()) {
    if (!getTransposeB() || n != kb)
      return emitOpError("b_block_lower needs transpose_b and a square B, "
                         "got B ")
             << shapeStr(b.getShape());
    if (*s % 16 != 0 || n % *s != 0)
      return emitOpError("b_block_lower = ")
             << *s << " must be a multiple of 16 dividing N = " << n;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// MapOp
//===----------------------------------------------------------------------===//

LogicalResult MapOp::verify() {
  if (getOutputs().empty())
    return emitOpError("needs at least one output");
  ArrayRef<int64_t> shape;
  for (Value v : getOperands()) {
    auto t = cast<BufferType>(v.getType());
    if (!t.isFragment())
      return emitOpError("operands must be fragments");
    if (shape.empty())
      shape = t.getShape();
    else if (t.getShape() != shape)
      return emitOpError("operand shapes differ: ")
             << shapeStr(shape) << " vs " << shapeStr(t.getShape());
  }
  return success();
}

LogicalResult MapOp::verifyRegions() {
  Block &block = getBody().front();
  size_t rank = cast<BufferType>(getOutputs()[0].getType()).getRank();
  size_t numIdx = getIndexed() ? rank : 0;
  if (block.getNumArguments() != numIdx + getInputs().size()) {
    if (getIndexed())
      return emitOpError("indexed body takes ")
             << block.getNumArguments() << " arguments, expected " << rank
             << " indices and one per input (" << getInputs().size() << ")";
    return emitOpError("body takes ")
           << block.getNumArguments() << " arguments, expected one per input ("
           << getInputs().size() << ")";
  }
  for (size_t i = 0; i < numIdx; ++i)
    if (!block.getArgument(i).getType().isIndex())
      return emitOpError("index argument #") << i << " must be 'index'";
  for (auto [arg, in] :
       llvm::zip(block.getArguments().drop_front(numIdx), getInputs()))
    if (arg.getType() != cast<BufferType>(in.getType()).getElementType())
      return emitOpError("body argument type ")
             << arg.getType() << " does not match the input element type "
             << cast<BufferType>(in.getType()).getElementType();
  auto yield = cast<YieldOp>(block.getTerminator());
  if (yield.getValues().size() != getOutputs().size())
    return emitOpError("body yields ")
           << yield.getValues().size() << " values, expected "
           << getOutputs().size();
  for (auto [v, out] : llvm::zip(yield.getValues(), getOutputs()))
    if (v.getType() != cast<BufferType>(out.getType()).getElementType())
      return emitOpError("yielded type ")
             << v.getType() << " does not match the output element type "
             << cast<BufferType>(out.getType()).getElementType();
  return success();
}

//===----------------------------------------------------------------------===//
// AnyOp
//===----------------------------------------------------------------------===//

LogicalResult AnyOp::verify() {
  if (!cast<BufferType>(getSource().getType()).isFragment())
    return emitOpError("source must be a fragment");
  // A tile.producer region is one thread's work: the other threads never
  // reach the vote's barrier and it would wait for them forever.
  if ((*this)->getParentOfType<ProducerOp>())
    return emitOpError("is a barrier inside a tile.producer region (one "
                       "thread's work): no other thread reaches it");
  return verifyNamedBarrier(*this, getId(), getThreads());
}

/// The body of a vote (tile.any, tile.warp_any): the element's indices and
/// the element in, one i1 out.
static LogicalResult verifyVoteBody(Operation *op, Region &body,
                                    BufferType type) {
  Block &block = body.front();
  size_t rank = type.getRank();
  if (block.getNumArguments() != rank + 1)
    return op->emitOpError("body takes ")
           << block.getNumArguments() << " arguments, expected " << rank
           << " indices and the element";
  for (size_t i = 0; i < rank; ++i)
    if (!block.getArgument(i).getType().isIndex())
      return op->emitOpError("index argument #") << i << " must be 'index'";
  if (block.getArgument(rank).getType() != type.getElementType())
    return op->emitOpError("body argument type ")
           << block.getArgument(rank).getType()
           << " does not match the source element type "
           << type.getElementType();
  auto yield = cast<YieldOp>(block.getTerminator());
  if (yield.getValues().size() != 1 ||
      !yield.getValues()[0].getType().isInteger(1))
    return op->emitOpError("body must yield one i1");
  return success();
}

LogicalResult AnyOp::verifyRegions() {
  return verifyVoteBody(*this, getBody(),
                        cast<BufferType>(getSource().getType()));
}

LogicalResult WarpAnyOp::verify() {
  if (!cast<BufferType>(getSource().getType()).isFragment())
    return emitOpError("source must be a fragment");
  // A tile.producer region is one thread's work: the other lanes of its
  // warp never reach the vote, which needs them all.
  if ((*this)->getParentOfType<ProducerOp>())
    return emitOpError("is a warp vote inside a tile.producer region (one "
                       "thread's work): the other lanes never reach it");
  return success();
}

LogicalResult WarpAnyOp::verifyRegions() {
  return verifyVoteBody(*this, getBody(),
                        cast<BufferType>(getSource().getType()));
}

//===----------------------------------------------------------------------===//
// ReduceOp
//===----------------------------------------------------------------------===//

std::optional<int64_t> ReduceOp::getInWarpLanes(BufferType source,
                                                int64_t dim) {
  auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(source.getLayout());
  if (!blocked || dim != 1 || source.getRank() != 2)
    return std::nullopt;
  int64_t len = source.getShape()[1], vector = blocked.getVector();
  if (vector <= 0 || len % vector != 0)
    return std::nullopt;
  int64_t lanes = len / vector;
  if (lanes > 32 || 32 % lanes != 0)
    return std::nullopt;
  return lanes;
}

bool ReduceOp::isScratchFree() {
  auto src = cast<BufferType>(getSource().getType());
  auto dst = cast<BufferType>(getDest().getType());
  if (dst.isShared())
    return true;
  return dst.getShape()[0] == 1 && getInWarpLanes(src, getDim());
}

LogicalResult ReduceOp::verify() {
  auto src = cast<BufferType>(getSource().getType());
  auto dst = cast<BufferType>(getDest().getType());
  if (!src.isFragment() || !(dst.isFragment() || dst.isShared()))
    return emitOpError("the source must be a fragment and the destination "
                       "a fragment or a shared buffer");
  if (src.getRank() != 2 || dst.getRank() != 1)
    return emitOpError("reduces a 2-D fragment into a 1-D buffer");
  int64_t kept = src.getShape()[1 - getDim()];
  if (dst.getShape()[0] != kept)
    return emitOpError("destination must have ")
           << kept << " elements, got " << dst.getShape()[0];
  if (!src.getElementType().isF32() || !dst.getElementType().isF32())
    return emitOpError("reductions are on f32 fragments");
  // What the in-warp lowering needs of the reduction that `what` (its
  // shared destination, or its scratch of the destination's shape) is for.
  auto verifyInWarpRows = [&](StringRef what) -> LogicalResult {
    if (getDim() != 1)
      return emitOpError(what) << " is for row reductions (dim = 1)";
    if (src.getLayout() && !getInWarpLanes(src, getDim()))
      return emitOpError(what)
             << " needs a row reduction whose rows are each held by an "
                "aligned lane group of one warp (a blocked layout with row "
                "length / vector dividing 32)";
    return success();
  };
  if (dst.isShared()) {
    // The in-warp lowering's leaders store the rows straight into it.
    if (dst.getLayout())
      return emitOpError("a shared destination must be row-major (no "
                         "layout)");
    if (getScratch())
      return emitOpError("a reduction into shared memory takes no scratch");
    return verifyInWarpRows("a shared destination");
  }
  if (Value scratch = getScratch()) {
    auto st = cast<BufferType>(scratch.getType());
    if (st.getRank() == 1) {
      // The in-warp lowering's: one element per row.
      if (!st.isShared() || st.getShape() != dst.getShape() ||
          !st.getElementType().isF32() || st.getLayout())
        return emitOpError("an in-warp reduction's scratch must be a "
                           "row-major f32 shared buffer of the "
                           "destination's shape ")
               << shapeStr(dst.getShape());
      return verifyInWarpRows("a scratch of the destination's shape");
    }
    // Row-major, its rows maybe padded (#tile.padded): the lowering
    // addresses it element by element.
    if (!st.isShared() || st.getShape() != src.getShape() ||
        !st.getElementType().isF32() ||
        (st.getLayout() && !isa<PaddedAttr>(st.getLayout())))
      return emitOpError("scratch must be an f32 shared buffer of the "
                         "source's shape ")
             << shapeStr(src.getShape()) << " (row-major or #tile.padded)";
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ScanOp
//===----------------------------------------------------------------------===//

std::optional<int64_t> ScanOp::chooseVector(int64_t n) {
  int64_t v = 1;
  while (32 * v < n)
    v *= 2;
  if (n <= 0 || n % v != 0)
    return std::nullopt;
  return v;
}

bool ScanOp::fitsOneWarp(Attribute layout, int64_t n) {
  auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(layout);
  return blocked && n % blocked.getVector() == 0 &&
         n <= 32 * blocked.getVector();
}

LogicalResult ScanOp::verify() {
  auto src = cast<BufferType>(getSource().getType());
  auto dst = cast<BufferType>(getDest().getType());
  if (!src.isFragment() || !dst.isFragment())
    return emitOpError("source and destination must be fragments");
  if (src.getRank() != 1 || dst.getShape() != src.getShape())
    return emitOpError("scans a 1-D fragment into one of the same shape, got ")
           << shapeStr(src.getShape()) << " -> " << shapeStr(dst.getShape());
  if (!src.getElementType().isF32() || !dst.getElementType().isF32())
    return emitOpError("scans are on f32 fragments");
  if (src.getLayout() != dst.getLayout())
    return emitOpError("source and destination must have one layout");
  if (Attribute layout = src.getLayout()) {
    int64_t n = src.getShape()[0];
    if (!fitsOneWarp(layout, n))
      return emitOpError("needs a #tile.blocked layout whose vectors fit one "
                         "warp (vector dividing ")
             << n << " and 32 x vector >= " << n << "), got " << layout;
  }
  return success();
}

//===----------------------------------------------------------------------===//
// ForOp
//===----------------------------------------------------------------------===//

void ForOp::build(OpBuilder &builder, OperationState &state, Value lb, Value ub,
                  Value step, int64_t numStages) {
  state.addOperands({lb, ub, step});
  state.addAttribute(getNumStagesAttrName(state.name),
                     builder.getI64IntegerAttr(numStages));
  Region *region = state.addRegion();
  Block *body = new Block();
  body->addArgument(builder.getIndexType(), state.location);
  region->push_back(body);
  ForOp::ensureTerminator(*region, builder, state.location);
}

LogicalResult ForOp::verify() {
  Block &body = getRegion().front();
  if (body.getNumArguments() != 1 || !body.getArgument(0).getType().isIndex())
    return emitOpError("body must take exactly one index argument");
  if (!cast<YieldOp>(body.getTerminator()).getValues().empty())
    return emitOpError("body must not yield values");
  // tile-pipeline allocates and prefetches one copy per stage.
  if (getNumStages() > kMaxPipelineStages)
    return emitOpError("num_stages ")
           << getNumStages() << " exceeds the limit of " << kMaxPipelineStages
           << " pipeline stages";
  if (std::optional<int64_t> step = constantIndex(getStep());
      step && *step <= 0)
    return emitOpError("step must be positive, got ") << *step;
  // tile-pipeline hands `loop_annotation` on to the scf.for and LLVM's
  // latch (by name: this library does not link the LLVM dialect).
  for (StringRef name : {TileDialect::getLoopAnnotationAttrName(),
                         TileDialect::getProducerLoopAnnotationAttrName()})
    if (Attribute a = (*this)->getAttr(name);
        a && a.getAbstractAttribute().getName() != "llvm.loop_annotation")
      return emitOpError() << name << " must be an #llvm.loop_annotation, "
                           << "got " << a;
  return success();
}

SmallVector<Region *> ForOp::getLoopRegions() { return {&getRegion()}; }

std::optional<SmallVector<Value>> ForOp::getLoopInductionVars() {
  return SmallVector<Value>{getInductionVar()};
}

std::optional<SmallVector<OpFoldResult>> ForOp::getLoopLowerBounds() {
  return SmallVector<OpFoldResult>{OpFoldResult(getLowerBound())};
}

std::optional<SmallVector<OpFoldResult>> ForOp::getLoopUpperBounds() {
  return SmallVector<OpFoldResult>{OpFoldResult(getUpperBound())};
}

std::optional<SmallVector<OpFoldResult>> ForOp::getLoopSteps() {
  return SmallVector<OpFoldResult>{OpFoldResult(getStep())};
}

// tile.for %iv = %lb to %ub step %s stages N { ... } attr-dict
ParseResult ForOp::parse(OpAsmParser &parser, OperationState &result) {
  OpAsmParser::Argument iv;
  OpAsmParser::UnresolvedOperand lb, ub, step;
  int64_t stages;
  Type indexType = parser.getBuilder().getIndexType();
  iv.type = indexType;
  if (parser.parseArgument(iv) || parser.parseEqual() ||
      parser.parseOperand(lb) || parser.parseKeyword("to") ||
      parser.parseOperand(ub) || parser.parseKeyword("step") ||
      parser.parseOperand(step) || parser.parseKeyword("stages") ||
      parser.parseInteger(stages))
    return failure();
  result.addAttribute("num_stages",
                      parser.getBuilder().getI64IntegerAttr(stages));
  // The region first, the operands after: an operand resolved before the
  // region is a forward-reference placeholder when its name is defined
  // later, and a definition inside the region would replace and free it
  // while this op still refers to it. Resolved after the region, such a
  // name is out of scope and reported as undefined.
  Region *body = result.addRegion();
  if (parser.parseRegion(*body, {iv}))
    return failure();
  ForOp::ensureTerminator(*body, parser.getBuilder(), result.location);
  if (parser.resolveOperand(lb, indexType, result.operands) ||
      parser.resolveOperand(ub, indexType, result.operands) ||
      parser.resolveOperand(step, indexType, result.operands))
    return failure();
  return parser.parseOptionalAttrDict(result.attributes);
}

void ForOp::print(OpAsmPrinter &p) {
  p << " " << getInductionVar() << " = " << getLowerBound() << " to "
    << getUpperBound() << " step " << getStep() << " stages "
    << getNumStages() << " ";
  p.printRegion(getRegion(), /*printEntryBlockArgs=*/false,
                /*printBlockTerminators=*/false);
  p.printOptionalAttrDict((*this)->getAttrs(), {"num_stages"});
}

//===----------------------------------------------------------------------===//
// TakeOp / NarrowOp
//===----------------------------------------------------------------------===//

LogicalResult TakeOp::verify() {
  auto src = cast<BufferType>(getSource().getType());
  auto res = cast<BufferType>(getResult().getType());
  if (!src.isGlobal() || !res.isGlobal())
    return emitOpError("takes from global buffers only");
  ArrayRef<int64_t> dims = getDims();
  if (dims.size() != getIndices().size())
    return emitOpError("expected one index per taken dimension (")
           << dims.size() << "), got " << getIndices().size();
  SmallVector<int64_t> kept;
  int64_t prev = -1;
  for (int64_t d : dims) {
    if (d <= prev || d >= src.getRank())
      return emitOpError("dims must be ascending and in [0, ")
             << src.getRank() << ")";
    prev = d;
  }
  for (int64_t d = 0; d < src.getRank(); ++d)
    if (!llvm::is_contained(dims, d))
      kept.push_back(src.getShape()[d]);
  if (kept.empty())
    return emitOpError("must keep at least one dimension");
  if (res.getShape() != ArrayRef<int64_t>(kept) ||
      res.getElementType() != src.getElementType())
    return emitOpError("result must be ")
           << shapeStr(kept) << "x" << typeStr(src.getElementType())
           << ", the source without the taken dimensions";
  return success();
}

LogicalResult NarrowOp::verify() {
  auto src = cast<BufferType>(getSource().getType());
  auto res = cast<BufferType>(getResult().getType());
  if (!src.isGlobal() || !res.isGlobal())
    return emitOpError("narrows global buffers only");
  int64_t dim = getDim();
  if (dim < 0 || dim >= src.getRank())
    return emitOpError("dim ") << dim << " is out of range for rank "
                               << src.getRank();
  SmallVector<int64_t> shape(src.getShape());
  shape[dim] = ShapedType::kDynamic;
  if (res.getShape() != ArrayRef<int64_t>(shape) ||
      res.getElementType() != src.getElementType())
    return emitOpError("result must be ")
           << shapeStr(shape) << "x" << typeStr(src.getElementType());
  return success();
}

//===----------------------------------------------------------------------===//
// LoadOp
//===----------------------------------------------------------------------===//

LogicalResult LoadOp::verify() {
  auto src = cast<BufferType>(getSource().getType());
  if (src.isFragment())
    return emitOpError("reads shared or global buffers only");
  if (static_cast<int64_t>(getIndices().size()) != src.getRank())
    return emitOpError("expected ") << src.getRank() << " indices, got "
                                    << getIndices().size();
  // The result type is checked by TypesMatchWith.
  return verifyConstantIndices(*this, getIndices(), src.getShape(), "index");
}

//===----------------------------------------------------------------------===//
// AsyncWaitOp
//===----------------------------------------------------------------------===//

LogicalResult AsyncWaitOp::verify() {
  // At most one cp.async group per pipeline stage can be in flight.
  if (getPending() > kMaxPendingGroups)
    return emitOpError("pending = ")
           << getPending() << " exceeds the limit of " << kMaxPendingGroups
           << " copy groups in flight";
  return success();
}

//===----------------------------------------------------------------------===//
// TrilInverseOp
//===----------------------------------------------------------------------===//

/// Two buffers (threads read L while others write T), or, packed, one
/// (T^T goes above the diagonal, where L has nothing).
static LogicalResult verifyTrilDistinct(Operation *op, Value source,
                                        Value dest, bool packed) {
  if (packed && source != dest)
    return op->emitOpError("a packed inverse has one buffer: source and dest "
                           "must be the same value");
  if (!packed && source == dest)
    return op->emitOpError("source and dest must be different buffers (the "
                           "inverse is computed in place only when packed)");
  return success();
}

LogicalResult TrilInverseOp::verify() {
  for (Value v : {getSource(), getDest()}) {
    auto t = cast<BufferType>(v.getType());
    if (!t.isShared() || t.getRank() != 2 ||
        t.getShape()[0] != t.getShape()[1] || !t.getElementType().isF32() ||
        (t.getLayout() && !isa<SwizzleAttr, PaddedAttr>(t.getLayout())))
      return emitOpError("operands must be square f32 shared buffers "
                         "(row-major, #tile.swizzle or #tile.padded)");
  }
  // Each operand is addressed with its own layout (the layouts may differ:
  // tile-assign-layouts pads the destination's rows differently).
  if (cast<BufferType>(getSource().getType()).getShape() !=
      cast<BufferType>(getDest().getType()).getShape())
    return emitOpError("operands must have the same shape");
  if (getPacked() && getLowerOnly())
    return emitOpError("lower_only applies to a separate destination, not "
                       "to a packed inverse");
  return verifyTrilDistinct(*this, getSource(), getDest(), getPacked());
}

//===----------------------------------------------------------------------===//
// The phases of the blocked tril_inverse
//===----------------------------------------------------------------------===//

/// Checks the square operands of a phase; `nb` receives the number of 16x16
/// blocks per row.
static LogicalResult verifyTrilSquares(Operation *op, ArrayRef<Value> squares,
                                       int64_t &nb) {
  for (Value v : squares) {
    auto t = cast<BufferType>(v.getType());
    if (!t.isShared() || t.getRank() != 2 ||
        t.getShape()[0] != t.getShape()[1] || !t.getElementType().isF32() ||
        (t.getLayout() && !isa<SwizzleAttr, PaddedAttr>(t.getLayout())))
      return op->emitOpError("operands must be square f32 shared buffers "
                             "(row-major, #tile.swizzle or #tile.padded)");
    // Each operand is addressed with its own layout.
    if (t.getShape() != cast<BufferType>(squares[0].getType()).getShape())
      return op->emitOpError("operands must have the same shape");
  }
  int64_t n = cast<BufferType>(squares[0].getType()).getShape()[0];
  if (n % 16 != 0)
    return op->emitOpError("size ") << n << " is not a multiple of 16";
  nb = n / 16;
  return success();
}

/// Checks the level of a level phase.
static LogicalResult verifyTrilLevel(Operation *op, int64_t level,
                                     int64_t nb) {
  if (level >= nb)
    return op->emitOpError("level ")
           << level << " must be below the number of 16x16 blocks per row ("
           << nb << ")";
  return success();
}

LogicalResult TrilInverseDiagOp::verify() {
  int64_t nb;
  if (failed(verifyTrilSquares(*this, {getSource(), getDest()}, nb)))
    return failure();
  if (getPacked() && getLowerOnly())
    return emitOpError("lower_only applies to a separate destination, not "
                       "to a packed inverse");
  if (getMergePairs()) {
    if (getPacked())
      return emitOpError("merge_pairs needs a separate destination, not a "
                         "packed inverse");
    if (nb % 2 != 0)
      return emitOpError("merge_pairs needs an even number of 16x16 "
                         "diagonal blocks, got ")
             << nb;
    // One thread per column: warp w holds blocks 2 w and 2 w + 1.
    std::optional<int64_t> warps = getWarpsAt(*this);
    if (warps && *warps > 0 && 16 * nb > 32 * *warps)
      return emitOpError("merge_pairs needs a thread per column: ")
             << 16 * nb << " columns, " << 32 * *warps << " threads";
  }
  if (getFma() && !getMergePairs())
    return emitOpError("fma applies to the size-16 merge of merge_pairs");
  if (getStageLo()) {
    // The low parts go where lower_only leaves dest unspecified (its block
    // above the diagonal), written by the threads the columns leave idle.
    if (!getMergePairs() || !getLowerOnly())
      return emitOpError("stage_lo needs merge_pairs and lower_only");
    if (nb < 4)
      return emitOpError("stage_lo needs a merge after the diagonal phase "
                         "(n / 16 >= 4), got ")
             << nb << " blocks";
    std::optional<int64_t> warps = getWarpsAt(*this);
    if (warps && *warps > 0 && 32 * *warps <= 16 * nb)
      return emitOpError("stage_lo needs threads beyond the ")
             << 16 * nb << " columns, got " << 32 * *warps;
  }
  return verifyTrilDistinct(*this, getSource(), getDest(), getPacked());
}

LogicalResult TrilInverseLevelOp::verify() {
  int64_t nb;
  auto src = cast<BufferType>(getSource().getType());
  if (src.getMemorySpace() == MemorySpace::Fragment) {
    // L in registers: the Gram's accumulator, warp w holding row block w.
    if (getPacked())
      return emitOpError("a packed inverse has one shared buffer: source "
                         "cannot be a fragment");
    if (failed(verifyTrilSquares(*this, {getDest()}, nb)))
      return failure();
    if (src.getShape() != cast<BufferType>(getDest().getType()).getShape() ||
        !src.getElementType().isF32())
      return emitOpError("a fragment source must be f32 with dest's shape");
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(src.getLayout());
    if (src.getLayout() &&
        (!mma || mma.getWarps() != ArrayRef<int64_t>{nb, 1}))
      return emitOpError("a fragment source needs the layout "
                         "#tile.mma<warps = [")
             << nb << ", 1]> (warp w holds rows 16 w .. 16 w + 15), got "
             << src.getLayout();
    return verifyTrilLevel(*this, getLevel(), nb);
  }
  if (failed(verifyTrilSquares(*this, {getSource(), getDest()}, nb)))
    return failure();
  if (failed(verifyTrilLevel(*this, getLevel(), nb)))
    return failure();
  return verifyTrilDistinct(*this, getSource(), getDest(), getPacked());
}

LogicalResult TrilInverseMergeOp::verify() {
  int64_t nb;
  if (failed(verifyTrilSquares(*this, {getSource(), getDest()}, nb)))
    return failure();
  int64_t n = 16 * nb, size = getSize();
  if (size % 16 != 0 || n % (2 * size) != 0)
    return emitOpError("size ")
           << size << " must be a multiple of 16 with twice it dividing "
           << n;
  // by_rows stages Y_0J in one block of T12 per column block J: enough for
  // two row blocks (size 32), not for more (their copies would share it).
  if (getByRows() && size > 32)
    return emitOpError("by_rows needs size 16 or 32, got ") << size;
  // fma: a lane's two rows a, a + size / 2 each lie in one 16-row block
  // (T2's rows end at a static column), four columns of a strip of
  // 256 / size inside one 16-column block of T1.
  if (getFma() && (size > 32 || getByRows() || getStagedLo()))
    return emitOpError("fma needs size 16 or 32 without by_rows or "
                       "staged_lo, got size ")
           << size;
  if (getStagedLo()) {
    if (getByRows() || 2 * size != n || nb < 4)
      return emitOpError("staged_lo needs the final merge (size ")
             << n / 2 << ", n / 16 >= 4) without by_rows";
    // The low parts must have been staged: by the diagonal phase of the
    // same inverse, earlier in the block with only its merges and
    // barriers in between.
    Operation *prev = getOperation()->getPrevNode();
    while (prev && (isa<TrilInverseMergeOp, BarrierOp>(prev)))
      prev = prev->getPrevNode();
    auto diag = dyn_cast_or_null<TrilInverseDiagOp>(prev);
    if (!diag || !diag.getStageLo() || diag.getSource() != getSource() ||
        diag.getDest() != getDest())
      return emitOpError("staged_lo needs a tile.tril_inverse_diag "
                         "{stage_lo} of the same buffers before it (only "
                         "merges and barriers between them)");
  }
  return verifyTrilDistinct(*this, getSource(), getDest(), /*packed=*/false);
}

//===----------------------------------------------------------------------===//
// PrefetchOp
//===----------------------------------------------------------------------===//
int64_t PrefetchOp::getNumRows() {
  int64_t rows = 1;
  for (int64_t d : getShape().drop_back())
    rows = std::min<int64_t>(rows * d, int64_t(1) << 21); // no overflow
  return rows;
}

int64_t PrefetchOp::getUnitsPerRow() {
  int64_t n = getShape().back();
  if (!hasContiguousInnermost(getSource()))
    return n;
  return (n * cast<BufferType>(getSource().getType()).getElementBytes() + 127) /
             128 + 1;
}

LogicalResult PrefetchOp::verify() {
  auto type = cast<BufferType>(getSource().getType());
  if (!type.isGlobal())
    return emitOpError("source must be a global buffer, got ") << type;
  ArrayRef<int64_t> shape = getShape();
  if (static_cast<int64_t>(getOffsets().size()) != type.getRank())
    return emitOpError("expected ")
           << type.getRank() << " offsets (one per dimension), got "
           << getOffsets().size();
  if (static_cast<int64_t>(shape.size()) != type.getRank())
    return emitOpError("shape has ")
           << shape.size() << " dimensions, the buffer " << type.getRank();
  for (int64_t d : shape)
    if (d <= 0 || d > (int64_t(1) << 20))
      return emitOpError("shape dimensions must be in [1, 2^20]");
  // Rows (dimension 0) past the buffer are skipped; the other dimensions
  // must lie inside it, checked here where sizes and offsets are constant.
  for (auto [d, off] : llvm::enumerate(getOffsets())) {
    int64_t size = type.getShape()[d];
    if (d > 0 && !ShapedType::isDynamic(size) && shape[d] > size)
      return emitOpError("shape ")
             << shape[d] << " exceeds the buffer's size " << size
             << " along dimension " << d;
    APInt c;
    if (!matchPattern(off, m_ConstantInt(&c)))
      continue;
    if (c.isNegative())
      return emitOpError("offset ") << c.getSExtValue() << " along dimension "
                                    << d << " is negative";
    if (d > 0 && !ShapedType::isDynamic(size) &&
        c.getSExtValue() > size - shape[d])
      return emitOpError("tile [")
             << c.getSExtValue() << ", " << c.getSExtValue() + shape[d]
             << ") exceeds the buffer's size " << size << " along dimension "
             << d;
  }
  // The block's threads share the units in unrolled steps: bound them.
  int64_t rows = getNumRows();
  if (rows > (int64_t(1) << 20) || rows * getUnitsPerRow() > (int64_t(1) << 14))
    return emitOpError("prefetches at most 16384 units (128-byte lines of "
                       "the rows' runs, or elements of a strided view)");
  // One thread cannot stand for the block.
  return verifyBlockCollective(*this, "the block's threads share its lines");
}

LogicalResult mlir::gdn::tile::verifyBlockCollective(Operation *op,
                                                     StringRef why) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp()) {
    if (isa<ProducerTaskOp>(p))
      break;
    if (isa<ProducerOp>(p))
      return op->emitOpError("cannot be in a tile.producer region: ") << why;
    if (auto ws = dyn_cast<WarpSpecializeOp>(p);
        ws && ws.getProducer().isAncestor(op->getParentRegion()))
      return op->emitOpError("cannot be in the producer region of "
                             "tile.warp_specialize outside a "
                             "tile.producer_task");
  }
  return success();
}

bool mlir::gdn::tile::hasContiguousInnermost(Value v) {
  while (Operation *def = v.getDefiningOp()) {
    if (auto take = dyn_cast<TakeOp>(def)) {
      auto src = cast<BufferType>(take.getSource().getType());
      if (llvm::is_contained(take.getDims(), src.getRank() - 1))
        return false;
      v = take.getSource();
    } else if (auto narrow = dyn_cast<NarrowOp>(def)) {
      v = narrow.getSource();
    } else {
      return isa<ViewOp>(def);
    }
  }
  return false;
}
