// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: gdn-opt %s --gdn-lower-to-ptx="output-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/ptxas_kernels.ptx -o %t/x.cubin > %t/ptxas.log 2>&1
// RUN: FileCheck %s --check-prefix=GEMM --implicit-check-not=warning --input-file=%t/ptxas.log
// RUN: FileCheck %s --check-prefix=NT --input-file=%t/ptxas.log
// RUN: FileCheck %s --check-prefix=ROWMAX --input-file=%t/ptxas.log

// The PTX of the pipeline is accepted by ptxas for sm_90a without warnings,
// and no kernel spills registers to local memory.

// GEMM:      Compiling entry function 'gemm_f16_2stage' for 'sm_90a'
// GEMM-NEXT: Function properties for gemm_f16_2stage
// GEMM-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// GEMM-NEXT: Used {{[0-9]+}} registers, used 1 barriers

// NT:      Compiling entry function 'gemm_bf16_nt_3stage' for 'sm_90a'
// NT-NEXT: Function properties for gemm_bf16_nt_3stage
// NT-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// NT-NEXT: Used {{[0-9]+}} registers, used 1 barriers

// ROWMAX:      Compiling entry function 'rowmax_exp' for 'sm_90a'
// ROWMAX-NEXT: Function properties for rowmax_exp
// ROWMAX-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// ROWMAX-NEXT: Used {{[0-9]+}} registers, used 1 barriers

module @ptxas_kernels {
  // C[64, 64] = A[64, K] * B[K, 64], f16, 2 stages.
  func.func @gemm_f16_2stage(%pa: !tile.ptr<f16> {tile.name = "A"}, %pb: !tile.ptr<f16> {tile.name = "B"},
                             %pc: !tile.ptr<f32> {tile.name = "C"}, %K: i32 {tile.name = "K"})
      attributes {tile.kernel, tile.num_warps = 4 : i64} {
    %c0 = arith.constant 0 : index
    %c32 = arith.constant 32 : index
    %zero = arith.constant 0.0 : f32
    %k = arith.index_cast %K : i32 to index
    %A = tile.view %pa[%k] : !tile.ptr<f16> -> !tile.buffer<64x?xf16, global>
    %B = tile.view %pb[%k] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
    %C = tile.view %pc[] : !tile.ptr<f32> -> !tile.buffer<64x64xf32, global>
    %sA = tile.alloc : !tile.buffer<64x32xf16, shared>
    %sB = tile.alloc : !tile.buffer<32x64xf16, shared>
    %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
    tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
    tile.for %kk = %c0 to %k step %c32 stages 2 {
      tile.copy %A[%c0, %kk] to %sA : !tile.buffer<64x?xf16, global> to !tile.buffer<64x32xf16, shared>
      tile.copy %B[%kk, %c0] to %sB : !tile.buffer<?x64xf16, global> to !tile.buffer<32x64xf16, shared>
      tile.gemm %sA, %sB, %acc : !tile.buffer<64x32xf16, shared>, !tile.buffer<32x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
    }
    tile.copy %acc to %C[%c0, %c0] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, global>
    return
  }

  // C[M, N] = A[M, K] * B[N, K]^T, bf16, 3 stages, masked edges.
  func.func @gemm_bf16_nt_3stage(%pa: !tile.ptr<bf16>, %pb: !tile.ptr<bf16>, %pc: !tile.ptr<f32>,
                                 %M: i32, %N: i32, %K: i32)
      attributes {tile.kernel, tile.num_warps = 4 : i64} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %m = arith.index_cast %M : i32 to index
    %n = arith.index_cast %N : i32 to index
    %k = arith.index_cast %K : i32 to index
    %A = tile.view %pa[%m, %k] : !tile.ptr<bf16> -> !tile.buffer<?x?xbf16, global>
    %B = tile.view %pb[%n, %k] : !tile.ptr<bf16> -> !tile.buffer<?x?xbf16, global>
    %C = tile.view %pc[%m, %n] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
    %bx = tile.program_id x
    %by = tile.program_id y
    %n0 = arith.muli %bx, %c64 : index
    %m0 = arith.muli %by, %c128 : index
    %sA = tile.alloc : !tile.buffer<128x64xbf16, shared>
    %sB = tile.alloc : !tile.buffer<64x64xbf16, shared>
    %acc = tile.alloc : !tile.buffer<128x64xf32, fragment>
    tile.fill %acc, %zero : !tile.buffer<128x64xf32, fragment>, f32
    tile.for %kk = %c0 to %k step %c64 stages 3 {
      tile.copy %A[%m0, %kk] to %sA {masked} : !tile.buffer<?x?xbf16, global> to !tile.buffer<128x64xbf16, shared>
      tile.copy %B[%n0, %kk] to %sB {masked} : !tile.buffer<?x?xbf16, global> to !tile.buffer<64x64xbf16, shared>
      tile.gemm %sA, %sB, %acc {transpose_b} : !tile.buffer<128x64xbf16, shared>, !tile.buffer<64x64xbf16, shared>, !tile.buffer<128x64xf32, fragment>
    }
    tile.copy %acc to %C[%m0, %n0] {masked} : !tile.buffer<128x64xf32, fragment> to !tile.buffer<?x?xf32, global>
    return
  }

  // out[i] = max_j exp(x[i, j]) over a 64x64 f32 tile.
  func.func @rowmax_exp(%px: !tile.ptr<f32>, %po: !tile.ptr<f32>)
      attributes {tile.kernel, tile.num_warps = 4 : i64} {
    %c0 = arith.constant 0 : index
    %X = tile.view %px[] : !tile.ptr<f32> -> !tile.buffer<64x64xf32, global>
    %O = tile.view %po[] : !tile.ptr<f32> -> !tile.buffer<64xf32, global>
    %x = tile.alloc : !tile.buffer<64x64xf32, fragment>
    %r = tile.alloc : !tile.buffer<64xf32, fragment>
    tile.copy %X[%c0, %c0] to %x : !tile.buffer<64x64xf32, global> to !tile.buffer<64x64xf32, fragment>
    tile.map ins(%x : !tile.buffer<64x64xf32, fragment>) outs(%x : !tile.buffer<64x64xf32, fragment>) {
    ^bb0(%v: f32):
      %e = math.exp %v : f32
      tile.yield %e : f32
    }
    tile.reduce max %x, %r {dim = 1 : i64} : !tile.buffer<64x64xf32, fragment> -> !tile.buffer<64xf32, fragment>
    tile.copy %r to %O[%c0] : !tile.buffer<64xf32, fragment> to !tile.buffer<64xf32, global>
    return
  }
}
