// RUN: gdn-opt %s -split-input-file -verify-diagnostics

// expected-error @below {{only global buffers may have dynamic dimensions}}
func.func @dyn_shared(%b: !tile.buffer<?x64xf16, shared>) { return }

// -----

// expected-error @below {{unknown memory space 'local', expected 'global', 'shared' or 'fragment'}}
func.func @bad_space(%b: !tile.buffer<64xf16, local>) { return }

// -----

// expected-error @below {{tile buffer dimensions must be positive, got 0}}
func.func @zero_dim(%b: !tile.buffer<0x64xf16, shared>) { return }

// -----

// expected-error @below {{global buffers take no layout}}
func.func @global_layout(%b: !tile.buffer<?x64xf16, global, #tile.swizzle<128>>) { return }

// -----

// expected-error @below {{swizzled rows must be a multiple of 128 bytes, got 64}}
func.func @short_rows(%b: !tile.buffer<64x32xf16, shared, #tile.swizzle<128>>) { return }

// -----

// expected-error @below {{swizzle width must be 32, 64 or 128 bytes, got 96}}
func.func @bad_swizzle(%b: !tile.buffer<64x64xf16, shared, #tile.swizzle<96>>) { return }

// -----

// expected-error @below {{shared buffers take a #tile.swizzle or #tile.padded layout}}
func.func @shared_mma(%b: !tile.buffer<64x64xf16, shared, #tile.mma<warps = [2, 2]>>) { return }

// -----

// expected-error @below {{row padding must be positive, got 0}}
func.func @pad_zero(%b: !tile.buffer<64x64xf32, shared, #tile.padded<0>>) { return }

// -----

// expected-error @below {{row padding must be a multiple of 16 bytes, got 2 x 'f32'}}
func.func @pad_unaligned(%b: !tile.buffer<64x64xf32, shared, #tile.padded<2>>) { return }

// -----

// expected-error @below {{row padding of 9223372036854775807 elements exceeds a block's 232448 bytes of shared memory}}
func.func @pad_huge(%b: !tile.buffer<64x64xf32, shared, #tile.padded<9223372036854775807>>) { return }

// -----

// expected-error @below {{a padded shared buffer must have rank >= 2}}
func.func @pad_rank(%b: !tile.buffer<64xf32, shared, #tile.padded<4>>) { return }

// -----

// expected-error @below {{a group skew needs positive rows and elements, got 4 and 0}}
func.func @pad_skew_half(%b: !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 0>>) { return }

// -----

// expected-error @below {{a group skew must be a multiple of 16 bytes, got 2 x 'f32'}}
func.func @pad_skew_unaligned(%b: !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 2>>) { return }

// -----

// expected-error @below {{a padded layout with a group skew needs a rank-2 buffer, got rank 3}}
func.func @pad_skew_rank(%b: !tile.buffer<2x64x64xf32, shared, #tile.padded<8, 4, 4>>) { return }

// -----

// The skews count against a block's shared memory too, as the whole rows of
// storage they take: 256 x 216 f32 with 8 words of padding per row is
// 229,376 bytes, 4 words more after each of 255 rows (1,020 words) 5 rows of
// 224 words more: 233,856 (> 232,448).
// expected-error @below {{needs 233856 bytes}}
func.func @pad_skew_too_big(%b: !tile.buffer<256x216xf32, shared, #tile.padded<8, 1, 4>>) { return }

// -----

// expected-error @below {{fragments take a #tile.mma or #tile.blocked layout}}
func.func @pad_fragment(%b: !tile.buffer<64x64xf32, fragment, #tile.padded<4>>) { return }

// -----

// The padding counts against a block's shared memory: 256 x 224 f32 is
// 229,376 bytes, 4 more per row 233,472 (> 232,448).
// expected-error @below {{needs 233472 bytes}}
func.func @pad_too_big(%b: !tile.buffer<256x224xf32, shared, #tile.padded<4>>) { return }

// -----

// expected-error @below {{mma fragment 48x64 is not a multiple of 16x8 atoms over a 2x2 warp grid}}
func.func @mma_shape(%b: !tile.buffer<48x64xf32, fragment, #tile.mma<warps = [2, 2]>>) { return }

// -----

// expected-error @below {{mma layout needs a 2-D warp grid, got 3 dimensions}}
func.func @mma_grid(%b: !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [1, 2, 2]>>) { return }

// -----

// expected-error @below {{blocked layout vector width must be a power of two, got 3}}
func.func @blocked_pow2(%b: !tile.buffer<64xf32, fragment, #tile.blocked<vector = 3>>) { return }

// -----

// expected-error @below {{blocked layout vector width 8 does not divide the innermost dimension 12}}
func.func @blocked_div(%b: !tile.buffer<12xf32, fragment, #tile.blocked<vector = 8>>) { return }

// -----

// expected-error @below {{fragments take a #tile.mma or #tile.blocked layout}}
func.func @frag_swizzle(%b: !tile.buffer<64x64xf32, fragment, #tile.swizzle<128>>) { return }

// -----

// expected-error @below {{tile buffer element type must be an integer or float type}}
func.func @bad_elem(%b: !tile.buffer<4xindex, shared>) { return }

// -----

// expected-error @below {{tile buffers must have rank >= 1}}
func.func @rank0(%b: !tile.buffer<f32, shared>) { return }

// -----

func.func @view_count(%p: !tile.ptr<f16>, %n: index) {
  // expected-error @below {{expected 2 size operands (one per dynamic dimension), got 1}}
  %v = tile.view %p[%n] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  return
}

// -----

func.func @view_elem(%p: !tile.ptr<f16>, %n: index) {
  // expected-error @below {{result element type 'f32' does not match the pointer's 'f16'}}
  %v = tile.view %p[%n] : !tile.ptr<f16> -> !tile.buffer<?xf32, global>
  return
}

// -----

func.func @view_space(%p: !tile.ptr<f16>) {
  // expected-error @below {{result must be a global buffer}}
  %v = tile.view %p[] : !tile.ptr<f16> -> !tile.buffer<4xf16, shared>
  return
}

// -----

func.func @alloc_global() {
  // expected-error @below {{cannot allocate global memory; use tile.view}}
  %a = tile.alloc : !tile.buffer<4xf16, global>
  return
}

// -----

func.func @alloc_offset() {
  // expected-error @below {{only shared buffers have an offset}}
  %a = tile.alloc {offset = 0 : i64} : !tile.buffer<4xf16, fragment>
  return
}

// -----

func.func @alloc_no_reuse_fragment() {
  // expected-error @below {{only shared buffers take no_reuse}}
  %a = tile.alloc {no_reuse} : !tile.buffer<4xf16, fragment>
  return
}

// -----

func.func @alloc_neg_offset() {
  // expected-error @below {{offset must be non-negative}}
  %a = tile.alloc {offset = -16 : i64} : !tile.buffer<4xf16, shared>
  return
}

// -----

func.func @slice_type(%s: !tile.buffer<2x64x64xf16, shared>, %i: index) {
  // expected-error @below {{result type must be the source type without its leading dimension, expected 64x64xf16}}
  %r = tile.slice %s[%i] : !tile.buffer<2x64x64xf16, shared> -> !tile.buffer<64x32xf16, shared>
  return
}

// -----

func.func @slice_frag(%s: !tile.buffer<2x64xf32, fragment>, %i: index) {
  // expected-error @below {{source must be a shared buffer}}
  %r = tile.slice %s[%i] : !tile.buffer<2x64xf32, fragment> -> !tile.buffer<64xf32, fragment>
  return
}

// -----

func.func @slice_rank(%s: !tile.buffer<64xf16, shared>, %i: index) {
  // expected-error @below {{source must have rank >= 2}}
  %r = tile.slice %s[%i] : !tile.buffer<64xf16, shared> -> !tile.buffer<64xf16, shared>
  return
}

// -----

func.func @copy_g2g(%a: !tile.buffer<?x?xf16, global>, %i: index) {
  // expected-error @below {{cannot copy global to global memory}}
  tile.copy %a[%i, %i] to %a[%i, %i] : !tile.buffer<?x?xf16, global> to !tile.buffer<?x?xf16, global>
  return
}

// -----

func.func @copy_s2s(%a: !tile.buffer<64x64xf16, shared>) {
  // expected-error @below {{cannot copy shared to shared memory}}
  tile.copy %a to %a : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

func.func @copy_offsets(%a: !tile.buffer<?x?xf16, global>, %s: !tile.buffer<64x64xf16, shared>, %i: index) {
  // expected-error @below {{the global source takes 2 offsets, got 1}}
  tile.copy %a[%i] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

func.func @copy_subtile_dynamic(%s: !tile.buffer<64x64xf32, shared>, %i: index) {
  %c0 = arith.constant 0 : index
  %f = tile.alloc : !tile.buffer<16x64xf32, fragment>
  // expected-error @below {{offset #0 of the shared buffer must be a constant}}
  tile.copy %s[%i, %c0] to %f : !tile.buffer<64x64xf32, shared> to !tile.buffer<16x64xf32, fragment>
  return
}

// -----

func.func @copy_subtile_bounds(%s: !tile.buffer<64x64xf32, shared>) {
  %c0 = arith.constant 0 : index
  %c56 = arith.constant 56 : index
  %f = tile.alloc : !tile.buffer<16x64xf32, fragment>
  // expected-error @below {{offset #0 is 56: the 16-element tile does not fit in dimension 0 of size 64 of the shared buffer}}
  tile.copy %f to %s[%c56, %c0] : !tile.buffer<16x64xf32, fragment> to !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @copy_subtile_unaligned(%s: !tile.buffer<64x64xf32, shared>) {
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %f = tile.alloc : !tile.buffer<16x32xf32, fragment>
  // expected-error @below {{the innermost offset into the shared buffer (2 elements) is not a multiple of 16 bytes}}
  tile.copy %s[%c0, %c2] to %f : !tile.buffer<64x64xf32, shared> to !tile.buffer<16x32xf32, fragment>
  return
}

// -----

func.func @copy_subtile_count(%s: !tile.buffer<64x64xf32, shared>) {
  %c0 = arith.constant 0 : index
  %f = tile.alloc : !tile.buffer<16x64xf32, fragment>
  // expected-error @below {{the shared source takes 0 or 2 offsets, got 1}}
  tile.copy %s[%c0] to %f : !tile.buffer<64x64xf32, shared> to !tile.buffer<16x64xf32, fragment>
  return
}

// -----

func.func @copy_tile_offsets(%a: !tile.buffer<?x?xf16, global>, %s: !tile.buffer<64x64xf16, shared>, %i: index) {
  // expected-error @below {{only global operands (and shared operands of a copy to or from a fragment) take offsets, but the destination has 1}}
  tile.copy %a[%i, %i] to %s[%i] : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

func.func @copy_rank(%a: !tile.buffer<?xf16, global>, %s: !tile.buffer<64x64xf16, shared>, %i: index) {
  // expected-error @below {{rank mismatch: 2-D tile and 1-D buffer}}
  tile.copy %a[%i] to %s : !tile.buffer<?xf16, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

func.func @copy_shape(%f: !tile.buffer<64x64xf16, fragment>, %s: !tile.buffer<64x32xf16, shared>) {
  // expected-error @below {{shape mismatch: 64x64 vs 64x32}}
  tile.copy %f to %s : !tile.buffer<64x64xf16, fragment> to !tile.buffer<64x32xf16, shared>
  return
}

// -----

func.func @copy_transpose_no_fragment(%a: !tile.buffer<?x?xf16, global>, %s: !tile.buffer<64x64xf16, shared>, %i: index) {
  // expected-error @below {{'transpose' needs a fragment endpoint}}
  tile.copy %a[%i, %i] to %s {transpose} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

func.func @copy_transpose_rank(%f: !tile.buffer<64xf32, fragment>, %s: !tile.buffer<64xf16, shared>) {
  // expected-error @below {{'transpose' needs 2-D endpoints}}
  tile.copy %f to %s {transpose} : !tile.buffer<64xf32, fragment> to !tile.buffer<64xf16, shared>
  return
}

// -----

// A transposed copy compares shapes in memory coordinates: the [16, 8]
// fragment moves an [8, 16] tile.
func.func @copy_transpose_shape(%f: !tile.buffer<16x8xf32, fragment>, %s: !tile.buffer<16x8xf16, shared>) {
  // expected-error @below {{shape mismatch: 8x16 vs 16x8}}
  tile.copy %f to %s {transpose} : !tile.buffer<16x8xf32, fragment> to !tile.buffer<16x8xf16, shared>
  return
}

// -----

func.func @copy_transpose_too_big(%a: !tile.buffer<16x32xf16, global>, %f: !tile.buffer<64x16xf32, fragment>, %i: index) {
  // expected-error @below {{tile 16x64 is larger than the global buffer 16x32}}
  tile.copy %a[%i, %i] to %f {transpose} : !tile.buffer<16x32xf16, global> to !tile.buffer<64x16xf32, fragment>
  return
}

// -----

func.func @copy_too_big(%a: !tile.buffer<32x32xf16, global>, %s: !tile.buffer<64x64xf16, shared>, %i: index) {
  // expected-error @below {{tile 64x64 is larger than the global buffer 32x32}}
  tile.copy %a[%i, %i] to %s : !tile.buffer<32x32xf16, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

func.func @copy_convert(%a: !tile.buffer<?x?xf32, global>, %s: !tile.buffer<64x64xf16, shared>, %i: index) {
  // expected-error @below {{element types differ ('f32' vs 'f16'); only a copy to or from a fragment may convert floats}}
  tile.copy %a[%i, %i] to %s : !tile.buffer<?x?xf32, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

func.func @copy_mask(%f: !tile.buffer<64x64xf16, fragment>, %s: !tile.buffer<64x64xf16, shared>) {
  // expected-error @below {{'masked' needs a global operand}}
  tile.copy %f to %s {masked} : !tile.buffer<64x64xf16, fragment> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

func.func @async_dir(%a: !tile.buffer<?x?xf16, global>, %f: !tile.buffer<64x64xf16, fragment>, %i: index) {
  // expected-error @below {{copies from global to shared memory only}}
  tile.async_copy %a[%i, %i] to %f : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, fragment>
  return
}

// -----

func.func @async_elem(%a: !tile.buffer<?x?xf32, global>, %s: !tile.buffer<64x64xf16, shared>, %i: index) {
  // expected-error @below {{element types differ ('f32' vs 'f16')}}
  tile.async_copy %a[%i, %i] to %s : !tile.buffer<?x?xf32, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

func.func @wait_neg() {
  // expected-error @below {{attribute 'pending' failed to satisfy constraint}}
  tile.async_wait {pending = -1}
  return
}

// -----

func.func @fill_space(%s: !tile.buffer<64xf32, shared>, %v: f32) {
  // expected-error @below {{destination must be a fragment}}
  tile.fill %s, %v : !tile.buffer<64xf32, shared>, f32
  return
}

// -----

func.func @fill_type(%f: !tile.buffer<64xf32, fragment>, %v: f16) {
  // expected-error @below {{value type 'f16' does not match the element type 'f32'}}
  tile.fill %f, %v : !tile.buffer<64xf32, fragment>, f16
  return
}

// -----

func.func @zero_tail_space(%f: !tile.buffer<64x128xf16, fragment>, %n: index) {
  // expected-error @below {{destination must be a shared buffer}}
  tile.zero_tail %f from %n : !tile.buffer<64x128xf16, fragment>
  return
}

// -----

func.func @gemm_space(%a: !tile.buffer<64x64xf16, shared>, %b: !tile.buffer<64x64xf16, fragment>, %c: !tile.buffer<64x64xf32, fragment>) {
  // expected-error @below {{operand B must be a shared buffer}}
  tile.gemm %a, %b, %c : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, fragment>, !tile.buffer<64x64xf32, fragment>
  return
}

// -----

func.func @gemm_space_a(%a: !tile.buffer<64x64xf16, global>, %b: !tile.buffer<64x64xf16, shared>, %c: !tile.buffer<64x64xf32, fragment>) {
  // expected-error @below {{operand A must be a shared buffer or a fragment (register-A wgmma)}}
  tile.gemm %a, %b, %c : !tile.buffer<64x64xf16, global>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  return
}

// -----

func.func @gemm_rs_transposed(%a: !tile.buffer<64x64xf16, fragment>, %b: !tile.buffer<64x64xf16, shared>, %c: !tile.buffer<64x64xf32, fragment>) {
  // expected-error @below {{a fragment A (register operand) is not transposed}}
  tile.gemm %a, %b, %c {transpose_a} : !tile.buffer<64x64xf16, fragment>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  return
}

// -----

func.func @gemm_acc_space(%a: !tile.buffer<64x64xf16, shared>, %c: !tile.buffer<64x64xf32, shared>) {
  // expected-error @below {{accumulator C must be a fragment}}
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @gemm_rank(%a: !tile.buffer<64xf16, shared>, %c: !tile.buffer<64x64xf32, fragment>) {
  // expected-error @below {{operands must be 2-D}}
  tile.gemm %a, %a, %c : !tile.buffer<64xf16, shared>, !tile.buffer<64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  return
}

// -----

func.func @gemm_types(%a: !tile.buffer<64x64xf16, shared>, %b: !tile.buffer<64x64xbf16, shared>, %c: !tile.buffer<64x64xf32, fragment>) {
  // expected-error @below {{A and B must both be f16 or both bf16, got 'f16' and 'bf16'}}
  tile.gemm %a, %b, %c : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xbf16, shared>, !tile.buffer<64x64xf32, fragment>
  return
}

// -----

func.func @gemm_acc_type(%a: !tile.buffer<64x64xf16, shared>, %c: !tile.buffer<64x64xf16, fragment>) {
  // expected-error @below {{accumulator must be f32, got 'f16'}}
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, fragment>
  return
}

// -----

func.func @gemm_k(%a: !tile.buffer<64x32xf16, shared>, %b: !tile.buffer<64x64xf16, shared>, %c: !tile.buffer<64x64xf32, fragment>) {
  // expected-error @below {{contraction sizes differ: A has K = 32, B has K = 64}}
  tile.gemm %a, %b, %c : !tile.buffer<64x32xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  return
}

// -----

func.func @gemm_c(%a: !tile.buffer<64x64xf16, shared>, %b: !tile.buffer<64x32xf16, shared>, %c: !tile.buffer<64x64xf32, fragment>) {
  // expected-error @below {{accumulator must be 64x32, got 64x64}}
  tile.gemm %a, %b, %c : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x32xf16, shared>, !tile.buffer<64x64xf32, fragment>
  return
}

// -----

func.func @gemm_k16(%a: !tile.buffer<64x8xf16, shared>, %b: !tile.buffer<8x64xf16, shared>, %c: !tile.buffer<64x64xf32, fragment>) {
  // expected-error @below {{K = 8 must be a multiple of 16}}
  tile.gemm %a, %b, %c : !tile.buffer<64x8xf16, shared>, !tile.buffer<8x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  return
}

// -----

func.func @map_space(%s: !tile.buffer<64xf32, shared>) {
  // expected-error @below {{operands must be fragments}}
  tile.map outs(%s : !tile.buffer<64xf32, shared>) {
    %c = arith.constant 1.0 : f32
    tile.yield %c : f32
  }
  return
}

// -----

func.func @map_shape(%a: !tile.buffer<64xf32, fragment>, %b: !tile.buffer<32xf32, fragment>) {
  // expected-error @below {{operand shapes differ: 64 vs 32}}
  tile.map ins(%a : !tile.buffer<64xf32, fragment>) outs(%b : !tile.buffer<32xf32, fragment>) {
  ^bb0(%x: f32):
    tile.yield %x : f32
  }
  return
}

// -----

func.func @map_args(%a: !tile.buffer<64xf32, fragment>) {
  // expected-error @below {{body takes 0 arguments, expected one per input (1)}}
  tile.map ins(%a : !tile.buffer<64xf32, fragment>) outs(%a : !tile.buffer<64xf32, fragment>) {
    %c = arith.constant 1.0 : f32
    tile.yield %c : f32
  }
  return
}

// -----

func.func @map_argtype(%a: !tile.buffer<64xf32, fragment>) {
  // expected-error @below {{body argument type 'f16' does not match the input element type 'f32'}}
  tile.map ins(%a : !tile.buffer<64xf32, fragment>) outs(%a : !tile.buffer<64xf32, fragment>) {
  ^bb0(%x: f16):
    %c = arith.constant 1.0 : f32
    tile.yield %c : f32
  }
  return
}

// -----

func.func @map_yield(%a: !tile.buffer<64xf32, fragment>) {
  // expected-error @below {{body yields 0 values, expected 1}}
  tile.map ins(%a : !tile.buffer<64xf32, fragment>) outs(%a : !tile.buffer<64xf32, fragment>) {
  ^bb0(%x: f32):
    tile.yield
  }
  return
}

// -----

func.func @map_yield_type(%a: !tile.buffer<64xf32, fragment>) {
  // expected-error @below {{yielded type 'f16' does not match the output element type 'f32'}}
  tile.map ins(%a : !tile.buffer<64xf32, fragment>) outs(%a : !tile.buffer<64xf32, fragment>) {
  ^bb0(%x: f32):
    %c = arith.constant 1.0 : f16
    tile.yield %c : f16
  }
  return
}

// -----

func.func @reduce_rank(%a: !tile.buffer<64xf32, fragment>, %b: !tile.buffer<64xf32, fragment>) {
  // expected-error @below {{reduces a 2-D fragment into a 1-D buffer}}
  tile.reduce add %a, %b {dim = 1 : i64} : !tile.buffer<64xf32, fragment> -> !tile.buffer<64xf32, fragment>
  return
}

// -----

func.func @reduce_size(%a: !tile.buffer<64x32xf32, fragment>, %b: !tile.buffer<32xf32, fragment>) {
  // expected-error @below {{destination must have 64 elements, got 32}}
  tile.reduce max %a, %b {dim = 1 : i64} : !tile.buffer<64x32xf32, fragment> -> !tile.buffer<32xf32, fragment>
  return
}

// -----

func.func @reduce_dim(%a: !tile.buffer<64x32xf32, fragment>, %b: !tile.buffer<32xf32, fragment>) {
  // expected-error @below {{attribute 'dim' failed to satisfy constraint}}
  tile.reduce max %a, %b {dim = 2 : i64} : !tile.buffer<64x32xf32, fragment> -> !tile.buffer<32xf32, fragment>
  return
}

// -----

func.func @reduce_type(%a: !tile.buffer<64x32xf16, fragment>, %b: !tile.buffer<64xf16, fragment>) {
  // expected-error @below {{reductions are on f32 fragments}}
  tile.reduce add %a, %b {dim = 1 : i64} : !tile.buffer<64x32xf16, fragment> -> !tile.buffer<64xf16, fragment>
  return
}

// -----

func.func @reduce_space(%a: !tile.buffer<64x32xf32, shared>, %b: !tile.buffer<64xf32, fragment>) {
  // expected-error @below {{the source must be a fragment and the destination a fragment or a shared buffer}}
  tile.reduce add %a, %b {dim = 1 : i64} : !tile.buffer<64x32xf32, shared> -> !tile.buffer<64xf32, fragment>
  return
}

// -----

func.func @reduce_global_dest(%a: !tile.buffer<64x32xf32, fragment>, %b: !tile.buffer<64xf32, global>) {
  // expected-error @below {{the source must be a fragment and the destination a fragment or a shared buffer}}
  tile.reduce add %a, %b {dim = 1 : i64} : !tile.buffer<64x32xf32, fragment> -> !tile.buffer<64xf32, global>
  return
}

// -----

// Into shared memory: rows only (one lane group's leader stores a row).
func.func @reduce_shared_dest_cols(%a: !tile.buffer<64x32xf32, fragment>, %b: !tile.buffer<32xf32, shared>) {
  // expected-error @below {{a shared destination is for row reductions (dim = 1)}}
  tile.reduce add %a, %b {dim = 0 : i64} : !tile.buffer<64x32xf32, fragment> -> !tile.buffer<32xf32, shared>
  return
}

// -----

func.func @reduce_shared_dest_scratch(%a: !tile.buffer<64x32xf32, fragment>, %b: !tile.buffer<64xf32, shared>, %s: !tile.buffer<64xf32, shared>) {
  // expected-error @below {{a reduction into shared memory takes no scratch}}
  tile.reduce add %a, %b scratch(%s : !tile.buffer<64xf32, shared>) {dim = 1 : i64} : !tile.buffer<64x32xf32, fragment> -> !tile.buffer<64xf32, shared>
  return
}

// -----

// Rows of 64 vectors span two warps: no lane group can store a row.
func.func @reduce_shared_dest_wide(%a: !tile.buffer<16x256xf32, fragment, #tile.blocked<vector = 4>>, %b: !tile.buffer<16xf32, shared>) {
  // expected-error @below {{a shared destination needs a row reduction whose rows are each held by an aligned lane group of one warp}}
  tile.reduce add %a, %b {dim = 1 : i64} : !tile.buffer<16x256xf32, fragment, #tile.blocked<vector = 4>> -> !tile.buffer<16xf32, shared>
  return
}

// -----

// A reduction's scratch has the source's shape (padding is a layout).
func.func @reduce_scratch(%a: !tile.buffer<64x32xf32, fragment>, %b: !tile.buffer<64xf32, fragment>, %s: !tile.buffer<64x31xf32, shared>) {
  // expected-error @below {{scratch must be an f32 shared buffer of the source's shape 64x32 (row-major or #tile.padded)}}
  tile.reduce add %a, %b scratch(%s : !tile.buffer<64x31xf32, shared>) {dim = 1 : i64} : !tile.buffer<64x32xf32, fragment> -> !tile.buffer<64xf32, fragment>
  return
}

// -----

// A column reduction's scratch has the source's shape exactly.
func.func @reduce_scratch_cols(%a: !tile.buffer<64x32xf32, fragment>, %b: !tile.buffer<32xf32, fragment>, %s: !tile.buffer<64x33xf32, shared>) {
  // expected-error @below {{scratch must be an f32 shared buffer of the source's shape 64x32}}
  tile.reduce add %a, %b scratch(%s : !tile.buffer<64x33xf32, shared>) {dim = 0 : i64} : !tile.buffer<64x32xf32, fragment> -> !tile.buffer<32xf32, fragment>
  return
}

// -----

// The lowering addresses the scratch element by element: no swizzle.
func.func @reduce_scratch_swizzled(%a: !tile.buffer<64x32xf32, fragment>, %b: !tile.buffer<64xf32, fragment>, %s: !tile.buffer<64x32xf32, shared, #tile.swizzle<128>>) {
  // expected-error @below {{scratch must be an f32 shared buffer of the source's shape 64x32 (row-major or #tile.padded)}}
  tile.reduce add %a, %b scratch(%s : !tile.buffer<64x32xf32, shared, #tile.swizzle<128>>) {dim = 1 : i64} : !tile.buffer<64x32xf32, fragment> -> !tile.buffer<64xf32, fragment>
  return
}

// -----

// The in-warp lowering's scratch: one f32 per row, plain.
func.func @reduce_scratch_in_warp_shape(%a: !tile.buffer<64x32xf32, fragment, #tile.blocked<vector = 4>>, %b: !tile.buffer<64xf32, fragment>, %s: !tile.buffer<32xf32, shared>) {
  // expected-error @below {{an in-warp reduction's scratch must be a row-major f32 shared buffer of the destination's shape 64}}
  tile.reduce add %a, %b scratch(%s : !tile.buffer<32xf32, shared>) {dim = 1 : i64} : !tile.buffer<64x32xf32, fragment, #tile.blocked<vector = 4>> -> !tile.buffer<64xf32, fragment>
  return
}

// -----

func.func @reduce_scratch_in_warp_cols(%a: !tile.buffer<64x32xf32, fragment>, %b: !tile.buffer<32xf32, fragment>, %s: !tile.buffer<32xf32, shared>) {
  // expected-error @below {{a scratch of the destination's shape is for row reductions (dim = 1)}}
  tile.reduce add %a, %b scratch(%s : !tile.buffer<32xf32, shared>) {dim = 0 : i64} : !tile.buffer<64x32xf32, fragment> -> !tile.buffer<32xf32, fragment>
  return
}

// -----

// Rows of 64 vectors span two warps: no in-warp lowering.
func.func @reduce_scratch_in_warp_wide(%a: !tile.buffer<16x256xf32, fragment, #tile.blocked<vector = 4>>, %b: !tile.buffer<16xf32, fragment>, %s: !tile.buffer<16xf32, shared>) {
  // expected-error @below {{a scratch of the destination's shape needs a row reduction whose rows are each held by an aligned lane group of one warp}}
  tile.reduce add %a, %b scratch(%s : !tile.buffer<16xf32, shared>) {dim = 1 : i64} : !tile.buffer<16x256xf32, fragment, #tile.blocked<vector = 4>> -> !tile.buffer<16xf32, fragment>
  return
}

// -----

// Rows of 3 vectors: no aligned lane group.
func.func @reduce_scratch_in_warp_odd(%a: !tile.buffer<16x12xf32, fragment, #tile.blocked<vector = 4>>, %b: !tile.buffer<16xf32, fragment>, %s: !tile.buffer<16xf32, shared>) {
  // expected-error @below {{a scratch of the destination's shape needs a row reduction}}
  tile.reduce add %a, %b scratch(%s : !tile.buffer<16xf32, shared>) {dim = 1 : i64} : !tile.buffer<16x12xf32, fragment, #tile.blocked<vector = 4>> -> !tile.buffer<16xf32, fragment>
  return
}

// -----

func.func @for_stages(%n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{attribute 'num_stages' failed to satisfy constraint}}
  tile.for %i = %c0 to %n step %n stages 0 {
  }
  return
}

// -----

func.func @for_loop_annotation(%n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.for' op loop_annotation must be an #llvm.loop_annotation, got true}}
  tile.for %i = %c0 to %n step %n stages 1 {
  } {loop_annotation = true}
  return
}

// -----

func.func @for_producer_loop_annotation(%n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.for' op producer_loop_annotation must be an #llvm.loop_annotation, got 1 : i64}}
  tile.for %i = %c0 to %n step %n stages 1 {
  } {producer_loop_annotation = 1 : i64}
  return
}

// -----

// expected-error @below {{a tile kernel needs 'tile.num_warps'}}
func.func @no_warps() attributes {tile.kernel} { return }

// -----

// expected-error @below {{'tile.num_warps' must be an integer in [1, 32]}}
func.func @many_warps() attributes {tile.kernel, tile.num_warps = 64 : i64} { return }

// -----

// expected-error @below {{tile kernel arguments must be !tile.ptr, !tile.tensormap or scalars, got '!tile.buffer<4xf16, shared>'}}
func.func @kernel_args(%b: !tile.buffer<4xf16, shared>) attributes {tile.kernel, tile.num_warps = 4 : i64} { return }

// -----

// expected-error @below {{a tile kernel must not return values}}
func.func @kernel_result() -> i32 attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c = arith.constant 0 : i32
  return %c : i32
}

// -----

// expected-error @below {{'tile.kernel' must be a unit attribute}}
func.func @kernel_unit() attributes {tile.kernel = 1 : i64, tile.num_warps = 4 : i64} { return }

// -----

// expected-error @below {{'tile.shared_memory_bytes' must be a non-negative integer}}
func.func @smem_neg() attributes {tile.shared_memory_bytes = -1 : i64} { return }

// -----

// expected-error @below {{'tile.meta' must be a dictionary}}
func.func @meta() attributes {tile.meta = 3 : i64} { return }

// -----

// expected-error @below {{unknown tile dialect attribute 'tile.bogus'}}
func.func @bogus() attributes {tile.bogus} { return }

// -----

// expected-error @below {{'tile.name' must be a string}}
func.func @argname(%a: i32 {tile.name = 3 : i64}) { return }

// -----

func.func @take_dims(%g: !tile.buffer<?x?x128xf16, global>, %i: index) {
  // expected-error @below {{dims must be ascending and in [0, 3)}}
  %t = tile.take %g[%i, %i] dims [2, 1] : !tile.buffer<?x?x128xf16, global> -> !tile.buffer<?xf16, global>
  return
}

// -----

func.func @take_count(%g: !tile.buffer<?x?x128xf16, global>, %i: index) {
  // expected-error @below {{expected one index per taken dimension (2), got 1}}
  %t = tile.take %g[%i] dims [0, 1] : !tile.buffer<?x?x128xf16, global> -> !tile.buffer<128xf16, global>
  return
}

// -----

func.func @take_result(%g: !tile.buffer<?x?x128xf16, global>, %i: index) {
  // expected-error @below {{result must be ?x128xf16, the source without the taken dimensions}}
  %t = tile.take %g[%i] dims [1] : !tile.buffer<?x?x128xf16, global> -> !tile.buffer<?x64xf16, global>
  return
}

// -----

func.func @take_all(%g: !tile.buffer<?xf16, global>, %i: index) {
  // expected-error @below {{must keep at least one dimension}}
  %t = tile.take %g[%i] dims [0] : !tile.buffer<?xf16, global> -> !tile.buffer<?xf16, global>
  return
}

// -----

func.func @take_shared(%s: !tile.buffer<4x64xf16, shared>, %i: index) {
  // expected-error @below {{takes from global buffers only}}
  %t = tile.take %s[%i] dims [0] : !tile.buffer<4x64xf16, shared> -> !tile.buffer<64xf16, shared>
  return
}

// -----

func.func @narrow_dim(%g: !tile.buffer<?x128xf16, global>, %i: index) {
  // expected-error @below {{dim 2 is out of range for rank 2}}
  %t = tile.narrow %g[%i, %i] dim 2 : !tile.buffer<?x128xf16, global> -> !tile.buffer<?x128xf16, global>
  return
}

// -----

func.func @narrow_result(%g: !tile.buffer<?x128xf16, global>, %i: index) {
  // expected-error @below {{result must be ?x?xf16}}
  %t = tile.narrow %g[%i, %i] dim 1 : !tile.buffer<?x128xf16, global> -> !tile.buffer<?x128xf16, global>
  return
}

// -----

func.func @narrow_shared(%s: !tile.buffer<4x64xf16, shared>, %i: index) {
  // expected-error @below {{narrows global buffers only}}
  %t = tile.narrow %s[%i, %i] dim 0 : !tile.buffer<4x64xf16, shared> -> !tile.buffer<4x64xf16, shared>
  return
}

// -----

func.func @load_frag(%f: !tile.buffer<64xf32, fragment>, %i: index) -> f32 {
  // expected-error @below {{reads shared or global buffers only}}
  %x = tile.load %f[%i] : !tile.buffer<64xf32, fragment>
  return %x : f32
}

// -----

func.func @load_rank(%s: !tile.buffer<64x64xf32, shared>, %i: index) -> f32 {
  // expected-error @below {{expected 2 indices, got 1}}
  %x = tile.load %s[%i] : !tile.buffer<64x64xf32, shared>
  return %x : f32
}

// -----

func.func @tril_shape(%a: !tile.buffer<64x32xf32, shared>) {
  // expected-error @below {{operands must be square f32 shared buffers (row-major, #tile.swizzle or #tile.padded)}}
  tile.tril_inverse %a, %a : !tile.buffer<64x32xf32, shared>, !tile.buffer<64x32xf32, shared>
  return
}

// -----

func.func @tril_type(%a: !tile.buffer<64x64xf16, shared>) {
  // expected-error @below {{operands must be square f32 shared buffers (row-major, #tile.swizzle or #tile.padded)}}
  tile.tril_inverse %a, %a : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>
  return
}

// -----

func.func @tril_same(%a: !tile.buffer<64x64xf32, shared>, %b: !tile.buffer<32x32xf32, shared>) {
  // expected-error @below {{operands must have the same shape}}
  tile.tril_inverse %a, %b : !tile.buffer<64x64xf32, shared>, !tile.buffer<32x32xf32, shared>
  return
}

// -----

func.func @tril_diag_same(%a: !tile.buffer<64x64xf32, shared>, %b: !tile.buffer<32x32xf32, shared, #tile.padded<8>>) {
  // expected-error @below {{'tile.tril_inverse_diag' op operands must have the same shape}}
  tile.tril_inverse_diag %a, %b : !tile.buffer<64x64xf32, shared>, !tile.buffer<32x32xf32, shared, #tile.padded<8>>
  return
}

// -----

func.func @tril_diag_multiple(%a: !tile.buffer<24x24xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_diag' op size 24 is not a multiple of 16}}
  tile.tril_inverse_diag %a, %a : !tile.buffer<24x24xf32, shared>, !tile.buffer<24x24xf32, shared>
  return
}

// -----

func.func @tril_diag_type(%a: !tile.buffer<32x32xf16, shared>) {
  // expected-error @below {{'tile.tril_inverse_diag' op operands must be square f32 shared buffers (row-major, #tile.swizzle or #tile.padded)}}
  tile.tril_inverse_diag %a, %a : !tile.buffer<32x32xf16, shared>, !tile.buffer<32x32xf16, shared>
  return
}

// -----

func.func @tril_in_place(%a: !tile.buffer<64x64xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse' op source and dest must be different buffers (the inverse is computed in place only when packed)}}
  tile.tril_inverse %a, %a : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @tril_diag_in_place(%a: !tile.buffer<32x32xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_diag' op source and dest must be different buffers (the inverse is computed in place only when packed)}}
  tile.tril_inverse_diag %a, %a : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  return
}

// -----

func.func @tril_level_in_place(%a: !tile.buffer<32x32xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_level' op source and dest must be different buffers (the inverse is computed in place only when packed)}}
  tile.tril_inverse_level %a, %a {level = 1 : i64} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  return
}

// -----

func.func @tril_packed_two(%a: !tile.buffer<64x64xf32, shared>, %b: !tile.buffer<64x64xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse' op a packed inverse has one buffer: source and dest must be the same value}}
  tile.tril_inverse %a, %b {packed} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @tril_diag_merge_pairs_packed(%a: !tile.buffer<64x64xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_diag' op merge_pairs needs a separate destination, not a packed inverse}}
  tile.tril_inverse_diag %a, %a {merge_pairs, packed} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @tril_diag_merge_pairs_odd(%a: !tile.buffer<48x48xf32, shared>, %b: !tile.buffer<48x48xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_diag' op merge_pairs needs an even number of 16x16 diagonal blocks, got 3}}
  tile.tril_inverse_diag %a, %b {merge_pairs} : !tile.buffer<48x48xf32, shared>, !tile.buffer<48x48xf32, shared>
  return
}

// -----

func.func @tril_diag_merge_pairs_threads() attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %a = tile.alloc : !tile.buffer<64x64xf32, shared>
  %b = tile.alloc : !tile.buffer<64x64xf32, shared>
  // expected-error @below {{'tile.tril_inverse_diag' op merge_pairs needs a thread per column: 64 columns, 32 threads}}
  tile.tril_inverse_diag %a, %b {merge_pairs} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @tril_diag_packed_two(%a: !tile.buffer<32x32xf32, shared>, %b: !tile.buffer<32x32xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_diag' op a packed inverse has one buffer: source and dest must be the same value}}
  tile.tril_inverse_diag %a, %b {packed} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  return
}

// -----

func.func @tril_level_packed_two(%a: !tile.buffer<32x32xf32, shared>, %b: !tile.buffer<32x32xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_level' op a packed inverse has one buffer: source and dest must be the same value}}
  tile.tril_inverse_level %a, %b {level = 1 : i64, packed} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  return
}

// -----

func.func @tril_level_same(%a: !tile.buffer<32x32xf32, shared>, %b: !tile.buffer<64x64xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_level' op operands must have the same shape}}
  tile.tril_inverse_level %a, %b {level = 1 : i64} : !tile.buffer<32x32xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @tril_merge_size(%a: !tile.buffer<64x64xf32, shared>, %b: !tile.buffer<64x64xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_merge' op size 48 must be a multiple of 16 with twice it dividing 64}}
  tile.tril_inverse_merge %a, %b {size = 48 : i64} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @tril_merge_whole(%a: !tile.buffer<64x64xf32, shared>, %b: !tile.buffer<64x64xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_merge' op size 64 must be a multiple of 16 with twice it dividing 64}}
  tile.tril_inverse_merge %a, %b {size = 64 : i64} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// by_rows stages Y in one block of T12 per column block: sizes 16 and 32.
func.func @tril_merge_by_rows_size(%a: !tile.buffer<128x128xf32, shared>, %b: !tile.buffer<128x128xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_merge' op by_rows needs size 16 or 32, got 64}}
  tile.tril_inverse_merge %a, %b {size = 64 : i64, by_rows} : !tile.buffer<128x128xf32, shared>, !tile.buffer<128x128xf32, shared>
  return
}

// -----

// staged_lo reads L21's low parts from the final merge's free block: only
// the final merge, and not by_rows (which stages Y there).
func.func @tril_merge_staged_lo_size(%a: !tile.buffer<128x128xf32, shared>, %b: !tile.buffer<128x128xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_merge' op staged_lo needs the final merge (size 64, n / 16 >= 4) without by_rows}}
  tile.tril_inverse_merge %a, %b {size = 32 : i64, staged_lo} : !tile.buffer<128x128xf32, shared>, !tile.buffer<128x128xf32, shared>
  return
}

// -----

func.func @tril_merge_staged_lo_by_rows(%a: !tile.buffer<64x64xf32, shared>, %b: !tile.buffer<64x64xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_merge' op staged_lo needs the final merge (size 32, n / 16 >= 4) without by_rows}}
  tile.tril_inverse_merge %a, %b {size = 32 : i64, by_rows, staged_lo} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @tril_merge_staged_lo_small(%a: !tile.buffer<32x32xf32, shared>, %b: !tile.buffer<32x32xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_merge' op staged_lo needs the final merge (size 16, n / 16 >= 4) without by_rows}}
  tile.tril_inverse_merge %a, %b {size = 16 : i64, staged_lo} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  return
}

// -----

// fma: the CUDA-core merge needs a lane's two rows each in one 16-row
// block (sizes 16 and 32) and its own staging (not by_rows, staged_lo).
func.func @tril_merge_fma_size(%a: !tile.buffer<128x128xf32, shared>, %b: !tile.buffer<128x128xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_merge' op fma needs size 16 or 32 without by_rows or staged_lo, got size 64}}
  tile.tril_inverse_merge %a, %b {size = 64 : i64, fma} : !tile.buffer<128x128xf32, shared>, !tile.buffer<128x128xf32, shared>
  return
}

// -----

func.func @tril_merge_fma_by_rows(%a: !tile.buffer<64x64xf32, shared>, %b: !tile.buffer<64x64xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_merge' op fma needs size 16 or 32 without by_rows or staged_lo, got size 32}}
  tile.tril_inverse_merge %a, %b {size = 32 : i64, by_rows, fma} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// The diagonal phase's fma is about the size-16 merge it runs with
// merge_pairs.
func.func @tril_diag_fma_alone(%a: !tile.buffer<64x64xf32, shared>, %b: !tile.buffer<64x64xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_diag' op fma applies to the size-16 merge of merge_pairs}}
  tile.tril_inverse_diag %a, %b {fma} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// Nothing staged the low parts: no diagonal phase with stage_lo before it
// (or one of other buffers, or other ops between them).
func.func @tril_merge_staged_lo_alone(%a: !tile.buffer<64x64xf32, shared>, %b: !tile.buffer<64x64xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_merge' op staged_lo needs a tile.tril_inverse_diag {stage_lo} of the same buffers before it (only merges and barriers between them)}}
  tile.tril_inverse_merge %a, %b {size = 32 : i64, staged_lo} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @tril_merge_staged_lo_unstaged() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %a = tile.alloc : !tile.buffer<64x64xf32, shared>
  %b = tile.alloc : !tile.buffer<64x64xf32, shared>
  %c = tile.alloc : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_diag %a, %c {lower_only, merge_pairs, stage_lo} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  tile.barrier
  // expected-error @below {{'tile.tril_inverse_merge' op staged_lo needs a tile.tril_inverse_diag {stage_lo} of the same buffers before it (only merges and barriers between them)}}
  tile.tril_inverse_merge %a, %b {size = 32 : i64, staged_lo} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// stage_lo writes into the blocks lower_only leaves free, from threads
// the columns leave idle, for a merge that follows.
func.func @tril_diag_stage_lo_full(%a: !tile.buffer<64x64xf32, shared>, %b: !tile.buffer<64x64xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_diag' op stage_lo needs merge_pairs and lower_only}}
  tile.tril_inverse_diag %a, %b {merge_pairs, stage_lo} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @tril_diag_stage_lo_small(%a: !tile.buffer<32x32xf32, shared>, %b: !tile.buffer<32x32xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_diag' op stage_lo needs a merge after the diagonal phase (n / 16 >= 4), got 2 blocks}}
  tile.tril_inverse_diag %a, %b {lower_only, merge_pairs, stage_lo} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  return
}

// -----

func.func @tril_diag_stage_lo_threads() attributes {tile.kernel, tile.num_warps = 2 : i64} {
  %a = tile.alloc : !tile.buffer<64x64xf32, shared>
  %b = tile.alloc : !tile.buffer<64x64xf32, shared>
  // expected-error @below {{'tile.tril_inverse_diag' op stage_lo needs threads beyond the 64 columns, got 64}}
  tile.tril_inverse_diag %a, %b {lower_only, merge_pairs, stage_lo} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @tril_merge_in_place(%a: !tile.buffer<64x64xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_merge' op source and dest must be different buffers (the inverse is computed in place only when packed)}}
  tile.tril_inverse_merge %a, %a {size = 16 : i64} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @tril_merge_fragment(%a: !tile.buffer<64x64xf32, fragment>, %b: !tile.buffer<64x64xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_merge' op operands must be square f32 shared buffers (row-major, #tile.swizzle or #tile.padded)}}
  tile.tril_inverse_merge %a, %b {size = 16 : i64} : !tile.buffer<64x64xf32, fragment>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @tril_level_too_high(%a: !tile.buffer<32x32xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_level' op level 2 must be below the number of 16x16 blocks per row (2)}}
  tile.tril_inverse_level %a, %a {level = 2 : i64} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  return
}

// -----

// block_diagonal: a whole fragment into a shared buffer, square.
func.func @copy_block_diagonal_load(%a: !tile.buffer<64x64xf32, shared>) {
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  // expected-error @below {{'tile.copy' op block_diagonal copies a whole fragment to a shared buffer (no offsets, transpose or masked)}}
  tile.copy %a to %f {block_diagonal = 16 : i64} : !tile.buffer<64x64xf32, shared> to !tile.buffer<64x64xf32, fragment>
  return
}

// -----

func.func @copy_block_diagonal_divides(%s: !tile.buffer<64x64xf32, shared>) {
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  // expected-error @below {{'tile.copy' op block_diagonal = 24 needs a square 2-D tile whose size it divides}}
  tile.copy %f to %s {block_diagonal = 24 : i64} : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @copy_block_diagonal_square(%s: !tile.buffer<64x32xf32, shared>) {
  %f = tile.alloc : !tile.buffer<64x32xf32, fragment>
  // expected-error @below {{'tile.copy' op block_diagonal = 16 needs a square 2-D tile whose size it divides}}
  tile.copy %f to %s {block_diagonal = 16 : i64} : !tile.buffer<64x32xf32, fragment> to !tile.buffer<64x32xf32, shared>
  return
}

// -----

// diagonal: a square fragment's diagonal into a whole 1-D shared buffer.
func.func @copy_diagonal_size(%s: !tile.buffer<32xf32, shared>) {
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  // expected-error @below {{'tile.copy' op diagonal needs a square [N, N] fragment and an [N] destination, not '!tile.buffer<64x64xf32, fragment>' and '!tile.buffer<32xf32, shared>'}}
  tile.copy %f to %s {diagonal} : !tile.buffer<64x64xf32, fragment> to !tile.buffer<32xf32, shared>
  return
}

// -----

func.func @copy_diagonal_square(%s: !tile.buffer<64xf32, shared>) {
  %f = tile.alloc : !tile.buffer<64x32xf32, fragment>
  // expected-error @below {{'tile.copy' op diagonal needs a square [N, N] fragment and an [N] destination}}
  tile.copy %f to %s {diagonal} : !tile.buffer<64x32xf32, fragment> to !tile.buffer<64xf32, shared>
  return
}

// -----

func.func @copy_diagonal_global(%p: !tile.ptr<f32>) {
  %c64 = arith.constant 64 : index
  %c0 = arith.constant 0 : index
  %g = tile.view %p[%c64] : !tile.ptr<f32> -> !tile.buffer<?xf32, global>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  // expected-error @below {{'tile.copy' op diagonal stores a whole fragment to a whole shared buffer (no offsets, transpose, masked, block attribute or l2_hint)}}
  tile.copy %f to %g[%c0] {diagonal} : !tile.buffer<64x64xf32, fragment> to !tile.buffer<?xf32, global>
  return
}

// -----

func.func @copy_diagonal_block(%s: !tile.buffer<64xf32, shared>) {
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  // expected-error @below {{'tile.copy' op diagonal stores a whole fragment to a whole shared buffer}}
  tile.copy %f to %s {diagonal, block_diagonal = 16 : i64} : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64xf32, shared>
  return
}

// -----

// L in registers (a fragment source) only for the unpacked inverse.
func.func @tril_level_regs_packed(%t: !tile.buffer<64x64xf32, shared>) {
  %l = tile.alloc : !tile.buffer<64x64xf32, fragment>
  // expected-error @below {{'tile.tril_inverse_level' op a packed inverse has one shared buffer: source cannot be a fragment}}
  tile.tril_inverse_level %l, %t {level = 1 : i64, packed} : !tile.buffer<64x64xf32, fragment>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @tril_level_regs_shape(%t: !tile.buffer<64x64xf32, shared>) {
  %l = tile.alloc : !tile.buffer<32x32xf32, fragment>
  // expected-error @below {{'tile.tril_inverse_level' op a fragment source must be f32 with dest's shape}}
  tile.tril_inverse_level %l, %t {level = 1 : i64} : !tile.buffer<32x32xf32, fragment>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// Warp w must hold rows 16 w .. 16 w + 15: a 2 x 2 warp grid does not.
func.func @tril_level_regs_layout(%t: !tile.buffer<64x64xf32, shared>) {
  %l = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  // expected-error @below {{'tile.tril_inverse_level' op a fragment source needs the layout #tile.mma<warps = [4, 1]> (warp w holds rows 16 w .. 16 w + 15), got #tile.mma<warps = [2, 2]>}}
  tile.tril_inverse_level %l, %t {level = 1 : i64} : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// The destination stays a shared buffer.
func.func @tril_level_regs_dest(%t: !tile.buffer<64x64xf32, fragment>) {
  %l = tile.alloc : !tile.buffer<64x64xf32, fragment>
  // expected-error @below {{'tile.tril_inverse_level' op operands must be square f32 shared buffers (row-major, #tile.swizzle or #tile.padded)}}
  tile.tril_inverse_level %l, %t {level = 1 : i64} : !tile.buffer<64x64xf32, fragment>, !tile.buffer<64x64xf32, fragment>
  return
}

// -----

func.func @tril_level_zero(%a: !tile.buffer<32x32xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_level' op attribute 'level' failed to satisfy constraint: 64-bit signless integer attribute whose value is positive}}
  tile.tril_inverse_level %a, %a {level = 0 : i64} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  return
}

// -----

func.func @tril_level_f16(%a: !tile.buffer<32x32xf16, shared>) {
  // expected-error @below {{'tile.tril_inverse_level' op operands must be square f32 shared buffers (row-major, #tile.swizzle or #tile.padded)}}
  tile.tril_inverse_level %a, %a {level = 1 : i64} : !tile.buffer<32x32xf16, shared>, !tile.buffer<32x32xf16, shared>
  return
}

// -----

func.func @map_indexed(%a: !tile.buffer<64x64xf32, fragment>) {
  // expected-error @below {{indexed body takes 2 arguments, expected 2 indices and one per input (1)}}
  tile.map indexed ins(%a : !tile.buffer<64x64xf32, fragment>) outs(%a : !tile.buffer<64x64xf32, fragment>) {
  ^bb0(%i: index, %x: f32):
    tile.yield %x : f32
  }
  return
}

// -----

func.func @map_index_type(%a: !tile.buffer<64xf32, fragment>) {
  // expected-error @below {{index argument #0 must be 'index'}}
  tile.map indexed outs(%a : !tile.buffer<64xf32, fragment>) {
  ^bb0(%i: i32):
    %c = arith.constant 1.0 : f32
    tile.yield %c : f32
  }
  return
}

// -----

func.func @program_id_dim() {
  // expected-error @below {{expected 'x', 'y' or 'z', got 'w'}}
  %x = tile.program_id w
  return
}

// -----

func.func @map_no_outputs() {
  // expected-error @below {{needs at least one output}}
  "tile.map"() <{operandSegmentSizes = array<i32: 0, 0>}> ({
    "tile.yield"() : () -> ()
  }) : () -> ()
  return
}

// -----

func.func @for_arg(%n: index) {
  // expected-error @below {{body must take exactly one index argument}}
  "tile.for"(%n, %n, %n) <{num_stages = 1 : i64}> ({
  ^bb0(%i: i32):
    "tile.yield"() : () -> ()
  }) : (index, index, index) -> ()
  return
}

// -----

func.func @for_yield(%n: index) {
  // expected-error @below {{body must not yield values}}
  "tile.for"(%n, %n, %n) <{num_stages = 1 : i64}> ({
  ^bb0(%i: index):
    "tile.yield"(%i) : (index) -> ()
  }) : (index, index, index) -> ()
  return
}

// -----

func.func @load_type(%s: !tile.buffer<64xf32, shared>, %i: index) {
  // expected-error @below {{failed to verify that result is the element type of the source}}
  %x = "tile.load"(%s, %i) : (!tile.buffer<64xf32, shared>, index) -> f16
  return
}

// -----

// expected-error @below {{mma layout warp counts must be positive}}
func.func @mma_zero(%b: !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [0, 2]>>) { return }

// -----

// expected-error @below {{a swizzled shared buffer must have rank >= 2}}
func.func @swizzle_rank(%b: !tile.buffer<64xf16, shared, #tile.swizzle<128>>) { return }

// -----

// expected-error @below {{an mma fragment layout needs a 2-D buffer}}
func.func @mma_rank(%b: !tile.buffer<64xf32, fragment, #tile.mma<warps = [1, 1]>>) { return }

// -----

// expected-error @below {{unknown tile argument attribute 'tile.foo'}}
func.func @arg_attr(%a: i32 {tile.foo = 1 : i64}) { return }

// -----

// expected-error @below {{'tile.mma_engine' must be "mma.sync" or "wgmma"}}
func.func @engine() attributes {tile.mma_engine = "tcgen05"} { return }

// -----

// expected-error @below {{a wgmma layout needs a [4k, n] warp grid (whole warpgroups along M), got [2, 2]}}
func.func @wgmma_grid(%b: !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2], engine = wgmma>>) { return }

// -----

// expected-error @below {{a wgmma fragment has 16 rows per warp (one m64 block per warpgroup): 128x64 over a 4x2 warp grid}}
func.func @wgmma_rows(%b: !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [4, 2], engine = wgmma>>) { return }

// -----

// Warpgroups split N: each warpgroup's m64nN tile needs N a multiple of 8.
// expected-error @below {{mma fragment 64x24 is not a multiple of 16x8 atoms over a 4x2 warp grid}}
func.func @wgmma_cols(%b: !tile.buffer<64x24xf32, fragment, #tile.mma<warps = [4, 2], engine = wgmma>>) { return }

// -----

// An i1 1 would read as -1 in the passes (fuzzer find): kernel integers
// are signless integers of at least 8 bits.
// expected-error @below {{'tile.num_warps' must be an integer in [1, 32]}}
func.func @warps_i1() attributes {tile.kernel, tile.num_warps = 1 : i1} { return }

// -----

func.func @copy_block_lower_offsets(%s: !tile.buffer<64x64xf32, shared>) {
  %c0 = arith.constant 0 : index
  %f = tile.alloc : !tile.buffer<16x64xf32, fragment>
  // expected-error @below {{'tile.copy' op block_lower copies a whole fragment to or from a shared buffer (no offsets or masked), stores one to global memory or loads a global tile into a whole shared buffer}}
  tile.copy %s[%c0, %c0] to %f {block_lower = 16 : i64} : !tile.buffer<64x64xf32, shared> to !tile.buffer<16x64xf32, fragment>
  return
}

// -----

func.func @copy_block_lower_global(%g: !tile.buffer<64x64xf32, global>) {
  %c0 = arith.constant 0 : index
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  // expected-error @below {{'tile.copy' op block_lower copies a whole fragment to or from a shared buffer (no offsets or masked), stores one to global memory or loads a global tile into a whole shared buffer}}
  tile.copy %g[%c0, %c0] to %f {block_lower = 16 : i64} : !tile.buffer<64x64xf32, global> to !tile.buffer<64x64xf32, fragment>
  return
}

// -----

// A fragment stored to global memory keeps its blocks on and below the
// diagonal only, but not transposed.
func.func @copy_block_lower_global_transposed(%g: !tile.buffer<64x64xf16, global>) {
  %c0 = arith.constant 0 : index
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  // expected-error @below {{'tile.copy' op block_lower stores a fragment to global memory untransposed}}
  tile.copy %f to %g[%c0, %c0] {block_lower = 32 : i64, transpose} : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf16, global>
  return
}

// -----

// A global tile loaded into a shared buffer with block_lower: square, the
// block dividing its size.
func.func @copy_block_lower_global_load_square(%g: !tile.buffer<?x64xf16, global>) {
  %c0 = arith.constant 0 : index
  %s = tile.alloc : !tile.buffer<32x64xf16, shared>
  // expected-error @below {{'tile.copy' op block_lower = 32 needs a square 2-D tile whose size it divides}}
  tile.copy %g[%c0, %c0] to %s {block_lower = 32 : i64} : !tile.buffer<?x64xf16, global> to !tile.buffer<32x64xf16, shared>
  return
}

// -----

// gemm b_block_lower: B transposed and square, S a multiple of 16 that
// divides N (the lowering also needs the wgmma engine:
// convert-tile-to-nvvm.mlir).
func.func @gemm_block_lower_not_transposed() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared>
  %b = tile.alloc : !tile.buffer<64x64xf16, shared>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment>
  // expected-error @below {{'tile.gemm' op b_block_lower needs transpose_b and a square B, got B 64x64}}
  tile.gemm %a, %b, %c {b_block_lower = 32 : i64} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  return
}

// -----

func.func @gemm_block_lower_size() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma"} {
  %a = tile.alloc : !tile.buffer<64x64xf16, shared>
  %b = tile.alloc : !tile.buffer<64x64xf16, shared>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment>
  // expected-error @below {{'tile.gemm' op b_block_lower = 24 must be a multiple of 16 dividing N = 64}}
  tile.gemm %a, %b, %c {transpose_b, b_block_lower = 24 : i64} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  return
}

// -----

func.func @copy_block_lower_divides(%s: !tile.buffer<64x64xf32, shared>) {
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  // expected-error @below {{'tile.copy' op block_lower = 24 needs a square 2-D tile whose size it divides}}
  tile.copy %s to %f {block_lower = 24 : i64} : !tile.buffer<64x64xf32, shared> to !tile.buffer<64x64xf32, fragment>
  return
}

// -----

func.func @copy_block_lower_and_diagonal(%s: !tile.buffer<64x64xf32, shared>) {
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  // expected-error @below {{'tile.copy' op block_lower and block_diagonal exclude each other}}
  tile.copy %f to %s {block_lower = 16 : i64, block_diagonal = 16 : i64} : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @tril_lower_only_packed(%a: !tile.buffer<64x64xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse' op lower_only applies to a separate destination, not to a packed inverse}}
  tile.tril_inverse %a, %a {packed, lower_only} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @tril_diag_lower_only_packed(%a: !tile.buffer<32x32xf32, shared>) {
  // expected-error @below {{'tile.tril_inverse_diag' op lower_only applies to a separate destination, not to a packed inverse}}
  tile.tril_inverse_diag %a, %a {packed, lower_only} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  return
}

// -----

func.func @scan_rank(%a: !tile.buffer<8x8xf32, fragment>) {
  // expected-error @below {{scans a 1-D fragment into one of the same shape, got 8x8 -> 8x8}}
  tile.scan add %a, %a : !tile.buffer<8x8xf32, fragment> -> !tile.buffer<8x8xf32, fragment>
  return
}

// -----

func.func @scan_shape(%a: !tile.buffer<64xf32, fragment>, %b: !tile.buffer<32xf32, fragment>) {
  // expected-error @below {{scans a 1-D fragment into one of the same shape, got 64 -> 32}}
  tile.scan add %a, %b : !tile.buffer<64xf32, fragment> -> !tile.buffer<32xf32, fragment>
  return
}

// -----

func.func @scan_type(%a: !tile.buffer<64xf16, fragment>) {
  // expected-error @below {{scans are on f32 fragments}}
  tile.scan add %a, %a : !tile.buffer<64xf16, fragment> -> !tile.buffer<64xf16, fragment>
  return
}

// -----

func.func @scan_shared(%a: !tile.buffer<64xf32, shared>) {
  // expected-error @below {{source and destination must be fragments}}
  tile.scan add %a, %a : !tile.buffer<64xf32, shared> -> !tile.buffer<64xf32, shared>
  return
}

// -----

func.func @scan_layouts(%a: !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>>, %b: !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>) {
  // expected-error @below {{source and destination must have one layout}}
  tile.scan add %a, %b : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>> -> !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>
  return
}

// -----

func.func @scan_wide(%a: !tile.buffer<128xf32, fragment, #tile.blocked<vector = 2>>) {
  // expected-error @below {{needs a #tile.blocked layout whose vectors fit one warp (vector dividing 128 and 32 x vector >= 128), got #tile.blocked<vector = 2>}}
  tile.scan add %a, %a : !tile.buffer<128xf32, fragment, #tile.blocked<vector = 2>> -> !tile.buffer<128xf32, fragment, #tile.blocked<vector = 2>>
  return
}

// -----

func.func @any_shared(%s: !tile.buffer<64xf32, shared>) -> i1 {
  // expected-error @below {{'tile.any' op source must be a fragment}}
  %r = tile.any %s : !tile.buffer<64xf32, shared> {
  ^bb0(%i: index, %x: f32):
    %t = arith.constant true
    tile.yield %t : i1
  }
  return %r : i1
}

// -----

func.func @warp_any_shared(%s: !tile.buffer<64xf32, shared>) -> i1 {
  // expected-error @below {{'tile.warp_any' op source must be a fragment}}
  %r = tile.warp_any %s : !tile.buffer<64xf32, shared> {
  ^bb0(%i: index, %x: f32):
    %t = arith.constant true
    tile.yield %t : i1
  }
  return %r : i1
}

// -----

func.func @warp_any_in_producer(%f: !tile.buffer<64xf32, fragment>) {
  tile.producer {
    // expected-error @below {{'tile.warp_any' op is a warp vote inside a tile.producer region (one thread's work): the other lanes never reach it}}
    %v = tile.warp_any %f : !tile.buffer<64xf32, fragment> {
    ^bb0(%i: index, %x: f32):
      %t = arith.constant true
      tile.yield %t : i1
    }
  }
  return
}

// -----

func.func @warp_any_yield(%f: !tile.buffer<64xf32, fragment>) -> i1 {
  // expected-error @below {{'tile.warp_any' op body must yield one i1}}
  %r = tile.warp_any %f : !tile.buffer<64xf32, fragment> {
  ^bb0(%i: index, %x: f32):
    tile.yield %x : f32
  }
  return %r : i1
}

// -----

func.func @any_arity(%f: !tile.buffer<64x64xf32, fragment>) -> i1 {
  // expected-error @below {{'tile.any' op body takes 2 arguments, expected 2 indices and the element}}
  %r = tile.any %f : !tile.buffer<64x64xf32, fragment> {
  ^bb0(%i: index, %x: f32):
    %t = arith.constant true
    tile.yield %t : i1
  }
  return %r : i1
}

// -----

func.func @any_element(%f: !tile.buffer<64xf32, fragment>) -> i1 {
  // expected-error @below {{'tile.any' op body argument type 'f16' does not match the source element type 'f32'}}
  %r = tile.any %f : !tile.buffer<64xf32, fragment> {
  ^bb0(%i: index, %x: f16):
    %t = arith.constant true
    tile.yield %t : i1
  }
  return %r : i1
}

// -----

func.func @any_yield(%f: !tile.buffer<64xf32, fragment>) -> i1 {
  // expected-error @below {{'tile.any' op body must yield one i1}}
  %r = tile.any %f : !tile.buffer<64xf32, fragment> {
  ^bb0(%i: index, %x: f32):
    tile.yield %x : f32
  }
  return %r : i1
}
