// RUN: gdn-opt %s --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse,tile-assign-layouts,tile-pipeline,tile-plan-shared-memory,tile-insert-barriers,arith-expand),tile-outline-kernels,convert-tile-to-nvvm)' | FileCheck %s

// The blocked inverse with L from registers through the tile passes: the
// Gram product's accumulator (tile-assign-layouts gives it #tile.mma<warps
// = [4, 1], engine = wgmma>) has its diagonal 16x16 blocks stored into L
// for the diagonal phase (block_diagonal) and is the L of the three levels. tile-insert-barriers puts a block barrier
// after the copy into L, after the diagonal phase and between the levels
// (they share T); inside a level only warp syncs: two per busy warp, whose
// branches test the warp index for equality (level 1: warps 1, 2, 3; level
// 2: 2, 3; level 3: 3). Only T_ii comes by ldmatrix (two per busy warp).
// CHECK-LABEL: llvm.func @tril_regs_pipeline
// CHECK-COUNT-8: nvvm.wgmma.mma_async
// CHECK:       nvvm.barrier0
// CHECK:       nvvm.barrier0
// CHECK-NOT:   nvvm.bar.warp.sync
// CHECK-COUNT-3: llvm.icmp "eq"
// CHECK-NOT:   nvvm.barrier0
// CHECK-COUNT-6: nvvm.bar.warp.sync
// CHECK-NOT:   nvvm.bar.warp.sync
// CHECK:       nvvm.barrier0
// CHECK-COUNT-2: llvm.icmp "eq"
// CHECK-NOT:   nvvm.barrier0
// CHECK-COUNT-4: nvvm.bar.warp.sync
// CHECK-NOT:   nvvm.bar.warp.sync
// CHECK:       nvvm.barrier0
// CHECK-NOT:   nvvm.barrier0
// CHECK-COUNT-2: nvvm.ldmatrix
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.return
func.func @tril_regs_pipeline(%pk: !tile.ptr<f16>) attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %K = tile.view %pk[%c64] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  %sK = tile.alloc : !tile.buffer<64x128xf16, shared>
  tile.copy %K[%c0, %c0] to %sK : !tile.buffer<?x128xf16, global> to !tile.buffer<64x128xf16, shared>
  %gram = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %gram, %zero : !tile.buffer<64x64xf32, fragment>, f32
  tile.gemm %sK, %sK, %gram {transpose_b} : !tile.buffer<64x128xf16, shared>, !tile.buffer<64x128xf16, shared>, !tile.buffer<64x64xf32, fragment>
  %sL = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.copy %gram to %sL {block_diagonal = 16 : i64} : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, shared>
  %sT = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_diag %sL, %sT : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_level %gram, %sT {level = 1 : i64} : !tile.buffer<64x64xf32, fragment>, !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_level %gram, %sT {level = 2 : i64} : !tile.buffer<64x64xf32, fragment>, !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_level %gram, %sT {level = 3 : i64} : !tile.buffer<64x64xf32, fragment>, !tile.buffer<64x64xf32, shared>
  return
}
