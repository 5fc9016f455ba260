// RUN: gdn-opt %s --gdn-lower-to-ptx | FileCheck %s
// RUN: gdn-opt %s --gdn-lower-to-ptx="opt-level=2" | FileCheck %s --check-prefix=O2
// RUN: not gdn-opt %s --gdn-lower-to-ptx="chip=sm_80" 2>&1 | FileCheck %s --check-prefix=SM80

// The whole pipeline on a small 2-stage gemm: the module keeps its launch
// interface (gdn.kernels) and holds one gpu.binary with the sm_90a PTX,
// which has the 16-byte cp.async of the pipeline, the ldmatrix loads (plain
// for A, transposed for B stored [K][N]) and the m16n8k16 tensor-core mma.

// CHECK-LABEL: module @small_gemm attributes {gdn.kernels = {gemm_64x64x32 = {block = [128, 1, 1], module = "small_gemm", params = ["A:ptr<f16>", "B:ptr<f16>", "C:ptr<f32>", "K:i32"], requires_multiple = {K = 8 : i64}, shared_bytes = 16384 : i64}}, gpu.container_module}
// CHECK-NOT:   gpu.module
// CHECK-NOT:   func.func
// CHECK:       gpu.binary @small_gemm [#gpu.object<#nvvm.target<O = 3, chip = "sm_90a", features = "+ptx80">, properties = {O = 3 : i32}, assembly = "
// CHECK-SAME:  .target sm_90a\0A
// CHECK-SAME:  .extern .shared .align 1024 .b8 __tile_smem[];
// CHECK-SAME:  .visible .entry gemm_64x64x32(
// CHECK-SAME:  .maxntid 128, 1, 1
// CHECK-DAG:   cp.async.cg.shared.global [%r{{[0-9]+}}], [%rd{{[0-9]+}}], 16, 16;
// CHECK-DAG:   cp.async.commit_group;
// CHECK-DAG:   cp.async.wait_group 0;
// CHECK-DAG:   bar.sync
// CHECK-DAG:   ldmatrix.sync.aligned.m8n8.x4.shared.b16
// CHECK-DAG:   ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// CHECK-DAG:   mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT:   gpu.module
// CHECK-NOT:   llvm.func

// O2:         gpu.binary @small_gemm [#gpu.object<#nvvm.target<chip = "sm_90a", features = "+ptx80">, properties = {O = 2 : i32}, assembly = "
// O2-SAME:    .target sm_90a\0A
// O2-SAME:    mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32

// Only sm_90a is supported (the kernels use wgmma, setmaxnreg and 227 KiB
// of shared memory); other chips are rejected before anything is compiled
// (gdn-lower-to-ptx-invalid.mlir has the other option errors).
// SM80:       error: gdn-lower-to-ptx: unsupported chip 'sm_80'; supported: sm_90a

module @small_gemm {
  func.func @gemm_64x64x32(%pa: !tile.ptr<f16> {tile.name = "A"}, %pb: !tile.ptr<f16> {tile.name = "B"},
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
}
