// RUN: gdn-opt %s -split-input-file | gdn-opt -split-input-file | FileCheck %s
// RUN: gdn-opt %s -split-input-file --mlir-print-op-generic | gdn-opt -split-input-file | FileCheck %s

// CHECK-LABEL: func.func @types
// CHECK-SAME: !tile.ptr<f16>
// CHECK-SAME: !tile.buffer<?x128xf16, global>
// CHECK-SAME: !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
// CHECK-SAME: !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [2, 2]>>
// CHECK-SAME: !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>
// CHECK-SAME: !tile.buffer<64x64xf32, shared, #tile.padded<4>>
// CHECK-SAME: !tile.buffer<2x16x32xf16, shared, #tile.padded<8>>
// CHECK-SAME: !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
func.func @types(%p: !tile.ptr<f16>, %g: !tile.buffer<?x128xf16, global>,
                 %s: !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>,
                 %f: !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [2, 2]>>,
                 %v: !tile.buffer<64xf32, fragment, #tile.blocked<vector = 4>>,
                 %pd: !tile.buffer<64x64xf32, shared, #tile.padded<4>>,
                 %pd3: !tile.buffer<2x16x32xf16, shared, #tile.padded<8>>,
                 %sk: !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>) {
  return
}

// -----

// CHECK-LABEL: func.func @kernel
// CHECK-SAME: tile.kernel
// CHECK: %[[BX:.*]] = tile.program_id x
// CHECK: %[[A:.*]] = tile.view %{{.*}}[%{{.*}}, %{{.*}}] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
// CHECK: %[[S:.*]] = tile.alloc : !tile.buffer<64x64xf16, shared>
// CHECK: %[[ACC:.*]] = tile.alloc : !tile.buffer<64x64xf32, fragment>
// CHECK: tile.fill %[[ACC]], %{{.*}} : !tile.buffer<64x64xf32, fragment>, f32
// CHECK: tile.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} stages 2 {
// CHECK:   tile.copy %[[A]][%[[BX]], %[[K]]] to %[[S]] {masked}
// CHECK:   tile.gemm %[[S]], %[[S]], %[[ACC]] {transpose_b}
// CHECK: }
// CHECK: tile.map ins(%[[ACC]] : {{.*}}) outs(%[[ACC]] : {{.*}}) {
// CHECK: ^bb0(%[[X:.*]]: f32):
// CHECK:   %[[E:.*]] = math.exp %[[X]] : f32
// CHECK:   tile.yield %[[E]] : f32
// CHECK: tile.reduce add %[[ACC]], %{{.*}} {dim = 1 : i64}
// CHECK: tile.barrier
// CHECK: tile.copy %[[ACC]] to %{{.*}}[%{{.*}}, %{{.*}}] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<?x?xf16, global>
func.func @kernel(%pa: !tile.ptr<f16> {tile.name = "A"}, %n: i32) attributes {tile.kernel, tile.num_warps = 4 : i64, tile.meta = {op = "test"}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = arith.index_cast %n : i32 to index
  %bx = tile.program_id x
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  %row = tile.alloc : !tile.buffer<64xf32, fragment>
  tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
  tile.for %k = %c0 to %m step %c64 stages 2 {
    tile.copy %A[%bx, %k] to %s {masked} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %s, %s, %acc {transpose_b} : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  tile.map ins(%acc : !tile.buffer<64x64xf32, fragment>) outs(%acc : !tile.buffer<64x64xf32, fragment>) {
  ^bb0(%x: f32):
    %e = math.exp %x : f32
    tile.yield %e : f32
  }
  tile.reduce add %acc, %row {dim = 1 : i64} : !tile.buffer<64x64xf32, fragment> -> !tile.buffer<64xf32, fragment>
  tile.barrier
  tile.copy %acc to %A[%bx, %c0] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<?x?xf16, global>
  return
}

// -----

// CHECK-LABEL: func.func @async
// CHECK: %[[S:.*]] = tile.alloc {offset = 1024 : i64} : !tile.buffer<2x64x64xf16, shared>
// CHECK: %[[S1:.*]] = tile.slice %[[S]][%{{.*}}] : !tile.buffer<2x64x64xf16, shared> -> !tile.buffer<64x64xf16, shared>
// CHECK: tile.async_copy %{{.*}}[%{{.*}}, %{{.*}}] to %[[S1]] {layout = #tile.blocked<vector = 8>}
// CHECK: tile.async_commit
// CHECK: tile.async_wait {pending = 1 : i64}
func.func @async(%g: !tile.buffer<?x?xf16, global>, %i: index) {
  %s = tile.alloc {offset = 1024 : i64} : !tile.buffer<2x64x64xf16, shared>
  %s1 = tile.slice %s[%i] : !tile.buffer<2x64x64xf16, shared> -> !tile.buffer<64x64xf16, shared>
  tile.async_copy %g[%i, %i] to %s1 {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  tile.async_commit
  tile.async_wait {pending = 1}
  return
}

// -----

// CHECK-LABEL: func.func @views
// CHECK: %[[V:.*]] = tile.view %{{.*}}[%{{.*}}, %{{.*}}] : !tile.ptr<bf16> -> !tile.buffer<?x?x128xbf16, global>
// CHECK: %[[T:.*]] = tile.take %[[V]][%{{.*}}] dims [1] : !tile.buffer<?x?x128xbf16, global> -> !tile.buffer<?x128xbf16, global>
// CHECK: %[[N:.*]] = tile.narrow %[[T]][%{{.*}}, %{{.*}}] dim 0 : !tile.buffer<?x128xbf16, global> -> !tile.buffer<?x128xbf16, global>
// CHECK: %[[S:.*]] = tile.take %[[V]][%{{.*}}, %{{.*}}] dims [0, 2] : !tile.buffer<?x?x128xbf16, global> -> !tile.buffer<?xbf16, global>
// CHECK: tile.load %[[S]][%{{.*}}] : !tile.buffer<?xbf16, global>
func.func @views(%p: !tile.ptr<bf16>, %n: index, %i: index) -> bf16 {
  %v = tile.view %p[%n, %n] : !tile.ptr<bf16> -> !tile.buffer<?x?x128xbf16, global>
  %t = tile.take %v[%i] dims [1] : !tile.buffer<?x?x128xbf16, global> -> !tile.buffer<?x128xbf16, global>
  %s0 = tile.narrow %t[%i, %n] dim 0 : !tile.buffer<?x128xbf16, global> -> !tile.buffer<?x128xbf16, global>
  %s = tile.take %v[%i, %i] dims [0, 2] : !tile.buffer<?x?x128xbf16, global> -> !tile.buffer<?xbf16, global>
  %x = tile.load %s[%i] : !tile.buffer<?xbf16, global>
  return %x : bf16
}

// -----

// CHECK-LABEL: func.func @solve
// CHECK: tile.map indexed outs(%{{.*}} : !tile.buffer<64x64xf32, fragment>) {
// CHECK: ^bb0(%[[I:.*]]: index, %[[J:.*]]: index):
// CHECK: tile.tril_inverse %[[L:.*]], %[[T:.*]] : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
func.func @solve(%l: !tile.buffer<64x64xf32, shared>, %t: !tile.buffer<64x64xf32, shared>) {
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.map indexed outs(%f : !tile.buffer<64x64xf32, fragment>) {
  ^bb0(%i: index, %j: index):
    %x = tile.load %l[%i, %j] : !tile.buffer<64x64xf32, shared>
    tile.yield %x : f32
  }
  tile.tril_inverse %l, %t : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// The phases of the blocked tril_inverse (tile-expand-tril-inverse).
// CHECK-LABEL: func.func @tril_phases
// CHECK: tile.tril_inverse_diag %[[L:.*]], %[[T:.*]] : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
// CHECK: tile.tril_inverse_level %[[L]], %[[T]] {level = 1 : i64} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
// CHECK: tile.tril_inverse_merge %[[L]], %[[T]] {size = 16 : i64} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
func.func @tril_phases(%l: !tile.buffer<32x32xf32, shared>, %t: !tile.buffer<32x32xf32, shared>) {
  tile.tril_inverse_diag %l, %t : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  tile.tril_inverse_level %l, %t {level = 1 : i64} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  tile.tril_inverse_merge %l, %t {size = 16 : i64} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  return
}

// -----

// CHECK-LABEL: func.func @zero_tail
// CHECK: tile.zero_tail %{{.*}} from %{{.*}} : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
// CHECK: tile.zero_tail %{{.*}} from %{{.*}} : !tile.buffer<64xf32, shared>
func.func @zero_tail(%s: !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>,
                     %g: !tile.buffer<64xf32, shared>, %n: index) {
  tile.zero_tail %s from %n : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  tile.zero_tail %g from %n : !tile.buffer<64xf32, shared>
  return
}

// -----

// CHECK-LABEL: func.func @tril_packed
// CHECK: tile.tril_inverse %[[LT:.*]], %[[LT]] {packed} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
// CHECK: tile.tril_inverse_diag %[[LT]], %[[LT]] {packed}
// CHECK: tile.tril_inverse_level %[[LT]], %[[LT]] {level = 1 : i64, packed}
func.func @tril_packed(%lt: !tile.buffer<64x64xf32, shared>) {
  tile.tril_inverse %lt, %lt {packed} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_diag %lt, %lt {packed} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_level %lt, %lt {level = 1 : i64, packed} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// A fragment to or from a sub-tile of a shared buffer (constant offsets).
// CHECK-LABEL: func.func @shared_subtile
// CHECK: tile.copy %{{.*}}[%{{.*}}, %{{.*}}] to %{{.*}} : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>> to !tile.buffer<16x128xf32, fragment>
// CHECK: tile.copy %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : !tile.buffer<16x128xf32, fragment> to !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
func.func @shared_subtile(%s: !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %f = tile.alloc : !tile.buffer<16x128xf32, fragment>
  tile.copy %s[%c16, %c0] to %f : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>> to !tile.buffer<16x128xf32, fragment>
  tile.copy %f to %s[%c16, %c0] : !tile.buffer<16x128xf32, fragment> to !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  return
}

// -----

// CHECK-LABEL: func.func @scan
// CHECK: tile.scan add %[[G:.*]], %[[G]] : !tile.buffer<64xf32, fragment> -> !tile.buffer<64xf32, fragment>
// CHECK: tile.scan max %{{.*}}, %{{.*}} : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>> -> !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>>
func.func @scan(%g: !tile.buffer<64xf32, fragment>, %a: !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>>, %b: !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>>) {
  tile.scan add %g, %g : !tile.buffer<64xf32, fragment> -> !tile.buffer<64xf32, fragment>
  tile.scan max %a, %b : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>> -> !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>>
  return
}

// -----

// CHECK-LABEL: func.func @any
// CHECK: %[[A:.*]] = tile.any %{{.*}} : !tile.buffer<64x64xf32, fragment> {
// CHECK: ^bb0(%{{.*}}: index, %{{.*}}: index, %[[X:.*]]: f32):
// CHECK:   %[[B:.*]] = arith.cmpf ogt, %[[X]]
// CHECK:   tile.yield %[[B]] : i1
// CHECK: return %[[A]] : i1
func.func @any(%f: !tile.buffer<64x64xf32, fragment>, %t: f32) -> i1 {
  %r = tile.any %f : !tile.buffer<64x64xf32, fragment> {
  ^bb0(%i: index, %j: index, %x: f32):
    %b = arith.cmpf ogt, %x, %t : f32
    tile.yield %b : i1
  }
  return %r : i1
}

// -----

// A row reduction straight into shared memory (no scratch).
// CHECK-LABEL: func.func @reduce_into_shared
// CHECK: tile.reduce add %{{.*}}, %{{.*}} {dim = 1 : i64} : !tile.buffer<16x128xf32, fragment> -> !tile.buffer<16xf32, shared>
func.func @reduce_into_shared() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %x = tile.alloc : !tile.buffer<16x128xf32, fragment>
  %d = tile.alloc : !tile.buffer<16xf32, shared>
  tile.reduce add %x, %d {dim = 1 : i64} : !tile.buffer<16x128xf32, fragment> -> !tile.buffer<16xf32, shared>
  return
}
