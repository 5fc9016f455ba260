// REQUIRES: mlir-cpu-runner
// RUN: gdn-opt %s --convert-tile-to-loops \
// RUN:   | %mlir_opt --convert-scf-to-cf --expand-strided-metadata --lower-affine \
// RUN:       --finalize-memref-to-llvm --convert-math-to-llvm --convert-arith-to-llvm \
// RUN:       --convert-index-to-llvm --convert-cf-to-llvm --convert-func-to-llvm \
// RUN:       --reconcile-unrealized-casts \
// RUN:   | %mlir_cpu_runner -e main -entry-point-result=void -shared-libs=%mlir_c_runner_utils \
// RUN:   | FileCheck %s

// The CPU lowering's arithmetic, run: each op's result against numbers
// worked out by hand from its specification (TileOps.td).

func.func private @printF32(f32)
func.func private @printNewline()

func.func @show(%s: !tile.buffer<32x32xf32, shared>, %i: index, %j: index) {
  %v = tile.load %s[%i, %j] : !tile.buffer<32x32xf32, shared>
  func.call @printF32(%v) : (f32) -> ()
  func.call @printNewline() : () -> ()
  return
}

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c5 = arith.constant 5 : index
  %c16 = arith.constant 16 : index
  %c17 = arith.constant 17 : index
  %c20 = arith.constant 20 : index
  %c31 = arith.constant 31 : index
  %half = arith.constant 0.5 : f32
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32

  // L: 0.5 on the first subdiagonal, NaN on and above the diagonal (the
  // inverse must not read them). (I + L)^-1 [i][j] = (-0.5)^(i - j).
  %f = tile.alloc : !tile.buffer<32x32xf32, fragment>
  tile.map indexed outs(%f : !tile.buffer<32x32xf32, fragment>) {
  ^bb0(%i: index, %j: index):
    %j1 = arith.addi %j, %c1 : index
    %sub = arith.cmpi eq, %i, %j1 : index
    %below = arith.cmpi ugt, %i, %j : index
    %nan = arith.constant 0x7FC00000 : f32
    %l0 = arith.select %below, %zero, %nan : f32
    %l = arith.select %sub, %half, %l0 : f32
    tile.yield %l : f32
  }
  %sL = tile.alloc : !tile.buffer<32x32xf32, shared>
  tile.copy %f to %sL : !tile.buffer<32x32xf32, fragment> to !tile.buffer<32x32xf32, shared>
  %sT = tile.alloc : !tile.buffer<32x32xf32, shared>
  tile.tril_inverse %sL, %sT : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  // CHECK: {{^}}-0.125{{$}}
  func.call @show(%sT, %c3, %c0) : (!tile.buffer<32x32xf32, shared>, index, index) -> ()
  // CHECK-NEXT: {{^}}1{{$}}
  func.call @show(%sT, %c5, %c5) : (!tile.buffer<32x32xf32, shared>, index, index) -> ()
  // Zero above the diagonal.
  // CHECK-NEXT: {{^}}0{{$}}
  func.call @show(%sT, %c0, %c31) : (!tile.buffer<32x32xf32, shared>, index, index) -> ()

  // lower_only: the block above the block diagonal keeps what it held (1),
  // the diagonal blocks get their zeros.
  %sU = tile.alloc : !tile.buffer<32x32xf32, shared>
  %g = tile.alloc : !tile.buffer<32x32xf32, fragment>
  tile.fill %g, %one : !tile.buffer<32x32xf32, fragment>, f32
  tile.copy %g to %sU : !tile.buffer<32x32xf32, fragment> to !tile.buffer<32x32xf32, shared>
  tile.tril_inverse %sL, %sU {lower_only} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  // CHECK-NEXT: {{^}}1{{$}}
  func.call @show(%sU, %c0, %c31) : (!tile.buffer<32x32xf32, shared>, index, index) -> ()
  // CHECK-NEXT: {{^}}0{{$}}
  func.call @show(%sU, %c16, %c20) : (!tile.buffer<32x32xf32, shared>, index, index) -> ()
  // CHECK-NEXT: {{^}}-0.5{{$}}
  func.call @show(%sU, %c17, %c16) : (!tile.buffer<32x32xf32, shared>, index, index) -> ()

  // packed: L stays below the diagonal, T^T lands on and above it.
  tile.copy %f to %sL : !tile.buffer<32x32xf32, fragment> to !tile.buffer<32x32xf32, shared>
  tile.tril_inverse %sL, %sL {packed} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  // T[3][0] at [0][3]; L[1][0] unchanged; the diagonal 1.
  // CHECK-NEXT: {{^}}-0.125{{$}}
  func.call @show(%sL, %c0, %c3) : (!tile.buffer<32x32xf32, shared>, index, index) -> ()
  // CHECK-NEXT: {{^}}0.5{{$}}
  func.call @show(%sL, %c1, %c0) : (!tile.buffer<32x32xf32, shared>, index, index) -> ()
  // CHECK-NEXT: {{^}}1{{$}}
  func.call @show(%sL, %c3, %c3) : (!tile.buffer<32x32xf32, shared>, index, index) -> ()

  // block_lower = 16 load: the block above the diagonal reads as zeros
  // (%sU's upper block holds ones); with transpose, the fragment's blocks
  // on and above its diagonal move.
  %h = tile.alloc : !tile.buffer<32x32xf32, fragment>
  tile.copy %sU to %h {block_lower = 16 : i64} : !tile.buffer<32x32xf32, shared> to !tile.buffer<32x32xf32, fragment>
  %sH = tile.alloc : !tile.buffer<32x32xf32, shared>
  tile.copy %h to %sH : !tile.buffer<32x32xf32, fragment> to !tile.buffer<32x32xf32, shared>
  // CHECK-NEXT: {{^}}0{{$}}
  func.call @show(%sH, %c0, %c31) : (!tile.buffer<32x32xf32, shared>, index, index) -> ()
  // CHECK-NEXT: {{^}}-0.5{{$}}
  func.call @show(%sH, %c17, %c16) : (!tile.buffer<32x32xf32, shared>, index, index) -> ()
  tile.copy %sU to %h {block_lower = 16 : i64, transpose} : !tile.buffer<32x32xf32, shared> to !tile.buffer<32x32xf32, fragment>
  tile.copy %h to %sH : !tile.buffer<32x32xf32, fragment> to !tile.buffer<32x32xf32, shared>
  // h[16][17] = U[17][16]; h[31][0] (below its block diagonal) is zero.
  // CHECK-NEXT: {{^}}-0.5{{$}}
  func.call @show(%sH, %c16, %c17) : (!tile.buffer<32x32xf32, shared>, index, index) -> ()
  // CHECK-NEXT: {{^}}0{{$}}
  func.call @show(%sH, %c31, %c0) : (!tile.buffer<32x32xf32, shared>, index, index) -> ()

  // gemm with b_block_lower = 16: B's block above its diagonal holds NaN,
  // which must not be read. A = ones (f16), B[n][k] = 1 on and below the
  // block diagonal: C[m][n] = 16 for n < 16, 32 for n >= 16.
  %fa = tile.alloc : !tile.buffer<32x32xf32, fragment>
  tile.fill %fa, %one : !tile.buffer<32x32xf32, fragment>, f32
  %sA = tile.alloc : !tile.buffer<32x32xf16, shared>
  tile.copy %fa to %sA : !tile.buffer<32x32xf32, fragment> to !tile.buffer<32x32xf16, shared>
  %fb = tile.alloc : !tile.buffer<32x32xf32, fragment>
  tile.map indexed outs(%fb : !tile.buffer<32x32xf32, fragment>) {
  ^bb0(%n: index, %k: index):
    %bn = arith.divui %n, %c16 : index
    %bk = arith.divui %k, %c16 : index
    %above = arith.cmpi ugt, %bk, %bn : index
    %nan = arith.constant 0x7FC00000 : f32
    %v = arith.select %above, %nan, %one : f32
    tile.yield %v : f32
  }
  %sB = tile.alloc : !tile.buffer<32x32xf16, shared>
  tile.copy %fb to %sB : !tile.buffer<32x32xf32, fragment> to !tile.buffer<32x32xf16, shared>
  %fc = tile.alloc : !tile.buffer<32x32xf32, fragment>
  tile.gemm %sA, %sB, %fc {transpose_b, zero_init, b_block_lower = 16 : i64} : !tile.buffer<32x32xf16, shared>, !tile.buffer<32x32xf16, shared>, !tile.buffer<32x32xf32, fragment>
  %sC = tile.alloc : !tile.buffer<32x32xf32, shared>
  tile.copy %fc to %sC : !tile.buffer<32x32xf32, fragment> to !tile.buffer<32x32xf32, shared>
  // CHECK-NEXT: {{^}}16{{$}}
  func.call @show(%sC, %c5, %c3) : (!tile.buffer<32x32xf32, shared>, index, index) -> ()
  // CHECK-NEXT: {{^}}32{{$}}
  func.call @show(%sC, %c5, %c20) : (!tile.buffer<32x32xf32, shared>, index, index) -> ()

  // reduce (max along rows, PTX's max.f32: a NaN operand loses) and scan
  // (a running sum).
  %x = tile.alloc : !tile.buffer<32x32xf32, fragment>
  tile.map indexed outs(%x : !tile.buffer<32x32xf32, fragment>) {
  ^bb0(%i: index, %j: index):
    %ij = arith.addi %i, %j : index
    %v = arith.index_cast %ij : index to i32
    %fv = arith.sitofp %v : i32 to f32
    %isz = arith.cmpi eq, %j, %c0 : index
    %nan = arith.constant 0x7FC00000 : f32
    %r = arith.select %isz, %nan, %fv : f32
    tile.yield %r : f32
  }
  %mx = tile.alloc : !tile.buffer<32xf32, fragment>
  tile.reduce max %x, %mx {dim = 1 : i64} : !tile.buffer<32x32xf32, fragment> -> !tile.buffer<32xf32, fragment>
  tile.scan add %mx, %mx : !tile.buffer<32xf32, fragment> -> !tile.buffer<32xf32, fragment>
  %smx = tile.alloc : !tile.buffer<32xf32, shared>
  tile.copy %mx to %smx : !tile.buffer<32xf32, fragment> to !tile.buffer<32xf32, shared>
  // max of row i = i + 31; prefix sums: 31, 31 + 32 = 63, ..., row 3: 31+32+33+34.
  %m0 = tile.load %smx[%c0] : !tile.buffer<32xf32, shared>
  %m3 = tile.load %smx[%c3] : !tile.buffer<32xf32, shared>
  // CHECK-NEXT: {{^}}31{{$}}
  func.call @printF32(%m0) : (f32) -> ()
  func.call @printNewline() : () -> ()
  // CHECK-NEXT: {{^}}130{{$}}
  func.call @printF32(%m3) : (f32) -> ()
  func.call @printNewline() : () -> ()

  // reduce along columns (dim 0, add and min) and zero_tail: column j of
  // %x holds i + j (column 0: NaN). Column sums: 496 + 32 j; column mins: j.
  %cs = tile.alloc : !tile.buffer<32xf32, fragment>
  tile.reduce add %x, %cs {dim = 0 : i64} : !tile.buffer<32x32xf32, fragment> -> !tile.buffer<32xf32, fragment>
  %cm = tile.alloc : !tile.buffer<32xf32, fragment>
  tile.reduce min %x, %cm {dim = 0 : i64} : !tile.buffer<32x32xf32, fragment> -> !tile.buffer<32xf32, fragment>
  tile.copy %cs to %smx : !tile.buffer<32xf32, fragment> to !tile.buffer<32xf32, shared>
  %s3 = tile.load %smx[%c3] : !tile.buffer<32xf32, shared>
  // CHECK-NEXT: {{^}}592{{$}}
  func.call @printF32(%s3) : (f32) -> ()
  func.call @printNewline() : () -> ()
  tile.copy %cm to %smx : !tile.buffer<32xf32, fragment> to !tile.buffer<32xf32, shared>
  tile.zero_tail %smx from %c5 : !tile.buffer<32xf32, shared>
  %n3 = tile.load %smx[%c3] : !tile.buffer<32xf32, shared>
  %n5 = tile.load %smx[%c5] : !tile.buffer<32xf32, shared>
  // CHECK-NEXT: {{^}}3{{$}}
  func.call @printF32(%n3) : (f32) -> ()
  func.call @printNewline() : () -> ()
  // CHECK-NEXT: {{^}}0{{$}}
  func.call @printF32(%n5) : (f32) -> ()
  func.call @printNewline() : () -> ()

  // gemm with transpose_a, accumulating: C = 1 + A^T B with A[k][m] = k
  // (f16), B = ones: C[m][n] = 1 + sum_k k = 1 + 496 = 497.
  %fk = tile.alloc : !tile.buffer<32x32xf32, fragment>
  tile.map indexed outs(%fk : !tile.buffer<32x32xf32, fragment>) {
  ^bb0(%k: index, %m: index):
    %v = arith.index_cast %k : index to i32
    %fv = arith.sitofp %v : i32 to f32
    tile.yield %fv : f32
  }
  tile.copy %fk to %sA : !tile.buffer<32x32xf32, fragment> to !tile.buffer<32x32xf16, shared>
  tile.copy %fa to %sB : !tile.buffer<32x32xf32, fragment> to !tile.buffer<32x32xf16, shared>
  tile.fill %fc, %one : !tile.buffer<32x32xf32, fragment>, f32
  tile.gemm %sA, %sB, %fc {transpose_a} : !tile.buffer<32x32xf16, shared>, !tile.buffer<32x32xf16, shared>, !tile.buffer<32x32xf32, fragment>
  tile.copy %fc to %sC : !tile.buffer<32x32xf32, fragment> to !tile.buffer<32x32xf32, shared>
  // CHECK-NEXT: {{^}}497{{$}}
  func.call @show(%sC, %c17, %c5) : (!tile.buffer<32x32xf32, shared>, index, index) -> ()

  // slice: stage 1 of a two-stage buffer, and a sub-tile copy of 16 rows
  // at row offset 16 of a shared buffer into a fragment (rows 16..31 of
  // %sC, all 497).
  %st = tile.alloc : !tile.buffer<2x32xf32, shared>
  %st1 = tile.slice %st[%c1] : !tile.buffer<2x32xf32, shared> -> !tile.buffer<32xf32, shared>
  %row = tile.alloc : !tile.buffer<32xf32, fragment>
  tile.fill %row, %half : !tile.buffer<32xf32, fragment>, f32
  tile.copy %row to %st1 : !tile.buffer<32xf32, fragment> to !tile.buffer<32xf32, shared>
  %sv = tile.load %st[%c1, %c3] : !tile.buffer<2x32xf32, shared>
  // CHECK-NEXT: {{^}}0.5{{$}}
  func.call @printF32(%sv) : (f32) -> ()
  func.call @printNewline() : () -> ()
  %sub = tile.alloc : !tile.buffer<16x32xf32, fragment>
  tile.copy %sC[%c16, %c0] to %sub : !tile.buffer<32x32xf32, shared> to !tile.buffer<16x32xf32, fragment>
  %ssub = tile.alloc : !tile.buffer<16x32xf32, shared>
  tile.copy %sub to %ssub : !tile.buffer<16x32xf32, fragment> to !tile.buffer<16x32xf32, shared>
  %subv = tile.load %ssub[%c3, %c5] : !tile.buffer<16x32xf32, shared>
  // CHECK-NEXT: {{^}}497{{$}}
  func.call @printF32(%subv) : (f32) -> ()
  func.call @printNewline() : () -> ()
  return
}
