// RUN: gdn-opt %s -split-input-file -verify-diagnostics

// Hardware limits and overflow-checked sizes, enforced by the verifiers
// before any pass expands anything (fuzzing regressions: these crashed,
// hung or compiled to wrong code).

// A 2^60-warp grid made the type verifier divide by zero (16 * 2^60 wraps).
// expected-error @below {{mma layout warp grid 1152921504606846976x1 has more than the 32 warps of a block}}
func.func private @huge_grid(!tile.buffer<64x64xf32, fragment, #tile.mma<warps = [1152921504606846976, 1]>>)

// -----

// expected-error @below {{mma layout warp grid 8x8 has more than the 32 warps of a block}}
func.func private @grid_product(!tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 8]>>)

// -----

// expected-error @below {{blocked layout vector width must be at most 16, got 1024}}
func.func private @wide_vector(!tile.buffer<64x1024xf32, fragment, #tile.blocked<vector = 1024>>)

// -----

// 2^32 x 2^32 f32 has 2^66 bytes: it used to be planned as 0 bytes.
// expected-error @below {{tile buffer 4294967296x4294967296xf32 has more bytes than fit in int64}}
func.func private @wraps(!tile.buffer<4294967296x4294967296xf32, shared>)

// -----

// expected-error @below {{tile buffer ?x4611686018427387904xf32 has more bytes than fit in int64}}
func.func private @wraps_global(!tile.buffer<?x4611686018427387904xf32, global>)

// -----

// expected-error @below {{shared buffer 512x256xf16 needs 262144 bytes, more than the 232448 bytes of shared memory of a block}}
func.func private @too_much_shared(!tile.buffer<512x256xf16, shared>)

// -----

func.func @frag_regs() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  // 1024 x 1024 f32 over 128 threads: 8192 registers per thread.
  // expected-error @below {{'tile.alloc' op fragment 1024x1024xf32 needs an estimated 8192 registers per thread with 128 threads, more than the 255 a thread may use}}
  %a = tile.alloc : !tile.buffer<1024x1024xf32, fragment>
  return
}

// -----

func.func @frag_regs_big() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  // expected-error @below {{'tile.alloc' op fragment 2048x2048xf32 needs an estimated 32768 registers per thread with 128 threads}}
  %a = tile.alloc : !tile.buffer<2048x2048xf32, fragment>
  return
}

// -----

// Outside a kernel the largest block is assumed (the smallest share).
func.func private @frag_regs_helper() {
  // expected-error @below {{'tile.alloc' op fragment 4096x4096xf32 needs an estimated 16384 registers per thread with 1024 threads}}
  %a = tile.alloc : !tile.buffer<4096x4096xf32, fragment>
  return
}

// -----

func.func @frag_regs_layout() attributes {tile.kernel, tile.num_warps = 1 : i64} {
  // expected-error @below {{'tile.alloc' op fragment 128x128xf32 needs an estimated 512 registers per thread with 32 threads}}
  %a = tile.alloc : !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [1, 1]>>
  return
}

// -----

// A hand-written layout over 16 warps in a 4-warp kernel computed a quarter
// of the tile.
func.func @mma_grid_mismatch() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  // expected-error @below {{'tile.alloc' op mma layout over a 4x4 warp grid (16 warps) does not match the 4 warps of the kernel}}
  %a = tile.alloc : !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [4, 4]>>
  return
}

// -----

func.func @mma_grid_fewer() attributes {tile.kernel, tile.num_warps = 8 : i64} {
  // expected-error @below {{'tile.alloc' op mma layout over a 2x2 warp grid (4 warps) does not match the 8 warps of the kernel}}
  %a = tile.alloc : !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [2, 2]>>
  return
}

// -----

func.func @offset_beyond() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  // expected-error @below {{'tile.alloc' op offset 9223372036854775000 places the buffer beyond the 232448 bytes of shared memory of a block}}
  %a = tile.alloc {offset = 9223372036854775000 : i64} : !tile.buffer<64x64xf16, shared>
  return
}

// -----

// expected-error @below {{'tile.num_warps' must be an integer in [1, 32] (at most 1024 threads per block)}}
func.func @warps_i128() attributes {tile.kernel, tile.num_warps = 170141183460469231731687303715884105727 : i128} {
  return
}

// -----

// expected-error @below {{'tile.max_registers' must be an integer in [24, 255]}}
func.func @regs_i128() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.max_registers = 18446744073709551744 : i128} {
  return
}

// -----

// 2^31 stages hung expanding the prologue.
func.func @stages(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @below {{'tile.for' op num_stages 2147483648 exceeds the limit of 16 pipeline stages}}
  tile.for %i = %c0 to %n step %c1 stages 2147483648 {
  }
  return
}

// -----

func.func @step_zero(%n: index) {
  %c0 = arith.constant 0 : index
  // expected-error @below {{'tile.for' op step must be positive, got 0}}
  tile.for %i = %c0 to %n step %c0 stages 1 {
  }
  return
}

// -----

func.func @step_negative(%n: index) {
  %c0 = arith.constant 0 : index
  %cm = arith.constant -64 : index
  // expected-error @below {{'tile.for' op step must be positive, got -64}}
  tile.for %i = %c0 to %n step %cm stages 2 {
  }
  return
}

// -----

func.func @pending() {
  // pending = INT64_MAX emitted cp.async.wait_group -1.
  // expected-error @below {{'tile.async_wait' op pending = 9223372036854775807 exceeds the limit of 16 copy groups in flight}}
  tile.async_wait {pending = 9223372036854775807 : i64}
  return
}

// -----

func.func @slice_oob() {
  %c3 = arith.constant 3 : index
  %s = tile.alloc : !tile.buffer<3x64x64xf16, shared>
  // expected-error @below {{'tile.slice' op index #0 is 3, out of bounds for dimension 0 of size 3}}
  %t = tile.slice %s[%c3] : !tile.buffer<3x64x64xf16, shared> -> !tile.buffer<64x64xf16, shared>
  return
}

// -----

func.func @slice_negative() {
  %cm = arith.constant -1 : index
  %s = tile.alloc : !tile.buffer<3x64x64xf16, shared>
  // expected-error @below {{'tile.slice' op index #0 is -1, out of bounds (negative)}}
  %t = tile.slice %s[%cm] : !tile.buffer<3x64x64xf16, shared> -> !tile.buffer<64x64xf16, shared>
  return
}

// -----

func.func @load_oob() {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %s = tile.alloc : !tile.buffer<64x32xf32, shared>
  // expected-error @below {{'tile.load' op index #1 is 64, out of bounds for dimension 1 of size 32}}
  %v = tile.load %s[%c0, %c64] : !tile.buffer<64x32xf32, shared>
  return
}

// -----

func.func @load_negative(%p: !tile.ptr<f32>, %n: index) {
  %cm = arith.constant -5 : index
  %g = tile.view %p[%n] : !tile.ptr<f32> -> !tile.buffer<?xf32, global>
  // expected-error @below {{'tile.load' op index #0 is -5, out of bounds (negative)}}
  %v = tile.load %g[%cm] : !tile.buffer<?xf32, global>
  return
}

// -----

func.func @copy_oob(%p: !tile.ptr<f16>) {
  %c0 = arith.constant 0 : index
  %c96 = arith.constant 96 : index
  %g = tile.view %p[] : !tile.ptr<f16> -> !tile.buffer<128x64xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  // expected-error @below {{'tile.copy' op offset #0 is 96: the 64-element tile does not fit in dimension 0 of size 128 (use 'masked')}}
  tile.copy %g[%c96, %c0] to %s : !tile.buffer<128x64xf16, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

func.func @copy_negative(%p: !tile.ptr<f16>, %n: index) {
  %c0 = arith.constant 0 : index
  %cm = arith.constant -64 : index
  %g = tile.view %p[%n] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  // expected-error @below {{'tile.copy' op offset #0 is -64, out of bounds (negative)}}
  tile.copy %g[%cm, %c0] to %s {masked} : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

// The kernel name becomes a PTX symbol and a file name.
// expected-error @below {{tile kernel name 'a b' is not a PTX identifier ([A-Za-z_$][A-Za-z0-9_$]*)}}
func.func @"a b"() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  return
}

// -----

// expected-error @below {{'tile.name' '../p' is not an identifier ([A-Za-z_][A-Za-z0-9_]*)}}
func.func @bad_param(%p: !tile.ptr<f16> {tile.name = "../p"}) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  return
}

// -----

// expected-error @below {{tile kernel parameter name 'A' is used twice}}
func.func @dup_param(%p: !tile.ptr<f16> {tile.name = "A"}, %q: !tile.ptr<f16> {tile.name = "A"}) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  return
}

// -----

// A newline in a meta value injected lines into the launch manifest.
// expected-error @below {{'tile.meta' entry 'op' contains a control character or '#', which a manifest line cannot hold}}
func.func @meta_newline() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.meta = {op = "gemm\0Ashared_bytes = 0"}} {
  return
}

// -----

// expected-error @below {{'tile.meta' entry 'op' contains a control character or '#', which a manifest line cannot hold}}
func.func @meta_hash() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.meta = {op = "gemm # comment"}} {
  return
}

// -----

// expected-error @below {{'tile.meta' key 'a = b' is not a manifest key ([A-Za-z_][A-Za-z0-9_.]*)}}
func.func @meta_key() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.meta = {"a = b" = 1 : i64}} {
  return
}

// -----

// expected-error @below {{'tile.meta' entry 'x' must be an integer, float, boolean, string or array of these}}
func.func @meta_dict() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.meta = {x = {y = 1}}} {
  return
}

// -----

// expected-error @below {{'tile.meta' entry 'x' nests arrays}}
func.func @meta_nested() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.meta = {x = [[1, 2]]}} {
  return
}

// -----

// expected-error @below {{'tile.meta' entry 'x' is an integer that does not fit in 64 bits}}
func.func @meta_i128() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.meta = {x = 170141183460469231731687303715884105727 : i128}} {
  return
}

// -----

// Values of the shape TMA descriptors will use are fine.
func.func @meta_ok() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.meta = {tm.a = "base=A; dims=K, M; strides=K; box=64, 128; swizzle=128; l2=256; fill=zero", n = [1, 2], f = 0.5 : f32, b = true}} {
  return
}

// -----

// tile.requires_multiple (set by tile-assign-layouts, written to the
// manifest): powers of two on integer arguments named as in the manifest.

// expected-error @below {{'tile.requires_multiple': K must be a positive power of two}}
func.func @req_value(%k: i32 {tile.name = "K"}) attributes {tile.requires_multiple = {K = 6 : i64}} { return }

// -----

// expected-error @below {{'tile.requires_multiple': K names no integer argument (tile.name or argN)}}
func.func @req_name(%k: i32 {tile.name = "N"}) attributes {tile.requires_multiple = {K = 8 : i64}} { return }

// -----

// expected-error @below {{'tile.requires_multiple': arg0 names no integer argument (tile.name or argN)}}
func.func @req_type(%p: !tile.ptr<f16>) attributes {tile.requires_multiple = {arg0 = 8 : i64}} { return }

// -----

// expected-error @below {{'tile.requires_multiple' must be a dictionary on a function}}
func.func @req_dict(%k: i32) attributes {tile.requires_multiple = 8 : i64} { return }

// -----

// Unnamed arguments are argN.
func.func @req_ok(%p: !tile.ptr<f16>, %k: i32) attributes {tile.requires_multiple = {arg1 = 8 : i64}} { return }

// -----

// expected-error @below {{'tile.overlap_tril_inverse' must be 0, 1 or 2}}
func.func @overlap_mode_3() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.overlap_tril_inverse = 3 : i64} {
  return
}

// -----

// expected-error @below {{'tile.overlap_tril_inverse' must be 0, 1 or 2}}
func.func @overlap_mode_string() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.overlap_tril_inverse = "on"} {
  return
}
