// Tiled GEMM on the tensor cores, the proving ground of the pipeline.
//
//   C[M, N] (f32) = A[M, K] * B[K, N]     (A, B f16 or bf16, row-major)
//
// Schedule: one 128x128 output tile per block of 4 warps (the 2x2 warp grid
// and the mma.sync m16n8k16 fragment layout come from tile-assign-layouts);
// K advances in steps of 64 through a 3-stage cp.async pipeline
// (tile-pipeline) of 128x64 A and 64x128 B tiles in 128-byte-swizzled shared
// memory (tile-plan-shared-memory: 3 x 32 KiB). The bf16 kernel reads B
// transposed ([N, K], K-major), the layout of K^T in Q K^T.
//
// The first two are the portable (sm_80+) path: mma.sync and cp.async; the
// *_rs_wgmma kernels check wgmma with A in registers (RS), the *_wn2
// kernels wgmma with two warpgroups splitting N, the *_swz64/_swz32 ones
// the 64- and 32-byte swizzles. The Hopper
// GEMM (TMA, mbarrier ring, warp specialization, asynchronous wgmma) is
// gemm_hopper.mlir.in.

module @gemm {
  func.func @gemm_f16_128x128x64(
      %pa: !tile.ptr<f16> {tile.name = "A"}, %pb: !tile.ptr<f16> {tile.name = "B"},
      %pc: !tile.ptr<f32> {tile.name = "C"},
      %M: i32 {tile.name = "M"}, %N: i32 {tile.name = "N"}, %K: i32 {tile.name = "K"})
      attributes {tile.kernel, tile.num_warps = 4 : i64,
                  tile.meta = {op = "gemm", block_m = 128 : i64, block_n = 128 : i64,
                               block_k = 64 : i64, transpose_a = 0 : i64,
                               transpose_b = 0 : i64, requires_divisible = 1 : i64}} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %m = arith.index_cast %M : i32 to index
    %n = arith.index_cast %N : i32 to index
    %k = arith.index_cast %K : i32 to index
    %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
    %B = tile.view %pb[%k, %n] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
    %C = tile.view %pc[%m, %n] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
    %bx = tile.program_id x
    %by = tile.program_id y
    %n0 = arith.muli %bx, %c128 : index
    %m0 = arith.muli %by, %c128 : index
    %sA = tile.alloc : !tile.buffer<128x64xf16, shared>
    %sB = tile.alloc : !tile.buffer<64x128xf16, shared>
    %acc = tile.alloc : !tile.buffer<128x128xf32, fragment>
    tile.fill %acc, %zero : !tile.buffer<128x128xf32, fragment>, f32
    tile.for %kk = %c0 to %k step %c64 stages 3 {
      tile.copy %A[%m0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<128x64xf16, shared>
      tile.copy %B[%kk, %n0] to %sB : !tile.buffer<?x?xf16, global> to !tile.buffer<64x128xf16, shared>
      tile.gemm %sA, %sB, %acc : !tile.buffer<128x64xf16, shared>, !tile.buffer<64x128xf16, shared>, !tile.buffer<128x128xf32, fragment>
    }
    tile.copy %acc to %C[%m0, %n0] : !tile.buffer<128x128xf32, fragment> to !tile.buffer<?x?xf32, global>
    return
  }

  func.func @gemm_bf16_nt_128x128x64(
      %pa: !tile.ptr<bf16> {tile.name = "A"}, %pb: !tile.ptr<bf16> {tile.name = "B"},
      %pc: !tile.ptr<f32> {tile.name = "C"},
      %M: i32 {tile.name = "M"}, %N: i32 {tile.name = "N"}, %K: i32 {tile.name = "K"})
      attributes {tile.kernel, tile.num_warps = 4 : i64,
                  tile.meta = {op = "gemm", block_m = 128 : i64, block_n = 128 : i64,
                               block_k = 64 : i64, transpose_a = 0 : i64,
                               transpose_b = 1 : i64, requires_divisible = 1 : i64}} {
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
    %n0 = arith.muli %bx, %c128 : index
    %m0 = arith.muli %by, %c128 : index
    %sA = tile.alloc : !tile.buffer<128x64xbf16, shared>
    %sB = tile.alloc : !tile.buffer<128x64xbf16, shared>
    %acc = tile.alloc : !tile.buffer<128x128xf32, fragment>
    tile.fill %acc, %zero : !tile.buffer<128x128xf32, fragment>, f32
    tile.for %kk = %c0 to %k step %c64 stages 3 {
      tile.copy %A[%m0, %kk] to %sA : !tile.buffer<?x?xbf16, global> to !tile.buffer<128x64xbf16, shared>
      tile.copy %B[%n0, %kk] to %sB : !tile.buffer<?x?xbf16, global> to !tile.buffer<128x64xbf16, shared>
      tile.gemm %sA, %sB, %acc {transpose_b} : !tile.buffer<128x64xbf16, shared>, !tile.buffer<128x64xbf16, shared>, !tile.buffer<128x128xf32, fragment>
    }
    tile.copy %acc to %C[%m0, %n0] : !tile.buffer<128x128xf32, fragment> to !tile.buffer<?x?xf32, global>
    return
  }

  // wgmma with A in registers (RS): A goes shared -> fragment (the
  // accumulator's layout, which is the wgmma A fragment) before the gemm.
  func.func @gemm_f16_rs_wgmma_128x128x64(
      %pa: !tile.ptr<f16> {tile.name = "A"}, %pb: !tile.ptr<f16> {tile.name = "B"},
      %pc: !tile.ptr<f32> {tile.name = "C"},
      %M: i32 {tile.name = "M"}, %N: i32 {tile.name = "N"}, %K: i32 {tile.name = "K"})
      attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma",
                  tile.meta = {op = "gemm", block_m = 128 : i64, block_n = 128 : i64,
                               block_k = 64 : i64, transpose_a = 0 : i64,
                               transpose_b = 0 : i64, requires_divisible = 1 : i64}} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %c128 = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %m = arith.index_cast %M : i32 to index
    %n = arith.index_cast %N : i32 to index
    %k = arith.index_cast %K : i32 to index
    %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
    %B = tile.view %pb[%k, %n] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
    %C = tile.view %pc[%m, %n] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
    %bx = tile.program_id x
    %by = tile.program_id y
    %n0 = arith.muli %bx, %c128 : index
    %m0 = arith.muli %by, %c128 : index
    %sA = tile.alloc : !tile.buffer<128x64xf16, shared>
    %sB = tile.alloc : !tile.buffer<64x128xf16, shared>
    %fA = tile.alloc : !tile.buffer<128x64xf16, fragment>
    %acc = tile.alloc : !tile.buffer<128x128xf32, fragment>
    tile.fill %acc, %zero : !tile.buffer<128x128xf32, fragment>, f32
    tile.for %kk = %c0 to %k step %c64 stages 3 {
      tile.copy %A[%m0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<128x64xf16, shared>
      tile.copy %B[%kk, %n0] to %sB : !tile.buffer<?x?xf16, global> to !tile.buffer<64x128xf16, shared>
      tile.copy %sA to %fA : !tile.buffer<128x64xf16, shared> to !tile.buffer<128x64xf16, fragment>
      tile.gemm %fA, %sB, %acc : !tile.buffer<128x64xf16, fragment>, !tile.buffer<64x128xf16, shared>, !tile.buffer<128x128xf32, fragment>
    }
    tile.copy %acc to %C[%m0, %n0] : !tile.buffer<128x128xf32, fragment> to !tile.buffer<?x?xf32, global>
    return
  }

  // wgmma with A in registers (RS): A goes shared -> fragment (the
  // accumulator's layout, which is the wgmma A fragment) before the gemm.
  func.func @gemm_bf16_nt_rs_wgmma_128x128x64(
      %pa: !tile.ptr<bf16> {tile.name = "A"}, %pb: !tile.ptr<bf16> {tile.name = "B"},
      %pc: !tile.ptr<f32> {tile.name = "C"},
      %M: i32 {tile.name = "M"}, %N: i32 {tile.name = "N"}, %K: i32 {tile.name = "K"})
      attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma",
                  tile.meta = {op = "gemm", block_m = 128 : i64, block_n = 128 : i64,
                               block_k = 64 : i64, transpose_a = 0 : i64,
                               transpose_b = 1 : i64, requires_divisible = 1 : i64}} {
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
    %n0 = arith.muli %bx, %c128 : index
    %m0 = arith.muli %by, %c128 : index
    %sA = tile.alloc : !tile.buffer<128x64xbf16, shared>
    %sB = tile.alloc : !tile.buffer<128x64xbf16, shared>
    %fA = tile.alloc : !tile.buffer<128x64xbf16, fragment>
    %acc = tile.alloc : !tile.buffer<128x128xf32, fragment>
    tile.fill %acc, %zero : !tile.buffer<128x128xf32, fragment>, f32
    tile.for %kk = %c0 to %k step %c64 stages 3 {
      tile.copy %A[%m0, %kk] to %sA : !tile.buffer<?x?xbf16, global> to !tile.buffer<128x64xbf16, shared>
      tile.copy %B[%n0, %kk] to %sB : !tile.buffer<?x?xbf16, global> to !tile.buffer<128x64xbf16, shared>
      tile.copy %sA to %fA : !tile.buffer<128x64xbf16, shared> to !tile.buffer<128x64xbf16, fragment>
      tile.gemm %fA, %sB, %acc {transpose_b} : !tile.buffer<128x64xbf16, fragment>, !tile.buffer<128x64xbf16, shared>, !tile.buffer<128x128xf32, fragment>
    }
    tile.copy %acc to %C[%m0, %n0] : !tile.buffer<128x128xf32, fragment> to !tile.buffer<?x?xf32, global>
    return
  }
  // Two warpgroups splitting N (#tile.mma<warps = [4, 2], engine = wgmma>):
  // each issues m64n32k16 on its 32 columns; with B [K][N] warpgroup 1's
  // operand starts 64 bytes into the 128-byte swizzle box, with B [N][K]
  // 32 rows in. The layout of the GDN chunk step's 64-row products.
  func.func @gemm_f16_wgmma_wn2_64x64x64(
      %pa: !tile.ptr<f16> {tile.name = "A"}, %pb: !tile.ptr<f16> {tile.name = "B"},
      %pc: !tile.ptr<f32> {tile.name = "C"},
      %M: i32 {tile.name = "M"}, %N: i32 {tile.name = "N"}, %K: i32 {tile.name = "K"})
      attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma",
                  tile.meta = {op = "gemm", block_m = 64 : i64, block_n = 64 : i64,
                               block_k = 64 : i64, transpose_a = 0 : i64,
                               transpose_b = 0 : i64, requires_divisible = 1 : i64}} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %m = arith.index_cast %M : i32 to index
    %n = arith.index_cast %N : i32 to index
    %k = arith.index_cast %K : i32 to index
    %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
    %B = tile.view %pb[%k, %n] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
    %C = tile.view %pc[%m, %n] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
    %bx = tile.program_id x
    %by = tile.program_id y
    %n0 = arith.muli %bx, %c64 : index
    %m0 = arith.muli %by, %c64 : index
    %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
    %sB = tile.alloc : !tile.buffer<64x64xf16, shared>
    %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
    tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
    tile.for %kk = %c0 to %k step %c64 stages 3 {
      tile.copy %A[%m0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
      tile.copy %B[%kk, %n0] to %sB : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
      tile.gemm %sA, %sB, %acc : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
    }
    tile.copy %acc to %C[%m0, %n0] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<?x?xf32, global>
    return
  }

  func.func @gemm_bf16_nt_wgmma_wn2_64x64x64(
      %pa: !tile.ptr<bf16> {tile.name = "A"}, %pb: !tile.ptr<bf16> {tile.name = "B"},
      %pc: !tile.ptr<f32> {tile.name = "C"},
      %M: i32 {tile.name = "M"}, %N: i32 {tile.name = "N"}, %K: i32 {tile.name = "K"})
      attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma",
                  tile.meta = {op = "gemm", block_m = 64 : i64, block_n = 64 : i64,
                               block_k = 64 : i64, transpose_a = 0 : i64,
                               transpose_b = 1 : i64, requires_divisible = 1 : i64}} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
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
    %m0 = arith.muli %by, %c64 : index
    %sA = tile.alloc : !tile.buffer<64x64xbf16, shared>
    %sB = tile.alloc : !tile.buffer<64x64xbf16, shared>
    %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
    tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
    tile.for %kk = %c0 to %k step %c64 stages 3 {
      tile.copy %A[%m0, %kk] to %sA : !tile.buffer<?x?xbf16, global> to !tile.buffer<64x64xbf16, shared>
      tile.copy %B[%n0, %kk] to %sB : !tile.buffer<?x?xbf16, global> to !tile.buffer<64x64xbf16, shared>
      tile.gemm %sA, %sB, %acc {transpose_b} : !tile.buffer<64x64xbf16, shared>, !tile.buffer<64x64xbf16, shared>, !tile.buffer<64x64xf32, fragment>
    }
    tile.copy %acc to %C[%m0, %n0] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<?x?xf32, global>
    return
  }
  // The hardware's 64- and 32-byte swizzles on wgmma operands (layouts set
  // in the kernel text: tile-assign-layouts picks 128 bytes): descriptor
  // modes 2 and 3, boxes of 32 and 16 f16 columns.
  func.func @gemm_f16_wgmma_swz64_64x64x64(
      %pa: !tile.ptr<f16> {tile.name = "A"}, %pb: !tile.ptr<f16> {tile.name = "B"},
      %pc: !tile.ptr<f32> {tile.name = "C"},
      %M: i32 {tile.name = "M"}, %N: i32 {tile.name = "N"}, %K: i32 {tile.name = "K"})
      attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma",
                  tile.meta = {op = "gemm", block_m = 64 : i64, block_n = 64 : i64,
                               block_k = 64 : i64, transpose_a = 0 : i64,
                               transpose_b = 0 : i64, requires_divisible = 1 : i64}} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %m = arith.index_cast %M : i32 to index
    %n = arith.index_cast %N : i32 to index
    %k = arith.index_cast %K : i32 to index
    %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
    %B = tile.view %pb[%k, %n] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
    %C = tile.view %pc[%m, %n] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
    %bx = tile.program_id x
    %by = tile.program_id y
    %n0 = arith.muli %bx, %c64 : index
    %m0 = arith.muli %by, %c64 : index
    %sA = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
    %sB = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
    %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
    tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
    tile.for %kk = %c0 to %k step %c64 stages 3 {
      tile.copy %A[%m0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
      tile.copy %B[%kk, %n0] to %sB : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
      tile.gemm %sA, %sB, %acc : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>, !tile.buffer<64x64xf32, fragment>
    }
    tile.copy %acc to %C[%m0, %n0] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<?x?xf32, global>
    return
  }

  func.func @gemm_bf16_nt_wgmma_swz32_64x64x64(
      %pa: !tile.ptr<bf16> {tile.name = "A"}, %pb: !tile.ptr<bf16> {tile.name = "B"},
      %pc: !tile.ptr<f32> {tile.name = "C"},
      %M: i32 {tile.name = "M"}, %N: i32 {tile.name = "N"}, %K: i32 {tile.name = "K"})
      attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma",
                  tile.meta = {op = "gemm", block_m = 64 : i64, block_n = 64 : i64,
                               block_k = 64 : i64, transpose_a = 0 : i64,
                               transpose_b = 1 : i64, requires_divisible = 1 : i64}} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
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
    %m0 = arith.muli %by, %c64 : index
    %sA = tile.alloc : !tile.buffer<64x64xbf16, shared, #tile.swizzle<32>>
    %sB = tile.alloc : !tile.buffer<64x64xbf16, shared, #tile.swizzle<32>>
    %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
    tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
    tile.for %kk = %c0 to %k step %c64 stages 3 {
      tile.copy %A[%m0, %kk] to %sA : !tile.buffer<?x?xbf16, global> to !tile.buffer<64x64xbf16, shared, #tile.swizzle<32>>
      tile.copy %B[%n0, %kk] to %sB : !tile.buffer<?x?xbf16, global> to !tile.buffer<64x64xbf16, shared, #tile.swizzle<32>>
      tile.gemm %sA, %sB, %acc {transpose_b} : !tile.buffer<64x64xbf16, shared, #tile.swizzle<32>>, !tile.buffer<64x64xbf16, shared, #tile.swizzle<32>>, !tile.buffer<64x64xf32, fragment>
    }
    tile.copy %acc to %C[%m0, %n0] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<?x?xf32, global>
    return
  }
  // A TMA-store epilogue: the accumulator goes to shared memory, then one
  // thread stores the 64x64 f32 tile with cp.async.bulk.tensor (the
  // barrier before it carries the generic-to-async proxy fence) and waits
  // until the source has been read.
  func.func @gemm_f16_wgmma_tmastore_64x64x64(
      %pa: !tile.ptr<f16> {tile.name = "A"}, %pb: !tile.ptr<f16> {tile.name = "B"},
      %pc: !tile.ptr<f32> {tile.name = "C"},
      %mapC: !tile.tensormap<64x64xf32, swizzle = 0> {tile.name = "C_tma", tile.tensor_map = {base = "C", dims = ["M", "N"], strides = ["N"]}},
      %M: i32 {tile.name = "M"}, %N: i32 {tile.name = "N"}, %K: i32 {tile.name = "K"})
      attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma",
                  tile.meta = {op = "gemm", block_m = 64 : i64, block_n = 64 : i64,
                               block_k = 64 : i64, transpose_a = 0 : i64,
                               transpose_b = 0 : i64, requires_divisible = 1 : i64}} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %m = arith.index_cast %M : i32 to index
    %n = arith.index_cast %N : i32 to index
    %k = arith.index_cast %K : i32 to index
    %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
    %B = tile.view %pb[%k, %n] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
    %bx = tile.program_id x
    %by = tile.program_id y
    %n0 = arith.muli %bx, %c64 : index
    %m0 = arith.muli %by, %c64 : index
    %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
    %sB = tile.alloc : !tile.buffer<64x64xf16, shared>
    %sC = tile.alloc : !tile.buffer<64x64xf32, shared>
    %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
    tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
    tile.for %kk = %c0 to %k step %c64 stages 3 {
      tile.copy %A[%m0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
      tile.copy %B[%kk, %n0] to %sB : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
      tile.gemm %sA, %sB, %acc : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
    }
    tile.copy %acc to %sC : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, shared>
    tile.producer {
      tile.tma_store %sC to %mapC[%m0, %n0] : !tile.buffer<64x64xf32, shared>, !tile.tensormap<64x64xf32, swizzle = 0>
      tile.tma_store_wait {read}
    }
    return
  }
  // The narrowest wgmma, m64n8k16: a 64x8 tile of C from B stored [N][K]
  // (an 8 x 64 K-major operand, 128-byte rows).
  func.func @gemm_bf16_nt_wgmma_n8_64x8x64(
      %pa: !tile.ptr<bf16> {tile.name = "A"}, %pb: !tile.ptr<bf16> {tile.name = "B"},
      %pc: !tile.ptr<f32> {tile.name = "C"},
      %M: i32 {tile.name = "M"}, %N: i32 {tile.name = "N"}, %K: i32 {tile.name = "K"})
      attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma",
                  tile.meta = {op = "gemm", block_m = 64 : i64, block_n = 8 : i64,
                               block_k = 64 : i64, transpose_a = 0 : i64,
                               transpose_b = 1 : i64, requires_divisible = 1 : i64}} {
    %c0 = arith.constant 0 : index
    %c8 = arith.constant 8 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %m = arith.index_cast %M : i32 to index
    %n = arith.index_cast %N : i32 to index
    %k = arith.index_cast %K : i32 to index
    %A = tile.view %pa[%m, %k] : !tile.ptr<bf16> -> !tile.buffer<?x?xbf16, global>
    %B = tile.view %pb[%n, %k] : !tile.ptr<bf16> -> !tile.buffer<?x?xbf16, global>
    %C = tile.view %pc[%m, %n] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
    %bx = tile.program_id x
    %by = tile.program_id y
    %n0 = arith.muli %bx, %c8 : index
    %m0 = arith.muli %by, %c64 : index
    %sA = tile.alloc : !tile.buffer<64x64xbf16, shared>
    %sB = tile.alloc : !tile.buffer<8x64xbf16, shared>
    %acc = tile.alloc : !tile.buffer<64x8xf32, fragment>
    tile.fill %acc, %zero : !tile.buffer<64x8xf32, fragment>, f32
    tile.for %kk = %c0 to %k step %c64 stages 3 {
      tile.copy %A[%m0, %kk] to %sA : !tile.buffer<?x?xbf16, global> to !tile.buffer<64x64xbf16, shared>
      tile.copy %B[%n0, %kk] to %sB : !tile.buffer<?x?xbf16, global> to !tile.buffer<8x64xbf16, shared>
      tile.gemm %sA, %sB, %acc {transpose_b} : !tile.buffer<64x64xbf16, shared>, !tile.buffer<8x64xbf16, shared>, !tile.buffer<64x8xf32, fragment>
    }
    tile.copy %acc to %C[%m0, %n0] : !tile.buffer<64x8xf32, fragment> to !tile.buffer<?x?xf32, global>
    return
  }
}
