// RUN: gdn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tile-assign-layouts))' | FileCheck %s
// RUN: gdn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tile-assign-layouts{overlap-tril-inverse=1}))' | FileCheck %s --check-prefix=OVER
// RUN: gdn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tile-assign-layouts{overlap-tril-inverse=2}))' | FileCheck %s --check-prefix=OVER2
// RUN: not gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-assign-layouts{overlap-tril-inverse=3}))' 2>&1 | FileCheck %s --check-prefix=BADOPT

// The warp grid of a gemm accumulator is the one chooseWarpGrid picks: the
// most square per-warp block that is a whole number of 16x8 atoms.
// 128x128 over 4 warps: 2x2 (64x64 per warp). The shared operands have
// 128- and 256-byte rows, so both get the 128-byte swizzle, and the
// global->shared copies move 16-byte vectors (8 x f16).

// CHECK-LABEL: func.func @gemm_128x128_4warps
// CHECK-DAG:  %[[SA:.*]] = tile.alloc : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
// CHECK-DAG:  %[[SB:.*]] = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
// CHECK-DAG:  %[[ACC:.*]] = tile.alloc : !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [2, 2]>>
// CHECK:      tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %[[SA]] {layout = #tile.blocked<vector = 8>}
// CHECK:      tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %[[SB]] {layout = #tile.blocked<vector = 8>}
// CHECK:      tile.gemm %[[SA]], %[[SB]], %[[ACC]] : {{.*}}, !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [2, 2]>>
// The fragment -> global store needs no thread mapping: the fragment's
// layout is the mapping.
// CHECK-NOT:  layout =
// CHECK:      return
func.func @gemm_128x128_4warps(%pa: !tile.ptr<f16>, %pc: !tile.ptr<f32>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %C = tile.view %pc[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %sA = tile.alloc : !tile.buffer<128x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x128xf16, shared>
  %acc = tile.alloc : !tile.buffer<128x128xf32, fragment>
  tile.copy %A[%c0, %c0] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<128x64xf16, shared>
  tile.copy %A[%c0, %c0] to %sB : !tile.buffer<?x?xf16, global> to !tile.buffer<64x128xf16, shared>
  tile.gemm %sA, %sB, %acc : !tile.buffer<128x64xf16, shared>, !tile.buffer<64x128xf16, shared>, !tile.buffer<128x128xf32, fragment>
  tile.copy %acc to %C[%c0, %c0] : !tile.buffer<128x128xf32, fragment> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// 64x128 over 4 warps: 1x4 (64x32 per warp) and 2x2 (32x64) cost the same;
// the first grid found (fewest warp rows) wins.

// CHECK-LABEL: func.func @gemm_64x128_4warps
// CHECK:      %[[ACC:.*]] = tile.alloc : !tile.buffer<64x128xf32, fragment, #tile.mma<warps = [1, 4]>>
// CHECK:      tile.gemm %{{.*}}, %{{.*}}, %[[ACC]]
func.func @gemm_64x128_4warps() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x128xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x128xf32, fragment>
  tile.gemm %sA, %sB, %acc : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x128xf16, shared>, !tile.buffer<64x128xf32, fragment>
  return
}

// -----

// 128x32 over 4 warps: 4x1 (32x32 per warp); 2x2 would give 64x16 blocks
// and 1x4 an odd 128x8. B has 32 f16 = 64-byte rows: not swizzled.

// CHECK-LABEL: func.func @gemm_128x32_4warps
// CHECK-DAG:  %[[SA:.*]] = tile.alloc : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
// CHECK-DAG:  %[[SB:.*]] = tile.alloc : !tile.buffer<64x32xf16, shared>{{$}}
// CHECK-DAG:  %[[ACC:.*]] = tile.alloc : !tile.buffer<128x32xf32, fragment, #tile.mma<warps = [4, 1]>>
// CHECK:      tile.gemm %[[SA]], %[[SB]], %[[ACC]]
func.func @gemm_128x32_4warps() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %sA = tile.alloc : !tile.buffer<128x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x32xf16, shared>
  %acc = tile.alloc : !tile.buffer<128x32xf32, fragment>
  tile.gemm %sA, %sB, %acc : !tile.buffer<128x64xf16, shared>, !tile.buffer<64x32xf16, shared>, !tile.buffer<128x32xf32, fragment>
  return
}

// -----

// 128x256 over 8 warps: 2x4 (64x64 per warp). bf16 operands swizzle the same
// way; with transpose_b, B is [N, K] = 256x64.

// CHECK-LABEL: func.func @gemm_128x256_8warps
// CHECK-DAG:  %[[SA:.*]] = tile.alloc : !tile.buffer<128x64xbf16, shared, #tile.swizzle<128>>
// CHECK-DAG:  %[[SB:.*]] = tile.alloc : !tile.buffer<256x64xbf16, shared, #tile.swizzle<128>>
// CHECK-DAG:  %[[ACC:.*]] = tile.alloc : !tile.buffer<128x256xf32, fragment, #tile.mma<warps = [2, 4]>>
// CHECK:      tile.gemm %[[SA]], %[[SB]], %[[ACC]] {transpose_b}
func.func @gemm_128x256_8warps() attributes {tile.kernel, tile.num_warps = 8 : i64} {
  %sA = tile.alloc : !tile.buffer<128x64xbf16, shared>
  %sB = tile.alloc : !tile.buffer<256x64xbf16, shared>
  %acc = tile.alloc : !tile.buffer<128x256xf32, fragment>
  tile.gemm %sA, %sB, %acc {transpose_b} : !tile.buffer<128x64xbf16, shared>, !tile.buffer<256x64xbf16, shared>, !tile.buffer<128x256xf32, fragment>
  return
}

// -----

// Fragments connected to an accumulator through tile.map (directly or
// through another map) inherit its mma layout; the others get the widest
// blocked vector of at most 16 bytes that divides the innermost dimension.

// CHECK-LABEL: func.func @map_propagation
// CHECK-DAG:  %[[ACC:.*]] = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
// CHECK-DAG:  %[[P:.*]] = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
// CHECK-DAG:  %[[Q:.*]] = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
// CHECK-DAG:  %[[F32:.*]] = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
// CHECK-DAG:  %[[F16:.*]] = tile.alloc : !tile.buffer<64x64xf16, fragment, #tile.blocked<vector = 8>>
// CHECK-DAG:  %[[ODD:.*]] = tile.alloc : !tile.buffer<16x6xf32, fragment, #tile.blocked<vector = 2>>
// CHECK-DAG:  %[[ODD16:.*]] = tile.alloc : !tile.buffer<16x6xf16, fragment, #tile.blocked<vector = 2>>
// CHECK-DAG:  %[[ONE:.*]] = tile.alloc : !tile.buffer<8x5xf32, fragment, #tile.blocked<vector = 1>>
// CHECK:      tile.gemm %{{.*}}, %{{.*}}, %[[ACC]]
// CHECK:      tile.map ins(%[[ACC]] : {{.*}}) outs(%[[P]] : {{.*}})
// CHECK:      tile.map ins(%[[P]] : {{.*}}) outs(%[[Q]] : {{.*}})
// CHECK:      tile.map ins(%[[F32]] : {{.*}}) outs(%[[F16]] : {{.*}})
func.func @map_propagation() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %p = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %q = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %f32 = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %f16 = tile.alloc : !tile.buffer<64x64xf16, fragment>
  %odd = tile.alloc : !tile.buffer<16x6xf32, fragment>
  %odd16 = tile.alloc : !tile.buffer<16x6xf16, fragment>
  %one = tile.alloc : !tile.buffer<8x5xf32, fragment>
  tile.gemm %sA, %sA, %acc : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  tile.map ins(%acc : !tile.buffer<64x64xf32, fragment>) outs(%p : !tile.buffer<64x64xf32, fragment>) {
  ^bb0(%x: f32):
    tile.yield %x : f32
  }
  tile.map ins(%p : !tile.buffer<64x64xf32, fragment>) outs(%q : !tile.buffer<64x64xf32, fragment>) {
  ^bb0(%x: f32):
    tile.yield %x : f32
  }
  // Connected to each other but not to an accumulator: each keeps its own
  // blocked vector (f32: 4, f16: 8).
  tile.map ins(%f32 : !tile.buffer<64x64xf32, fragment>) outs(%f16 : !tile.buffer<64x64xf16, fragment>) {
  ^bb0(%x: f32):
    %h = arith.truncf %x : f32 to f16
    tile.yield %h : f16
  }
  return
}

// -----

// Copies that involve no fragment get a thread mapping sized by the copied
// tile's innermost dimension and element width; copies to or from a
// fragment do not. Asynchronous copies written in the kernel map like
// copies.

// CHECK-LABEL: func.func @copy_mappings
// CHECK:      tile.copy %{{.*}} to %{{.*}} {layout = #tile.blocked<vector = 4>} : !tile.buffer<?x?xf32, global> to !tile.buffer<32x64xf32, shared>
// CHECK:      tile.copy %{{.*}} to %{{.*}} {layout = #tile.blocked<vector = 2>} : !tile.buffer<?x?xf16, global> to !tile.buffer<32x6xf16, shared>
// CHECK:      tile.copy %{{.*}} to %{{.*}} {layout = #tile.blocked<vector = 4>} : !tile.buffer<32x64xf32, shared> to !tile.buffer<?x?xf32, global>
// CHECK:      tile.copy %{{.*}} to %{{.*}} {layout = #tile.blocked<vector = 8>, masked} : !tile.buffer<?x?xf16, global> to !tile.buffer<16x128xf16, shared>
// CHECK:      tile.copy %{{.*}} to %{{.*}} : !tile.buffer<32x64xf32, shared> to !tile.buffer<32x64xf32, fragment, #tile.blocked<vector = 4>>
// CHECK:      tile.async_copy %{{.*}} to %{{.*}} {layout = #tile.blocked<vector = 8>, masked} : !tile.buffer<?x?xf16, global> to !tile.buffer<16x128xf16, shared>
// CHECK-NEXT: tile.async_commit
// CHECK-NEXT: tile.async_wait {pending = 0 : i64}
// CHECK-NEXT: return
func.func @copy_mappings(%pa: !tile.ptr<f32>, %ph: !tile.ptr<f16>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %H = tile.view %ph[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<32x64xf32, shared>
  %s6 = tile.alloc : !tile.buffer<32x6xf16, shared>
  %sh = tile.alloc : !tile.buffer<16x128xf16, shared>
  %f = tile.alloc : !tile.buffer<32x64xf32, fragment>
  tile.copy %A[%c0, %c0] to %s : !tile.buffer<?x?xf32, global> to !tile.buffer<32x64xf32, shared>
  tile.copy %H[%c0, %c0] to %s6 : !tile.buffer<?x?xf16, global> to !tile.buffer<32x6xf16, shared>
  tile.copy %s to %A[%c0, %c0] : !tile.buffer<32x64xf32, shared> to !tile.buffer<?x?xf32, global>
  tile.copy %H[%c0, %c0] to %sh {masked} : !tile.buffer<?x?xf16, global> to !tile.buffer<16x128xf16, shared>
  tile.copy %s to %f : !tile.buffer<32x64xf32, shared> to !tile.buffer<32x64xf32, fragment>
  tile.async_copy %H[%c0, %c0] to %sh {masked} : !tile.buffer<?x?xf16, global> to !tile.buffer<16x128xf16, shared>
  tile.async_commit
  tile.async_wait {pending = 0}
  return
}

// -----

// A shared buffer that is not a gemm operand stays unswizzled even with
// 128-byte rows.

// CHECK-LABEL: func.func @no_swizzle_without_gemm
// CHECK:      tile.alloc : !tile.buffer<64x64xf16, shared>{{$}}
func.func @no_swizzle_without_gemm(%ph: !tile.ptr<f16>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %H = tile.view %ph[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  tile.copy %H[%c0, %c0] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

// A tile.reduce whose rows no lane group of one warp holds gets an
// unswizzled f32 shared scratch of its source's shape, allocated right
// before it: [64, 256] with vectors of 4 has 64 lanes per row. A row
// reduction's rows of a multiple of 32 words get 4 words of padding (the
// threads that read consecutive rows 16 bytes at a time then hit distinct
// banks); a column reduction's scratch is plain.

// CHECK-LABEL: func.func @reduce_scratch
// CHECK:      %[[SRC:.*]] = tile.alloc : !tile.buffer<64x256xf32, fragment, #tile.blocked<vector = 4>>
// CHECK:      %[[DST:.*]] = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
// CHECK:      %[[COL:.*]] = tile.alloc : !tile.buffer<256xf32, fragment, #tile.blocked<vector = 1>>
// CHECK:      %[[S1:.*]] = tile.alloc : !tile.buffer<64x256xf32, shared, #tile.padded<4>>{{$}}
// CHECK-NEXT: tile.reduce max %[[SRC]], %[[DST]] scratch(%[[S1]] : !tile.buffer<64x256xf32, shared, #tile.padded<4>>) {dim = 1 : i64}
// CHECK-NEXT: %[[S2:.*]] = tile.alloc : !tile.buffer<64x256xf32, shared>{{$}}
// CHECK-NEXT: tile.reduce add %[[SRC]], %[[COL]] scratch(%[[S2]] : !tile.buffer<64x256xf32, shared>) {dim = 0 : i64}
func.func @reduce_scratch() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %src = tile.alloc : !tile.buffer<64x256xf32, fragment>
  %dst = tile.alloc : !tile.buffer<64xf32, fragment>
  %col = tile.alloc : !tile.buffer<256xf32, fragment>
  tile.reduce max %src, %dst {dim = 1 : i64} : !tile.buffer<64x256xf32, fragment> -> !tile.buffer<64xf32, fragment>
  tile.reduce add %src, %col {dim = 0 : i64} : !tile.buffer<64x256xf32, fragment> -> !tile.buffer<256xf32, fragment>
  return
}

// -----

// Rows of 12 are 3 vectors of 4: no aligned lane group; short rows are not
// padded.

// CHECK-LABEL: func.func @reduce_scratch_short
// CHECK:      tile.alloc : !tile.buffer<16x12xf32, shared>{{$}}
// CHECK-NEXT: tile.reduce add
func.func @reduce_scratch_short() attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %src = tile.alloc : !tile.buffer<16x12xf32, fragment>
  %dst = tile.alloc : !tile.buffer<16xf32, fragment>
  tile.reduce add %src, %dst {dim = 1 : i64} : !tile.buffer<16x12xf32, fragment> -> !tile.buffer<16xf32, fragment>
  return
}

// -----

// Row reductions whose rows are 1 to 32 vectors (a divisor of 32) are held
// by aligned lane groups of one warp: their scratch is one f32 per row, the
// in-warp lowering's (rows of 128 f32: 32 lanes of 4; of 32: 8 lanes; of 4:
// one lane).

// CHECK-LABEL: func.func @reduce_in_warp
// CHECK:      tile.alloc : !tile.buffer<16xf32, shared>{{$}}
// CHECK-NEXT: tile.reduce add %{{.*}}, %{{.*}} scratch(%{{.*}} : !tile.buffer<16xf32, shared>) {dim = 1 : i64} : !tile.buffer<16x128xf32, fragment, #tile.blocked<vector = 4>>
// CHECK:      tile.alloc : !tile.buffer<64xf32, shared>{{$}}
// CHECK-NEXT: tile.reduce max %{{.*}} : !tile.buffer<64x32xf32, fragment, #tile.blocked<vector = 4>>
// CHECK:      tile.alloc : !tile.buffer<8xf32, shared>{{$}}
// CHECK-NEXT: tile.reduce add %{{.*}} : !tile.buffer<8x4xf32, fragment, #tile.blocked<vector = 4>>
func.func @reduce_in_warp() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %a = tile.alloc : !tile.buffer<16x128xf32, fragment>
  %ra = tile.alloc : !tile.buffer<16xf32, fragment>
  %b = tile.alloc : !tile.buffer<64x32xf32, fragment>
  %rb = tile.alloc : !tile.buffer<64xf32, fragment>
  %c = tile.alloc : !tile.buffer<8x4xf32, fragment>
  %rc = tile.alloc : !tile.buffer<8xf32, fragment>
  tile.reduce add %a, %ra {dim = 1 : i64} : !tile.buffer<16x128xf32, fragment> -> !tile.buffer<16xf32, fragment>
  tile.reduce max %b, %rb {dim = 1 : i64} : !tile.buffer<64x32xf32, fragment> -> !tile.buffer<64xf32, fragment>
  tile.reduce add %c, %rc {dim = 1 : i64} : !tile.buffer<8x4xf32, fragment> -> !tile.buffer<8xf32, fragment>
  return
}

// -----

// A row reduction into shared memory takes no scratch: its source gets the
// blocked layout (rows of 128 f32: 32 lanes of 4), and nothing is
// allocated for it.

// CHECK-LABEL: func.func @reduce_into_shared
// CHECK:      %[[X:.*]] = tile.alloc : !tile.buffer<16x128xf32, fragment, #tile.blocked<vector = 4>>
// CHECK-NEXT: %[[D:.*]] = tile.alloc : !tile.buffer<16xf32, shared>{{$}}
// CHECK-NEXT: tile.reduce add %[[X]], %[[D]] {dim = 1 : i64} : !tile.buffer<16x128xf32, fragment, #tile.blocked<vector = 4>> -> !tile.buffer<16xf32, shared>
// CHECK-NEXT: return
func.func @reduce_into_shared() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %x = tile.alloc : !tile.buffer<16x128xf32, fragment>
  %d = tile.alloc : !tile.buffer<16xf32, shared>
  tile.reduce add %x, %d {dim = 1 : i64} : !tile.buffer<16x128xf32, fragment> -> !tile.buffer<16xf32, shared>
  return
}

// -----

// Rows of 256 f32 in vectors of 4 span two warps: no lane group can store
// a row into shared memory.
func.func @reduce_into_shared_wide() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %x = tile.alloc : !tile.buffer<16x256xf32, fragment>
  %d = tile.alloc : !tile.buffer<16xf32, shared>
  // expected-error @below {{reduces into shared memory, but its source's layout #tile.blocked<vector = 4> spreads a row over more than one warp}}
  tile.reduce add %x, %d {dim = 1 : i64} : !tile.buffer<16x256xf32, fragment> -> !tile.buffer<16xf32, shared>
  return
}

// -----

// Layouts that are already set are kept.

// CHECK-LABEL: func.func @keeps_existing
// CHECK-DAG:  tile.alloc : !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [4, 1]>>
// CHECK-DAG:  tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 2>>
// CHECK-DAG:  tile.alloc : !tile.buffer<128x64xf16, shared, #tile.swizzle<64>>
// CHECK:      tile.copy {{.*}} {layout = #tile.blocked<vector = 2>}
func.func @keeps_existing(%ph: !tile.ptr<f16>, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %H = tile.view %ph[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %sA = tile.alloc : !tile.buffer<128x64xf16, shared, #tile.swizzle<64>>
  %sB = tile.alloc : !tile.buffer<64x128xf16, shared>
  %acc = tile.alloc : !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [4, 1]>>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 2>>
  tile.copy %H[%c0, %c0] to %sB {layout = #tile.blocked<vector = 2>} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x128xf16, shared>
  tile.gemm %sA, %sB, %acc : !tile.buffer<128x64xf16, shared, #tile.swizzle<64>>, !tile.buffer<64x128xf16, shared>, !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [4, 1]>>
  return
}

// -----

// Functions without tile.kernel are not touched.

// CHECK-LABEL: func.func @not_a_kernel
// CHECK:      tile.alloc : !tile.buffer<64x64xf16, shared>{{$}}
// CHECK:      tile.alloc : !tile.buffer<64x64xf32, fragment>{{$}}
// CHECK:      tile.alloc : !tile.buffer<64xf32, fragment>{{$}}
// CHECK:      tile.gemm
// CHECK-NOT:  scratch
// CHECK:      return
func.func @not_a_kernel() {
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %row = tile.alloc : !tile.buffer<64xf32, fragment>
  tile.gemm %sA, %sA, %acc : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  tile.reduce add %acc, %row {dim = 1 : i64} : !tile.buffer<64x64xf32, fragment> -> !tile.buffer<64xf32, fragment>
  return
}

// -----

// A 16x8 accumulator cannot be split into 16x8 atoms over 4 warps.

func.func @too_small_for_warps() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %sA = tile.alloc : !tile.buffer<16x16xf16, shared>
  %sB = tile.alloc : !tile.buffer<16x8xf16, shared>
  %acc = tile.alloc : !tile.buffer<16x8xf32, fragment>
  // expected-error @below {{'tile.gemm' op cannot distribute a 16x8 accumulator over 4 warps in 16x8 mma atoms}}
  tile.gemm %sA, %sB, %acc : !tile.buffer<16x16xf16, shared>, !tile.buffer<16x8xf16, shared>, !tile.buffer<16x8xf32, fragment>
  return
}

// -----

// With tile.mma_engine = "wgmma" the accumulator gets one 64-row block per
// warpgroup and 16 rows per warp: warps [8, 1] for 128 rows on 8 warps
// (which is exactly the wgmma m64 accumulator layout), with engine = wgmma:
// the lowering follows the accumulator's engine.
// CHECK-LABEL: func.func @wgmma_grid
// CHECK: tile.alloc : !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
func.func @wgmma_grid(%a: !tile.ptr<f16>) attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma"} {
  %sA = tile.alloc : !tile.buffer<128x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x128xf16, shared>
  %acc = tile.alloc : !tile.buffer<128x128xf32, fragment>
  tile.gemm %sA, %sB, %acc : !tile.buffer<128x64xf16, shared>, !tile.buffer<64x128xf16, shared>, !tile.buffer<128x128xf32, fragment>
  return
}

// -----

func.func @wgmma_bad_m(%a: !tile.ptr<f16>) attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %sA = tile.alloc : !tile.buffer<128x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x128xf16, shared>
  %acc = tile.alloc : !tile.buffer<128x128xf32, fragment>
  // expected-error @below {{wgmma needs M a multiple of 64 with M / 16 dividing num_warps (one 64-row block per warpgroup, the other warpgroups split N) and N / (warpgroups along N) a multiple of 8 up to 256, got 128x128 with 4 warps}}
  tile.gemm %sA, %sB, %acc : !tile.buffer<128x64xf16, shared>, !tile.buffer<64x128xf16, shared>, !tile.buffer<128x128xf32, fragment>
  return
}

// -----

// Warpgroups beyond M / 64 split N: a 64-row accumulator on 8 warps is
// [4, 2] (warpgroup 1 takes columns 32..63), next to a 128-row one that is
// [8, 1] in the same kernel; the maps keep each class's layout.
// CHECK-LABEL: func.func @wgmma_split_n
// CHECK-DAG: tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 2], engine = wgmma>>
// CHECK-DAG: tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 2], engine = wgmma>>
// CHECK-DAG: tile.alloc : !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
func.func @wgmma_split_n() attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma"} {
  %sK = tile.alloc : !tile.buffer<64x128xf16, shared>
  %sS = tile.alloc : !tile.buffer<128x64xf16, shared>
  %sV = tile.alloc : !tile.buffer<64x64xf16, shared>
  %ks = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %w = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %S = tile.alloc : !tile.buffer<128x64xf32, fragment>
  tile.gemm %sK, %sS, %ks : !tile.buffer<64x128xf16, shared>, !tile.buffer<128x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  tile.map ins(%ks : !tile.buffer<64x64xf32, fragment>) outs(%w : !tile.buffer<64x64xf32, fragment>) {
  ^bb0(%x: f32):
    tile.yield %x : f32
  }
  tile.gemm %sK, %sV, %S {transpose_a} : !tile.buffer<64x128xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<128x64xf32, fragment>
  return
}

// -----

func.func @wgmma_split_n_narrow() attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma"} {
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x24xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x24xf32, fragment>
  // expected-error @below {{wgmma needs M a multiple of 64 with M / 16 dividing num_warps (one 64-row block per warpgroup, the other warpgroups split N) and N / (warpgroups along N) a multiple of 8 up to 256, got 64x24 with 8 warps}}
  tile.gemm %sA, %sB, %acc : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x24xf16, shared>, !tile.buffer<64x24xf32, fragment>
  return
}

// -----

func.func @rs_wgmma_split_n() attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma"} {
  %sB = tile.alloc : !tile.buffer<64x128xf16, shared>
  %fA = tile.alloc : !tile.buffer<64x64xf16, fragment>
  %acc = tile.alloc : !tile.buffer<64x128xf32, fragment>
  // expected-error @below {{a fragment A (register operand) needs every warpgroup along M (warps [4k, 1]): with warpgroups splitting N each would need all of A's columns}}
  tile.gemm %fA, %sB, %acc : !tile.buffer<64x64xf16, fragment>, !tile.buffer<64x128xf16, shared>, !tile.buffer<64x128xf32, fragment>
  return
}

// -----

// wgmma with A in registers: the fragment A gets the accumulator's layout
// (its registers are the wgmma A fragment of each k-slice).
// CHECK-LABEL: func.func @rs_wgmma
// CHECK: tile.alloc : !tile.buffer<64x64xf16, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
// CHECK: tile.alloc : !tile.buffer<64x128xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
func.func @rs_wgmma() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %sB = tile.alloc : !tile.buffer<64x128xf16, shared>
  %fA = tile.alloc : !tile.buffer<64x64xf16, fragment>
  %acc = tile.alloc : !tile.buffer<64x128xf32, fragment>
  tile.gemm %fA, %sB, %acc : !tile.buffer<64x64xf16, fragment>, !tile.buffer<64x128xf16, shared>, !tile.buffer<64x128xf32, fragment>
  return
}

// -----

func.func @rs_mma_sync() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %sB = tile.alloc : !tile.buffer<64x128xf16, shared>
  %fA = tile.alloc : !tile.buffer<64x64xf16, fragment>
  %acc = tile.alloc : !tile.buffer<64x128xf32, fragment>
  // expected-error @below {{a fragment A (register operand) needs the wgmma engine (tile.mma_engine = "wgmma")}}
  tile.gemm %fA, %sB, %acc : !tile.buffer<64x64xf16, fragment>, !tile.buffer<64x128xf16, shared>, !tile.buffer<64x128xf32, fragment>
  return
}

// -----

// The shared source of a transposed copy into a fragment (read with
// ldmatrix.trans) gets the 128-byte swizzle like a gemm operand when its
// rows are whole 128-byte boxes; a 32-byte-row source stays plain.

// CHECK-LABEL: func.func @swizzle_transposed_source
// CHECK:      tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
// CHECK:      tile.alloc : !tile.buffer<16x16xf16, shared>{{$}}
func.func @swizzle_transposed_source()
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  %t = tile.alloc : !tile.buffer<16x16xf16, shared>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %g = tile.alloc : !tile.buffer<16x16xf32, fragment>
  tile.copy %s to %f {transpose} : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment>
  tile.copy %t to %g {transpose} : !tile.buffer<16x16xf16, shared> to !tile.buffer<16x16xf32, fragment>
  return
}

// -----

// Copy vectors never straddle what the global side cannot keep aligned: the
// root view's row (its innermost size: 129 -> 1, 100 -> 4), a constant
// innermost offset (2 -> 2) or a narrow's constant start along the
// innermost dimension (4 -> 4). A dynamic row length that is a kernel
// argument keeps the 16-byte vector (8 f16) as a launch requirement on it
// (tile.requires_multiple; unnamed arguments are argN, as in manifests).

// CHECK-LABEL: func.func @copy_vector_alignment
// CHECK-SAME:  tile.requires_multiple = {arg1 = 8 : i64}
// CHECK:      tile.copy {{.*}} {layout = #tile.blocked<vector = 1>} : !tile.buffer<?x129xf16, global>
// CHECK:      tile.copy {{.*}} {layout = #tile.blocked<vector = 4>} : !tile.buffer<?x100xf16, global>
// CHECK:      tile.copy {{.*}} {layout = #tile.blocked<vector = 2>} : !tile.buffer<?x128xf16, global>
// CHECK:      tile.async_copy {{.*}} {layout = #tile.blocked<vector = 4>, masked} : !tile.buffer<?x?xf16, global>
// CHECK:      tile.copy {{.*}} {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x?xf16, global>
func.func @copy_vector_alignment(%p: !tile.ptr<f16>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c4 = arith.constant 4 : index
  %m = arith.index_cast %n : i32 to index
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  %A = tile.view %p[%m] : !tile.ptr<f16> -> !tile.buffer<?x129xf16, global>
  tile.copy %A[%c0, %c0] to %s : !tile.buffer<?x129xf16, global> to !tile.buffer<64x64xf16, shared>
  %B = tile.view %p[%m] : !tile.ptr<f16> -> !tile.buffer<?x100xf16, global>
  tile.copy %B[%c0, %c0] to %s : !tile.buffer<?x100xf16, global> to !tile.buffer<64x64xf16, shared>
  %C = tile.view %p[%m] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  tile.copy %C[%c0, %c2] to %s : !tile.buffer<?x128xf16, global> to !tile.buffer<64x64xf16, shared>
  %D = tile.narrow %C[%c4, %m] dim 1 : !tile.buffer<?x128xf16, global> -> !tile.buffer<?x?xf16, global>
  tile.async_copy %D[%c0, %c0] to %s {masked} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  tile.async_commit
  tile.async_wait {pending = 0}
  %E = tile.view %p[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  tile.copy %E[%c0, %c0] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

// Dynamic facts: an innermost offset that is a loop induction variable
// with a step of 64 is a multiple of 64 (no requirement); a row length
// computed in the kernel (not an argument) cannot be required of the
// launcher, so the vector narrows to what it provably divides (2 * n: 2).

// CHECK-LABEL: func.func @copy_vector_dynamic_facts
// CHECK-NOT:   tile.requires_multiple
// CHECK:       tile.copy {{.*}} {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x256xf16, global>
// CHECK:       tile.copy {{.*}} {layout = #tile.blocked<vector = 2>} : !tile.buffer<?x?xf16, global>
func.func @copy_vector_dynamic_facts(%p: !tile.ptr<f16>, %n: i32 {tile.name = "n"})
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %m = arith.index_cast %n : i32 to index
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  %A = tile.view %p[%m] : !tile.ptr<f16> -> !tile.buffer<?x256xf16, global>
  scf.for %k = %c0 to %c256 step %c64 {
    tile.copy %A[%c0, %k] to %s : !tile.buffer<?x256xf16, global> to !tile.buffer<64x64xf16, shared>
  }
  %m2 = arith.muli %m, %c2 : index
  %B = tile.view %p[%m, %m2] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  tile.copy %B[%c0, %c0] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

// A fragment moves runs of its layout's width: the f32 pairs of an mma
// accumulator need even rows; a named dynamic row length becomes a launch
// requirement (N = 2).

// CHECK-LABEL: func.func @fragment_store_requirement
// CHECK-SAME:  tile.requires_multiple = {N = 2 : i64}
func.func @fragment_store_requirement(%p: !tile.ptr<f32>, %m: index {tile.name = "M"},
                                      %n: index {tile.name = "N"})
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %sa = tile.alloc : !tile.buffer<64x32xf16, shared>
  %sb = tile.alloc : !tile.buffer<32x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.gemm %sa, %sb, %acc : !tile.buffer<64x32xf16, shared>, !tile.buffer<32x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  %C = tile.view %p[%m, %n] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  tile.copy %acc to %C[%c0, %c0] {masked} : !tile.buffer<64x64xf32, fragment> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// With an odd static row length the pairs cannot be aligned: an error
// rather than a misaligned store on the GPU.

func.func @fragment_store_misaligned(%p: !tile.ptr<f32>, %m: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %sa = tile.alloc : !tile.buffer<64x32xf16, shared>
  %sb = tile.alloc : !tile.buffer<32x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.gemm %sa, %sb, %acc : !tile.buffer<64x32xf16, shared>, !tile.buffer<32x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  %C = tile.view %p[%m] : !tile.ptr<f32> -> !tile.buffer<?x129xf32, global>
  // expected-error @below {{moves runs of 2 elements (the fragment's layout) but the global rows or offsets are only provably multiples of 1 elements}}
  tile.copy %acc to %C[%c0, %c0] {masked} : !tile.buffer<64x64xf32, fragment> to !tile.buffer<?x129xf32, global>
  return
}

// -----

// A requirement is the final width: the static row of 100 f16 already
// narrows the vector to 4, so the dynamic offset must be a multiple of 4
// (not 8). A narrow along the innermost dimension contributes its extent
// too (masked vectors are kept only when whole): w = 8.

// CHECK-LABEL: func.func @requirement_is_the_final_width
// CHECK-SAME:  tile.requires_multiple = {o = 4 : i64, w = 8 : i64}
// CHECK:       tile.copy {{.*}} {layout = #tile.blocked<vector = 4>} : !tile.buffer<?x100xf16, global>
// CHECK:       tile.copy {{.*}} {layout = #tile.blocked<vector = 8>, masked} : !tile.buffer<?x?xf16, global>
func.func @requirement_is_the_final_width(%p: !tile.ptr<f16>, %o: index {tile.name = "o"},
                                          %w: index {tile.name = "w"})
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  %A = tile.view %p[%c64] : !tile.ptr<f16> -> !tile.buffer<?x100xf16, global>
  tile.copy %A[%c0, %o] to %s : !tile.buffer<?x100xf16, global> to !tile.buffer<64x64xf16, shared>
  %B = tile.view %p[%c64] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  %C = tile.narrow %B[%c0, %w] dim 1 : !tile.buffer<?x128xf16, global> -> !tile.buffer<?x?xf16, global>
  tile.copy %C[%c0, %c0] to %s {masked} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

// A mapping written in the kernel is checked too.

func.func @preset_vector_misaligned(%p: !tile.ptr<f16>, %m: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  %A = tile.view %p[%m] : !tile.ptr<f16> -> !tile.buffer<?x100xf16, global>
  // expected-error @below {{maps vectors of 8 elements but the global rows or offsets are only provably multiples of 4 elements}}
  tile.copy %A[%c0, %c0] to %s {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x100xf16, global> to !tile.buffer<64x64xf16, shared>
  return
}


// -----

// 32-bit shared tiles with rows of a multiple of 128 bytes that only
// registers touch get padded rows: %l (an mma accumulator's store,
// tile.load, the inverse's source) 4 words (#tile.padded<4>), %t (the
// inverse's destination, a copy into a fragment) 8 words and 4 more after
// every fourth row (#tile.padded<8, 4, 4>: the phases read its B operands 4
// rows apart and its A operands by ldmatrix, 8 rows). %g is a copy destination from global
// memory (a TMA or cp.async candidate), %n has 64-byte rows and %h 16-bit
// elements: they keep their layout.

// CHECK-LABEL: func.func @pad_register_tiles
// CHECK-DAG:   tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<4>>
// CHECK-DAG:   tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
// CHECK-DAG:   tile.alloc : !tile.buffer<64x64xf32, shared>
// CHECK-DAG:   tile.alloc : !tile.buffer<64x16xf32, shared>
// CHECK-DAG:   tile.alloc : !tile.buffer<64x64xf16, shared>
// CHECK-DAG:   tile.tril_inverse %{{.*}}, %{{.*}} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
// With overlap-tril-inverse=1 the inverse's source takes its destination's
// layout, with 2 the destination its source's (tile-plan-shared-memory may
// then overlap them); the other buffers as before.
// OVER-LABEL: func.func @pad_register_tiles
// OVER-DAG:   tile.alloc : !tile.buffer<64x64xf32, shared>
// OVER-DAG:   tile.alloc : !tile.buffer<64x16xf32, shared>
// OVER-DAG:   tile.tril_inverse %{{.*}}, %{{.*}} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
// OVER-LABEL: func.func @reduce_one_row
// OVER2-LABEL: func.func @pad_register_tiles
// OVER2-NOT:   #tile.padded<8, 4, 4>
// OVER2:       tile.tril_inverse %{{.*}}, %{{.*}} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>, !tile.buffer<64x64xf32, shared, #tile.padded<4>>
// OVER2-LABEL: func.func @reduce_one_row
// BADOPT: error: tile-assign-layouts: overlap-tril-inverse must be 0, 1 or 2, got 3
func.func @pad_register_tiles(%p: !tile.ptr<f32>, %i: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %G = tile.view %p[%c64] : !tile.ptr<f32> -> !tile.buffer<?x64xf32, global>
  %sa = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.gemm %sa, %sa, %acc {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  %l = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.copy %acc to %l : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, shared>
  %x = tile.load %l[%i, %i] : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse %l, %t : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.copy %t to %f : !tile.buffer<64x64xf32, shared> to !tile.buffer<64x64xf32, fragment>
  %g = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.copy %G[%c0, %c0] to %g : !tile.buffer<?x64xf32, global> to !tile.buffer<64x64xf32, shared>
  %n = tile.alloc : !tile.buffer<64x16xf32, shared>
  %fn = tile.alloc : !tile.buffer<64x16xf32, fragment>
  tile.copy %fn to %n : !tile.buffer<64x16xf32, fragment> to !tile.buffer<64x16xf32, shared>
  %h = tile.alloc : !tile.buffer<64x64xf16, shared>
  %fh = tile.alloc : !tile.buffer<64x64xf16, fragment>
  tile.copy %fh to %h : !tile.buffer<64x64xf16, fragment> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

// A single row held by one lane group needs no scratch: the butterfly
// leaves the result on thread 0, the destination's owner. Two rows do.
// CHECK-LABEL: func.func @reduce_one_row
// CHECK-NEXT: tile.alloc : !tile.buffer<1x64xf32, fragment, #tile.blocked<vector = 4>>
// CHECK-NEXT: tile.alloc : !tile.buffer<1xf32, fragment, #tile.blocked<vector = 1>>
// CHECK-NEXT: tile.reduce max %{{.*}}, %{{.*}} {dim = 1 : i64} : !tile.buffer<1x64xf32
// CHECK:      tile.alloc : !tile.buffer<2xf32, shared>
// CHECK-NEXT: tile.reduce max %{{.*}}, %{{.*}} scratch(
func.func @reduce_one_row() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %a = tile.alloc : !tile.buffer<1x64xf32, fragment>
  %r = tile.alloc : !tile.buffer<1xf32, fragment>
  tile.reduce max %a, %r {dim = 1 : i64} : !tile.buffer<1x64xf32, fragment> -> !tile.buffer<1xf32, fragment>
  %b = tile.alloc : !tile.buffer<2x64xf32, fragment>
  %rb = tile.alloc : !tile.buffer<2xf32, fragment>
  tile.reduce max %b, %rb {dim = 1 : i64} : !tile.buffer<2x64xf32, fragment> -> !tile.buffer<2xf32, fragment>
  return
}

// -----

// A scan's fragments (and what shares a class with them: the map on its
// input) get the blocked layout with the smallest power-of-two vector that
// puts them on one warp: 64 elements, two per lane; 32, one; 96, four on 24
// lanes.
// CHECK-LABEL: func.func @scan_layouts
// CHECK: %[[A:.*]] = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>>
// CHECK: %[[B:.*]] = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>>
// CHECK: %[[C:.*]] = tile.alloc : !tile.buffer<32xf32, fragment, #tile.blocked<vector = 1>>
// CHECK: %[[D:.*]] = tile.alloc : !tile.buffer<96xf32, fragment, #tile.blocked<vector = 4>>
// CHECK: %[[E:.*]] = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>>
func.func @scan_layouts() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %a = tile.alloc : !tile.buffer<64xf32, fragment>
  %b = tile.alloc : !tile.buffer<64xf32, fragment>
  %c = tile.alloc : !tile.buffer<32xf32, fragment>
  %d = tile.alloc : !tile.buffer<96xf32, fragment>
  %e = tile.alloc : !tile.buffer<64xf32, fragment>
  tile.map ins(%e : !tile.buffer<64xf32, fragment>) outs(%a : !tile.buffer<64xf32, fragment>) {
  ^bb0(%x: f32):
    tile.yield %x : f32
  }
  tile.scan add %a, %b : !tile.buffer<64xf32, fragment> -> !tile.buffer<64xf32, fragment>
  tile.scan max %c, %c : !tile.buffer<32xf32, fragment> -> !tile.buffer<32xf32, fragment>
  tile.scan min %d, %d : !tile.buffer<96xf32, fragment> -> !tile.buffer<96xf32, fragment>
  return
}

// -----

func.func @scan_odd() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %a = tile.alloc : !tile.buffer<33xf32, fragment>
  // expected-error @below {{'tile.scan' op cannot lay out a scan of 33 elements on one warp (needs a power-of-two vector v dividing it with 32 v >= it)}}
  tile.scan add %a, %a : !tile.buffer<33xf32, fragment> -> !tile.buffer<33xf32, fragment>
  return
}

// -----

// A layout the class already has is kept where the lowering takes it (the
// map's preset vector of 4: 64 elements on 16 lanes) ...
// CHECK-LABEL: func.func @scan_preset
// CHECK: tile.scan add %{{.*}}, %{{.*}} : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>> -> !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>
func.func @scan_preset() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %p = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>
  %a = tile.alloc : !tile.buffer<64xf32, fragment>
  tile.map ins(%p : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>) outs(%a : !tile.buffer<64xf32, fragment>) {
  ^bb0(%x: f32):
    tile.yield %x : f32
  }
  tile.scan add %a, %a : !tile.buffer<64xf32, fragment> -> !tile.buffer<64xf32, fragment>
  return
}

// -----

// ... and rejected where it does not (one element per thread: 64 on two
// warps; a gemm accumulator's mma layout).
func.func @scan_preset_wide() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %p = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
  %a = tile.alloc : !tile.buffer<64xf32, fragment>
  tile.map ins(%p : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>) outs(%a : !tile.buffer<64xf32, fragment>) {
  ^bb0(%x: f32):
    tile.yield %x : f32
  }
  // expected-error @below {{'tile.scan' op operands have the layout #tile.blocked<vector = 1>, which does not put them on one warp (a #tile.blocked with 32 x vector >= 64)}}
  tile.scan add %a, %a : !tile.buffer<64xf32, fragment> -> !tile.buffer<64xf32, fragment>
  return
}

// -----

// A gemm in a tile.producer_task is laid out over the task's warps with the
// task's engine: 64x64 over 4 warps with mma.sync (2x2), beside the
// kernel's own 8-warp wgmma accumulator.
// CHECK-LABEL: func.func @task
// CHECK:         tile.alloc : !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
// CHECK:         tile.producer_task warps 4 engine "mma.sync" {
// CHECK-NEXT:      tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
func.func @task(%n: index) attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma",
    tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  %sA = tile.alloc : !tile.buffer<128x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<128x64xf32, fragment>
  tile.gemm %sA, %sB, %acc : !tile.buffer<128x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<128x64xf32, fragment>
  tile.producer_task warps 4 engine "mma.sync" {
    %g = tile.alloc : !tile.buffer<64x64xf32, fragment>
    tile.gemm %sB, %sB, %g {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  return
}

// -----

// A 32-bit tile that only registers touch but that is read through
// tile.slice (a multi-slot hand-off buffer) keeps its layout: the slices'
// types carry the source's layout, and the pass rewrites allocations only.
// CHECK-LABEL: func.func @no_pad_through_slice
// CHECK:         tile.alloc : !tile.buffer<2x64xf32, shared>{{$}}
// CHECK:         tile.slice %{{.*}}[%{{.*}}] : !tile.buffer<2x64xf32, shared> -> !tile.buffer<64xf32, shared>
func.func @no_pad_through_slice(%i: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %r = tile.alloc : !tile.buffer<2x64xf32, shared>
  %f = tile.alloc : !tile.buffer<64xf32, fragment>
  %s = tile.slice %r[%i] : !tile.buffer<2x64xf32, shared> -> !tile.buffer<64xf32, shared>
  tile.copy %f to %s : !tile.buffer<64xf32, fragment> to !tile.buffer<64xf32, shared>
  return
}

// -----

// A kernel's tile.overlap_tril_inverse chooses for it, whatever the option
// says: 1 gives the pair the destination's layout in every run, 0 keeps the
// two apart in the runs that ask for an overlap.

// CHECK-LABEL: func.func @kernel_chooses_1
// CHECK:       tile.tril_inverse %{{.*}}, %{{.*}} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
// CHECK-LABEL: func.func @kernel_chooses_0
// CHECK:       tile.tril_inverse %{{.*}}, %{{.*}} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
// OVER-LABEL:  func.func @kernel_chooses_1
// OVER:        tile.tril_inverse %{{.*}}, %{{.*}} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
// OVER-LABEL:  func.func @kernel_chooses_0
// OVER:        tile.tril_inverse %{{.*}}, %{{.*}} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
// OVER2-LABEL: func.func @kernel_chooses_1
// OVER2:       tile.tril_inverse %{{.*}}, %{{.*}} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
// OVER2-LABEL: func.func @kernel_chooses_0
// OVER2:       tile.tril_inverse %{{.*}}, %{{.*}} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
func.func @kernel_chooses_1()
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.overlap_tril_inverse = 1 : i64} {
  %l = tile.alloc : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse %l, %t : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}
func.func @kernel_chooses_0()
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.overlap_tril_inverse = 0 : i64} {
  %l = tile.alloc : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse %l, %t : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// A fragment whose every global copy goes through a strided innermost
// dimension (one head's gates: tile.take of the last dimension) moves
// single elements whatever its layout: one element a thread, not the
// default vector (4 floats, 8 halves) that puts it on fewer threads with
// more registers each. A fragment with any contiguous global copy, or none
// at all, keeps the default; so does one whose strided copy is its
// neighbour's in a tile.map (one layout for the map's operands).

// CHECK-LABEL: func.func @strided_gates
// CHECK:       %[[G:.*]] = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
// CHECK:       %[[B:.*]] = tile.alloc : !tile.buffer<64xf16, fragment, #tile.blocked<vector = 1>>
// CHECK:       %[[C:.*]] = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>
// CHECK:       %[[M:.*]] = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>
// CHECK:       %[[N:.*]] = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>
// CHECK:       %[[F:.*]] = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>
// CHECK:       tile.copy %{{.*}}[%{{.*}}] to %[[G]] {masked} : !tile.buffer<?xf32, global> to !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
func.func @strided_gates(%pg: !tile.ptr<f32>, %pb: !tile.ptr<f16>, %t: index,
                         %hvs: index, %hv: index, %t0: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %G = tile.view %pg[%t, %hvs] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %Gh = tile.take %G[%hv] dims [1] : !tile.buffer<?x?xf32, global> -> !tile.buffer<?xf32, global>
  %Bt = tile.view %pb[%t, %hvs] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %Bh = tile.take %Bt[%hv] dims [1] : !tile.buffer<?x?xf16, global> -> !tile.buffer<?xf16, global>
  %Gr = tile.view %pg[%hvs, %t] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %Grh = tile.take %Gr[%hv] dims [0] : !tile.buffer<?x?xf32, global> -> !tile.buffer<?xf32, global>
  %sh = tile.alloc : !tile.buffer<64xf32, shared>
  %g = tile.alloc : !tile.buffer<64xf32, fragment>
  %b = tile.alloc : !tile.buffer<64xf16, fragment>
  %c = tile.alloc : !tile.buffer<64xf32, fragment>
  %m = tile.alloc : !tile.buffer<64xf32, fragment>
  %n = tile.alloc : !tile.buffer<64xf32, fragment>
  %f = tile.alloc : !tile.buffer<64xf32, fragment>
  // Strided loads, a shared store: one element a thread.
  tile.copy %Gh[%t0] to %g {masked} : !tile.buffer<?xf32, global> to !tile.buffer<64xf32, fragment>
  tile.copy %g to %sh : !tile.buffer<64xf32, fragment> to !tile.buffer<64xf32, shared>
  tile.copy %Bh[%t0] to %b {masked} : !tile.buffer<?xf16, global> to !tile.buffer<64xf16, fragment>
  // Strided load, contiguous store: the default.
  tile.copy %Gh[%t0] to %c {masked} : !tile.buffer<?xf32, global> to !tile.buffer<64xf32, fragment>
  tile.copy %c to %Grh[%t0] {masked} : !tile.buffer<64xf32, fragment> to !tile.buffer<?xf32, global>
  // %m's strided load, %n's contiguous one, one map: the default for both.
  tile.copy %Gh[%t0] to %m {masked} : !tile.buffer<?xf32, global> to !tile.buffer<64xf32, fragment>
  tile.copy %Grh[%t0] to %n {masked} : !tile.buffer<?xf32, global> to !tile.buffer<64xf32, fragment>
  tile.map ins(%m : !tile.buffer<64xf32, fragment>) outs(%n : !tile.buffer<64xf32, fragment>) {
  ^bb0(%x: f32):
    tile.yield %x : f32
  }
  // No global copy: the default.
  tile.copy %sh to %f : !tile.buffer<64xf32, shared> to !tile.buffer<64xf32, fragment>
  return
}
