// The GDN prefill kernels (kernels/gdn_prefill/gdn_prefill.mlir.in) through
// each pass and the whole pipeline, for both input types.
// RUN: sed s/@DT@/f16/g %gdn_kernels/gdn_prefill/gdn_prefill.mlir.in > %t.f16.mlir
// RUN: gdn-opt %t.f16.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize,tile-assign-layouts))' | FileCheck %s --check-prefix=LAYOUT
// RUN: gdn-opt %t.f16.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize,tile-assign-layouts,tile-pipeline))' | FileCheck %s --check-prefix=PIPE
// RUN: gdn-opt %t.f16.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize,tile-assign-layouts,tile-pipeline,canonicalize,tile-plan-shared-memory))' | FileCheck %s --check-prefix=PLAN
// RUN: gdn-opt %t.f16.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize,tile-assign-layouts,tile-pipeline,canonicalize,tile-plan-shared-memory,tile-insert-barriers))' | FileCheck %s --check-prefix=BAR
// RUN: rm -rf %t.out && mkdir -p %t.out
// RUN: gdn-opt %t.f16.mlir --gdn-lower-to-ptx="output-dir=%t.out" -o /dev/null
// RUN: FileCheck %s --check-prefix=PREP --input-file=%t.out/gdn_chunk_prep_f16.manifest
// RUN: FileCheck %s --check-prefix=FWD --input-file=%t.out/gdn_chunk_fwd_f16.manifest
// RUN: FileCheck %s --check-prefix=SUMM --input-file=%t.out/gdn_cp_summary_f16.manifest
// RUN: FileCheck %s --check-prefix=SCAN --input-file=%t.out/gdn_cp_scan_f16.manifest
// RUN: FileCheck %s --check-prefix=REPLAY --input-file=%t.out/gdn_cp_replay_f16.manifest
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.out/gdn_prefill_f16.ptx
// RUN: sed s/@DT@/bf16/g %gdn_kernels/gdn_prefill/gdn_prefill.mlir.in > %t.bf16.mlir
// RUN: gdn-opt %t.bf16.mlir --gdn-lower-to-ptx="output-dir=%t.out" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTXBF --input-file=%t.out/gdn_prefill_bf16.ptx

// Thread distribution: the prep kernel runs its gemms on wgmma, so its
// chunk-local matrices get the wgmma grid [4, 1]; in the forward kernel the
// [128 x 16] state and the [64 x 16] value tiles get 4x1 mma.sync grids
// (16-wide N per warp); fragments outside gemms are blocked; gemm operands
// are swizzled.
// LAYOUT-LABEL: func.func @gdn_chunk_prep_f16
// LAYOUT: tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
// LAYOUT: tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
// LAYOUT: tile.alloc : !tile.buffer<64x64xf32, shared>
// LAYOUT-NEXT: tile.reduce add
// LAYOUT: tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1]>>
// LAYOUT-LABEL: func.func @gdn_chunk_fwd_f16
// LAYOUT: tile.alloc : !tile.buffer<128x16xf32, fragment, #tile.mma<warps = [4, 1]>>
// LAYOUT: tile.alloc : !tile.buffer<64x16xf32, fragment, #tile.mma<warps = [4, 1]>>
// LAYOUT: tile.copy %{{.*}} to %{{.*}} {layout = #tile.blocked<vector = 1>, masked} : !tile.buffer<?xf32, global> to !tile.buffer<64xf32, shared>

// Software pipelining of the chunk loop: six two-stage buffers, the copies
// of chunk c+1 issued while chunk c computes.
// PIPE-LABEL: func.func @gdn_chunk_fwd_f16
// PIPE-COUNT-6: tile.alloc : !tile.buffer<2x
// PIPE: scf.for
// PIPE: tile.async_wait {pending = 0 : i64}
// PIPE-NEXT: tile.barrier
// PIPE: tile.async_copy
// PIPE: tile.async_commit

// The shared-memory plan: sizes recorded on the kernels.
// PLAN-LABEL: func.func @gdn_chunk_prep_f16
// PLAN-SAME: tile.shared_memory_bytes = 49280
// PLAN-LABEL: func.func @gdn_chunk_fwd_f16
// PLAN-SAME: tile.shared_memory_bytes = 113152
// PLAN: tile.alloc {offset = 0 : i64} : !tile.buffer<2x64x128xf16, shared, #tile.swizzle<128>>

// Barriers: the reduce scratch reuses the bytes of g, read by the map
// before it, so a barrier separates them.
// BAR-LABEL: func.func @gdn_chunk_prep_f16
// BAR: tile.map indexed outs
// BAR: tile.barrier
// BAR-NEXT: tile.reduce add

// PREP: kernel = gdn_chunk_prep_f16
// PREP: shared_bytes = 49280
// PREP: param = q:ptr<f16>
// PREP: param = scale:f32
// PREP: meta.grid = NT,HV,1
// PREP: meta.order = 0
// PREP: meta.ws_Ag = B*T*HV*64
// FWD: kernel = gdn_chunk_fwd_f16
// FWD: block = 128,1,1
// FWD: param = h0:ptr<f32>
// FWD: param = has_h0:i32
// FWD: meta.grid = 8,HV,N
// FWD: meta.order = 1
// FWD: meta.path = direct

// The CP path: the summary runs the shared chunk loop without O (no q, P,
// o parameters, no Q/P buffers: 62 KB of shared memory instead of 113 KB);
// the scan keeps two stages of the three bf16 parts of M_s (3 x 32 KB) and
// of B_s (8 KB).
// SUMM: kernel = gdn_cp_summary_f16
// SUMM: shared_bytes = 61952
// SUMM-NOT: param = q:
// SUMM-NOT: param = P:
// SUMM-NOT: param = o:
// SUMM: param = cp_bounds:ptr<i32>
// SUMM: param = cp_B:ptr<f32>
// SUMM: param = cp_M:ptr<bf16>
// SUMM: param = NS:i32
// SUMM: meta.grid = 16,HV,NS
// SUMM: meta.order = 1
// SUMM: meta.path = cp
// SUMM: meta.ws_cp_B = NS*HV*16384
// SUMM: meta.ws_cp_M = 3*NS*HV*16384
// SCAN: kernel = gdn_cp_scan_f16
// SCAN: shared_bytes = 225280
// SCAN: param = h0:ptr<f32>
// SCAN: param = cp_h:ptr<f32>
// SCAN: meta.grid = 8,HV,N
// SCAN: meta.order = 2
// SCAN: meta.path = cp
// SCAN: meta.ws_cp_h = NS*HV*16384
// REPLAY: kernel = gdn_cp_replay_f16
// REPLAY: shared_bytes = 113152
// REPLAY: param = cp_h:ptr<f32>
// REPLAY: param = o:ptr<f16>
// REPLAY: param = ht:ptr<f32>
// REPLAY: meta.grid = 8,HV,NS
// REPLAY: meta.order = 3
// REPLAY: meta.path = cp

// PTX: .target sm_90a
// PTX: .entry gdn_chunk_prep_f16
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX: .entry gdn_chunk_fwd_f16
// PTX: cp.async.cg.shared.global
// PTX: ex2.approx.ftz.f32
// PTXBF: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PTXBF: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
