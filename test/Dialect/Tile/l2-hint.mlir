// RUN: gdn-opt %s -split-input-file -verify-diagnostics | FileCheck %s
// RUN: gdn-opt %s -split-input-file -verify-diagnostics -mlir-print-op-generic | gdn-opt -split-input-file | FileCheck %s

// The L2 eviction priority of a copy's global accesses (tile.copy and
// tile.tma_load {l2_hint}): it round-trips in the pretty and the generic
// form, and a copy without a global endpoint is rejected.

// CHECK-LABEL: func.func @hints
// CHECK:         tile.copy %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] {l2_hint = #tile.l2_hint<evict_last>, masked} : !tile.buffer<64x64xf32, fragment> to !tile.buffer<?x64xf16, global>
// CHECK:         tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}} {l2_hint = #tile.l2_hint<evict_first>} : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
// CHECK:         tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}} {l2_hint = #tile.l2_hint<evict_normal>} : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf32, fragment>
// CHECK:         tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}}, %{{.*}}[%{{.*}}] {l2_hint = #tile.l2_hint<evict_first>} : !tile.tensormap<64x64xf16, swizzle = 128>
func.func @hints(%g: !tile.buffer<?x64xf16, global>, %f: !tile.buffer<64x64xf32, fragment>,
                 %s: !tile.buffer<64x64xf16, shared>,
                 %map: !tile.tensormap<64x64xf16, swizzle = 128>,
                 %st: !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>,
                 %bar: !tile.buffer<2xi64, shared>) {
  %c0 = arith.constant 0 : index
  tile.copy %f to %g[%c0, %c0] {masked, l2_hint = #tile.l2_hint<evict_last>} : !tile.buffer<64x64xf32, fragment> to !tile.buffer<?x64xf16, global>
  tile.copy %g[%c0, %c0] to %s {l2_hint = #tile.l2_hint<evict_first>} : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared>
  tile.copy %g[%c0, %c0] to %f {l2_hint = #tile.l2_hint<evict_normal>} : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf32, fragment>
  tile.tma_load %map[%c0, %c0] to %st, %bar[%c0] {l2_hint = #tile.l2_hint<evict_first>} : !tile.tensormap<64x64xf16, swizzle = 128>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<2xi64, shared>
  return
}

// -----

func.func @hint_without_global(%f: !tile.buffer<64x64xf32, fragment>, %s: !tile.buffer<64x64xf32, shared>) {
  // expected-error @+1 {{l2_hint needs a global source or destination}}
  tile.copy %f to %s {l2_hint = #tile.l2_hint<evict_first>} : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, shared>
  return
}

// -----

func.func @unknown_hint(%f: !tile.buffer<64x64xf32, fragment>, %g: !tile.buffer<?x64xf32, global>) {
  %c0 = arith.constant 0 : index
  // expected-error @+2 {{expected ::mlir::gdn::tile::L2Hint to be one of: evict_normal, evict_first, evict_last}}
  // expected-error @+1 {{failed to parse Tile_L2HintAttr parameter 'value'}}
  tile.copy %f to %g[%c0, %c0] {l2_hint = #tile.l2_hint<evict_soon>} : !tile.buffer<64x64xf32, fragment> to !tile.buffer<?x64xf32, global>
  return
}
