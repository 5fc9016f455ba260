// RUN: gdn-opt %s -split-input-file --tile-outline-kernels --convert-tile-to-nvvm | FileCheck %s --implicit-check-not=llvm.store

// The L2 eviction priority of a copy (tile.copy / tile.tma_load {l2_hint})
// in NVVM: one pure createpolicy (the whole range: fraction 1) per lowered
// op, and its 64-bit policy as the cache hint of every global access: the
// TMA op's l2_cache_hint operand, st.global.L2::cache_hint for stores (no
// llvm.store anywhere in this file: --implicit-check-not).

// A TMA load of three boxes (block_lower = 32): the same policy on each.
// CHECK-LABEL: llvm.func @tma_load_l2_hint
// CHECK:         %[[POL:.*]] = llvm.inline_asm asm_dialect = att "createpolicy.fractional.L2::evict_first.b64 $0, 1.0;", "=l"  : () -> i64
// CHECK-COUNT-3: nvvm.cp.async.bulk.tensor.shared.cluster.global %{{.*}}, %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}, %{{.*}}] l2_cache_hint = %[[POL]] :
// CHECK-NOT:     nvvm.cp.async.bulk.tensor
// CHECK-NOT:     createpolicy
// CHECK:         llvm.return
module @tma {
  func.func @tma_load_l2_hint(%map: !tile.tensormap<32x1x32xf16, swizzle = 64> {tile.name = "Ag_tma", tile.tensor_map = {base = "Ag", dims = ["T", "H", "64"], strides = ["H*64", "64"]}})
      attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 8200 : i64} {
    %c0 = arith.constant 0 : index
    %full = tile.alloc {offset = 8192 : i64} : !tile.buffer<1xi64, shared>
    %s = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
    tile.producer {
      tile.mbarrier_arrive %full[%c0] {expect_tx = 6144} : !tile.buffer<1xi64, shared>
      tile.tma_load %map[%c0, %c0, %c0] to %s, %full[%c0] {block_lower = 32 : i64, l2_hint = #tile.l2_hint<evict_first>} : !tile.tensormap<32x1x32xf16, swizzle = 64>, !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>, !tile.buffer<1xi64, shared>
    }
    return
  }
}

// -----

// The GDN prep's Ag store (f32 fragment, runs of 4, f16 in memory, masked,
// block_lower = 32): each run is one 64-bit word stored with the policy,
// under the run's guards.
// CHECK-LABEL: llvm.func @store_b64
// CHECK:       %[[POL:.*]] = llvm.inline_asm asm_dialect = att "createpolicy.fractional.L2::evict_last.b64 $0, 1.0;", "=l"  : () -> i64
// CHECK:       llvm.cond_br
// CHECK:       %[[W:.*]] = llvm.bitcast %{{.*}} : vector<4xf16> to i64
// CHECK-NEXT:  llvm.inline_asm has_side_effects asm_dialect = att "st.global.L2::cache_hint.b64 [$0], $1, $2;", "l,l,l,~{memory}" %{{.*}}, %[[W]], %[[POL]] : (!llvm.ptr<1>, i64, i64) -> !llvm.void
// CHECK-COUNT-7: st.global.L2::cache_hint.b64
// CHECK-NOT:   st.global
// CHECK:       llvm.return
func.func @store_b64(%p: !tile.ptr<f16>, %n: index) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %g = tile.view %p[%n] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.copy %f to %g[%c0, %c0] {masked, block_lower = 32 : i64, l2_hint = #tile.l2_hint<evict_last>} : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<?x64xf16, global>
  return
}

// -----

// Runs of 16 bytes (4 f32): one st.global.v2.b64 each.
// CHECK-LABEL: llvm.func @store_v2b64
// CHECK:       createpolicy.fractional.L2::evict_first
// CHECK:       llvm.bitcast %{{.*}} : vector<4xf32> to vector<2xi64>
// CHECK:       llvm.inline_asm has_side_effects asm_dialect = att "st.global.L2::cache_hint.v2.b64 [$0], {$1, $2}, $3;", "l,l,l,l,~{memory}"
// CHECK:       llvm.return
func.func @store_v2b64(%p: !tile.ptr<f32>, %n: index) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %g = tile.view %p[%n] : !tile.ptr<f32> -> !tile.buffer<?x64xf32, global>
  %f = tile.alloc : !tile.buffer<16x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.copy %f to %g[%c0, %c0] {l2_hint = #tile.l2_hint<evict_first>} : !tile.buffer<16x64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<?x64xf32, global>
  return
}

// -----

// Runs of 32 bytes (8 f32 from an f16-vectored fragment): two 16-byte
// pieces, the second 16 bytes further.
// CHECK-LABEL: llvm.func @store_32_bytes
// CHECK:       llvm.bitcast %{{.*}} : vector<8xf32> to vector<4xi64>
// CHECK:       llvm.inline_asm has_side_effects asm_dialect = att "st.global.L2::cache_hint.v2.b64 [$0], {$1, $2}, $3;"
// CHECK:       %[[C16:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT:  %[[P16:.*]] = llvm.getelementptr %{{.*}}[%[[C16]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i8
// CHECK:       llvm.inline_asm has_side_effects asm_dialect = att "st.global.L2::cache_hint.v2.b64 [$0], {$1, $2}, $3;", "l,l,l,l,~{memory}" %[[P16]]
// CHECK:       llvm.return
func.func @store_32_bytes(%p: !tile.ptr<f32>, %n: index) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %g = tile.view %p[%n] : !tile.ptr<f32> -> !tile.buffer<?x64xf32, global>
  %f = tile.alloc : !tile.buffer<16x64xf16, fragment, #tile.blocked<vector = 8>>
  tile.copy %f to %g[%c0, %c0] {l2_hint = #tile.l2_hint<evict_first>} : !tile.buffer<16x64xf16, fragment, #tile.blocked<vector = 8>> to !tile.buffer<?x64xf32, global>
  return
}

// -----

// An mma accumulator's pairs stored as f16: 4 bytes, st.global.b32 ("r").
// CHECK-LABEL: llvm.func @store_b32
// CHECK:       %[[W:.*]] = llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK-NEXT:  llvm.inline_asm has_side_effects asm_dialect = att "st.global.L2::cache_hint.b32 [$0], $1, $2;", "l,r,l,~{memory}" %{{.*}}, %[[W]], %{{.*}} : (!llvm.ptr<1>, i32, i64) -> !llvm.void
// CHECK:       llvm.return
func.func @store_b32(%p: !tile.ptr<f16>, %n: index) attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %g = tile.view %p[%n] : !tile.ptr<f16> -> !tile.buffer<?x8xf16, global>
  %f = tile.alloc : !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>>
  tile.copy %f to %g[%c0, %c0] {l2_hint = #tile.l2_hint<evict_last>} : !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>> to !tile.buffer<?x8xf16, global>
  return
}

// -----

// One f16 at a time: 2 bytes, st.global.b16 ("h").
// CHECK-LABEL: llvm.func @store_b16
// CHECK:       %[[W:.*]] = llvm.bitcast %{{.*}} : f16 to i16
// CHECK-NEXT:  llvm.inline_asm has_side_effects asm_dialect = att "st.global.L2::cache_hint.b16 [$0], $1, $2;", "l,h,l,~{memory}" %{{.*}}, %[[W]], %{{.*}} : (!llvm.ptr<1>, i16, i64) -> !llvm.void
// CHECK:       llvm.return
func.func @store_b16(%p: !tile.ptr<f16>, %n: index) attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %g = tile.view %p[%n] : !tile.ptr<f16> -> !tile.buffer<?x32xf16, global>
  %f = tile.alloc : !tile.buffer<1x32xf32, fragment, #tile.blocked<vector = 1>>
  tile.copy %f to %g[%c0, %c0] {l2_hint = #tile.l2_hint<evict_normal>} : !tile.buffer<1x32xf32, fragment, #tile.blocked<vector = 1>> to !tile.buffer<?x32xf16, global>
  return
}
