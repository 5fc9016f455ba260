// RUN: gdn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tile-plan-shared-memory))' | FileCheck %s
// RUN: gdn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tile-plan-shared-memory{alignment=256}))' | FileCheck %s --check-prefix=ALIGN
// RUN: not gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-plan-shared-memory{max-bytes=1024}))' 2>&1 | FileCheck %s --check-prefix=ERR

// Two buffers used one after the other: the second is allocated after the
// first's last use, so both start at byte 0 and the kernel needs the larger
// of the two. (The barrier keeps the reuse race-free; the planner itself
// does not check for one.)

// CHECK-LABEL: func.func @sequential
// CHECK-SAME:  tile.shared_memory_bytes = 8192 : i64
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<32x32xf32, shared>
func.func @sequential(%pa: !tile.ptr<f16>, %pf: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %F = tile.view %pf[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %a = tile.alloc : !tile.buffer<64x64xf16, shared>
  tile.copy %A[%c0, %c0] to %a : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  tile.copy %a to %A[%c0, %c0] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
  tile.barrier
  %b = tile.alloc : !tile.buffer<32x32xf32, shared>
  tile.copy %F[%c0, %c0] to %b : !tile.buffer<?x?xf32, global> to !tile.buffer<32x32xf32, shared>
  tile.copy %b to %F[%c0, %c0] : !tile.buffer<32x32xf32, shared> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// Overlapping lifetimes: disjoint bytes, largest buffer first. Fragments get
// no offset.

// CHECK-LABEL: func.func @overlapping
// CHECK-SAME:  tile.shared_memory_bytes = 12288 : i64
// CHECK:      tile.alloc {offset = 8192 : i64} : !tile.buffer<32x32xf32, shared>
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
// CHECK:      tile.alloc : !tile.buffer<64x64xf32, fragment>
func.func @overlapping(%pa: !tile.ptr<f16>, %pf: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %F = tile.view %pf[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %b = tile.alloc : !tile.buffer<32x32xf32, shared>
  %a = tile.alloc : !tile.buffer<64x64xf16, shared>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.copy %A[%c0, %c0] to %a : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  tile.copy %F[%c0, %c0] to %b : !tile.buffer<?x?xf32, global> to !tile.buffer<32x32xf32, shared>
  tile.copy %a to %A[%c0, %c0] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
  tile.copy %b to %F[%c0, %c0] : !tile.buffer<32x32xf32, shared> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// A padded buffer's bytes include the padding (32 x (32 + 4) words = 4,608
// bytes), and it is aligned like a plain one (not to 1024 bytes), so the
// third buffer starts right after it.

// CHECK-LABEL: func.func @padded
// CHECK-SAME:  tile.shared_memory_bytes = 13312 : i64
// CHECK:      tile.alloc {offset = 8192 : i64} : !tile.buffer<32x32xf32, shared, #tile.padded<4>>
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
// CHECK:      tile.alloc {offset = 12800 : i64} : !tile.buffer<4x32xf32, shared>
func.func @padded(%pa: !tile.ptr<f16>, %pf: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %F = tile.view %pf[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %b = tile.alloc : !tile.buffer<32x32xf32, shared, #tile.padded<4>>
  %a = tile.alloc : !tile.buffer<64x64xf16, shared>
  %c = tile.alloc : !tile.buffer<4x32xf32, shared>
  tile.copy %A[%c0, %c0] to %a : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  tile.copy %F[%c0, %c0] to %b : !tile.buffer<?x?xf32, global> to !tile.buffer<32x32xf32, shared, #tile.padded<4>>
  tile.copy %F[%c0, %c0] to %c : !tile.buffer<?x?xf32, global> to !tile.buffer<4x32xf32, shared>
  tile.copy %a to %A[%c0, %c0] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
  tile.copy %b to %F[%c0, %c0] : !tile.buffer<32x32xf32, shared, #tile.padded<4>> to !tile.buffer<?x?xf32, global>
  tile.copy %c to %F[%c0, %c0] : !tile.buffer<4x32xf32, shared> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// A buffer allocated before a loop and read in it before the body writes
// it stays live to the end of the loop (the next iteration reads what this
// one wrote), so a buffer allocated later in the body cannot take its
// bytes, although the body uses it after the first buffer's last use.

// CHECK-LABEL: func.func @live_through_loop
// CHECK-SAME:  tile.shared_memory_bytes = 12288 : i64
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
// CHECK:      scf.for
// CHECK:        tile.alloc {offset = 8192 : i64} : !tile.buffer<32x32xf32, shared>
func.func @live_through_loop(%pa: !tile.ptr<f16>, %pf: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %F = tile.view %pf[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %a = tile.alloc : !tile.buffer<64x64xf16, shared>
  tile.copy %A[%c0, %c0] to %a : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  scf.for %i = %c0 to %m step %c1 {
    tile.copy %a to %A[%c0, %i] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
    tile.copy %A[%i, %c0] to %a : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    %b = tile.alloc : !tile.buffer<32x32xf32, shared>
    tile.copy %F[%i, %c0] to %b : !tile.buffer<?x?xf32, global> to !tile.buffer<32x32xf32, shared>
    tile.copy %b to %F[%c0, %i] : !tile.buffer<32x32xf32, shared> to !tile.buffer<?x?xf32, global>
  }
  return
}

// -----

// A body that overwrites the whole buffer before it reads it: each
// iteration's contents die at their last read (the next iteration writes
// before it reads), so the later buffer takes the same bytes.

// CHECK-LABEL: func.func @generation_per_iteration
// CHECK-SAME:  tile.shared_memory_bytes = 8192 : i64
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
// CHECK:      scf.for
// CHECK:        tile.alloc {offset = 0 : i64} : !tile.buffer<32x32xf32, shared>
func.func @generation_per_iteration(%pa: !tile.ptr<f16>, %pf: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %F = tile.view %pf[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %a = tile.alloc : !tile.buffer<64x64xf16, shared>
  scf.for %i = %c0 to %m step %c1 {
    tile.copy %A[%i, %c0] to %a : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.copy %a to %A[%c0, %i] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
    %b = tile.alloc : !tile.buffer<32x32xf32, shared>
    tile.copy %F[%i, %c0] to %b : !tile.buffer<?x?xf32, global> to !tile.buffer<32x32xf32, shared>
    tile.copy %b to %F[%c0, %i] : !tile.buffer<32x32xf32, shared> to !tile.buffer<?x?xf32, global>
  }
  return
}

// -----

// The same loop with the second buffer allocated `no_reuse`: it keeps bytes
// of its own for the whole kernel, after the first's (either order of
// allocation), although their live ranges never meet.

// CHECK-LABEL: func.func @no_reuse
// CHECK-SAME:  tile.shared_memory_bytes = 12288 : i64
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
// CHECK:      scf.for
// CHECK:        tile.alloc {no_reuse, offset = 8192 : i64} : !tile.buffer<32x32xf32, shared>
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
func.func @no_reuse(%pa: !tile.ptr<f16>, %pf: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %F = tile.view %pf[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %a = tile.alloc : !tile.buffer<64x64xf16, shared>
  scf.for %i = %c0 to %m step %c1 {
    tile.copy %A[%i, %c0] to %a : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.copy %a to %A[%c0, %i] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
    %b = tile.alloc {no_reuse} : !tile.buffer<32x32xf32, shared>
    tile.copy %F[%i, %c0] to %b : !tile.buffer<?x?xf32, global> to !tile.buffer<32x32xf32, shared>
    tile.copy %b to %F[%c0, %i] : !tile.buffer<32x32xf32, shared> to !tile.buffer<?x?xf32, global>
  }
  tile.barrier
  %c = tile.alloc : !tile.buffer<64x64xf16, shared>
  tile.copy %A[%c0, %c0] to %c : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  tile.copy %c to %A[%c0, %c0] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
  return
}

// -----

// A prefetch: the body reads the tile the previous iteration (or the
// prologue) loaded, works on other buffers, then loads the next tile with
// cp.async. %a is live from its allocation to its read and from the
// prefetch to the end of the loop; %b lives between the two and takes %a's
// bytes; %c lives across the prefetch and does not.

// CHECK-LABEL: func.func @prefetch
// CHECK-SAME:  tile.shared_memory_bytes = 12288 : i64
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
// CHECK:      scf.for
// CHECK:        tile.alloc {offset = 0 : i64} : !tile.buffer<32x32xf32, shared>
// CHECK:        tile.alloc {offset = 8192 : i64} : !tile.buffer<32x32xf32, shared>
func.func @prefetch(%pa: !tile.ptr<f16>, %pf: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %F = tile.view %pf[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %a = tile.alloc : !tile.buffer<64x64xf16, shared>
  tile.async_copy %A[%c0, %c0] to %a {masked} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  tile.async_commit
  scf.for %i = %c0 to %m step %c1 {
    tile.async_wait {pending = 0}
    tile.copy %a to %A[%c0, %i] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
    %b = tile.alloc : !tile.buffer<32x32xf32, shared>
    tile.copy %F[%i, %c0] to %b : !tile.buffer<?x?xf32, global> to !tile.buffer<32x32xf32, shared>
    tile.copy %b to %F[%c0, %i] : !tile.buffer<32x32xf32, shared> to !tile.buffer<?x?xf32, global>
    %c = tile.alloc : !tile.buffer<32x32xf32, shared>
    tile.copy %F[%c0, %i] to %c : !tile.buffer<?x?xf32, global> to !tile.buffer<32x32xf32, shared>
    %i1 = arith.addi %i, %c1 : index
    tile.async_copy %A[%i1, %c0] to %a {masked} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.async_commit
    tile.copy %c to %F[%i, %i] : !tile.buffer<32x32xf32, shared> to !tile.buffer<?x?xf32, global>
  }
  return
}

// -----

// Writes that do not end a generation: one under a condition (it may not
// run), and one into a sub-tile (the rest keeps its contents). %a stays
// live through both loops.

// CHECK-LABEL: func.func @no_whole_write
// CHECK-SAME:  tile.shared_memory_bytes = 12288 : i64
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
// CHECK:      scf.for
// CHECK:        tile.alloc {offset = 8192 : i64} : !tile.buffer<32x32xf32, shared>
// CHECK-LABEL: func.func @partial_write
// CHECK-SAME:  tile.shared_memory_bytes = 12288 : i64
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
// CHECK:      scf.for
// CHECK:        tile.alloc {offset = 8192 : i64} : !tile.buffer<32x32xf32, shared>
func.func @no_whole_write(%pa: !tile.ptr<f16>, %pf: !tile.ptr<f32>, %n: i32, %p: i1) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %F = tile.view %pf[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %a = tile.alloc : !tile.buffer<64x64xf16, shared>
  scf.for %i = %c0 to %m step %c1 {
    scf.if %p {
      tile.copy %A[%i, %c0] to %a : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    }
    tile.copy %a to %A[%c0, %i] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
    %b = tile.alloc : !tile.buffer<32x32xf32, shared>
    tile.copy %F[%i, %c0] to %b : !tile.buffer<?x?xf32, global> to !tile.buffer<32x32xf32, shared>
    tile.copy %b to %F[%c0, %i] : !tile.buffer<32x32xf32, shared> to !tile.buffer<?x?xf32, global>
  }
  return
}
func.func @partial_write(%pa: !tile.ptr<f16>, %pf: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %F = tile.view %pf[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %a = tile.alloc : !tile.buffer<64x64xf16, shared>
  %r = tile.alloc : !tile.buffer<16x64xf32, fragment>
  scf.for %i = %c0 to %m step %c1 {
    tile.copy %r to %a[%c0, %c0] : !tile.buffer<16x64xf32, fragment> to !tile.buffer<64x64xf16, shared>
    tile.copy %a to %A[%c0, %i] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
    %b = tile.alloc : !tile.buffer<32x32xf32, shared>
    tile.copy %F[%i, %c0] to %b : !tile.buffer<?x?xf32, global> to !tile.buffer<32x32xf32, shared>
    tile.copy %b to %F[%c0, %i] : !tile.buffer<32x32xf32, shared> to !tile.buffer<?x?xf32, global>
  }
  return
}

// -----

// A cp.async whose tile the body never reads again writes until some later
// wait: its generation cannot end at the copy, so %a stays live through
// the loop.

// CHECK-LABEL: func.func @unread_async_copy
// CHECK-SAME:  tile.shared_memory_bytes = 12288 : i64
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
// CHECK:      scf.for
// CHECK:        tile.alloc {offset = 8192 : i64} : !tile.buffer<32x32xf32, shared>
func.func @unread_async_copy(%pa: !tile.ptr<f16>, %pf: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %F = tile.view %pf[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %a = tile.alloc : !tile.buffer<64x64xf16, shared>
  scf.for %i = %c0 to %m step %c1 {
    tile.async_copy %A[%i, %c0] to %a {masked} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.async_commit
    %b = tile.alloc : !tile.buffer<32x32xf32, shared>
    tile.copy %F[%i, %c0] to %b : !tile.buffer<?x?xf32, global> to !tile.buffer<32x32xf32, shared>
    tile.copy %b to %F[%c0, %i] : !tile.buffer<32x32xf32, shared> to !tile.buffer<?x?xf32, global>
  }
  tile.async_wait {pending = 0}
  return
}

// -----

// The same body as straight-line code: no loop, so the bytes are reused.

// CHECK-LABEL: func.func @no_loop
// CHECK-SAME:  tile.shared_memory_bytes = 8192 : i64
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<32x32xf32, shared>
func.func @no_loop(%pa: !tile.ptr<f16>, %pf: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %F = tile.view %pf[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %a = tile.alloc : !tile.buffer<64x64xf16, shared>
  tile.copy %A[%c0, %c0] to %a : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  tile.copy %a to %A[%c0, %c0] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
  tile.barrier
  %b = tile.alloc : !tile.buffer<32x32xf32, shared>
  tile.copy %F[%c0, %c0] to %b : !tile.buffer<?x?xf32, global> to !tile.buffer<32x32xf32, shared>
  tile.copy %b to %F[%c0, %c0] : !tile.buffer<32x32xf32, shared> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// tile.for (before tile-pipeline) counts as a loop too (%a read before the
// body writes it: live through the loop).

// CHECK-LABEL: func.func @live_through_tile_for
// CHECK-SAME:  tile.shared_memory_bytes = 12288 : i64
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
// CHECK:      tile.for
// CHECK:        tile.alloc {offset = 8192 : i64} : !tile.buffer<32x32xf32, shared>
func.func @live_through_tile_for(%pa: !tile.ptr<f16>, %pf: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %F = tile.view %pf[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %a = tile.alloc : !tile.buffer<64x64xf16, shared>
  tile.for %i = %c0 to %m step %c1 stages 1 {
    tile.copy %a to %A[%c0, %i] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
    tile.copy %A[%i, %c0] to %a : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    %b = tile.alloc : !tile.buffer<32x32xf32, shared>
    tile.copy %F[%i, %c0] to %b : !tile.buffer<?x?xf32, global> to !tile.buffer<32x32xf32, shared>
    tile.copy %b to %F[%c0, %i] : !tile.buffer<32x32xf32, shared> to !tile.buffer<?x?xf32, global>
  }
  return
}

// -----

// Uses through tile.slice keep the multi-stage buffer live: %late is
// allocated after the slice but before the slice's use.

// CHECK-LABEL: func.func @through_slice
// CHECK-SAME:  tile.shared_memory_bytes = 32768 : i64
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<3x64x64xf16, shared>
// CHECK:      tile.alloc {offset = 24576 : i64} : !tile.buffer<64x64xf16, shared>
func.func @through_slice(%pa: !tile.ptr<f16>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s3 = tile.alloc : !tile.buffer<3x64x64xf16, shared>
  %s = tile.slice %s3[%c2] : !tile.buffer<3x64x64xf16, shared> -> !tile.buffer<64x64xf16, shared>
  %late = tile.alloc : !tile.buffer<64x64xf16, shared>
  tile.copy %A[%c0, %c0] to %late : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  tile.copy %A[%c0, %c0] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

// Swizzled buffers are aligned to 1024 bytes, the others to `alignment`
// (128 by default): the 8200-byte %p goes first at 0, the swizzled %s at
// 9216 (not 8320), and the small %q fits in the gap at 8320 (with
// alignment=256: 8448).

// CHECK-LABEL: func.func @alignment
// CHECK-SAME:  tile.shared_memory_bytes = 17408 : i64
// CHECK:      tile.alloc {offset = 0 : i64} : !tile.buffer<100x41xf16, shared>
// CHECK:      tile.alloc {offset = 9216 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
// CHECK:      tile.alloc {offset = 8320 : i64} : !tile.buffer<16x4xf32, shared>

// ALIGN-LABEL: func.func @alignment
// ALIGN-SAME:  tile.shared_memory_bytes = 17408 : i64
// ALIGN:      tile.alloc {offset = 0 : i64} : !tile.buffer<100x41xf16, shared>
// ALIGN:      tile.alloc {offset = 9216 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
// ALIGN:      tile.alloc {offset = 8448 : i64} : !tile.buffer<16x4xf32, shared>
func.func @alignment(%pa: !tile.ptr<f16>, %pf: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %F = tile.view %pf[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %p = tile.alloc : !tile.buffer<100x41xf16, shared>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %q = tile.alloc : !tile.buffer<16x4xf32, shared>
  tile.copy %A[%c0, %c0] to %p : !tile.buffer<?x?xf16, global> to !tile.buffer<100x41xf16, shared>
  tile.copy %A[%c0, %c0] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  tile.copy %F[%c0, %c0] to %q : !tile.buffer<?x?xf32, global> to !tile.buffer<16x4xf32, shared>
  return
}

// -----

// A kernel without shared buffers needs 0 bytes.

// CHECK-LABEL: func.func @no_shared
// CHECK-SAME:  tile.shared_memory_bytes = 0 : i64
func.func @no_shared() attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %f = tile.alloc : !tile.buffer<32x32xf32, fragment>
  return
}

// -----

// Functions without tile.kernel are not planned.

// CHECK-LABEL: func.func @not_a_kernel
// CHECK-NOT:  tile.shared_memory_bytes
// CHECK:      tile.alloc : !tile.buffer<64x64xf16, shared>
// CHECK-NOT:  offset
// CHECK:      return
func.func @not_a_kernel() {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared>
  return
}

// -----

// A plan over the limit is rejected: 2048 bytes against max-bytes=1024 (the
// ERR run). Under the default limit it fits. (The limit in the message is
// checked in tile-plan-shared-memory-limit.mlir, an expected failure: the number prints as a byte.)

// CHECK-LABEL: func.func @over_small_limit
// CHECK-SAME:  tile.shared_memory_bytes = 2048 : i64
// ERR: error: shared memory plan needs 2048 bytes, more than the
func.func @over_small_limit() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %a = tile.alloc : !tile.buffer<32x32xf16, shared>
  return
}

// -----

// Two live 128 KiB buffers, 256 KiB, exceed the default limit of 232448
// bytes (227 KiB); one buffer that large is rejected by the type verifier.

// expected-error @below {{shared memory plan needs 262144 bytes, more than the}}
func.func @over_default_limit() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %a = tile.alloc : !tile.buffer<256x256xf16, shared>
  %b = tile.alloc : !tile.buffer<256x256xf16, shared>
  %x = tile.load %a[%c0, %c0] : !tile.buffer<256x256xf16, shared>
  %y = tile.load %b[%c0, %c0] : !tile.buffer<256x256xf16, shared>
  return
}

// -----

// A tile.producer_task runs beside the whole rest of the kernel: the slot
// it hands over (%h, allocated outside it) keeps its bytes for the whole
// kernel, and its own buffers (%t1, %t2) never share bytes with the
// consumers' buffers before and after it (%a, %b: dead at the task in
// program order), though %a and %b share bytes with each other and so do
// %t1 and %t2 (the task's own program order).
// CHECK-LABEL: func.func @task
// CHECK-SAME:    tile.shared_memory_bytes = 24576 : i64
// CHECK:         tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
// CHECK:         tile.alloc {offset = 8192 : i64} : !tile.buffer<2048xf32, shared>
// CHECK:         tile.producer_task
// CHECK-NEXT:      tile.alloc {offset = 16384 : i64} : !tile.buffer<64x64xf16, shared>
// CHECK:           tile.alloc {offset = 16384 : i64} : !tile.buffer<64x64xf16, shared>
// CHECK:         tile.alloc {offset = 8192 : i64} : !tile.buffer<2048xf32, shared>
func.func @task(%p: !tile.ptr<f16>, %q: !tile.ptr<f32>, %n: index)
    attributes {tile.kernel, tile.num_warps = 8 : i64,
                tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  %c0 = arith.constant 0 : index
  %X = tile.view %p[%n, %n] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %Y = tile.view %q[%n] : !tile.ptr<f32> -> !tile.buffer<?xf32, global>
  %h = tile.alloc : !tile.buffer<64x64xf16, shared>
  %a = tile.alloc : !tile.buffer<2048xf32, shared>
  tile.copy %Y[%c0] to %a : !tile.buffer<?xf32, global> to !tile.buffer<2048xf32, shared>
  tile.copy %a to %Y[%c0] : !tile.buffer<2048xf32, shared> to !tile.buffer<?xf32, global>
  tile.producer_task warps 4 {
    %t1 = tile.alloc : !tile.buffer<64x64xf16, shared>
    tile.copy %X[%c0, %c0] to %t1 : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.copy %t1 to %X[%c0, %c0] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
    %t2 = tile.alloc : !tile.buffer<64x64xf16, shared>
    tile.copy %X[%c0, %c0] to %t2 : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.copy %t2 to %X[%c0, %c0] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
    tile.copy %X[%c0, %c0] to %h : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  }
  %b = tile.alloc : !tile.buffer<2048xf32, shared>
  tile.copy %Y[%c0] to %b : !tile.buffer<?xf32, global> to !tile.buffer<2048xf32, shared>
  tile.copy %b to %Y[%c0] : !tile.buffer<2048xf32, shared> to !tile.buffer<?xf32, global>
  return
}

// -----

// Two producer tasks' own buffers never share bytes (each task's barriers
// order only its own accesses), though both are dead outside their task.
// CHECK-LABEL: func.func @two_tasks
// CHECK-SAME:    tile.shared_memory_bytes = 16384 : i64
// CHECK:         tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
// CHECK:         tile.alloc {offset = 8192 : i64} : !tile.buffer<64x64xf16, shared>
func.func @two_tasks(%p: !tile.ptr<f16>, %n: index)
    attributes {tile.kernel, tile.num_warps = 8 : i64,
                tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  %c0 = arith.constant 0 : index
  %X = tile.view %p[%n, %n] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  tile.producer_task warps 4 {
    %t1 = tile.alloc : !tile.buffer<64x64xf16, shared>
    tile.copy %X[%c0, %c0] to %t1 : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.copy %t1 to %X[%c0, %c0] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
  }
  tile.producer_task warps 4 {
    %t2 = tile.alloc : !tile.buffer<64x64xf16, shared>
    tile.copy %X[%c0, %c0] to %t2 : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.copy %t2 to %X[%c0, %c0] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
  }
  return
}
