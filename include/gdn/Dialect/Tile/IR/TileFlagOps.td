//===- TileFlagOps.td - ready flags between thread blocks --*- tablegen -*-===//
//
// Ready flags: one block publishes that data it wrote to global memory is
// complete, another block (of the same grid or of a kernel running beside
// it) waits for that before it reads the data. A flag is an i32 in a global
// buffer; a release stores a value (e.g. the call's epoch, so that no reset
// is needed between calls), a wait spins until the flag has reached it.
// Also the deferred wait for a kernel's stream predecessor (tile.grid_wait).
// Included by TileOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DIALECT_TILE_IR_TILEFLAGOPS_TD
#define GDN_DIALECT_TILE_IR_TILEFLAGOPS_TD

def Tile_FlagReleaseOp : Tile_Op<"flag_release"> {
  let summary = "publish the block's global writes through a ready flag";
  let description = [{
    Every thread of the block reaches it (of the warpgroup, in a
    `tile.producer_task`; of the consumers, in a warp-specialized kernel's
    compute). Once all of them have, one thread stores `value` to
    `flags[index]` with release semantics at GPU scope: a thread of any
    block that observes the value with `tile.flag_wait` then sees every
    global-memory write these threads made before the op.

    Lowering: a barrier over the threads (`bar.sync`), then the first
    thread (in a kernel with TMA stores, which it issues: first
    `cp.async.bulk.wait_group 0`, their global writes complete) runs
    `fence.proxy.async.global` and `st.release.gpu.global.b32`. The release
    is cumulative: the barrier makes the other threads' writes the first
    thread's to publish.

    A flag holds the last released value. With values that grow from call
    to call (an epoch), a wait for this call's value is not satisfied by an
    earlier call's flags, and the flags need no reset.

    Example:
    ```mlir
    tile.flag_release %ready[%i], %epoch : !tile.buffer<?xi32, global>
    ```
  }];
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemRead, MemWrite]>:$flags,
                       Index:$index, I32:$value);
  let assemblyFormat = [{
    $flags `[` $index `]` `,` $value attr-dict `:` qualified(type($flags))
  }];
  let hasVerifier = 1;
}

def Tile_FlagWaitOp : Tile_Op<"flag_wait"> {
  let summary = "wait until a ready flag has reached a value";
  let description = [{
    Each thread that executes it (typically the one thread of a
    `tile.producer` region) spins until `flags[index]` has reached `value`
    (`ld.acquire.gpu`; "reached" in wrap-around order: the 32-bit
    difference `flags[index] - value` is not negative), then orders its
    later asynchronous-proxy reads of global memory (TMA loads) after the
    acquire (`fence.proxy.async.global`). Global data that the releasing
    block wrote before its `tile.flag_release` is then visible to this
    thread's loads, and to the threads it synchronizes with afterwards (the
    consumers of a TMA ring, through the stage's full barrier).

    A wait that lasts longer than `timeout_ms` milliseconds (measured with
    `%globaltimer`) ends the kernel with a trap instead of hanging, e.g.
    when the releasing blocks could not be scheduled beside the waiting
    ones: the launch then fails with an error (a trap is sticky: the CUDA
    context is unusable afterwards, as after any kernel fault).
    `timeout_ms = 0` waits without a limit.

    In the body of a pipelined `tile.for` (`stages` > 1) the wait moves
    with the iteration's global-to-shared copies: `tile-pipeline` issues
    it, for the iteration the copies load, before them (inside the
    `tile.producer` of a TMA ring; by every thread before cp.async copies).
    Its operands must then be computable from the induction variable and
    values defined outside the loop, and it must sit at the top level of
    the body (nested in the body's control flow it would run after the
    loads it guards: refused).

    Example:
    ```mlir
    tile.flag_wait %ready[%i], %epoch : !tile.buffer<?xi32, global>
    tile.flag_wait %ready[%i], %epoch {timeout_ms = 0} : !tile.buffer<?xi32, global>
    ```
  }];
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemRead, MemWrite]>:$flags,
                       Index:$index, I32:$value,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntNonNegative, IntMaxValue<3600000>]>, "10000">:$timeout_ms);
  let assemblyFormat = [{
    $flags `[` $index `]` `,` $value attr-dict `:` qualified(type($flags))
  }];
  let hasVerifier = 1;
}

def Tile_GridWaitOp : Tile_Op<"grid_wait", [MemoryEffects<[MemRead, MemWrite]>]> {
  let summary = "wait for the stream predecessor's grid here";
  let description = [{
    Each thread that executes it waits until the kernel before this one in
    its stream has completed and its memory operations are visible
    (`griddepcontrol.wait`). It is what a kernel with
    `tile.grid_dependency = "deferred"` waits with; such a kernel lets its successor launch at
    entry (programmatic dependent launch, the manifest's
    `grid_dependency = 1`) but does not wait there: a block waits only
    where it executes this op, so blocks that touch nothing the
    predecessor writes may run, and finish, beside it. The kernel's own
    contract: every block waits before it reads or writes what the
    predecessor writes (its outputs, and where it could race a write of
    it), and some block of the grid always waits (e.g. the last one), so
    that the grid completes only after its predecessor and a successor
    that waits for this grid also finds the predecessor's writes done.
    What a block may read before its wait: docs/hopper-codegen.md §5.12,
    "Deferred waits". The lowering checks that a "deferred" kernel has the
    op; a kernel that waits at entry anyway (the unit attribute,
    `"wait_and_flags"`) may have it too (a second wait, which returns at
    once), one without programmatic dependence or with `"flags"` may not.
    tile-pipeline refuses it in a pipelined loop (the loads it issues
    ahead of the body would run before it). The CPU lowering drops it
    (kernels run one after another there). No verifier of its own: the op
    may sit in a helper function until the kernel's body is inlined.

    Example (a refined kernel's block that may exit early):
    ```mlir
    %w = arith.ori %runs, %last : i1
    scf.if %w {
      tile.grid_wait
    }
    ```
  }];
  let assemblyFormat = "attr-dict";
}

#endif // GDN_DIALECT_TILE_IR_TILEFLAGOPS_TD
