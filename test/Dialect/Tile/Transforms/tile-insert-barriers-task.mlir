// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-insert-barriers))' | FileCheck %s

// A tile.producer_task is analyzed as a program of its own: its copy into
// sX and the gemm that reads sX need a barrier between them (the task's;
// the kernel's explicit one before the arrival orders the next iteration's
// copy). The slot it hands over (a slice of %ring) is ordered by mbarriers
// in the rest of the kernel: the consumers' gemm on it gets no barrier, and
// the task's accesses to sX do not make the consumers' code wait.

// CHECK-LABEL: func.func @task
// CHECK:       scf.for
// CHECK:         tile.producer_task warps 4 engine "mma.sync" {
// CHECK-NEXT:      tile.alloc
// CHECK-NEXT:      tile.alloc
// CHECK-NEXT:      tile.copy %{{.*}} to %[[X:[^ ]*]] {
// CHECK-NEXT:      tile.fill
// CHECK-NEXT:      tile.barrier
// CHECK-NEXT:      tile.gemm %[[X]], %[[X]]
// CHECK-NEXT:      tile.mbarrier_wait
// CHECK-NEXT:      tile.slice
// CHECK-NEXT:      tile.copy
// CHECK-NEXT:      tile.barrier
// CHECK-NEXT:      tile.producer {
// CHECK-NEXT:        tile.mbarrier_arrive
// CHECK-NEXT:      {{^ *}}}{{$}}
// CHECK-NEXT:    {{^ *}}}{{$}}
// CHECK-NEXT:    tile.mbarrier_wait
// CHECK-NEXT:    tile.slice
// CHECK-NEXT:    tile.gemm
// CHECK-NEXT:    tile.mbarrier_arrive
// CHECK-NEXT:  {{^ *}}}{{$}}
func.func @task(%n: index, %p: !tile.ptr<f16>)
    attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma",
                tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %X = tile.view %p[%n, %n] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %ring = tile.alloc {offset = 0 : i64} : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>>
  %full = tile.alloc {offset = 16384 : i64} : !tile.buffer<2xi64, shared>
  %empty = tile.alloc {offset = 16400 : i64} : !tile.buffer<2xi64, shared>
  %sA = tile.alloc {offset = 17408 : i64} : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
  scf.for %i = %c0 to %n step %c1 {
    %slot = arith.remsi %i, %c2 : index
    %gen = arith.divsi %i, %c2 : index
    tile.producer_task warps 4 engine "mma.sync" {
      %sX = tile.alloc {offset = 33792 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      %g = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
      tile.copy %X[%c0, %i] to %sX {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.fill %g, %zero : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>, f32
      tile.gemm %sX, %sX, %g {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
      tile.mbarrier_wait %empty[%slot], %gen : !tile.buffer<2xi64, shared>
      %dst = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.copy %g to %dst : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.barrier
      tile.producer {
        tile.mbarrier_arrive %full[%slot] : !tile.buffer<2xi64, shared>
      }
    }
    tile.mbarrier_wait %full[%slot], %gen : !tile.buffer<2xi64, shared>
    %src = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.gemm %sA, %src, %acc : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
    tile.mbarrier_arrive %empty[%slot] : !tile.buffer<2xi64, shared>
  }
  return
}

// -----

// Once per iteration of the loop around it: without a barrier at its end,
// the next iteration's copy into sX overwrites what this iteration's gemm
// read, so the copy gets one in front of it too. A task outside loops runs
// once: no such barrier.

// CHECK-LABEL: func.func @task_loop
// CHECK:       scf.for
// CHECK-NEXT:    tile.producer_task warps 4 {
// CHECK-NEXT:      tile.alloc
// CHECK-NEXT:      tile.alloc
// CHECK-NEXT:      tile.barrier
// CHECK-NEXT:      tile.copy
// CHECK-NEXT:      tile.barrier
// CHECK-NEXT:      tile.gemm
// CHECK-NEXT:    {{^ *}}}{{$}}
// CHECK-NEXT:  {{^ *}}}{{$}}
// CHECK-NEXT:  tile.producer_task warps 4 {
// CHECK-NEXT:    tile.alloc
// CHECK-NEXT:    tile.alloc
// CHECK-NEXT:    tile.copy
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.gemm
// CHECK-NEXT:  {{^ *}}}{{$}}
func.func @task_loop(%n: index, %p: !tile.ptr<f16>)
    attributes {tile.kernel, tile.num_warps = 8 : i64,
                tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %X = tile.view %p[%n, %n] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  scf.for %i = %c0 to %n step %c1 {
    tile.producer_task warps 4 {
      %sX = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      %g = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
      tile.copy %X[%c0, %i] to %sX {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.gemm %sX, %sX, %g {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
    }
  }
  tile.producer_task warps 4 {
    %sX = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    %g = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
    tile.copy %X[%c0, %c0] to %sX {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.gemm %sX, %sX, %g {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  }
  return
}

// -----

// A buffer a task only reads (%h) is still the consumers' to order among
// themselves: their copy into it and their read of it keep the barrier
// between them (the task's accesses are not part of the kernel's sweep, so
// nothing there is exempt).

// CHECK-LABEL: func.func @consumers_keep_their_barrier
// CHECK:       tile.copy %{{.*}} to %[[H:[^ ]*]] {
// CHECK-NEXT:  tile.barrier
// CHECK-NEXT:  tile.copy %[[H]] to
// CHECK:       tile.producer_task
func.func @consumers_keep_their_barrier(%n: index, %p: !tile.ptr<f16>)
    attributes {tile.kernel, tile.num_warps = 8 : i64,
                tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  %c0 = arith.constant 0 : index
  %X = tile.view %p[%n, %n] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %h = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
  tile.copy %X[%c0, %c0] to %h {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  tile.copy %h to %X[%c0, %c0] {layout = #tile.blocked<vector = 8>} : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
  tile.producer_task warps 4 {
    tile.copy %h to %X[%c0, %c0] {layout = #tile.blocked<vector = 8>} : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
  }
  return
}
