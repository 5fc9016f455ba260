// RUN: gdn-opt %s -split-input-file | FileCheck %s
// RUN: gdn-opt %s -split-input-file -mlir-print-op-generic | gdn-opt -split-input-file | FileCheck %s

// tile.prefetch round-trips in both forms.

// CHECK-LABEL: func.func @prefetch
// CHECK:         tile.prefetch %{{.*}}[%{{.*}}, %{{.*}}] {shape = array<i64: 64, 128>} : !tile.buffer<?x128xf16, global>
// CHECK:         tile.prefetch %{{.*}}[%{{.*}}] {shape = array<i64: 64>} : !tile.buffer<?xf32, global>
func.func @prefetch(%pk: !tile.ptr<f16>, %pg: !tile.ptr<f32>, %n: index, %hv: index, %r: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %K = tile.view %pk[%n] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  %G = tile.view %pg[%n, %n] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %Gh = tile.take %G[%hv] dims [1] : !tile.buffer<?x?xf32, global> -> !tile.buffer<?xf32, global>
  tile.prefetch %K[%r, %c0] {shape = array<i64: 64, 128>} : !tile.buffer<?x128xf16, global>
  tile.prefetch %Gh[%r] {shape = array<i64: 64>} : !tile.buffer<?xf32, global>
  return
}
