//===- InitAll.cpp - register gdn dialects and passes ----------------------===//
//
// One registration function for every gdn tool (torch-mlir style). It
// registers only what gdn uses, which keeps gdn-opt small and fast to link.
//
//===----------------------------------------------------------------------===//

#include "gdn/InitAll.h"
#include "gdn/Conversion/Passes.h"
#include "gdn/Dialect/Tile/IR/TileOps.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"
#include "gdn/Pipelines/Pipelines.h"
#include "gdn/Target/PTX/Passes.h"

#include "mlir/Conversion/Passes.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/Extensions/InlinerExtension.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Dialect/Index/IR/IndexDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Target/LLVM/NVVM/Target.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/GPU/GPUToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/NVVM/NVVMToLLVMIRTranslation.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::gdn {

void registerAllDialects(DialectRegistry &registry) {
  registry.insert<tile::TileDialect, func::FuncDialect, arith::ArithDialect,
                  math::MathDialect, scf::SCFDialect, cf::ControlFlowDialect,
                  index::IndexDialect, gpu::GPUDialect, LLVM::LLVMDialect,
                  NVVM::NVVMDialect>();
  // `inline` specializes kernels written as calls of a shared body.
  func::registerInlinerExtension(registry);
  // gpu-module-to-binary translates to LLVM IR and serializes with NVPTX.
  NVVM::registerNVVMTargetInterfaceExternalModels(registry);
  registerBuiltinDialectTranslation(registry);
  registerGPUDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  registerNVVMDialectTranslation(registry);
}

void registerAllPasses() {
  tile::registerTilePasses();
  registerGdnConversionPasses();
  registerGdnTargetPasses();
  registerGdnPipelines();
  // Upstream passes that gdn's pipeline uses or that are handy with it.
  registerTransformsPasses();
  arith::registerArithExpandOpsPass();
  registerConvertNVVMToLLVMPass();
  registerReconcileUnrealizedCastsPass();
  registerSCFToControlFlowPass();
  registerArithToLLVMConversionPass();
  registerConvertControlFlowToLLVMPass();
  registerGPUPasses();
}

} // namespace mlir::gdn
