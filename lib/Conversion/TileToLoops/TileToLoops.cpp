//===- TileToLoops.cpp - tile kernels as sequential loops for the CPU ------===//
//
// convert-tile-to-loops: every tile op of a kernel as written becomes the
// loops over memrefs that compute what the op's specification says, one
// element at a time, so that upstream's CPU lowering can run a kernel block
// by block and a test can compare its outputs with a reference (the
// semantics only: no thread mapping, layout or asynchrony exists here). See
// Passes.td for the contract.
//
//===----------------------------------------------------------------------===//

#include "gdn/Conversion/Passes.h"
#include "gdn/Dialect/Tile/IR/TileOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Func/Transforms/FuncConversions.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/SCF/Transforms/Patterns.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/Transforms/DialectConversion.h"

#include <limits>

namespace mlir::gdn {
#define GEN_PASS_DEF_CONVERTTILETOLOOPS
#include "gdn/Conversion/Passes.h.inc"

namespace {
using namespace mlir::gdn::tile;

constexpr StringLiteral kGridGlobal = "__tile_grid";
constexpr StringLiteral kSetGrid = "__tile_set_grid";

//===----------------------------------------------------------------------===//
// Helpers
//===----------------------------------------------------------------------===//

/// The memref every buffer type becomes: its shape and element type, with
/// a fully dynamic strided layout (views, takes, narrows and slices are
/// subviews of one another).
MemRefType bufferMemRef(BufferType type) {
  SmallVector<int64_t> strides(type.getRank(), ShapedType::kDynamic);
  auto layout = StridedLayoutAttr::get(type.getContext(), ShapedType::kDynamic,
                                       strides);
  return MemRefType::get(type.getShape(), type.getElementType(), layout);
}

Value cIdx(OpBuilder &b, Location loc, int64_t v) {
  return b.create<arith::ConstantIndexOp>(loc, v);
}

Value cBool(OpBuilder &b, Location loc, bool v) {
  return b.create<arith::ConstantIntOp>(loc, v, 1);
}

/// Size `d` of memref `m`: a constant where the type knows it.
Value dimOf(OpBuilder &b, Location loc, Value m, int64_t d) {
  auto type = cast<MemRefType>(m.getType());
  if (!ShapedType::isDynamic(type.getShape()[d]))
    return cIdx(b, loc, type.getShape()[d]);
  return b.create<memref::DimOp>(loc, m, d);
}

Value andI1(OpBuilder &b, Location loc, Value x, Value y) {
  if (!x)
    return y;
  return b.create<arith::AndIOp>(loc, x, y);
}

/// True (i1) when every index of `idx` is inside `m` (unsigned compare: a
/// negative index is outside too).
Value inBounds(OpBuilder &b, Location loc, Value m, ValueRange idx) {
  Value ok;
  for (auto [d, i] : llvm::enumerate(idx)) {
    Value lt = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult, i,
                                       dimOf(b, loc, m, d));
    ok = andI1(b, loc, ok, lt);
  }
  return ok ? ok : cBool(b, loc, true);
}

/// The zero of a scalar type.
Value zeroOf(OpBuilder &b, Location loc, Type t) {
  if (auto f = dyn_cast<FloatType>(t))
    return b.create<arith::ConstantOp>(loc, FloatAttr::get(f, 0.0));
  return b.create<arith::ConstantOp>(loc, IntegerAttr::get(t, 0));
}

/// `v` converted to `to` (float widening or rounding to nearest even, as the
/// GPU's cvt.rn; integers of one width only).
FailureOr<Value> convertScalar(OpBuilder &b, Location loc, Value v, Type to) {
  Type from = v.getType();
  if (from == to)
    return v;
  auto ff = dyn_cast<FloatType>(from), ft = dyn_cast<FloatType>(to);
  if (!ff || !ft)
    return failure();
  if (ff.getWidth() < ft.getWidth())
    return b.create<arith::ExtFOp>(loc, to, v).getResult();
  if (ff.getWidth() > ft.getWidth())
    return b.create<arith::TruncFOp>(loc, to, v).getResult();
  // f16 <-> bf16: through f32.
  Value w = b.create<arith::ExtFOp>(loc, b.getF32Type(), v);
  return b.create<arith::TruncFOp>(loc, to, w).getResult();
}

/// Loops over `shape` (constant extents, unit steps); `body`, if given, gets
/// the induction variables with the insertion point inside the innermost
/// loop.
scf::LoopNest
loopNest(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
         function_ref<void(OpBuilder &, Location, ValueRange)> body = nullptr) {
  SmallVector<Value> lbs, ubs, steps;
  for (int64_t n : shape) {
    lbs.push_back(cIdx(b, loc, 0));
    ubs.push_back(cIdx(b, loc, n));
    steps.push_back(cIdx(b, loc, 1));
  }
  return scf::buildLoopNest(b, loc, lbs, ubs, steps, body);
}

void forEach(OpBuilder &b, Location loc, ArrayRef<int64_t> shape,
             function_ref<void(OpBuilder &, Location, ValueRange)> body) {
  loopNest(b, loc, shape, body);
}

void assertTrue(OpBuilder &b, Location loc, Value cond, const Twine &msg) {
  b.create<cf::AssertOp>(loc, cond, msg.str());
}

/// A short description of an op's location for abort messages.
std::string where(Operation *op) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << op->getName() << " at " << op->getLoc();
  return s;
}

/// Offsets `offs` (or zeros when empty) plus the coordinates `t`.
SmallVector<Value> addOffsets(OpBuilder &b, Location loc, ValueRange offs,
                              ValueRange t) {
  SmallVector<Value> r;
  for (auto [d, x] : llvm::enumerate(t))
    r.push_back(offs.empty() ? x : b.create<arith::AddIOp>(loc, offs[d], x));
  return r;
}

/// Runs `then` under `cond` (no-op when cond is null).
void ifThen(OpBuilder &b, Location loc, Value cond,
            function_ref<void(OpBuilder &, Location)> then) {
  if (!cond)
    return then(b, loc);
  b.create<scf::IfOp>(loc, cond, [&](OpBuilder &nb, Location nl) {
    then(nb, nl);
    nb.create<scf::YieldOp>(nl);
  });
}

//===----------------------------------------------------------------------===//
// Views and allocation
//===----------------------------------------------------------------------===//

struct ViewLowering : OpConversionPattern<ViewOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<BufferType>(op.getType());
    MemRefType mt = bufferMemRef(type);
    int64_t r = type.getRank();
    SmallVector<Value> sizes;
    unsigned dyn = 0;
    for (int64_t d = 0; d < r; ++d)
      sizes.push_back(ShapedType::isDynamic(type.getShape()[d]) ? adaptor.getSizes()[dyn++]
                                           : cIdx(rewriter, loc,
                                                  type.getShape()[d]));
    SmallVector<Value> strides(r);
    strides[r - 1] = cIdx(rewriter, loc, 1);
    for (int64_t d = r - 2; d >= 0; --d)
      strides[d] =
          rewriter.create<arith::MulIOp>(loc, strides[d + 1], sizes[d + 1]);
    // No check of the view's size against the tensor's here: a kernel may
    // view a tensor it never reads (h0 without has_h0 is a 16-byte dummy);
    // accesses are checked against the view's bounds.
    SmallVector<OpFoldResult> szs, sts;
    for (int64_t d = 0; d < r; ++d) {
      szs.push_back(ShapedType::isDynamic(type.getShape()[d])
                        ? OpFoldResult(sizes[d])
                        : OpFoldResult(rewriter.getIndexAttr(type.getShape()[d])));
      sts.push_back(strides[d]);
    }
    rewriter.replaceOpWithNewOp<memref::ReinterpretCastOp>(
        op, mt, adaptor.getPtr(), OpFoldResult(cIdx(rewriter, loc, 0)), szs,
        sts);
    return success();
  }
};

OpFoldResult sizeOf(OpBuilder &b, Location loc, Value m, int64_t d) {
  auto type = cast<MemRefType>(m.getType());
  if (!type.isDynamicDim(d))
    return b.getIndexAttr(type.getDimSize(d));
  return b.create<memref::DimOp>(loc, m, d).getResult();
}

/// The subview of `src` with dimension d restricted to [start, start +
/// size) for each (d, {start, size}) of `ranges` and whole elsewhere, unit
/// strides; `resultType` drops the dimensions of static size 1 it drops.
Value restrict(ConversionPatternRewriter &b, Location loc, Value src,
               MemRefType resultType,
               const llvm::SmallDenseMap<int64_t, std::pair<Value, OpFoldResult>>
                   &ranges) {
  int64_t r = cast<MemRefType>(src.getType()).getRank();
  SmallVector<OpFoldResult> offsets, sizes;
  for (int64_t d = 0; d < r; ++d) {
    auto it = ranges.find(d);
    offsets.push_back(it != ranges.end() ? OpFoldResult(it->second.first)
                                         : OpFoldResult(b.getIndexAttr(0)));
    sizes.push_back(it != ranges.end() ? it->second.second
                                       : sizeOf(b, loc, src, d));
  }
  SmallVector<OpFoldResult> strides(r, b.getIndexAttr(1));
  return b.create<memref::SubViewOp>(loc, resultType, src, offsets, sizes,
                                     strides);
}

struct TakeLowering : OpConversionPattern<TakeOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TakeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = adaptor.getSource();
    llvm::SmallDenseMap<int64_t, std::pair<Value, OpFoldResult>> ranges;
    // The indices must lie inside the buffer (a take past its end would be
    // a view of someone else's memory).
    Value ok;
    for (auto [d, i] : llvm::zip(op.getDims(), adaptor.getIndices())) {
      ranges[d] = {i, rewriter.getIndexAttr(1)};
      ok = andI1(rewriter, loc, ok,
                 rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult,
                                                i, dimOf(rewriter, loc, src, d)));
    }
    if (ok)
      assertTrue(rewriter, loc, ok, where(op) + ": index out of bounds");
    rewriter.replaceOp(
        op, restrict(rewriter, loc, src,
                     bufferMemRef(cast<BufferType>(op.getType())), ranges));
    return success();
  }
};

struct NarrowLowering : OpConversionPattern<NarrowOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NarrowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = adaptor.getSource();
    int64_t dim = op.getDim();
    // [start, start + size) inside the buffer.
    Value end = rewriter.create<arith::AddIOp>(loc, adaptor.getStart(),
                                               adaptor.getSize());
    Value ok = rewriter.create<arith::AndIOp>(
        loc,
        rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ule,
                                       adaptor.getStart(), end),
        rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ule, end,
                                       dimOf(rewriter, loc, src, dim)));
    assertTrue(rewriter, loc, ok, where(op) + ": range out of bounds");
    rewriter.replaceOp(
        op, restrict(rewriter, loc, src,
                     bufferMemRef(cast<BufferType>(op.getType())),
                     {{dim, {adaptor.getStart(), adaptor.getSize()}}}));
    return success();
  }
};

struct SliceLowering : OpConversionPattern<SliceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value src = adaptor.getSource();
    assertTrue(rewriter, loc,
               rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ult,
                                              adaptor.getIndex(),
                                              dimOf(rewriter, loc, src, 0)),
               where(op) + ": index out of bounds");
    rewriter.replaceOp(
        op, restrict(rewriter, loc, src,
                     bufferMemRef(cast<BufferType>(op.getType())),
                     {{0, {adaptor.getIndex(), rewriter.getIndexAttr(1)}}}));
    return success();
  }
};

/// A stack buffer, filled with NaN (floats) or 0xAA bytes (integers) so that
/// reading an element nobody wrote shows. The pass moved every tile.alloc to
/// the start of its function first (they have no operands).
struct AllocLowering : OpConversionPattern<AllocOp> {
  AllocLowering(TypeConverter &tc, MLIRContext *ctx, bool poison)
      : OpConversionPattern(tc, ctx), poison(poison) {}
  bool poison;
  LogicalResult
  matchAndRewrite(AllocOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<BufferType>(op.getType());
    auto plain = MemRefType::get(type.getShape(), type.getElementType());
    Value a = rewriter.create<memref::AllocaOp>(loc, plain);
    Type et = type.getElementType();
    Value fillValue;
    if (!poison) {
    } else if (auto ft = dyn_cast<FloatType>(et))
      fillValue = rewriter.create<arith::ConstantOp>(
          loc, FloatAttr::get(ft, APFloat::getQNaN(ft.getFloatSemantics())));
    else if (auto it = dyn_cast<IntegerType>(et))
      fillValue = rewriter.create<arith::ConstantOp>(
          loc, IntegerAttr::get(it, APInt::getSplat(it.getWidth(),
                                                    APInt(8, 0xAA))));
    if (fillValue)
      forEach(rewriter, loc, type.getShape(),
              [&](OpBuilder &b, Location l, ValueRange iv) {
                b.create<memref::StoreOp>(l, fillValue, a, iv);
              });
    rewriter.replaceOpWithNewOp<memref::CastOp>(op, bufferMemRef(type), a);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Grid
//===----------------------------------------------------------------------===//

Value gridValue(OpBuilder &b, Location loc, int64_t slot) {
  auto g = b.create<memref::GetGlobalOp>(
      loc, MemRefType::get({6}, b.getIndexType()), kGridGlobal);
  return b.create<memref::LoadOp>(loc, g, ValueRange{cIdx(b, loc, slot)});
}

struct ProgramIdLowering : OpConversionPattern<ProgramIdOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ProgramIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, gridValue(rewriter, op.getLoc(),
                                     static_cast<int64_t>(op.getDim())));
    return success();
  }
};

struct NumProgramsLowering : OpConversionPattern<NumProgramsOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(NumProgramsOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, gridValue(rewriter, op.getLoc(),
                                     3 + static_cast<int64_t>(op.getDim())));
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

/// One element-wise copy with the masks of tile.copy (Passes.td, TileOps.td).
struct CopySpec {
  Value src, dst;              // converted memrefs
  BufferType srcType, dstType; // tile types
  ValueRange srcOffsets, dstOffsets;
  bool masked = false, transpose = false;
  std::optional<int64_t> blockDiagonal, blockLower;
  bool diagonal = false; // [N, N] fragment's diagonal into [N]
};

LogicalResult emitCopy(ConversionPatternRewriter &rewriter, Operation *op,
                       const CopySpec &c) {
  Location loc = op->getLoc();
  bool srcFrag = c.srcType.isFragment(), dstFrag = c.dstType.isFragment();
  // The tile, in memory coordinates: the fragment's shape (reversed with
  // transpose), else the shared endpoint's.
  SmallVector<int64_t> tile;
  if (srcFrag || dstFrag)
    tile.assign((srcFrag ? c.srcType : c.dstType).getShape().begin(),
                (srcFrag ? c.srcType : c.dstType).getShape().end());
  else
    tile.assign((c.srcType.isShared() ? c.srcType : c.dstType).getShape().begin(),
                (c.srcType.isShared() ? c.srcType : c.dstType).getShape().end());
  if (c.transpose)
    std::reverse(tile.begin(), tile.end());
  Type srcET = c.srcType.getElementType(), dstET = c.dstType.getElementType();
  if (srcET != dstET && (!isa<FloatType>(srcET) || !isa<FloatType>(dstET)))
    return op->emitOpError("convert-tile-to-loops: cannot convert ")
           << srcET << " to " << dstET;
  std::string msg = where(op);
  forEach(rewriter, loc, tile, [&](OpBuilder &b, Location l, ValueRange t) {
    // Fragment endpoints are indexed by the (transposed) tile coordinates,
    // memory endpoints by their offsets plus the tile coordinates.
    SmallVector<Value> tr(t.begin(), t.end());
    if (c.transpose)
      std::reverse(tr.begin(), tr.end());
    SmallVector<Value> si = srcFrag ? tr : addOffsets(b, l, c.srcOffsets, t);
    SmallVector<Value> di = dstFrag ? tr : addOffsets(b, l, c.dstOffsets, t);
    Value doWrite, readOk;
    if (c.diagonal) {
      di.assign({t[0]});
      doWrite = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq, t[0],
                                        t[1]);
    }
    auto blockOf = [&](Value x, int64_t k) {
      return b.create<arith::DivUIOp>(l, x, cIdx(b, l, k)).getResult();
    };
    if (c.blockDiagonal)
      doWrite = andI1(b, l, doWrite,
                      b.create<arith::CmpIOp>(l, arith::CmpIPredicate::eq,
                                              blockOf(t[0], *c.blockDiagonal),
                                              blockOf(t[1], *c.blockDiagonal)));
    if (c.blockLower) {
      Value on = b.create<arith::CmpIOp>(l, arith::CmpIPredicate::uge,
                                         blockOf(t[0], *c.blockLower),
                                         blockOf(t[1], *c.blockLower));
      // A load into a fragment zeros the elements outside the blocks; any
      // other copy leaves them alone.
      if (dstFrag)
        readOk = on;
      else
        doWrite = andI1(b, l, doWrite, on);
    }
    if (c.srcType.isGlobal() && c.masked)
      readOk = andI1(b, l, readOk, inBounds(b, l, c.src, si));
    if (c.dstType.isGlobal() && c.masked)
      doWrite = andI1(b, l, doWrite, inBounds(b, l, c.dst, di));
    ifThen(b, l, doWrite, [&](OpBuilder &wb, Location wl) {
      if (c.dstType.isGlobal() && !c.masked)
        assertTrue(wb, wl, inBounds(wb, wl, c.dst, di),
                   msg + ": store out of bounds");
      auto read = [&](OpBuilder &rb, Location rl) -> Value {
        if (c.srcType.isGlobal() && !c.masked)
          assertTrue(rb, rl, inBounds(rb, rl, c.src, si),
                     msg + ": load out of bounds");
        Value v = rb.create<memref::LoadOp>(rl, c.src, si);
        return *convertScalar(rb, rl, v, dstET);
      };
      Value v;
      if (!readOk) {
        v = read(wb, wl);
      } else {
        auto ifOp = wb.create<scf::IfOp>(
            wl, readOk,
            [&](OpBuilder &tb, Location tl) {
              tb.create<scf::YieldOp>(tl, read(tb, tl));
            },
            [&](OpBuilder &eb, Location el) {
              eb.create<scf::YieldOp>(el, zeroOf(eb, el, dstET));
            });
        v = ifOp.getResult(0);
      }
      wb.create<memref::StoreOp>(wl, v, c.dst, di);
    });
  });
  return success();
}

struct CopyLowering : OpConversionPattern<CopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(CopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    CopySpec c;
    c.src = adaptor.getSource();
    c.dst = adaptor.getDest();
    c.srcType = cast<BufferType>(op.getSource().getType());
    c.dstType = cast<BufferType>(op.getDest().getType());
    c.srcOffsets = adaptor.getSourceOffsets();
    c.dstOffsets = adaptor.getDestOffsets();
    c.masked = op.getMasked();
    c.transpose = op.getTranspose();
    c.blockDiagonal = op.getBlockDiagonal();
    c.blockLower = op.getBlockLower();
    c.diagonal = op.getDiagonal();
    if (failed(emitCopy(rewriter, op, c)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct AsyncCopyLowering : OpConversionPattern<AsyncCopyOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    CopySpec c;
    c.src = adaptor.getSource();
    c.dst = adaptor.getDest();
    c.srcType = cast<BufferType>(op.getSource().getType());
    c.dstType = cast<BufferType>(op.getDest().getType());
    c.srcOffsets = adaptor.getSourceOffsets();
    c.masked = op.getMasked();
    if (failed(emitCopy(rewriter, op, c)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct LoadLowering : OpConversionPattern<LoadOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    if (cast<BufferType>(op.getSource().getType()).isGlobal())
      assertTrue(rewriter, loc,
                 inBounds(rewriter, loc, adaptor.getSource(),
                          adaptor.getIndices()),
                 where(op) + ": load out of bounds");
    rewriter.replaceOpWithNewOp<memref::LoadOp>(op, adaptor.getSource(),
                                                adaptor.getIndices());
    return success();
  }
};

/// Ops with nothing to do in one thread, in order: barriers, copy groups,
/// L2 hints.
template <typename OpT>
struct EraseLowering : OpConversionPattern<OpT> {
  using OpConversionPattern<OpT>::OpConversionPattern;
  LogicalResult
  matchAndRewrite(OpT op, typename OpT::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

struct FillLowering : OpConversionPattern<FillOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(FillOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<BufferType>(op.getDest().getType());
    FailureOr<Value> v = convertScalar(rewriter, op.getLoc(), adaptor.getValue(),
                                       type.getElementType());
    if (failed(v))
      return op.emitOpError("convert-tile-to-loops: fill value type");
    forEach(rewriter, op.getLoc(), type.getShape(),
            [&](OpBuilder &b, Location l, ValueRange iv) {
              b.create<memref::StoreOp>(l, *v, adaptor.getDest(), iv);
            });
    rewriter.eraseOp(op);
    return success();
  }
};

struct ZeroTailLowering : OpConversionPattern<ZeroTailOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ZeroTailOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<BufferType>(op.getDest().getType());
    Value zero = zeroOf(rewriter, op.getLoc(), type.getElementType());
    forEach(rewriter, op.getLoc(), type.getShape(),
            [&](OpBuilder &b, Location l, ValueRange iv) {
              Value tail = b.create<arith::CmpIOp>(
                  l, arith::CmpIPredicate::sge, iv[0], adaptor.getFrom());
              ifThen(b, l, tail, [&](OpBuilder &tb, Location tl) {
                tb.create<memref::StoreOp>(tl, zero, adaptor.getDest(), iv);
              });
            });
    rewriter.eraseOp(op);
    return success();
  }
};

struct GemmLowering : OpConversionPattern<GemmOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto ct = cast<BufferType>(op.getC().getType());
    auto at = cast<BufferType>(op.getA().getType());
    int64_t kSize = op.getTransposeA() ? at.getShape()[0] : at.getShape()[1];
    Type f32 = rewriter.getF32Type();
    if (ct.getElementType() != f32)
      return op.emitOpError("convert-tile-to-loops: accumulator must be f32");
    Value a = adaptor.getA(), bm = adaptor.getB(), c = adaptor.getC();
    bool ta = op.getTransposeA(), tb = op.getTransposeB(),
         zero = op.getZeroInit();
    std::optional<int64_t> bLower = op.getBBlockLower();
    forEach(rewriter, loc, ct.getShape(),
            [&](OpBuilder &b, Location l, ValueRange mn) {
              Value m = mn[0], n = mn[1];
              Value init = zero ? zeroOf(b, l, f32)
                                : b.create<memref::LoadOp>(l, c, mn).getResult();
              // With b_block_lower = S, B[n][k] = 0 for k / S > n / S: the
              // k loop stops at the end of n's block.
              Value kEnd = cIdx(b, l, kSize);
              if (bLower) {
                Value s = cIdx(b, l, *bLower);
                Value blockEnd = b.create<arith::MulIOp>(
                    l, b.create<arith::AddIOp>(
                           l, b.create<arith::DivUIOp>(l, n, s), cIdx(b, l, 1)),
                    s);
                kEnd = b.create<arith::MinUIOp>(l, blockEnd, kEnd);
              }
              auto loop = b.create<scf::ForOp>(
                  l, cIdx(b, l, 0), kEnd, cIdx(b, l, 1), ValueRange{init},
                  [&](OpBuilder &lb, Location ll, Value k, ValueRange acc) {
                    Value av = lb.create<memref::LoadOp>(
                        ll, a, ta ? ValueRange{k, m} : ValueRange{m, k});
                    Value bv = lb.create<memref::LoadOp>(
                        ll, bm, tb ? ValueRange{n, k} : ValueRange{k, n});
                    av = *convertScalar(lb, ll, av, f32);
                    bv = *convertScalar(lb, ll, bv, f32);
                    Value p = lb.create<arith::MulFOp>(ll, av, bv);
                    lb.create<scf::YieldOp>(
                        ll, ValueRange{lb.create<arith::AddFOp>(ll, acc[0], p)});
                  });
              b.create<memref::StoreOp>(l, loop.getResult(0), c, mn);
            });
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.map: a loop nest over the outputs' shape; the body is moved into
/// the innermost loop, its block arguments become the coordinates (with
/// `indexed`) and loaded input elements, its yield the stores.
struct MapLowering : OpConversionPattern<MapOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    scf::LoopNest nest = loopNest(
        rewriter, loc, cast<BufferType>(op.getOutputs()[0].getType()).getShape());
    SmallVector<Value> ivs;
    for (scf::ForOp f : nest.loops)
      ivs.push_back(f.getInductionVar());
    Block *inner = nest.loops.back().getBody();
    rewriter.setInsertionPoint(inner->getTerminator());
    SmallVector<Value> args;
    if (op.getIndexed())
      args.append(ivs);
    for (Value in : adaptor.getInputs())
      args.push_back(rewriter.create<memref::LoadOp>(loc, in, ivs));
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    rewriter.inlineBlockBefore(&body, inner->getTerminator(), args);
    rewriter.setInsertionPoint(yield);
    for (auto [v, out] : llvm::zip(yield.getValues(), adaptor.getOutputs()))
      rewriter.create<memref::StoreOp>(yield.getLoc(), v, out, ivs);
    rewriter.eraseOp(yield);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.any and tile.warp_any: the body on every element in row-major
/// order, its i1 results or-ed into a one-element accumulator (the vote;
/// the barrier is moot in a sequential block, and without warps
/// tile.warp_any answers for the whole fragment, as its contract allows).
template <typename VoteOp>
struct AnyLowering : OpConversionPattern<VoteOp> {
  using OpConversionPattern<VoteOp>::OpConversionPattern;
  using OpAdaptor = typename VoteOp::Adaptor;
  LogicalResult
  matchAndRewrite(VoteOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto acc = rewriter.create<memref::AllocaOp>(
        loc, MemRefType::get({1}, rewriter.getI1Type()));
    Value zero = cIdx(rewriter, loc, 0);
    rewriter.create<memref::StoreOp>(loc, cBool(rewriter, loc, false), acc,
                                     zero);
    scf::LoopNest nest = loopNest(
        rewriter, loc, cast<BufferType>(op.getSource().getType()).getShape());
    SmallVector<Value> ivs;
    for (scf::ForOp f : nest.loops)
      ivs.push_back(f.getInductionVar());
    Block *inner = nest.loops.back().getBody();
    rewriter.setInsertionPoint(inner->getTerminator());
    SmallVector<Value> args(ivs);
    args.push_back(
        rewriter.create<memref::LoadOp>(loc, adaptor.getSource(), ivs));
    Block &body = op.getBody().front();
    auto yield = cast<YieldOp>(body.getTerminator());
    rewriter.inlineBlockBefore(&body, inner->getTerminator(), args);
    rewriter.setInsertionPoint(yield);
    Value old = rewriter.create<memref::LoadOp>(yield.getLoc(), acc, zero);
    Value now = rewriter.create<arith::OrIOp>(yield.getLoc(), old,
                                              yield.getValues()[0]);
    rewriter.create<memref::StoreOp>(yield.getLoc(), now, acc, zero);
    rewriter.eraseOp(yield);
    rewriter.setInsertionPointAfter(nest.loops.front());
    rewriter.replaceOpWithNewOp<memref::LoadOp>(op, acc, zero);
    return success();
  }
};

Value combine(OpBuilder &b, Location loc, ReduceKind kind, Value x, Value y) {
  switch (kind) {
  case ReduceKind::Add:
    return b.create<arith::AddFOp>(loc, x, y);
  case ReduceKind::Max:
    return b.create<arith::MaxNumFOp>(loc, x, y);
  case ReduceKind::Min:
    return b.create<arith::MinNumFOp>(loc, x, y);
  }
  llvm_unreachable("reduce kind");
}

struct ReduceLowering : OpConversionPattern<ReduceOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto st = cast<BufferType>(op.getSource().getType());
    if (!isa<FloatType>(st.getElementType()))
      return op.emitOpError("convert-tile-to-loops: float reductions only");
    int64_t dim = op.getDim();
    int64_t keep = st.getShape()[1 - dim], len = st.getShape()[dim];
    Value src = adaptor.getSource(), dst = adaptor.getDest();
    ReduceKind kind = op.getKind();
    forEach(rewriter, loc, {keep}, [&](OpBuilder &b, Location l, ValueRange o) {
      auto at = [&](Value i) {
        return dim == 1 ? SmallVector<Value>{o[0], i}
                        : SmallVector<Value>{i, o[0]};
      };
      Value first = b.create<memref::LoadOp>(l, src, at(cIdx(b, l, 0)));
      auto loop = b.create<scf::ForOp>(
          l, cIdx(b, l, 1), cIdx(b, l, len), cIdx(b, l, 1), ValueRange{first},
          [&](OpBuilder &lb, Location ll, Value i, ValueRange acc) {
            Value v = lb.create<memref::LoadOp>(ll, src, at(i));
            lb.create<scf::YieldOp>(ll, combine(lb, ll, kind, acc[0], v));
          });
      b.create<memref::StoreOp>(l, loop.getResult(0), dst, o);
    });
    rewriter.eraseOp(op);
    return success();
  }
};

struct ScanLowering : OpConversionPattern<ScanOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ScanOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto st = cast<BufferType>(op.getSource().getType());
    Value src = adaptor.getSource(), dst = adaptor.getDest();
    ReduceKind kind = op.getKind();
    Value first = rewriter.create<memref::LoadOp>(loc, src,
                                                  ValueRange{cIdx(rewriter, loc, 0)});
    rewriter.create<memref::StoreOp>(loc, first, dst,
                                     ValueRange{cIdx(rewriter, loc, 0)});
    rewriter.create<scf::ForOp>(
        loc, cIdx(rewriter, loc, 1), cIdx(rewriter, loc, st.getShape()[0]),
        cIdx(rewriter, loc, 1), ValueRange{first},
        [&](OpBuilder &b, Location l, Value i, ValueRange acc) {
          Value v = b.create<memref::LoadOp>(l, src, ValueRange{i});
          Value r = combine(b, l, kind, acc[0], v);
          b.create<memref::StoreOp>(l, r, dst, ValueRange{i});
          b.create<scf::YieldOp>(l, r);
        });
    rewriter.eraseOp(op);
    return success();
  }
};

/// (I + L)^-1 by forward substitution, column c at a time:
/// x_i = [i == c] - sum_{c <= k < i} L[i][k] x_k (k ascending). `packed`
/// keeps T[i][c] at [c][i]; `lower_only` leaves the 16 x 16 blocks above
/// the block diagonal alone (TileOps.td).
struct TrilInverseLowering : OpConversionPattern<TrilInverseOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(TrilInverseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<BufferType>(op.getSource().getType());
    int64_t n = type.getShape()[0];
    Value src = adaptor.getSource(), dst = adaptor.getDest();
    bool packed = op.getPacked(), lowerOnly = op.getLowerOnly();
    Type f32 = rewriter.getF32Type();
    forEach(rewriter, loc, {n}, [&](OpBuilder &b, Location l, ValueRange cv) {
      Value c = cv[0];
      auto tAt = [&](Value i) {
        return packed ? SmallVector<Value>{c, i} : SmallVector<Value>{i, c};
      };
      Value zero = zeroOf(b, l, f32);
      // Zeros above the diagonal: all of them, or with lower_only (n a
      // multiple of 16) those inside the diagonal 16 x 16 blocks.
      Value zeroFrom = cIdx(b, l, 0);
      if (lowerOnly && n % 16 == 0)
        zeroFrom = b.create<arith::MulIOp>(
            l, b.create<arith::DivUIOp>(l, c, cIdx(b, l, 16)), cIdx(b, l, 16));
      if (!packed)
        b.create<scf::ForOp>(l, zeroFrom, c, cIdx(b, l, 1), ValueRange{},
                             [&](OpBuilder &zb, Location zl, Value i,
                                 ValueRange) {
                               zb.create<memref::StoreOp>(zl, zero, dst,
                                                          tAt(i));
                               zb.create<scf::YieldOp>(zl);
                             });
      b.create<scf::ForOp>(
          l, c, cIdx(b, l, n), cIdx(b, l, 1), ValueRange{},
          [&](OpBuilder &ib, Location il, Value i, ValueRange) {
            Value isDiag =
                ib.create<arith::CmpIOp>(il, arith::CmpIPredicate::eq, i, c);
            Value init = ib.create<arith::SelectOp>(
                il, isDiag,
                ib.create<arith::ConstantOp>(il, FloatAttr::get(f32, 1.0)),
                zero);
            auto sum = ib.create<scf::ForOp>(
                il, c, i, cIdx(ib, il, 1), ValueRange{init},
                [&](OpBuilder &kb, Location kl, Value k, ValueRange acc) {
                  Value lik =
                      kb.create<memref::LoadOp>(kl, src, ValueRange{i, k});
                  Value xk = kb.create<memref::LoadOp>(kl, dst, tAt(k));
                  Value p = kb.create<arith::MulFOp>(kl, lik, xk);
                  kb.create<scf::YieldOp>(
                      kl, ValueRange{kb.create<arith::SubFOp>(kl, acc[0], p)});
                });
            ib.create<memref::StoreOp>(il, sum.getResult(0), dst, tAt(i));
            ib.create<scf::YieldOp>(il);
          });
    });
    rewriter.eraseOp(op);
    return success();
  }
};

//===----------------------------------------------------------------------===//
// Control flow and flags
//===----------------------------------------------------------------------===//

struct ForLowering : OpConversionPattern<ForOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ForOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto loop = rewriter.create<scf::ForOp>(op.getLoc(), adaptor.getLowerBound(),
                                            adaptor.getUpperBound(),
                                            adaptor.getStep());
    Block *body = loop.getBody();
    Operation *yield = op.getBody()->getTerminator();
    rewriter.inlineBlockBefore(op.getBody(), body->getTerminator(),
                               ValueRange{loop.getInductionVar()});
    rewriter.eraseOp(yield);
    rewriter.eraseOp(op);
    return success();
  }
};

/// The producer thread's code runs once, in order.
struct ProducerLowering : OpConversionPattern<ProducerOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ProducerOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.inlineBlockBefore(&op.getBody().front(), op);
    rewriter.eraseOp(op);
    return success();
  }
};

/// A producer task's body runs where the task stands, once: the kernels
/// hand its results to the consumers through mbarrier-guarded slots that
/// the task fills for the chunk the consumers take next, so program order
/// is an order the hand-off allows (the mbarrier checks below confirm that
/// no wait in it blocks; not that the hand-off is free of races in other
/// orders, nor that a barrier's count matches the threads that arrive).
struct ProducerTaskLowering : OpConversionPattern<ProducerTaskOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(ProducerTaskOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Block &body = op.getBody().front();
    Operation *end = body.getTerminator();
    rewriter.inlineBlockBefore(&body, op);
    rewriter.eraseOp(end);
    rewriter.eraseOp(op);
    return success();
  }
};

/// mbarriers: each i64 element counts its completed phases. One execution
/// of an arrive stands for all the threads of the role that executes it
/// (the kernels give each barrier the count of the role that arrives on
/// it), so it completes the current phase; a wait for parity p must find
/// the current phase's parity different from p (that phase p completed),
/// else it would wait forever in this order: the run aborts.
struct MBarrierInitLowering : OpConversionPattern<MBarrierInitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierInitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<BufferType>(op.getBarriers().getType());
    Value zero = zeroOf(rewriter, op.getLoc(), type.getElementType());
    forEach(rewriter, op.getLoc(), type.getShape(),
            [&](OpBuilder &b, Location l, ValueRange iv) {
              b.create<memref::StoreOp>(l, zero, adaptor.getBarriers(), iv);
            });
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierArriveLowering : OpConversionPattern<MBarrierArriveOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierArriveOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value n = rewriter.create<memref::LoadOp>(loc, adaptor.getBarriers(),
                                              adaptor.getIndex());
    Value one = rewriter.create<arith::ConstantIntOp>(
        loc, 1, cast<IntegerType>(n.getType()));
    rewriter.create<memref::StoreOp>(
        loc, rewriter.create<arith::AddIOp>(loc, n, one),
        adaptor.getBarriers(), adaptor.getIndex());
    rewriter.eraseOp(op);
    return success();
  }
};

struct MBarrierWaitLowering : OpConversionPattern<MBarrierWaitOp> {
  using OpConversionPattern::OpConversionPattern;
  LogicalResult
  matchAndRewrite(MBarrierWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value n = rewriter.create<memref::LoadOp>(loc, adaptor.getBarriers(),
                                              adaptor.getIndex());
    Value nIdx = rewriter.create<arith::IndexCastOp>(
        loc, rewriter.getIndexType(), n);
    Value two = cIdx(rewriter, loc, 2);
    Value cur = rewriter.create<arith::RemUIOp>(loc, nIdx, two);
    Value want = rewriter.create<arith::RemUIOp>(loc, adaptor.getParity(), two);
    Value done = rewriter.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne,
                                                cur, want);
    assertTrue(rewriter, loc, done,
               where(op) + ": the phase is not complete (blocks and roles "
                           "run in program order on the CPU)");
    rewriter.eraseOp(op);
    return success();
  }
};

/// The hooks of flag-hooks: functions the program that runs the kernels
/// defines (the CUDA emulator runs flag-releasing blocks lazily through
/// them).
constexpr StringLiteral kFlagReleased = "__tile_flag_released";
constexpr StringLiteral kFlagStalled = "__tile_flag_stalled";

/// The declaration of hook `name` (runOnOperation declares the hooks).
func::FuncOp hookDecl(Operation *op, StringRef name) {
  return op->getParentOfType<ModuleOp>().lookupSymbol<func::FuncOp>(name);
}

/// A store of the flag; with hooks, then a call of @__tile_flag_released
/// (where the block may be suspended for others to run).
struct FlagReleaseLowering : OpConversionPattern<FlagReleaseOp> {
  FlagReleaseLowering(TypeConverter &tc, MLIRContext *ctx, bool hooks)
      : OpConversionPattern(tc, ctx), hooks(hooks) {}
  LogicalResult
  matchAndRewrite(FlagReleaseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    assertTrue(rewriter, loc,
               inBounds(rewriter, loc, adaptor.getFlags(), adaptor.getIndex()),
               where(op) + ": flag index out of bounds");
    rewriter.create<memref::StoreOp>(loc, adaptor.getValue(), adaptor.getFlags(),
                                     adaptor.getIndex());
    if (hooks) {
      func::FuncOp released = hookDecl(op, kFlagReleased);
      if (!released)
        return rewriter.notifyMatchFailure(op, "no hook declaration");
      rewriter.create<func::CallOp>(loc, released, ValueRange{});
    }
    rewriter.eraseOp(op);
    return success();
  }
  bool hooks;
};

/// Whether `flags[index]` has reached `value` (32-bit wrap-around order).
Value flagReached(OpBuilder &b, Location loc, Value flags, Value index,
                  Value value) {
  Value f = b.create<memref::LoadOp>(loc, flags, index);
  Value diff = b.create<arith::SubIOp>(loc, f, value);
  return b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sge, diff,
                                 b.create<arith::ConstantIntOp>(loc, 0, 32));
}

/// Without hooks blocks run one after another: a wait must find its flag
/// released already, or it would never be. With hooks, while the flag has
/// not been reached the wait calls @__tile_flag_stalled, which runs other
/// blocks (true) or has none left to run (false: the run aborts).
struct FlagWaitLowering : OpConversionPattern<FlagWaitOp> {
  FlagWaitLowering(TypeConverter &tc, MLIRContext *ctx, bool hooks)
      : OpConversionPattern(tc, ctx), hooks(hooks) {}
  LogicalResult
  matchAndRewrite(FlagWaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    assertTrue(rewriter, loc,
               inBounds(rewriter, loc, adaptor.getFlags(), adaptor.getIndex()),
               where(op) + ": flag index out of bounds");
    if (!hooks) {
      assertTrue(rewriter, loc,
                 flagReached(rewriter, loc, adaptor.getFlags(),
                             adaptor.getIndex(), adaptor.getValue()),
                 where(op) + ": flag not released by an earlier block "
                             "(blocks run in order on the CPU)");
      rewriter.eraseOp(op);
      return success();
    }
    func::FuncOp stalled = hookDecl(op, kFlagStalled);
    if (!stalled)
      return rewriter.notifyMatchFailure(op, "no hook declaration");
    std::string msg = where(op) + ": flag never released (no block that "
                                  "could release it is left to run)";
    rewriter.create<scf::WhileOp>(
        loc, TypeRange{}, ValueRange{},
        [&](OpBuilder &b, Location l, ValueRange) {
          Value reached = flagReached(b, l, adaptor.getFlags(),
                                      adaptor.getIndex(), adaptor.getValue());
          Value waiting = b.create<arith::XOrIOp>(l, reached, cBool(b, l, true));
          b.create<scf::ConditionOp>(l, waiting, ValueRange{});
        },
        [&](OpBuilder &b, Location l, ValueRange) {
          Value ran = b.create<func::CallOp>(l, stalled, ValueRange{})
                          .getResult(0);
          assertTrue(b, l, ran, msg);
          b.create<scf::YieldOp>(l);
        });
    rewriter.eraseOp(op);
    return success();
  }
  bool hooks;
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

struct ConvertTileToLoopsPass
    : impl::ConvertTileToLoopsBase<ConvertTileToLoopsPass> {
  using ConvertTileToLoopsBase::ConvertTileToLoopsBase;
  void runOnOperation() override;
};

/// Ops the CPU lowering does not take: those only GPU passes create.
bool isUnsupported(Operation *op) {
  return isa<TmaLoadOp, TmaStoreOp, TmaStoreWaitOp, WarpSpecializeOp,
             GemmWaitOp, TrilInverseDiagOp, TrilInverseLevelOp,
             TrilInverseMergeOp>(op);
}

void ConvertTileToLoopsPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();

  bool bad = false;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) -> WalkResult {
    if (isUnsupported(op)) {
      op->emitOpError("is not supported by convert-tile-to-loops (only the "
                      "GPU passes create it; convert kernels as written)");
      bad = true;
      return WalkResult::skip(); // one error per unsupported region
    }
    if (auto arrive = dyn_cast<MBarrierArriveOp>(op);
        arrive && arrive.getExpectTx()) {
      op->emitOpError("with expect_tx waits for TMA bytes, which "
                      "convert-tile-to-loops does not lower");
      bad = true;
    }
    auto func = dyn_cast<func::FuncOp>(op);
    for (Type t : func ? TypeRange(func.getArgumentTypes())
                       : TypeRange(op->getOperandTypes()))
      if (isa<TensorMapType>(t)) {
        op->emitOpError("takes a tensor map, which convert-tile-to-loops "
                        "does not lower (only the GPU passes create them)");
        bad = true;
        break;
      }
    return WalkResult::advance();
  });
  if (bad)
    return signalPassFailure();

  // Every tile.alloc to the top of its function's entry block (allocs have
  // no operands), so that loops do not allocate per iteration.
  module.walk([&](func::FuncOp func) {
    if (func.isExternal())
      return;
    Block &entry = func.getBody().front();
    SmallVector<AllocOp> allocs;
    func.walk([&](AllocOp a) { allocs.push_back(a); });
    for (AllocOp a : llvm::reverse(allocs))
      a->moveBefore(&entry, entry.begin());
  });

  // The grid global and its setter.
  OpBuilder b(ctx);
  b.setInsertionPointToStart(module.getBody());
  Location loc = module.getLoc();
  auto gridType = MemRefType::get({6}, b.getIndexType());
  if (!module.lookupSymbol(kGridGlobal)) {
    b.create<memref::GlobalOp>(loc, kGridGlobal, b.getStringAttr("private"),
                               gridType, b.getUnitAttr() /*uninitialized*/,
                               /*constant=*/false, IntegerAttr());
  }
  if (!module.lookupSymbol(kSetGrid)) {
    SmallVector<Type> six(6, b.getIndexType());
    auto set = b.create<func::FuncOp>(loc, kSetGrid,
                                      b.getFunctionType(six, {}));
    Block *blk = set.addEntryBlock();
    OpBuilder sb = OpBuilder::atBlockBegin(blk);
    Value g = sb.create<memref::GetGlobalOp>(loc, gridType, kGridGlobal);
    for (int i = 0; i < 6; ++i)
      sb.create<memref::StoreOp>(loc, blk->getArgument(i), g,
                                 ValueRange{cIdx(sb, loc, i)});
    sb.create<func::ReturnOp>(loc);
  }

  // The flag hooks, declared where a kernel releases or waits for a flag.
  if (flagHooks) {
    auto declare = [&](StringRef name, TypeRange results) {
      if (Operation *old = module.lookupSymbol(name)) {
        auto f = dyn_cast<func::FuncOp>(old);
        if (!f || f.getFunctionType() != b.getFunctionType({}, results)) {
          old->emitOpError("is named like a flag hook of "
                           "convert-tile-to-loops but is not its declaration");
          bad = true;
        }
        return;
      }
      auto f = b.create<func::FuncOp>(loc, name,
                                      b.getFunctionType({}, results));
      f.setPrivate();
    };
    if (module.walk([](FlagReleaseOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      declare(kFlagReleased, {});
    if (module.walk([](FlagWaitOp) { return WalkResult::interrupt(); })
            .wasInterrupted())
      declare(kFlagStalled, {b.getI1Type()});
    if (bad)
      return signalPassFailure();
  }

  TypeConverter tc;
  tc.addConversion([](Type t) { return t; });
  tc.addConversion([](PtrType p) -> Type {
    return MemRefType::get({ShapedType::kDynamic}, p.getElementType());
  });
  tc.addConversion([](BufferType t) -> Type { return bufferMemRef(t); });
  auto cast = [](OpBuilder &builder, Type type, ValueRange inputs,
                 Location l) -> std::optional<Value> {
    return builder.create<UnrealizedConversionCastOp>(l, type, inputs)
        .getResult(0);
  };
  tc.addSourceMaterialization(cast);
  tc.addTargetMaterialization(cast);

  ConversionTarget target(*ctx);
  target.addIllegalDialect<TileDialect>();
  target.addLegalDialect<memref::MemRefDialect, scf::SCFDialect,
                         cf::ControlFlowDialect, arith::ArithDialect>();
  target.markUnknownOpDynamicallyLegal([&](Operation *op) {
    if (auto func = dyn_cast<func::FuncOp>(op))
      return tc.isSignatureLegal(func.getFunctionType()) &&
             tc.isLegal(&func.getBody());
    return tc.isLegal(op);
  });

  RewritePatternSet patterns(ctx);
  patterns.add<ViewLowering, TakeLowering, NarrowLowering, SliceLowering,
               ProgramIdLowering, NumProgramsLowering,
               CopyLowering, AsyncCopyLowering, LoadLowering,
               EraseLowering<BarrierOp>, EraseLowering<AsyncCommitOp>,
               EraseLowering<AsyncWaitOp>, EraseLowering<PrefetchOp>,
               // Kernels run one after another on the CPU: the stream
               // predecessor a tile.grid_wait waits for is done.
               EraseLowering<GridWaitOp>,
               FillLowering, ZeroTailLowering, GemmLowering, MapLowering,
               AnyLowering<AnyOp>, AnyLowering<WarpAnyOp>, ReduceLowering,
               ScanLowering, TrilInverseLowering,
               ForLowering,
               ProducerLowering, ProducerTaskLowering, MBarrierInitLowering,
               MBarrierArriveLowering, MBarrierWaitLowering>(tc, ctx);
  patterns.add<AllocLowering>(tc, ctx, poison);
  patterns.add<FlagReleaseLowering, FlagWaitLowering>(tc, ctx, flagHooks);
  populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns, tc);
  populateCallOpTypeConversionPattern(patterns, tc);
  populateReturnOpTypeConversionPattern(patterns, tc);
  scf::populateSCFStructuralTypeConversionsAndLegality(tc, patterns, target);
  if (failed(applyFullConversion(module, target, std::move(patterns))))
    return signalPassFailure();

  // The tile dialect's function attributes describe GPU launches (and its
  // verifier wants tile types on kernels): kernels keep only the marker
  // `gdn.cpu_kernel` and their parameter names (`gdn.name`).
  auto name = StringAttr::get(ctx, "gdn.name");
  module.walk([&](func::FuncOp func) {
    bool kernel = func->hasAttr(TileDialect::getKernelAttrName());
    for (NamedAttribute a : llvm::to_vector(func->getDiscardableAttrs()))
      if (a.getName().getValue().starts_with("tile."))
        func->removeAttr(a.getName());
    if (kernel)
      func->setAttr("gdn.cpu_kernel", UnitAttr::get(ctx));
    for (unsigned i = 0, e = func.getNumArguments(); i < e; ++i) {
      Attribute n = func.getArgAttr(i, "tile.name");
      if (!n)
        continue;
      func.removeArgAttr(i, "tile.name");
      func.setArgAttr(i, name, n);
    }
  });
}

} // namespace
} // namespace mlir::gdn
