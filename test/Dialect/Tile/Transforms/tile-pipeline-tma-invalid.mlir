// RUN: gdn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tile-pipeline))'

// Loops tile-pipeline cannot put on a TMA ring: a remark where it falls
// back to cp.async, an error where it cannot pipeline at all.

// A masked copy from a view narrowed along the tile's second dimension: the
// ring zeroes rows past a narrowed extent only (dimension 0), so cp.async,
// with a remark.

func.func @narrowed_columns(%pq: !tile.ptr<f16>, %T: i32, %c0s: index, %w: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %q = tile.view %pq[%t] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  %cols = tile.narrow %q[%c0s, %w] dim 1 : !tile.buffer<?x128xf16, global> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  // expected-remark @below {{pipelined with cp.async instead of TMA: a masked copy is narrowed along a dimension other than the tile's first}}
  tile.for %i = %c0 to %t step %c64 stages 2 {
    tile.copy %cols[%i, %c0] to %s {masked, layout = #tile.blocked<vector = 8>} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.copy %s to %f : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// A destination with padded rows: a TMA box lands densely, so cp.async
// (which keeps the padding: its stage buffers are padded too).

func.func @padded_destination(%pq: !tile.ptr<f16>, %T: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %q = tile.view %pq[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.padded<8>>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  // expected-remark @below {{pipelined with cp.async instead of TMA: the shared tile's rows are padded (#tile.padded), which a TMA box cannot address}}
  tile.for %i = %c0 to %t step %c64 stages 2 {
    tile.copy %q[%i, %c0] to %s {masked, layout = #tile.blocked<vector = 8>} : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared, #tile.padded<8>>
    tile.copy %s to %f : !tile.buffer<64x64xf16, shared, #tile.padded<8>> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// A narrowed dimension that a tile.take then fixes: not a TMA coordinate
// the pass derives (cp.async, with a remark).

func.func @narrowed_then_taken(%pq: !tile.ptr<f16>, %T: i32, %H: i32, %h0: index, %nh: index, %head: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %h = arith.index_cast %H : i32 to index
  %q = tile.view %pq[%t, %h] : !tile.ptr<f16> -> !tile.buffer<?x?x128xf16, global>
  %heads = tile.narrow %q[%h0, %nh] dim 1 : !tile.buffer<?x?x128xf16, global> -> !tile.buffer<?x?x128xf16, global>
  %qh = tile.take %heads[%head] dims [1] : !tile.buffer<?x?x128xf16, global> -> !tile.buffer<?x128xf16, global>
  %s = tile.alloc : !tile.buffer<64x128xf16, shared>
  %f = tile.alloc : !tile.buffer<64x128xf32, fragment, #tile.blocked<vector = 4>>
  // expected-remark @below {{pipelined with cp.async instead of TMA: a narrowed dimension is taken}}
  tile.for %i = %c0 to %t step %c64 stages 2 {
    tile.copy %qh[%i, %c0] to %s {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x128xf16, global> to !tile.buffer<64x128xf16, shared>
    tile.copy %s to %f : !tile.buffer<64x128xf16, shared> to !tile.buffer<64x128xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// The ring counts iterations across the executions of a loop; it cannot if
// the trip count changes from one execution to the next: cp.async instead.

func.func @varying_trip(%pa: !tile.ptr<f16>, %M: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %M : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.for %t = %c0 to %c4 step %c1 stages 1 {
    %ub = arith.muli %t, %c64 : index
    // expected-remark @below {{pipelined with cp.async instead of TMA: the loop's trip count changes between iterations of the enclosing loop}}
    tile.for %kk = %c0 to %ub step %c64 stages 2 {
      tile.copy %A[%c0, %kk] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.copy %s to %f : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
    }
  }
  return
}

// -----

// A ring loop under a branch: cp.async (the ring's numbering needs the loop
// at the top level or directly in a loop there).
func.func @under_if(%pa: !tile.ptr<f16>, %M: i32, %K: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %M : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  %cnd = arith.cmpi sgt, %m, %c0 : index
  scf.if %cnd {
    // expected-remark @below {{pipelined with cp.async instead of TMA: the loop is nested in 'scf.if'; a TMA ring must be at the top level of the kernel or directly in a loop there}}
    tile.for %kk = %c0 to %k step %c64 stages 2 {
      tile.copy %A[%c0, %kk] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.copy %s to %f : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
    }
  }
  return
}

// -----

// 32-byte tiles would put the stages of the ring 32 bytes apart; TMA
// destinations are 128-byte aligned.
func.func @small_stage(%pg: !tile.ptr<f16>, %T: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %t = arith.index_cast %T : i32 to index
  %G = tile.view %pg[%t] : !tile.ptr<f16> -> !tile.buffer<?xf16, global>
  %s = tile.alloc : !tile.buffer<16xf16, shared>
  %f = tile.alloc : !tile.buffer<16xf32, fragment>
  // expected-remark @below {{pipelined with cp.async instead of TMA: the tile's 32 bytes would put ring stages off the 128-byte alignment TMA destinations need}}
  tile.for %i = %c0 to %t step %c16 stages 3 {
    tile.copy %G[%i] to %s : !tile.buffer<?xf16, global> to !tile.buffer<16xf16, shared>
    tile.copy %s to %f : !tile.buffer<16xf16, shared> to !tile.buffer<16xf32, fragment>
  }
  return
}

// -----

// Rows of 100 f16 (200 bytes): TMA strides are multiples of 16 bytes.
func.func @odd_stride(%pa: !tile.ptr<f16>, %M: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %M : i32 to index
  %A = tile.view %pa[%m] : !tile.ptr<f16> -> !tile.buffer<?x100xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  // expected-remark @below {{pipelined with cp.async instead of TMA: tensor dimension 0 has a stride of 200 bytes, not a multiple of 16}}
  tile.for %i = %c0 to %m step %c64 stages 2 {
    tile.copy %A[%i, %c0] to %s {masked} : !tile.buffer<?x100xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.copy %s to %f : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// A per-token f32 scalar of a packed sequence, narrowed to [bos, bos + len):
// the time dimension is the contiguous one, and a TMA load whose first
// element is off 16 bytes faults (bos is any token), so cp.async.
func.func @unaligned_window(%pg: !tile.ptr<f32> {tile.name = "gamma"}, %T: i32 {tile.name = "T"},
                            %bos: index, %len: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %g = tile.view %pg[%t] : !tile.ptr<f32> -> !tile.buffer<?xf32, global>
  %gs = tile.narrow %g[%bos, %len] dim 0 : !tile.buffer<?xf32, global> -> !tile.buffer<?xf32, global>
  %s = tile.alloc : !tile.buffer<64xf32, shared>
  %f = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
  // expected-remark @below {{pipelined with cp.async instead of TMA: the innermost coordinate is not provably a multiple of 4 elements (16 bytes)}}
  tile.for %i = %c0 to %len step %c64 stages 2 {
    tile.copy %gs[%i] to %s {masked} : !tile.buffer<?xf32, global> to !tile.buffer<64xf32, shared>
    tile.copy %s to %f : !tile.buffer<64xf32, shared> to !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
  }
  return
}

// -----

// A column offset of 4 f16 (8 bytes) plus the loop's multiple of 64: the
// known divisor of the sum is 4 elements, TMA needs 8.
func.func @unaligned_columns(%pa: !tile.ptr<f16> {tile.name = "A"}, %M: i32 {tile.name = "M"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %m = arith.index_cast %M : i32 to index
  %A = tile.view %pa[%m] : !tile.ptr<f16> -> !tile.buffer<?x512xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  // expected-remark @below {{pipelined with cp.async instead of TMA: the innermost coordinate is not provably a multiple of 8 elements (16 bytes)}}
  tile.for %k = %c0 to %c256 step %c64 stages 2 {
    %col = arith.addi %k, %c4 : index
    tile.copy %A[%c0, %col] to %s : !tile.buffer<?x512xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.copy %s to %f : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// A tile.producer_task may read a ring stage only if the consumers wait for
// its hand-off before they touch the stage (they release the stage after
// their reads, and the task zeroes its tail rows): here they read it first.

func.func @ring_read_before_hand_off(%pk: !tile.ptr<f16> {tile.name = "k"}, %T: i32 {tile.name = "T"}, %slot: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %k = tile.view %pk[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %sk = tile.alloc : !tile.buffer<64x64xf16, shared>
  %ring = tile.alloc : !tile.buffer<2x64x64xf32, shared>
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.for %i = %c0 to %t step %c64 stages 2 {
    tile.copy %k[%i, %c0] to %sk : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.producer_task warps 4 {
      %g = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      tile.copy %sk to %g : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      %dst = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf32, shared> -> !tile.buffer<64x64xf32, shared>
      tile.copy %g to %dst : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<64x64xf32, shared>
      tile.barrier
      tile.producer {
        tile.mbarrier_arrive %full[%slot] : !tile.buffer<2xi64, shared>
      }
    }
    // expected-error @below {{uses a TMA ring stage that a tile.producer_task of the loop reads before waiting on the task's hand-off barrier}}
    tile.copy %sk to %f : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
    tile.mbarrier_wait %full[%slot], %i : !tile.buffer<2xi64, shared>
  }
  return
}

// -----

// A task that reads a ring stage but hands nothing over: nothing orders its
// reads before the consumers' release of the stage.

func.func @ring_read_no_hand_off(%pk: !tile.ptr<f16> {tile.name = "k"}, %T: i32 {tile.name = "T"}, %slot: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %k = tile.view %pk[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %sk = tile.alloc : !tile.buffer<64x64xf16, shared>
  %ring = tile.alloc : !tile.buffer<2x64x64xf32, shared>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.for %i = %c0 to %t step %c64 stages 2 {
    tile.copy %k[%i, %c0] to %sk : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
    // expected-error @below {{reads a TMA ring stage but hands nothing to the consumers}}
    tile.producer_task warps 4 {
      %g = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      tile.copy %sk to %g : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      %dst = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf32, shared> -> !tile.buffer<64x64xf32, shared>
      tile.copy %g to %dst : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<64x64xf32, shared>
    }
    tile.copy %sk to %f : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// The task hands over on one slot, the consumers wait on another: no wait
// of the body matches the task's last arrival.

func.func @ring_read_other_slot(%pk: !tile.ptr<f16> {tile.name = "k"}, %T: i32 {tile.name = "T"}, %slot: index, %other: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %k = tile.view %pk[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %sk = tile.alloc : !tile.buffer<64x64xf16, shared>
  %ring = tile.alloc : !tile.buffer<2x64x64xf32, shared>
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.for %i = %c0 to %t step %c64 stages 2 {
    tile.copy %k[%i, %c0] to %sk : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
    // expected-error @below {{reads a TMA ring stage, but the loop body does not wait}}
    tile.producer_task warps 4 {
      %g = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      tile.copy %sk to %g : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      %dst = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf32, shared> -> !tile.buffer<64x64xf32, shared>
      tile.copy %g to %dst : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<64x64xf32, shared>
      tile.barrier
      tile.producer {
        tile.mbarrier_arrive %full[%slot] : !tile.buffer<2xi64, shared>
      }
    }
    tile.mbarrier_wait %full[%other], %i : !tile.buffer<2xi64, shared>
    tile.copy %sk to %f : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// A read of the stage after the task's hand-off: the consumers may have
// released the stage (and TMA refilled it) by then.

func.func @ring_read_after_hand_off(%pk: !tile.ptr<f16> {tile.name = "k"}, %T: i32 {tile.name = "T"}, %slot: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %k = tile.view %pk[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %sk = tile.alloc : !tile.buffer<64x64xf16, shared>
  %ring = tile.alloc : !tile.buffer<2x64x64xf32, shared>
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.for %i = %c0 to %t step %c64 stages 2 {
    tile.copy %k[%i, %c0] to %sk : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.producer_task warps 4 {
      %g = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      tile.copy %sk to %g : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      %dst = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf32, shared> -> !tile.buffer<64x64xf32, shared>
      tile.copy %g to %dst : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<64x64xf32, shared>
      tile.barrier
      tile.producer {
        tile.mbarrier_arrive %full[%slot] : !tile.buffer<2xi64, shared>
      }
      // expected-error @below {{reads a TMA ring stage in a tile.producer_task after the task's hand-off arrival}}
      tile.copy %sk to %g : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
    }
    tile.mbarrier_wait %full[%slot], %i : !tile.buffer<2xi64, shared>
    tile.copy %sk to %f : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// Only a TMA ring's mbarriers order a task's reads of a stage: in a loop
// pipelined with cp.async (no tile.copy_engine = "tma") it is an error.

func.func @ring_read_cp_async(%pk: !tile.ptr<f16> {tile.name = "k"}, %T: i32 {tile.name = "T"}, %slot: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %k = tile.view %pk[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %sk = tile.alloc : !tile.buffer<64x64xf16, shared>
  %ring = tile.alloc : !tile.buffer<2x64x64xf32, shared>
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.for %i = %c0 to %t step %c64 stages 2 {
    tile.copy %k[%i, %c0] to %sk {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
    // expected-error @below {{reads a stage of a loop pipelined with cp.async}}
    tile.producer_task warps 4 {
      %g = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      tile.copy %sk to %g : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      %dst = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf32, shared> -> !tile.buffer<64x64xf32, shared>
      tile.copy %g to %dst : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<64x64xf32, shared>
      tile.barrier
      tile.producer {
        tile.mbarrier_arrive %full[%slot] : !tile.buffer<2xi64, shared>
      }
    }
    tile.mbarrier_wait %full[%slot], %i : !tile.buffer<2xi64, shared>
    tile.copy %sk to %f : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// Two tasks reading the same ring: one task per ring may.

func.func @ring_two_readers(%pk: !tile.ptr<f16> {tile.name = "k"}, %T: i32 {tile.name = "T"}, %slot: index, %c: i1)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %k = tile.view %pk[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %sk = tile.alloc : !tile.buffer<64x64xf16, shared>
  %oth = tile.alloc : !tile.buffer<64x64xf16, shared>
  %ring = tile.alloc : !tile.buffer<2x64x64xf32, shared>
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.for %i = %c0 to %t step %c64 stages 2 {
    tile.copy %k[%i, %c0] to %sk : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.producer_task warps 4 {
      %g = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      tile.copy %sk to %g : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      %dst = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf32, shared> -> !tile.buffer<64x64xf32, shared>
      tile.copy %g to %dst : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<64x64xf32, shared>
      tile.barrier
      tile.producer {
        tile.mbarrier_arrive %full[%slot] : !tile.buffer<2xi64, shared>
      }
    }
    // expected-error @below {{reads a TMA ring stage that another tile.producer_task of the loop reads too}}
    tile.producer_task warps 4 {
      %g = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      tile.copy %sk to %g : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      %dst = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf32, shared> -> !tile.buffer<64x64xf32, shared>
      tile.copy %g to %dst : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<64x64xf32, shared>
      tile.barrier
      tile.producer {
        tile.mbarrier_arrive %full[%slot] : !tile.buffer<2xi64, shared>
      }
    }
    tile.mbarrier_wait %full[%slot], %i : !tile.buffer<2xi64, shared>
    tile.copy %sk to %f : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// A reading task nested in the body's control flow: the check (and the
// wait the pass gives the task) need it at the body's top level.

func.func @ring_nested_reader(%pk: !tile.ptr<f16> {tile.name = "k"}, %T: i32 {tile.name = "T"}, %slot: index, %c: i1)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %k = tile.view %pk[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %sk = tile.alloc : !tile.buffer<64x64xf16, shared>
  %oth = tile.alloc : !tile.buffer<64x64xf16, shared>
  %ring = tile.alloc : !tile.buffer<2x64x64xf32, shared>
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.for %i = %c0 to %t step %c64 stages 2 {
    tile.copy %k[%i, %c0] to %sk : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
    scf.if %c {
      // expected-error @below {{reads a TMA ring stage, so it must sit at the top level of the pipelined loop's body}}
      tile.producer_task warps 4 {
        %g = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
        tile.copy %sk to %g : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
        %dst = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf32, shared> -> !tile.buffer<64x64xf32, shared>
        tile.copy %g to %dst : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<64x64xf32, shared>
        tile.barrier
        tile.producer {
          tile.mbarrier_arrive %full[%slot] : !tile.buffer<2xi64, shared>
        }
      }
    }
    tile.mbarrier_wait %full[%slot], %i : !tile.buffer<2xi64, shared>
    tile.copy %sk to %f : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// A stage reached through a select: the check follows tile.slice views
// only, so the pass refuses rather than miss a read after the hand-off.

func.func @ring_forwarded(%pk: !tile.ptr<f16> {tile.name = "k"}, %T: i32 {tile.name = "T"}, %slot: index, %c: i1)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %k = tile.view %pk[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %sk = tile.alloc : !tile.buffer<64x64xf16, shared>
  %oth = tile.alloc : !tile.buffer<64x64xf16, shared>
  %ring = tile.alloc : !tile.buffer<2x64x64xf32, shared>
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.for %i = %c0 to %t step %c64 stages 2 {
    tile.copy %k[%i, %c0] to %sk : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.producer_task warps 4 {
      // expected-error @below {{forwards a TMA ring stage that a tile.producer_task reads}}
      %sel = arith.select %c, %sk, %oth : !tile.buffer<64x64xf16, shared>
      %g = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      tile.copy %sel to %g : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      %dst = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf32, shared> -> !tile.buffer<64x64xf32, shared>
      tile.copy %g to %dst : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<64x64xf32, shared>
      tile.barrier
      tile.producer {
        tile.mbarrier_arrive %full[%slot] : !tile.buffer<2xi64, shared>
      }
    }
    tile.mbarrier_wait %full[%slot], %i : !tile.buffer<2xi64, shared>
    tile.copy %sk to %f : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// A one-thread hand-off with no barrier of the task after its reads: the
// other task threads could still read the stage when the consumers
// release it.

func.func @ring_hand_off_no_barrier(%pk: !tile.ptr<f16> {tile.name = "k"}, %T: i32 {tile.name = "T"}, %slot: index, %c: i1)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %k = tile.view %pk[%t] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %sk = tile.alloc : !tile.buffer<64x64xf16, shared>
  %oth = tile.alloc : !tile.buffer<64x64xf16, shared>
  %ring = tile.alloc : !tile.buffer<2x64x64xf32, shared>
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.for %i = %c0 to %t step %c64 stages 2 {
    tile.copy %k[%i, %c0] to %sk : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.producer_task warps 4 {
      %g = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      tile.copy %sk to %g : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
      %dst = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf32, shared> -> !tile.buffer<64x64xf32, shared>
      tile.copy %g to %dst : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<64x64xf32, shared>
      tile.producer {
        // expected-error @below {{hands a tile.producer_task's results over from one thread, but no tile.barrier of the task separates its last read}}
        tile.mbarrier_arrive %full[%slot] : !tile.buffer<2xi64, shared>
      }
    }
    tile.mbarrier_wait %full[%slot], %i : !tile.buffer<2xi64, shared>
    tile.copy %sk to %f : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}
