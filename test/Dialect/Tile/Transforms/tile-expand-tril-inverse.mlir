// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse))' | FileCheck %s
// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse,tile-assign-layouts,tile-plan-shared-memory,tile-insert-barriers))' | FileCheck %s --check-prefix=BAR
// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse{merge-by-rows=1}))' | FileCheck %s --check-prefix=ROWS
// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse{stage-lo=1}))' | FileCheck %s --check-prefix=STAGE
// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse{stage-lo=1 merge-by-rows=1}))' | FileCheck %s --check-prefix=ROWS
// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse{fma-merges=always}))' | FileCheck %s --check-prefix=FMA
// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse{fma-merges=tasks}))' | FileCheck %s --check-prefix=TASKS
// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse{fma-merges=always stage-lo=1}))' | FileCheck %s --check-prefix=FMASL
// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse{fma-merges=always merge-by-rows=1}))' | FileCheck %s --check-prefix=FMAROWS
// RUN: not gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse{fma-merges=sometimes}))' 2>&1 | FileCheck %s --check-prefix=BADOPT

// fma-merges=always: the merges of sizes 16 (the diagonal phase's) and 32
// on the CUDA cores, in every kernel; the size-64 merge of a 128x128
// inverse stays on the tensor cores; packed inverses take the levels.
// FMA-LABEL: func.func @blocked
// FMA:       tile.tril_inverse_diag {{.*}} {fma, merge_pairs} :
// FMA-NEXT:  tile.tril_inverse_merge {{.*}} {fma, size = 32 : i64} :
// FMA-LABEL: func.func @lower_only_128
// FMA:       tile.tril_inverse_diag {{.*}} {fma, lower_only, merge_pairs} :
// FMA-NEXT:  tile.tril_inverse_merge {{.*}} {fma, size = 32 : i64} :
// FMA-NEXT:  tile.tril_inverse_merge {{.*}} {size = 64 : i64} :
// FMA-LABEL: func.func @packed
// FMA-NOT:   fma
// FMA:       return

// fma-merges=tasks: only the inverse inside the producer task.
// TASKS-LABEL: func.func @blocked
// TASKS:       tile.tril_inverse_diag {{.*}} {merge_pairs} :
// TASKS-NEXT:  tile.tril_inverse_merge {{.*}} {size = 32 : i64} :
// TASKS-LABEL: func.func @task_fma
// TASKS:       tile.tril_inverse_diag {{.*}} {lower_only, merge_pairs} :
// TASKS-NEXT:  tile.tril_inverse_merge {{.*}} {size = 32 : i64} :
// TASKS:       tile.producer_task warps 4 {
// TASKS-NEXT:    tile.tril_inverse_diag {{.*}} {fma, lower_only, merge_pairs} :
// TASKS-NEXT:    tile.tril_inverse_merge {{.*}} {fma, size = 32 : i64} :

// stage-lo's staged low parts are the split-tf32 final merge's: an
// inverse that takes stage-lo keeps the tensor cores (one whose threads
// are all busy does not take it); merge-by-rows gives way to fma.
// FMASL-LABEL: func.func @blocked
// FMASL:       tile.tril_inverse_diag {{.*}} {fma, merge_pairs} :
// FMASL-NEXT:  tile.tril_inverse_merge {{.*}} {fma, size = 32 : i64} :
// FMASL-LABEL: func.func @lower_only
// FMASL:       tile.tril_inverse_diag {{.*}} {lower_only, merge_pairs, stage_lo} :
// FMASL-NEXT:  tile.tril_inverse_merge {{.*}} {size = 32 : i64, staged_lo} :
// FMASL-LABEL: func.func @lower_only_busy
// FMASL:       tile.tril_inverse_diag {{.*}} {fma, lower_only, merge_pairs} :
// FMASL-NEXT:  tile.tril_inverse_merge {{.*}} {fma, size = 32 : i64} :
// FMAROWS-LABEL: func.func @lower_only
// FMAROWS:       tile.tril_inverse_diag {{.*}} {fma, lower_only, merge_pairs} :
// FMAROWS-NEXT:  tile.tril_inverse_merge {{.*}} {fma, size = 32 : i64} :

// BADOPT: fma-merges must be never, tasks or always, got 'sometimes'

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

// -----

func.func @task_fma() attributes {tile.kernel, tile.num_warps = 12 : i64,
    tile.warp_specialize = {producer_registers = 88 : i64, consumer_registers = 208 : i64}} {
  %l = tile.alloc : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse %l, %t {lower_only} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  tile.producer_task warps 4 {
    tile.tril_inverse %l, %t {lower_only} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  }
  return
}
