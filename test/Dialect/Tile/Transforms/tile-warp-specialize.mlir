// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-warp-specialize))' | FileCheck %s

// The form tile-pipeline leaves (one ring, persistent outer loop, async
// wgmma), split into a producer warpgroup and the consumers: the producer
// keeps only the loops, the index arithmetic and its tile.producer regions
// (moved to thread 256, the producer warpgroup's first thread); the
// consumers keep everything else, with their block barriers turned into
// named barriers over the 256 consumer threads.

// CHECK-LABEL: func.func @split
// CHECK-SAME:    tile.producer_warps = 4 : i64
// CHECK:         %[[FULL:.*]] = tile.alloc {offset = 0 : i64} : !tile.buffer<2xi64, shared>
// CHECK:         tile.producer {
// CHECK-NEXT:      tile.mbarrier_init %[[FULL]] {count = 1 : i64} : !tile.buffer<2xi64, shared>
// CHECK-NEXT:      tile.mbarrier_init %{{.*}} {count = 256 : i64} : !tile.buffer<2xi64, shared>
// CHECK-NEXT:    {{^ *}}}{{$}}
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.warp_specialize {consumer_registers = 232 : i64, producer_registers = 40 : i64, producer_warps = 4 : i64} producer {
// CHECK-NOT:       tile.gemm
// CHECK-NOT:       tile.fill
// CHECK-NOT:       tile.copy
// CHECK-NOT:       tile.barrier
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK:             scf.for
// CHECK:               scf.if
// CHECK:                 tile.producer thread 256 {
// CHECK-NEXT:              tile.mbarrier_wait %[[EMPTY:.*]][
// CHECK-NEXT:              tile.mbarrier_arrive %[[FULL]][%{{.*}}] {expect_tx = 16384 : i64}
// CHECK-NEXT:              tile.tma_load
// CHECK-NEXT:            {{^ *}}}{{$}}
// CHECK:         } consumer {
// CHECK-NOT:       tile.producer
// CHECK:           scf.for
// CHECK:             tile.fill
// CHECK:             scf.for
// CHECK:               tile.mbarrier_wait %[[FULL]]
// CHECK:               tile.gemm {{.*}} {async, transpose_b}
// CHECK-NEXT:          tile.gemm_wait {pending = 1 : i64}
// CHECK:               tile.mbarrier_arrive %[[EMPTY]]
// CHECK:             tile.gemm_wait {pending = 0 : i64}
// CHECK:             tile.copy
// CHECK-NEXT:        tile.barrier {id = 1 : i64, threads = 256 : i64}
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    return
func.func @split(%map: !tile.tensormap<128x64xf16, swizzle = 128>, %pc: !tile.ptr<f32>, %n: index, %k: index)
    attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %full = tile.alloc {offset = 0 : i64} : !tile.buffer<2xi64, shared>
  %empty = tile.alloc {offset = 16 : i64} : !tile.buffer<2xi64, shared>
  tile.producer {
    tile.mbarrier_init %full {count = 1} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %empty {count = 256} : !tile.buffer<2xi64, shared>
  }
  tile.barrier
  %C = tile.view %pc[%n, %n] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %s = tile.alloc {offset = 1024 : i64} : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
  %first = tile.program_id x
  %stride = tile.num_programs x
  scf.for %t = %first to %n step %stride {
    tile.fill %acc, %zero : !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>, f32
    scf.for %i = %c0 to %k step %c1 {
      %st = arith.remsi %i, %c2 : index
      %ph = arith.divsi %i, %c2 : index
      tile.mbarrier_wait %full[%st], %ph : !tile.buffer<2xi64, shared>
      %cur = tile.slice %s[%st] : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
      tile.gemm %cur, %cur, %acc {async, transpose_b} : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
      tile.gemm_wait {pending = 1}
      tile.mbarrier_arrive %empty[%st] : !tile.buffer<2xi64, shared>
      %more = arith.cmpi slt, %i, %k : index
      scf.if %more {
        %next = tile.slice %s[%st] : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
        tile.producer {
          tile.mbarrier_wait %empty[%st], %ph : !tile.buffer<2xi64, shared>
          tile.mbarrier_arrive %full[%st] {expect_tx = 16384} : !tile.buffer<2xi64, shared>
          tile.tma_load %map[%t, %i] to %next, %full[%st] : !tile.tensormap<128x64xf16, swizzle = 128>, !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<2xi64, shared>
        }
      }
    }
    tile.gemm_wait {pending = 0}
    tile.copy %acc to %C[%t, %c0] : !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>> to !tile.buffer<?x?xf32, global>
    tile.barrier
  }
  return
}

// -----

// Kernels that do not ask for it are left alone.

// CHECK-LABEL: func.func @not_asked
// CHECK-NOT:     tile.warp_specialize
// CHECK-NOT:     tile.producer_warps
func.func @not_asked() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  tile.barrier
  return
}

// -----

// A kernel capped at 136 registers per thread (tile.max_registers: room
// for another kernel's block on the SM) starts every thread at 136: 24 x
// 128 + 192 x 256 = 52224 = 136 x 384 registers fit exactly, so the split
// is accepted at the boundary (tile-warp-specialize-invalid.mlir has the
// caps that reject a split).

// CHECK-LABEL: func.func @capped
// CHECK:         tile.warp_specialize {consumer_registers = 192 : i64, producer_registers = 24 : i64, producer_warps = 4 : i64} producer {
func.func @capped(%map: !tile.tensormap<128x64xf16, swizzle = 128>, %pc: !tile.ptr<f32>, %n: index, %k: index)
    attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma",
                tile.max_registers = 136 : i64,
                tile.warp_specialize = {producer_registers = 24 : i64, consumer_registers = 192 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %full = tile.alloc {offset = 0 : i64} : !tile.buffer<2xi64, shared>
  %empty = tile.alloc {offset = 16 : i64} : !tile.buffer<2xi64, shared>
  tile.producer {
    tile.mbarrier_init %full {count = 1} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %empty {count = 256} : !tile.buffer<2xi64, shared>
  }
  tile.barrier
  %C = tile.view %pc[%n, %n] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %s = tile.alloc {offset = 1024 : i64} : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
  %first = tile.program_id x
  %stride = tile.num_programs x
  scf.for %t = %first to %n step %stride {
    tile.fill %acc, %zero : !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>, f32
    scf.for %i = %c0 to %k step %c1 {
      %st = arith.remsi %i, %c2 : index
      %ph = arith.divsi %i, %c2 : index
      tile.mbarrier_wait %full[%st], %ph : !tile.buffer<2xi64, shared>
      %cur = tile.slice %s[%st] : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
      tile.gemm %cur, %cur, %acc {async, transpose_b} : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
      tile.gemm_wait {pending = 1}
      tile.mbarrier_arrive %empty[%st] : !tile.buffer<2xi64, shared>
      %more = arith.cmpi slt, %i, %k : index
      scf.if %more {
        %next = tile.slice %s[%st] : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
        tile.producer {
          tile.mbarrier_wait %empty[%st], %ph : !tile.buffer<2xi64, shared>
          tile.mbarrier_arrive %full[%st] {expect_tx = 16384} : !tile.buffer<2xi64, shared>
          tile.tma_load %map[%t, %i] to %next, %full[%st] : !tile.tensormap<128x64xf16, swizzle = 128>, !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<2xi64, shared>
        }
      }
    }
    tile.gemm_wait {pending = 0}
    tile.copy %acc to %C[%t, %c0] : !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>> to !tile.buffer<?x?xf32, global>
    tile.barrier
  }
  return
}

// -----

// Only the producer regions that issue TMA loads (the ring's steps) move to
// the producer warpgroup; a hand-written tile.producer region without one
// (here one consumer thread arrives on a second barrier after the loop) is
// consumer work: it stays in the consumer region, on thread 0, and the
// producer's program drops it.
// CHECK-LABEL: func.func @own_producer
// CHECK:         tile.warp_specialize {{.*}} producer {
// CHECK:           tile.producer thread 128 {
// CHECK-NEXT:        tile.mbarrier_wait
// CHECK-NEXT:        tile.mbarrier_arrive
// CHECK-NEXT:        tile.tma_load
// CHECK-NEXT:      {{^ *}}}{{$}}
// CHECK-NOT:       tile.producer
// CHECK:         } consumer {
// CHECK:           scf.for
// CHECK-NOT:         tile.producer
// CHECK:           }
// CHECK-NEXT:      tile.producer {
// CHECK-NEXT:        tile.mbarrier_arrive %[[DONE:.*]][%{{.*}}] : !tile.buffer<1xi64, shared>
// CHECK-NEXT:      {{^ *}}}{{$}}
// CHECK-NEXT:    }
func.func @own_producer(%map: !tile.tensormap<64x64xf16, swizzle = 128>, %k: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 256 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %full = tile.alloc {offset = 0 : i64} : !tile.buffer<2xi64, shared>
  %empty = tile.alloc {offset = 16 : i64} : !tile.buffer<2xi64, shared>
  %done = tile.alloc {offset = 32 : i64} : !tile.buffer<1xi64, shared>
  tile.producer {
    tile.mbarrier_init %full {count = 1} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %empty {count = 128} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %done {count = 1} : !tile.buffer<1xi64, shared>
  }
  tile.barrier
  %s = tile.alloc {offset = 1024 : i64} : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>>
  scf.for %i = %c0 to %k step %c1 {
    %st = arith.remsi %i, %c2 : index
    %ph = arith.divsi %i, %c2 : index
    tile.mbarrier_wait %full[%st], %ph : !tile.buffer<2xi64, shared>
    tile.mbarrier_arrive %empty[%st] : !tile.buffer<2xi64, shared>
    %next = tile.slice %s[%st] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.producer {
      tile.mbarrier_wait %empty[%st], %ph : !tile.buffer<2xi64, shared>
      tile.mbarrier_arrive %full[%st] {expect_tx = 8192} : !tile.buffer<2xi64, shared>
      tile.tma_load %map[%c0, %i] to %next, %full[%st] : !tile.tensormap<64x64xf16, swizzle = 128>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<2xi64, shared>
    }
  }
  tile.producer {
    tile.mbarrier_arrive %done[%c0] : !tile.buffer<1xi64, shared>
  }
  return
}

// -----

// A tile.producer_task goes to the producer warpgroup whole: its threads
// numbered from 256 (thread_base), its block barriers and its vote
// (tile.any) the warpgroup's named barrier 2 over 128 threads, its
// tile.producer still thread 0 of the task.
// The consumers keep their side of the hand-off (the wait on the full
// barrier, the gemm on the slot, the arrival on the empty one), not the
// task.

// CHECK-LABEL: func.func @task
// CHECK:         tile.warp_specialize {{.*}} producer {
// CHECK:           scf.for
// CHECK:             tile.producer_task warps 4 engine "mma.sync" {
// CHECK-NEXT:          tile.alloc {offset = 49152 : i64}
// CHECK-NEXT:          tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
// CHECK-NEXT:          tile.copy
// CHECK-NEXT:          tile.fill
// CHECK-NEXT:          tile.barrier {id = 2 : i64, threads = 128 : i64}
// CHECK-NEXT:          tile.gemm
// CHECK-NEXT:          %[[VOTE:.*]] = tile.any
// CHECK:               } {id = 2 : i64, threads = 128 : i64}
// CHECK-NEXT:          scf.if %[[VOTE]] {
// CHECK-NEXT:            tile.fill
// CHECK-NEXT:          }
// CHECK-NEXT:          tile.mbarrier_wait %[[EMPTY:[0-9]+]]
// CHECK-NEXT:          tile.slice
// CHECK-NEXT:          tile.copy
// CHECK-NEXT:          tile.barrier {id = 2 : i64, threads = 128 : i64}
// CHECK-NEXT:          tile.producer {
// CHECK-NEXT:            tile.mbarrier_arrive %[[FULL:[0-9]+]]
// CHECK-NEXT:          }
// CHECK-NEXT:        } {thread_base = 256 : i64}
// CHECK-NOT:         tile.gemm
// CHECK:           tile.producer thread 256 {
// CHECK-NEXT:        tile.mbarrier_wait
// CHECK-NEXT:        tile.mbarrier_arrive
// CHECK-NEXT:        tile.tma_load
// CHECK:         } consumer {
// CHECK-NOT:       tile.producer_task
// CHECK-NOT:       tile.any
// CHECK:           scf.for
// CHECK:             tile.mbarrier_wait %[[FULL]]
// CHECK-NEXT:        tile.slice
// CHECK-NEXT:        tile.gemm
// CHECK-NEXT:        tile.mbarrier_arrive %[[EMPTY]]
// CHECK-NOT:       tile.producer_task
// CHECK:         return
func.func @task(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %n: index, %k: index,
                %arg5: !tile.tensormap<128x64xf16, swizzle = 128>)
    attributes {tile.kernel, tile.mma_engine = "wgmma", tile.num_warps = 8 : i64,
                tile.warp_specialize = {consumer_registers = 216 : i64, producer_registers = 72 : i64}} {
  %cst = arith.constant 0.000000e+00 : f32
  %c64 = arith.constant 64 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %0 = tile.alloc {offset = 57344 : i64} : !tile.buffer<2xi64, shared>
  %1 = tile.alloc {offset = 57472 : i64} : !tile.buffer<2xi64, shared>
  %7 = tile.alloc {offset = 57600 : i64} : !tile.buffer<2xi64, shared>
  %8 = tile.alloc {offset = 57728 : i64} : !tile.buffer<2xi64, shared>
  tile.producer {
    tile.mbarrier_init %0 {count = 1 : i64} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %1 {count = 256 : i64} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %7 {count = 1 : i64} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %8 {count = 256 : i64} : !tile.buffer<2xi64, shared>
  }
  tile.barrier
  %4 = tile.view %arg1[%n, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %6 = tile.alloc {offset = 32768 : i64} : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>>
  %9 = tile.alloc {offset = 0 : i64} : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>>
  %10 = tile.alloc : !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
  tile.fill %10, %cst : !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>, f32
  scf.for %arg6 = %c0 to %n step %c1 {
    %13 = arith.remsi %arg6, %c2 : index
    %14 = arith.divsi %arg6, %c2 : index
    tile.mbarrier_wait %0[%13], %14 : !tile.buffer<2xi64, shared>
    %16 = tile.slice %9[%13] : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
    %17 = arith.muli %arg6, %c64 : index
    %20 = arith.addi %14, %c1 : index
    tile.producer_task warps 4 engine "mma.sync" {
      %25 = tile.alloc {offset = 49152 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      %26 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
      tile.copy %4[%c0, %17] to %25 {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.fill %26, %cst : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>, f32
      tile.barrier
      tile.gemm %25, %25, %26 {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
      %big = tile.any %26 : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>> {
      ^bb0(%i: index, %j: index, %x: f32):
        %b = arith.cmpf ogt, %x, %cst : f32
        tile.yield %b : i1
      }
      scf.if %big {
        tile.fill %26, %cst : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>, f32
      }
      tile.mbarrier_wait %8[%13], %20 : !tile.buffer<2xi64, shared>
      %27 = tile.slice %6[%13] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.copy %26 to %27 : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.barrier
      tile.producer {
        tile.mbarrier_arrive %7[%13] : !tile.buffer<2xi64, shared>
      }
    }
    tile.mbarrier_wait %7[%13], %14 : !tile.buffer<2xi64, shared>
    %21 = tile.slice %6[%13] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.gemm %16, %21, %10 : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
    tile.mbarrier_arrive %8[%13] : !tile.buffer<2xi64, shared>
    tile.mbarrier_arrive %1[%13] : !tile.buffer<2xi64, shared>
    %23 = arith.addi %arg6, %c1 : index
    %24 = arith.cmpi slt, %23, %n : index
    scf.if %24 {
      %25 = arith.remsi %23, %c2 : index
      %29 = arith.muli %23, %c64 : index
      %30 = tile.slice %9[%25] : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
      tile.producer {
        tile.mbarrier_wait %1[%25], %c1 : !tile.buffer<2xi64, shared>
        tile.mbarrier_arrive %0[%25] {expect_tx = 16384 : i64} : !tile.buffer<2xi64, shared>
        tile.tma_load %arg5[%c0, %29] to %30, %0[%25] : !tile.tensormap<128x64xf16, swizzle = 128>, !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<2xi64, shared>
      }
    }
  }
  return
}

// -----

// A loop bound read from global memory behind a ready flag: the producer
// repeats the read (it only reads global memory) and keeps the wait before
// it, as the consumers do, so both roles read the released value and run
// the same number of iterations. (Other ops with memory effects, such as
// the copy to global memory after the loop, stay the consumers' alone.)

// CHECK-LABEL: func.func @flag_guarded_bound
// CHECK:         tile.warp_specialize {{.*}} producer {
// CHECK:           tile.flag_wait %[[READY:.*]][%{{.*}}], %{{.*}} : !tile.buffer<?xi32, global>
// CHECK-NEXT:      %[[N:.*]] = tile.load %{{.*}}[%{{.*}}] : !tile.buffer<?xi32, global>
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK:             tile.producer thread 128 {
// CHECK-NOT:       tile.copy
// CHECK:         } consumer {
// CHECK:           tile.flag_wait %[[READY]][%{{.*}}], %{{.*}} : !tile.buffer<?xi32, global>
// CHECK-NEXT:      tile.load
// CHECK:           scf.for
// CHECK:           tile.copy
func.func @flag_guarded_bound(%map: !tile.tensormap<64x64xf16, swizzle = 128>,
                              %pn: !tile.ptr<i32>, %pf: !tile.ptr<i32>, %po: !tile.ptr<i32>)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 256 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c1_i32 = arith.constant 1 : i32
  %full = tile.alloc {offset = 0 : i64} : !tile.buffer<2xi64, shared>
  %empty = tile.alloc {offset = 16 : i64} : !tile.buffer<2xi64, shared>
  tile.producer {
    tile.mbarrier_init %full {count = 1} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %empty {count = 128} : !tile.buffer<2xi64, shared>
  }
  tile.barrier
  %ready = tile.view %pf[%c1] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  %nb = tile.view %pn[%c1] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  %out = tile.view %po[%c1] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  %pid = tile.program_id x
  tile.flag_wait %ready[%pid], %c1_i32 : !tile.buffer<?xi32, global>
  %n_i = tile.load %nb[%pid] : !tile.buffer<?xi32, global>
  %k = arith.index_cast %n_i : i32 to index
  %s = tile.alloc {offset = 1024 : i64} : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>>
  scf.for %i = %c0 to %k step %c1 {
    %st = arith.remsi %i, %c2 : index
    %ph = arith.divsi %i, %c2 : index
    tile.mbarrier_wait %full[%st], %ph : !tile.buffer<2xi64, shared>
    tile.mbarrier_arrive %empty[%st] : !tile.buffer<2xi64, shared>
    %next = tile.slice %s[%st] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.producer {
      tile.mbarrier_wait %empty[%st], %ph : !tile.buffer<2xi64, shared>
      tile.mbarrier_arrive %full[%st] {expect_tx = 8192} : !tile.buffer<2xi64, shared>
      tile.tma_load %map[%c0, %i] to %next, %full[%st] : !tile.tensormap<64x64xf16, swizzle = 128>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<2xi64, shared>
    }
  }
  %rec = tile.alloc : !tile.buffer<1xi32, fragment>
  tile.fill %rec, %n_i : !tile.buffer<1xi32, fragment>, i32
  tile.copy %rec to %out[%pid] : !tile.buffer<1xi32, fragment> to !tile.buffer<?xi32, global>
  return
}

// -----

// A deferred grid wait (tile.grid_wait, under a branch on a value read
// from global memory) stays in both roles, as a ready-flag wait does: the
// producer's TMA loads come after it as the consumers' reads do.

// CHECK-LABEL: func.func @deferred_wait
// CHECK:         tile.warp_specialize {{.*}} producer {
// CHECK:           %[[V:.*]] = tile.load %{{.*}}[%{{.*}}] : !tile.buffer<?xi32, global>
// CHECK:           scf.if %{{.*}} {
// CHECK-NEXT:        tile.grid_wait
// CHECK-NEXT:      }
// CHECK:           scf.for %{{.*}} = %{{.*}} to %{{.*}} step
// CHECK:             tile.producer thread 128 {
// CHECK:         } consumer {
// CHECK:           tile.load
// CHECK:           scf.if %{{.*}} {
// CHECK-NEXT:        tile.grid_wait
// CHECK-NEXT:      }
// CHECK:           scf.for
func.func @deferred_wait(%map: !tile.tensormap<64x64xf16, swizzle = 128>,
                         %pn: !tile.ptr<i32>)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.grid_dependency = "deferred",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 256 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c0_i32 = arith.constant 0 : i32
  %full = tile.alloc {offset = 0 : i64} : !tile.buffer<2xi64, shared>
  %empty = tile.alloc {offset = 16 : i64} : !tile.buffer<2xi64, shared>
  tile.producer {
    tile.mbarrier_init %full {count = 1} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %empty {count = 128} : !tile.buffer<2xi64, shared>
  }
  tile.barrier
  %nb = tile.view %pn[%c1] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  %pid = tile.program_id x
  %n_i = tile.load %nb[%pid] : !tile.buffer<?xi32, global>
  %runs = arith.cmpi ne, %n_i, %c0_i32 : i32
  scf.if %runs {
    tile.grid_wait
  }
  %k = arith.index_cast %n_i : i32 to index
  %s = tile.alloc {offset = 1024 : i64} : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>>
  scf.for %i = %c0 to %k step %c1 {
    %st = arith.remsi %i, %c2 : index
    %ph = arith.divsi %i, %c2 : index
    tile.mbarrier_wait %full[%st], %ph : !tile.buffer<2xi64, shared>
    tile.mbarrier_arrive %empty[%st] : !tile.buffer<2xi64, shared>
    %next = tile.slice %s[%st] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.producer {
      tile.mbarrier_wait %empty[%st], %ph : !tile.buffer<2xi64, shared>
      tile.mbarrier_arrive %full[%st] {expect_tx = 8192} : !tile.buffer<2xi64, shared>
      tile.tma_load %map[%c0, %i] to %next, %full[%st] : !tile.tensormap<64x64xf16, swizzle = 128>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<2xi64, shared>
    }
  }
  return
}

// -----

// Two task groups, round-robin TMA issue: the tasks of even and odd
// iterations (groups 0 and 1, each under its scf.if) get producer
// warpgroups of their own (tile.producer_warps = 8, thread bases 256 and
// 384, named barriers 2 and 3), and the ring's producer step is cloned per
// warpgroup, guarded by its stage mod 2: stage s is issued by thread 256 +
// 128 s, the first thread of the warpgroup that runs the tasks of the
// iterations on stage s. 512 threads start with 128 registers: 64 x 256 +
// 192 x 256 = 65536 fit exactly.

// CHECK-LABEL: func.func @task_groups
// CHECK-SAME:    tile.producer_warps = 8 : i64
// CHECK:         tile.warp_specialize {consumer_registers = 192 : i64, producer_registers = 64 : i64, producer_warps = 8 : i64} producer {
// CHECK:           scf.for
// CHECK:             scf.if
// CHECK-NEXT:          tile.producer_task warps 4 group 0 engine "mma.sync" {
// CHECK:                 tile.barrier {id = 2 : i64, threads = 128 : i64}
// CHECK:                 tile.producer {
// CHECK:               } {thread_base = 256 : i64}
// CHECK-NEXT:        } else {
// CHECK-NEXT:          tile.producer_task warps 4 group 1 engine "mma.sync" {
// CHECK:                 tile.barrier {id = 3 : i64, threads = 128 : i64}
// CHECK:                 tile.producer {
// CHECK:               } {thread_base = 384 : i64}
// CHECK:             scf.if
// CHECK:               %[[TWO:.*]] = arith.constant 2 : index
// CHECK-NEXT:          %[[WHICH:.*]] = arith.remui %[[ST:.*]], %[[TWO]] : index
// CHECK-NEXT:          %[[G0:.*]] = arith.constant 0 : index
// CHECK-NEXT:          %[[IS0:.*]] = arith.cmpi eq, %[[WHICH]], %[[G0]] : index
// CHECK-NEXT:          scf.if %[[IS0]] {
// CHECK-NEXT:            tile.producer thread 256 {
// CHECK-NEXT:              tile.mbarrier_wait %{{.*}}[%[[ST]]]
// CHECK-NEXT:              tile.mbarrier_arrive %{{.*}}[%[[ST]]] {expect_tx = 16384 : i64}
// CHECK-NEXT:              tile.tma_load %{{.*}}, %{{.*}}[%[[ST]]]
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NEXT:          %[[G1:.*]] = arith.constant 1 : index
// CHECK-NEXT:          %[[IS1:.*]] = arith.cmpi eq, %[[WHICH]], %[[G1]] : index
// CHECK-NEXT:          scf.if %[[IS1]] {
// CHECK-NEXT:            tile.producer thread 384 {
// CHECK-NEXT:              tile.mbarrier_wait %{{.*}}[%[[ST]]]
// CHECK-NEXT:              tile.mbarrier_arrive %{{.*}}[%[[ST]]] {expect_tx = 16384 : i64}
// CHECK-NEXT:              tile.tma_load %{{.*}}, %{{.*}}[%[[ST]]]
// CHECK-NEXT:            }
// CHECK-NEXT:          }
// CHECK-NOT:         tile.producer thread
// CHECK:         } consumer {
// CHECK-NOT:       tile.producer_task
// CHECK-NOT:       tile.producer thread
// CHECK:           scf.for
// CHECK:             tile.mbarrier_wait
// CHECK:             tile.gemm
// CHECK:             tile.mbarrier_arrive
// CHECK:         return
func.func @task_groups(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %n: index, %k: index,
                       %arg5: !tile.tensormap<128x64xf16, swizzle = 128>)
    attributes {tile.kernel, tile.mma_engine = "wgmma", tile.num_warps = 8 : i64,
                tile.warp_specialize = {consumer_registers = 192 : i64, producer_registers = 64 : i64,
                                        tma_issue = "round_robin"}} {
  %cst = arith.constant 0.000000e+00 : f32
  %c64 = arith.constant 64 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %0 = tile.alloc {offset = 57344 : i64} : !tile.buffer<2xi64, shared>
  %1 = tile.alloc {offset = 57472 : i64} : !tile.buffer<2xi64, shared>
  %7 = tile.alloc {offset = 57600 : i64} : !tile.buffer<2xi64, shared>
  %8 = tile.alloc {offset = 57728 : i64} : !tile.buffer<2xi64, shared>
  tile.producer {
    tile.mbarrier_init %0 {count = 1 : i64} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %1 {count = 256 : i64} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %7 {count = 1 : i64} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %8 {count = 256 : i64} : !tile.buffer<2xi64, shared>
  }
  tile.barrier
  %4 = tile.view %arg1[%n, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %6 = tile.alloc {offset = 32768 : i64} : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>>
  %9 = tile.alloc {offset = 0 : i64} : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>>
  %10 = tile.alloc : !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
  tile.fill %10, %cst : !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>, f32
  scf.for %arg6 = %c0 to %n step %c1 {
    %13 = arith.remsi %arg6, %c2 : index
    %14 = arith.divsi %arg6, %c2 : index
    tile.mbarrier_wait %0[%13], %14 : !tile.buffer<2xi64, shared>
    %16 = tile.slice %9[%13] : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
    %17 = arith.muli %arg6, %c64 : index
    %20 = arith.addi %14, %c1 : index
    %even = arith.cmpi eq, %13, %c0 : index
    scf.if %even {
      tile.producer_task warps 4 group 0 engine "mma.sync" {
        %25 = tile.alloc {offset = 49152 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
        %26 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
        tile.copy %4[%c0, %17] to %25 {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
        tile.fill %26, %cst : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>, f32
        tile.barrier
        tile.gemm %25, %25, %26 {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
        tile.mbarrier_wait %8[%13], %20 : !tile.buffer<2xi64, shared>
        %27 = tile.slice %6[%13] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
        tile.copy %26 to %27 : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
        tile.barrier
        tile.producer {
          tile.mbarrier_arrive %7[%13] : !tile.buffer<2xi64, shared>
        }
      }
    } else {
      tile.producer_task warps 4 group 1 engine "mma.sync" {
        %25 = tile.alloc {offset = 53248 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
        %26 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
        tile.copy %4[%c0, %17] to %25 {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
        tile.fill %26, %cst : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>, f32
        tile.barrier
        tile.gemm %25, %25, %26 {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
        tile.mbarrier_wait %8[%13], %20 : !tile.buffer<2xi64, shared>
        %27 = tile.slice %6[%13] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
        tile.copy %26 to %27 : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
        tile.barrier
        tile.producer {
          tile.mbarrier_arrive %7[%13] : !tile.buffer<2xi64, shared>
        }
      }
    }
    tile.mbarrier_wait %7[%13], %14 : !tile.buffer<2xi64, shared>
    %21 = tile.slice %6[%13] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.gemm %16, %21, %10 : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
    tile.mbarrier_arrive %8[%13] : !tile.buffer<2xi64, shared>
    tile.mbarrier_arrive %1[%13] : !tile.buffer<2xi64, shared>
    %23 = arith.addi %arg6, %c1 : index
    %24 = arith.cmpi slt, %23, %n : index
    scf.if %24 {
      %25 = arith.remsi %23, %c2 : index
      %29 = arith.muli %23, %c64 : index
      %30 = tile.slice %9[%25] : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
      tile.producer {
        tile.mbarrier_wait %1[%25], %c1 : !tile.buffer<2xi64, shared>
        tile.mbarrier_arrive %0[%25] {expect_tx = 16384 : i64} : !tile.buffer<2xi64, shared>
        tile.tma_load %arg5[%c0, %29] to %30, %0[%25] : !tile.tensormap<128x64xf16, swizzle = 128>, !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<2xi64, shared>
      }
    }
  }
  return
}

// -----

// Task groups without round-robin issue: both producer warpgroups run the
// producer program (a group-1 task alone still makes two: warpgroup 0
// issues the loads), the ring's loads stay on the first producer thread
// (128, after four consumer warps); the task's warpgroup starts at 256.

// CHECK-LABEL: func.func @task_groups_first
// CHECK:         tile.warp_specialize {{.*}}producer_warps = 8 : i64} producer {
// CHECK:           tile.producer_task warps 4 group 1 {
// CHECK-NEXT:        tile.barrier {id = 3 : i64, threads = 128 : i64}
// CHECK-NEXT:      } {thread_base = 256 : i64}
// CHECK-NOT:       arith.remui
// CHECK:           tile.producer thread 128 {
// CHECK-NOT:       tile.producer thread
// CHECK:         } consumer {
func.func @task_groups_first(%map: !tile.tensormap<64x64xf16, swizzle = 128>, %k: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.warp_specialize = {producer_registers = 64 : i64, consumer_registers = 232 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %full = tile.alloc {offset = 0 : i64} : !tile.buffer<2xi64, shared>
  %empty = tile.alloc {offset = 16 : i64} : !tile.buffer<2xi64, shared>
  tile.producer {
    tile.mbarrier_init %full {count = 1} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %empty {count = 128} : !tile.buffer<2xi64, shared>
  }
  tile.barrier
  %s = tile.alloc {offset = 1024 : i64} : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>>
  scf.for %i = %c0 to %k step %c1 {
    %st = arith.remsi %i, %c2 : index
    %ph = arith.divsi %i, %c2 : index
    tile.producer_task warps 4 group 1 {
      tile.barrier
    }
    tile.mbarrier_wait %full[%st], %ph : !tile.buffer<2xi64, shared>
    tile.mbarrier_arrive %empty[%st] : !tile.buffer<2xi64, shared>
    %next = tile.slice %s[%st] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.producer {
      tile.mbarrier_wait %empty[%st], %ph : !tile.buffer<2xi64, shared>
      tile.mbarrier_arrive %full[%st] {expect_tx = 8192} : !tile.buffer<2xi64, shared>
      tile.tma_load %map[%c0, %i] to %next, %full[%st] : !tile.tensormap<64x64xf16, swizzle = 128>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<2xi64, shared>
    }
  }
  return
}

// -----

// A TMA load a task issues itself (its own tile.producer, task thread 0)
// is not a ring step: the round-robin issue clones only the ring's steps
// outside the tasks (threads 128 and 256 here).

// CHECK-LABEL: func.func @tma_in_task
// CHECK:         tile.producer_task warps 4 group 1 {
// CHECK-NEXT:      tile.producer {
// CHECK-NEXT:        tile.mbarrier_arrive
// CHECK-NEXT:        tile.tma_load
// CHECK:         } {thread_base = 256 : i64}
// CHECK:         tile.producer thread 128 {
// CHECK:         tile.producer thread 256 {
// CHECK:       } consumer {
func.func @tma_in_task(%map: !tile.tensormap<64x64xf16, swizzle = 128>, %k: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64,
                tile.warp_specialize = {producer_registers = 64 : i64, consumer_registers = 232 : i64,
                                        tma_issue = "round_robin"}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %full = tile.alloc {offset = 0 : i64} : !tile.buffer<2xi64, shared>
  %empty = tile.alloc {offset = 16 : i64} : !tile.buffer<2xi64, shared>
  %f2 = tile.alloc {offset = 32 : i64} : !tile.buffer<1xi64, shared>
  tile.producer {
    tile.mbarrier_init %full {count = 1} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %empty {count = 128} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %f2 {count = 1} : !tile.buffer<1xi64, shared>
  }
  tile.barrier
  %s = tile.alloc {offset = 1024 : i64} : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>>
  %t = tile.alloc {offset = 17408 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  scf.for %i = %c0 to %k step %c1 {
    %st = arith.remsi %i, %c2 : index
    %ph = arith.divsi %i, %c2 : index
    tile.producer_task warps 4 group 1 {
      tile.producer {
        tile.mbarrier_arrive %f2[%c0] {expect_tx = 8192} : !tile.buffer<1xi64, shared>
        tile.tma_load %map[%c0, %i] to %t, %f2[%c0] : !tile.tensormap<64x64xf16, swizzle = 128>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<1xi64, shared>
      }
      tile.mbarrier_wait %f2[%c0], %i : !tile.buffer<1xi64, shared>
    }
    tile.mbarrier_wait %full[%st], %ph : !tile.buffer<2xi64, shared>
    tile.mbarrier_arrive %empty[%st] : !tile.buffer<2xi64, shared>
    %next = tile.slice %s[%st] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.producer {
      tile.mbarrier_wait %empty[%st], %ph : !tile.buffer<2xi64, shared>
      tile.mbarrier_arrive %full[%st] {expect_tx = 8192} : !tile.buffer<2xi64, shared>
      tile.tma_load %map[%c0, %i] to %next, %full[%st] : !tile.tensormap<64x64xf16, swizzle = 128>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<2xi64, shared>
    }
  }
  return
}

// -----

// tma_issue = "consumer": the ring's producer step stays with the
// consumers (thread 0, after its release of the stage), so the producer
// warpgroup runs only its task and never waits on the ring's barriers.

// CHECK-LABEL: func.func @consumer_issue
// CHECK:         tile.mbarrier_init %[[RFULL:[0-9]+]] {count = 1 : i64}
// CHECK-NEXT:    tile.mbarrier_init %[[REMPTY:[0-9]+]] {count = 256 : i64}
// CHECK:         tile.warp_specialize {consumer_registers = 200 : i64, producer_registers = 104 : i64, producer_warps = 4 : i64} producer {
// CHECK-NOT:       tile.tma_load
// CHECK:           scf.for
// CHECK-NEXT:        %{{.*}} = arith.remsi
// CHECK:             tile.producer_task warps 4 engine "mma.sync" {
// CHECK:             } {thread_base = 256 : i64}
// CHECK-NEXT:      }
// CHECK-NOT:       tile.tma_load
// CHECK:         } consumer {
// CHECK:           scf.for
// CHECK:             tile.mbarrier_wait
// CHECK:             tile.gemm
// CHECK:             tile.mbarrier_arrive %[[REMPTY]][%{{.*}}] : !tile.buffer<2xi64, shared>
// CHECK:             scf.if
// CHECK:               tile.producer {
// CHECK-NEXT:            tile.mbarrier_wait %[[REMPTY]][
// CHECK-NEXT:            tile.mbarrier_arrive %[[RFULL]][%{{.*}}] {expect_tx = 16384 : i64}
// CHECK-NEXT:            tile.tma_load
// CHECK-NEXT:          }
// CHECK:         return
func.func @consumer_issue(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %n: index, %k: index,
                          %arg5: !tile.tensormap<128x64xf16, swizzle = 128>)
    attributes {tile.kernel, tile.mma_engine = "wgmma", tile.num_warps = 8 : i64,
                tile.warp_specialize = {consumer_registers = 200 : i64, producer_registers = 104 : i64,
                                        tma_issue = "consumer"}} {
  %cst = arith.constant 0.000000e+00 : f32
  %c64 = arith.constant 64 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %0 = tile.alloc {offset = 57344 : i64} : !tile.buffer<2xi64, shared>
  %1 = tile.alloc {offset = 57472 : i64} : !tile.buffer<2xi64, shared>
  %7 = tile.alloc {offset = 57600 : i64} : !tile.buffer<2xi64, shared>
  %8 = tile.alloc {offset = 57728 : i64} : !tile.buffer<2xi64, shared>
  tile.producer {
    tile.mbarrier_init %0 {count = 1 : i64} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %1 {count = 256 : i64} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %7 {count = 1 : i64} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %8 {count = 256 : i64} : !tile.buffer<2xi64, shared>
  }
  tile.barrier
  %4 = tile.view %arg1[%n, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %6 = tile.alloc {offset = 32768 : i64} : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>>
  %9 = tile.alloc {offset = 0 : i64} : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>>
  %10 = tile.alloc : !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
  tile.fill %10, %cst : !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>, f32
  scf.for %arg6 = %c0 to %n step %c1 {
    %13 = arith.remsi %arg6, %c2 : index
    %14 = arith.divsi %arg6, %c2 : index
    tile.mbarrier_wait %0[%13], %14 : !tile.buffer<2xi64, shared>
    %16 = tile.slice %9[%13] : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
    %17 = arith.muli %arg6, %c64 : index
    %20 = arith.addi %14, %c1 : index
    tile.producer_task warps 4 engine "mma.sync" {
      %25 = tile.alloc {offset = 49152 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      %26 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
      tile.copy %4[%c0, %17] to %25 {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.fill %26, %cst : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>, f32
      tile.barrier
      tile.gemm %25, %25, %26 {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
      tile.mbarrier_wait %8[%13], %20 : !tile.buffer<2xi64, shared>
      %27 = tile.slice %6[%13] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.copy %26 to %27 : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.barrier
      tile.producer {
        tile.mbarrier_arrive %7[%13] : !tile.buffer<2xi64, shared>
      }
    }
    tile.mbarrier_wait %7[%13], %14 : !tile.buffer<2xi64, shared>
    %21 = tile.slice %6[%13] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.gemm %16, %21, %10 : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
    tile.mbarrier_arrive %8[%13] : !tile.buffer<2xi64, shared>
    tile.mbarrier_arrive %1[%13] : !tile.buffer<2xi64, shared>
    %23 = arith.addi %arg6, %c1 : index
    %24 = arith.cmpi slt, %23, %n : index
    scf.if %24 {
      %25 = arith.remsi %23, %c2 : index
      %29 = arith.muli %23, %c64 : index
      %30 = tile.slice %9[%25] : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
      tile.producer {
        tile.mbarrier_wait %1[%25], %c1 : !tile.buffer<2xi64, shared>
        tile.mbarrier_arrive %0[%25] {expect_tx = 16384 : i64} : !tile.buffer<2xi64, shared>
        tile.tma_load %arg5[%c0, %29] to %30, %0[%25] : !tile.tensormap<128x64xf16, swizzle = 128>, !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<2xi64, shared>
      }
    }
  }
  return
}

// -----

// Per-role loop hints: a loop's producer_loop_annotation becomes the
// producer warpgroup's copy's loop_annotation (here LICM off, for a task at
// few registers); the consumers' copy keeps its own (unroll off) and loses
// the producer's.

// CHECK-DAG:   #[[$LICM:[a-z_0-9]+]] = #llvm.loop_licm<disable = true>
// CHECK-DAG:   #[[$UNROLL:[a-z_0-9]+]] = #llvm.loop_unroll<disable = true>
// CHECK-DAG:   #[[$PANN:[a-z_0-9]+]] = #llvm.loop_annotation<licm = #[[$LICM]]>
// CHECK-DAG:   #[[$CANN:[a-z_0-9]+]] = #llvm.loop_annotation<unroll = #[[$UNROLL]]>
// CHECK-LABEL: func.func @role_loop_annotations
// CHECK:         tile.warp_specialize {consumer_registers = 200 : i64, producer_registers = 104 : i64, producer_warps = 4 : i64} producer {
// CHECK:             } {thread_base = 256 : i64}
// CHECK-NEXT:      } {loop_annotation = #[[$PANN]]}
// CHECK-NEXT:    } consumer {
// CHECK:               tile.tma_load
// CHECK:           } {loop_annotation = #[[$CANN]]}
// CHECK-NOT:     producer_loop_annotation
// CHECK:         return
func.func @role_loop_annotations(%arg0: !tile.ptr<f16>, %arg1: !tile.ptr<f16>, %n: index, %k: index,
                          %arg5: !tile.tensormap<128x64xf16, swizzle = 128>)
    attributes {tile.kernel, tile.mma_engine = "wgmma", tile.num_warps = 8 : i64,
                tile.warp_specialize = {consumer_registers = 200 : i64, producer_registers = 104 : i64,
                                        tma_issue = "consumer"}} {
  %cst = arith.constant 0.000000e+00 : f32
  %c64 = arith.constant 64 : index
  %c2 = arith.constant 2 : index
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %0 = tile.alloc {offset = 57344 : i64} : !tile.buffer<2xi64, shared>
  %1 = tile.alloc {offset = 57472 : i64} : !tile.buffer<2xi64, shared>
  %7 = tile.alloc {offset = 57600 : i64} : !tile.buffer<2xi64, shared>
  %8 = tile.alloc {offset = 57728 : i64} : !tile.buffer<2xi64, shared>
  tile.producer {
    tile.mbarrier_init %0 {count = 1 : i64} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %1 {count = 256 : i64} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %7 {count = 1 : i64} : !tile.buffer<2xi64, shared>
    tile.mbarrier_init %8 {count = 256 : i64} : !tile.buffer<2xi64, shared>
  }
  tile.barrier
  %4 = tile.view %arg1[%n, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %6 = tile.alloc {offset = 32768 : i64} : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>>
  %9 = tile.alloc {offset = 0 : i64} : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>>
  %10 = tile.alloc : !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
  tile.fill %10, %cst : !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>, f32
  scf.for %arg6 = %c0 to %n step %c1 {
    %13 = arith.remsi %arg6, %c2 : index
    %14 = arith.divsi %arg6, %c2 : index
    tile.mbarrier_wait %0[%13], %14 : !tile.buffer<2xi64, shared>
    %16 = tile.slice %9[%13] : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
    %17 = arith.muli %arg6, %c64 : index
    %20 = arith.addi %14, %c1 : index
    tile.producer_task warps 4 engine "mma.sync" {
      %25 = tile.alloc {offset = 49152 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      %26 = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
      tile.copy %4[%c0, %17] to %25 {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.fill %26, %cst : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>, f32
      tile.barrier
      tile.gemm %25, %25, %26 {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
      tile.mbarrier_wait %8[%13], %20 : !tile.buffer<2xi64, shared>
      %27 = tile.slice %6[%13] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.copy %26 to %27 : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.barrier
      tile.producer {
        tile.mbarrier_arrive %7[%13] : !tile.buffer<2xi64, shared>
      }
    }
    tile.mbarrier_wait %7[%13], %14 : !tile.buffer<2xi64, shared>
    %21 = tile.slice %6[%13] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.gemm %16, %21, %10 : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
    tile.mbarrier_arrive %8[%13] : !tile.buffer<2xi64, shared>
    tile.mbarrier_arrive %1[%13] : !tile.buffer<2xi64, shared>
    %23 = arith.addi %arg6, %c1 : index
    %24 = arith.cmpi slt, %23, %n : index
    scf.if %24 {
      %25 = arith.remsi %23, %c2 : index
      %29 = arith.muli %23, %c64 : index
      %30 = tile.slice %9[%25] : !tile.buffer<2x128x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
      tile.producer {
        tile.mbarrier_wait %1[%25], %c1 : !tile.buffer<2xi64, shared>
        tile.mbarrier_arrive %0[%25] {expect_tx = 16384 : i64} : !tile.buffer<2xi64, shared>
        tile.tma_load %arg5[%c0, %29] to %30, %0[%25] : !tile.tensormap<128x64xf16, swizzle = 128>, !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<2xi64, shared>
      }
    }
  } {loop_annotation = #llvm.loop_annotation<unroll = <disable = true>>,
     producer_loop_annotation = #llvm.loop_annotation<licm = <disable = true>>}
  return
}
