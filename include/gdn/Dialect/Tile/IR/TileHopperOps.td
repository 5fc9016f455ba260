//===- TileHopperOps.td - TMA, mbarriers, warp roles -------*- tablegen -*-===//
//
// The Hopper (sm_90a) part of the tile dialect: tensor-memory-accelerator
// (TMA) tile loads that complete on shared-memory barriers (mbarriers), the
// mbarrier operations of a producer/consumer ring, the single-thread
// producer region, the warp-specialized split of a kernel into a producer
// warpgroup and consumer warpgroups, and the wait for asynchronous wgmma
// groups. Kernels rarely write these ops: `tile-pipeline` and
// `tile-warp-specialize` create them from `tile.for` loops when the kernel
// asks for TMA (`tile.copy_engine = "tma"`) and warp specialization
// (`tile.warp_specialize`). Included by TileOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DIALECT_TILE_IR_TILEHOPPEROPS_TD
#define GDN_DIALECT_TILE_IR_TILEHOPPEROPS_TD

def Tile_NumProgramsOp : Tile_Op<"num_programs", [Pure]> {
  let summary = "number of thread blocks in the grid along a dimension";
  let description = [{
    With `tile.program_id`, the stride of a persistent loop over tiles.

    Example:
    ```mlir
    %n = tile.num_programs x
    ```
  }];
  let arguments = (ins Tile_DimAttr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "custom<Dim>($dim) attr-dict";
}

def Tile_TmaLoadOp : Tile_Op<"tma_load"> {
  let summary = "asynchronous TMA tile load that completes on an mbarrier";
  let description = [{
    Starts a `cp.async.bulk.tensor` load of the box of `map` at the element
    coordinates `coords` (one per dimension, outermost first, as for
    `tile.copy`) into the shared buffer `dest`, and makes the load's bytes
    count towards the transaction count of barrier `barriers[index]`
    (`mbarrier::complete_tx`). Elements outside the tensor read as zero.

    `dest` has the map's box shape, except that its innermost dimension may
    be a multiple of the box's: then one load per box is issued, box `b`
    starting `b` boxes further along the innermost coordinate and stored
    `b * rows * swizzle` bytes into `dest` (the box order of
    `#tile.swizzle`). `dest`'s swizzle must be the map's.

    With `block_lower = K` (a square 2-D swizzled `dest` that K divides,
    whose swizzle span divides K; the map's box is K rows of one span) only
    the boxes in the K x K blocks on and below the diagonal of `dest` are
    loaded: `dest` is a column of K-row boxes per span, box `(r, c)` (row
    box `r` of span `c`) starting `r K` rows and `c` spans further into the
    tensor and stored `(c * rows / K + r)` boxes into `dest`, the same
    bytes as without `block_lower`. The blocks above the diagonal keep
    their contents, and the barrier expects only the boxes loaded (for the
    GDN chunk step's lower triangular Ag tile, whose upper block no gemm
    reads: `tile.gemm {b_block_lower}`).

    `l2_hint` is the L2 eviction priority of the loads (their
    `.L2::cache_hint` operand, from `createpolicy`; `tile.copy {l2_hint}`).

    The issuing thread is expected to have announced the bytes with
    `tile.mbarrier_arrive ... {expect_tx = N}`; `tile-pipeline` emits both
    inside a `tile.producer` region.

    Example:
    ```mlir
    tile.tma_load %mapB[%k, %n0] to %sB, %full[%s]
        : !tile.tensormap<64x64xf16, swizzle = 128>,
          !tile.buffer<64x256xf16, shared, #tile.swizzle<128>>, !tile.buffer<4xi64, shared>
    tile.tma_load %mapAg[%t, %c0] to %sAg, %full[%s] {block_lower = 32 : i64}
        : !tile.tensormap<32x32xf16, swizzle = 64>,
          !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>, !tile.buffer<2xi64, shared>
    ```
  }];
  let arguments = (ins Tile_TensorMapType:$map, Variadic<Index>:$coords,
                       Arg<Tile_AnyBuffer, "", [MemWrite]>:$dest,
                       Arg<Tile_AnyBuffer, "", [MemRead, MemWrite]>:$barriers,
                       Index:$index,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$block_lower,
                       OptionalAttr<Tile_L2HintAttr>:$l2_hint);
  let assemblyFormat = [{
    $map `[` $coords `]` `to` $dest `,` $barriers `[` $index `]` attr-dict
    `:` qualified(type($map)) `,` qualified(type($dest)) `,` qualified(type($barriers))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of TMA loads (boxes) the op issues.
    int64_t getNumBoxes();
    /// The boxes, in issue order: (row box, span) of `dest` (row box 0
    /// without `block_lower`).
    SmallVector<std::pair<int64_t, int64_t>> getBoxes();
    /// Bytes the op delivers to its barrier.
    int64_t getNumBytes();
  }];
  let builders = [
    OpBuilder<(ins "Value":$map, "ValueRange":$coords, "Value":$dest,
                   "Value":$barriers, "Value":$index), [{
      build($_builder, $_state, map, coords, dest, barriers, index,
            /*block_lower=*/IntegerAttr(), /*l2_hint=*/L2HintAttr());
    }]>
  ];
}

def Tile_TmaStoreOp : Tile_Op<"tma_store"> {
  let summary = "asynchronous TMA tile store from shared memory";
  let description = [{
    Starts a `cp.async.bulk.tensor` store of the shared buffer `source` to
    the box of `map` at the element coordinates `coords` (one per
    dimension, outermost first), then commits the bulk group. Elements of
    the box outside the tensor are not written. `source` holds the box as
    `tile.tma_load`'s destination does (several boxes along a swizzled
    innermost dimension, the map's swizzle).

    One thread issues it (put it in a `tile.producer` region). The threads
    that wrote `source` must have made their writes visible to the
    asynchronous proxy: the `tile.barrier` before the store does that in a
    kernel that has one (`fence.proxy.async.shared::cta`, which
    tile-insert-barriers' barriers carry in kernels with TMA stores).
    Before `source` is written again, the issuing thread waits with
    `tile.tma_store_wait {read}`.

    Example:
    ```mlir
    tile.producer {
      tile.tma_store %sC to %mapC[%m0, %n0]
          : !tile.buffer<64x64xf32, shared>, !tile.tensormap<64x64xf32, swizzle = 0>
      tile.tma_store_wait {pending = 0, read}
    }
    ```
  }];
  // The global tensor the map describes is written: an effect on `map`, so
  // that the store is never dead.
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemRead]>:$source,
                       Arg<Tile_TensorMapType, "", [MemWrite]>:$map,
                       Variadic<Index>:$coords);
  let assemblyFormat = [{
    $source `to` $map `[` $coords `]` attr-dict
    `:` qualified(type($source)) `,` qualified(type($map))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Number of TMA stores (boxes) the op issues.
    int64_t getNumBoxes();
  }];
}

def Tile_TmaStoreWaitOp : Tile_Op<"tma_store_wait"> {
  let summary = "wait for this thread's TMA stores";
  let description = [{
    Waits until at most `pending` of the issuing thread's most recent TMA
    store groups are outstanding: with `read`, until their shared-memory
    sources have been read (the buffers may be written again); without,
    until their writes are done (`cp.async.bulk.wait_group[.read]`).

    Example: `tile.tma_store_wait {pending = 0, read}`
  }];
  let arguments = (ins DefaultValuedAttr<ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<64>]>, "0">:$pending,
                       UnitAttr:$read);
  let assemblyFormat = "attr-dict";
}

def Tile_MBarrierInitOp : Tile_Op<"mbarrier_init"> {
  let summary = "initialize every mbarrier of a barrier buffer";
  let description = [{
    `barriers` is a 1-D shared buffer of `i64`, one mbarrier object per
    element; each is initialized to expect `count` arrivals per phase, in
    phase 0. Run by one thread (inside `tile.producer`), followed by a block
    barrier before any other thread uses the barriers; the lowering adds the
    `fence.mbarrier_init` that makes the initialization visible to the
    asynchronous proxy.

    Example: `tile.mbarrier_init %full {count = 1} : !tile.buffer<4xi64, shared>`
  }];
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemWrite]>:$barriers,
                       ConfinedAttr<I64Attr, [IntPositive]>:$count);
  let assemblyFormat = "$barriers attr-dict `:` qualified(type($barriers))";
  let hasVerifier = 1;
}

def Tile_MBarrierArriveOp : Tile_Op<"mbarrier_arrive"> {
  let summary = "arrive on an mbarrier, optionally announcing TMA bytes";
  let description = [{
    Each executing thread arrives once on `barriers[index]`. With
    `expect_tx = N` the arrival also raises the phase's transaction count by
    `N` bytes (`mbarrier.arrive.expect_tx`): the phase completes once all
    arrivals happened and all announced bytes landed.

    Example:
    ```mlir
    tile.mbarrier_arrive %full[%s] {expect_tx = 49152} : !tile.buffer<4xi64, shared>
    tile.mbarrier_arrive %empty[%s] : !tile.buffer<4xi64, shared>
    ```
  }];
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemRead, MemWrite]>:$barriers,
                       Index:$index,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$expect_tx);
  let assemblyFormat = "$barriers `[` $index `]` attr-dict `:` qualified(type($barriers))";
  let hasVerifier = 1;
}

def Tile_MBarrierWaitOp : Tile_Op<"mbarrier_wait"> {
  let summary = "wait for the completion of an mbarrier phase";
  let description = [{
    Blocks until the phase of `barriers[index]` with parity `parity` (0 or 1,
    the low bit of the operand) has completed (`mbarrier.try_wait.parity`
    in a loop). Waiting with the parity of the phase before the first one
    returns at once, which is how a producer treats a fresh ring as empty.

    Example: `tile.mbarrier_wait %full[%s], %parity : !tile.buffer<4xi64, shared>`
  }];
  // A synchronization point: modelled as reading and writing the barrier,
  // so that it is neither removed nor reordered with other accesses.
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemRead, MemWrite]>:$barriers,
                       Index:$index, Index:$parity);
  let assemblyFormat = [{
    $barriers `[` $index `]` `,` $parity attr-dict `:` qualified(type($barriers))
  }];
  let hasVerifier = 1;
}

def Tile_ProducerOp : Tile_Op<"producer", [SingleBlock, NoTerminator,
    RecursiveMemoryEffects]> {
  let summary = "code run by the one thread that issues asynchronous copies";
  let description = [{
    The body runs on thread `thread` of the block only (thread 0 by default;
    `tile-warp-specialize` moves it to the producer warpgroup's first
    thread). `tile-pipeline` puts each ring step of the producer here: the
    wait for a free stage, the `expect_tx` arrival and the TMA loads.
    `tile-warp-specialize` uses these regions to tell the producer's work
    from the consumers'. The whole warp of `thread` must reach the op
    together (as every tile op's control flow is uniform): where the body
    opens with `tile.mbarrier_wait`s, the NVVM lowering runs those waits
    (and their side-effect-free operands) on that whole warp, under a
    warp-uniform condition, and only the rest on `thread` (a spin loop in a
    one-thread branch would cost the enclosing loop ptxas's uniform
    registers; docs/hopper-codegen.md §5.14).

    Example:
    ```mlir
    tile.producer thread 0 {
      tile.mbarrier_wait %empty[%s], %p : !tile.buffer<4xi64, shared>
      tile.mbarrier_arrive %full[%s] {expect_tx = 16384} : !tile.buffer<4xi64, shared>
      tile.tma_load %map[%m0, %k] to %sA, %full[%s] : ...
    }
    ```
  }];
  let arguments = (ins DefaultValuedAttr<ConfinedAttr<I64Attr, [IntNonNegative]>, "0">:$thread);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "(`thread` $thread^)? $body attr-dict";
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins CArg<"int64_t", "0">:$thread)>];
}

def Tile_WarpSpecializeOp : Tile_Op<"warp_specialize", [NoTerminator,
    RecursiveMemoryEffects]> {
  let summary = "split the block into a producer warpgroup and consumers";
  let description = [{
    The first `32 * tile.num_warps` threads (the consumers) run the
    `consumer` region, the `producer_warps` warps after them (one
    warpgroup) run the `producer` region. Registers are rebalanced on entry
    (`setmaxnreg.dec` to `producer_registers` in the producer, `.inc` to
    `consumer_registers` in the consumers; the kernel gets a register cap
    at entry). Created by `tile-warp-specialize`: consumers synchronize
    among themselves with named barriers, producer and consumers only
    through mbarriers.

    Example:
    ```mlir
    tile.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232}
    producer {
      ...
    } consumer {
      ...
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntPositive]>:$producer_warps,
                       ConfinedAttr<I64Attr, [IntMinValue<24>, IntMaxValue<256>]>:$producer_registers,
                       ConfinedAttr<I64Attr, [IntMinValue<24>, IntMaxValue<256>]>:$consumer_registers);
  let regions = (region SizedRegion<1>:$producer, SizedRegion<1>:$consumer);
  let assemblyFormat = "attr-dict `producer` $producer `consumer` $consumer";
  let hasVerifier = 1;
}

def Tile_ProducerTaskOp : Tile_Op<"producer_task", [
    SingleBlockImplicitTerminator<"ProducerTaskEndOp">,
    RecursiveMemoryEffects]> {
  let summary = "work of the producer warpgroup besides the rings' loads";
  let description = [{
    Compute that the producer warpgroup of a warp-specialized kernel
    (`num_warps` = 4 warps) runs concurrently with the rest of the kernel,
    e.g. forming the next chunk's operands while the consumer warpgroups
    work on this one. Inside the body the task's warps are the whole
    "block": its fragments are distributed over `32 * num_warps` threads,
    thread 0 of a `tile.producer` in it is the task's first thread, and its
    barriers synchronize the task's warps only. `mma_engine` overrides the
    kernel's `tile.mma_engine` for the body's gemms.

    The body shares nothing with the consumers but what it hands over
    through shared buffers allocated outside it, ordered by mbarriers the
    kernel writes (wait for a free slot, write it, `tile.barrier`, one
    thread arrives on the slot's full barrier; the consumers wait on it and
    arrive on the empty barrier after their last read), and the stages of
    the TMA ring of the loop it sits in, which it may read before that
    hand-off (`tile-pipeline` adds its wait for the stage's loads and checks
    the order). The passes treat it
    as a separate program: `tile-assign-layouts` lays out its gemms over
    its warps, `tile-plan-shared-memory` keeps the shared buffers it shares
    with the rest of the kernel live for the whole kernel and lets its own
    buffers share bytes only among themselves, `tile-insert-barriers`
    analyzes its body on its own (the kernel's sweep does not see its
    accesses), and `tile-warp-specialize` moves it into the
    producer region (setting `thread_base`, the index of the task's first
    thread in the block: the lowering numbers the task's threads from it)
    and removes it from the consumers'. A task must sit in a kernel with
    `tile.warp_specialize`.

    `group` (default 0) names the producer warpgroup that runs the task:
    a kernel whose tasks name groups `0 .. G-1` gets `G` producer
    warpgroups, which run the producer program side by side, each only
    its own group's tasks (thread base = consumer threads + 128 x group,
    named barrier 2 + group). Two tasks of different groups run
    concurrently, e.g. the tasks of chunks c and c + 1 of a two-slot
    hand-off, each group taking every other chunk under an `scf.if`.

    `async_gemm` asks `tile-async-gemm` to schedule the body's wgmma gemms
    on their own, as it schedules a kernel with `tile.async_gemm` (the
    task's wgmma groups are its warpgroup's, whatever the consumers run):
    each gemm is issued asynchronously and waited for where the body first
    needs its result or may disturb its operands, so that the task's
    independent work (e.g. a scan while the tensor cores form a Gram
    matrix) overlaps it.

    Example:
    ```mlir
    tile.producer_task warps 4 group 0 engine "mma.sync" {
      tile.mbarrier_wait %empty[%s], %p : !tile.buffer<2xi64, shared>
      ...
      tile.barrier
      tile.producer {
        tile.mbarrier_arrive %full[%s] : !tile.buffer<2xi64, shared>
      }
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntPositive]>:$num_warps,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$group,
                       OptionalAttr<StrAttr>:$mma_engine,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$thread_base,
                       UnitAttr:$async_gemm);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `warps` $num_warps (`group` $group^)? (`engine` $mma_engine^)?
    (`async_gemm` $async_gemm^)? $body attr-dict
  }];
  let extraClassDeclaration = [{
    /// The producer warpgroup that runs the task (0 without `group`).
    int64_t getGroupIndex() { return getGroup().value_or(0); }
  }];
  let hasVerifier = 1;
}

def Tile_ProducerTaskEndOp : Tile_Op<"producer_task_end", [Pure, Terminator,
    HasParent<"ProducerTaskOp">]> {
  let summary = "implicit end of a tile.producer_task body";
  let description = [{
    Ends the body of a `tile.producer_task`; implied by the custom syntax.
    (The conversion to NVVM keeps the task until its body is converted,
    which may split the body into several blocks: this is where the last
    one ends.)
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_GemmWaitOp : Tile_Op<"gemm_wait"> {
  let summary = "wait for asynchronous tile.gemm groups";
  let description = [{
    Waits until at most `pending` of the executing warpgroup's asynchronous
    `tile.gemm {async}` groups are still in flight (`wgmma.wait_group`).
    Until then, an async gemm's accumulator must not be read and its
    shared operands must not be overwritten. `tile-pipeline` places these
    waits: `pending = 1` keeps one k-step's MMAs in flight while the next
    one is issued.

    Example: `tile.gemm_wait {pending = 1}`
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<7>]>:$pending);
  let assemblyFormat = "attr-dict";
}

#endif // GDN_DIALECT_TILE_IR_TILEHOPPEROPS_TD
