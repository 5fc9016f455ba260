//===- Pipelines.cpp - named pass pipelines --------------------------------===//

#include "gdn/Pipelines/Pipelines.h"
#include "gdn/Conversion/Passes.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"
#include "gdn/Target/PTX/Passes.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::gdn {

void buildLowerToPTXPipeline(OpPassManager &pm,
                             const LowerToPTXOptions &options) {
  // Kernels may share a body written as a private function: inline it into
  // each entry point (the inliner drops the then-dead callee), and fold the
  // entry's constant mode flags so that each kernel keeps only its branches
  // before any tile pass sees it.
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createCanonicalizerPass());
  fpm.addPass(tile::createTileExpandTrilInverse());
  fpm.addPass(tile::createTileAssignLayouts());
  fpm.addPass(tile::createTilePipeline());
  fpm.addPass(createCanonicalizerPass());
  fpm.addPass(tile::createTilePlanSharedMemory());
  fpm.addPass(tile::createTileInsertBarriers());
  fpm.addPass(tile::createTileWarpSpecialize());
  fpm.addPass(arith::createArithExpandOpsPass());
  // scf lowers inside convert-tile-to-nvvm (its patterns include
  // SCF->ControlFlow), after the single-block regions of
  // tile.warp_specialize and tile.producer became branches.
  pm.addPass(createTileOutlineKernels());
  pm.addPass(createConvertTileToNVVM());
  pm.addPass(createConvertNVVMToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
  OpPassManager &gpm = pm.nest<gpu::GPUModuleOp>();
  gpm.addPass(createCanonicalizerPass());
  gpm.addPass(createCSEPass());
  GpuNVVMAttachTargetOptions target;
  target.chip = options.chip;
  target.features = options.features;
  target.optLevel = options.optLevel;
  pm.addPass(createGpuNVVMAttachTarget(target));
  GpuModuleToBinaryPassOptions binary;
  binary.compilationTarget = "isa";
  pm.addPass(createGpuModuleToBinaryPass(binary));
  if (!options.outputDir.empty()) {
    GdnExportPTXOptions exportOptions;
    exportOptions.outputDir = options.outputDir;
    pm.addPass(createGdnExportPTX(exportOptions));
  }
}

void registerGdnPipelines() {
  PassPipelineRegistration<LowerToPTXOptions>(
      "gdn-lower-to-ptx",
      "Lower tile kernels to PTX: inline, symbol-dce, canonicalize, tile-expand-tril-inverse, tile-assign-layouts, tile-pipeline, "
      "tile-plan-shared-memory, tile-insert-barriers, tile-outline-kernels, convert-tile-to-nvvm, nvvm-attach-target, "
      "gpu-module-to-binary{format=isa} and, with output-dir, gdn-export-ptx",
      buildLowerToPTXPipeline);
}

} // namespace mlir::gdn
