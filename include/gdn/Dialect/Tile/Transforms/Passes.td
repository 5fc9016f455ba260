//===- Passes.td - tile dialect transformations ------------*- tablegen -*-===//

#ifndef GDN_DIALECT_TILE_TRANSFORMS_PASSES_TD
#define GDN_DIALECT_TILE_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

//===----------------------------------------------------------------------===//
// ExpandTrilInverse
//===----------------------------------------------------------------------===//

def TileExpandTrilInverse : Pass<"tile-expand-tril-inverse", "::mlir::func::FuncOp"> {
  let summary = "expand tile.tril_inverse into the barrier-free phases of the blocked inverse";
  let description = [{
    Rewrites each `tile.tril_inverse` of a kernel whose size `n` is a
    multiple of 16 with `32 <= n <= 32 * warps` (the kernel's
    `tile.num_warps`, or a `tile.producer_task`'s) into the exact
    blocked inverse of docs/gdn-math.md §2.3 (`nb = n / 16` blocks per row),
    as ops none of which synchronizes internally:

    * `tile.tril_inverse_diag`: the diagonal 16x16 blocks by forward
      substitution, zeros above them;
    * when `nb` is a power of two, the doubling merges of sizes 16, 32,
      .., n / 2 (`T21 = -T2 (L21 T1)` below each pair of known diagonal
      blocks): the size-16 one inside the diagonal phase (`{merge_pairs}`:
      the warp that inverted blocks `2 w`, `2 w + 1` forms the block below
      them after a warp sync, no block barrier), the others as
      `tile.tril_inverse_merge` (log2(nb) - 1 more phases); otherwise, for
      each level `d = 1 .. nb - 1` (the blocks
      `(j + d, j)`), `tile.tril_inverse_level` (`T_ij = -T_ii L T`). Both
      run their products on the tensor cores in split tf32, each warp in
      its own column strips. Packed inverses take the levels.

    Each phase reads what the previous phases wrote, so
    `tile-insert-barriers` places a barrier between every two phases from
    their operand effects; the lowering of the phases emits none (a level
    or merge orders its own strips with warp syncs). Other sizes keep
    `tile.tril_inverse` (forward substitution, one column per thread).

    With `merge-by-rows`, the merges of sizes 16 and 32 of `lower_only`
    inverses get `by_rows` (a task per block row and column block of `T21`,
    both strips; the size-32 one then holds one barrier of its own between
    forming `Y` and `T21`, see `tile.tril_inverse_merge`). Off by default
    until measured on the GDN prep (docs/perf-notes.md v39).

    With `stage-lo`, a `lower_only` inverse with a merge after the diagonal
    phase (`nb >= 4`) whose block has threads beyond its `n` columns gets
    `stage_lo` on the diagonal phase and `staged_lo` on the final merge:
    the diagonal phase's idle threads split the final merge's `L21` once
    into dest's free upper block, and the merge's warps load its low parts
    instead of splitting it each (not with `merge-by-rows`: at n = 64 its
    size-32 merge stages Y in that block). Off by default until measured
    (docs/perf-notes.md v47).

    With `fma-merges=tasks` the doubling merges of sizes 16 and 32 of an
    inverse inside a `tile.producer_task` run on the CUDA cores (`fma` on
    the diagonal phase and on the merges, see `tile.tril_inverse_merge`):
    there the consumer warpgroups' wgmma keep the SM's tensor cores busy,
    and the task's `mma.sync` merges stall on the tensor pipe (a third of
    the fused GDN task's samples). Measured slower all the same (the fused
    stage +15 % at 8x4K·H16 on an H100, docs/perf-notes.md v76): the
    default stays `never`. `always` uses it in every kernel. An inverse
    that takes `stage-lo` keeps the tensor cores (its staged low parts
    are the split-tf32 final merge's); `merge-by-rows` gives way to
    `fma`.

    Before:
    ```mlir
    tile.tril_inverse %l, %t : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
    ```
    After:
    ```mlir
    tile.tril_inverse_diag %l, %t {merge_pairs} : ...
    ```
    (a 64x64 inverse gets `tile.tril_inverse_merge %l, %t {size = 32 : i64}`
    after it).
  }];
  let dependentDialects = ["::mlir::gdn::tile::TileDialect"];
  let options = [
    Option<"mergeByRows", "merge-by-rows", "bool", /*default=*/"false",
           "Give the size-16 and size-32 merges of lower_only inverses "
           "by_rows (one task per block row and column block, both strips)">,
    Option<"stageLo", "stage-lo", "bool", /*default=*/"false",
           "Split the final merge's L21 once, on the diagonal phase's idle "
           "threads (stage_lo / staged_lo), for lower_only inverses">,
    Option<"fmaMerges", "fma-merges", "std::string", /*default=*/"\"never\"",
           "Where the merges of sizes 16 and 32 run on the CUDA cores "
           "(fma): never, tasks (inside tile.producer_task) or always">
  ];
  let statistics = [
    Statistic<"numExpanded", "expanded", "tril_inverse ops expanded into phases">
  ];
}

//===----------------------------------------------------------------------===//
// AssignLayouts
//===----------------------------------------------------------------------===//

def TileAssignLayouts : Pass<"tile-assign-layouts", "::mlir::func::FuncOp"> {
  let summary = "distribute tiles over warps and threads (layout assignment)";
  let description = [{
    Decides, for every tile kernel, which thread owns which element:

    * the accumulator of each `tile.gemm` gets a `#tile.mma<warps = [wm, wn]>`
      layout (with `tile.mma_engine = "wgmma"`: `[M / 16, num_warps /
      (M / 16)]` with engine `wgmma`, one 64-row block per warpgroup along
      M and the remaining warpgroups splitting N, the wgmma accumulator
      layout of each warpgroup's m64 tile); otherwise
      the kernel's warps are arranged as the `wm x wn` grid with
      `wm * wn = tile.num_warps` whose per-warp block is closest to square
      (fewest shared-memory operand loads per MMA) and divides the tile into
      16x8 atoms (16x16 in N where possible, for `ldmatrix.x4`); in a
      `tile.producer_task`, the task's warps and mma engine replace the
      kernel's;
    * fragments connected to it through `tile.map` (same shape, same
      elements) inherit that layout; every other fragment gets
      `#tile.blocked<vector = v>` with the widest `v <= 16 bytes` that
      divides its innermost dimension, except `v = 1` for a reduction's
      result and for a fragment (with those it shares a `tile.map`) whose
      every copy to or from global memory goes through a strided
      innermost dimension (a `tile.take` of the last dimension, e.g. one
      head's gates): such copies move single elements whatever the
      layout, and a wider vector only puts the tile on fewer threads with
      more registers each;
    * shared operands of `tile.gemm`, and shared sources of transposed
      copies into fragments, whose rows are a multiple of 128 bytes get
      `#tile.swizzle<128>` (conflict-free `ldmatrix` and 16-byte stores,
      TMA/wgmma compatible);
    * other shared tiles of 32-bit elements whose rows are a multiple of
      128 bytes and that only registers access (copies to and from
      fragments, `tile.load`, the triangular inverse and its phases) get
      `#tile.padded<4>`: 16 bytes after each row, so the 8 rows an mma
      fragment's store or a row-strided access touches lie on different
      banks; the destination of a (not packed) triangular inverse gets
      `#tile.padded<8, 4, 4>` (8 words per row and 4 more after every
      fourth: its B operands are read down columns, its A operands by
      ldmatrix, and no single row stride serves both); with
      `overlap-tril-inverse=1` so does the source (the Gram's stores and
      the phases' ldmatrix reads are conflict free in it too), with
      `overlap-tril-inverse=2` both get `#tile.padded<4>` (smaller; T's
      column reads conflict 2-way), so that the two have one type and
      `tile-plan-shared-memory` may overlap them (a kernel attribute
      `tile.overlap_tril_inverse = N` chooses for that kernel instead);
    * copies between global and shared memory (also `tile.async_copy`
      written in a kernel) get a thread mapping
      (`layout = #tile.blocked<vector = v>`, 16-byte vectors when the tile's
      innermost dimension allows, narrowed to what the global side keeps
      aligned: the root view's row length, the innermost offset and the
      narrows' innermost starts, each a constant, a provable multiple
      (products with constants, sums, loop induction variables) or a
      kernel argument, which becomes a launch requirement
      `tile.requires_multiple = {K = 8}` on the kernel (the manifest's
      `requires_multiple.K = 8`, checked by the launcher); anything else
      narrows the vector);
    * copies between a fragment and global memory move runs of the
      fragment's layout (mma: pairs; blocked: its vector): the same facts
      must hold for that width, as a requirement where a kernel argument
      decides, else the copy is an error;
    * each `tile.reduce` gets a shared scratch buffer: one f32 per row
      (`[M]`) for a row reduction whose rows are each held by an aligned
      group of lanes of one warp (blocked source, row length / vector a
      divisor of 32), which then combines in registers and shuffles;
      otherwise the source's shape (a row reduction's rows of a multiple of
      32 words padded by 4 words); a single row held by one lane group
      (`[1, N]` into `[1]`) gets none (its butterfly leaves the result on
      thread 0);
    * each `tile.scan`'s source and destination (and what shares a class
      with them) get `#tile.blocked<vector = v>`, the smallest power of two
      v with n <= 32 v, so that the first warp holds the whole fragment; a
      layout the class already has must satisfy that too.

    Before:
    ```mlir
    %acc = tile.alloc : !tile.buffer<128x128xf32, fragment>
    tile.gemm %sA, %sB, %acc : ..., !tile.buffer<128x128xf32, fragment>
    ```
    After (4 warps):
    ```mlir
    %acc = tile.alloc : !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [2, 2]>>
    ```
  }];
  let options = [
    Option<"overlapTrilInverse", "overlap-tril-inverse", "unsigned", "0",
           "Give the source and destination of a (not packed) triangular "
           "inverse one layout, so that tile-plan-shared-memory may lay "
           "the two over each other: 1 the destination's "
           "#tile.padded<8, 4, 4>, 2 the source's #tile.padded<4> (0: "
           "off); a kernel's tile.overlap_tril_inverse attribute takes "
           "precedence">
  ];
  let dependentDialects = ["::mlir::gdn::tile::TileDialect"];
  let statistics = [
    Statistic<"numMmaFragments", "mma-fragments", "Fragments given an mma layout">,
    Statistic<"numBlockedFragments", "blocked-fragments", "Fragments given a blocked layout">,
    Statistic<"numSwizzled", "swizzled-buffers", "Shared buffers given a swizzle">,
    Statistic<"numPadded", "padded-buffers", "Shared buffers given padded rows">,
    Statistic<"numInWarpReductions", "in-warp-reductions", "Reductions given a per-row scratch (in-warp lowering)">
  ];
}

//===----------------------------------------------------------------------===//
// Pipeline
//===----------------------------------------------------------------------===//

def TilePipeline : Pass<"tile-pipeline", "::mlir::func::FuncOp"> {
  let summary = "software-pipeline tile.for loops with multi-buffered async copies";
  let description = [{
    Rewrites each `tile.for ... stages N` into an `scf.for` whose
    global-to-shared copies are issued `N - 1` iterations ahead:

    * every shared buffer written by such a copy (and allocated outside the
      loop) becomes an `N`-stage buffer `[N, ...]`; iteration `i` uses stage
      `i mod N` through `tile.slice`;
    * a prologue issues the copies of iterations `0 .. N-2` as
      `tile.async_copy`, one `tile.async_commit` group per iteration
      (guarded so that short loops do not read past the end);
    * each iteration waits until its own group has landed
      (`tile.async_wait {pending = N - 2}`), synchronizes the block
      (`tile.barrier`, which also frees the stage written next), issues the
      copies of iteration `i + N - 1` into the stage used by iteration
      `i - 1`, commits, then runs the rest of the body.

    With `N = 1` (or a body without such copies) the loop becomes a plain
    `scf.for` with a barrier after the copies and one at the end of each
    iteration.

    A `tile.flag_wait` at the top level of the body guards the iteration's
    loads (data another block publishes with `tile.flag_release`): in a
    pipelined loop it goes with the copies, issued for the iteration they
    load and before them (by every thread before cp.async copies, by the
    producer thread before the stage's wait and TMA loads of a ring, whose
    full barrier then orders the consumers' reads after it), and leaves the
    body. Its operands must be computable for a later iteration, as the
    copies' offsets are. Without pipelining it stays where it is.

    The loop's `loop_annotation` attribute, if any, goes to the `scf.for`
    of the steady state (convert-tile-to-nvvm then puts it on the loop's
    latch).

    **TMA rings.** In kernels with `tile.copy_engine = "tma"`, a loop with
    `N >= 2` whose copies all qualify becomes a ring of `N` stages ordered
    by mbarriers instead of block barriers:

    * each copy becomes a `tile.tma_load` through a `!tile.tensormap`
      kernel argument the pass appends (its recipe, `tile.tensor_map` =
      base pointer, symbolic dims and strides, and `l2_promotion = 0` for
      a `block_lower` copy, whose boxes read part of each global row, goes
      to the manifest; other maps keep 256-byte L2 promotion);
    * `full[N]` (1 arrival + the transaction bytes) and `empty[N]`
      (`32 * num_warps` arrivals) barriers are initialized at the kernel's
      entry by one thread, followed by a block barrier;
    * ring iteration `g` (counted across executions of the loop, so that a
      persistent kernel's next tile continues the phases) uses stage
      `g mod N` with parity `(g / N) mod 2`; the producer step (one thread,
      in `tile.producer`) waits for `empty`, arrives on `full` with
      `expect_tx` = the stage's bytes and issues the loads, `N - 1`
      iterations ahead;
    * consumers wait on `full`, run the body and release the stage by
      arriving on `empty`; with asynchronous `tile.gemm`s the release of
      a stage follows `tile.gemm_wait {pending = 1}` one iteration later, so
      one wgmma group stays in flight;
    * in a kernel whose `tile.warp_specialize` says `tma_issue =
      "consumer"` (consumer thread 0 issues the loads right after its
      release) and without asynchronous gemms the loads run `N`
      iterations ahead instead of `N - 1`: the stage just released takes
      iteration `i + N` (a prologue of `N` iterations).

    * a masked copy from a view narrowed along the tile's first dimension
      (`tile.narrow`: a packed sequence) is loaded from the whole tensor at
      the narrow's start; TMA fills zeros only past the tensor's end, so in
      an iteration whose tile crosses the narrowed extent the consumers
      clear the rows past it (`tile.zero_tail`) and meet at a block
      barrier before the body.

    * a `tile.producer_task` at the top level of the body may read the
      iteration's stages too (e.g. the chunk's K for a Gram product whose
      result it hands to the consumers): the task waits on `full` itself
      (its warpgroup does not run the consumers' wait) and, where copies
      are masked, zeroes the tail rows in place of the consumers, before
      its reads. Sound only if the consumers' release follows the task's
      reads, so the pass checks that the task's reads all come before its
      hand-off (its last `tile.mbarrier_arrive` without `expect_tx`) and
      that the body waits on that barrier and slot before any other use
      of a stage (the wait's parity is the kernel's to get right); a
      hand-off from one thread (`tile.producer`) needs a `tile.barrier`
      of the task after its last read of a stage; the stages may be
      viewed only through `tile.slice`; one task per loop; an error
      otherwise, and in a loop pipelined with cp.async (no mbarriers
      order the task's reads there). The task's wait and tail zeroing go
      right before its first use of a stage.

    A copy qualifies when its source is a `tile.view` of a kernel pointer
    (through `tile.take` and `tile.narrow`; a masked one narrowed along
    the tile's first dimension only, a narrowed dimension not taken; view
    sizes are sums, differences, products and quotients of launch
    integers), the element type is f16, bf16 or f32, the
    destination is unswizzled or `#tile.swizzle<128>`, boxes are at most
    256 elements with 16-byte rows, each stage's bytes are a multiple of
    128 (1024 when swizzled), static strides are multiples of 16 bytes,
    the coordinate along the innermost (contiguous) dimension, the copy's
    offset plus the narrow starts there, is provably a multiple of 16 bytes
    (a power-of-two divisibility analysis over constants, `+ - * <<`, `&`
    with a mask, min/max/select, casts and loop induction variables; a
    TMA box that starts off 16 bytes faults on the H200), and
    the loop is at the kernel's top level or directly in one loop whose
    iterations keep its trip count. Otherwise the loop is pipelined with
    cp.async and a remark says why.

    Before:
    ```mlir
    tile.for %k = %c0 to %K step %c64 stages 3 {
      tile.copy %A[%m, %k] to %sA : ...
      tile.gemm %sA, %sB, %acc : ...
    }
    ```
    After:
    ```mlir
    %sA3 = tile.alloc : !tile.buffer<3x128x64xf16, shared>
    // prologue: stages 0 and 1
    scf.for %k = %c0 to %K step %c64 {
      tile.async_wait {pending = 1}
      tile.barrier
      // copy for k + 2*64 into stage (i+2) mod 3, commit
      %s = tile.slice %sA3[%stage] : ...
      tile.gemm %s, ...
    }
    ```
  }];
  let dependentDialects = ["::mlir::gdn::tile::TileDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numPipelined", "pipelined-loops", "Loops software-pipelined">,
    Statistic<"numMultiBuffered", "multi-buffered", "Shared buffers multi-buffered">
  ];
}

//===----------------------------------------------------------------------===//
// TmaStore
//===----------------------------------------------------------------------===//

def TileTmaStore : Pass<"tile-tma-store", "::mlir::func::FuncOp"> {
  let summary = "Store whole shared buffers to global memory with TMA";
  let description = [{
    In a kernel with `tile.copy_engine = "tma"`, a `tile.copy` of a whole
    shared buffer (a `tile.alloc`, no offsets) to a global view (a
    `tile.view` of a kernel pointer through `tile.take` and `tile.narrow`;
    not masked) becomes one asynchronous TMA store, planned as
    tile-pipeline plans its loads (the same tensor, box, swizzle and
    16-byte checks; the kernel gains a tensor-map argument, or reuses one
    with the same recipe). Instead of every thread storing its vectors and
    waiting for them, one thread hands the tile to the TMA unit; the store
    completes in the background while the kernel goes on.

    The copy becomes `tile.producer { tile.tma_store }` (thread 0). The
    shared buffer must not change while the TMA unit reads it, so the pass
    puts `tile.producer { tile.tma_store_wait {read} }` (the issuing thread
    waits until its stores have read their sources):
    * before every other op that writes the buffer inside the kernel's
      top-level op that holds the store (in a loop: the next iteration's
      writes), and
    * right after that top-level op, so that a buffer that reuses the
      bytes later (tile-plan-shared-memory) is written only after the read.
    tile-insert-barriers then orders the rest like any shared access: a
    barrier between the threads' writes of the buffer and the store (in
    wgmma kernels its `fence.proxy.async` makes them visible to the TMA
    unit), and one between the wait and the next writes.

    That last barrier is often one the kernel has anyway: when a block
    barrier (`tile.barrier`) runs before the write on every path through
    the iteration (in the write's block or an enclosing one, not past the
    innermost loop around the write) and no store of the buffer runs
    between it and the write, the wait goes right before that barrier
    instead, as a plain `tile.tma_store_wait {read}` of every thread (the
    threads without stores go on at once; no branch in the middle of the
    kernel's work), and the write needs no barrier of its own. In the GDN
    chunk loop the previous chunk's o store is waited for before the
    barrier that publishes P, which saves a block barrier per chunk.

    A copy that cannot be planned (a coordinate along the contiguous
    dimension not provably on 16 bytes, a padded buffer, ...) stays a
    per-thread copy, with a remark saying why. Run after tile-pipeline
    (whose tensor-map arguments it reuses), before
    tile-plan-shared-memory and tile-insert-barriers. A store that must not
    write past a ragged end (a sequence's last, partial chunk) stays a
    masked per-thread copy: TMA writes whole boxes (it clips them only at
    the tensor's end).

    Before:
    ```mlir
    func.func @k(%po: !tile.ptr<f16> {tile.name = "o"}, %T: i32 {tile.name = "T"}, ...)
        attributes {tile.kernel, tile.copy_engine = "tma", ...} {
      %O = tile.view %po[%t, %c128] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
      %sO = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
      scf.for %i = ... {
        tile.copy %acc to %sO : ...
        tile.copy %sO to %O[%r, %c0] : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>> to !tile.buffer<?x128xf16, global>
      }
      return
    }
    ```
    After:
    ```mlir
    func.func @k(..., %map: !tile.tensormap<64x64xf16, swizzle = 128> {tile.name = "o_tma", tile.tensor_map = {base = "o", dims = ["T", "128"], strides = ["128"]}}) {
      scf.for %i = ... {
        tile.producer { tile.tma_store_wait {read} }
        tile.copy %acc to %sO : ...
        tile.producer { tile.tma_store %sO to %map[%r, %c0] : ... }
      }
      tile.producer { tile.tma_store_wait {read} }
      return
    }
    ```
  }];
  let dependentDialects = ["::mlir::gdn::tile::TileDialect",
                           "::mlir::arith::ArithDialect"];
  let statistics = [
    Statistic<"numStores", "tma-stores", "Copies turned into TMA stores">
  ];
}

//===----------------------------------------------------------------------===//
// PlanSharedMemory
//===----------------------------------------------------------------------===//

def TilePlanSharedMemory : Pass<"tile-plan-shared-memory", "::mlir::func::FuncOp"> {
  let summary = "place shared buffers in one dynamic region by liveness";
  let description = [{
    Assigns every shared `tile.alloc` of a kernel a byte `offset` in the
    kernel's single dynamic shared-memory region and records the region's
    size as `tile.shared_memory_bytes` on the kernel.

    A buffer is live from its allocation to its last use in program order;
    a use inside a loop keeps it live until the end of that loop (the next
    iteration may read it again), unless the loop body overwrites the whole
    buffer (a copy into all of it, a fill; not under a condition): then
    each such write starts a generation that lives to its last use before
    the next one, and only where the body reads the buffer before its first
    whole write does the last generation live to the end of the loop (and
    the buffer from its allocation to that read). So a buffer prefetched
    late in an iteration for the next one shares bytes with the buffers
    that live between its last read and the prefetch. Buffers whose live ranges overlap get
    disjoint byte ranges; others may share bytes. Buffers are placed
    largest first at the lowest offset that fits, aligned to 1024 bytes for
    swizzled buffers (the 128-byte swizzle pattern repeats every 1024 bytes,
    and TMA/wgmma need that alignment) and to `alignment` bytes otherwise;
    a `#tile.padded` buffer takes its rows' padding too.
    A kernel over the `max-bytes` limit is rejected with an error.
    Buffers of a TMA ring (the N-stage destinations of `tile.tma_load` and
    the mbarrier arrays) stay live for the whole kernel: the producer
    warpgroup may fill a stage while the consumers are anywhere in their
    program, so no other buffer may reuse their bytes. So do buffers
    allocated `no_reuse` (small buffers whose reuse would cost a barrier a
    loop iteration). The same holds for
    the shared buffers a `tile.producer_task` shares with the rest of the
    kernel (allocated outside it: what it hands to the consumers, or keeps
    from one iteration to the next). A task's own buffers (allocated in
    it, fresh each time it runs) reuse each other's bytes by the same
    liveness rules, but never those of a buffer outside that task, which
    may be in use at any point of it.

    The destination T of a blocked triangular inverse (`tile.tril_inverse_diag`
    then `tile.tril_inverse_merge` up to size n / 2) lies n / 2 rows before
    its source L, over L's upper half, where that is legal: L and T distinct
    allocations of one type (square, n a multiple of 32, unswizzled, a group
    skew whose period divides n / 2) used without views; no use of T before
    the diagonal phase, none of L after the final merge, none of either in
    between but the pair's smaller merges; both allocated in the diagonal
    phase's block (no loop between them); each buffer in one pair only.
    The final merge is the only phase that writes T's lower-left quadrant
    (then over L's upper-left one, which no phase reads any more), and L's
    upper-right quadrant, under T's lower-right one, is never read. The two
    take 3n / 2 rows instead of 2n (docs/design.md; the layouts are equal
    with tile-assign-layouts' `overlap-tril-inverse`).

    After:
    ```mlir
    %a = tile.alloc {offset = 0 : i64} : !tile.buffer<...>
    %b = tile.alloc {offset = 16384 : i64} : !tile.buffer<...>
    func.func @k(...) attributes {tile.shared_memory_bytes = 32768 : i64, ...}
    ```
  }];
  let options = [
    Option<"alignment", "alignment", "int64_t", "128",
           "Alignment in bytes of unswizzled shared buffers">,
    Option<"maxBytes", "max-bytes", "int64_t", "232448",
           "Shared memory available to one block (H100/H200 opt-in limit)">
  ];
  let dependentDialects = ["::mlir::gdn::tile::TileDialect"];
  let statistics = [
    Statistic<"numBuffers", "buffers", "Shared buffers placed">,
    Statistic<"numReused", "reused-bytes", "Bytes saved by reusing dead buffers' space">,
    Statistic<"numOverlapped", "overlapped-inverses", "Triangular inverses laid over half of their source">
  ];
}

//===----------------------------------------------------------------------===//
// InsertBarriers
//===----------------------------------------------------------------------===//

def TileInsertBarriers : Pass<"tile-insert-barriers", "::mlir::func::FuncOp"> {
  let summary = "insert block barriers where shared-memory accesses conflict";
  let description = [{
    Threads of a block exchange data through shared memory; a thread may
    only read bytes another thread wrote (or overwrite bytes another thread
    reads) after a `tile.barrier` between the two. This pass finds every such
    hazard and inserts the missing barriers, so kernels and earlier passes
    need not: runs after `tile-plan-shared-memory`, because buffers that the
    plan places on overlapping bytes conflict too (reuse of a dead buffer's
    space).

    The analysis walks each block in order with the byte ranges read and
    written since the last barrier; an op that reads a written range, or
    writes a read or written range, gets a barrier before it. Asynchronous
    copies count as writes once a `tile.async_wait` lets them land. Branches
    merge their states; loops are iterated to a fixpoint so that hazards
    across iterations (the next iteration's write after this one's read) are
    caught. Ops that end in a barrier of their own (`tile.reduce` with a
    scratch, `tile.any`, whose body's reads come before it) clear the state; no other op synchronizes internally (the blocked
    `tile.tril_inverse` arrives as phases, see `tile-expand-tril-inverse`).
    Accesses through `tile.slice` conservatively cover the whole
    multi-buffered allocation. The stages TMA loads write and the mbarrier
    arrays are exempt: the ring's full/empty barriers order them. The body
    of a `tile.producer` (one thread) is treated as a whole, so a barrier it
    needs goes before it, never inside.

    A `tile.producer_task` is a program of its own (other warps, running
    beside the rest): the main sweep skips it (what it shares with the
    consumers, the kernel orders with mbarriers; the consumers' own
    accesses to those buffers are analyzed as usual). Each task's body is
    then analyzed alone, as the body of a loop when loops enclose it (it
    runs once per iteration), the shared buffers included; the barriers it
    gets there are the task's (`tile-warp-specialize` makes them the
    producer warpgroup's named barrier). Two tasks' own buffers never
    share bytes (`tile-plan-shared-memory`), so no barrier orders one
    after another; buffers allocated outside the tasks that tasks of two
    groups (concurrent warpgroups) both touch are the kernel's to order
    (mbarriers) or to index apart: no barrier here can.

    A `tile.tma_store` reads its source asynchronously: barriers do not end
    that read, only a `tile.tma_store_wait {read}` (pending = 0) of the
    storing thread, after which a barrier lets others write the bytes. A
    write of the source while a store may still read it is an error (no
    barrier can fix it; tile-tma-store puts the waits in).

    A barrier the sweep puts before an op runs every time that op runs,
    although the accesses it orders may have reached the op through one
    branch of an earlier `scf.if` only, the other branch ending in a barrier
    of its own (a loop iteration whose whole-tile path has a barrier and
    whose ragged-end path has none). Such a barrier moves to the end of the
    branch without one (an `scf.if` in the same block, not inside a
    `tile.producer`) when the analysis then finds no hazard anywhere: the
    branch runs at most once per run of the block, so no path runs more
    barriers and the others run one fewer.

    Before:
    ```mlir
    tile.copy %acc to %s : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, shared>
    tile.tril_inverse %s, %t : ...
    ```
    After:
    ```mlir
    tile.copy %acc to %s : ...
    tile.barrier
    tile.tril_inverse %s, %t : ...
    ```
  }];
  let dependentDialects = ["::mlir::gdn::tile::TileDialect"];
  let statistics = [
    Statistic<"numBarriers", "barriers", "Barriers inserted">,
    Statistic<"numSunk", "sunk", "Inserted barriers moved into a branch">
  ];
}

//===----------------------------------------------------------------------===//
// FoldZeroInit
//===----------------------------------------------------------------------===//

def TileFoldZeroInit : Pass<"tile-fold-zero-init", "::mlir::func::FuncOp"> {
  let summary = "fold a zero tile.fill of a gemm's accumulator into the gemm";
  let description = [{
    `tile.fill %c, 0.0` followed in the same block by `tile.gemm .., %c`,
    with no op between them that touches `%c` (as an operand or inside its
    regions), becomes `tile.gemm .., %c {zero_init}` and the fill goes:
    the gemm computes `C = A x B` without reading `C`. On the wgmma engine
    the first k-step then does not accumulate (scale-d 0), so the
    accumulator registers are not zeroed first: ptxas turns a shared-A
    wgmma whose accumulator is a constant zero into that form itself, but
    not the register-A wgmma (inline PTX with tied accumulators), whose
    zeroing took 32 register moves per thread and product (docs/perf-notes.md
    v20: 993 `IMAD.MOV` per GDN chunk step). The fill's value must be a
    constant +0.0 (-0.0 is left alone: the product of A and B could differ
    in the sign of a zero); fills of other buffers, non-zero fills and fills
    with a use of `C` before the gemm stay. Runs on every kernel when
    gdn-lower-to-ptx runs (`zero-init-gemm=0` turns it off; on the H200 it
    took 2-4 % off the GDN forward, outputs bit-identical).

    Before:
    ```mlir
    tile.fill %ks, %zero : !tile.buffer<128x64xf32, fragment>, f32
    tile.gemm %s16, %sK, %ks {transpose_b} : ...
    ```
    After:
    ```mlir
    tile.gemm %s16, %sK, %ks {transpose_b, zero_init} : ...
    ```
  }];
  let dependentDialects = ["::mlir::gdn::tile::TileDialect"];
  let statistics = [
    Statistic<"numFolded", "folded-fills", "Zero fills folded into gemms">
  ];
}

//===----------------------------------------------------------------------===//
// SpecializeDivisors
//===----------------------------------------------------------------------===//

def TileSpecializeDivisors : Pass<"tile-specialize-divisors", "::mlir::func::FuncOp"> {
  let summary = "divide by a block-uniform runtime value with a shift where it is a power of two";
  let description = [{
    An unsigned integer division or remainder (`arith.divui`, `arith.remui`,
    scalar integer or index) whose divisor `d` is not a constant but is the
    same in every thread of a block becomes a branch on `d`:

    * `d` a power of two (`d != 0` and `d & (d - 1) == 0`): `x >> log2(d)`,
      `log2(d) = popcount(d - 1)`, for the quotient, `x & (d - 1)` for the
      remainder;
    * otherwise the division as it was.

    The GPU has no integer divide instruction: ptxas expands each PTX
    `div.u32` by a register into a ~28-instruction reciprocal sequence
    (I2F, MUFU.RCP, F2I, a chain of multiplies and corrections), which the
    shift side replaces by ~8 (LLVM folds the test into `popc(d) == 1`). The GDN prep runs three such divisions per
    block of one chunk (a chunk's sequence `c / cdiv(T, 64)`, the GVA group
    `HV / H` and the key head `hv / group`), on the path to its first
    loads; on every shape measured in docs/perf-notes.md they are powers of
    two (group 1, 64 chunks per sequence, or one sequence).

    The divisor is block-uniform when it is computed only from constants,
    the kernel's parameters (the arguments of a `tile.kernel` function),
    `tile.program_id` and `tile.num_programs`, by `arith` ops:
    then every thread of a warp takes the same side and the branch does not
    diverge. Anything else (thread-dependent values, loads, loop induction
    variables, results of regions) is left alone, as are constant divisors
    (LLVM strength-reduces those), signed divisions and divisions inside a
    region of a tile op other than `tile.warp_specialize`,
    `tile.producer` and `tile.producer_task` (a `tile.map` body is
    instantiated per element). The result is the same integer on both
    sides (a division by zero stays on the division's side). Runs in
    gdn-lower-to-ptx after arith-expand, so the divisions that
    `arith.ceildivui` expands into are included (`pow2-divisors=0` turns it
    off).

    Before:
    ```mlir
    %group = arith.divui %hvs, %h : index
    ```
    After:
    ```mlir
    %m = arith.subi %h, %c1 : index
    %low = arith.andi %h, %m : index
    %p = arith.cmpi eq, %low, %c0 : index
    %nz = arith.cmpi ne, %h, %c0 : index
    %pow2 = arith.andi %p, %nz : i1
    %group = scf.if %pow2 -> (index) {
      %w = arith.index_castui %m : index to i64
      %n = math.ctpop %w : i64
      %s = arith.index_castui %n : i64 to index
      %q = arith.shrui %hvs, %s : index
      scf.yield %q : index
    } else {
      %q = arith.divui %hvs, %h : index
      scf.yield %q : index
    }
    ```
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect",
                           "::mlir::math::MathDialect",
                           "::mlir::scf::SCFDialect"];
  let statistics = [
    Statistic<"numSpecialized", "specialized",
              "divisions and remainders given a power-of-two branch">
  ];
}

//===----------------------------------------------------------------------===//
// AsyncGemm
//===----------------------------------------------------------------------===//

def TileAsyncGemm : Pass<"tile-async-gemm", "::mlir::func::FuncOp"> {
  let summary = "overlap independent wgmma gemms (tile.gemm {async} + tile.gemm_wait)";
  let description = [{
    A synchronous `tile.gemm` on the wgmma engine issues its MMAs as one
    group and waits for it at once (`wgmma.wait_group 0`), so consecutive
    independent products pay their tensor-core latencies in series. This
    pass marks such gemms `async` (one wgmma group each, in issue order)
    and places a `tile.gemm_wait` before the first op that needs a pending
    gemm's result, leaving the gemms issued after that one in flight
    (`pending` = their number: the W map of the GDN step waits for K S
    while Q S keeps running), and a full wait (`pending = 0`) before an op
    that would disturb any of them, so that independent products (and the
    register or shared-memory work between them) overlap.

    An op needs a wait when it (or an op nested in it) uses the
    accumulator or the register A operand of a pending gemm (it waits for
    the youngest such gemm), writes shared memory that a pending gemm's
    shared operand occupies (the tensor cores may still be reading it: it
    waits for the youngest such gemm), waits for `cp.async` copies (they
    land in shared memory), is a `tile.barrier` or `tile.any` (after it
    other warpgroups may write what a pending gemm of this one still
    reads), or declares no memory effects at all (a barrier or call of
    another dialect). Shared bytes are compared where
    `tile-plan-shared-memory` placed the buffers (the ranges
    `tile-insert-barriers` compares) and only for plain synchronous writes
    (`tile.copy`, `tile.map`, `tile.fill`, `tile.scan`, `tile.reduce`,
    `tile.zero_tail`); a write into an unplaced buffer, and any other op
    that writes shared memory (an mbarrier arrive hands a ring stage back
    to the TMA, a TMA load lands later), waits for every pending gemm. A
    gemm that writes a pending gemm's accumulator or register operand
    waits for that gemm; gemms sharing an operand do not.
    Pending gemms flow into and out of `scf.if` branches when both ways
    leave the same ones in flight (a wait counts groups); otherwise each
    branch drains at its end (a branch that yields a pending fragment waits
    first); loops wait before them and their bodies
    are scanned on their own, with a wait at the end of each body, as
    before every function return; other region ops are checked as a whole.
    Runs after `tile-insert-barriers` (so that no barrier lands between a
    gemm and its wait) on the kernels that carry the unit attribute
    `tile.async_gemm`, or on every kernel with `all` (gdn-lower-to-ptx's
    `async-gemm=1`), every `tile.producer_task` in them included, and on
    the bodies of `tile.producer_task`s marked `async_gemm` in any kernel.
    A task is scheduled on its own: nothing in flight at its entry, a wait
    at its end (its wgmma groups are its warpgroup's own, whatever the
    consumers run; the code around it is checked against it as a whole);
    kernels whose gemms `tile-pipeline`
    already made asynchronous are otherwise left alone (a kernel that
    requests warp
    specialization is scheduled like any other: the waits stay with its
    gemms in the consumer warpgroups, and a TMA ring's release of a stage,
    an mbarrier arrive that writes shared memory, waits for the gemms
    reading it).

    Before:
    ```mlir
    tile.gemm %s16, %sK, %ks {transpose_b} : ...
    tile.gemm %s16, %sQ, %o {transpose_b} : ...
    tile.map ins(%ks : ...) ...
    ```
    After:
    ```mlir
    tile.gemm %s16, %sK, %ks {async, transpose_b} : ...
    tile.gemm %s16, %sQ, %o {async, transpose_b} : ...
    tile.gemm_wait {pending = 0}
    tile.map ins(%ks : ...) ...
    ```
  }];
  let dependentDialects = ["::mlir::gdn::tile::TileDialect"];
  let options = [
    Option<"all", "all", "bool", /*default=*/"false",
           "schedule every kernel, not only those with tile.async_gemm">
  ];
  let statistics = [
    Statistic<"numAsync", "async-gemms", "Gemms made asynchronous">,
    Statistic<"numWaits", "gemm-waits", "tile.gemm_wait ops inserted">,
    Statistic<"numPartialWaits", "partial-gemm-waits", "tile.gemm_wait ops that leave younger groups in flight">
  ];
}

//===----------------------------------------------------------------------===//
// WarpSpecialize
//===----------------------------------------------------------------------===//

def TileWarpSpecialize : Pass<"tile-warp-specialize", "::mlir::func::FuncOp"> {
  let summary = "split a TMA-pipelined kernel into a producer warpgroup and consumers";
  let description = [{
    For kernels that ask for it (`tile.warp_specialize = {producer_registers
    = P, consumer_registers = C}`), after `tile-pipeline` built their mbarrier
    rings: adds one producer warpgroup (`tile.producer_warps = 4`; one per
    task group, below) to the kernel's `tile.num_warps` compute warps and
    splits the kernel body,
    after the barrier that follows the rings' initialization, into a
    `tile.warp_specialize` op:

    * the **producer** region is the body with only its control flow, the
      index arithmetic it needs and the rings' producer steps (the
      `tile.producer` regions that issue TMA loads: the waits for free
      stages, the `expect_tx` arrivals and the loads), run by the producer
      warpgroup's first thread; every other op with memory effects is
      dropped (also a `tile.producer` region without a TMA load: one
      consumer thread's work), and so are dead loops and branches; the
      kernel's `tile.producer_task` regions stay whole (the producer
      warpgroup's own compute, e.g. the next chunk's operands): each gets
      `thread_base = 32 * num_warps` (the lowering numbers its threads from
      there) and its block barriers become the producer warpgroup's named
      barrier (`bar.sync 2, 128`); a task must have 4 warps;
    * **task groups**: a kernel whose `tile.producer_task`s name groups
      `0 .. G-1` gets `G` producer warpgroups (`tile.producer_warps = 4G`),
      which all run the producer program; a task of group g runs on
      warpgroup g only (`thread_base = 32 * num_warps + 128 g`, named
      barrier `2 + g`; the lowering guards its body by the warpgroup), so
      tasks of different groups run concurrently. The rings' TMA issue
      stays on the first producer thread unless the request says
      `tma_issue = "round_robin"`: then each producer step is cloned per
      warpgroup and guarded by `stage mod G == g` (its loads' ring stage),
      on warpgroup g's first thread: a stage always has one issuer, and
      with `G` dividing the ring's stages warpgroup g issues the loads of
      the iterations whose tasks it runs. With `tma_issue = "consumer"`
      the producer steps stay in the consumer region instead (consumer
      thread 0 issues them, after its own release of the stage it reuses
      last; tile-pipeline then issues the loads `N` iterations ahead,
      into the stage just released), and the producer warpgroups run
      only their tasks (a kernel without one is an error): a task's warps then never wait for free
      stages (a task that reads a stage still waits for its loads);
    * the **consumer** region is the body without the rings' producer
      steps and without the producer tasks; its block barriers become named
      barriers over the consumer threads only (`bar.sync 1, 32 *
      num_warps`), since the producer never reaches them;
    * **per-role loop hints**: a loop's `producer_loop_annotation` (an
      `#llvm.loop_annotation`, given on its `tile.for`) becomes the
      `loop_annotation` of the producer region's copy of the loop, in place
      of the one both copies would otherwise share, and is dropped from
      the consumers' copy (e.g. LICM off only in a task that runs at few
      registers: hoisted addresses would spill there, while the consumers
      keep theirs out of the loop).

    Registers move from the producer to the consumers (`setmaxnreg.dec P`,
    `setmaxnreg.inc C`). Every thread starts with the registers ptxas gives
    the block, `E = min(256, 65536 / threads rounded down to 8)`, or the
    kernel's `tile.max_registers` (its `.maxnreg`; then a multiple of 8)
    where that is less; `.inc` blocks until the registers are free, so the
    pass requires `P <= E <= C` and `P * 128 G + C * 32 * num_warps <= E *
    threads` (8 consumer warps: E = 168, and 40/232 uses all 64512; two
    task groups: E = 128, and 64/192 uses all 65536; capped
    at 136, 24/192 uses all 52224 and leaves room for another kernel's
    block on the SM).
    A loop bound the producer needs may come from a global-memory load (it
    repeats the load); one computed from shared memory or other effects is
    an error, unless every op under the branch or loop it decides is the
    consumers' (a per-iteration flag read from a ring stage choosing extra
    consumer work): the producer drops such a branch or loop, emptied,
    before it looks at the condition. A `tile.any` (a vote, which is also
    a barrier) takes its role's named barrier (`id`, `threads`), as the
    role's barriers do: a task's votes its warpgroup's, the others the
    consumers' (the producer drops them; one whose result its control
    flow needs is an error, as for any value computed from shared memory
    or registers; so is one inside a `tile.producer` region, one thread's
    work). A `tile.reduce` in the consumers lowers its barriers to the
    consumers' named barrier (convert-tile-to-nvvm sees
    `tile.producer_warps`). Producer and consumers meet only at the rings' mbarriers,
    so the producer runs up to `stages` loads ahead, across loop iterations
    and (in persistent kernels) across tiles. Runs after
    `tile-insert-barriers`.

    Before (after tile-pipeline):
    ```mlir
    tile.producer { tile.mbarrier_init ... }
    tile.barrier
    scf.for ... {
      tile.mbarrier_wait %full[%s], %p : ...
      tile.gemm ...
      tile.mbarrier_arrive %empty[%s] : ...
      scf.if %more { tile.producer { <wait empty, expect_tx, TMA loads> } }
    }
    ```
    After:
    ```mlir
    tile.producer { tile.mbarrier_init ... }
    tile.barrier
    tile.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232}
    producer {
      scf.for ... { scf.if %more { tile.producer thread 256 { ... } } }
    } consumer {
      scf.for ... { tile.mbarrier_wait ...; tile.gemm ...; tile.mbarrier_arrive ... }
    }
    ```
  }];
  let dependentDialects = ["::mlir::gdn::tile::TileDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::scf::SCFDialect"];
  let statistics = [
    Statistic<"numSpecialized", "specialized-kernels", "Kernels split into producer and consumers">,
    Statistic<"numNamedBarriers", "named-barriers", "Consumer barriers made named barriers">
  ];
}

//===----------------------------------------------------------------------===//
// ProxyFences
//===----------------------------------------------------------------------===//

def TileProxyFences : Pass<"tile-proxy-fences", "::mlir::func::FuncOp"> {
  let summary = "decide which barriers fence generic- against async-proxy accesses";
  let description = [{
    wgmma reads its shared-memory operands, and a TMA store its source,
    through the async proxy; shared-memory stores (and `cp.async`) of the
    block's threads write through the generic proxy. Before such a read
    sees another thread's write, the writer must order its generic accesses
    before the async proxy's (`fence.proxy.async.shared::cta`) and then
    meet the reader at a barrier. Without a decision the lowering fences
    every `tile.barrier` of a kernel that uses wgmma or TMA stores. The
    fence is not free (`MEMBAR.ALL.CTA` plus `FENCE.VIEW.ASYNC.S` in the
    SASS, each thread waiting for its outstanding memory accesses), and a
    barrier after a kernel's last wgmma orders nothing the async proxy will
    read: the GDN prep forms its Gram matrix by wgmma and then runs the
    inverse and the Ag map through a dozen barriers, each with a fence
    (docs/perf-notes.md v38: prep -3..-4 % without them).

    This pass sets `proxy_fence` on every `tile.barrier` (and `tile.any`,
    which ends in a block barrier): `true` when the
    barrier is the last one before an async read on some path, else
    `false`. An async read is a gemm on the wgmma engine, a
    `tile.tma_store`, a call (not looked into), or an mbarrier arrival (it
    may hand what its side wrote to another role whose wgmma reads it: a
    producer task's results to the consumers). A fence at the last
    barrier before the read suffices: every write that an earlier barrier
    orders before the read comes before that barrier too, in the writing
    thread's order. The paths from a barrier run forward in program order
    and stop at the next barrier of the same block (or one that every
    region of an `scf.if` / `scf.index_switch` reaches); a loop's paths
    wrap around to its body's top (and its body may run zero times); a
    producer task's paths wrap around to the task's top (its warps run
    nothing else); any other op with regions (the roles of a
    `tile.warp_specialize`, a `tile.producer`, an `scf.while`) counts as an
    async read if it holds one anywhere. TMA loads are not counted: what
    the consumers read of a ring stage is ordered before the next load into
    it by the ring's mbarriers, and `tile.zero_tail` fences its own writes.
    Runs last among the tile passes (after `tile-warp-specialize`, whose
    named barriers keep the attribute).

    Before (a wgmma kernel):
    ```mlir
    tile.barrier
    tile.gemm %sK, %sK, %gram {transpose_b} : ...
    tile.copy %gram to %sL : ...
    tile.barrier
    tile.tril_inverse %sL, %sT : ...
    ```
    After:
    ```mlir
    tile.barrier {proxy_fence = true}
    tile.gemm %sK, %sK, %gram {transpose_b} : ...
    tile.copy %gram to %sL : ...
    tile.barrier {proxy_fence = false}
    tile.tril_inverse %sL, %sT : ...
    ```
  }];
  let dependentDialects = ["::mlir::gdn::tile::TileDialect"];
  let statistics = [
    Statistic<"numFenced", "fenced", "Barriers that keep the proxy fence">,
    Statistic<"numElided", "elided",
              "Barriers of wgmma / TMA-store kernels without the fence">
  ];
}

#endif // GDN_DIALECT_TILE_TRANSFORMS_PASSES_TD
