// RUN: rm -rf %t && mkdir -p %t
// RUN: gdn-opt %s --gdn-lower-to-ptx="output-dir=%t" -o /dev/null
// RUN: FileCheck %s --input-file=%t/pf.ptx

// tile.prefetch through the whole pipeline (CopyToNVVM.cpp). A 64x128 f16
// tile with a contiguous innermost dimension: each 256-byte row is three
// units (bytes 0, 128 and min(256, 255)), 192 units over 128 threads: two
// unrolled steps, each skipping rows past the view's extent. A 1-D view
// strided by HV (a tile.take of g's value head): one unit per element, 64
// units, one step. A 1-D contiguous view (64 f32): one run of three units,
// its last byte clamped to the buffer's end (min with the extent left). The
// op is kept (a hint, not dead code).

// CHECK-LABEL: .entry k(
// CHECK:         setp.ge.u64
// CHECK:         min.u64 {{.*}}, 255;
// CHECK-NEXT:    add.s64
// CHECK:         prefetch.global.L2 [
// CHECK:         setp.gt.u64 {{.*}}, 191;
// CHECK:         min.u64 {{.*}}, 255;
// CHECK:         prefetch.global.L2 [
// CHECK:         setp.gt.u32 {{.*}}, 63;
// CHECK:         prefetch.global.L2 [
// CHECK:         setp.gt.u32 {{.*}}, 2;
// CHECK:         min.u64
// CHECK:         prefetch.global.L2 [
// CHECK-NOT:     prefetch
// CHECK:         ret;
module @pf {
  func.func @k(%pk: !tile.ptr<f16> {tile.name = "k"}, %pg: !tile.ptr<f32> {tile.name = "g"},
               %n: i32 {tile.name = "n"}, %HV: i32 {tile.name = "HV"}, %r: i32 {tile.name = "r"})
      attributes {tile.kernel, tile.num_warps = 4 : i64} {
    %c0 = arith.constant 0 : index
    %nn = arith.index_cast %n : i32 to index
    %hvs = arith.index_cast %HV : i32 to index
    %rr = arith.index_cast %r : i32 to index
    %hv = tile.program_id x
    %K = tile.view %pk[%nn] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
    %G = tile.view %pg[%nn, %hvs] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
    %Gh = tile.take %G[%hv] dims [1] : !tile.buffer<?x?xf32, global> -> !tile.buffer<?xf32, global>
    tile.prefetch %K[%rr, %c0] {shape = array<i64: 64, 128>} : !tile.buffer<?x128xf16, global>
    tile.prefetch %Gh[%rr] {shape = array<i64: 64>} : !tile.buffer<?xf32, global>
    %G1 = tile.view %pg[%nn] : !tile.ptr<f32> -> !tile.buffer<?xf32, global>
    tile.prefetch %G1[%rr] {shape = array<i64: 64>} : !tile.buffer<?xf32, global>
    return
  }
}
