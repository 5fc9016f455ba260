// RUN: gdn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tile-pipeline,tile-warp-specialize))' | FileCheck %s

// Warp specialization of kernels tile-pipeline puts on a TMA ring, where
// the producer's program depends on what the rest of the kernel computes.

// A ring whose trip count is loaded from global memory (a varlen length):
// the producer warpgroup repeats the load to run the same loop.
// CHECK-LABEL: func.func @global_bound
// CHECK:       tile.warp_specialize {consumer_registers = 256 : i64, producer_registers = 40 : i64, producer_warps = 4 : i64} producer {
// CHECK:         %[[LEN:.*]] = tile.load %{{.*}}[%{{.*}}] : !tile.buffer<?xi32, global>
// CHECK:         arith.index_cast %[[LEN]]
// CHECK:         tile.producer thread 128
// CHECK:       } consumer {
// CHECK:         tile.load %{{.*}}[%{{.*}}] : !tile.buffer<?xi32, global>
// CHECK:         tile.gemm
// CHECK-NOT:     tile.producer
func.func @global_bound(%pa: !tile.ptr<f16> {tile.name = "A"}, %pn: !tile.ptr<i32> {tile.name = "lens"}, %pc: !tile.ptr<f32> {tile.name = "C"},
             %M: i32 {tile.name = "M"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 256 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = arith.index_cast %M : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %L = tile.view %pn[%c1] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  %C = tile.view %pc[%m] : !tile.ptr<f32> -> !tile.buffer<?x64xf32, global>
  %len32 = tile.load %L[%c0] : !tile.buffer<?xi32, global>
  %len = arith.index_cast %len32 : i32 to index
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
  tile.for %kk = %c0 to %len step %c64 stages 3 {
    tile.copy %A[%c0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.copy %A[%c0, %kk] to %sB : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %sA, %sB, %acc {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  tile.copy %acc to %C[%c0, %c0] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<?x64xf32, global>
  return
}

// -----

// A trip count read from shared memory the consumers may write: the
// producer cannot repeat that read.
func.func @shared_bound(%pa: !tile.ptr<f16> {tile.name = "A"}, %M: i32 {tile.name = "M"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 256 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %M : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %cnt = tile.alloc : !tile.buffer<1xi32, shared>
  // expected-error @below {{computes a value the producer warpgroup needs (its control flow, a ready-flag wait or a tile.producer_task), but only global-memory reads can be repeated by the producer}}
  %len32 = tile.load %cnt[%c0] : !tile.buffer<1xi32, shared>
  %len = arith.index_cast %len32 : i32 to index
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.for %kk = %c0 to %len step %c64 stages 3 {
    tile.copy %A[%c0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.copy %sA to %f : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// A reduction after the ring stays with the consumers (its barriers lower
// to their named barrier); the producer only runs the ring.
// CHECK-LABEL: func.func @consumer_reduce
// CHECK:       tile.warp_specialize
// CHECK-NOT:     tile.reduce
// CHECK:       } consumer {
// CHECK:         tile.reduce add
// CHECK:         tile.copy
func.func @consumer_reduce(%pa: !tile.ptr<f16> {tile.name = "A"}, %pc: !tile.ptr<f32> {tile.name = "C"},
             %M: i32 {tile.name = "M"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 256 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = arith.index_cast %M : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %C = tile.view %pc[%m] : !tile.ptr<f32> -> !tile.buffer<?xf32, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %row = tile.alloc : !tile.buffer<64xf32, fragment>
  tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
  tile.for %kk = %c0 to %k step %c64 stages 3 {
    tile.copy %A[%c0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.copy %A[%c0, %kk] to %sB : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %sA, %sB, %acc {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  tile.reduce add %acc, %row {dim = 1} : !tile.buffer<64x64xf32, fragment> -> !tile.buffer<64xf32, fragment>
  tile.copy %row to %C[%c0] : !tile.buffer<64xf32, fragment> to !tile.buffer<?xf32, global>
  return
}

// -----

// A branch on a flag the consumers read from a ring stage in shared memory
// (a per-iteration choice of extra work), with only consumer work inside:
// the producer drops the emptied branch, and with it the shared read it
// could not repeat, instead of rejecting the kernel.
// CHECK-LABEL: func.func @shared_flag_branch
// CHECK:       tile.warp_specialize {{{.*}}} producer {
// CHECK-NOT:     arith.cmpf
// CHECK:         tile.producer thread 128
// CHECK-NOT:     arith.cmpf
// CHECK:       } consumer {
// CHECK:         scf.for
// CHECK:           %[[F:.*]] = tile.load %{{.*}}[%{{.*}}] : !tile.buffer<64xf32, shared>
// CHECK-NEXT:      %[[ON:.*]] = arith.cmpf une, %[[F]]
// CHECK-NEXT:      tile.gemm
// CHECK-NEXT:      scf.if %[[ON]] {
// CHECK-NEXT:        tile.gemm
func.func @shared_flag_branch(%pa: !tile.ptr<f16> {tile.name = "A"}, %pf: !tile.ptr<f32> {tile.name = "F"},
             %pc: !tile.ptr<f32> {tile.name = "C"}, %M: i32 {tile.name = "M"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 256 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = arith.index_cast %M : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %F = tile.view %pf[%k] : !tile.ptr<f32> -> !tile.buffer<?xf32, global>
  %C = tile.view %pc[%m] : !tile.ptr<f32> -> !tile.buffer<?x64xf32, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %sF = tile.alloc : !tile.buffer<64xf32, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
  tile.for %kk = %c0 to %k step %c64 stages 3 {
    tile.copy %A[%c0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.copy %F[%kk] to %sF : !tile.buffer<?xf32, global> to !tile.buffer<64xf32, shared>
    %f = tile.load %sF[%c0] : !tile.buffer<64xf32, shared>
    %on = arith.cmpf une, %f, %zero : f32
    tile.gemm %sA, %sA, %acc {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
    scf.if %on {
      tile.gemm %sA, %sA, %acc {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
    }
  }
  tile.copy %acc to %C[%c0, %c0] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<?x64xf32, global>
  return
}

// -----

// A vote after the ring (outside a tile.producer_task) is the consumers':
// its barrier becomes their named barrier 1 over their 128 threads, and
// the producer, which only runs the ring, drops it with the branch it
// decides.
// CHECK-LABEL: func.func @consumer_vote
// CHECK:       tile.warp_specialize
// CHECK-NOT:     tile.any
// CHECK:       } consumer {
// CHECK:         tile.gemm
// CHECK:         %[[BIG:.*]] = tile.any
// CHECK:         } {id = 1 : i64, threads = 128 : i64}
// CHECK-NEXT:    scf.if %[[BIG]] {
// CHECK-NEXT:      tile.fill
func.func @consumer_vote(%pa: !tile.ptr<f16> {tile.name = "A"}, %pc: !tile.ptr<f32> {tile.name = "C"},
             %M: i32 {tile.name = "M"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 256 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %big = arith.constant 1.0e4 : f32
  %m = arith.index_cast %M : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %C = tile.view %pc[%m] : !tile.ptr<f32> -> !tile.buffer<?x64xf32, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
  tile.for %kk = %c0 to %k step %c64 stages 3 {
    tile.copy %A[%c0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.copy %A[%c0, %kk] to %sB : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %sA, %sB, %acc {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  %v = tile.any %acc : !tile.buffer<64x64xf32, fragment> {
  ^bb0(%i: index, %j: index, %x: f32):
    %a = math.absf %x : f32
    %b = arith.cmpf ogt, %a, %big : f32
    tile.yield %b : i1
  }
  scf.if %v {
    tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
  }
  tile.copy %acc to %C[%c0, %c0] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<?x64xf32, global>
  return
}

// -----

// A vote whose result the producer's control flow needs (the ring's trip
// count): the producer warpgroup cannot repeat it (it reads registers the
// consumers computed, and would need their barrier).
func.func @vote_bound(%pa: !tile.ptr<f16> {tile.name = "A"}, %M: i32 {tile.name = "M"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 256 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %m = arith.index_cast %M : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %g = tile.alloc : !tile.buffer<64xf32, fragment>
  tile.fill %g, %zero : !tile.buffer<64xf32, fragment>, f32
  // expected-error @below {{computes a value the producer warpgroup needs (its control flow, a ready-flag wait or a tile.producer_task), but only global-memory reads can be repeated by the producer}}
  %v = tile.any %g : !tile.buffer<64xf32, fragment> {
  ^bb0(%i: index, %x: f32):
    %b = arith.cmpf ogt, %x, %zero : f32
    tile.yield %b : i1
  }
  %len = arith.select %v, %c64, %c128 : index
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.for %kk = %c0 to %len step %c64 stages 3 {
    tile.copy %A[%c0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.copy %sA to %f : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}
