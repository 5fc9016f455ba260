// REQUIRES: ptxas
// The Hopper GEMM (kernels/gemm/gemm_hopper.mlir.in) through the whole
// pipeline, f16 and bf16: the manifests (tensor maps, 384 threads = two
// consumer warpgroups + the producer warpgroup, the 4-stage ring's shared
// memory), the sm_90a machinery in the PTX, and ptxas (no warning, no
// spill, setmaxnreg honoured: a register cap at entry).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed s/@DT@/f16/g %gdn_kernels/gemm/gemm_hopper.mlir.in > %t/f16.mlir
// RUN: sed s/@DT@/bf16/g %gdn_kernels/gemm/gemm_hopper.mlir.in > %t/bf16.mlir
// RUN: gdn-opt %t/f16.mlir --gdn-lower-to-ptx="output-dir=%t" -o /dev/null
// RUN: gdn-opt %t/bf16.mlir --gdn-lower-to-ptx="output-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=NN --match-full-lines --input-file=%t/gemm_f16_ws_128x256x64.manifest
// RUN: FileCheck %s --check-prefix=NT --input-file=%t/gemm_bf16_nt_ws_128x256x64.manifest
// RUN: FileCheck %s --check-prefix=TN --input-file=%t/gemm_f16_tn_ws_128x256x64.manifest
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/gemm_hopper_f16.ptx
// RUN: %ptxas -arch=sm_90a -v %t/gemm_hopper_f16.ptx -o %t/f16.cubin > %t/ptxas.log 2>&1
// RUN: %ptxas -arch=sm_90a -v %t/gemm_hopper_bf16.ptx -o %t/bf16.cubin >> %t/ptxas.log 2>&1
// RUN: FileCheck %s --check-prefix=PTXAS --implicit-check-not=warning --input-file=%t/ptxas.log

// 4 stages x (128x64 A + 64x256 B) x 2 bytes = 192 KiB, then the 2 x 4
// mbarriers (1024-aligned stages first, barriers after them).
// NN:      # launch manifest written by gdn-opt (gdn-export-ptx)
// NN-NEXT: gdn_manifest = 1
// NN-NEXT: kernel = gemm_f16_ws_128x256x64
// NN-NEXT: ptx = gemm_hopper_f16.ptx
// NN-NEXT: ptx_hash = fnv1a64w:{{[0-9a-f]{16}$}}
// NN-NEXT: target = sm_90a
// NN-NEXT: block = 384,1,1
// NN-NEXT: shared_bytes = 196768
// NN-NEXT: requires_multiple.K = 8
// NN-NEXT: requires_multiple.N = 8
// NN-NEXT: param = A:ptr<f16>
// NN-NEXT: param = B:ptr<f16>
// NN-NEXT: param = C:ptr<f32>
// NN-NEXT: param = M:i32
// NN-NEXT: param = N:i32
// NN-NEXT: param = K:i32
// NN-NEXT: param = A_tma:tensormap
// NN-NEXT: param = B_tma:tensormap
// NN-NEXT: tensormap.A_tma = base=A; dims=K, M; strides=K; box=64, 128; swizzle=128; l2=256; fill=zero
// NN-NEXT: tensormap.B_tma = base=B; dims=N, K; strides=N; box=64, 64; swizzle=128; l2=256; fill=zero
// NN-NEXT: meta.block_k = 64
// NN-NEXT: meta.block_m = 128
// NN-NEXT: meta.block_n = 256
// NN-NEXT: meta.op = gemm
// NN-NEXT: meta.persistent = 1
// NN-NEXT: meta.requires_divisible = 1
// NN-NEXT: meta.transpose_a = 0
// NN-NEXT: meta.transpose_b = 0
// NN-NOT:  {{.}}

// B stored [N][K] (K-major): one 256-row box of 64 columns.
// NT: tensormap.B_tma = base=B; dims=K, N; strides=K; box=64, 256; swizzle=128; l2=256; fill=zero
// A stored [K][M] (MN-major): two 64-column boxes of 64 rows per stage.
// TN: tensormap.A_tma = base=A; dims=M, K; strides=M; box=64, 64; swizzle=128; l2=256; fill=zero

// PTX:      .visible .entry gemm_f16_ws_128x256x64(
// PTX:      .param .align 64 .b8 gemm_f16_ws_128x256x64_param_6[128],
// PTX-NEXT: .param .align 64 .b8 gemm_f16_ws_128x256x64_param_7[128]
// PTX:      .maxntid 384, 1, 1
// PTX-NEXT: .minnctapersm 1
// PTX-DAG:  mbarrier.init.shared.b64
// PTX-DAG:  fence.mbarrier_init.release.cluster;
// PTX-DAG:  setmaxnreg.dec.sync.aligned.u32 40;
// PTX-DAG:  setmaxnreg.inc.sync.aligned.u32 232;
// PTX-DAG:  mbarrier.arrive.expect_tx.shared.b64 _, [%r{{[0-9]+}}], 49152;
// PTX-DAG:  cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes
// PTX-DAG:  mbarrier.try_wait.parity.shared.b64
// PTX-DAG:  mbarrier.arrive.shared.b64
// PTX-DAG:  wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16
// PTX-DAG:  wgmma.wait_group.sync.aligned 1;
// PTX-DAG:  wgmma.wait_group.sync.aligned 0;
// PTX-DAG:  bar.sync {{.*}}, {{.*}};

// PTXAS:     Function properties for gemm_f16_ws_128x256x64
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS-NEXT: Used 168 registers, used 2 barriers
