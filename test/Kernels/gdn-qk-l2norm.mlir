// The optional first stage of the GDN prefill (kernels/gdn_prefill/
// gdn_qk_l2norm.mlir.in): q and k L2-normalized over the head dimension
// into the workspaces q_l2 and k_l2, which the later stages read (the
// runtime rebinds them; GdnSequence.h, meta.when). Per dtype: the manifest's
// contract and the numerics in the PTX (a correctly rounded square root
// and reciprocal per row, one rounding to 16 bits per element).
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed s/@DT@/f16/g %gdn_kernels/gdn_prefill/gdn_qk_l2norm.mlir.in > %t/f16.mlir
// RUN: sed s/@DT@/bf16/g %gdn_kernels/gdn_prefill/gdn_qk_l2norm.mlir.in > %t/bf16.mlir
// RUN: gdn-opt %t/f16.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize,tile-assign-layouts))' | FileCheck %s --check-prefix=LAYOUT
// RUN: gdn-opt %t/f16.mlir --gdn-lower-to-ptx="index-bitwidth=32 output-dir=%t" -o /dev/null
// RUN: gdn-opt %t/bf16.mlir --gdn-lower-to-ptx="output-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=MANIFEST --input-file=%t/gdn_qk_l2norm_f16.manifest
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/gdn_qk_l2norm_f16.ptx
// RUN: FileCheck %s --check-prefix=BF16 --input-file=%t/gdn_qk_l2norm_bf16.manifest

// One body, inlined into both branches (q: grid y = 0, k: y = 1): the
// sum of squares is a row reduction of the f32 fragment (in-warp: a row is
// 32 lanes' vectors of 4, so its scratch is one f32 per row), the scale a
// per-row value read back from shared memory.
// LAYOUT-LABEL: func.func @gdn_qk_l2norm_f16
// LAYOUT:       scf.if
// LAYOUT:         tile.copy {{.*}} {layout = #tile.blocked<vector = 8>, masked} : !tile.buffer<?x128xf16, global> to !tile.buffer<64x128xf16, shared>
// LAYOUT:         tile.reduce add {{.*}} scratch({{.*}} : !tile.buffer<64xf32, shared>) {dim = 1 : i64}
// LAYOUT:         math.sqrt
// LAYOUT:         arith.divf
// LAYOUT:         tile.copy {{.*}} {masked} : !tile.buffer<64x128xf32, fragment{{.*}}> to !tile.buffer<?x128xf16, global>
// LAYOUT:       } else {
// LAYOUT:         tile.reduce add

// MANIFEST: kernel = gdn_qk_l2norm_f16
// MANIFEST: block = 128,1,1
// MANIFEST: index_bits = 32
// MANIFEST: param = q:ptr<f16>
// MANIFEST-NEXT: param = k:ptr<f16>
// MANIFEST-NEXT: param = q_l2:ptr<f16>
// MANIFEST-NEXT: param = k_l2:ptr<f16>
// MANIFEST: meta.grid = cdiv(B*T*H, 64),2,1
// MANIFEST: meta.order = 1
// MANIFEST: meta.stage = qk_l2norm
// MANIFEST: meta.when = qk_l2norm
// MANIFEST: meta.ws_k_l2 = B*T*H*128
// MANIFEST: meta.ws_q_l2 = B*T*H*128

// PTX: .entry gdn_qk_l2norm_f16
// PTX-DAG: sqrt.rn.f32
// PTX-DAG: rcp.rn.f32
// PTX-NOT: sqrt.approx
// PTX-NOT: rsqrt.approx

// BF16: kernel = gdn_qk_l2norm_bf16
// BF16-NOT: index_bits
// BF16: param = q:ptr<bf16>
// BF16: meta.when = qk_l2norm
