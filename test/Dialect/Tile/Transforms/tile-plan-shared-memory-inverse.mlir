// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-plan-shared-memory))' | FileCheck %s

// tile-plan-shared-memory's rule for triangular inverses: the destination T
// of a blocked inverse (diagonal phase, merges up to size n / 2) lies n / 2
// rows before its source L, when nothing reads L after the final merge and
// nothing touches T before the diagonal phase. 64 x 64 f32 with rows of 72
// words and 4 more after every fourth: row 32 at (32 x 72 + 8 x 4) x 4 =
// 9,344 bytes, a buffer 18,720 (65 rows: the skew's 60 words take one
// more): the pair takes 28,064 bytes, not 37,536 (two buffers, the first
// rounded up to the 128-byte alignment).

// CHECK-LABEL: func.func @inverse
// CHECK-SAME:  tile.shared_memory_bytes = 28064 : i64
// CHECK:       %[[L:.*]] = tile.alloc {offset = 9344 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
// CHECK:       %[[T:.*]] = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
func.func @inverse(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %l = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.copy %G[%c0, %c0] to %l : !tile.buffer<?x?xf32, global> to !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  %t = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.tril_inverse_diag %l, %t {lower_only, merge_pairs} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.tril_inverse_merge %l, %t {size = 32 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.copy %t to %G[%c0, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// 128 x 128 (rows of 136 words, the skew): the merges of size 32, then 64;
// row 64 at (64 x 136 + 16 x 4) x 4 = 35,072 bytes, a buffer 129 x 136 x 4
// = 70,176. A buffer live across the inverse (%keep) does not take the
// pair's bytes: it follows them at the next 128-byte boundary.

// CHECK-LABEL: func.func @inverse128
// CHECK-SAME:  tile.shared_memory_bytes = 105856 : i64
// CHECK:       tile.alloc {offset = 105344 : i64} : !tile.buffer<128xf32, shared>
// CHECK:       tile.alloc {offset = 35072 : i64} : !tile.buffer<128x128xf32, shared, #tile.padded<8, 4, 4>>
// CHECK:       tile.alloc {offset = 0 : i64} : !tile.buffer<128x128xf32, shared, #tile.padded<8, 4, 4>>
func.func @inverse128(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 8 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %V = tile.view %p[%m] : !tile.ptr<f32> -> !tile.buffer<?xf32, global>
  %keep = tile.alloc : !tile.buffer<128xf32, shared>
  tile.copy %V[%c0] to %keep : !tile.buffer<?xf32, global> to !tile.buffer<128xf32, shared>
  %l = tile.alloc : !tile.buffer<128x128xf32, shared, #tile.padded<8, 4, 4>>
  tile.copy %G[%c0, %c0] to %l : !tile.buffer<?x?xf32, global> to !tile.buffer<128x128xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  %t = tile.alloc : !tile.buffer<128x128xf32, shared, #tile.padded<8, 4, 4>>
  tile.tril_inverse_diag %l, %t {lower_only, merge_pairs} : !tile.buffer<128x128xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<128x128xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.tril_inverse_merge %l, %t {size = 32 : i64} : !tile.buffer<128x128xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<128x128xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.tril_inverse_merge %l, %t {size = 64 : i64} : !tile.buffer<128x128xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<128x128xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.copy %t to %G[%c0, %c0] : !tile.buffer<128x128xf32, shared, #tile.padded<8, 4, 4>> to !tile.buffer<?x?xf32, global>
  tile.copy %keep to %V[%c0] : !tile.buffer<128xf32, shared> to !tile.buffer<?xf32, global>
  return
}

// -----

// Allocated inside a loop's body (fresh each iteration), the pair overlaps
// as in straight-line code.

// CHECK-LABEL: func.func @in_loop
// CHECK-SAME:  tile.shared_memory_bytes = 28064 : i64
// CHECK:       tile.alloc {offset = 9344 : i64}
// CHECK:       tile.alloc {offset = 0 : i64}
func.func @in_loop(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  scf.for %i = %c0 to %m step %c1 {
    %l = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
    tile.copy %G[%i, %c0] to %l : !tile.buffer<?x?xf32, global> to !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
    tile.barrier
    %t = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
    tile.tril_inverse_diag %l, %t {lower_only, merge_pairs} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
    tile.barrier
    tile.tril_inverse_merge %l, %t {size = 32 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
    tile.barrier
    tile.copy %t to %G[%i, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>> to !tile.buffer<?x?xf32, global>
    tile.barrier
  }
  return
}

// -----

// Not overlapped: L read after the final merge (its upper-left quadrant
// would hold T's lower-left one).

// CHECK-LABEL: func.func @source_read_after
// CHECK-SAME:  tile.shared_memory_bytes = 37536 : i64
func.func @source_read_after(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %l = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.copy %G[%c0, %c0] to %l : !tile.buffer<?x?xf32, global> to !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  %t = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.tril_inverse_diag %l, %t {lower_only, merge_pairs} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.tril_inverse_merge %l, %t {size = 32 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.copy %t to %G[%c0, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>> to !tile.buffer<?x?xf32, global>
  tile.copy %l to %G[%c0, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// Not overlapped: T written before the diagonal phase, while L is live.

// CHECK-LABEL: func.func @dest_written_before
// CHECK-SAME:  tile.shared_memory_bytes = 37536 : i64
func.func @dest_written_before(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %l = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  %t = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.copy %G[%c0, %c0] to %l : !tile.buffer<?x?xf32, global> to !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.copy %G[%c0, %c0] to %t : !tile.buffer<?x?xf32, global> to !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.tril_inverse_diag %l, %t {lower_only, merge_pairs} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.tril_inverse_merge %l, %t {size = 32 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.copy %t to %G[%c0, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// Not overlapped: T read between the phases (by another op than a merge).

// CHECK-LABEL: func.func @dest_read_between
// CHECK-SAME:  tile.shared_memory_bytes = 37536 : i64
func.func @dest_read_between(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %l = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.copy %G[%c0, %c0] to %l : !tile.buffer<?x?xf32, global> to !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  %t = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.tril_inverse_diag %l, %t {lower_only, merge_pairs} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.copy %t to %G[%c0, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>> to !tile.buffer<?x?xf32, global>
  tile.tril_inverse_merge %l, %t {size = 32 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.copy %t to %G[%c0, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// Not overlapped: the two layouts differ (tile-assign-layouts without
// overlap-tril-inverse: L's rows of 68 words, T's of 72 and the skew).

// CHECK-LABEL: func.func @layouts_differ
// CHECK-SAME:  tile.shared_memory_bytes = 36224 : i64
func.func @layouts_differ(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %l = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  tile.copy %G[%c0, %c0] to %l : !tile.buffer<?x?xf32, global> to !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  tile.barrier
  %t = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.tril_inverse_diag %l, %t {lower_only, merge_pairs} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.tril_inverse_merge %l, %t {size = 32 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.copy %t to %G[%c0, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// Not overlapped: the levels form (no merge of size n / 2), whose level-1
// phase writes blocks of T's lower-left quadrant while L's upper half is
// still read by the later levels.

// CHECK-LABEL: func.func @levels
// CHECK-SAME:  tile.shared_memory_bytes = 37536 : i64
func.func @levels(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %l = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.copy %G[%c0, %c0] to %l : !tile.buffer<?x?xf32, global> to !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  %t = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.tril_inverse_diag %l, %t : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.tril_inverse_level %l, %t {level = 1 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.tril_inverse_level %l, %t {level = 2 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.tril_inverse_level %l, %t {level = 3 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.copy %t to %G[%c0, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// Not overlapped: allocated outside a loop that runs the inverse, L stays
// live to the loop's end (the next iteration's phases read it again).

// CHECK-LABEL: func.func @loop_carried
// CHECK-SAME:  tile.shared_memory_bytes = 37536 : i64
func.func @loop_carried(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %l = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  %t = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.copy %G[%c0, %c0] to %l : !tile.buffer<?x?xf32, global> to !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  scf.for %i = %c0 to %m step %c1 {
    tile.tril_inverse_diag %l, %t {lower_only, merge_pairs} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
    tile.barrier
    tile.tril_inverse_merge %l, %t {size = 32 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
    tile.barrier
    tile.copy %t to %G[%i, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>> to !tile.buffer<?x?xf32, global>
    tile.barrier
  }
  return
}

// -----

// Not overlapped: L read between the phases by another op than a merge
// (its upper-right quadrant then holds T's lower-right one).

// CHECK-LABEL: func.func @source_read_between
// CHECK-SAME:  tile.shared_memory_bytes = 37536 : i64
func.func @source_read_between(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %l = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.copy %G[%c0, %c0] to %l : !tile.buffer<?x?xf32, global> to !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  %t = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.tril_inverse_diag %l, %t {lower_only, merge_pairs} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.copy %l to %G[%c0, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>> to !tile.buffer<?x?xf32, global>
  tile.tril_inverse_merge %l, %t {size = 32 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.copy %t to %G[%c0, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// Not overlapped: a group skew every 48 rows does not repeat within 32 rows,
// so T's row r + 32 would not lie on L's row r.

// CHECK-LABEL: func.func @skew_period
// CHECK-SAME:  tile.shared_memory_bytes = 37536 : i64
// CHECK:       tile.alloc {offset = 0 : i64}
// CHECK:       tile.alloc {offset = 18816 : i64}
func.func @skew_period(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %l = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 48, 4>>
  tile.copy %G[%c0, %c0] to %l : !tile.buffer<?x?xf32, global> to !tile.buffer<64x64xf32, shared, #tile.padded<8, 48, 4>>
  tile.barrier
  %t = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 48, 4>>
  tile.tril_inverse_diag %l, %t {lower_only, merge_pairs} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 48, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 48, 4>>
  tile.barrier
  tile.tril_inverse_merge %l, %t {size = 32 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 48, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 48, 4>>
  tile.barrier
  tile.copy %t to %G[%c0, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<8, 48, 4>> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// A chain (X inverted into L, then L into T): one pair per buffer, the first
// (L 32 rows before X); T takes bytes of its own after the pair.

// CHECK-LABEL: func.func @chain
// CHECK-SAME:  tile.shared_memory_bytes = 46880 : i64
// CHECK:       tile.alloc {offset = 9344 : i64}
// CHECK:       tile.alloc {offset = 0 : i64}
// CHECK:       tile.alloc {offset = 28160 : i64}
func.func @chain(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %x = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.copy %G[%c0, %c0] to %x : !tile.buffer<?x?xf32, global> to !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  %l = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.tril_inverse_diag %x, %l {lower_only, merge_pairs} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.tril_inverse_merge %x, %l {size = 32 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  %t = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.tril_inverse_diag %l, %t {lower_only, merge_pairs} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.tril_inverse_merge %l, %t {size = 32 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.barrier
  tile.copy %t to %G[%c0, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// Not overlapped: T allocated outside a loop whose body allocates L and runs
// the inverse only in some iterations (a later one would store L over T's
// lower half, which the read after the loop still needs).

// CHECK-LABEL: func.func @loopif
// CHECK-SAME:  tile.shared_memory_bytes = 37536 : i64
func.func @loopif(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %t = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  scf.for %i = %c0 to %m step %c1 {
    %l = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
    tile.copy %G[%i, %c0] to %l : !tile.buffer<?x?xf32, global> to !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
    tile.barrier
    %cond = arith.cmpi eq, %i, %c0 : index
    scf.if %cond {
      tile.tril_inverse_diag %l, %t {lower_only, merge_pairs} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
      tile.barrier
      tile.tril_inverse_merge %l, %t {size = 32 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
      tile.barrier
    }
  }
  tile.copy %t to %G[%c0, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// Rows of 68 words (#tile.padded<4>, tile-assign-layouts'
// overlap-tril-inverse=2): row 32 at 32 x 68 x 4 = 8,704 bytes, a buffer
// 17,408: the pair in 26,112.

// CHECK-LABEL: func.func @inverse_pad4
// CHECK-SAME:  tile.shared_memory_bytes = 26112 : i64
// CHECK:       tile.alloc {offset = 8704 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>
// CHECK:       tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>
func.func @inverse_pad4(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %l = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  tile.copy %G[%c0, %c0] to %l : !tile.buffer<?x?xf32, global> to !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  tile.barrier
  %t = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  tile.tril_inverse_diag %l, %t {lower_only, merge_pairs} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>, !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  tile.barrier
  tile.tril_inverse_merge %l, %t {size = 32 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>, !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  tile.barrier
  tile.copy %t to %G[%c0, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<4>> to !tile.buffer<?x?xf32, global>
  return
}
