//===- KernelToNVVM.cpp - kernel functions and allocation to NVVM ----------===//
//
// The scaffolding of a kernel: tile.kernel functions become nvvm.kernel
// llvm.funcs (launch bounds from tile.num_warps, register limit from
// tile.max_registers, the grid-dependency wait of tile.grid_dependency at
// entry), tile.program_id reads the block index, shared
// tile.allocs are addresses in the dynamic shared-memory array, fragments
// are register arrays in the entry block and tile.slice steps through a
// multi-buffered shared buffer.
//
//===----------------------------------------------------------------------===//

#include "LoweringUtils.h"
#include "Patterns.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::gdn {
namespace {
using namespace mlir::gdn::tile;

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
    // The ops' lowerings still ask for these (numThreadsOf, usesWgmma:
    // the compute threads, not the producer's); removed after conversion.
    for (StringRef name : {TileDialect::getMmaEngineAttrName(),
                           TileDialect::getNumWarpsAttrName(),
                           TileDialect::getProducerWarpsAttrName()})
      if (Attribute a = func->getAttr(name))
        llvmFunc->setAttr(name, a);
    if (auto regs = func->getAttrOfType<IntegerAttr>(
            TileDialect::getMaxRegistersAttrName()))
      llvmFunc->setAttr(NVVM::NVVMDialect::getMaxnregAttrName(),
                        rewriter.getI32IntegerAttr(regs.getInt()));
    // "flags": the kernel starts beside its predecessor and reads what that
    // one writes only after a ready flag says it is there; "wait_and_flags"
    // waits for its predecessor's grid and, through flags, for an earlier
    // kernel that may still run.
    Attribute dep = func->getAttr(TileDialect::getGridDependencyAttrName());
    const int mode = TileDialect::getGridDependencyMode(dep);
    // "deferred": the kernel waits where its tile.grid_wait ops are, and
    // must have one. A kernel that waits at entry (the unit attribute,
    // "wait_and_flags") may have them too (a second wait returns at once:
    // e.g. a deferred kernel's body reused with the unit attribute); one
    // launched without programmatic dependence, or with "flags" (beside a
    // predecessor it must not wait for), may not.
    const bool deferred = TileDialect::isDeferredGridDependency(dep);
    GridWaitOp gridWait;
    func.walk([&](GridWaitOp op) {
      gridWait = op;
      return WalkResult::interrupt();
    });
    if (deferred && !gridWait)
      return func.emitError()
             << "tile.grid_dependency = \"deferred\" lets the kernel's "
                "successor launch before it waits, but it has no "
                "tile.grid_wait: it would never wait for its predecessor";
    if (gridWait && (mode == 0 || mode == 2)) {
      gridWait.emitOpError()
          << "needs a kernel launched as a programmatic dependent that may "
             "wait for its predecessor (tile.grid_dependency unit, "
             "\"wait_and_flags\" or \"deferred\"), not "
          << (mode == 0 ? "one without tile.grid_dependency"
                        : "tile.grid_dependency = \"flags\"");
      return failure();
    }
    bool early = mode == 2 || deferred;
    if (mode >= 2 &&
        !func.walk([](FlagWaitOp) { return WalkResult::interrupt(); })
             .wasInterrupted())
      return func.emitError()
             << "tile.grid_dependency = " << dep
             << (early ? " launches the kernel before its predecessor "
                         "completes, but it has no tile.flag_wait to wait "
                         "for that one's data"
                       : " reads an earlier kernel's data through ready "
                         "flags, but it has no tile.flag_wait");
    rewriter.inlineRegionBefore(func.getBody(), llvmFunc.getBody(),
                                llvmFunc.end());
    if (failed(rewriter.convertRegionTypes(&llvmFunc.getBody(),
                                           *getTypeConverter(), &sig)))
      return failure();
    // Programmatic dependent launch: before anything else the kernel waits
    // for its stream predecessor's grid (complete, memory visible), so no
    // access of it can race that kernel, then allows its own successor to
    // launch; the memory clobber keeps LLVM from hoisting loads above it.
    // With "flags" or "deferred" it only allows its successor to launch
    // ("wait_and_flags" does both, as the unit attribute).
    if (dep) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(&llvmFunc.getBody().front());
      emitInlineAsm(rewriter, func.getLoc(),
                    LLVM::LLVMVoidType::get(getContext()), {},
                    early ? "griddepcontrol.launch_dependents;"
                          : "griddepcontrol.wait;\n\t"
                            "griddepcontrol.launch_dependents;",
                    "~{memory}", /*hasSideEffects=*/true);
    }
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
    rewriter.replaceOp(op, Idx(rewriter, op.getLoc()).toIndex(id));
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
    // One leading index steps over a whole (padded) result buffer.
    int64_t bytes = res.getElementBytes();
    for (int64_t d : res.getStorageShape())
      bytes *= d;
    rewriter.replaceOp(op, ix.gep(adaptor.getSource(), rewriter.getI8Type(),
                                  ix.mul(adaptor.getIndex(), bytes)));
    return success();
  }
};

} // namespace

void populateKernelToNVVMPatterns(LLVMTypeConverter &converter,
                                  RewritePatternSet &patterns) {
  patterns.add<KernelFuncLowering, ReturnLowering, ProgramIdLowering,
               AllocLowering, SliceLowering>(converter);
}

} // namespace mlir::gdn
