//===- Passes.td - conversions out of the tile dialect ----*- tablegen -*-===//

#ifndef GDN_CONVERSION_PASSES_TD
#define GDN_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def TileOutlineKernels : Pass<"tile-outline-kernels", "::mlir::ModuleOp"> {
  let summary = "record the launch interface of tile kernels and move them "
                "into a gpu.module";
  let description = [{
    The first step of the lowering, while the kernel signatures still have
    their tile types. For every `tile.kernel` function of the module, in
    order:

    * records its launch interface in the module attribute `gdn.kernels`
      (added to the entries already there), which `gdn-export-ptx` turns
      into launch manifests: `module` (the gpu.module's name), `params`
      (`name:type` per parameter: the name from the argument attribute
      `tile.name` or `argN`, `ptr<T>` for `!tile.ptr<T>`, `i64` for
      `index`), `block` (`[32 * tile.num_warps, 1, 1]`), `shared_bytes`
      (`tile.shared_memory_bytes`, 0 without shared memory) and `meta`
      (`tile.meta`, if present);
    * moves it into one new `gpu.module` named after the module (`@kernels`
      if it has no name), whose first op is the external, 1024-byte aligned
      dynamic shared-memory array `@__tile_smem` (`!llvm.array<0 x i8>` in
      address space 3) that every shared buffer lives in.

    With `index-bitwidth=32` the gpu.module's data layout
    (`#dlti.dl_spec<#dlti.dl_entry<index, 32 : i32>>`) makes `index` 32 bits
    wide in `convert-tile-to-nvvm`: coordinates, extents, strides and offsets
    of every buffer are then i32 (addresses stay 64-bit), which halves the
    integer work of address arithmetic on the GPU. The kernel is then only
    correct for buffers whose offsets fit in 31 bits; the manifest's
    `index_bits = 32` tells the launcher to check that before each launch.
    `kernel-suffix` renames the kernels and the gpu.module (a second build of
    the same source beside the first, such as the 64-bit fallback of 32-bit
    kernels).

    The module becomes a `gpu.container_module`. Functions without
    `tile.kernel` stay where they are; a module without kernels is left
    unchanged. A kernel with shared buffers but no
    `tile.shared_memory_bytes` (not planned by `tile-plan-shared-memory`)
    is an error.

    Before:
    ```mlir
    module @gemm {
      func.func @k(%a: !tile.ptr<f16> {tile.name = "A"}, %n: index)
          attributes {tile.kernel, tile.num_warps = 4 : i64,
                      tile.shared_memory_bytes = 16384 : i64} { ... }
    }
    ```
    After:
    ```mlir
    module @gemm attributes {gdn.kernels = {k = {block = [128, 1, 1],
        module = "gemm", params = ["A:ptr<f16>", "arg1:i64"],
        shared_bytes = 16384 : i64}}, gpu.container_module} {
      gpu.module @gemm {
        llvm.mlir.global external @__tile_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
        func.func @k(...) attributes {tile.kernel, ...} { ... }
      }
    }
    ```
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect",
                           "::mlir::gpu::GPUDialect",
                           "::mlir::DLTIDialect"];
  let options = [
    Option<"indexBitwidth", "index-bitwidth", "unsigned", /*default=*/"64",
           "Bit width of `index` in the kernels' gpu.module (32 or 64)">,
    Option<"kernelSuffix", "kernel-suffix", "std::string", /*default=*/"\"\"",
           "Appended to every kernel's name and to the gpu.module's (a second "
           "build of the same kernels, e.g. with another index-bitwidth)">
  ];
  let statistics = [
    Statistic<"numKernels", "kernels", "Kernels outlined">
  ];
}

def ConvertTileToNVVM : Pass<"convert-tile-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "lower tile kernels in gpu.modules to NVVM/LLVM kernels";
  let description = [{
    Lowers every `tile.kernel` function in the module's `gpu.module`s (put
    there by `tile-outline-kernels`, which must run first: a kernel outside
    a `gpu.module` is an error) to an `llvm.func` kernel (`nvvm.kernel`,
    `nvvm.maxntid` from `tile.num_warps`) whose parameters are one
    `!llvm.ptr<1>` per `!tile.ptr` and the scalars as they are:

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
    * `tile.map` bodies are inlined per register (an output whose yield
      rounds an f32 to f16/bf16 is converted two registers per
      `cvt.rn.{f16,bf16}x2.f32`); `tile.reduce` goes through its shared
      scratch in a fixed order.
    * an `scf.for` with an LLVM loop annotation (`loop_annotation =
      #llvm.loop_annotation<...>`, e.g. `licm = <disable = true>`) passes
      it to its latch branch, where LLVM reads it.

    The index type is the gpu.module's data layout's (i64 unless
    `tile-outline-kernels` made it i32): descriptor sizes and strides,
    coordinates and offsets are of that type, sums and products `nsw`.

    The layout formulas are those of `LayoutUtils.h`, instantiated over IR
    values; the patterns are grouped by op family, one
    `populate<Family>ToNVVMPatterns` each.
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

def ConvertTileToLoops : Pass<"convert-tile-to-loops", "::mlir::ModuleOp"> {
  let summary = "lower tile kernels to sequential loops over memrefs, for a "
                "CPU run (an emulator of the tile dialect's semantics)";
  let description = [{
    Rewrites kernels as written (before any of the GPU passes) into plain
    `scf` / `memref` / `arith` code that upstream's CPU lowering turns into
    LLVM and `mlir-cpu-runner` or an `ExecutionEngine` runs: one call of a
    kernel function runs one thread block, in program order, with the
    buffers' memory semantics of docs/design.md. The point is to check a
    kernel's arithmetic (its math, masks, indexing and the ops' contracts)
    without a GPU, as Triton's interpreter mode does; thread mappings,
    layouts, barriers and asynchrony have no meaning here (one "thread"
    does everything in order), so they are neither needed nor checked.

    Types: `!tile.ptr<T>` becomes `memref<?xT>` (the caller passes each
    tensor as a 1-D memref); every `!tile.buffer` becomes a memref of its
    shape and element type with a fully dynamic strided layout (views,
    `tile.take`, `tile.narrow` and `tile.slice` are `memref.reinterpret_cast`
    and `memref.subview`s of it). Shared and fragment buffers are stack
    allocations at the start of their function, filled with NaN (floats) or
    0xAA bytes (integers): a kernel that reads an element it never wrote
    shows NaN in its output instead of a plausible number (unless only a
    max / min reduction or scan reads it: those drop NaN operands, as the
    GPU's `max.f32` does).

    The grid: `tile.program_id` and `tile.num_programs` read the private
    global `@__tile_grid` (`memref<6xindex>`: ids x, y, z, then sizes),
    which the caller sets before each block with the generated
    `func.func @__tile_set_grid(id x, id y, id z, size x, size y, size z)`.

    Ops: `tile.copy` / `tile.async_copy` (masks, conversions, `transpose`,
    `block_diagonal`, `block_lower`), `tile.load`, `tile.fill`,
    `tile.zero_tail`, `tile.gemm` (f32 accumulation in k order; `zero_init`,
    transposes, `b_block_lower`), `tile.map`, `tile.reduce` (index order;
    max / min as `maxnumf` / `minnumf`, PTX's `max.f32`), `tile.scan`,
    `tile.tril_inverse` (forward substitution as specified, `packed`,
    `lower_only`), `tile.for` (an `scf.for`), `tile.producer` and
    `tile.producer_task` (their bodies, once, where they stand: a task
    hands the consumers the chunk they take next, so program order is an
    order its hand-off allows), the mbarriers (an element counts completed
    phases; one arrive stands for all the threads of the role that executes
    it and completes a phase; a wait for parity p must find the current
    phase's parity different from p, else the run aborts: program order is
    checked to be free of blocking waits, not the hand-off to be free of
    races in other orders, nor a barrier's count against the threads that
    arrive; an arrive with `expect_tx` (TMA) is an error),
    `tile.flag_release` (a store) and `tile.flag_wait` (blocks run one after
    another, so the flag must already have been released: else the run
    aborts with a message; with `flag-hooks`, the program that runs the
    kernels may run other blocks in between: a release then calls
    `@__tile_flag_released()` after its store, where the runner may
    suspend the block, and a wait calls `@__tile_flag_stalled() -> i1`
    until its flag is reached, aborting when that returns false: nothing
    left that could release it); `tile.barrier`, `tile.prefetch`,
    `tile.async_commit` and `tile.async_wait` have nothing to do. An
    unmasked access outside a global buffer's bounds (a `tile.copy`,
    `tile.load`, `tile.take` or `tile.narrow` past the view's extent, a
    flag index) aborts the run with a message (`cf.assert`) where the GPU
    would read or write someone else's memory. (A view's size is not
    checked against the memref it is made of: kernels view tensors they
    do not read, such as a dummy `h0`.)

    Ops that only the GPU passes create (TMA, `tile.warp_specialize`, the
    blocked inverse's phases, `tile.gemm_wait`) are errors. Functions
    nobody calls should be removed first (`symbol-dce`), since every
    function is converted.
  }];
  let dependentDialects = ["::mlir::memref::MemRefDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::cf::ControlFlowDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
  let options = [
    Option<"poison", "poison", "bool", /*default=*/"true",
           "Fill shared and fragment buffers with NaN / 0xAA bytes at the "
           "start of their function (false: leave them uninitialized)">,
    Option<"flagHooks", "flag-hooks", "bool", /*default=*/"false",
           "Flag releases call `@__tile_flag_released()` after their store "
           "and a wait that finds its flag not yet released calls "
           "`@__tile_flag_stalled() -> i1` until it is (false from the "
           "hook: abort); the program that runs the kernels defines them "
           "(the CUDA emulator, which runs flag-releasing blocks lazily)">
  ];
}

#endif // GDN_CONVERSION_PASSES_TD
