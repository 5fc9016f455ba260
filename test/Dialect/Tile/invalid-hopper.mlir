// RUN: gdn-opt %s -split-input-file -verify-diagnostics

// Verifier diagnostics of the sm_90a ops, types and kernel attributes.

// expected-error @below {{a tensor map box has rank 1 to 5, got 6}}
func.func @rank6(%m: !tile.tensormap<1x1x1x1x1x64xf16, swizzle = 0>) { return }

// -----

// expected-error @below {{tensor map box dimensions must be in [1, 256], got 512}}
func.func @big_box(%m: !tile.tensormap<512x64xf16, swizzle = 128>) { return }

// -----

// expected-error @below {{tensor map element type must be f16, bf16, f32, i32 or i64, got 'i8'}}
func.func @i8_map(%m: !tile.tensormap<64x64xi8, swizzle = 0>) { return }

// -----

// expected-error @below {{tensor map swizzle must be 0, 32, 64 or 128 bytes, got 256}}
func.func @bad_swizzle(%m: !tile.tensormap<64x64xf16, swizzle = 256>) { return }

// -----

// expected-error @below {{a tensor map box row must be a multiple of 16 bytes, got 6}}
func.func @short_row(%m: !tile.tensormap<64x3xf16, swizzle = 0>) { return }

// -----

// expected-error @below {{a box row of 256 bytes does not fit the 128-byte swizzle}}
func.func @wide_row(%m: !tile.tensormap<64x128xf16, swizzle = 128>) { return }

// -----

func.func @bad_barriers(%m: !tile.tensormap<64x64xf16, swizzle = 128>, %i: index) {
  %bar = tile.alloc : !tile.buffer<4xi32, shared>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  // expected-error @below {{barriers must be a 1-D shared buffer of i64 (one mbarrier each), got '!tile.buffer<4xi32, shared>'}}
  tile.tma_load %m[%i, %i] to %s, %bar[%i] : !tile.tensormap<64x64xf16, swizzle = 128>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<4xi32, shared>
  return
}

// -----

func.func @barrier_oob(%i: index) {
  %c4 = arith.constant 4 : index
  %bar = tile.alloc : !tile.buffer<4xi64, shared>
  // expected-error @below {{barrier index 4 is out of bounds for 4 barriers}}
  tile.mbarrier_wait %bar[%c4], %i : !tile.buffer<4xi64, shared>
  return
}

// -----

func.func @fragment_dest(%m: !tile.tensormap<64x64xf16, swizzle = 0>, %i: index) {
  %bar = tile.alloc : !tile.buffer<1xi64, shared>
  %s = tile.alloc : !tile.buffer<64x64xf16, fragment>
  // expected-error @below {{destination must be a shared buffer}}
  tile.tma_load %m[%i, %i] to %s, %bar[%i] : !tile.tensormap<64x64xf16, swizzle = 0>, !tile.buffer<64x64xf16, fragment>, !tile.buffer<1xi64, shared>
  return
}

// -----

func.func @elem_mismatch(%m: !tile.tensormap<64x64xf16, swizzle = 0>, %i: index) {
  %bar = tile.alloc : !tile.buffer<1xi64, shared>
  %s = tile.alloc : !tile.buffer<64x64xbf16, shared>
  // expected-error @below {{destination element type 'bf16' differs from the tensor map's 'f16'}}
  tile.tma_load %m[%i, %i] to %s, %bar[%i] : !tile.tensormap<64x64xf16, swizzle = 0>, !tile.buffer<64x64xbf16, shared>, !tile.buffer<1xi64, shared>
  return
}

// -----

func.func @coords(%m: !tile.tensormap<64x64xf16, swizzle = 0>, %i: index) {
  %bar = tile.alloc : !tile.buffer<1xi64, shared>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  // expected-error @below {{expected 2 coordinates (one per tensor dimension), got 1}}
  tile.tma_load %m[%i] to %s, %bar[%i] : !tile.tensormap<64x64xf16, swizzle = 0>, !tile.buffer<64x64xf16, shared>, !tile.buffer<1xi64, shared>
  return
}

// -----

func.func @not_the_box(%m: !tile.tensormap<64x64xf16, swizzle = 0>, %i: index) {
  %bar = tile.alloc : !tile.buffer<1xi64, shared>
  %s = tile.alloc : !tile.buffer<32x64xf16, shared>
  // expected-error @below {{destination '!tile.buffer<32x64xf16, shared>' does not hold the box of '!tile.tensormap<64x64xf16, swizzle = 0>'}}
  tile.tma_load %m[%i, %i] to %s, %bar[%i] : !tile.tensormap<64x64xf16, swizzle = 0>, !tile.buffer<32x64xf16, shared>, !tile.buffer<1xi64, shared>
  return
}

// -----

func.func @inner_multiple(%m: !tile.tensormap<64x64xf16, swizzle = 0>, %i: index) {
  %bar = tile.alloc : !tile.buffer<1xi64, shared>
  %s = tile.alloc : !tile.buffer<64x96xf16, shared>
  // expected-error @below {{destination innermost dimension 96 is not a multiple of the box's 64}}
  tile.tma_load %m[%i, %i] to %s, %bar[%i] : !tile.tensormap<64x64xf16, swizzle = 0>, !tile.buffer<64x96xf16, shared>, !tile.buffer<1xi64, shared>
  return
}

// -----

func.func @padded_dest(%m: !tile.tensormap<64x64xf16, swizzle = 0>, %i: index) {
  %bar = tile.alloc : !tile.buffer<1xi64, shared>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.padded<8>>
  // expected-error @below {{has padded rows, which TMA cannot address}}
  tile.tma_load %m[%i, %i] to %s, %bar[%i] : !tile.tensormap<64x64xf16, swizzle = 0>, !tile.buffer<64x64xf16, shared, #tile.padded<8>>, !tile.buffer<1xi64, shared>
  return
}

// -----

func.func @swizzle_mismatch(%m: !tile.tensormap<64x64xf16, swizzle = 0>, %i: index) {
  %bar = tile.alloc : !tile.buffer<1xi64, shared>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  // expected-error @below {{destination swizzle (128 bytes) differs from the tensor map's (0 bytes)}}
  tile.tma_load %m[%i, %i] to %s, %bar[%i] : !tile.tensormap<64x64xf16, swizzle = 0>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<1xi64, shared>
  return
}

// -----

func.func @narrow_boxes(%m: !tile.tensormap<64x32xf16, swizzle = 128>, %i: index) {
  %bar = tile.alloc : !tile.buffer<1xi64, shared>
  %s = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  // expected-error @below {{several boxes along the innermost dimension need box rows of exactly the swizzle width}}
  tile.tma_load %m[%i, %i] to %s, %bar[%i] : !tile.tensormap<64x32xf16, swizzle = 128>, !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>, !tile.buffer<1xi64, shared>
  return
}

// -----

func.func @init_count() {
  %bar = tile.alloc : !tile.buffer<2xi64, shared>
  // expected-error @below {{arrival count 1048576 exceeds the mbarrier limit of 2^20 - 1}}
  tile.mbarrier_init %bar {count = 1048576} : !tile.buffer<2xi64, shared>
  return
}

// -----

func.func @expect_tx(%i: index) {
  %bar = tile.alloc : !tile.buffer<2xi64, shared>
  // expected-error @below {{expect_tx of 1048576 bytes exceeds the mbarrier transaction limit of 2^20 - 1}}
  tile.mbarrier_arrive %bar[%i] {expect_tx = 1048576} : !tile.buffer<2xi64, shared>
  return
}

// -----

func.func @nested_producer() {
  tile.producer {
    // expected-error @below {{producer regions do not nest}}
    tile.producer {
    }
  }
  return
}

// -----

func.func @producer_args() {
  // expected-error @below {{body takes no arguments}}
  "tile.producer"() ({
  ^bb0(%x: index):
  }) : () -> ()
  return
}

// -----

func.func @ws_warps() {
  // expected-error @below {{producer_warps must be whole warpgroups (a multiple of 4), got 2}}
  tile.warp_specialize {producer_warps = 2, producer_registers = 40, consumer_registers = 232} producer {
    tile.barrier {id = 1 : i64, threads = 128 : i64}
  } consumer {
    tile.barrier {id = 1 : i64, threads = 128 : i64}
  }
  return
}

// -----

func.func @ws_regs() {
  // expected-error @below {{setmaxnreg register counts must be multiples of 8, got 42}}
  tile.warp_specialize {producer_warps = 4, producer_registers = 42, consumer_registers = 232} producer {
    tile.barrier {id = 1 : i64, threads = 128 : i64}
  } consumer {
    tile.barrier {id = 1 : i64, threads = 128 : i64}
  }
  return
}

// -----

func.func @ws_nested() {
  tile.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232} producer {
    // expected-error @below {{warp_specialize does not nest}}
    tile.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232} producer {
      tile.barrier {id = 1 : i64, threads = 128 : i64}
    } consumer {
      tile.barrier {id = 1 : i64, threads = 128 : i64}
    }
  } consumer {
    tile.barrier {id = 1 : i64, threads = 128 : i64}
  }
  return
}

// -----

func.func @ws_args() {
  // expected-error @below {{regions take no arguments}}
  "tile.warp_specialize"() <{producer_warps = 4 : i64, producer_registers = 40 : i64, consumer_registers = 232 : i64}> ({
  ^bb0(%x: index):
    tile.barrier {id = 1 : i64, threads = 128 : i64}
  }, {
    tile.barrier {id = 1 : i64, threads = 128 : i64}
  }) : () -> ()
  return
}

// -----

func.func @named_half() {
  // expected-error @below {{a named barrier needs both 'id' and 'threads'}}
  tile.barrier {id = 1}
  return
}

// -----

// tile.any's named barrier is checked as tile.barrier's.
func.func @any_named_half() {
  %f = tile.alloc : !tile.buffer<64xf32, fragment>
  // expected-error @below {{a named barrier needs both 'id' and 'threads'}}
  %v = tile.any %f : !tile.buffer<64xf32, fragment> {
  ^bb0(%i: index, %x: f32):
    %t = arith.constant true
    tile.yield %t : i1
  } {threads = 128 : i64}
  return
}

// -----

// In a producer task a vote's named barrier is the task's warpgroup's.
func.func @any_task_barrier() {
  tile.producer_task warps 4 {
    %f = tile.alloc : !tile.buffer<64xf32, fragment>
    // expected-error @below {{in a group 0 tile.producer_task must be named barrier 2 over 128 threads (its warpgroup's), got id 1 over 256}}
    %v = tile.any %f : !tile.buffer<64xf32, fragment> {
    ^bb0(%i: index, %x: f32):
      %t = arith.constant true
      tile.yield %t : i1
    } {id = 1 : i64, threads = 256 : i64}
  }
  return
}

// -----

// A barrier's proxy fence decision is a bool (tile-proxy-fences).
func.func @proxy_fence_not_bool() {
  // expected-error @below {{'proxy_fence' failed to satisfy constraint: bool attribute}}
  tile.barrier {proxy_fence = 1 : i64}
  return
}

// -----

func.func @named_threads() {
  // expected-error @below {{a named barrier's thread count must be a multiple of 32 up to 1024, got 100}}
  tile.barrier {id = 1, threads = 100}
  return
}

// -----

// expected-error @below {{'tile.copy_engine' must be "cp.async" or "tma"}}
func.func @engine() attributes {tile.copy_engine = "dma"} { return }

// -----

// expected-error @below {{'tile.warp_specialize' takes 'producer_registers', 'consumer_registers' and 'tma_issue', not 'producers'}}
func.func @ws_key() attributes {tile.warp_specialize = {producers = 1 : i64}} { return }

// -----

// expected-error @below {{'tile.warp_specialize' tma_issue must be "first", "round_robin" or "consumer"}}
func.func @ws_issue() attributes {tile.warp_specialize = {tma_issue = "last"}} { return }

// -----

// expected-error @below {{'tile.warp_specialize' consumer_registers must be a multiple of 8 in [24, 256]}}
func.func @ws_value() attributes {tile.warp_specialize = {consumer_registers = 300 : i64}} { return }

// -----

// expected-error @below {{'tile.warp_specialize' must be a dictionary}}
func.func @ws_dict() attributes {tile.warp_specialize = 1 : i64} { return }

// -----

// expected-error @below {{'tile.async_gemm' must be a unit attribute}}
func.func @async_value() attributes {tile.kernel, tile.async_gemm = 1 : i64} { return }

// -----

// expected-error @below {{'tile.async_gemm' is only valid on a tile.kernel function}}
func.func @async_not_kernel() attributes {tile.async_gemm} { return }

// -----

// expected-error @below {{'tile.grid_dependency' must be a unit attribute, "flags", "wait_and_flags" or "deferred"}}
func.func @gdep_value() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.grid_dependency = true} { return }

// -----

// expected-error @below {{'tile.grid_dependency' must be a unit attribute, "flags", "wait_and_flags" or "deferred"}}
func.func @gdep_mode() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.grid_dependency = "wait"} { return }

// -----

// expected-error @below {{'tile.grid_dependency' is only valid on a tile.kernel function}}
func.func @gdep_not_kernel() attributes {tile.grid_dependency} { return }

// -----

// expected-error @below {{'tile.producer_warps' must be a positive multiple of 4}}
func.func @pwarps() attributes {tile.producer_warps = 3 : i64} { return }

// -----

// expected-error @below {{'tile.tensor_map' must be a dictionary with 'base' (a string), 'dims' and 'strides' (arrays)}}
func.func @recipe(%m: !tile.tensormap<64x64xf16, swizzle = 0> {tile.tensor_map = {base = "A"}}) { return }

// -----

// expected-error @below {{'tile.tensor_map' takes 'base', 'dims', 'strides' and 'l2_promotion', not 'l2'}}
func.func @recipe_key(%m: !tile.tensormap<64x64xf16, swizzle = 0> {tile.tensor_map = {base = "A", dims = ["M", "64"], strides = ["64"], l2 = 0 : i64}}) { return }

// -----

// expected-error @below {{'tile.tensor_map' has l2_promotion 512 : i64, not one of 0 (none), 64, 128 or 256 bytes}}
func.func @recipe_l2(%m: !tile.tensormap<64x64xf16, swizzle = 0> {tile.tensor_map = {base = "A", dims = ["M", "64"], strides = ["64"], l2_promotion = 512 : i64}}) { return }

// -----

// Without a swizzle, several boxes would land box-major, not row-major.
func.func @unswizzled_boxes(%m: !tile.tensormap<64x32xf16, swizzle = 0>, %i: index) {
  %bar = tile.alloc : !tile.buffer<1xi64, shared>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  tile.producer {
    // expected-error @below {{an unswizzled destination takes exactly one box; '!tile.buffer<64x64xf16, shared>' holds 2 boxes of '!tile.tensormap<64x32xf16, swizzle = 0>'}}
    tile.tma_load %m[%i, %i] to %s, %bar[%i] : !tile.tensormap<64x32xf16, swizzle = 0>, !tile.buffer<64x64xf16, shared>, !tile.buffer<1xi64, shared>
  }
  return
}

// -----

func.func @producer_barrier() {
  // expected-error @below {{body runs on one thread and must not contain 'tile.barrier' (it waits for other threads)}}
  tile.producer {
    tile.barrier
  }
  return
}

// -----

func.func @producer_thread() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  // expected-error @below {{thread 128 is not a thread of the kernel's block of 128 threads}}
  tile.producer thread 128 {
  }
  return
}

// -----

func.func @producer_thread_negative() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  // expected-error @below {{attribute 'thread' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
  tile.producer thread -1 {
  }
  return
}

// -----

func.func @ws_block_barrier() {
  // expected-error @below {{regions must not contain block-wide barriers ('tile.barrier'); use a named tile.barrier}}
  tile.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232} producer {
    tile.barrier {id = 1 : i64, threads = 128 : i64}
  } consumer {
    tile.barrier
  }
  return
}

// -----

func.func @store_not_shared(%m: !tile.tensormap<64x64xf32, swizzle = 0>, %f: !tile.buffer<64x64xf32, fragment>, %i: index) {
  // expected-error @below {{source must be a shared buffer}}
  tile.tma_store %f to %m[%i, %i] : !tile.buffer<64x64xf32, fragment>, !tile.tensormap<64x64xf32, swizzle = 0>
  return
}

// -----

func.func @store_coords(%m: !tile.tensormap<64x64xf32, swizzle = 0>, %i: index) {
  %s = tile.alloc : !tile.buffer<64x64xf32, shared>
  // expected-error @below {{expected 2 coordinates (one per tensor dimension), got 1}}
  tile.tma_store %s to %m[%i] : !tile.buffer<64x64xf32, shared>, !tile.tensormap<64x64xf32, swizzle = 0>
  return
}

// -----

func.func @store_swizzle(%m: !tile.tensormap<64x64xf16, swizzle = 128>, %i: index) {
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  // expected-error @below {{source swizzle (0 bytes) differs from the tensor map's (128 bytes)}}
  tile.tma_store %s to %m[%i, %i] : !tile.buffer<64x64xf16, shared>, !tile.tensormap<64x64xf16, swizzle = 128>
  return
}

// -----

func.func @store_type(%m: !tile.tensormap<64x64xf16, swizzle = 0>, %i: index) {
  %s = tile.alloc : !tile.buffer<64x64xf32, shared>
  // expected-error @below {{source element type 'f32' differs from the tensor map's 'f16'}}
  tile.tma_store %s to %m[%i, %i] : !tile.buffer<64x64xf32, shared>, !tile.tensormap<64x64xf16, swizzle = 0>
  return
}

// -----

func.func @store_wait_pending() {
  // expected-error @below {{attribute 'pending' failed to satisfy constraint}}
  tile.tma_store_wait {pending = 65}
  return
}


// -----

func.func @task_warps() attributes {tile.kernel, tile.num_warps = 8 : i64,
    tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  // expected-error @below {{runs on the producer warpgroup: num_warps must be 4, got 8}}
  tile.producer_task warps 8 {
  }
  return
}

// -----

func.func @task_engine() attributes {tile.kernel, tile.num_warps = 8 : i64,
    tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  // expected-error @below {{mma_engine must be "mma.sync" or "wgmma", got "hmma"}}
  tile.producer_task warps 4 engine "hmma" {
  }
  return
}

// -----

func.func @task_async_gemm_mma_sync() attributes {tile.kernel, tile.num_warps = 8 : i64,
    tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  // expected-error @below {{async_gemm schedules wgmma gemms, but the task's mma_engine is "mma.sync"}}
  tile.producer_task warps 4 engine "mma.sync" async_gemm {
  }
  return
}

// -----

func.func @task_nested() attributes {tile.kernel, tile.num_warps = 8 : i64,
    tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  tile.producer_task warps 4 {
    // expected-error @below {{producer tasks do not nest}}
    tile.producer_task warps 4 {
    }
  }
  return
}

// -----

func.func @task_not_specialized() attributes {tile.kernel, tile.num_warps = 8 : i64} {
  // expected-error @below {{needs a warp-specialized kernel (tile.warp_specialize): its warps are the producer warpgroup}}
  tile.producer_task warps 4 {
  }
  return
}

// -----

func.func @task_fragment() attributes {tile.kernel, tile.num_warps = 8 : i64,
    tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  %zero = arith.constant 0.0 : f32
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.producer_task warps 4 {
    // expected-error @below {{uses a fragment defined outside its tile.producer_task: the task's warps hold only their own fragments}}
    tile.fill %f, %zero : !tile.buffer<64x64xf32, fragment>, f32
  }
  return
}

// -----

func.func @task_thread(%i: index) attributes {tile.kernel, tile.num_warps = 8 : i64,
    tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  tile.producer_task warps 4 {
    // expected-error @below {{thread 128 is not a thread of the enclosing tile.producer_task's 128 threads}}
    tile.producer thread 128 {
      tile.mbarrier_arrive %full[%i] : !tile.buffer<2xi64, shared>
    }
  }
  return
}

// -----

func.func @task_group() attributes {tile.kernel, tile.num_warps = 8 : i64,
    tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  // expected-error @below {{group 7 is out of range: a block holds at most 7 producer warpgroups beside the consumers (groups 0 .. 6)}}
  tile.producer_task warps 4 group 7 {
  }
  return
}

// -----

func.func @task_group_warps() attributes {tile.kernel, tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64} {
  tile.warp_specialize {producer_warps = 4, producer_registers = 72, consumer_registers = 216} producer {
    // expected-error @below {{group 1 needs 2 producer warpgroups; tile.warp_specialize has 4 producer warps}}
    tile.producer_task warps 4 group 1 {
    } {thread_base = 384 : i64}
  } consumer {
    tile.barrier {id = 1, threads = 256}
  }
  return
}

// -----

func.func @task_group_base() attributes {tile.kernel, tile.num_warps = 8 : i64, tile.producer_warps = 8 : i64} {
  tile.warp_specialize {producer_warps = 8, producer_registers = 64, consumer_registers = 192} producer {
    // expected-error @below {{thread base 256 is not the first thread of producer warpgroup 1 (384, after the 256 consumer threads)}}
    tile.producer_task warps 4 group 1 {
    } {thread_base = 256 : i64}
  } consumer {
    tile.barrier {id = 1, threads = 256}
  }
  return
}

// -----

func.func @task_barrier_id() attributes {tile.kernel, tile.num_warps = 8 : i64, tile.producer_warps = 8 : i64} {
  tile.warp_specialize {producer_warps = 8, producer_registers = 64, consumer_registers = 192} producer {
    tile.producer_task warps 4 group 1 {
      // expected-error @below {{in a group 1 tile.producer_task must be named barrier 3 over 128 threads (its warpgroup's), got id 2 over 128}}
      tile.barrier {id = 2, threads = 128}
    } {thread_base = 384 : i64}
  } consumer {
    tile.barrier {id = 1, threads = 256}
  }
  return
}


// -----

func.func @ws_warps_disagree() attributes {tile.kernel, tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64} {
  // expected-error @below {{producer_warps = 8 disagrees with the kernel's tile.producer_warps = 4}}
  tile.warp_specialize {producer_warps = 8, producer_registers = 64, consumer_registers = 192} producer {
    tile.barrier {id = 2, threads = 128}
  } consumer {
    tile.barrier {id = 1, threads = 256}
  }
  return
}

// -----

func.func @ws_warps_missing() attributes {tile.kernel, tile.num_warps = 8 : i64} {
  // expected-error @below {{in a tile kernel needs the kernel's tile.producer_warps = 4 (tile-warp-specialize sets both; the lowering sizes the block from it)}}
  tile.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232} producer {
    tile.barrier {id = 2, threads = 128}
  } consumer {
    tile.barrier {id = 1, threads = 256}
  }
  return
}

// -----

func.func @task_base() attributes {tile.kernel, tile.num_warps = 8 : i64,
    tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  // expected-error @below {{has a thread base outside tile.warp_specialize (the pass sets it when it moves the task into the producer region)}}
  tile.producer_task warps 4 {
  } {thread_base = 256 : i64}
  return
}

// -----

// tile.tma_load {block_lower = K}: the box must be K rows of one swizzle
// span (here the whole 64-row tile), over a square swizzled destination.
func.func @tma_block_lower_box(%m: !tile.tensormap<64x32xf16, swizzle = 64>) {
  %c0 = arith.constant 0 : index
  %full = tile.alloc : !tile.buffer<1xi64, shared>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
  // expected-error @below {{'tile.tma_load' op block_lower = 32 needs a square 2-D swizzled destination that it divides and a box of 32 rows of one swizzle span that divides it}}
  tile.tma_load %m[%c0, %c0] to %s, %full[%c0] {block_lower = 32 : i64} : !tile.tensormap<64x32xf16, swizzle = 64>, !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>, !tile.buffer<1xi64, shared>
  return
}

// -----

func.func @tma_block_lower_unswizzled(%m: !tile.tensormap<32x64xf16, swizzle = 0>) {
  %c0 = arith.constant 0 : index
  %full = tile.alloc : !tile.buffer<1xi64, shared>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  // expected-error @below {{'tile.tma_load' op block_lower = 32 needs a square 2-D swizzled destination}}
  tile.tma_load %m[%c0, %c0] to %s, %full[%c0] {block_lower = 32 : i64} : !tile.tensormap<32x64xf16, swizzle = 0>, !tile.buffer<64x64xf16, shared>, !tile.buffer<1xi64, shared>
  return
}
