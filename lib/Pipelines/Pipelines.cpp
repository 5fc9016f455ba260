//===- Pipelines.cpp - named pass pipelines --------------------------------===//

#include "gdn/Pipelines/Pipelines.h"
#include "gdn/Conversion/Passes.h"
#include "gdn/Dialect/Tile/IR/TileDialect.h"
#include "gdn/Dialect/Tile/IR/TileLimits.h"
#include "gdn/Dialect/Tile/Transforms/Passes.h"
#include "gdn/Target/PTX/Passes.h"

#include "mlir/Conversion/NVVMToLLVM/NVVMToLLVM.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/GPU/Transforms/Passes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

#include "llvm/Support/CommandLine.h"

namespace mlir::gdn {

namespace {
/// Chips the kernels are compiled for: wgmma, setmaxnreg and the 227 KiB of
/// shared memory are sm_90a features.
constexpr llvm::StringLiteral kSupportedChips[] = {"sm_90a"};
/// PTX ISA versions for sm_90a that LLVM 19 emits (8.0 .. 8.5).
constexpr llvm::StringLiteral kSupportedFeatures[] = {
    "+ptx80", "+ptx81", "+ptx82", "+ptx83", "+ptx84", "+ptx85"};

/// The first pass of gdn-lower-to-ptx: rejects what the pipeline would
/// otherwise abort on inside LLVM or silently compile to nothing (options,
/// module names that become file names, kernels in nested modules).
struct ValidateLowerToPTXPass
    : PassWrapper<ValidateLowerToPTXPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ValidateLowerToPTXPass)
  ValidateLowerToPTXPass(const LowerToPTXOptions &options)
      : chip(options.chip), features(options.features),
        kernelSuffix(options.kernelSuffix), optLevel(options.optLevel),
        indexBitwidth(options.indexBitwidth),
        trilOverlap(options.trilOverlap) {}
  StringRef getArgument() const override { return "gdn-validate-lower-to-ptx"; }
  StringRef getDescription() const override {
    return "check the gdn-lower-to-ptx options and the module's kernels";
  }
  void runOnOperation() override;
  std::string chip, features, kernelSuffix;
  unsigned optLevel, indexBitwidth, trilOverlap;
};

template <size_t N>
std::string listOf(const llvm::StringLiteral (&items)[N]) {
  std::string s;
  for (size_t i = 0; i < N; ++i)
    s += (i ? ", " : "") + items[i].str();
  return s;
}

void ValidateLowerToPTXPass::runOnOperation() {
  ModuleOp module = getOperation();
  bool ok = true;
  if (!llvm::is_contained(kSupportedChips, chip)) {
    module.emitError("gdn-lower-to-ptx: unsupported chip '")
        << chip << "'; supported: " << listOf(kSupportedChips);
    ok = false;
  }
  if (!llvm::is_contained(kSupportedFeatures, features)) {
    module.emitError("gdn-lower-to-ptx: unsupported features '")
        << features << "'; supported: " << listOf(kSupportedFeatures);
    ok = false;
  }
  if (indexBitwidth != 32 && indexBitwidth != 64) {
    module.emitError("gdn-lower-to-ptx: index-bitwidth must be 32 or 64, got ")
        << indexBitwidth;
    ok = false;
  }
  if (trilOverlap > 2) {
    module.emitError("gdn-lower-to-ptx: tril-overlap must be 0, 1 or 2, got ")
        << trilOverlap;
    ok = false;
  }
  if (!kernelSuffix.empty() &&
      !tile::isPtxIdentifier("k" + kernelSuffix)) {
    module.emitError("gdn-lower-to-ptx: kernel-suffix '")
        << kernelSuffix << "' is not made of [A-Za-z0-9_$]";
    ok = false;
  }
  if (optLevel > 3) {
    module.emitError("gdn-lower-to-ptx: opt-level must be 0 to 3, got ")
        << optLevel;
    ok = false;
  }
  // The module's name names the gpu.module and the .ptx file.
  if (std::optional<StringRef> name = module.getSymName();
      name && !tile::isPtxIdentifier(*name)) {
    module.emitError("module name '")
        << *name << "' is not a PTX identifier ([A-Za-z_$][A-Za-z0-9_$]*)";
    ok = false;
  }
  // convert-tile-to-nvvm compiles the kernels of this module only.
  module.walk([&](Operation *op) {
    if (op->hasAttr(tile::TileDialect::getKernelAttrName()) &&
        op->getParentOp() != module.getOperation()) {
      op->emitError("tile kernel in a nested module would not be compiled; "
                    "define kernels in the top-level module");
      ok = false;
    }
  });
  if (!ok)
    signalPassFailure();
}
} // namespace

void buildLowerToPTXPipeline(OpPassManager &pm,
                             const LowerToPTXOptions &options) {
  // LLVM's code generation reads its options from the process-wide
  // command-line registry: loop strength reduction is TargetPassConfig's
  // `disable-lsr`. With LSR a pipelined chunk loop keeps one 64-bit pointer
  // per copy slot live and increments all of them each iteration (31 in
  // the value-major GDN replay: 255 registers and spills; 195 instead of
  // 229 registers in the block_v 64 mma forward without it); ptxas
  // strength-reduces the addresses itself.
  llvm::StringMap<llvm::cl::Option *> &registered =
      llvm::cl::getRegisteredOptions();
  if (auto *opt = static_cast<llvm::cl::opt<bool> *>(
          registered.lookup("disable-lsr")))
    opt->setValue(!options.lsr);
  // Shared memory is addressed with 32-bit pointers (NVPTX's
  // `nvptx-short-ptr`: the data layout's p3:32): shared addresses and their
  // offsets then take one 32-bit register and one integer op per step
  // instead of two.
  if (auto *opt = static_cast<llvm::cl::opt<bool> *>(
          registered.lookup("nvptx-short-ptr")))
    opt->setValue(true);
  // Kernels may share a body written as a private function: inline it into
  // each entry point (the inliner drops the then-dead callee), and fold the
  // entry's constant mode flags so that each kernel keeps only its branches
  // before any tile pass sees it.
  pm.addPass(std::make_unique<ValidateLowerToPTXPass>(options));
  pm.addPass(createInlinerPass());
  pm.addPass(createSymbolDCEPass());
  OpPassManager &fpm = pm.nest<func::FuncOp>();
  fpm.addPass(createCanonicalizerPass());
  if (options.zeroInitGemm)
    fpm.addPass(tile::createTileFoldZeroInit());
  tile::TileExpandTrilInverseOptions expandOptions;
  expandOptions.mergeByRows = options.mergeByRows;
  expandOptions.stageLo = options.stageLo;
  expandOptions.fmaMerges = options.fmaMerges;
  fpm.addPass(tile::createTileExpandTrilInverse(expandOptions));
  tile::TileAssignLayoutsOptions layoutOptions;
  layoutOptions.overlapTrilInverse = options.trilOverlap;
  fpm.addPass(tile::createTileAssignLayouts(layoutOptions));
  fpm.addPass(tile::createTilePipeline());
  fpm.addPass(tile::createTileTmaStore());
  fpm.addPass(createCanonicalizerPass());
  fpm.addPass(tile::createTilePlanSharedMemory());
  fpm.addPass(tile::createTileInsertBarriers());
  // Kernels with tile.async_gemm, or all of them with async-gemm=1.
  tile::TileAsyncGemmOptions asyncOptions;
  asyncOptions.all = options.asyncGemm;
  fpm.addPass(tile::createTileAsyncGemm(asyncOptions));
  fpm.addPass(tile::createTileWarpSpecialize());
  if (options.proxyFences)
    fpm.addPass(tile::createTileProxyFences());
  fpm.addPass(arith::createArithExpandOpsPass());
  if (options.pow2Divisors)
    fpm.addPass(tile::createTileSpecializeDivisors());
  // scf lowers inside convert-tile-to-nvvm (its patterns include
  // SCF->ControlFlow), after the single-block regions of
  // tile.warp_specialize and tile.producer became branches.
  TileOutlineKernelsOptions outline;
  outline.indexBitwidth = options.indexBitwidth;
  outline.kernelSuffix = options.kernelSuffix;
  pm.addPass(createTileOutlineKernels(outline));
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

void buildLowerToCPUPipeline(OpPassManager &pm,
                             const LowerToCPUOptions &options) {
  // Every function is converted: the ones no kernel calls go first (the
  // fused chunk loop, which only its variant's kernel calls, among them).
  pm.addPass(createSymbolDCEPass());
  ConvertTileToLoopsOptions loops;
  loops.poison = options.poison;
  loops.flagHooks = options.flagHooks;
  pm.addPass(createConvertTileToLoops(loops));
}

void registerGdnPipelines() {
  PassPipelineRegistration<LowerToPTXOptions>(
      "gdn-lower-to-ptx",
      "Lower tile kernels to PTX: inline, symbol-dce, canonicalize, tile-fold-zero-init (unless zero-init-gemm=0), "
      "tile-expand-tril-inverse (merge-by-rows with merge-by-rows=1, stage-lo with stage-lo=1, fma-merges with fma-merges=W), tile-assign-layouts (overlap-tril-inverse=N with tril-overlap=N), tile-pipeline, tile-tma-store, "
      "canonicalize, tile-plan-shared-memory, tile-insert-barriers, (with async-gemm) tile-async-gemm, tile-warp-specialize, tile-proxy-fences (unless proxy-fences=0), "
      "arith-expand, tile-specialize-divisors (unless pow2-divisors=0), tile-outline-kernels, "
      "convert-tile-to-nvvm, convert-nvvm-to-llvm, reconcile-unrealized-casts, canonicalize and cse (gpu.module), "
      "nvvm-attach-target, gpu-module-to-binary{format=isa} and, with output-dir, gdn-export-ptx",
      buildLowerToPTXPipeline);
  PassPipelineRegistration<LowerToCPUOptions>(
      "gdn-lower-to-cpu",
      "Lower tile kernels as written to sequential loops for the CPU "
      "emulator: symbol-dce, convert-tile-to-loops with flag-hooks (poison=0: no "
      "NaN fill; flag-hooks=0: flag waits without the emulator's hooks)",
      buildLowerToCPUPipeline);
}

} // namespace mlir::gdn
