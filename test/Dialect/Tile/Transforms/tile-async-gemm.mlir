// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-async-gemm{all=true}))' | FileCheck %s
// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-async-gemm))' | FileCheck %s --check-prefix=REQUEST

// Two products of one register operand (K S and Q S of the GDN step): both
// asynchronous; the transposed load between them (shared -> registers) runs
// while they fly, and the first use of K S waits for it alone (wait_group
// 1: Q S, issued after it, stays in flight through the map); the function
// end drains the rest.
// CHECK-LABEL: func.func @independent
// CHECK:      tile.gemm %[[S:.*]], %{{.*}}, %[[KS:.*]] {async, transpose_b}
// CHECK-NEXT: tile.gemm %[[S]], %{{.*}}, %[[O:.*]] {async, transpose_b}
// CHECK-NEXT: tile.copy %{{.*}} to %{{.*}} {transpose}
// CHECK-NEXT: tile.gemm_wait {pending = 1 : i64}
// CHECK-NEXT: tile.map ins(%[[KS]]
// CHECK:      tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: return
func.func @independent()
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %sk = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  %sq = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  %sv = tile.alloc : !tile.buffer<64x64xf16, shared>
  %s16 = tile.alloc : !tile.buffer<64x128xf16, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %ks = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %o = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %vt = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %s16, %sk, %ks {transpose_b} : !tile.buffer<64x128xf16, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>, !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %s16, %sq, %o {transpose_b} : !tile.buffer<64x128xf16, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>, !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.copy %sv to %vt {transpose} : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.map ins(%ks : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) outs(%vt : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) {
  ^bb0(%x: f32):
    tile.yield %x : f32
  }
  return
}

// -----

// The same accumulator twice: the second product waits for the first.
// A register operand computed from a pending accumulator: the map that
// forms it waits.
// CHECK-LABEL: func.func @dependent
// CHECK:      tile.gemm %{{.*}}, %{{.*}}, %[[C:.*]] {async}
// CHECK-NEXT: tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %[[C]] {async}
// CHECK-NEXT: tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: tile.map ins(%[[C]]
// CHECK-NEXT: ^bb0
// CHECK:      tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {async}
// CHECK-NEXT: tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: return
func.func @dependent()
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %b = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %d = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %c16 = tile.alloc : !tile.buffer<64x64xf16, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %b, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %b, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.map ins(%c : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) outs(%c16 : !tile.buffer<64x64xf16, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) {
  ^bb0(%x: f32):
    %h = arith.truncf %x : f32 to f16
    tile.yield %h : f16
  }
  tile.gemm %c16, %b, %d : !tile.buffer<64x64xf16, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}

// -----

// Shared memory written (the tensor cores may still read a shared
// operand, and planned buffers share bytes) or a barrier: wait first.
// CHECK-LABEL: func.func @shared_and_barrier
// CHECK:      tile.gemm {{.*}} {async}
// CHECK-NEXT: tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: tile.copy %{{.*}} to %{{.*}} : !tile.buffer<64x64xf32, fragment
// CHECK-NEXT: tile.gemm {{.*}} {async}
// CHECK-NEXT: tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.gemm {{.*}} {async}
// CHECK-NEXT: tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: tile.async_wait
func.func @shared_and_barrier()
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %s = tile.alloc : !tile.buffer<64x64xf32, shared>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %d = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.copy %d to %s : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>> to !tile.buffer<64x64xf32, shared>
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.barrier
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.async_wait {pending = 0}
  return
}

// -----

// A wait counts groups, so both ways through a branch must leave the same
// gemms in flight: a gemm in a branch without an else waits at the branch's
// end. A loop waits for what is pending before it, and its body is scanned
// on its own (wait before the yield).
// CHECK-LABEL: func.func @regions
// CHECK:      scf.if
// CHECK-NEXT:   tile.gemm {{.*}} {async}
// CHECK-NEXT:   tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: }
// CHECK-NEXT: tile.gemm {{.*}} {async}
// CHECK-NEXT: tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: scf.for
// CHECK-NEXT:   tile.gemm {{.*}} {async}
// CHECK-NEXT:   tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: }
// CHECK-NEXT: return
func.func @regions(%p: i1, %n: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %d = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  scf.if %p {
    tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  }
  tile.gemm %a, %a, %d : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  scf.for %i = %c0 to %n step %c1 {
    tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  }
  return
}

// -----

// Left alone: mma.sync accumulators, a kernel whose gemms tile-pipeline
// already made asynchronous, and functions that are not kernels.
// CHECK-LABEL: func.func @mma_sync
// CHECK-NOT:  async
// CHECK-NOT:  tile.gemm_wait
// CHECK-LABEL: func.func @already_async
// CHECK:      tile.gemm {{.*}} {async}
// CHECK-NEXT: tile.gemm_wait {pending = 1 : i64}
// CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %{{.*}} :
// CHECK-NEXT: return
// CHECK-LABEL: func.func @not_a_kernel
// CHECK-NOT:  async
func.func @mma_sync()
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  return
}
func.func @already_async()
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %d = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c {async} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm_wait {pending = 1}
  tile.gemm %a, %a, %d : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}
func.func @not_a_kernel() {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}

// -----

// The register A operand of a pending gemm is overwritten: wait first.
// The branches leave different gemms in flight (the else branch waits for
// its own before its barrier), so the then branch drains at its end and the
// read after the branch needs no wait; a branch that yields a pending
// fragment waits before the yield.
// CHECK-LABEL: func.func @branches
// CHECK:      tile.gemm %[[A16:.*]], %{{.*}}, %{{.*}} {async}
// CHECK-NEXT: tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: tile.map outs(%[[A16]]
// CHECK:      scf.if
// CHECK-NEXT:   tile.gemm %{{.*}}, %{{.*}}, %[[C:.*]] {async}
// CHECK-NEXT:   tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: } else {
// CHECK-NEXT:   tile.gemm %{{.*}}, %{{.*}}, %[[C]] {async}
// CHECK-NEXT:   tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT: }
// CHECK-NEXT: tile.map ins(%[[C]]
// CHECK:      scf.if %{{.*}} -> (!tile.buffer
// CHECK-NEXT:   tile.gemm {{.*}} {async}
// CHECK-NEXT:   tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT:   scf.yield
func.func @branches(%p: i1)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %a16 = tile.alloc : !tile.buffer<64x64xf16, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %d = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %e = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a16, %a, %d : !tile.buffer<64x64xf16, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.map outs(%a16 : !tile.buffer<64x64xf16, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) {
    %z = arith.constant 0.0 : f16
    tile.yield %z : f16
  }
  scf.if %p {
    tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  } else {
    tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
    tile.barrier
  }
  tile.map ins(%c : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) outs(%d : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) {
  ^bb0(%x: f32):
    tile.yield %x : f32
  }
  %r = scf.if %p -> (!tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) {
    tile.gemm %a, %a, %e : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
    scf.yield %e : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  } else {
    scf.yield %d : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  }
  tile.map ins(%r : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) outs(%c : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) {
  ^bb0(%x: f32):
    tile.yield %x : f32
  }
  return
}

// -----

// An op that declares no memory effects (a barrier of another dialect)
// may synchronize or write shared memory: wait first. A kernel that asks
// for warp specialization is scheduled the same way (its gemms run in the
// consumer warpgroups); one whose gemms tile-pipeline already made
// asynchronous keeps that schedule.
// CHECK-LABEL: func.func @unknown_op
// CHECK:      tile.gemm {{.*}} {async}
// CHECK-NEXT: tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: gpu.barrier
// CHECK-LABEL: func.func @specialized
// CHECK:      tile.gemm {{.*}} {async}
// CHECK-NEXT: tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: tile.gemm {{.*}} {async}
// CHECK-NEXT: tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: return
// CHECK-LABEL: func.func @already_async
// CHECK:      tile.gemm {{.*}} {async}
// CHECK-NEXT: tile.gemm_wait {pending = 1 : i64}
// CHECK-NEXT: tile.gemm
// CHECK-NOT:  async
// CHECK-NEXT: return
func.func @unknown_op()
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  gpu.barrier
  return
}
func.func @specialized()
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma",
                tile.warp_specialize = {producer_registers = 40, consumer_registers = 232}} {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}
func.func @already_async()
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma",
                tile.warp_specialize = {producer_registers = 40, consumer_registers = 232}} {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c {async} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm_wait {pending = 1 : i64}
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}

// -----

// Without `all`, only kernels that carry tile.async_gemm are scheduled.
// REQUEST-LABEL: func.func @requested
// REQUEST:       tile.gemm {{.*}} {async}
// REQUEST-LABEL: func.func @not_requested
// REQUEST-NOT:   async
// REQUEST-NOT:   tile.gemm_wait
// CHECK-LABEL:   func.func @requested
// CHECK-LABEL:   func.func @not_requested
// CHECK:         tile.gemm {{.*}} {async}
func.func @requested()
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.async_gemm} {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}
func.func @not_requested()
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}

// -----

// Waits leave the younger groups in flight: a gemm into a pending
// accumulator waits for that gemm (pending = 1: the one issued after it
// keeps running), a read of the oldest accumulator waits for it alone
// (pending = 2), a read of the youngest for everything.
// CHECK-LABEL: func.func @partial
// CHECK:      tile.gemm %{{.*}}, %{{.*}}, %[[C1:.*]] {async}
// CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %[[C2:.*]] {async}
// CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %[[C3:.*]] {async}
// CHECK-NEXT: tile.gemm_wait {pending = 1 : i64}
// CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %[[C2]] {async}
// CHECK-NEXT: tile.gemm %{{.*}}, %{{.*}}, %[[C1]] {async}
// CHECK-NEXT: tile.gemm_wait {pending = 2 : i64}
// CHECK-NEXT: tile.map ins(%[[C3]]
// CHECK:      tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: tile.map ins(%[[C1]]
// CHECK-NOT:  tile.gemm_wait
// CHECK:      return
func.func @partial()
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c1 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %c2 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %c3 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %x = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c1 : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c2 : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c3 : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c2 : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c1 : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.map ins(%c3 : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) outs(%x : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) {
  ^bb0(%v: f32):
    tile.yield %v : f32
  }
  tile.map ins(%c1 : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) outs(%x : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) {
  ^bb0(%v: f32):
    tile.yield %v : f32
  }
  return
}

// -----

// More gemms in flight than a wait can leave (tile.gemm_wait's bound is 7):
// the read of the oldest of nine waits for two instead of one.
// CHECK-LABEL: func.func @many
// CHECK-COUNT-9: tile.gemm {{.*}} {async}
// CHECK-NEXT: tile.gemm_wait {pending = 7 : i64}
// CHECK-NEXT: tile.map ins(%{{.*}} : !tile.buffer<64x64xf32, fragment
func.func @many()
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c0 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %x = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %c1 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %c2 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %c3 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %c4 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %c5 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %c6 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %c7 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %c8 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c0 : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c1 : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c2 : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c3 : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c4 : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c5 : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c6 : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c7 : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %a, %c8 : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.map ins(%c0 : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) outs(%x : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) {
  ^bb0(%v: f32):
    tile.yield %v : f32
  }
  return
}

// -----

// Planned shared memory: a plain write (copy, fill, map, scan, reduce)
// waits only where its bytes overlap a pending gemm's shared operand. The
// copies into %s and %u (bytes 8192..8448, 8704..8960) run while the gemm
// reads %a (0..8192); the copy into %t (4096..4352, inside %a) waits for
// it. An
// mbarrier arrive (it hands a buffer to another agent) and tile.any (a
// barrier) wait whatever their bytes.
// CHECK-LABEL: func.func @planned
// CHECK:      tile.gemm {{.*}} {async}
// CHECK-NEXT: tile.copy %{{.*}} to %{{.*}} :
// CHECK-NEXT: tile.copy %{{.*}} to %{{.*}} :
// CHECK-NEXT: tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: tile.copy %{{.*}} to %{{.*}} :
// CHECK-NEXT: tile.gemm {{.*}} {async}
// CHECK-NEXT: tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: tile.mbarrier_arrive
// CHECK-NEXT: tile.gemm {{.*}} {async}
// CHECK-NEXT: tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: tile.any
func.func @planned()
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %c0 = arith.constant 0 : index
  %half = arith.constant 0.5 : f32
  %a = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %s = tile.alloc {offset = 8192 : i64} : !tile.buffer<64xf32, shared>
  %t = tile.alloc {offset = 4096 : i64} : !tile.buffer<64xf32, shared>
  %bar = tile.alloc {offset = 8448 : i64} : !tile.buffer<2xi64, shared>
  %u = tile.alloc {offset = 8704 : i64} : !tile.buffer<64xf32, shared>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %f = tile.alloc : !tile.buffer<64xf32, fragment>
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.copy %f to %s : !tile.buffer<64xf32, fragment> to !tile.buffer<64xf32, shared>
  tile.copy %f to %u : !tile.buffer<64xf32, fragment> to !tile.buffer<64xf32, shared>
  tile.copy %f to %t : !tile.buffer<64xf32, fragment> to !tile.buffer<64xf32, shared>
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.mbarrier_arrive %bar[%c0] : !tile.buffer<2xi64, shared>
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %m = tile.any %f : !tile.buffer<64xf32, fragment> {
  ^bb0(%i: index, %y: f32):
    %big = arith.cmpf ugt, %y, %half : f32
    tile.yield %big : i1
  }
  return
}

// -----

// A producer task marked async_gemm is scheduled on its own, also in a
// kernel whose other gemms tile-pipeline made asynchronous (left as they
// are) and without tile.async_gemm on the kernel: the Gram's group flies
// through the scan and its shared stores (bytes apart from the operand)
// and is waited for where the map reads it; the task's end drains what is
// left. A task without async_gemm keeps its gemms synchronous.
// CHECK-LABEL: func.func @task
// CHECK:      tile.producer_task warps 4 async_gemm {
// CHECK:        tile.gemm %{{.*}}, %{{.*}}, %[[G:.*]] {async, transpose_b}
// CHECK-NEXT:   tile.scan
// CHECK-NEXT:   tile.copy %{{.*}} to %{{.*}} : !tile.buffer<64xf32, fragment> to !tile.buffer<64xf32, shared>
// CHECK-NEXT:   tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT:   tile.map ins(%[[G]]
// CHECK:        tile.gemm {{.*}} {async}
// CHECK-NEXT:   tile.gemm_wait {pending = 0 : i64}
// CHECK-NEXT: }
// CHECK:      tile.producer_task warps 4 {
// CHECK:        tile.gemm
// CHECK-NOT:    async
// CHECK:      }
// CHECK:      tile.gemm {{.*}} {async}
// CHECK-NEXT: tile.gemm_wait {pending = 1 : i64}
// CHECK-NEXT: tile.gemm
// CHECK-NOT:  async
// CHECK:      return
// REQUEST-LABEL: func.func @task
// REQUEST:       tile.producer_task warps 4 async_gemm {
// REQUEST:         tile.gemm {{.*}} {async, transpose_b}
// REQUEST:       tile.producer_task warps 4 {
// REQUEST:         tile.gemm
// REQUEST-NOT:     async
// REQUEST:       }
func.func @task()
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma",
                tile.warp_specialize = {producer_registers = 88, consumer_registers = 208}} {
  %k = tile.alloc {offset = 0 : i64} : !tile.buffer<64x128xf16, shared>
  %s = tile.alloc {offset = 16384 : i64} : !tile.buffer<64xf32, shared>
  %a = tile.alloc {offset = 16640 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.producer_task warps 4 async_gemm {
    %g = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
    %o = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
    %f = tile.alloc : !tile.buffer<64xf32, fragment>
    tile.gemm %k, %k, %g {transpose_b} : !tile.buffer<64x128xf16, shared>, !tile.buffer<64x128xf16, shared>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
    tile.scan add %f, %f : !tile.buffer<64xf32, fragment> -> !tile.buffer<64xf32, fragment>
    tile.copy %f to %s : !tile.buffer<64xf32, fragment> to !tile.buffer<64xf32, shared>
    tile.map ins(%g : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) outs(%o : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>) {
    ^bb0(%x: f32):
      tile.yield %x : f32
    }
    tile.gemm %a, %a, %g : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  }
  tile.producer_task warps 4 {
    %g = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
    tile.gemm %k, %k, %g {transpose_b} : !tile.buffer<64x128xf16, shared>, !tile.buffer<64x128xf16, shared>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  }
  tile.gemm %a, %a, %c {async} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm_wait {pending = 1 : i64}
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}
