// RUN: gdn-opt %s -split-input-file | FileCheck %s
// RUN: gdn-opt %s -split-input-file -mlir-print-op-generic | gdn-opt -split-input-file | FileCheck %s

// The sm_90a ops round-trip in both the pretty and the generic form.

// CHECK-LABEL: func.func @ring
// CHECK-SAME:    %[[MAP:.*]]: !tile.tensormap<128x64xf16, swizzle = 128> {tile.name = "A_tma", tile.tensor_map = {base = "A", dims = ["M", "K"], strides = ["K"]}}
// CHECK:         %[[N:.*]] = tile.num_programs y
// CHECK:         tile.producer {
// CHECK-NEXT:      tile.mbarrier_init %[[FULL:.*]] {count = 1 : i64} : !tile.buffer<4xi64, shared>
// CHECK-NEXT:      tile.mbarrier_wait %[[FULL]][%{{.*}}], %{{.*}} : !tile.buffer<4xi64, shared>
// CHECK-NEXT:      tile.mbarrier_arrive %[[FULL]][%{{.*}}] {expect_tx = 32768 : i64} : !tile.buffer<4xi64, shared>
// CHECK-NEXT:      tile.tma_load %[[MAP]][%{{.*}}, %{{.*}}] to %{{.*}}, %[[FULL]][%{{.*}}] : !tile.tensormap<128x64xf16, swizzle = 128>, !tile.buffer<128x128xf16, shared, #tile.swizzle<128>>, !tile.buffer<4xi64, shared>
// CHECK-NEXT:    }
// CHECK:         tile.producer thread 256 {
// CHECK:         tile.mbarrier_arrive %[[FULL]][%{{.*}}] : !tile.buffer<4xi64, shared>
// CHECK:         tile.gemm_wait {pending = 1 : i64}
// CHECK:         tile.barrier {id = 1 : i64, threads = 256 : i64}
func.func @ring(%map: !tile.tensormap<128x64xf16, swizzle = 128> {tile.name = "A_tma", tile.tensor_map = {base = "A", dims = ["M", "K"], strides = ["K"]}})
    attributes {tile.kernel, tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = tile.num_programs y
  %full = tile.alloc : !tile.buffer<4xi64, shared>
  %s = tile.alloc : !tile.buffer<128x128xf16, shared, #tile.swizzle<128>>
  tile.producer {
    tile.mbarrier_init %full {count = 1} : !tile.buffer<4xi64, shared>
    tile.mbarrier_wait %full[%c1], %c0 : !tile.buffer<4xi64, shared>
    tile.mbarrier_arrive %full[%c0] {expect_tx = 32768} : !tile.buffer<4xi64, shared>
    tile.tma_load %map[%c0, %n] to %s, %full[%c0] : !tile.tensormap<128x64xf16, swizzle = 128>, !tile.buffer<128x128xf16, shared, #tile.swizzle<128>>, !tile.buffer<4xi64, shared>
  }
  tile.producer thread 256 {
    tile.mbarrier_wait %full[%c0], %c1 : !tile.buffer<4xi64, shared>
  }
  tile.mbarrier_arrive %full[%c0] : !tile.buffer<4xi64, shared>
  tile.gemm_wait {pending = 1}
  tile.barrier {id = 1, threads = 256}
  return
}

// -----

// CHECK-LABEL: func.func @roles
// CHECK:         tile.warp_specialize {consumer_registers = 232 : i64, producer_registers = 40 : i64, producer_warps = 4 : i64} producer {
// CHECK-NEXT:      tile.producer thread 256 {
// CHECK:         } consumer {
// CHECK-NEXT:      tile.barrier {id = 1 : i64, threads = 256 : i64}
// CHECK-NEXT:    }
func.func @roles() attributes {tile.kernel, tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  tile.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232} producer {
    tile.producer thread 256 {
      tile.mbarrier_arrive %full[%c0] : !tile.buffer<2xi64, shared>
    }
  } consumer {
    tile.barrier {id = 1, threads = 256}
  }
  return
}

// -----

// A box of 1 along a taken dimension: a [B, T, H, D] tensor, one head.
// CHECK-LABEL: func.func @take_box
// CHECK:         tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] to %{{.*}} : !tile.tensormap<64x1x128xf16, swizzle = 0>, !tile.buffer<64x128xf16, shared>
func.func @take_box(%map: !tile.tensormap<64x1x128xf16, swizzle = 0>) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %bar = tile.alloc : !tile.buffer<1xi64, shared>
  %s = tile.alloc : !tile.buffer<64x128xf16, shared>
  tile.tma_load %map[%c0, %c0, %c0] to %s, %bar[%c0] : !tile.tensormap<64x1x128xf16, swizzle = 0>, !tile.buffer<64x128xf16, shared>, !tile.buffer<1xi64, shared>
  return
}

// -----

// TMA stores: a 64x128 f16 tile as two 64-wide boxes of a 128-byte-swizzled
// source, then a wait for the sources to be read.
// CHECK-LABEL: func.func @store
// CHECK:         tile.producer {
// CHECK-NEXT:      tile.tma_store %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>, !tile.tensormap<64x64xf16, swizzle = 128>
// CHECK-NEXT:      tile.tma_store_wait {read}
// CHECK-NEXT:      tile.tma_store_wait {pending = 1 : i64}
// CHECK-NEXT:    }
func.func @store(%map: !tile.tensormap<64x64xf16, swizzle = 128> {tile.name = "C_tma", tile.tensor_map = {base = "C", dims = ["M", "N"], strides = ["N"]}})
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %s = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  tile.producer {
    tile.tma_store %s to %map[%c0, %c0] : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>, !tile.tensormap<64x64xf16, swizzle = 128>
    tile.tma_store_wait {read}
    tile.tma_store_wait {pending = 1}
  }
  return
}


// -----

// A producer task: the producer warpgroup's compute (four warps, its own
// mma engine), ending implicitly; thread 0 of a tile.producer in it is the
// task's first thread. The thread base is tile-warp-specialize's; a
// second task group runs on a second producer warpgroup; async_gemm asks
// tile-async-gemm to schedule a task's wgmma gemms.
// CHECK-LABEL: func.func @task
// CHECK:         tile.producer_task warps 4 engine "mma.sync" {
// CHECK-NEXT:      tile.mbarrier_wait %{{.*}}[%{{.*}}], %{{.*}} : !tile.buffer<2xi64, shared>
// CHECK-NEXT:      tile.barrier
// CHECK-NEXT:      tile.producer {
// CHECK-NEXT:        tile.mbarrier_arrive
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.warp_specialize {{.*}} producer {
// CHECK-NEXT:      tile.producer_task warps 4 {
// CHECK-NEXT:      } {thread_base = 256 : i64}
// CHECK-NEXT:      tile.producer_task warps 4 group 1 engine "wgmma" async_gemm {
// CHECK-NEXT:      } {thread_base = 384 : i64}
// CHECK-NEXT:    } consumer {
// CHECK-NEXT:      tile.barrier {id = 1 : i64, threads = 256 : i64}
// CHECK-NEXT:    }
func.func @task(%i: index) attributes {tile.kernel, tile.num_warps = 8 : i64, tile.producer_warps = 8 : i64,
    tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  tile.producer_task warps 4 engine "mma.sync" {
    tile.mbarrier_wait %full[%i], %i : !tile.buffer<2xi64, shared>
    tile.barrier
    tile.producer {
      tile.mbarrier_arrive %full[%i] : !tile.buffer<2xi64, shared>
    }
  }
  tile.warp_specialize {producer_warps = 8, producer_registers = 72, consumer_registers = 216} producer {
    tile.producer_task warps 4 {
    } {thread_base = 256 : i64}
    tile.producer_task warps 4 group 1 engine "wgmma" async_gemm {
    } {thread_base = 384 : i64}
  } consumer {
    tile.barrier {id = 1, threads = 256}
  }
  return
}
