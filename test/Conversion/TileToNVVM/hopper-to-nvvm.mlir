// RUN: gdn-opt %s -split-input-file --tile-outline-kernels --convert-tile-to-nvvm | FileCheck %s

// The sm_90a ops (HopperToNVVM.cpp) and the kernel ABI around them.

// A warp-specialized kernel: 8 compute warps + a producer warpgroup (384
// threads, one block per SM for setmaxnreg); the tensor map is a byval
// 128-byte __grid_constant__ parameter, recorded in the launch interface
// with its host recipe, box and swizzle.
// CHECK-LABEL: module @ws attributes {gdn.kernels = {k = {block = [384, 1, 1], module = "ws", params = ["A_tma:tensormap", "n:i32"], shared_bytes = 49168 : i64, tensormaps = {A_tma = {base = "A", box = [128, 64], dims = ["M", "K"], strides = ["K"], swizzle = 128 : i64}}}}
// CHECK:       llvm.func @k(%{{.*}}: !llvm.ptr {llvm.align = 64 : i64, llvm.byval = !llvm.array<128 x i8>, nvvm.grid_constant}, %{{.*}}: i32)
// CHECK-SAME:    nvvm.maxntid = array<i32: 384, 1, 1>, nvvm.minctasm = 1 : i32
// mbarrier.init of each barrier, then the init fence; the block barrier.
// CHECK:         nvvm.mbarrier.init.shared
// CHECK:         nvvm.mbarrier.init.shared
// CHECK:         nvvm.fence.mbarrier.init
// CHECK:         nvvm.barrier0
// The role split on the thread id: producer warpgroup (tid >= 256) and
// consumers, each rebalancing its registers.
// CHECK:         %[[C256:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT:    %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    %[[ISP:.*]] = llvm.icmp "uge" %[[TID]], %[[C256]] : i32
// CHECK:         llvm.cond_br %[[ISP]], ^[[PROD:.*]], ^[[CONS:.*]]
// CHECK:       ^[[PROD]]:
// CHECK-NEXT:    nvvm.setmaxregister  decrease 40
// The producer thread (256): wait for a free stage, announce the bytes,
// and one TMA load per 64-column box of the 128-column destination (the
// second box 128 rows x 128 B further, 64 columns further along the inner
// coordinate). Its whole warp (8, the warp index broadcast from lane 0,
// which ptxas sees is warp-uniform) runs the wait; only thread 256 the
// rest.
// CHECK:         %[[ONE:.*]] = llvm.icmp "eq" %{{.*}}, %{{.*}} : i32
// CHECK:         %[[WARP:.*]] = nvvm.shfl.sync  idx %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} : i32 -> i32
// CHECK-NEXT:    %[[C8:.*]] = llvm.mlir.constant(8 : i32) : i32
// CHECK-NEXT:    %[[INW:.*]] = llvm.icmp "eq" %[[WARP]], %[[C8]] : i32
// CHECK-NEXT:    llvm.cond_br %[[INW]], ^[[WAITB:.*]], ^[[DONE:.*]]
// CHECK-NEXT:  ^[[WAITB]]:
// CHECK:         nvvm.mbarrier.try_wait.parity.shared
// CHECK-NEXT:    llvm.cond_br %[[ONE]], ^[[ISSUE:.*]], ^[[DONE]]
// CHECK-NEXT:  ^[[ISSUE]]:
// CHECK:         nvvm.mbarrier.arrive.expect_tx.shared %{{.*}}, %{{.*}} : !llvm.ptr<3>, i32
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}]
// CHECK:         llvm.mlir.constant(16384 : i64)
// CHECK:         llvm.mlir.constant(64 : i32)
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global
// CHECK:       ^[[CONS]]:
// CHECK-NEXT:    nvvm.setmaxregister  increase 232
// CHECK:         nvvm.mbarrier.try_wait.parity.shared
// CHECK:         nvvm.mbarrier.arrive.shared %{{.*}} : !llvm.ptr<3> -> i64
// CHECK:         nvvm.wgmma.wait.group.sync.aligned 1
// CHECK:         %[[ID:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK:         %[[NT:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK:         nvvm.barrier id = %[[ID]] number_of_threads = %[[NT]]
// CHECK-NOT:     tile.
module @ws {
  func.func @k(%map: !tile.tensormap<128x64xf16, swizzle = 128> {tile.name = "A_tma", tile.tensor_map = {base = "A", dims = ["M", "K"], strides = ["K"]}},
               %n: i32 {tile.name = "n"})
      attributes {tile.kernel, tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64,
                  tile.shared_memory_bytes = 49168 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %full = tile.alloc {offset = 49152 : i64} : !tile.buffer<1xi64, shared>
    %empty = tile.alloc {offset = 49160 : i64} : !tile.buffer<1xi64, shared>
    %s = tile.alloc {offset = 0 : i64} : !tile.buffer<128x128xf16, shared, #tile.swizzle<128>>
    tile.producer {
      tile.mbarrier_init %full {count = 1} : !tile.buffer<1xi64, shared>
      tile.mbarrier_init %empty {count = 256} : !tile.buffer<1xi64, shared>
    }
    tile.barrier
    tile.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232} producer {
      tile.producer thread 256 {
        tile.mbarrier_wait %empty[%c0], %c1 : !tile.buffer<1xi64, shared>
        tile.mbarrier_arrive %full[%c0] {expect_tx = 32768} : !tile.buffer<1xi64, shared>
        tile.tma_load %map[%c0, %c0] to %s, %full[%c0] : !tile.tensormap<128x64xf16, swizzle = 128>, !tile.buffer<128x128xf16, shared, #tile.swizzle<128>>, !tile.buffer<1xi64, shared>
      }
    } consumer {
      tile.mbarrier_wait %full[%c0], %c0 : !tile.buffer<1xi64, shared>
      tile.mbarrier_arrive %empty[%c0] : !tile.buffer<1xi64, shared>
      tile.gemm_wait {pending = 1}
      tile.barrier {id = 1, threads = 256}
    }
    return
  }
}

// -----

// tile.num_programs reads %nctaid.
// CHECK-LABEL: module @grid
// CHECK:         nvvm.read.ptx.sreg.nctaid.y : i32
// CHECK:         llvm.zext %{{.*}} : i32 to i64
module @grid {
  func.func @k(%n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
    %g = tile.num_programs y
    return
  }
}

// -----

// TMA stores: the barrier before the store orders the threads' generic
// shared-memory writes before the async proxy's reads (the fence also in a
// kernel without wgmma); one bulk-tensor store per box (the second 64 x 128
// bytes further, 64 columns further along the inner coordinate), the group
// committed, then the wait for the source reads.
// CHECK-LABEL: llvm.func @tma_store
// CHECK:         nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT:    nvvm.barrier0
// CHECK:         nvvm.cp.async.bulk.tensor.global.shared.cta %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] : !llvm.ptr, !llvm.ptr<3>, i32, i32
// CHECK:         llvm.mlir.constant(8192 : i64)
// CHECK:         llvm.mlir.constant(64 : i32)
// CHECK:         nvvm.cp.async.bulk.tensor.global.shared.cta
// CHECK-NEXT:    nvvm.cp.async.bulk.commit.group
// CHECK-NEXT:    nvvm.cp.async.bulk.wait_group 0 {read}
module @st {
  func.func @tma_store(%map: !tile.tensormap<64x64xf16, swizzle = 128> {tile.name = "C_tma", tile.tensor_map = {base = "C", dims = ["M", "N"], strides = ["N"]}})
      attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 16384 : i64} {
    %c0 = arith.constant 0 : index
    %s = tile.alloc {offset = 0 : i64} : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
    tile.barrier
    tile.producer {
      tile.tma_store %s to %map[%c0, %c0] : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>, !tile.tensormap<64x64xf16, swizzle = 128>
      tile.tma_store_wait {read}
    }
    return
  }
}


// -----

// tile.tma_load {block_lower = 32}: a 64x64 f16 tile in 64-byte swizzle
// spans (box 32 rows x 32 columns, the tensor's middle dimension taken),
// only the boxes in the 32x32 blocks on and below the diagonal: span 0's
// two row boxes (rows +0 and +32 along the outer coordinate, 2048 bytes
// apart), then span 1's lower one (32 columns further, rows +32, at box 3
// = 6144 bytes: each span's 64 rows together). The upper block's box
// (span 1, rows 0..31) is never loaded.
// CHECK-LABEL: llvm.func @tma_load_block_lower
// CHECK:         nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST0:.*]], %{{.*}}, %{{.*}}, box[%[[IN:.*]], %[[MID:.*]], %[[OUT:.*]]] :
// CHECK-NEXT:    %[[O1:.*]] = llvm.mlir.constant(2048 : i64)
// CHECK-NEXT:    %[[DST1:.*]] = llvm.getelementptr %[[DST0]][%[[O1]]]
// CHECK-NEXT:    %[[C32:.*]] = llvm.mlir.constant(32 : i32)
// CHECK-NEXT:    %[[R1:.*]] = llvm.add %[[OUT]], %[[C32]]
// CHECK-NEXT:    nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST1]], %{{.*}}, %{{.*}}, box[%[[IN]], %[[MID]], %[[R1]]] :
// CHECK-NEXT:    %[[O3:.*]] = llvm.mlir.constant(6144 : i64)
// CHECK-NEXT:    %[[DST3:.*]] = llvm.getelementptr %[[DST0]][%[[O3]]]
// CHECK-NEXT:    %[[C32B:.*]] = llvm.mlir.constant(32 : i32)
// CHECK-NEXT:    %[[I1:.*]] = llvm.add %[[IN]], %[[C32B]]
// CHECK-NEXT:    %[[C32C:.*]] = llvm.mlir.constant(32 : i32)
// CHECK-NEXT:    %[[R2:.*]] = llvm.add %[[OUT]], %[[C32C]]
// CHECK-NEXT:    nvvm.cp.async.bulk.tensor.shared.cluster.global %[[DST3]], %{{.*}}, %{{.*}}, box[%[[I1]], %[[MID]], %[[R2]]] :
// CHECK-NOT:     nvvm.cp.async.bulk.tensor
// CHECK:         llvm.return
module @bl {
  func.func @tma_load_block_lower(%map: !tile.tensormap<32x1x32xf16, swizzle = 64> {tile.name = "Ag_tma", tile.tensor_map = {base = "Ag", dims = ["T", "H", "64"], strides = ["H*64", "64"]}})
      attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 8200 : i64} {
    %c0 = arith.constant 0 : index
    %full = tile.alloc {offset = 8192 : i64} : !tile.buffer<1xi64, shared>
    %s = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
    tile.producer {
      tile.mbarrier_arrive %full[%c0] {expect_tx = 6144} : !tile.buffer<1xi64, shared>
      tile.tma_load %map[%c0, %c0, %c0] to %s, %full[%c0] {block_lower = 32 : i64} : !tile.tensormap<32x1x32xf16, swizzle = 64>, !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>, !tile.buffer<1xi64, shared>
    }
    return
  }
}
