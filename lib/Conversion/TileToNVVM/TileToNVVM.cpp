//===- TileToNVVM.cpp - lower tile kernels to NVVM/LLVM --------------------===//
//
// The conversion of the tile dialect to the LLVM and NVVM dialects. Layouts
// decide the per-thread code: every fragment register and every copy vector
// has a (thread, index) -> coordinate formula, emitted as i64 arithmetic on
// the thread id that LLVM folds per register. See Passes.td for the overview.
//
//===----------------------------------------------------------------------===//

#include "gdn/Conversion/TileToNVVM/TileToNVVM.h"
#include "gdn/Conversion/Passes.h"
#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Utils/LayoutUtils.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_CONVERTTILETONVVM
#include "gdn/Conversion/Passes.h.inc"

namespace {
using namespace mlir::gdn::tile;

//===----------------------------------------------------------------------===//
// Index arithmetic
//===----------------------------------------------------------------------===//

/// Builds i64 index arithmetic with LLVM ops, folding constants so that the
/// emitted IR stays readable (LLVM folds the rest).
struct Idx {
  OpBuilder &b;
  Location loc;
  Type i64;

  Idx(OpBuilder &b, Location loc) : b(b), loc(loc), i64(b.getI64Type()) {}

  static std::optional<int64_t> constOf(Value v) {
    if (auto c = v.getDefiningOp<LLVM::ConstantOp>())
      if (auto i = dyn_cast<IntegerAttr>(c.getValue()))
        return i.getInt();
    return std::nullopt;
  }
  Value c(int64_t v) {
    return b.create<LLVM::ConstantOp>(loc, i64, b.getI64IntegerAttr(v));
  }
  Value c32(int64_t v) {
    return b.create<LLVM::ConstantOp>(loc, b.getI32Type(),
                                      b.getI32IntegerAttr(v));
  }
  Value add(Value x, Value y) {
    auto cx = constOf(x), cy = constOf(y);
    if (cx && cy)
      return c(*cx + *cy);
    if (cx && *cx == 0)
      return y;
    if (cy && *cy == 0)
      return x;
    return b.create<LLVM::AddOp>(loc, x, y);
  }
  Value add(Value x, int64_t y) { return add(x, c(y)); }
  Value mul(Value x, Value y) {
    auto cx = constOf(x), cy = constOf(y);
    if (cx && cy)
      return c(*cx * *cy);
    if ((cx && *cx == 0) || (cy && *cy == 0))
      return c(0);
    if (cx && *cx == 1)
      return y;
    if (cy && *cy == 1)
      return x;
    return b.create<LLVM::MulOp>(loc, x, y);
  }
  Value mul(Value x, int64_t y) { return mul(x, c(y)); }
  Value div(Value x, int64_t y) {
    if (auto cx = constOf(x))
      return c(*cx / y);
    if (y == 1)
      return x;
    return b.create<LLVM::UDivOp>(loc, x, c(y));
  }
  Value rem(Value x, int64_t y) {
    if (auto cx = constOf(x))
      return c(*cx % y);
    if (y == 1)
      return c(0);
    return b.create<LLVM::URemOp>(loc, x, c(y));
  }
  Value xor_(Value x, Value y) {
    auto cx = constOf(x), cy = constOf(y);
    if (cx && cy)
      return c(*cx ^ *cy);
    return b.create<LLVM::XOrOp>(loc, x, y);
  }
  Value ult(Value x, Value y) {
    return b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ult, x, y);
  }
  Value ule(Value x, Value y) {
    return b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ule, x, y);
  }
  Value and_(Value x, Value y) {
    if (!x)
      return y;
    if (!y)
      return x;
    return b.create<LLVM::AndOp>(loc, x, y);
  }
  Value toI64(Value v) {
    if (v.getType() == i64)
      return v;
    return b.create<LLVM::ZExtOp>(loc, i64, v);
  }
  /// The thread index in the block.
  Value tid() {
    return toI64(b.create<NVVM::ThreadIdXOp>(loc, b.getI32Type()));
  }
  Value gep(Value base, Type elem, Value index) {
    return b.create<LLVM::GEPOp>(loc, base.getType(), elem, base,
                                 ValueRange{index});
  }
};

//===----------------------------------------------------------------------===//
// Kernel facts
//===----------------------------------------------------------------------===//

/// Threads per block of the kernel around `op`: 32 * tile.num_warps, or the
/// nvvm.maxntid of the kernel once it has been converted to llvm.func.
int64_t numThreadsOf(Operation *op) {
  for (Operation *p = op; p; p = p->getParentOp()) {
    if (auto warps =
            p->getAttrOfType<IntegerAttr>(TileDialect::getNumWarpsAttrName()))
      return 32 * warps.getInt();
    if (auto ntid = p->getAttrOfType<DenseI32ArrayAttr>(
            NVVM::NVVMDialect::getMaxntidAttrName()))
      return ntid[0];
  }
  return 0;
}

/// Threads per block of a kernel: its compute warps plus the producer
/// warpgroup that tile-warp-specialize added.
int64_t blockThreadsOf(Operation *kernel) {
  int64_t threads = numThreadsOf(kernel);
  if (auto p = kernel->getAttrOfType<IntegerAttr>(
          TileDialect::getProducerWarpsAttrName()))
    threads += 32 * p.getInt();
  return threads;
}

/// Whether the kernel around `op` uses wgmma (tile.mma_engine = "wgmma").
bool usesWgmma(Operation *op) {
  for (Operation *p = op; p; p = p->getParentOp())
    if (auto e = p->getAttrOfType<StringAttr>(
            TileDialect::getMmaEngineAttrName()))
      return e.getValue() == "wgmma";
  return false;
}

/// Number of registers per thread of a fragment.
int64_t fragmentRegs(BufferType type, int64_t numThreads) {
  if (auto mma = dyn_cast<MmaLayoutAttr>(type.getLayout()))
    return mmaFragmentSize(type.getShape()[0], type.getShape()[1],
                           mma.getWarps()[0], mma.getWarps()[1]);
  auto blocked = cast<BlockedLayoutAttr>(type.getLayout());
  return blockedSlots(type.getNumElements(), blocked.getVector(), numThreads) *
         blocked.getVector();
}

/// A run of `len` consecutive registers of one thread that hold elements
/// adjacent along the innermost dimension, starting at `coord`.
struct Run {
  int64_t reg;
  int64_t len;
  SmallVector<Value> coord;
  Value guard; // i1: whether this thread owns the run; null = always
};

SmallVector<Value> delinearize(Idx &ix, Value linear, ArrayRef<int64_t> shape) {
  SmallVector<Value> coord(shape.size());
  for (int64_t d = shape.size() - 1; d >= 0; --d) {
    if (d == 0) {
      coord[d] = linear;
    } else {
      coord[d] = ix.rem(linear, shape[d]);
      linear = ix.div(linear, shape[d]);
    }
  }
  return coord;
}

/// The runs of a blocked distribution of `shape` over numThreads threads.
SmallVector<Run> blockedRuns(Idx &ix, ArrayRef<int64_t> shape, int64_t vector,
                             int64_t numThreads, Value tid) {
  int64_t numel = 1;
  for (int64_t d : shape)
    numel *= d;
  int64_t numVectors = numel / vector;
  int64_t slots = blockedSlots(numel, vector, numThreads);
  SmallVector<Run> runs;
  for (int64_t s = 0; s < slots; ++s) {
    Value c = ix.add(ix.c(s * numThreads), tid);
    Run run{s * vector, vector, delinearize(ix, ix.mul(c, vector), shape), {}};
    if ((s + 1) * numThreads > numVectors)
      run.guard = ix.ult(c, ix.c(numVectors));
    runs.push_back(run);
  }
  return runs;
}

/// The runs of a fragment's layout.
SmallVector<Run> fragmentRuns(Idx &ix, BufferType type, int64_t numThreads,
                              Value tid) {
  if (auto blocked = dyn_cast<BlockedLayoutAttr>(type.getLayout()))
    return blockedRuns(ix, type.getShape(), blocked.getVector(), numThreads,
                       tid);
  auto mma = cast<MmaLayoutAttr>(type.getLayout());
  int64_t m = type.getShape()[0], n = type.getShape()[1];
  int64_t wm = mma.getWarps()[0], wn = mma.getWarps()[1];
  int64_t bm = m / wm, bn = n / wn;
  Value warp = ix.div(tid, 32), lane = ix.rem(tid, 32);
  Value rowBase = ix.add(ix.mul(ix.div(warp, wn), bm), ix.div(lane, 4));
  Value colBase = ix.add(ix.mul(ix.rem(warp, wn), bn), ix.mul(ix.rem(lane, 4), 2));
  SmallVector<Run> runs;
  for (int64_t am = 0; am < bm / 16; ++am)
    for (int64_t an = 0; an < bn / 8; ++an)
      for (int64_t h = 0; h < 2; ++h) {
        int64_t reg = (am * (bn / 8) + an) * 4 + 2 * h;
        runs.push_back({reg,
                        2,
                        {ix.add(rowBase, am * 16 + 8 * h),
                         ix.add(colBase, an * 8)},
                        {}});
      }
  return runs;
}

//===----------------------------------------------------------------------===//
// Addressing
//===----------------------------------------------------------------------===//

/// Byte offset of `coord` in a shared buffer (see SwizzleAttr and
/// swizzledOffset in LayoutUtils for the formula).
Value sharedByteOffset(Idx &ix, BufferType type, ArrayRef<Value> coord) {
  ArrayRef<int64_t> shape = type.getShape();
  int64_t eb = type.getElementBytes();
  int64_t cols = shape.back();
  int64_t rows = type.getNumElements() / cols;
  Value row = ix.c(0);
  for (size_t d = 0; d + 1 < shape.size(); ++d)
    row = ix.add(ix.mul(row, shape[d]), coord[d]);
  Value col = coord.back();
  auto swz = dyn_cast_or_null<SwizzleAttr>(type.getLayout());
  if (!swz)
    return ix.mul(ix.add(ix.mul(row, cols), col), eb);
  int64_t s = swz.getBytes();
  Value byteInRow = ix.mul(col, eb);
  Value box = ix.div(byteInRow, s);
  Value inBox = ix.rem(byteInRow, s);
  Value chunk = ix.div(inBox, 16);
  Value phase = ix.rem(row, s / 16);
  Value off = ix.add(ix.mul(box, rows * s), ix.mul(row, s));
  off = ix.add(off, ix.mul(ix.xor_(chunk, phase), 16));
  return ix.add(off, ix.rem(inBox, 16));
}

/// A global buffer's base pointer and sizes, unpacked from its struct.
struct GlobalView {
  Value ptr;
  SmallVector<Value> sizes;
  SmallVector<Value> strides; // in elements

  GlobalView(Idx &ix, Value desc, int64_t rank) {
    ptr = ix.b.create<LLVM::ExtractValueOp>(ix.loc, desc, 0);
    for (int64_t d = 0; d < rank; ++d)
      sizes.push_back(ix.b.create<LLVM::ExtractValueOp>(ix.loc, desc, d + 1));
    for (int64_t d = 0; d < rank; ++d)
      strides.push_back(
          ix.b.create<LLVM::ExtractValueOp>(ix.loc, desc, rank + d + 1));
  }
  /// Element offset of offsets + coord.
  Value linear(Idx &ix, ValueRange offsets, ArrayRef<Value> coord) {
    Value lin = ix.c(0);
    for (size_t d = 0; d < coord.size(); ++d)
      lin = ix.add(lin, ix.mul(ix.add(offsets[d], coord[d]), strides[d]));
    return lin;
  }
  /// Whether the run [coord, coord + len) along the innermost dim is in
  /// bounds.
  Value inBounds(Idx &ix, ValueRange offsets, ArrayRef<Value> coord,
                 int64_t len) {
    Value ok;
    for (size_t d = 0; d < coord.size(); ++d) {
      Value pos = ix.add(offsets[d], coord[d]);
      Value cmp = d + 1 == coord.size()
                      ? ix.ule(ix.add(pos, len), sizes[d])
                      : ix.ult(pos, sizes[d]);
      ok = ix.and_(ok, cmp);
    }
    return ok;
  }
};

Type vecType(Type elem, int64_t len) {
  return len == 1 ? elem : VectorType::get({len}, elem);
}

/// Runs `body` under `cond` (if non-null), as LLVM control flow. The
/// rewriter continues after the guarded region.
void emitGuarded(ConversionPatternRewriter &rewriter, Location loc, Value cond,
                 function_ref<void(OpBuilder &)> body) {
  if (!cond) {
    body(rewriter);
    return;
  }
  Block *cur = rewriter.getInsertionBlock();
  Block *cont = rewriter.splitBlock(cur, rewriter.getInsertionPoint());
  Block *then = rewriter.createBlock(cont);
  rewriter.setInsertionPointToEnd(cur);
  rewriter.create<LLVM::CondBrOp>(loc, cond, then, cont);
  rewriter.setInsertionPointToStart(then);
  body(rewriter);
  rewriter.create<LLVM::BrOp>(loc, ValueRange{}, cont);
  rewriter.setInsertionPointToStart(cont);
}

/// `valid ? load(ptr) : 0`, without touching memory when not valid.
Value emitMaskedLoad(ConversionPatternRewriter &rewriter, Location loc,
                     Value valid, Type type, Value ptr, int64_t align) {
  if (!valid)
    return rewriter.create<LLVM::LoadOp>(loc, type, ptr, align);
  Block *cur = rewriter.getInsertionBlock();
  Block *cont = rewriter.splitBlock(cur, rewriter.getInsertionPoint());
  cont->addArgument(type, loc);
  Block *then = rewriter.createBlock(cont);
  rewriter.setInsertionPointToEnd(cur);
  Value zero = rewriter.create<LLVM::ZeroOp>(loc, type);
  rewriter.create<LLVM::CondBrOp>(loc, valid, then, ValueRange{}, cont,
                                  ValueRange{zero});
  rewriter.setInsertionPointToStart(then);
  Value v = rewriter.create<LLVM::LoadOp>(loc, type, ptr, align);
  rewriter.create<LLVM::BrOp>(loc, ValueRange{v}, cont);
  rewriter.setInsertionPointToStart(cont);
  return cont->getArgument(0);
}

/// Loads/stores of fragment registers.
struct Regs {
  Value base;
  Type elem;
  Value load(Idx &ix, int64_t reg) {
    return ix.b.create<LLVM::LoadOp>(ix.loc, elem,
                                     ix.gep(base, elem, ix.c(reg)));
  }
  void store(Idx &ix, int64_t reg, Value v) {
    ix.b.create<LLVM::StoreOp>(ix.loc, v, ix.gep(base, elem, ix.c(reg)));
  }
  Value loadVec(Idx &ix, int64_t reg, int64_t len, Type to) {
    if (len == 1)
      return convert(ix, load(ix, reg), to);
    Value vec = ix.b.create<LLVM::UndefOp>(ix.loc, VectorType::get({len}, to));
    for (int64_t i = 0; i < len; ++i)
      vec = ix.b.create<LLVM::InsertElementOp>(
          ix.loc, vec, convert(ix, load(ix, reg + i), to), ix.c32(i));
    return vec;
  }
  void storeVec(Idx &ix, int64_t reg, int64_t len, Value v) {
    if (len == 1) {
      store(ix, reg, convert(ix, v, elem));
      return;
    }
    for (int64_t i = 0; i < len; ++i)
      store(ix, reg + i,
            convert(ix,
                    ix.b.create<LLVM::ExtractElementOp>(ix.loc, v, ix.c32(i)),
                    elem));
  }
  static Value convert(Idx &ix, Value v, Type to) {
    Type from = v.getType();
    if (from == to)
      return v;
    if (from.getIntOrFloatBitWidth() > to.getIntOrFloatBitWidth())
      return ix.b.create<LLVM::FPTruncOp>(ix.loc, to, v);
    return ix.b.create<LLVM::FPExtOp>(ix.loc, to, v);
  }
};

//===----------------------------------------------------------------------===//
// Patterns
//===----------------------------------------------------------------------===//

template <typename Op>
struct TilePattern : ConvertOpToLLVMPattern<Op> {
  using ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;
};

/// func.func with tile.kernel -> llvm.func with nvvm.kernel.
struct KernelFuncLowering : ConvertOpToLLVMPattern<func::FuncOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(func::FuncOp func, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!func->hasAttr(TileDialect::getKernelAttrName()))
      return rewriter.notifyMatchFailure(func, "not a tile kernel");
    TypeConverter::SignatureConversion sig(func.getNumArguments());
    for (auto [i, t] : llvm::enumerate(func.getArgumentTypes())) {
      Type converted = getTypeConverter()->convertType(t);
      if (!converted)
        return func.emitOpError("cannot lower kernel argument type ") << t;
      sig.addInputs(i, converted);
    }
    auto fnType = LLVM::LLVMFunctionType::get(
        LLVM::LLVMVoidType::get(getContext()), sig.getConvertedTypes());
    auto llvmFunc =
        rewriter.create<LLVM::LLVMFuncOp>(func.getLoc(), func.getName(), fnType);
    llvmFunc->setAttr(NVVM::NVVMDialect::getKernelFuncAttrName(),
                      rewriter.getUnitAttr());
    int64_t threads = blockThreadsOf(func);
    llvmFunc->setAttr(NVVM::NVVMDialect::getMaxntidAttrName(),
                      rewriter.getDenseI32ArrayAttr(
                          {static_cast<int32_t>(threads), 1, 1}));
    // setmaxnreg needs a register cap at entry: one block per SM.
    if (func->hasAttr(TileDialect::getProducerWarpsAttrName()))
      llvmFunc->setAttr(NVVM::NVVMDialect::getMinctasmAttrName(),
                        rewriter.getI32IntegerAttr(1));
    // Tensor maps are 128-byte __grid_constant__ parameters passed by
    // value; the kernel sees the parameter's address.
    for (auto [i, t] : llvm::enumerate(func.getArgumentTypes()))
      if (isa<TensorMapType>(t)) {
        auto byval = LLVM::LLVMArrayType::get(rewriter.getI8Type(), 128);
        llvmFunc.setArgAttr(i, LLVM::LLVMDialect::getByValAttrName(),
                            TypeAttr::get(byval));
        llvmFunc.setArgAttr(i, LLVM::LLVMDialect::getAlignAttrName(),
                            rewriter.getI64IntegerAttr(64));
        llvmFunc.setArgAttr(i, NVVM::NVVMDialect::getGridConstantAttrName(),
                            rewriter.getUnitAttr());
      }
    if (auto engine = func->getAttr(TileDialect::getMmaEngineAttrName()))
      llvmFunc->setAttr(TileDialect::getMmaEngineAttrName(), engine);
    if (auto regs = func->getAttrOfType<IntegerAttr>(
            TileDialect::getMaxRegistersAttrName()))
      llvmFunc->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                        rewriter.getI32IntegerAttr(regs.getInt()));
    rewriter.inlineRegionBefore(func.getBody(), llvmFunc.getBody(),
                                llvmFunc.end());
    if (failed(rewriter.convertRegionTypes(&llvmFunc.getBody(),
                                           *getTypeConverter(), &sig)))
      return failure();
    rewriter.eraseOp(func);
    return success();
  }
};

struct ReturnLowering : ConvertOpToLLVMPattern<func::ReturnOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(func::ReturnOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<LLVM::ReturnOp>(op, ValueRange{});
    return success();
  }
};

struct ProgramIdLowering : TilePattern<ProgramIdOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(ProgramIdOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type i32 = rewriter.getI32Type();
    Value id;
    switch (op.getDim()) {
    case Dim::X:
      id = rewriter.create<NVVM::BlockIdXOp>(op.getLoc(), i32);
      break;
    case Dim::Y:
      id = rewriter.create<NVVM::BlockIdYOp>(op.getLoc(), i32);
      break;
    case Dim::Z:
      id = rewriter.create<NVVM::BlockIdZOp>(op.getLoc(), i32);
      break;
    }
    rewriter.replaceOpWithNewOp<LLVM::ZExtOp>(op, rewriter.getI64Type(), id);
    return success();
  }
};

struct ViewLowering : TilePattern<ViewOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(ViewOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<BufferType>(op.getType());
    Type structTy = getTypeConverter()->convertType(type);
    Idx ix(rewriter, op.getLoc());
    Value desc = rewriter.create<LLVM::UndefOp>(op.getLoc(), structTy);
    desc = rewriter.create<LLVM::InsertValueOp>(op.getLoc(), desc,
                                                adaptor.getPtr(), 0);
    unsigned dyn = 0;
    int64_t rank = type.getRank();
    SmallVector<Value> sizes;
    for (auto [d, size] : llvm::enumerate(type.getShape())) {
      Value v = ShapedType::isDynamic(size) ? adaptor.getSizes()[dyn++]
                                            : ix.c(size);
      sizes.push_back(v);
      desc = rewriter.create<LLVM::InsertValueOp>(op.getLoc(), desc, v, d + 1);
    }
    Value stride = ix.c(1); // dense row-major
    for (int64_t d = rank - 1; d >= 0; --d) {
      desc = rewriter.create<LLVM::InsertValueOp>(op.getLoc(), desc, stride,
                                                  rank + d + 1);
      stride = ix.mul(stride, sizes[d]);
    }
    rewriter.replaceOp(op, desc);
    return success();
  }
};

struct AllocLowering : TilePattern<AllocOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(AllocOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<BufferType>(op.getType());
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    if (type.isShared()) {
      if (!op.getOffset())
        return op.emitOpError(
            "shared buffer has no offset; run tile-plan-shared-memory first");
      auto ptr3 = LLVM::LLVMPointerType::get(getContext(), 3);
      Value base =
          rewriter.create<LLVM::AddressOfOp>(loc, ptr3, kSharedMemorySymbol);
      rewriter.replaceOp(
          op, ix.gep(base, rewriter.getI8Type(), ix.c(*op.getOffset())));
      return success();
    }
    if (!type.getLayout())
      return op.emitOpError(
          "fragment has no layout; run tile-assign-layouts first");
    int64_t regs = fragmentRegs(type, numThreadsOf(op));
    // Allocas go to the entry block, where LLVM promotes them to registers.
    auto func = op->getParentOfType<FunctionOpInterface>();
    OpBuilder::InsertionGuard guard(rewriter);
    rewriter.setInsertionPointToStart(&func.getFunctionBody().front());
    Idx ex(rewriter, loc);
    Value alloca = rewriter.create<LLVM::AllocaOp>(
        loc, LLVM::LLVMPointerType::get(getContext()), type.getElementType(),
        ex.c(regs), /*alignment=*/16);
    rewriter.replaceOp(op, alloca);
    return success();
  }
};

struct SliceLowering : TilePattern<SliceOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(SliceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto res = cast<BufferType>(op.getType());
    Idx ix(rewriter, op.getLoc());
    int64_t bytes = res.getNumElements() * res.getElementBytes();
    rewriter.replaceOp(op, ix.gep(adaptor.getSource(), rewriter.getI8Type(),
                                  ix.mul(adaptor.getIndex(), bytes)));
    return success();
  }
};

/// An operand-less tile op that is one NVVM op: tile.barrier -> bar.sync 0,
/// tile.async_commit -> cp.async.commit_group.
template <typename SrcOp, typename DstOp>
struct OneToOneLowering : TilePattern<SrcOp> {
  using TilePattern<SrcOp>::TilePattern;
  LogicalResult
  matchAndRewrite(SrcOp op, typename SrcOp::Adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<DstOp>(op);
    return success();
  }
};
/// tile.barrier -> bar.sync 0. In wgmma kernels each thread first orders
/// its generic-proxy shared-memory writes (stores, cp.async) before the
/// async-proxy reads of wgmma (fence.proxy.async.shared::cta).
struct BarrierLowering : TilePattern<BarrierOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(BarrierOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (usesWgmma(op))
      rewriter.create<NVVM::FenceProxyOp>(
          op.getLoc(),
          NVVM::ProxyKindAttr::get(getContext(), NVVM::ProxyKind::async_shared),
          NVVM::SharedSpaceAttr::get(getContext(),
                                     NVVM::SharedSpace::shared_cta));
    if (op.getId()) {
      Value id = rewriter.create<LLVM::ConstantOp>(
          op.getLoc(), rewriter.getI32Type(),
          rewriter.getI32IntegerAttr(*op.getId()));
      Value threads = rewriter.create<LLVM::ConstantOp>(
          op.getLoc(), rewriter.getI32Type(),
          rewriter.getI32IntegerAttr(*op.getThreads()));
      rewriter.replaceOpWithNewOp<NVVM::BarrierOp>(op, id, threads);
      return success();
    }
    rewriter.replaceOpWithNewOp<NVVM::Barrier0Op>(op);
    return success();
  }
};
using AsyncCommitLowering =
    OneToOneLowering<AsyncCommitOp, NVVM::CpAsyncCommitGroupOp>;

struct AsyncWaitLowering : TilePattern<AsyncWaitOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(AsyncWaitOp op, OpAdaptor,
                  ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOpWithNewOp<NVVM::CpAsyncWaitGroupOp>(op, op.getPending());
    return success();
  }
};

struct FillLowering : TilePattern<FillOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(FillOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto type = cast<BufferType>(op.getDest().getType());
    Idx ix(rewriter, op.getLoc());
    Regs regs{adaptor.getDest(), type.getElementType()};
    int64_t n = fragmentRegs(type, numThreadsOf(op));
    for (int64_t r = 0; r < n; ++r)
      regs.store(ix, r, adaptor.getValue());
    rewriter.eraseOp(op);
    return success();
  }
};

/// Copies between global and shared memory (no fragment): each thread moves
/// vectors of the op's blocked thread mapping; async copies use cp.async.
LogicalResult lowerMemToMemCopy(Operation *op, BufferType src, Value srcVal,
                                ValueRange srcOffsets, BufferType dst,
                                Value dstVal, ValueRange dstOffsets,
                                bool masked, Attribute layout, bool async,
                                ConversionPatternRewriter &rewriter) {
  auto blocked = dyn_cast_or_null<BlockedLayoutAttr>(layout);
  if (!blocked)
    return op->emitOpError(
        "copy has no thread mapping; run tile-assign-layouts first");
  Location loc = op->getLoc();
  Idx ix(rewriter, loc);
  int64_t numThreads = numThreadsOf(op);
  ArrayRef<int64_t> shape = src.isGlobal() ? dst.getShape() : src.getShape();
  int64_t v = blocked.getVector();
  int64_t eb = src.getElementBytes();
  int64_t bytes = v * eb;
  if (async && bytes != 4 && bytes != 8 && bytes != 16)
    return op->emitOpError("cp.async moves 4, 8 or 16 bytes, but the thread "
                           "mapping gives ")
           << bytes;
  Value tid = ix.tid();
  BufferType gType = src.isGlobal() ? src : dst;
  BufferType sType = src.isGlobal() ? dst : src;
  Value gDesc = src.isGlobal() ? srcVal : dstVal;
  Value sBase = src.isGlobal() ? dstVal : srcVal;
  ValueRange gOffsets = src.isGlobal() ? srcOffsets : dstOffsets;
  GlobalView view(ix, gDesc, gType.getRank());
  Type elem = src.getElementType();
  Type vt = vecType(elem, v);
  for (Run &run : blockedRuns(ix, shape, v, numThreads, tid)) {
    Value gPtr =
        ix.gep(view.ptr, elem, view.linear(ix, gOffsets, run.coord));
    Value sPtr = ix.gep(sBase, rewriter.getI8Type(),
                        sharedByteOffset(ix, sType, run.coord));
    Value valid = masked ? view.inBounds(ix, gOffsets, run.coord, v) : Value();
    if (async) {
      emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
        Value cpSize;
        if (valid)
          cpSize = b.create<LLVM::SelectOp>(loc, valid, ix.c32(bytes),
                                            ix.c32(0));
        b.create<NVVM::CpAsyncOp>(
            loc, sPtr, gPtr, static_cast<uint32_t>(bytes),
            bytes == 16 ? NVVM::LoadCacheModifierKind::CG
                        : NVVM::LoadCacheModifierKind::CA,
            cpSize);
      });
      continue;
    }
    if (src.isGlobal()) {
      emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
        Value val = emitMaskedLoad(rewriter, loc, valid, vt, gPtr, bytes);
        rewriter.create<LLVM::StoreOp>(loc, val, sPtr, bytes);
      });
    } else {
      emitGuarded(rewriter, loc, ix.and_(run.guard, valid), [&](OpBuilder &b) {
        Value val = b.create<LLVM::LoadOp>(loc, vt, sPtr, bytes);
        b.create<LLVM::StoreOp>(loc, val, gPtr, bytes);
      });
    }
  }
  return success();
}

struct AsyncCopyLowering : TilePattern<AsyncCopyOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(AsyncCopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (failed(lowerMemToMemCopy(
            op, cast<BufferType>(op.getSource().getType()),
            adaptor.getSource(), adaptor.getSourceOffsets(),
            cast<BufferType>(op.getDest().getType()), adaptor.getDest(), {},
            op.getMasked(), op.getLayoutAttr(), /*async=*/true, rewriter)))
      return failure();
    rewriter.eraseOp(op);
    return success();
  }
};

struct CopyLowering : TilePattern<CopyOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(CopyOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto src = cast<BufferType>(op.getSource().getType());
    auto dst = cast<BufferType>(op.getDest().getType());
    if (!src.isFragment() && !dst.isFragment()) {
      if (failed(lowerMemToMemCopy(op, src, adaptor.getSource(),
                                   adaptor.getSourceOffsets(), dst,
                                   adaptor.getDest(), adaptor.getDestOffsets(),
                                   op.getMasked(), op.getLayoutAttr(),
                                   /*async=*/false, rewriter)))
        return failure();
      rewriter.eraseOp(op);
      return success();
    }
    if (src.isFragment() && dst.isFragment())
      return op.emitOpError("fragment to fragment copies are not supported");
    // One side is a fragment: walk its runs.
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    bool load = dst.isFragment();
    BufferType frag = load ? dst : src;
    BufferType mem = load ? src : dst;
    Value memVal = load ? adaptor.getSource() : adaptor.getDest();
    ValueRange memOffsets =
        load ? adaptor.getSourceOffsets() : adaptor.getDestOffsets();
    Regs regs{load ? adaptor.getDest() : adaptor.getSource(),
              frag.getElementType()};
    if (!frag.getLayout())
      return op.emitOpError(
          "fragment has no layout; run tile-assign-layouts first");
    Type memElem = mem.getElementType();
    int64_t eb = mem.getElementBytes();
    Value tid = ix.tid();
    std::optional<GlobalView> view;
    if (mem.isGlobal())
      view.emplace(ix, memVal, mem.getRank());
    // A strided innermost dimension is moved one element at a time.
    bool contiguous = !mem.isGlobal() ||
                      hasContiguousInnermost(load ? op.getSource() : op.getDest());
    SmallVector<Run> runs;
    for (Run &run : fragmentRuns(ix, frag, numThreadsOf(op), tid)) {
      if (contiguous || run.len == 1) {
        runs.push_back(run);
        continue;
      }
      for (int64_t i = 0; i < run.len; ++i) {
        Run one = run;
        one.reg = run.reg + i;
        one.len = 1;
        one.coord.back() = ix.add(run.coord.back(), i);
        runs.push_back(one);
      }
    }
    for (Run &run : runs) {
      Value ptr, valid;
      if (view) {
        ptr = ix.gep(view->ptr, memElem,
                     view->linear(ix, memOffsets, run.coord));
        if (op.getMasked())
          valid = view->inBounds(ix, memOffsets, run.coord, run.len);
      } else {
        ptr = ix.gep(memVal, rewriter.getI8Type(),
                     sharedByteOffset(ix, mem, run.coord));
      }
      Type vt = vecType(memElem, run.len);
      int64_t align = run.len * eb;
      if (load) {
        emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
          Idx bx(b, loc);
          Value val = emitMaskedLoad(rewriter, loc, valid, vt, ptr, align);
          regs.storeVec(bx, run.reg, run.len, val);
        });
      } else {
        emitGuarded(rewriter, loc, ix.and_(run.guard, valid),
                    [&](OpBuilder &b) {
                      Idx bx(b, loc);
                      Value val = regs.loadVec(bx, run.reg, run.len, memElem);
                      b.create<LLVM::StoreOp>(loc, val, ptr, align);
                    });
      }
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.gemm -> ldmatrix + mma.sync.m16n8k16 per warp.
struct GemmLowering : TilePattern<GemmOp> {
  using TilePattern::TilePattern;

  /// wgmma.mma_async m64nNk16 per warpgroup, operands from 128B-swizzled
  /// shared memory through descriptors (docs/hopper-codegen.md §5.2):
  /// desc = (addr >> 4) | LBO << 16 | SBO << 32 | 1 << 62. A K-major tile
  /// (A [M][K], B^T [N][K]) is cut into 128-byte boxes along K: a k16 step
  /// moves 32 bytes inside a box, every fourth step jumps a box. An
  /// MN-major tile (B [K][N], A^T [K][M]) has rows of K: a k16 step moves 16
  /// rows (2 KiB) and LBO is the distance between 64-wide boxes along N/M.
  LogicalResult lowerWgmma(GemmOp op, OpAdaptor adaptor,
                           ConversionPatternRewriter &rewriter) const {
    auto aT = cast<BufferType>(op.getA().getType());
    auto bT = cast<BufferType>(op.getB().getType());
    auto cT = cast<BufferType>(op.getC().getType());
    auto mma = cast<MmaLayoutAttr>(cT.getLayout());
    for (BufferType t : {aT, bT}) {
      auto swz = dyn_cast_or_null<SwizzleAttr>(t.getLayout());
      if (!swz || swz.getBytes() != 128)
        return op.emitOpError("wgmma operands must be 128-byte swizzled");
    }
    int64_t m = cT.getShape()[0], n = cT.getShape()[1];
    int64_t k = op.getTransposeA() ? aT.getShape()[0] : aT.getShape()[1];
    int64_t numWarps = mma.getWarps()[0];
    if (mma.getWarps()[1] != 1 || m != 16 * numWarps || numWarps % 4 != 0 ||
        n % 16 != 0 || n > 256)
      return op.emitOpError("wgmma needs the accumulator layout "
                            "#tile.mma<warps = [4k, 1]> with 16 rows per "
                            "warp and N <= 256");
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    Type i64 = rewriter.getI64Type(), f32 = rewriter.getF32Type();
    bool bf16 = aT.getElementType().isBF16();
    auto elemType = bf16 ? NVVM::WGMMATypes::bf16 : NVVM::WGMMATypes::f16;

    Value tid = ix.tid();
    Value wg = ix.div(tid, 128);
    auto addrOf = [&](Value base) -> Value {
      return rewriter.create<LLVM::PtrToIntOp>(loc, i64, base);
    };
    auto descriptor = [&](Value addr, int64_t lbo) -> Value {
      Value a = rewriter.create<LLVM::AndOp>(loc, addr, ix.c(0x3FFFF));
      a = rewriter.create<LLVM::LShrOp>(loc, a, ix.c(4));
      int64_t bits = (lbo << 16) | (int64_t(64) << 32) | (int64_t(1) << 62);
      return rewriter.create<LLVM::OrOp>(loc, a, ix.c(bits));
    };
    // Byte offset of (row, k-step kk) in a K-major tile with `rows` rows.
    auto kMajor = [&](int64_t rows, int64_t kk) {
      int64_t byte = kk * 32;
      return (byte / 128) * rows * 128 + byte % 128;
    };
    Value aBase = addrOf(adaptor.getA()), bBase = addrOf(adaptor.getB());
    // This warpgroup's 64 rows of A.
    Value aRows;
    int64_t aRowsTotal = op.getTransposeA() ? aT.getShape()[0] : m;
    if (!op.getTransposeA())
      aRows = ix.mul(wg, 64 * 128); // K-major: 64 rows of 128 bytes
    else
      aRows = ix.mul(wg, aRowsTotal * 128); // MN-major: box wg along M

    auto structTy = LLVM::LLVMStructType::getLiteral(
        getContext(), SmallVector<Type>(n / 2, f32));
    Regs cRegs{adaptor.getC(), f32};
    Value acc = rewriter.create<LLVM::UndefOp>(loc, structTy);
    for (int64_t r = 0; r < n / 2; ++r)
      acc = rewriter.create<LLVM::InsertValueOp>(loc, acc, cRegs.load(ix, r),
                                                 r);
    rewriter.create<NVVM::WgmmaFenceAlignedOp>(loc);
    auto shape = NVVM::MMAShapeAttr::get(getContext(), 64, n, 16);
    for (int64_t kk = 0; kk < k / 16; ++kk) {
      Value aAddr, bAddr;
      int64_t aLbo = 1, bLbo = 1;
      if (!op.getTransposeA())
        aAddr = ix.add(ix.add(aBase, aRows), ix.c(kMajor(m, kk)));
      else
        aAddr = ix.add(ix.add(aBase, aRows), ix.c(kk * 16 * 128));
      if (op.getTransposeB()) {
        bAddr = ix.add(bBase, ix.c(kMajor(n, kk)));
      } else {
        bAddr = ix.add(bBase, ix.c(kk * 16 * 128));
        bLbo = (k * 128) >> 4; // distance of 64-wide N boxes
      }
      Value descA = descriptor(aAddr, aLbo);
      Value descB = descriptor(bAddr, bLbo);
      acc = rewriter.create<NVVM::WgmmaMmaAsyncOp>(
          loc, structTy, acc, descA, descB, shape, elemType, elemType,
          NVVM::WGMMATypes::f32, NVVM::WGMMAScaleOut::one,
          NVVM::WGMMAScaleIn::one, NVVM::WGMMAScaleIn::one,
          op.getTransposeA() ? NVVM::MMALayout::col : NVVM::MMALayout::row,
          op.getTransposeB() ? NVVM::MMALayout::col : NVVM::MMALayout::row,
          NVVM::MMAIntOverflowAttr());
    }
    rewriter.create<NVVM::WgmmaGroupSyncAlignedOp>(loc);
    // An async gemm leaves its group in flight; a tile.gemm_wait retires it.
    if (!op.getAsync())
      rewriter.create<NVVM::WgmmaWaitGroupSyncOp>(loc, 0);
    for (int64_t r = 0; r < n / 2; ++r)
      cRegs.store(ix, r, rewriter.create<LLVM::ExtractValueOp>(loc, acc, r));
    rewriter.eraseOp(op);
    return success();
  }
  LogicalResult
  matchAndRewrite(GemmOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto aT = cast<BufferType>(op.getA().getType());
    auto bT = cast<BufferType>(op.getB().getType());
    auto cT = cast<BufferType>(op.getC().getType());
    auto mma = dyn_cast_or_null<MmaLayoutAttr>(cT.getLayout());
    if (!mma)
      return op.emitOpError("accumulator needs an mma layout; run "
                            "tile-assign-layouts first");
    if (usesWgmma(op))
      return lowerWgmma(op, adaptor, rewriter);
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    int64_t m = cT.getShape()[0], n = cT.getShape()[1];
    int64_t k = op.getTransposeA() ? aT.getShape()[0] : aT.getShape()[1];
    int64_t wm = mma.getWarps()[0], wn = mma.getWarps()[1];
    int64_t bm = m / wm, bn = n / wn;
    if (bn % 16 != 0)
      return op.emitOpError("each warp's N block (")
             << bn << ") must be a multiple of 16 for ldmatrix.x4";
    bool bf16 = aT.getElementType().isBF16();
    Type i32 = rewriter.getI32Type(), f32 = rewriter.getF32Type();
    auto x4 = LLVM::LLVMStructType::getLiteral(getContext(),
                                               {i32, i32, i32, i32});
    auto acc4 =
        LLVM::LLVMStructType::getLiteral(getContext(), {f32, f32, f32, f32});

    Value tid = ix.tid();
    Value warp = ix.div(tid, 32), lane = ix.rem(tid, 32);
    Value mBase = ix.mul(ix.div(warp, wn), bm);
    Value nBase = ix.mul(ix.rem(warp, wn), bn);
    Value l8 = ix.rem(lane, 8), l16 = ix.rem(lane, 16);
    Value hi8 = ix.mul(ix.div(lane, 16), 8);           // 8 * (lane / 16)
    Value mid8 = ix.mul(ix.rem(ix.div(lane, 8), 2), 8); // 8 * ((lane/8) % 2)

    auto ldmatrix = [&](BufferType t, Value base, Value row, Value col,
                        bool trans) {
      Value ptr = ix.gep(base, rewriter.getI8Type(),
                         sharedByteOffset(ix, t, {row, col}));
      Value res = rewriter.create<NVVM::LdMatrixOp>(
          loc, x4, ptr, 4,
          trans ? NVVM::MMALayout::col : NVVM::MMALayout::row);
      SmallVector<Value, 4> out;
      for (int64_t i = 0; i < 4; ++i)
        out.push_back(rewriter.create<LLVM::ExtractValueOp>(loc, res, i));
      return out;
    };

    Regs cRegs{adaptor.getC(), f32};
    int64_t atomsM = bm / 16, atomsN = bn / 8;
    SmallVector<Value> acc;
    for (int64_t r = 0; r < atomsM * atomsN * 4; ++r)
      acc.push_back(cRegs.load(ix, r));

    std::string asmStr = std::string("mma.sync.aligned.m16n8k16.row.col.f32.") +
                         (bf16 ? "bf16.bf16" : "f16.f16") +
                         ".f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, "
                         "{$10,$11,$12,$13};";
    for (int64_t kk = 0; kk < k / 16; ++kk) {
      // A fragments: matrices (m0-7,k0-7), (m8-15,k0-7), (m0-7,k8-15),
      // (m8-15,k8-15); lanes 8i..8i+7 address matrix i.
      SmallVector<SmallVector<Value, 4>> aFrag;
      for (int64_t am = 0; am < atomsM; ++am) {
        if (!op.getTransposeA())
          aFrag.push_back(ldmatrix(aT, adaptor.getA(),
                                   ix.add(mBase, ix.add(l16, am * 16)),
                                   ix.add(hi8, kk * 16), false));
        else // A stored [K][M]: rows are k.
          aFrag.push_back(ldmatrix(aT, adaptor.getA(),
                                   ix.add(ix.add(hi8, l8), kk * 16),
                                   ix.add(mBase, ix.add(mid8, am * 16)), true));
      }
      // B fragments for two n8 atoms at a time: (k0-7,n0-7), (k8-15,n0-7),
      // (k0-7,n8-15), (k8-15,n8-15).
      SmallVector<std::array<Value, 2>> bFrag;
      for (int64_t an = 0; an < atomsN; an += 2) {
        SmallVector<Value, 4> r;
        if (!op.getTransposeB()) // B stored [K][N]: transpose on load.
          r = ldmatrix(bT, adaptor.getB(), ix.add(ix.add(l8, mid8), kk * 16),
                       ix.add(nBase, ix.add(hi8, an * 8)), true);
        else // B stored [N][K]: rows are n.
          r = ldmatrix(bT, adaptor.getB(),
                       ix.add(nBase, ix.add(ix.add(l8, hi8), an * 8)),
                       ix.add(mid8, kk * 16), false);
        bFrag.push_back({r[0], r[1]});
        bFrag.push_back({r[2], r[3]});
      }
      for (int64_t am = 0; am < atomsM; ++am)
        for (int64_t an = 0; an < atomsN; ++an) {
          int64_t base = (am * atomsN + an) * 4;
          SmallVector<Value> operands(aFrag[am].begin(), aFrag[am].end());
          operands.append({bFrag[an][0], bFrag[an][1]});
          operands.append(acc.begin() + base, acc.begin() + base + 4);
          auto asmOp = rewriter.create<LLVM::InlineAsmOp>(
              loc, acc4, operands, asmStr,
              "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3", /*has_side_effects=*/false,
              /*is_align_stack=*/false,
              LLVM::AsmDialectAttr::get(getContext(),
                                        LLVM::AsmDialect::AD_ATT),
              ArrayAttr());
          for (int64_t i = 0; i < 4; ++i)
            acc[base + i] = rewriter.create<LLVM::ExtractValueOp>(
                loc, asmOp.getRes(), i);
        }
    }
    for (auto [r, v] : llvm::enumerate(acc))
      cRegs.store(ix, r, v);
    rewriter.eraseOp(op);
    return success();
  }
};


struct TakeLowering : TilePattern<TakeOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(TakeOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcT = cast<BufferType>(op.getSource().getType());
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    GlobalView view(ix, adaptor.getSource(), srcT.getRank());
    Value offset = ix.c(0);
    for (auto [d, i] : llvm::zip(op.getDims(), adaptor.getIndices()))
      offset = ix.add(offset, ix.mul(i, view.strides[d]));
    Value ptr = ix.gep(view.ptr, srcT.getElementType(), offset);
    Type resT = getTypeConverter()->convertType(op.getType());
    Value desc = rewriter.create<LLVM::UndefOp>(loc, resT);
    desc = rewriter.create<LLVM::InsertValueOp>(loc, desc, ptr, 0);
    int64_t resRank = srcT.getRank() - op.getDims().size();
    int64_t k = 0;
    for (int64_t d = 0; d < srcT.getRank(); ++d) {
      if (llvm::is_contained(op.getDims(), d))
        continue;
      desc = rewriter.create<LLVM::InsertValueOp>(loc, desc, view.sizes[d],
                                                  k + 1);
      desc = rewriter.create<LLVM::InsertValueOp>(loc, desc, view.strides[d],
                                                  resRank + k + 1);
      ++k;
    }
    rewriter.replaceOp(op, desc);
    return success();
  }
};

struct NarrowLowering : TilePattern<NarrowOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(NarrowOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto srcT = cast<BufferType>(op.getSource().getType());
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    int64_t dim = op.getDim();
    GlobalView view(ix, adaptor.getSource(), srcT.getRank());
    Value ptr = ix.gep(view.ptr, srcT.getElementType(),
                       ix.mul(adaptor.getStart(), view.strides[dim]));
    Value desc = rewriter.create<LLVM::InsertValueOp>(loc, adaptor.getSource(),
                                                      ptr, 0);
    desc = rewriter.create<LLVM::InsertValueOp>(loc, desc, adaptor.getSize(),
                                                dim + 1);
    rewriter.replaceOp(op, desc);
    return success();
  }
};

struct LoadLowering : TilePattern<LoadOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(LoadOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<BufferType>(op.getSource().getType());
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    SmallVector<Value> coord(adaptor.getIndices());
    Value ptr;
    if (t.isShared()) {
      ptr = ix.gep(adaptor.getSource(), rewriter.getI8Type(),
                   sharedByteOffset(ix, t, coord));
    } else {
      GlobalView view(ix, adaptor.getSource(), t.getRank());
      SmallVector<Value> zeros(t.getRank(), ix.c(0));
      ptr = ix.gep(view.ptr, t.getElementType(),
                   view.linear(ix, zeros, coord));
    }
    rewriter.replaceOpWithNewOp<LLVM::LoadOp>(op, t.getElementType(), ptr);
    return success();
  }
};

/// Shared f32 [n][n] element access for the triangular inverse.
struct SquareAccess {
  BufferType type;
  Value src, dst;
  Value ptr(Idx &ix, Value base, Value r, Value c) const {
    return ix.gep(base, ix.b.getI8Type(), sharedByteOffset(ix, type, {r, c}));
  }
  Value load(Idx &ix, Value base, Value r, Value c) const {
    return ix.b.create<LLVM::LoadOp>(ix.loc, ix.b.getF32Type(),
                                     ptr(ix, base, r, c));
  }
  void store(Idx &ix, Value base, Value r, Value c, Value v) const {
    ix.b.create<LLVM::StoreOp>(ix.loc, v, ptr(ix, base, r, c));
  }
};

/// Forward substitution, one column per thread: t = e_j - L t over the rows
/// in order. Rows above j come out as exact zeros, so every thread runs the
/// same straight-line code. Used for small or odd sizes.
void lowerTrilColumns(ConversionPatternRewriter &rewriter, Location loc,
                      BufferType t, Value src, Value dst, int64_t numThreads) {
  Idx ix(rewriter, loc);
  int64_t n = t.getShape()[0];
  Type f32 = rewriter.getF32Type();
  Value tid = ix.tid();
  Value zero =
      rewriter.create<LLVM::ConstantOp>(loc, f32, rewriter.getF32FloatAttr(0));
  Value one =
      rewriter.create<LLVM::ConstantOp>(loc, f32, rewriter.getF32FloatAttr(1));
  auto elemPtr = [&](Idx &bx, Value base, int64_t i, Value j) {
    return bx.gep(base, bx.b.getI8Type(),
                  sharedByteOffset(bx, t, {bx.c(i), j}));
  };
    for (int64_t slot = 0; slot * numThreads < n; ++slot) {
      Value col = ix.add(tid, slot * numThreads);
      Value guard = (slot + 1) * numThreads > n ? ix.ult(col, ix.c(n)) : Value();
      emitGuarded(rewriter, loc, guard, [&](OpBuilder &b) {
        Idx bx(b, loc);
        // Row i: x_i = [i == col] - sum_k L_ik x_k, with the sum split
        // over four accumulators (k mod 4) combined in a fixed order, so
        // the dependent chain per row is a few operations, not i.
        SmallVector<Value> x(n);
        for (int64_t i = 0; i < n; ++i) {
          Value isDiag = b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::eq,
                                                col, bx.c(i));
          Value partial[4] = {zero, zero, zero, zero};
          // L row i in 16-byte broadcast loads (rows are 16-byte aligned
          // when n % 4 == 0).
          auto vec4 = VectorType::get({4}, f32);
          for (int64_t k0 = 0; k0 < i; k0 += 4) {
            Value l4;
            if (n % 4 == 0)
              l4 = b.create<LLVM::LoadOp>(
                  loc, vec4, elemPtr(bx, src, i, bx.c(k0)),
                  /*alignment=*/16);
            for (int64_t k = k0; k < std::min(k0 + 4, i); ++k) {
              Value l = l4 ? b.create<LLVM::ExtractElementOp>(loc, l4,
                                                              bx.c32(k - k0))
                                 .getResult()
                           : b.create<LLVM::LoadOp>(
                                 loc, f32,
                                 elemPtr(bx, src, i, bx.c(k)))
                                 .getResult();
              partial[k % 4] =
                  b.create<LLVM::FMAOp>(loc, l, x[k], partial[k % 4]);
            }
          }
          Value sum = b.create<LLVM::FAddOp>(
              loc, b.create<LLVM::FAddOp>(loc, partial[0], partial[1]),
              b.create<LLVM::FAddOp>(loc, partial[2], partial[3]));
          Value delta = b.create<LLVM::SelectOp>(loc, isDiag, one, zero);
          x[i] = b.create<LLVM::FSubOp>(loc, delta, sum);
        }
        for (int64_t i = 0; i < n; ++i)
          b.create<LLVM::StoreOp>(loc, x[i],
                                  elemPtr(bx, dst, i, col));
      });
    }
}

/// The blocked exact inverse of docs/gdn-math.md §2.3, for n = 16 * nb: the
/// nb diagonal 16x16 blocks by forward substitution (one column per thread,
/// all blocks at once), then the off-diagonal blocks by distance d from the
/// diagonal, T_ij = -T_ii (sum_{j <= k < i} L_ik T_kj), every element of a
/// level in parallel. Exact (no truncated series); fixed summation order.
void lowerTrilBlocked(ConversionPatternRewriter &rewriter, Location loc,
                      BufferType t, Value src, Value dst, int64_t numThreads) {
  Idx ix(rewriter, loc);
  int64_t n = t.getShape()[0], nb = n / 16;
  Type f32 = rewriter.getF32Type();
  Value tid = ix.tid();
  SquareAccess acc{t, src, dst};
  Value zero =
      rewriter.create<LLVM::ConstantOp>(loc, f32, rewriter.getF32FloatAttr(0));
  Value one =
      rewriter.create<LLVM::ConstantOp>(loc, f32, rewriter.getF32FloatAttr(1));

  // Diagonal blocks: thread t < n handles column t % 16 of block t / 16.
  emitGuarded(rewriter, loc, n < numThreads ? ix.ult(tid, ix.c(n)) : Value(),
              [&](OpBuilder &b) {
                Idx bx(b, loc);
                Value base = bx.mul(bx.div(tid, 16), 16);
                Value c = bx.rem(tid, 16);
                SmallVector<Value> x(16);
                for (int64_t i = 0; i < 16; ++i) {
                  Value isDiag = b.create<LLVM::ICmpOp>(
                      loc, LLVM::ICmpPredicate::eq, c, bx.c(i));
                  Value sum = zero;
                  for (int64_t k = 0; k < i; ++k)
                    sum = b.create<LLVM::FMAOp>(
                        loc,
                        acc.load(bx, src, bx.add(base, i), bx.add(base, k)),
                        x[k], sum);
                  Value delta = b.create<LLVM::SelectOp>(loc, isDiag, one, zero);
                  x[i] = b.create<LLVM::FSubOp>(loc, delta, sum);
                }
                for (int64_t i = 0; i < 16; ++i)
                  acc.store(bx, dst, bx.add(base, i), bx.add(base, c), x[i]);
              });
  // Zeros above the diagonal blocks.
  auto forBlockElements = [&](function_ref<void(Idx &, Value, Value)> fn) {
    for (int64_t s = 0; s * numThreads < 256; ++s) {
      Value e = ix.add(tid, s * numThreads);
      Value guard =
          (s + 1) * numThreads > 256 ? ix.ult(e, ix.c(256)) : Value();
      emitGuarded(rewriter, loc, guard, [&](OpBuilder &b) {
        Idx bx(b, loc);
        fn(bx, bx.div(e, 16), bx.rem(e, 16));
      });
    }
  };
  for (int64_t bi = 0; bi < nb; ++bi)
    for (int64_t bj = bi + 1; bj < nb; ++bj)
      forBlockElements([&](Idx &bx, Value r, Value c) {
        acc.store(bx, dst, bx.add(r, bi * 16), bx.add(c, bj * 16), zero);
      });
  rewriter.create<NVVM::Barrier0Op>(loc);

  for (int64_t d = 1; d < nb; ++d) {
    // Y_ij = sum_{16j <= q < 16i} L[16i + r][q] T[q][16j + c], written into
    // the (still unused) block (i, j) of the result.
    for (int64_t j = 0; j + d < nb; ++j) {
      int64_t i = j + d;
      forBlockElements([&](Idx &bx, Value r, Value c) {
        Value row = bx.add(r, i * 16), col = bx.add(c, j * 16);
        Value sum = zero;
        for (int64_t q = 16 * j; q < 16 * i; ++q)
          sum = bx.b.create<LLVM::FMAOp>(loc, acc.load(bx, src, row, bx.c(q)),
                                         acc.load(bx, dst, bx.c(q), col), sum);
        acc.store(bx, dst, row, col, sum);
      });
    }
    rewriter.create<NVVM::Barrier0Op>(loc);
    // T_ij = -T_ii Y_ij, read completely before any of it is overwritten.
    SmallVector<Value> results;
    SmallVector<std::pair<Value, Value>> where;
    for (int64_t j = 0; j + d < nb; ++j) {
      int64_t i = j + d;
      for (int64_t s = 0; s * numThreads < 256; ++s) {
        Value e = ix.add(tid, s * numThreads);
        // Threads past the block compute on element 0 (in bounds) and do
        // not store.
        Value inBlock =
            (s + 1) * numThreads > 256 ? ix.ult(e, ix.c(256)) : Value();
        Value ee = inBlock ? rewriter.create<LLVM::SelectOp>(loc, inBlock, e,
                                                             ix.c(0))
                                 .getResult()
                           : e;
        Value row = ix.add(ix.div(ee, 16), i * 16);
        Value col = ix.add(ix.rem(ee, 16), j * 16);
        Value sum = zero;
        for (int64_t m = 0; m < 16; ++m)
          sum = rewriter.create<LLVM::FMAOp>(
              loc, acc.load(ix, dst, row, ix.c(i * 16 + m)),
              acc.load(ix, dst, ix.c(i * 16 + m), col), sum);
        results.push_back(rewriter.create<LLVM::FNegOp>(loc, sum));
        where.push_back({row, col});
        (void)inBlock;
      }
    }
    rewriter.create<NVVM::Barrier0Op>(loc);
    size_t k = 0;
    for (int64_t j = 0; j + d < nb; ++j)
      for (int64_t s = 0; s * numThreads < 256; ++s, ++k) {
        Value e = ix.add(tid, s * numThreads);
        Value guard =
            (s + 1) * numThreads > 256 ? ix.ult(e, ix.c(256)) : Value();
        emitGuarded(rewriter, loc, guard, [&](OpBuilder &b) {
          Idx bx(b, loc);
          acc.store(bx, dst, where[k].first, where[k].second, results[k]);
        });
      }
    if (d + 1 < nb)
      rewriter.create<NVVM::Barrier0Op>(loc);
  }
}

struct TrilInverseLowering : TilePattern<TrilInverseOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(TrilInverseOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto t = cast<BufferType>(op.getSource().getType());
    int64_t n = t.getShape()[0];
    int64_t numThreads = numThreadsOf(op);
    if (n % 16 == 0 && n >= 32 && n <= numThreads)
      lowerTrilBlocked(rewriter, op.getLoc(), t, adaptor.getSource(),
                       adaptor.getDest(), numThreads);
    else
      lowerTrilColumns(rewriter, op.getLoc(), t, adaptor.getSource(),
                       adaptor.getDest(), numThreads);
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.map -> the body, once per register.
struct MapLowering : TilePattern<MapOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(MapOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    auto outT = cast<BufferType>(op.getOutputs()[0].getType());
    for (Value v : op->getOperands())
      if (cast<BufferType>(v.getType()).getLayout() != outT.getLayout())
        return op.emitOpError("operands must share one layout; run "
                              "tile-assign-layouts first");
    if (!outT.getLayout())
      return op.emitOpError("fragments have no layout; run "
                            "tile-assign-layouts first");
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    int64_t numThreads = numThreadsOf(op);
    Block &body = op.getBody().front();
    size_t numIdx = op.getIndexed() ? outT.getRank() : 0;
    // Coordinates of each register (for indexed bodies).
    int64_t n = fragmentRegs(outT, numThreads);
    SmallVector<SmallVector<Value>> coords(n);
    if (numIdx) {
      Value tid = ix.tid();
      for (Run &run : fragmentRuns(ix, outT, numThreads, tid)) {
        // Slots a thread does not own compute on coordinate 0 (in bounds).
        if (run.guard)
          for (Value &c : run.coord)
            c = rewriter.create<LLVM::SelectOp>(loc, run.guard, c, ix.c(0));
        for (int64_t i = 0; i < run.len; ++i) {
          coords[run.reg + i] = run.coord;
          coords[run.reg + i].back() = ix.add(run.coord.back(), i);
        }
      }
    }
    Type indexType = rewriter.getIndexType();
    for (int64_t r = 0; r < n; ++r) {
      IRMapping mapping;
      for (size_t d = 0; d < numIdx; ++d)
        mapping.map(body.getArgument(d),
                    rewriter
                        .create<UnrealizedConversionCastOp>(
                            loc, indexType, coords[r][d])
                        .getResult(0));
      for (auto [arg, in, inT] :
           llvm::zip(body.getArguments().drop_front(numIdx),
                     adaptor.getInputs(), op.getInputs().getTypes()))
        mapping.map(arg, Regs{in, cast<BufferType>(inT).getElementType()}
                             .load(ix, r));
      for (Operation &inner : body.without_terminator())
        rewriter.clone(inner, mapping);
      auto yield = cast<YieldOp>(body.getTerminator());
      for (auto [v, out, outTy] :
           llvm::zip(yield.getValues(), adaptor.getOutputs(),
                     op.getOutputs().getTypes()))
        Regs{out, cast<BufferType>(outTy).getElementType()}.store(
            ix, r, mapping.lookupOrDefault(v));
    }
    rewriter.eraseOp(op);
    return success();
  }
};

/// tile.reduce through its shared scratch: every thread writes its
/// registers, then each destination element is combined serially in
/// index order (deterministic).
struct ReduceLowering : TilePattern<ReduceOp> {
  using TilePattern::TilePattern;
  LogicalResult
  matchAndRewrite(ReduceOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getScratch())
      return op.emitOpError("has no scratch buffer; run tile-assign-layouts "
                            "first");
    auto srcT = cast<BufferType>(op.getSource().getType());
    auto dstT = cast<BufferType>(op.getDest().getType());
    auto scratchT = cast<BufferType>(op.getScratch().getType());
    if (!srcT.getLayout() || !dstT.getLayout())
      return op.emitOpError("fragments have no layout; run "
                            "tile-assign-layouts first");
    Location loc = op.getLoc();
    Idx ix(rewriter, loc);
    Type f32 = rewriter.getF32Type();
    int64_t numThreads = numThreadsOf(op);
    Value tid = ix.tid();
    Value scratch = adaptor.getScratch();
    Regs src{adaptor.getSource(), f32}, dst{adaptor.getDest(), f32};
    for (Run &run : fragmentRuns(ix, srcT, numThreads, tid))
      emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
        Idx bx(b, loc);
        for (int64_t i = 0; i < run.len; ++i) {
          SmallVector<Value> coord(run.coord);
          coord.back() = bx.add(coord.back(), i);
          Value ptr = bx.gep(scratch, b.getI8Type(),
                             sharedByteOffset(bx, scratchT, coord));
          b.create<LLVM::StoreOp>(loc, src.load(bx, run.reg + i), ptr);
        }
      });
    rewriter.create<NVVM::Barrier0Op>(loc);
    int64_t len = srcT.getShape()[op.getDim()];
    auto combine = [&](OpBuilder &b, Value x, Value y) -> Value {
      switch (op.getKind()) {
      case ReduceKind::Add:
        return b.create<LLVM::FAddOp>(loc, x, y);
      case ReduceKind::Max:
        return b.create<LLVM::MaxNumOp>(loc, x, y);
      case ReduceKind::Min:
        return b.create<LLVM::MinNumOp>(loc, x, y);
      }
      llvm_unreachable("unknown reduction");
    };
    for (Run &run : fragmentRuns(ix, dstT, numThreads, tid))
      emitGuarded(rewriter, loc, run.guard, [&](OpBuilder &b) {
        Idx bx(b, loc);
        for (int64_t i = 0; i < run.len; ++i) {
          Value p = bx.add(run.coord[0], i);
          Value accum;
          for (int64_t j = 0; j < len; ++j) {
            SmallVector<Value> coord = op.getDim() == 1
                                           ? SmallVector<Value>{p, bx.c(j)}
                                           : SmallVector<Value>{bx.c(j), p};
            Value ptr = bx.gep(scratch, b.getI8Type(),
                               sharedByteOffset(bx, scratchT, coord));
            Value v = b.create<LLVM::LoadOp>(loc, f32, ptr);
            accum = accum ? combine(b, accum, v) : v;
          }
          dst.store(bx, run.reg + i, accum);
        }
      });
    rewriter.create<NVVM::Barrier0Op>(loc);
    rewriter.eraseOp(op);
    return success();
  }
};

/// math.exp -> ex2.approx.ftz(x * log2(e)), the fast path FLA also takes.
struct ExpLowering : ConvertOpToLLVMPattern<math::ExpOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult
  matchAndRewrite(math::ExpOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    if (!op.getType().isF32())
      return rewriter.notifyMatchFailure(op, "only f32");
    Location loc = op.getLoc();
    Value log2e = rewriter.create<LLVM::ConstantOp>(
        loc, rewriter.getF32Type(), rewriter.getF32FloatAttr(1.4426950408889634f));
    Value x = rewriter.create<LLVM::FMulOp>(loc, adaptor.getOperand(), log2e);
    rewriter.replaceOpWithNewOp<LLVM::CallIntrinsicOp>(
        op, rewriter.getF32Type(), "llvm.nvvm.ex2.approx.ftz.f", ValueRange{x});
    return success();
  }
};

//===----------------------------------------------------------------------===//
// The pass
//===----------------------------------------------------------------------===//

/// The type of a kernel parameter as written in a launch manifest.
std::string manifestType(Type t) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (auto p = dyn_cast<PtrType>(t))
    os << "ptr<" << p.getElementType() << ">";
  else if (isa<TensorMapType>(t))
    os << "tensormap";
  else if (isa<IndexType>(t))
    os << "i64";
  else
    os << t;
  return s;
}

struct ConvertTileToNVVMPass
    : impl::ConvertTileToNVVMBase<ConvertTileToNVVMPass> {
  using ConvertTileToNVVMBase::ConvertTileToNVVMBase;
  void runOnOperation() override;
};

void ConvertTileToNVVMPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();
  SmallVector<func::FuncOp> kernels;
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(TileDialect::getKernelAttrName()))
      kernels.push_back(func);
  if (kernels.empty())
    return;

  // Record the launch interface before the types are gone.
  std::string moduleName =
      module.getSymName() ? module.getSymName()->str() : "kernels";
  SmallVector<NamedAttribute> kernelInfos;
  if (auto existing = module->getAttrOfType<DictionaryAttr>(kKernelsAttrName))
    llvm::append_range(kernelInfos, existing.getValue());
  Builder b(ctx);
  for (func::FuncOp func : kernels) {
    if (!func->hasAttr(TileDialect::getSharedMemoryBytesAttrName()))
      for (AllocOp alloc : func.getOps<AllocOp>())
        if (cast<BufferType>(alloc.getType()).isShared()) {
          alloc.emitOpError("kernel uses shared memory but has no plan; run "
                            "tile-plan-shared-memory first");
          return signalPassFailure();
        }
    SmallVector<Attribute> params;
    SmallVector<NamedAttribute> tensorMaps;
    for (auto [i, t] : llvm::enumerate(func.getArgumentTypes())) {
      std::string name = "arg" + std::to_string(i);
      if (auto n = func.getArgAttrOfType<StringAttr>(
              i, TileDialect::getArgNameAttrName()))
        name = n.str();
      params.push_back(b.getStringAttr(name + ":" + manifestType(t)));
      if (auto map = dyn_cast<TensorMapType>(t)) {
        auto recipe = func.getArgAttrOfType<DictionaryAttr>(
            i, TileDialect::getTensorMapAttrName());
        if (!recipe) {
          func.emitOpError("tensor map argument ")
              << i << " has no " << TileDialect::getTensorMapAttrName();
          return signalPassFailure();
        }
        SmallVector<NamedAttribute> entry(recipe.getValue());
        entry.push_back(b.getNamedAttr("box", b.getI64ArrayAttr(map.getShape())));
        entry.push_back(
            b.getNamedAttr("swizzle", b.getI64IntegerAttr(map.getSwizzle())));
        tensorMaps.push_back(b.getNamedAttr(name, b.getDictionaryAttr(entry)));
      }
    }
    int64_t smem = 0;
    if (auto s = func->getAttrOfType<IntegerAttr>(
            TileDialect::getSharedMemoryBytesAttrName()))
      smem = s.getInt();
    SmallVector<NamedAttribute> info{
        b.getNamedAttr("module", b.getStringAttr(moduleName)),
        b.getNamedAttr("params", b.getArrayAttr(params)),
        b.getNamedAttr("block", b.getI64ArrayAttr({blockThreadsOf(func), 1, 1})),
        b.getNamedAttr("shared_bytes", b.getI64IntegerAttr(smem))};
    if (!tensorMaps.empty())
      info.push_back(
          b.getNamedAttr("tensormaps", b.getDictionaryAttr(tensorMaps)));
    if (auto meta = func->getAttrOfType<DictionaryAttr>(
            TileDialect::getMetaAttrName()))
      info.push_back(b.getNamedAttr("meta", meta));
    kernelInfos.push_back(
        b.getNamedAttr(func.getName(), b.getDictionaryAttr(info)));
  }
  module->setAttr(kKernelsAttrName, b.getDictionaryAttr(kernelInfos));
  module->setAttr(gpu::GPUDialect::getContainerModuleAttrName(),
                  b.getUnitAttr());

  // Move the kernels into a gpu.module with the shared-memory array.
  OpBuilder ob(module.getBodyRegion());
  ob.setInsertionPointToEnd(module.getBody());
  auto gpuModule = ob.create<gpu::GPUModuleOp>(module.getLoc(), moduleName);
  OpBuilder gb = OpBuilder::atBlockBegin(gpuModule.getBody());
  auto smemType = LLVM::LLVMArrayType::get(IntegerType::get(ctx, 8), 0);
  gb.create<LLVM::GlobalOp>(module.getLoc(), smemType, /*isConstant=*/false,
                            LLVM::Linkage::External, kSharedMemorySymbol,
                            Attribute(), /*alignment=*/1024, /*addrSpace=*/3);
  for (func::FuncOp func : kernels)
    func->moveBefore(gpuModule.getBody()->getTerminator());

  LowerToLLVMOptions options(ctx);
  LLVMTypeConverter converter(ctx, options);
  populateTileTypeConversions(converter);
  RewritePatternSet patterns(ctx);
  populateTileToNVVMConversionPatterns(converter, patterns);
  arith::populateArithToLLVMConversionPatterns(converter, patterns);
  index::populateIndexToLLVMConversionPatterns(converter, patterns);
  populateMathToLLVMConversionPatterns(converter, patterns);
  populateSCFToControlFlowConversionPatterns(patterns);
  cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);

  ConversionTarget target(*ctx);
  target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
  target.addLegalOp<gpu::GPUModuleOp, gpu::ModuleEndOp, UnrealizedConversionCastOp>();
  if (failed(applyFullConversion(gpuModule, target, std::move(patterns))))
    return signalPassFailure();
  gpuModule.walk([&](LLVM::LLVMFuncOp f) {
    f->removeAttr(TileDialect::getMmaEngineAttrName());
  });
  numKernels += kernels.size();
  gpuModule.walk([&](LLVM::InlineAsmOp op) {
    if (op.getAsmString().starts_with("mma.sync"))
      ++numMma;
  });
}

} // namespace

void populateTileTypeConversions(LLVMTypeConverter &converter) {
  MLIRContext *ctx = &converter.getContext();
  converter.addConversion([ctx](PtrType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, 1);
  });
  converter.addConversion([ctx](BufferType t) -> Type {
    switch (t.getMemorySpace()) {
    case MemorySpace::Global: {
      // {base, sizes..., strides...}
      SmallVector<Type> fields{LLVM::LLVMPointerType::get(ctx, 1)};
      fields.append(2 * t.getRank(), IntegerType::get(ctx, 64));
      return LLVM::LLVMStructType::getLiteral(ctx, fields);
    }
    case MemorySpace::Shared:
      return LLVM::LLVMPointerType::get(ctx, 3);
    case MemorySpace::Fragment:
      return LLVM::LLVMPointerType::get(ctx);
    }
    llvm_unreachable("unknown memory space");
  });
}

void populateTileToNVVMConversionPatterns(LLVMTypeConverter &converter,
                                          RewritePatternSet &patterns) {
  patterns.add<KernelFuncLowering, ReturnLowering, ProgramIdLowering,
               ViewLowering, AllocLowering, SliceLowering, BarrierLowering,
               AsyncCommitLowering, AsyncWaitLowering, FillLowering,
               CopyLowering, AsyncCopyLowering, GemmLowering, MapLowering,
               ReduceLowering, TakeLowering, NarrowLowering, LoadLowering,
               TrilInverseLowering>(converter);
  populateTileHopperToNVVMConversionPatterns(converter, patterns);
  // Preferred over MathToLLVM's llvm.intr.exp, which NVPTX cannot select.
  patterns.add<ExpLowering>(converter, /*benefit=*/2);
}

} // namespace mlir::gdn
