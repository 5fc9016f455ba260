// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse))' | FileCheck %s
// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse,tile-assign-layouts,tile-plan-shared-memory,tile-insert-barriers))' | FileCheck %s --check-prefix=BAR
// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse{merge-by-rows=1}))' | FileCheck %s --check-prefix=ROWS
// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse{stage-lo=1}))' | FileCheck %s --check-prefix=STAGE
// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse{stage-lo=1 merge-by-rows=1}))' | FileCheck %s --check-prefix=ROWS

// stage-lo gives the lower_only 64x64 inverse on 128 threads (64 of them
// idle in the diagonal phase) stage_lo / staged_lo; not a full inverse
// (its upper blocks are zeros), nor one whose threads are all busy (two
// warps), nor with merge-by-rows (the RUN line above: ROWS holds).
// STAGE-LABEL: func.func @blocked
// STAGE:       tile.tril_inverse_diag {{.*}} {merge_pairs} :
// STAGE-NEXT:  tile.tril_inverse_merge {{.*}} {size = 32 : i64} :
// STAGE-LABEL: func.func @lower_only
// STAGE:       tile.tril_inverse_diag {{.*}} {lower_only, merge_pairs, stage_lo} :
// STAGE-NEXT:  tile.tril_inverse_merge {{.*}} {size = 32 : i64, staged_lo} :
// STAGE-LABEL: func.func @lower_only_busy
// STAGE:       tile.tril_inverse_diag {{.*}} {lower_only, merge_pairs} :
// STAGE-NEXT:  tile.tril_inverse_merge {{.*}} {size = 32 : i64} :
// STAGE-LABEL: func.func @lower_only_128
// STAGE:       tile.tril_inverse_diag {{.*}} {lower_only, merge_pairs, stage_lo} :
// STAGE-NEXT:  tile.tril_inverse_merge {{.*}} {size = 32 : i64} :
// STAGE-NEXT:  tile.tril_inverse_merge {{.*}} {size = 64 : i64, staged_lo} :

// merge-by-rows gives by_rows to the size-32 merge of lower_only inverses
// only (by_rows uses the blocks above the diagonal as scratch).
// ROWS-LABEL: func.func @blocked
// ROWS:       tile.tril_inverse_merge {{.*}} {size = 32 : i64} :
// ROWS-LABEL: func.func @lower_only
// ROWS:       tile.tril_inverse_diag {{.*}} {lower_only, merge_pairs} :
// ROWS-NEXT:  tile.tril_inverse_merge {{.*}} {by_rows, size = 32 : i64} :

// 64x64 over 128 threads (4 blocks per row, a power of two): the diagonal
// phase with the first doubling step on its own warps (merge_pairs: the
// blocks (1, 0) and (3, 2)), then the merge of size 32 (the 32x32 block
// below the diagonal).

// CHECK-LABEL: func.func @blocked
// CHECK-NEXT:  %[[L:.*]] = tile.alloc : !tile.buffer<64x64xf32, shared>
// CHECK-NEXT:  %[[T:.*]] = tile.alloc : !tile.buffer<64x64xf32, shared>
// CHECK-NEXT:  tile.tril_inverse_diag %[[L]], %[[T]] {merge_pairs} :
// CHECK-NEXT:  tile.tril_inverse_merge %[[L]], %[[T]] {size = 32 : i64} :
// CHECK-NEXT:  return

// tile-insert-barriers puts a barrier between the two phases: the merge
// reads what the diagonal phase wrote.

// BAR-LABEL: func.func @blocked
// BAR:       tile.tril_inverse_diag {{.*}} {merge_pairs}
// BAR-NEXT:  tile.barrier
// BAR-NEXT:  tile.tril_inverse_merge {{.*}} {size = 32 : i64}
// BAR-NEXT:  return
func.func @blocked() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %l = tile.alloc : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse %l, %t : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// lower_only goes to the diagonal phase, the only one that writes blocks
// above the diagonal (zeros).

// CHECK-LABEL: func.func @lower_only
// CHECK:       tile.tril_inverse_diag %{{.*}}, %{{.*}} {lower_only, merge_pairs} :
// CHECK-NEXT:  tile.tril_inverse_merge %{{.*}}, %{{.*}} {size = 32 : i64} :
func.func @lower_only() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %l = tile.alloc : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse %l, %t {lower_only} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// CHECK-LABEL: func.func @lower_only_busy
// CHECK:       tile.tril_inverse_diag %{{.*}}, %{{.*}} {lower_only, merge_pairs} :
func.func @lower_only_busy() attributes {tile.kernel, tile.num_warps = 2 : i64} {
  %l = tile.alloc : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse %l, %t {lower_only} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// CHECK-LABEL: func.func @lower_only_128
// CHECK:       tile.tril_inverse_diag %{{.*}}, %{{.*}} {lower_only, merge_pairs} :
// CHECK-NEXT:  tile.tril_inverse_merge %{{.*}}, %{{.*}} {size = 32 : i64} :
// CHECK-NEXT:  tile.tril_inverse_merge %{{.*}}, %{{.*}} {size = 64 : i64} :
func.func @lower_only_128() attributes {tile.kernel, tile.num_warps = 8 : i64} {
  %l = tile.alloc : !tile.buffer<128x128xf32, shared>
  %t = tile.alloc : !tile.buffer<128x128xf32, shared>
  tile.tril_inverse %l, %t {lower_only} : !tile.buffer<128x128xf32, shared>, !tile.buffer<128x128xf32, shared>
  return
}

// -----

// 32x32 on one warp: one doubling step, inside the diagonal phase.

// CHECK-LABEL: func.func @two_blocks
// CHECK-COUNT-2: tile.alloc
// CHECK-NEXT:  tile.tril_inverse_diag {{.*}} {merge_pairs}
// CHECK-NEXT:  return
func.func @two_blocks() attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %l = tile.alloc : !tile.buffer<32x32xf32, shared>
  %t = tile.alloc : !tile.buffer<32x32xf32, shared>
  tile.tril_inverse %l, %t : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  return
}

// -----

// 48x48 (3 blocks per row, not a power of two): one level per distance from
// the diagonal, as the doubling needs pairs.

// CHECK-LABEL: func.func @three_blocks
// CHECK-COUNT-2: tile.alloc
// CHECK-NEXT:  tile.tril_inverse_diag %{{.*}}, %{{.*}} :
// CHECK-NEXT:  tile.tril_inverse_level {{.*}} {level = 1 : i64}
// CHECK-NEXT:  tile.tril_inverse_level {{.*}} {level = 2 : i64}
// CHECK-NEXT:  return
func.func @three_blocks() attributes {tile.kernel, tile.num_warps = 2 : i64} {
  %l = tile.alloc : !tile.buffer<48x48xf32, shared>
  %t = tile.alloc : !tile.buffer<48x48xf32, shared>
  tile.tril_inverse %l, %t : !tile.buffer<48x48xf32, shared>, !tile.buffer<48x48xf32, shared>
  return
}

// -----

// Left alone: not a multiple of 16, a single block, more rows than threads
// (64 > 32), and functions that are not kernels.

// CHECK-LABEL: func.func @kept
// CHECK-COUNT-6: tile.alloc
// CHECK-NEXT:  tile.tril_inverse %{{.*}}, %{{.*}} : !tile.buffer<24x24xf32, shared>
// CHECK-NEXT:  tile.tril_inverse %{{.*}}, %{{.*}} : !tile.buffer<16x16xf32, shared>
// CHECK-NEXT:  tile.tril_inverse %{{.*}}, %{{.*}} : !tile.buffer<64x64xf32, shared>
// CHECK-NEXT:  return
func.func @kept() attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %a = tile.alloc : !tile.buffer<24x24xf32, shared>
  %a2 = tile.alloc : !tile.buffer<24x24xf32, shared>
  %b = tile.alloc : !tile.buffer<16x16xf32, shared>
  %b2 = tile.alloc : !tile.buffer<16x16xf32, shared>
  %c = tile.alloc : !tile.buffer<64x64xf32, shared>
  %c2 = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse %a, %a2 : !tile.buffer<24x24xf32, shared>, !tile.buffer<24x24xf32, shared>
  tile.tril_inverse %b, %b2 : !tile.buffer<16x16xf32, shared>, !tile.buffer<16x16xf32, shared>
  tile.tril_inverse %c, %c2 : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// CHECK-LABEL: func.func @not_a_kernel
// CHECK-NEXT:  tile.tril_inverse
func.func @not_a_kernel(%l: !tile.buffer<64x64xf32, shared>, %t: !tile.buffer<64x64xf32, shared>) {
  tile.tril_inverse %l, %t : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// Packed (one buffer: L below the diagonal, the inverse transposed above):
// every phase is packed and works in place, by levels (the merges are not
// packed); a barrier between every two.

// CHECK-LABEL: func.func @packed
// CHECK-NEXT:  %[[LT:.*]] = tile.alloc : !tile.buffer<64x64xf32, shared>
// CHECK-NEXT:  tile.tril_inverse_diag %[[LT]], %[[LT]] {packed} :
// CHECK-NEXT:  tile.tril_inverse_level %[[LT]], %[[LT]] {level = 1 : i64, packed} :
// CHECK-NEXT:  tile.tril_inverse_level %[[LT]], %[[LT]] {level = 2 : i64, packed} :
// CHECK-NEXT:  tile.tril_inverse_level %[[LT]], %[[LT]] {level = 3 : i64, packed} :
// CHECK-NEXT:  return

// BAR-LABEL: func.func @packed
// BAR:       tile.tril_inverse_diag {{.*}} {packed}
// BAR-NEXT:  tile.barrier
// BAR-NEXT:  tile.tril_inverse_level {{.*}} {level = 1 : i64, packed}
// BAR-NEXT:  tile.barrier
// BAR-NEXT:  tile.tril_inverse_level {{.*}} {level = 2 : i64, packed}
// BAR-NEXT:  tile.barrier
// BAR-NEXT:  tile.tril_inverse_level {{.*}} {level = 3 : i64, packed}
// BAR-NEXT:  return
func.func @packed() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %lt = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse %lt, %lt {packed} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// The warps that run the inverse decide: a 160x160 inverse is expanded in
// an 8-warp kernel (160 <= 256 threads, a column each) but not in a
// tile.producer_task of 4 warps there (160 > 128).

// CHECK-LABEL: func.func @task_warps
// CHECK:       tile.tril_inverse_diag
// CHECK:       tile.producer_task warps 4 {
// CHECK-NEXT:    tile.tril_inverse %{{.*}}, %{{.*}} :
func.func @task_warps() attributes {tile.kernel, tile.num_warps = 8 : i64,
    tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  %l = tile.alloc : !tile.buffer<160x160xf32, shared>
  %t = tile.alloc : !tile.buffer<160x160xf32, shared>
  tile.tril_inverse %l, %t : !tile.buffer<160x160xf32, shared>, !tile.buffer<160x160xf32, shared>
  tile.producer_task warps 4 {
    tile.tril_inverse %l, %t : !tile.buffer<160x160xf32, shared>, !tile.buffer<160x160xf32, shared>
  }
  return
}
