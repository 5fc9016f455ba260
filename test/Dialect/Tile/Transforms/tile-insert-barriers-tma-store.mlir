// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-plan-shared-memory,tile-insert-barriers))' -verify-diagnostics | FileCheck %s

// A TMA store reads its source asynchronously: the barriers between it and
// the next iteration's write of the buffer (here the ones that order %sP)
// do not end that read; the issuing thread's tma_store_wait {read} does,
// and a barrier after it lets the other threads write.

// CHECK-LABEL: func.func @store_read_outlives_barriers
// CHECK:       scf.for
// CHECK:         tile.copy %{{.*}} to %[[SP:.*]] :
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.copy %[[SP]] to %{{.*}} :
// CHECK-NEXT:    tile.producer {
// CHECK-NEXT:      tile.tma_store_wait {read}
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.copy %{{.*}} to %[[SO:.*]] :
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.producer {
// CHECK-NEXT:      tile.tma_store %[[SO]]
func.func @store_read_outlives_barriers(%map: !tile.tensormap<64x64xf16, swizzle = 0>, %n: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  %sO = tile.alloc : !tile.buffer<64x64xf16, shared>
  %sP = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %acc, %one : !tile.buffer<64x64xf32, fragment>, f32
  scf.for %i = %c0 to %n step %c1 {
    %r = arith.muli %i, %c64 : index
    tile.copy %acc to %sP : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared>
    tile.copy %sP to %acc : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment>
    tile.producer {
      tile.tma_store_wait {read}
    }
    tile.copy %acc to %sO : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared>
    tile.producer {
      tile.tma_store %sO to %map[%r, %c0] : !tile.buffer<64x64xf16, shared>, !tile.tensormap<64x64xf16, swizzle = 0>
    }
  }
  return
}

// -----

// Without the wait no barrier can make the write safe: an error.

func.func @write_while_stored(%map: !tile.tensormap<64x64xf16, swizzle = 0>, %n: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : f32
  %sO = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %acc, %one : !tile.buffer<64x64xf32, fragment>, f32
  scf.for %i = %c0 to %n step %c1 {
    // expected-error @below {{writes shared memory that a TMA store may still be reading: put a tile.tma_store_wait {read} of the storing thread before it}}
    tile.copy %acc to %sO : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared>
    tile.producer {
      tile.tma_store %sO to %map[%c0, %c0] : !tile.buffer<64x64xf16, shared>, !tile.tensormap<64x64xf16, swizzle = 0>
    }
  }
  return
}

// -----

// The wait before a barrier the step has anyway (tile-tma-store puts it
// there when that barrier precedes the next write): that barrier orders
// the reuse, so the write needs no barrier of its own; the one before the
// store (the threads' writes, then the TMA unit's read) stays.

// CHECK-LABEL: func.func @wait_before_existing_barrier
// CHECK:       scf.for
// CHECK-NEXT:    arith.muli
// CHECK-NEXT:    tile.copy %{{.*}} to %[[SP:.*]] :
// CHECK-NEXT:    tile.tma_store_wait {read}
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.copy %[[SP]] to %{{.*}} :
// CHECK-NEXT:    tile.copy %{{.*}} to %[[SO:.*]] :
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.producer {
// CHECK-NEXT:      tile.tma_store %[[SO]]
// CHECK-NEXT:    }
// CHECK-NEXT:  }
func.func @wait_before_existing_barrier(%map: !tile.tensormap<64x64xf16, swizzle = 0>, %n: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %one = arith.constant 1.0 : f32
  %sO = tile.alloc : !tile.buffer<64x64xf16, shared>
  %sP = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %acc, %one : !tile.buffer<64x64xf32, fragment>, f32
  scf.for %i = %c0 to %n step %c1 {
    %r = arith.muli %i, %c64 : index
    tile.copy %acc to %sP : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared>
    tile.tma_store_wait {read}
    tile.barrier
    tile.copy %sP to %acc : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment>
    tile.copy %acc to %sO : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, shared>
    tile.producer {
      tile.tma_store %sO to %map[%r, %c0] : !tile.buffer<64x64xf16, shared>, !tile.tensormap<64x64xf16, swizzle = 0>
    }
  }
  return
}
