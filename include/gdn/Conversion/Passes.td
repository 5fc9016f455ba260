//===- Passes.td - conversions out of the tile dialect ----*- tablegen -*-===//

#ifndef GDN_CONVERSION_PASSES_TD
#define GDN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertTileToNVVM : Pass<"convert-tile-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "lower tile kernels to NVVM/LLVM kernels in a gpu.module";
  let description = [{
    Moves every `tile.kernel` function of the module into a `gpu.module`
    (named after the module, `@kernels` if it has no name) and lowers it to
    an `llvm.func` kernel (`nvvm.kernel`, `nvvm.maxntid` from
    `tile.num_warps`) whose parameters are one `!llvm.ptr<1>` per
    `!tile.ptr` and the scalars as they are:

    * shared buffers become addresses in the external, 1024-byte aligned
      dynamic shared-memory array `@__tile_smem` at the offsets planned by
      `tile-plan-shared-memory`, swizzled as their layout says;
    * fragments become per-thread register arrays indexed by the layout
      formulas of `#tile.mma` and `#tile.blocked` (all indices are
      compile-time constants, so they are promoted to registers);
    * copies become vector loads/stores and `cp.async`; `tile.gemm` becomes
      `ldmatrix` (`.trans` for MN-major operands) and
      `mma.sync.m16n8k16` with f32 accumulators, or, in kernels with
      `tile.mma_engine = "wgmma"`, one `wgmma.mma_async` m64nNk16 per
      warpgroup and k16 step from 128-byte-swizzled shared memory through
      hand-built descriptors (K-major and MN-major operands), with
      `fence.proxy.async` before every barrier;
    * `tile.map` bodies are inlined per register; `tile.reduce` goes through
      its shared scratch in a fixed order.

    The launch interface of each kernel (parameters with names and types,
    block size, dynamic shared memory, `tile.meta`) is recorded in the
    module attribute `gdn.kernels`, which `gdn-export-ptx` turns into launch
    manifests.
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::NVVM::NVVMDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::cf::ControlFlowDialect"];
  let statistics = [
    Statistic<"numKernels", "kernels", "Kernels lowered">,
    Statistic<"numMma", "mma-instructions", "mma.sync instructions emitted">
  ];
}

#endif // GDN_CONVERSION_PASSES_TD
