//===- TileToNVVM.cpp - lower tile kernels to NVVM/LLVM --------------------===//
//
// The conversion of the tile dialect to the LLVM and NVVM dialects: the pass,
// the type conversion and the pattern set. The patterns live in one file per
// op family (Patterns.h); layouts decide the per-thread code: every fragment
// register and every copy vector has a (thread, index) -> coordinate formula
// (LayoutUtils.h), emitted as i64 arithmetic on the thread id that LLVM
// folds per register. See Passes.td for the overview.
//
//===----------------------------------------------------------------------===//

#include "gdn/Conversion/TileToNVVM/TileToNVVM.h"
#include "Patterns.h"
#include "gdn/Conversion/Passes.h"
#include "gdn/Dialect/Tile/IR/TileOps.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Dominance.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::gdn {
#define GEN_PASS_DEF_CONVERTTILETONVVM
#include "gdn/Conversion/Passes.h.inc"

namespace {
using namespace mlir::gdn::tile;

struct ConvertTileToNVVMPass
    : impl::ConvertTileToNVVMBase<ConvertTileToNVVMPass> {
  using ConvertTileToNVVMBase::ConvertTileToNVVMBase;
  void runOnOperation() override;
};

bool isTileKernel(Operation &op) {
  auto func = dyn_cast<func::FuncOp>(op);
  return func && func->hasAttr(TileDialect::getKernelAttrName());
}

/// The name of the LLVM loop annotation attribute, on `llvm.br` /
/// `llvm.cond_br` and, before the conversion, on `scf.for`.
constexpr llvm::StringLiteral kLoopAnnotation =
    TileDialect::getLoopAnnotationAttrName();
constexpr llvm::StringLiteral kLoopMarker = "gdn.loop_body_marker";

/// An `scf.for` that carries an LLVM loop annotation (for example
/// `#llvm.loop_annotation<licm = <disable = true>>`: keep the per-thread
/// address arithmetic of a large loop body in the body, where the kernel
/// recomputes it per iteration, instead of hoisting all of it in front of
/// the loop and holding it in registers throughout) gets a marker at the
/// top of its body; after the conversion, the branch that closes the loop
/// (a back edge to a block that dominates the marker, from a block the
/// marker dominates) takes the annotation, as LLVM expects it on the latch.
/// Loops of the module's tile kernels only (the functions it converts).
SmallVector<std::pair<Operation *, LLVM::LoopAnnotationAttr>>
markAnnotatedLoops(gpu::GPUModuleOp gpuModule) {
  SmallVector<std::pair<Operation *, LLVM::LoopAnnotationAttr>> marks;
  for (Operation &op : gpuModule.getBody()->getOperations()) {
    if (!isTileKernel(op))
      continue;
    op.walk([&](scf::ForOp forOp) {
      auto annotation =
          forOp->getAttrOfType<LLVM::LoopAnnotationAttr>(kLoopAnnotation);
      if (!annotation)
        return;
      OpBuilder b = OpBuilder::atBlockBegin(forOp.getBody());
      Operation *marker = b.create<LLVM::ConstantOp>(
          forOp.getLoc(), b.getI32Type(), b.getI32IntegerAttr(0));
      marker->setAttr(kLoopMarker, b.getUnitAttr());
      marks.push_back({marker, annotation});
    });
  }
  return marks;
}

LogicalResult annotateLatches(
    ArrayRef<std::pair<Operation *, LLVM::LoopAnnotationAttr>> marks) {
  for (auto [marker, annotation] : marks) {
    auto func = marker->getParentOfType<LLVM::LLVMFuncOp>();
    Block *top = marker->getBlock();
    DominanceInfo dom(func);
    int latches = 0;
    func.walk([&](Operation *op) {
      if (!isa<LLVM::BrOp, LLVM::CondBrOp>(op))
        return;
      Block *from = op->getBlock();
      for (Block *to : op->getSuccessors())
        if (dom.dominates(to, from) && dom.dominates(to, top) &&
            dom.dominates(top, from)) {
          op->setAttr(kLoopAnnotation, annotation);
          ++latches;
          break;
        }
    });
    if (latches != 1)
      return marker->emitError("convert-tile-to-nvvm: found ")
             << latches << " latches for an annotated scf.for, expected 1";
    marker->erase();
  }
  return success();
}

/// Replaces each (converted) producer task by its blocks: the block around
/// it branches into the body, whose end branches to the rest of that block.
/// Where the kernel has more producer warps than the task (task groups:
/// tile-warp-specialize), only the task's warpgroup enters the body
/// (`tid.x - thread_base < threads`, unsigned: uniform per warpgroup).
void inlineProducerTasks(gpu::GPUModuleOp gpuModule) {
  SmallVector<ProducerTaskOp> tasks;
  gpuModule.walk([&](ProducerTaskOp task) { tasks.push_back(task); });
  for (ProducerTaskOp task : tasks) {
    int64_t threads = 32 * task.getNumWarps();
    int64_t producerThreads = 0;
    if (auto kernel = task->getParentOfType<LLVM::LLVMFuncOp>())
      if (auto warps = kernel->getAttrOfType<IntegerAttr>(
              TileDialect::getProducerWarpsAttrName()))
        producerThreads = 32 * warps.getInt();
    Block *before = task->getBlock();
    Block *after = before->splitBlock(std::next(task->getIterator()));
    Region &body = task.getBody();
    Block *entry = &body.front();
    for (Block &b : body)
      if (auto end = dyn_cast<ProducerTaskEndOp>(b.getTerminator())) {
        OpBuilder(end).create<LLVM::BrOp>(end.getLoc(), ValueRange{}, after);
        end.erase();
      }
    after->getParent()->getBlocks().splice(after->getIterator(),
                                           body.getBlocks());
    OpBuilder b(task);
    Location loc = task.getLoc();
    if (producerThreads > threads) {
      Type i32 = b.getI32Type();
      Value tid = b.create<NVVM::ThreadIdXOp>(loc, i32);
      Value base = b.create<LLVM::ConstantOp>(
          loc, i32, b.getI32IntegerAttr(*task.getThreadBase()));
      Value rel = b.create<LLVM::SubOp>(loc, tid, base);
      Value count =
          b.create<LLVM::ConstantOp>(loc, i32, b.getI32IntegerAttr(threads));
      Value mine =
          b.create<LLVM::ICmpOp>(loc, LLVM::ICmpPredicate::ult, rel, count);
      b.create<LLVM::CondBrOp>(loc, mine, entry, after);
    } else {
      b.create<LLVM::BrOp>(loc, ValueRange{}, entry);
    }
    task.erase();
  }
}

void ConvertTileToNVVMPass::runOnOperation() {
  ModuleOp module = getOperation();
  MLIRContext *ctx = &getContext();

  // Kernels are converted where tile-outline-kernels put them.
  for (func::FuncOp func : module.getOps<func::FuncOp>())
    if (isTileKernel(*func)) {
      func.emitOpError("is a tile kernel outside a gpu.module; run "
                       "tile-outline-kernels first");
      return signalPassFailure();
    }
  SmallVector<gpu::GPUModuleOp> gpuModules;
  for (auto gpuModule : module.getOps<gpu::GPUModuleOp>())
    if (llvm::any_of(gpuModule.getBody()->getOperations(), isTileKernel))
      gpuModules.push_back(gpuModule);

  ConversionTarget target(*ctx);
  target.addLegalDialect<LLVM::LLVMDialect, NVVM::NVVMDialect>();
  target.addLegalOp<gpu::GPUModuleOp, gpu::ModuleEndOp,
                    UnrealizedConversionCastOp>();
  // A producer task stays until its body is converted (the patterns number
  // its threads from its thread base), then inlineProducerTasks replaces it
  // by its blocks.
  target.addLegalOp<ProducerTaskOp, ProducerTaskEndOp>();
  for (gpu::GPUModuleOp gpuModule : gpuModules) {
    // The index type is the gpu.module's (its data layout; i64 unless
    // tile-outline-kernels was asked for 32-bit indices), as upstream's
    // convert-gpu-to-nvvm derives it.
    LowerToLLVMOptions options(
        ctx, DataLayout(cast<DataLayoutOpInterface>(gpuModule.getOperation())));
    LLVMTypeConverter converter(ctx, options);
    populateTileTypeConversions(converter);
    RewritePatternSet patterns(ctx);
    populateTileToNVVMConversionPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    populateMathToLLVMConversionPatterns(converter, patterns);
    populateSCFToControlFlowConversionPatterns(patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    FrozenRewritePatternSet frozen(std::move(patterns));

    int64_t kernels =
        llvm::count_if(gpuModule.getBody()->getOperations(), isTileKernel);
    WalkResult unplaced = gpuModule.walk([](ProducerTaskOp task) {
      if (task.getThreadBase())
        return WalkResult::advance();
      task.emitOpError("has no thread base; run tile-warp-specialize first");
      return WalkResult::interrupt();
    });
    if (unplaced.wasInterrupted())
      return signalPassFailure();
    auto marks = markAnnotatedLoops(gpuModule);
    if (failed(applyFullConversion(gpuModule, target, frozen)))
      return signalPassFailure();
    inlineProducerTasks(gpuModule);
    if (failed(annotateLatches(marks)))
      return signalPassFailure();
    numKernels += kernels;
    gpuModule.walk([&](LLVM::LLVMFuncOp f) {
      f->removeAttr(TileDialect::getMmaEngineAttrName());
      f->removeAttr(TileDialect::getNumWarpsAttrName());
      f->removeAttr(TileDialect::getProducerWarpsAttrName());
    });
    gpuModule.walk([&](LLVM::InlineAsmOp op) {
      if (op.getAsmString().starts_with("mma.sync"))
        ++numMma;
    });
  }
}

} // namespace

void populateTileTypeConversions(LLVMTypeConverter &converter) {
  MLIRContext *ctx = &converter.getContext();
  converter.addConversion([ctx](PtrType) -> Type {
    return LLVM::LLVMPointerType::get(ctx, 1);
  });
  // The address of the by-value __grid_constant__ parameter.
  converter.addConversion([ctx](TensorMapType) -> Type {
    return LLVM::LLVMPointerType::get(ctx);
  });
  converter.addConversion([ctx, &converter](BufferType t) -> Type {
    switch (t.getMemorySpace()) {
    case MemorySpace::Global: {
      // {base, sizes..., strides...}
      SmallVector<Type> fields{LLVM::LLVMPointerType::get(ctx, 1)};
      fields.append(2 * t.getRank(), converter.getIndexType());
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
  populateKernelToNVVMPatterns(converter, patterns);
  populateCopyToNVVMPatterns(converter, patterns);
  populateSyncToNVVMPatterns(converter, patterns);
  populateElementwiseToNVVMPatterns(converter, patterns);
  populateGemmMmaSyncToNVVMPatterns(converter, patterns);
  populateGemmWgmmaToNVVMPatterns(converter, patterns);
  populateTrilInverseToNVVMPatterns(converter, patterns);
  populateHopperToNVVMPatterns(converter, patterns);
}

} // namespace mlir::gdn
