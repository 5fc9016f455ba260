//===- TileDialect.td - the tile dialect ------------------*- tablegen -*-===//
//
// The dialect definition only; attributes, types and ops live in their own
// files (TileAttrs.td, TileTypes.td, TileOps.td).
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DIALECT_TILE_IR_TILEDIALECT_TD
#define GDN_DIALECT_TILE_IR_TILEDIALECT_TD

include "mlir/IR/OpBase.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::mlir::gdn::tile";
  let summary = "Tile-level kernel programming for NVIDIA GPUs";
  let description = [{
    The `tile` dialect describes a GPU kernel as operations on whole tiles:
    buffers that live in global memory, in shared memory, or distributed over
    the registers of the threads of a block (*fragments*). A kernel copies
    tiles between memory spaces, multiplies them on the tensor cores
    (`tile.gemm`), applies elementwise math (`tile.map`) and reductions
    (`tile.reduce`), and iterates with a software-pipelined loop (`tile.for`).

    A kernel is a `func.func` carrying the `tile.kernel` unit attribute and
    `tile.num_warps`. Kernel arguments are `!tile.ptr<...>` (one global
    pointer each) and integer scalars; `tile.view` gives a pointer a shape.
    Optional kernel attributes: `tile.mma_engine` (`"mma.sync"`, the
    default, or `"wgmma"` for Hopper warpgroup MMA), `tile.max_registers`
    (a per-thread register cap, PTX `.maxnreg`),
    `tile.overlap_tril_inverse` (0, 1 or 2: the kernel's own choice of
    tile-assign-layouts' `overlap-tril-inverse`, which then ignores the
    pass option for it), `tile.meta` (a dictionary
    copied into the launch manifest), `tile.copy_engine` (`"cp.async"`, the
    default, or `"tma"`: pipelined loops load their tiles with TMA on an
    mbarrier ring), `tile.warp_specialize` (`{producer_registers = 40,
    consumer_registers = 232}`: a producer warpgroup issues the loads, the
    `tile.num_warps` warps compute; `tma_issue = "round_robin"` spreads the
    rings' loads over the producer warpgroups of several task groups,
    `tma_issue = "consumer"` leaves them to consumer thread 0),
    `tile.grid_dependency` (programmatic
    dependent launch: the kernel waits at entry for its stream predecessor
    and lets its successor launch early; `"flags"`: it lets its successor
    launch early but does not wait, synchronizing with its predecessor
    through `tile.flag_wait`; `"wait_and_flags"`: it waits at entry and
    also through `tile.flag_wait`, for an earlier kernel still running;
    `"deferred"`: it lets its successor launch at entry and waits where it
    executes `tile.grid_wait`) and, set by passes,
    `tile.shared_memory_bytes` and `tile.producer_warps`. Arguments may carry
    `tile.name`, the parameter name in the manifest; `!tile.tensormap`
    arguments (created by `tile-pipeline`) carry `tile.tensor_map`, the
    host's recipe for the map: `base` (the pointer's name), `dims` and
    `strides` (expressions of the launch parameters) and, where the map's
    L2 promotion is not 256 bytes, `l2_promotion` (0 for none, 64 or 128;
    tile-pipeline asks for none on a `block_lower` load).

    The dialect is deliberately above the level of PTX: which threads own
    which elements (layouts), where shared buffers live (offsets, swizzles),
    and how a loop is software-pipelined are decided by passes
    (`tile-assign-layouts`, `tile-pipeline`, `tile-plan-shared-memory`) and
    realised by `convert-tile-to-nvvm`.
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
  let dependentDialects = ["::mlir::arith::ArithDialect"];
  let extraClassDeclaration = [{
    void registerTypesAndAttributes();
    /// Unit attribute marking a `func.func` as a kernel.
    static constexpr ::llvm::StringLiteral getKernelAttrName() {
      return ::llvm::StringLiteral("tile.kernel");
    }
    /// Number of warps of the thread block (I64 attribute on the kernel).
    static constexpr ::llvm::StringLiteral getNumWarpsAttrName() {
      return ::llvm::StringLiteral("tile.num_warps");
    }
    /// Dynamic shared memory bytes, written by tile-plan-shared-memory.
    static constexpr ::llvm::StringLiteral getSharedMemoryBytesAttrName() {
      return ::llvm::StringLiteral("tile.shared_memory_bytes");
    }
    /// Optional per-thread register cap of a kernel (I64 attribute, becomes
    /// PTX .maxnreg): trades registers for more resident blocks.
    static constexpr ::llvm::StringLiteral getMaxRegistersAttrName() {
      return ::llvm::StringLiteral("tile.max_registers");
    }
    /// Optional per-kernel choice of tile-assign-layouts'
    /// overlap-tril-inverse (I64 0, 1 or 2), which it takes over the
    /// pass option: a kernel whose register cap was chosen for the smaller
    /// shared-memory plan says so next to the cap.
    static constexpr ::llvm::StringLiteral getOverlapTrilInverseAttrName() {
      return ::llvm::StringLiteral("tile.overlap_tril_inverse");
    }
    /// Which tensor-core instruction tile.gemm uses in a kernel: "mma.sync"
    /// (default; any sm_80+) or "wgmma" (sm_90a warpgroup MMA).
    static constexpr ::llvm::StringLiteral getMmaEngineAttrName() {
      return ::llvm::StringLiteral("tile.mma_engine");
    }
    /// Free-form operator configuration copied into the launch manifest.
    static constexpr ::llvm::StringLiteral getMetaAttrName() {
      return ::llvm::StringLiteral("tile.meta");
    }
    /// How tile-pipeline moves global->shared tiles of pipelined loops:
    /// "cp.async" (default) or "tma" (sm_90 tensor memory accelerator on
    /// an mbarrier ring).
    static constexpr ::llvm::StringLiteral getCopyEngineAttrName() {
      return ::llvm::StringLiteral("tile.copy_engine");
    }
    /// Request for tile-warp-specialize: a dictionary with the register
    /// budgets `producer_registers` and `consumer_registers`, and
    /// optionally `tma_issue`.
    static constexpr ::llvm::StringLiteral getWarpSpecializeAttrName() {
      return ::llvm::StringLiteral("tile.warp_specialize");
    }
    /// Who issues a warp-specialized kernel's TMA ring loads: its
    /// request's `tma_issue` ("first", "round_robin" or "consumer"),
    /// "first" where the kernel names none.
    static ::llvm::StringRef getTmaIssue(::mlir::Operation *kernel);
    /// Request for tile-async-gemm (a unit attribute): overlap this
    /// kernel's independent wgmma gemms.
    static constexpr ::llvm::StringLiteral getAsyncGemmAttrName() {
      return ::llvm::StringLiteral("tile.async_gemm");
    }
    /// Programmatic dependent launch (a unit attribute on a kernel, sm_90):
    /// the kernel waits at entry for the kernel before it in its stream
    /// (griddepcontrol.wait: that grid complete, its memory visible), then
    /// lets the next one launch (griddepcontrol.launch_dependents), so a
    /// launcher that sets programmatic stream serialization (the manifest's
    /// `grid_dependency = 1`) overlaps a launch with its predecessor's tail.
    /// `tile.grid_dependency = "flags"`: only the latter (the manifest's
    /// `grid_dependency = 2`): the kernel runs beside its predecessor and
    /// waits for what it reads through ready flags (tile.flag_wait), which
    /// an earlier kernel of the stream releases. `"wait_and_flags"` (the
    /// manifest's `grid_dependency = 3`): both, for a kernel that reads its
    /// predecessor's results after griddepcontrol.wait and, through ready
    /// flags, those of an earlier kernel that may still be running.
    /// `"deferred"` (the manifest's `grid_dependency = 1`: launched as the
    /// unit attribute's kernels): it lets its successor launch at entry
    /// but waits only where it executes `tile.grid_wait`, so that blocks
    /// that need nothing of the predecessor may run and exit beside it.
    static constexpr ::llvm::StringLiteral getGridDependencyAttrName() {
      return ::llvm::StringLiteral("tile.grid_dependency");
    }
    /// The manifest's code of a `tile.grid_dependency` value: 1 (unit or
    /// "deferred"), 2 ("flags"), 3 ("wait_and_flags"); 0 for anything
    /// else.
    static int getGridDependencyMode(::mlir::Attribute value);
    /// Whether a `tile.grid_dependency` value is "deferred" (the kernel
    /// waits where its tile.grid_wait ops are, not at entry).
    static bool isDeferredGridDependency(::mlir::Attribute value);
    /// An LLVM loop annotation (`#llvm.loop_annotation<...>`) on a
    /// tile.for or scf.for, which tile-pipeline and convert-tile-to-nvvm
    /// carry to the loop's latch branch (the name LLVM's branch ops use).
    static constexpr ::llvm::StringLiteral getLoopAnnotationAttrName() {
      return ::llvm::StringLiteral("loop_annotation");
    }
    /// The LLVM loop annotation of the producer warpgroups' copy of a
    /// tile.for (tile-warp-specialize puts it in place of
    /// `loop_annotation` there and drops it from the consumers' copy): the
    /// roles get different hints, e.g. LICM off only in the producer's
    /// low-register task.
    static constexpr ::llvm::StringLiteral getProducerLoopAnnotationAttrName() {
      return ::llvm::StringLiteral("producer_loop_annotation");
    }
    /// Warps of the producer warpgroup, added to tile.num_warps (the
    /// compute warps) by tile-warp-specialize.
    static constexpr ::llvm::StringLiteral getProducerWarpsAttrName() {
      return ::llvm::StringLiteral("tile.producer_warps");
    }
    /// Host description of a !tile.tensormap argument (an argument
    /// attribute): {base = "A", dims = [...], strides = [...]} and, where
    /// the map's L2 promotion is not the default 256 bytes, l2_promotion =
    /// N (0 for none, 64, 128 or 256; the manifest's `l2=`).
    static constexpr ::llvm::StringLiteral getTensorMapAttrName() {
      return ::llvm::StringLiteral("tile.tensor_map");
    }
    /// Launch requirements a kernel's vector accesses rely on:
    /// {name = m} says integer argument `name` (its tile.name) must be a
    /// multiple of m (set by tile-assign-layouts, written to the manifest
    /// as requires_multiple.<name> = m and checked by the launcher).
    static constexpr ::llvm::StringLiteral getRequiresMultipleAttrName() {
      return ::llvm::StringLiteral("tile.requires_multiple");
    }
    /// Optional name of a kernel argument (an argument attribute).
    static constexpr ::llvm::StringLiteral getArgNameAttrName() {
      return ::llvm::StringLiteral("tile.name");
    }
  }];
}

#endif // GDN_DIALECT_TILE_IR_TILEDIALECT_TD
