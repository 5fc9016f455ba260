// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-proxy-fences))' | FileCheck %s

// The GDN prep's shape: K lands by cp.async, a barrier, the Gram by wgmma,
// then phases that only mma.sync and plain loads read. The barrier before
// the wgmma fences (cp.async writes through the generic proxy); the ones
// after the last wgmma do not. A branch with barriers of its own before
// the wgmma: only its last barrier is the last one before the read.
// CHECK-LABEL: func.func @prep_like
// CHECK:      tile.async_wait
// CHECK-NEXT: tile.barrier {proxy_fence = true}
// CHECK:      scf.if
// CHECK:        tile.barrier {proxy_fence = false}
// CHECK:        tile.barrier {proxy_fence = true}
// CHECK:      }
// CHECK-NEXT: tile.gemm %[[K:.*]], %[[K]], %{{.*}} {transpose_b}
// CHECK:      tile.barrier {proxy_fence = false}
// CHECK:      tile.barrier {proxy_fence = false}
// CHECK:      return
func.func @prep_like(%n: index, %p: !tile.ptr<f16>, %q: i1)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %c0 = arith.constant 0 : index
  %K = tile.view %p[%n, %n] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %zero = arith.constant 0.0 : f32
  %sK = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %sL = tile.alloc : !tile.buffer<64x64xf32, shared>
  %sX = tile.alloc : !tile.buffer<64x64xf32, shared>
  %gram = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.async_copy %K[%c0, %c0] to %sK : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  tile.async_commit
  tile.async_wait {pending = 0 : i64}
  tile.barrier
  scf.if %q {
    tile.copy %f to %sX : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, shared>
    tile.barrier
    tile.copy %sX to %f : !tile.buffer<64x64xf32, shared> to !tile.buffer<64x64xf32, fragment>
    tile.barrier
  }
  tile.gemm %sK, %sK, %gram {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment>
  tile.copy %gram to %sL : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, shared>
  tile.barrier
  tile.copy %sL to %f : !tile.buffer<64x64xf32, shared> to !tile.buffer<64x64xf32, fragment>
  tile.copy %f to %sX : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, shared>
  tile.barrier
  tile.copy %sX to %f : !tile.buffer<64x64xf32, shared> to !tile.buffer<64x64xf32, fragment>
  return
}

// -----

// In a loop the next iteration's wgmma follows every barrier of the body
// that no other barrier shadows: the barrier at the body's end reaches the
// wgmma at its top; the one before it is shadowed by it. After the loop
// nothing reads through the async proxy.
// CHECK-LABEL: func.func @loop
// CHECK:      scf.for
// CHECK:        tile.gemm
// CHECK:        tile.barrier {proxy_fence = false}
// CHECK:        tile.barrier {proxy_fence = true}
// CHECK:      }
// CHECK-NEXT: tile.barrier {proxy_fence = false}
func.func @loop(%n: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  scf.for %i = %c0 to %n step %c1 {
    tile.gemm %sA, %sA, %acc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment>
    tile.barrier
    tile.copy %acc to %sA : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.barrier
  }
  tile.barrier
  return
}

// -----

// A barrier in one branch of an scf.if does not shadow the other branch:
// the barrier before the if reaches the wgmma through the else path. A
// wgmma only in the other branch of the if around a barrier is not after
// it.
// CHECK-LABEL: func.func @branches
// CHECK:      tile.barrier {proxy_fence = true}
// CHECK-NEXT: scf.if
// CHECK-NEXT:   tile.barrier {proxy_fence = true}
// CHECK:      scf.if
// CHECK-NEXT:   tile.barrier {proxy_fence = false}
// CHECK-NEXT: } else {
// CHECK-NEXT:   tile.gemm
func.func @branches(%p: i1)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.barrier
  scf.if %p {
    tile.barrier
  }
  tile.gemm %sA, %sA, %acc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment>
  scf.if %p {
    tile.barrier
  } else {
    tile.gemm %sA, %sA, %acc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment>
  }
  return
}

// -----

// A barrier in both branches shadows what follows the if.
// CHECK-LABEL: func.func @both_branches
// CHECK:      tile.barrier {proxy_fence = false}
// CHECK-NEXT: scf.if
// CHECK-NEXT:   tile.barrier {proxy_fence = true}
// CHECK-NEXT: } else {
// CHECK-NEXT:   tile.barrier {proxy_fence = true}
func.func @both_branches(%p: i1)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.barrier
  scf.if %p {
    tile.barrier
  } else {
    tile.barrier
  }
  tile.gemm %sA, %sA, %acc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment>
  return
}

// -----

// A TMA store reads its source through the async proxy; so may a callee
// (not looked into). A kernel on mma.sync without either: no fence.
// CHECK-LABEL: func.func @tma_store
// CHECK:      tile.barrier {proxy_fence = true}
// CHECK-NEXT: tile.producer
// CHECK-NEXT:   tile.tma_store
// CHECK-LABEL: func.func @call
// CHECK:      tile.barrier {proxy_fence = true}
// CHECK-NEXT: call @callee
// CHECK-LABEL: func.func @mma_sync
// CHECK:      tile.barrier {proxy_fence = false}
// CHECK-NEXT: tile.gemm
func.func @tma_store(%map: !tile.tensormap<64x64xf16, swizzle = 0>)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %sO = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %acc, %one : !tile.buffer<64x64xf32, fragment>, f32
  tile.copy %acc to %sO : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared>
  tile.barrier
  tile.producer {
    tile.tma_store %sO to %map[%c0, %c0] : !tile.buffer<64x64xf16, shared>, !tile.tensormap<64x64xf16, swizzle = 0>
  }
  return
}
func.func private @callee()
func.func @call() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  tile.barrier
  call @callee() : () -> ()
  return
}
func.func @mma_sync() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.barrier
  tile.gemm %sA, %sA, %acc : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  return
}

// -----

// A producer task's paths stay in its body: its barrier before the
// hand-off (the mbarrier arrival: the consumers' wgmma reads what the task
// wrote) fences, its barrier shadowed by that one does not, and the one at
// the end of its body reaches the task's own wgmma at its top on the next
// iteration. The consumers' barrier after their last wgmma of the
// iteration reaches the next iteration's task, which hands off: fenced
// (the task is taken as a whole); the one after the loop is not.
// CHECK-LABEL: func.func @task
// CHECK:      scf.for
// CHECK:        tile.producer_task
// CHECK:          tile.gemm
// CHECK:          tile.barrier {proxy_fence = false}
// CHECK:          tile.barrier {proxy_fence = true}
// CHECK-NEXT:     tile.producer {
// CHECK-NEXT:       tile.mbarrier_arrive
// CHECK:          tile.barrier {proxy_fence = true}
// CHECK:        tile.gemm
// CHECK-NEXT:   tile.barrier {proxy_fence = true}
// CHECK:      }
// CHECK-NEXT: tile.barrier {proxy_fence = false}
func.func @task(%n: index, %p: !tile.ptr<f16>)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma",
                tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %X = tile.view %p[%n, %n] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  %sX = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  scf.for %i = %c0 to %n step %c1 {
    tile.producer_task warps 4 {
      %t = tile.alloc : !tile.buffer<64x64xf32, fragment>
      tile.gemm %sX, %sX, %t : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment>
      tile.copy %t to %sX : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.barrier
      tile.copy %t to %sA : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.barrier
      tile.producer {
        tile.mbarrier_arrive %full[%c0] : !tile.buffer<2xi64, shared>
      }
      tile.copy %X[%c0, %c0] to %sX : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.barrier
    }
    tile.gemm %sA, %sA, %acc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment>
    tile.barrier
  }
  tile.barrier
  return
}

// -----

// An mbarrier arrival may hand what was written before it to another role
// that reads it by wgmma: the barrier before it is fenced, the one after it
// (nothing async follows) is not.
// CHECK-LABEL: func.func @hand_off
// CHECK:      tile.barrier {proxy_fence = true}
// CHECK-NEXT: tile.mbarrier_arrive
// CHECK-NEXT: tile.barrier {proxy_fence = false}
func.func @hand_off() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %one = arith.constant 1.0 : f32
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %acc, %one : !tile.buffer<64x64xf32, fragment>, f32
  tile.copy %acc to %sA : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared>
  tile.barrier
  tile.mbarrier_arrive %full[%c0] : !tile.buffer<2xi64, shared>
  tile.barrier
  return
}

// -----

// tile.any ends in a block barrier: it gets proxy_fence as tile.barrier
// does (false here: only plain loads follow the wgmma; true where a wgmma
// reads shared memory after it) and stops the scan of an earlier barrier.
// CHECK-LABEL: func.func @vote
// CHECK:      tile.barrier {proxy_fence = false}
// CHECK:      tile.any %{{.*}} : !tile.buffer<64x64xf32, fragment> {
// CHECK:      } {proxy_fence = true}
// CHECK:      tile.gemm
// CHECK:      tile.any %{{.*}} : !tile.buffer<64x64xf32, fragment> {
// CHECK:      } {proxy_fence = false}
func.func @vote(%n: index, %p: !tile.ptr<f16>)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %c0 = arith.constant 0 : index
  %half = arith.constant 0.5 : f32
  %sK = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.barrier
  %a = tile.any %f : !tile.buffer<64x64xf32, fragment> {
  ^bb0(%i: index, %j: index, %x: f32):
    %b = arith.cmpf ogt, %x, %half : f32
    tile.yield %b : i1
  }
  tile.gemm %sK, %sK, %acc {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment>
  %b2 = tile.any %acc : !tile.buffer<64x64xf32, fragment> {
  ^bb0(%i: index, %j: index, %x: f32):
    %b = arith.cmpf ogt, %x, %half : f32
    tile.yield %b : i1
  }
  return
}
