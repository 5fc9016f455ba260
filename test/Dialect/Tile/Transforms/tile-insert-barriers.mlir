// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-pipeline,tile-plan-shared-memory,tile-insert-barriers))' | FileCheck %s

// A synchronous copy into shared memory must be visible to all threads
// before the gemm reads it, also inside a pipelined loop (its offset comes
// from a call, so it is not multi-buffered).
func.func private @next_row() -> index

// CHECK-LABEL: func.func @mixed_copies
// CHECK:      scf.for
// CHECK:        tile.async_wait {pending = 1 : i64}
// CHECK-NEXT:   tile.barrier
// CHECK:        tile.async_commit
// CHECK:        %[[ROW:.*]] = func.call @next_row()
// The barrier after the wait already orders it after the previous
// iteration's gemm: no barrier before the copy.
// CHECK-NEXT:   tile.copy %{{.*}}[%[[ROW]], %{{.*}}] to %[[SB:.*]] :
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.gemm %{{.*}}, %[[SB]]
// CHECK-NOT:    tile.barrier
// CHECK:      }
func.func @mixed_copies(%pa: !tile.ptr<f16>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.for %k = %c0 to %m step %c64 stages 3 {
    tile.copy %A[%c0, %k] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    %row = func.call @next_row() : () -> index
    tile.copy %A[%row, %k] to %sB : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %sA, %sB, %acc : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  return
}

// -----

// Two buffers with disjoint lifetimes share bytes: the second one's first
// write must wait until every thread is done reading the first.
// CHECK-LABEL: func.func @reuse
// CHECK:      %[[X:.*]] = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
// CHECK:      tile.copy %{{.*}} to %[[X]]
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.copy %[[X]] to
// CHECK:      %[[Y:.*]] = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.copy %{{.*}} to %[[Y]]
func.func @reuse() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  %g = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  %x = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.copy %f to %x : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<64x64xf32, shared>
  tile.copy %x to %g : !tile.buffer<64x64xf32, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  %y = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.copy %g to %y : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<64x64xf32, shared>
  tile.copy %y to %f : !tile.buffer<64x64xf32, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  return
}

// -----

// An explicit barrier already separates the accesses: nothing is added.
// Reads after reads need no barrier.
// CHECK-LABEL: func.func @no_redundant
// CHECK:      tile.copy
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.copy
// CHECK-NEXT: tile.copy
// CHECK-NEXT: return
func.func @no_redundant() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %f = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>
  %g = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>
  %x = tile.alloc : !tile.buffer<64xf32, shared>
  tile.copy %f to %x : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<64xf32, shared>
  tile.barrier
  tile.copy %x to %g : !tile.buffer<64xf32, shared> to !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>
  tile.copy %x to %f : !tile.buffer<64xf32, shared> to !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>
  return
}

// -----

// Across iterations: iteration i+1 overwrites what iteration i read, and a
// tile.load in a map body counts as a read.
// CHECK-LABEL: func.func @loop_carried
// CHECK:      scf.for
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.copy %{{.*}} to %[[X:.*]] :
// CHECK-NEXT:   tile.barrier
// CHECK-NEXT:   tile.map
// CHECK:          tile.load %[[X]]
// CHECK:        }
// CHECK-NEXT: }
func.func @loop_carried(%n: index) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %f = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = tile.alloc : !tile.buffer<64xf32, shared>
  scf.for %i = %c0 to %n step %c1 {
    tile.copy %f to %x : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<64xf32, shared>
    tile.map indexed outs(%f : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>) {
    ^bb0(%j: index):
      %k = arith.subi %n, %j : index
      %v = tile.load %x[%k] : !tile.buffer<64xf32, shared>
      tile.yield %v : f32
    }
  }
  return
}

// -----

// A TMA ring: the stages TMA writes and their mbarriers are ordered by the
// mbarriers (full before the reads, empty before the next load), so no
// block barrier goes between the load, the wait and the gemm, nor after the
// release. A named barrier (a subset of the threads) is no block barrier:
// the write after it still needs one.
// CHECK-LABEL: func.func @tma_ring
// CHECK:       tile.producer {
// CHECK-NEXT:    tile.mbarrier_arrive
// CHECK-NEXT:    tile.tma_load
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.mbarrier_wait
// CHECK-NEXT:  tile.gemm
// CHECK-NEXT:  tile.mbarrier_arrive
// CHECK-NEXT:  tile.copy %{{.*}} to %[[SC:.*]] :
// CHECK-NEXT:  tile.barrier {id = 1 : i64, threads = 128 : i64}
// CHECK-NEXT:  tile.barrier
// CHECK-NEXT:  tile.copy %{{.*}} to %[[SC]] :
func.func @tma_ring(%map: !tile.tensormap<64x64xf16, swizzle = 128>, %i: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %full = tile.alloc {offset = 0 : i64} : !tile.buffer<2xi64, shared>
  %empty = tile.alloc {offset = 16 : i64} : !tile.buffer<2xi64, shared>
  %a = tile.alloc {offset = 1024 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %sc = tile.alloc {offset = 9216 : i64} : !tile.buffer<64x64xf32, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.producer {
    tile.mbarrier_arrive %full[%i] {expect_tx = 8192} : !tile.buffer<2xi64, shared>
    tile.tma_load %map[%i, %i] to %a, %full[%i] : !tile.tensormap<64x64xf16, swizzle = 128>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<2xi64, shared>
  }
  tile.mbarrier_wait %full[%i], %i : !tile.buffer<2xi64, shared>
  tile.gemm %a, %a, %acc {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.mbarrier_arrive %empty[%i] : !tile.buffer<2xi64, shared>
  tile.copy %acc to %sc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>> to !tile.buffer<64x64xf32, shared>
  tile.barrier {id = 1, threads = 128}
  tile.copy %acc to %sc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>> to !tile.buffer<64x64xf32, shared>
  return
}

// -----

// tile.any is a block barrier: the shared tile written before it is read
// after it without another barrier; its body's shared read of a tile
// written since the last barrier still gets one before the vote.
// CHECK-LABEL: func.func @any_is_a_barrier
// CHECK:      tile.copy %{{.*}} to %[[S:.*]] :
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: %[[V:.*]] = tile.any
// CHECK:        tile.load %[[S]]
// CHECK:      }
// CHECK-NEXT: scf.if %[[V]] {
// CHECK-NEXT:   tile.copy %[[S]] to %{{.*}} :
// CHECK-NOT:  tile.barrier
// CHECK:      return
func.func @any_is_a_barrier() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %half = arith.constant 0.5 : f32
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %g = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %s = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.copy %f to %s : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, shared>
  %v = tile.any %f : !tile.buffer<64x64xf32, fragment> {
  ^bb0(%i: index, %j: index, %x: f32):
    %y = tile.load %s[%j, %i] : !tile.buffer<64x64xf32, shared>
    %b = arith.cmpf ogt, %y, %half : f32
    tile.yield %b : i1
  }
  scf.if %v {
    tile.copy %s to %g : !tile.buffer<64x64xf32, shared> to !tile.buffer<64x64xf32, fragment>
  }
  return
}

// -----

// Row reductions into shared memory are plain shared writes (their
// lowering has no barrier): two of them into two slices (constant indices:
// disjoint byte ranges) of one buffer, then a map that reads both, take
// one barrier, in front of the reader.
// A fragment destination's reduction is a barrier of its own instead (its
// lowering ends with one): nothing in front of the copy after it, which
// overwrites what the map read.
// CHECK-LABEL: func.func @reduce_into_shared
// CHECK:      tile.reduce add %{{.*}}, %[[D0:.*]] {dim = 1 : i64} : {{.*}} -> !tile.buffer<16xf32, shared>
// CHECK-NEXT: tile.reduce add %{{.*}}, %[[D1:.*]] {dim = 1 : i64} : {{.*}} -> !tile.buffer<16xf32, shared>
// CHECK-NEXT: tile.alloc
// CHECK-NEXT: tile.barrier
// CHECK-NEXT: tile.map
// CHECK:      tile.reduce add %{{.*}}, %{{.*}} scratch
// CHECK-NEXT: tile.copy
// CHECK-NOT:  tile.barrier
// CHECK:      return
func.func @reduce_into_shared() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %x = tile.alloc : !tile.buffer<16x128xf32, fragment, #tile.blocked<vector = 4>>
  %s = tile.alloc : !tile.buffer<2x16xf32, shared>
  %d0 = tile.slice %s[%c0] : !tile.buffer<2x16xf32, shared> -> !tile.buffer<16xf32, shared>
  %d1 = tile.slice %s[%c1] : !tile.buffer<2x16xf32, shared> -> !tile.buffer<16xf32, shared>
  tile.reduce add %x, %d0 {dim = 1 : i64} : !tile.buffer<16x128xf32, fragment, #tile.blocked<vector = 4>> -> !tile.buffer<16xf32, shared>
  tile.reduce add %x, %d1 {dim = 1 : i64} : !tile.buffer<16x128xf32, fragment, #tile.blocked<vector = 4>> -> !tile.buffer<16xf32, shared>
  %r = tile.alloc : !tile.buffer<16xf32, fragment, #tile.blocked<vector = 1>>
  tile.map indexed outs(%r : !tile.buffer<16xf32, fragment, #tile.blocked<vector = 1>>) {
  ^bb0(%i: index):
    %a = tile.load %s[%c0, %i] : !tile.buffer<2x16xf32, shared>
    %b = tile.load %s[%c1, %i] : !tile.buffer<2x16xf32, shared>
    %ab = arith.addf %a, %b : f32
    tile.yield %ab : f32
  }
  %sc = tile.alloc : !tile.buffer<16xf32, shared>
  %rf = tile.alloc : !tile.buffer<16xf32, fragment, #tile.blocked<vector = 1>>
  tile.reduce add %x, %rf scratch(%sc : !tile.buffer<16xf32, shared>) {dim = 1 : i64} : !tile.buffer<16x128xf32, fragment, #tile.blocked<vector = 4>> -> !tile.buffer<16xf32, fragment, #tile.blocked<vector = 1>>
  tile.copy %rf to %d0 : !tile.buffer<16xf32, fragment, #tile.blocked<vector = 1>> to !tile.buffer<16xf32, shared>
  return
}
