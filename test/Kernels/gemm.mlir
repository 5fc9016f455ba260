// Compiles kernels/gemm/gemm.mlir with the full pipeline and checks the
// launch manifests gdn-run reads (every line) and the kernels in the PTX.
// test/Kernels/gemm-ptxas.mlir assembles the same PTX with ptxas.
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: gdn-opt %gdn_kernels/gemm/gemm.mlir --gdn-lower-to-ptx="output-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=F16 --match-full-lines --input-file=%t/gemm_f16_128x128x64.manifest
// RUN: FileCheck %s --check-prefix=BF16 --match-full-lines --input-file=%t/gemm_bf16_nt_128x128x64.manifest
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/gemm.ptx

// 3 stages x (128x64 A + 64x128 B) x 2 bytes = 96 KiB of shared memory.

// F16:      # launch manifest written by gdn-opt (gdn-export-ptx)
// F16-NEXT: gdn_manifest = 1
// F16-NEXT: kernel = gemm_f16_128x128x64
// F16-NEXT: ptx = gemm.ptx
// F16-NEXT: ptx_hash = fnv1a64w:{{[0-9a-f]{16}$}}
// F16-NEXT: target = sm_90a
// F16-NEXT: block = 128,1,1
// F16-NEXT: shared_bytes = 98304
// F16-NEXT: requires_multiple.K = 8
// F16-NEXT: requires_multiple.N = 8
// F16-NEXT: param = A:ptr<f16>
// F16-NEXT: param = B:ptr<f16>
// F16-NEXT: param = C:ptr<f32>
// F16-NEXT: param = M:i32
// F16-NEXT: param = N:i32
// F16-NEXT: param = K:i32
// F16-NEXT: meta.block_k = 64
// F16-NEXT: meta.block_m = 128
// F16-NEXT: meta.block_n = 128
// F16-NEXT: meta.op = gemm
// F16-NEXT: meta.requires_divisible = 1
// F16-NEXT: meta.transpose_a = 0
// F16-NEXT: meta.transpose_b = 0
// F16-NOT:  {{.}}

// BF16:      # launch manifest written by gdn-opt (gdn-export-ptx)
// BF16-NEXT: gdn_manifest = 1
// BF16-NEXT: kernel = gemm_bf16_nt_128x128x64
// BF16-NEXT: ptx = gemm.ptx
// BF16-NEXT: ptx_hash = fnv1a64w:{{[0-9a-f]{16}$}}
// BF16-NEXT: target = sm_90a
// BF16-NEXT: block = 128,1,1
// BF16-NEXT: shared_bytes = 98304
// BF16-NEXT: requires_multiple.K = 8
// BF16-NEXT: requires_multiple.N = 2
// BF16-NEXT: param = A:ptr<bf16>
// BF16-NEXT: param = B:ptr<bf16>
// BF16-NEXT: param = C:ptr<f32>
// BF16-NEXT: param = M:i32
// BF16-NEXT: param = N:i32
// BF16-NEXT: param = K:i32
// BF16-NEXT: meta.block_k = 64
// BF16-NEXT: meta.block_m = 128
// BF16-NEXT: meta.block_n = 128
// BF16-NEXT: meta.op = gemm
// BF16-NEXT: meta.requires_divisible = 1
// BF16-NEXT: meta.transpose_a = 0
// BF16-NEXT: meta.transpose_b = 1
// BF16-NOT:  {{.}}

// The instruction order inside a kernel is LLVM's block layout: DAG.
// PTX:      .target sm_90a
// PTX:      .extern .shared .align 1024 .b8 __tile_smem[];
// PTX:      .visible .entry gemm_f16_128x128x64(
// PTX:      .maxntid 128, 1, 1
// PTX-DAG:  cp.async.cg.shared.global
// PTX-DAG:  cp.async.wait_group 1;
// PTX-DAG:  ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16
// PTX-DAG:  mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PTX:      .visible .entry gemm_bf16_nt_128x128x64(
// PTX:      .maxntid 128, 1, 1
// PTX-DAG:  cp.async.cg.shared.global
// PTX-DAG:  cp.async.wait_group 1;
// PTX-DAG:  mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// wgmma with A in registers: the A fragment is packed into four 32-bit
// registers per k-step and fed to the register form (B's transpose bit: 1
// for B [K][N], 0 for B [N][K]).
// PTX:      .visible .entry gemm_f16_rs_wgmma_128x128x64(
// PTX:      .maxntid 256, 1, 1
// PTX:      wgmma.fence.sync.aligned;
// PTX:      wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// PTX:      wgmma.wait_group.sync.aligned 0;
// PTX:      .visible .entry gemm_bf16_nt_rs_wgmma_128x128x64(
// PTX:      wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 0;
// Two warpgroups splitting N: m64n32 each (B [K][N]: transposed B, 1).
// PTX:      .visible .entry gemm_f16_wgmma_wn2_64x64x64(
// PTX:      .maxntid 256, 1, 1
// PTX:      wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 1;
// PTX:      .visible .entry gemm_bf16_nt_wgmma_wn2_64x64x64(
// PTX:      wgmma.mma_async.sync.aligned.m64n32k16.f32.bf16.bf16 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// PTX:      .visible .entry gemm_f16_wgmma_swz64_64x64x64(
// PTX:      wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX:      .visible .entry gemm_bf16_nt_wgmma_swz32_64x64x64(
// PTX:      wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// The TMA-store epilogue: the accumulator through shared memory, the
// proxy fence and barrier, one bulk-tensor store, commit, wait for reads.
// PTX:      .visible .entry gemm_f16_wgmma_tmastore_64x64x64(
// PTX:      st.shared.v2.f32
// PTX:      fence.proxy.async.shared::cta;
// PTX:      bar.sync 0;
// PTX:      cp.async.bulk.tensor.2d.global.shared::cta.bulk_group
// PTX:      cp.async.bulk.commit_group;
// PTX-NEXT: cp.async.bulk.wait_group.read 0;
// PTX:      .visible .entry gemm_bf16_nt_wgmma_n8_64x8x64(
// PTX:      wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16
// PTX-NOT:  .entry
