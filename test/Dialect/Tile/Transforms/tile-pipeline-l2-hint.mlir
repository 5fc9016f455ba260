// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-pipeline))' -verify-diagnostics | FileCheck %s

// tile-pipeline and a copy's L2 eviction priority (tile.copy {l2_hint}):
// a TMA ring keeps it on every load (tile-pipeline-tma.mlir,
// @l2_hint_ring); a cp.async ring has no hinted form (cp.async with a cache
// hint trapped on the H100), so the pass says that it drops it, once per
// copy, and the ring's async copies carry none.

// CHECK-LABEL: func.func @cp_async_ring
// CHECK:       tile.async_copy %{{.*}} to %{{.*}} : !tile.buffer<?x?xf16, global> to !tile.buffer<128x64xf16, shared>
// CHECK-NOT:   l2_hint
// CHECK:       return
func.func @cp_async_ring(%pa: !tile.ptr<f16>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %bx = tile.program_id x
  %sA = tile.alloc : !tile.buffer<128x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<128x64xf32, fragment>
  tile.for %k = %c0 to %m step %c64 stages 2 {
    // expected-remark @below {{the cp.async ring drops the copy's l2_hint}}
    tile.copy %A[%bx, %k] to %sA {l2_hint = #tile.l2_hint<evict_first>} : !tile.buffer<?x?xf16, global> to !tile.buffer<128x64xf16, shared>
    tile.copy %sA to %acc : !tile.buffer<128x64xf16, shared> to !tile.buffer<128x64xf32, fragment>
  }
  return
}
