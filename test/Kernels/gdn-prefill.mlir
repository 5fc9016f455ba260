// The GDN prefill kernels (kernels/gdn_prefill/gdn_prefill.mlir.in: prep
// and CP scan; gdn_forward.mlir.in: the chunk loop and its direct, CP
// summary and CP replay kernels, per value-column variant) through each pass
// and the whole pipeline, for both input types.
// RUN: %expand-includes %gdn_kernels/gdn_prefill/gdn_prefill.mlir.in %t.prefill.mlir.in
// RUN: %expand-includes %gdn_kernels/gdn_prefill/gdn_forward.mlir.in %t.forward.mlir.in
// RUN: %expand-includes %gdn_kernels/gdn_prefill/gdn_forward_vm.mlir.in %t.forward_vm.mlir.in
// RUN: sed s/@DT@/f16/g %t.prefill.mlir.in > %t.prep.mlir
// RUN: sed s/@DT@/f16/g %t.forward.mlir.in | %instantiate-bv16 > %t.fwd.mlir
// RUN: sed s/@DT@/f16/g %t.forward.mlir.in | %instantiate-bv64 > %t.fwd64.mlir
// RUN: gdn-opt %t.prep.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize,tile-assign-layouts))' | FileCheck %s --check-prefix=LAYOUT-PREP
// RUN: gdn-opt %t.fwd.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize))' | FileCheck %s --check-prefix=FOLD
// RUN: gdn-opt %t.fwd.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize))' | FileCheck %s --check-prefix=SUMMSTORE16
// RUN: gdn-opt %t.fwd.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize,tile-assign-layouts))' | FileCheck %s --check-prefix=LAYOUT
// RUN: gdn-opt %t.fwd.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize,tile-assign-layouts,tile-pipeline))' | FileCheck %s --check-prefix=PIPE
// RUN: gdn-opt %t.prep.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize,tile-assign-layouts,tile-pipeline,canonicalize,tile-plan-shared-memory))' | FileCheck %s --check-prefix=PLAN-PREP
// RUN: gdn-opt %t.fwd.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize,tile-assign-layouts,tile-pipeline,canonicalize,tile-plan-shared-memory))' | FileCheck %s --check-prefix=PLAN
// RUN: gdn-opt %t.prep.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize,tile-assign-layouts,tile-pipeline,canonicalize,tile-plan-shared-memory,tile-insert-barriers))' | FileCheck %s --check-prefix=BAR
// RUN: rm -rf %t.out && mkdir -p %t.out
// RUN: gdn-opt %t.prep.mlir --gdn-lower-to-ptx="output-dir=%t.out" -o /dev/null
// RUN: gdn-opt %t.fwd.mlir --gdn-lower-to-ptx="output-dir=%t.out" -o /dev/null
// RUN: gdn-opt %t.fwd64.mlir --gdn-lower-to-ptx="output-dir=%t.out" -o /dev/null
// RUN: FileCheck %s --check-prefix=PREP --input-file=%t.out/gdn_chunk_prep_f16.manifest
// RUN: FileCheck %s --check-prefix=PREPK --input-file=%t.out/gdn_chunk_prep_k_f16.manifest
// RUN: FileCheck %s --check-prefix=FWD --input-file=%t.out/gdn_chunk_fwd_f16.manifest
// RUN: FileCheck %s --check-prefix=FWD64 --input-file=%t.out/gdn_chunk_fwd_bv64_f16.manifest
// RUN: FileCheck %s --check-prefix=SUMM --input-file=%t.out/gdn_cp_summary_f16.manifest
// RUN: FileCheck %s --check-prefix=SUMM64 --input-file=%t.out/gdn_cp_summary_bv64_f16.manifest
// RUN: FileCheck %s --check-prefix=SCAN --input-file=%t.out/gdn_cp_scan_f16.manifest
// RUN: FileCheck %s --check-prefix=REPLAY --input-file=%t.out/gdn_cp_replay_f16.manifest
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.out/gdn_prefill_f16.ptx
// RUN: FileCheck %s --check-prefix=PTXFWD --input-file=%t.out/gdn_forward_f16.ptx
// RUN: FileCheck %s --check-prefix=PTXFWD64 --input-file=%t.out/gdn_forward_bv64_f16.ptx
// RUN: sed s/@DT@/f16/g %t.forward_vm.mlir.in > %t.vm.mlir
// RUN: gdn-opt %t.vm.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize,tile-assign-layouts))' | FileCheck %s --check-prefix=LAYOUT-VM
// RUN: gdn-opt %t.vm.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize))' | FileCheck %s --check-prefix=SUMMSTORE
// RUN: gdn-opt %t.vm.mlir --gdn-lower-to-ptx="output-dir=%t.out" -o /dev/null
// RUN: FileCheck %s --check-prefix=FWDVM --input-file=%t.out/gdn_chunk_fwd_vm128_f16.manifest
// RUN: FileCheck %s --check-prefix=SUMMVM --input-file=%t.out/gdn_cp_summary_vm128_f16.manifest
// RUN: FileCheck %s --check-prefix=REPLAYVM --input-file=%t.out/gdn_cp_replay_vm128_f16.manifest
// RUN: FileCheck %s --check-prefix=REFVM --input-file=%t.out/gdn_chunk_fwd_vm128_ref_f16.manifest
// RUN: FileCheck %s --check-prefix=SREFVM --input-file=%t.out/gdn_cp_summary_vm128_ref_f16.manifest
// RUN: FileCheck %s --check-prefix=RREFVM --input-file=%t.out/gdn_cp_replay_vm128_ref_f16.manifest
// RUN: FileCheck %s --check-prefix=REF --input-file=%t.out/gdn_chunk_fwd_ref_f16.manifest
// RUN: FileCheck %s --check-prefix=PTXVM --input-file=%t.out/gdn_forward_vm_f16.ptx
// RUN: FileCheck %s --check-prefix=PTXOST --input-file=%t.out/gdn_forward_vm_f16.ptx
// RUN: FileCheck %s --check-prefix=PTXSTM --input-file=%t.out/gdn_forward_vm_f16.ptx
// RUN: FileCheck %s --check-prefix=PTXGATE --input-file=%t.out/gdn_forward_vm_f16.ptx
// RUN: FileCheck %s --check-prefix=PTXNOSUB --input-file=%t.out/gdn_forward_vm_f16.ptx
// RUN: rm -rf %t.async && mkdir -p %t.async
// RUN: sed -e '/^  func.func @gdn_chunk_fused_vm128_f16(/,/^  }$/d' -e 's/tile.warp_specialize = {[^}]*},//' %t.vm.mlir | gdn-opt --gdn-lower-to-ptx="async-gemm=1 output-dir=%t.async" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTXASYNC --input-file=%t.async/gdn_forward_vm_f16.ptx
// RUN: rm -rf %t.zi && mkdir -p %t.zi
// RUN: gdn-opt %t.vm.mlir --gdn-lower-to-ptx="zero-init-gemm=0 output-dir=%t.zi" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTXZI --input-file=%t.out/gdn_forward_vm_f16.ptx
// RUN: FileCheck %s --check-prefix=PTXNOZI --input-file=%t.zi/gdn_forward_vm_f16.ptx
// RUN: sed s/@DT@/bf16/g %t.prefill.mlir.in | gdn-opt --gdn-lower-to-ptx="output-dir=%t.out" -o /dev/null
// RUN: sed s/@DT@/bf16/g %t.forward.mlir.in | %instantiate-bv16 | gdn-opt --gdn-lower-to-ptx="output-dir=%t.out" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTXBF --input-file=%t.out/gdn_prefill_bf16.ptx
// RUN: FileCheck %s --check-prefix=PTXBFFWD --input-file=%t.out/gdn_forward_bf16.ptx

// Specialization of the shared chunk loop: after inline + canonicalize no
// call and no private body remain; the direct kernel keeps its five gemms
// (K S, Q S, Ag W, P V_new, K^T V') and the O store; the summary, whose
// %with_o is false, keeps three, one 64x64 operand buffer (Ag; P is gone)
// and no O store. The refined kernels (%refine true: each kernel passes
// its constant to the body they share) keep the refined step's four more
// (Ag_lo W, P_lo V_new, P V_new_lo, K^T V'_lo) in branches on the chunk's
// flag, the summary's two more (Ag_lo W, K^T V'_lo); in the plain ones
// every refined part folds away (docs/gdn-math.md §6.8).
// FOLD-NOT: func.call
// FOLD-NOT: @gdn_chunk_loop
// FOLD-LABEL: func.func @gdn_chunk_fwd_f16
// FOLD-COUNT-5: tile.gemm
// FOLD-NOT: tile.gemm
// FOLD: tile.copy %{{.*}} to %{{.*}} {masked} : !tile.buffer<64x16xf32, fragment> to !tile.buffer<?x128xf16, global>
// FOLD-LABEL: func.func @gdn_chunk_fwd_ref_f16
// FOLD-COUNT-9: tile.gemm
// FOLD-NOT: tile.gemm
// FOLD: tile.copy %{{.*}} to %{{.*}} {masked} : !tile.buffer<64x16xf32, fragment> to !tile.buffer<?x128xf16, global>
// FOLD-LABEL: func.func @gdn_cp_summary_f16
// FOLD: tile.alloc : !tile.buffer<64x64xf16, shared>
// FOLD-NOT: tile.alloc : !tile.buffer<64x64xf16, shared>
// FOLD-COUNT-3: tile.gemm
// FOLD-NOT: tile.gemm
// FOLD-NOT: fragment> to !tile.buffer<?x128xf16, global>
// FOLD-LABEL: func.func @gdn_cp_summary_ref_f16
// FOLD-COUNT-5: tile.gemm
// FOLD-NOT: tile.gemm
// FOLD-NOT: fragment> to !tile.buffer<?x128xf16, global>
// FOLD-LABEL: func.func @gdn_cp_replay_f16
// FOLD-COUNT-5: tile.gemm
// FOLD-NOT: tile.gemm
// FOLD-LABEL: func.func @gdn_cp_replay_ref_f16
// FOLD-COUNT-9: tile.gemm
// FOLD-NOT: tile.gemm

// Thread distribution: the prep kernel runs its gemms on wgmma, so its
// chunk-local matrices get the wgmma grid [4, 1]; in the forward kernel the
// [128 x 16] state and the [64 x 16] value tiles get 4x1 mma.sync grids
// (16-wide N per warp); fragments outside gemms are blocked; gemm operands
// are swizzled.
// LAYOUT-PREP-LABEL: func.func @gdn_chunk_prep_f16
// A block finds its chunk's place: equal-length sequences (not varlen) by
// arithmetic, no load; varlen by one round of loads of chunk_map.
// LAYOUT-PREP: scf.if %{{.*}} -> (index, index, index) {
// LAYOUT-PREP-COUNT-3: tile.load %{{.*}} : !tile.buffer<?xi32, global>
// LAYOUT-PREP: } else {
// LAYOUT-PREP-NOT: tile.load
// LAYOUT-PREP: arith.ceildivui
// LAYOUT-PREP-NOT: tile.load
// LAYOUT-PREP: scf.yield
// LAYOUT-PREP: tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
// The cumsum's g: the scan's layout (64 tokens, two per lane of the first
// warp), which the gate map on it shares; no reduction in the prep.
// LAYOUT-PREP: %[[G:.*]] = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>>
// LAYOUT-PREP-NEXT: tile.copy %{{.*}} to %[[G]] {masked} : !tile.buffer<?xf32, global> to !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>>
// g's loads go out before beta's copy, whose shared stores wait for its
// loads (the first warp loads both and then runs the scan); beta as loaded
// also goes to the scan's layout, where the gamma bound checks it (|beta|
// <= 2^14: the factored Ag map needs no mask then).
// LAYOUT-PREP-NEXT: %[[B:.*]] = tile.alloc : !tile.buffer<64xf16, fragment, #tile.blocked<vector = 2>>
// LAYOUT-PREP-NEXT: tile.copy %{{.*}} to %[[B]] {masked} : !tile.buffer<?xf16, global> to !tile.buffer<64xf16, fragment, #tile.blocked<vector = 2>>
// LAYOUT-PREP-NEXT: tile.copy %{{.*}} to %{{.*}} {layout = #tile.blocked<vector = 1>, masked} : !tile.buffer<?xf16, global> to !tile.buffer<64xf16, shared>
// LAYOUT-PREP: tile.map indexed ins(%[[G]] : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>>)
// LAYOUT-PREP: tile.map ins(%[[G]], %[[B]] : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>>, !tile.buffer<64xf16, fragment, #tile.blocked<vector = 2>>)
// LAYOUT-PREP: tile.scan add %[[G]], %[[G]] : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>>
// LAYOUT-PREP-NOT: tile.reduce
// LAYOUT-PREP: tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
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

// The shared-memory plan: sizes recorded on the kernels (prep: 36868 bytes,
// six blocks per SM with its 80 registers (<= 37888 each); L0's rows padded
// by 4 words, the inverse's by 8 and 4 more after every fourth row; 128
// since the alike-keys guard: its flag and the vote's scratch, aligned; no
// shared copy of kbeta since the gamma bound checks beta for the Ag map;
// P_lo is formed from P's fragment, no new tile).
// PLAN-PREP-LABEL: func.func @gdn_chunk_prep_f16
// PLAN-PREP-SAME: tile.shared_memory_bytes = 36868
// PLAN-LABEL: func.func @gdn_chunk_fwd_f16
// PLAN-SAME: tile.shared_memory_bytes = 111104
// PLAN: tile.alloc {offset = 0 : i64} : !tile.buffer<2x64x128xf16, shared, #tile.swizzle<128>>

// Barriers: the cumsum and the running sum of |g| (the factored gate's
// bound) run in registers (two independent tile.scan) with none before the
// one that waits for K; gamma leaves through shared memory after it.
// BAR-LABEL: func.func @gdn_chunk_prep_f16
// BAR: tile.scan add %[[GF:.*]], %[[GF]]
// BAR-NEXT: tile.scan add %[[GA:.*]], %[[GA]]
// BAR-NEXT: tile.copy %[[GF]] to %{{.*}} : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>> to !tile.buffer<64xf32, shared>
// BAR-NOT: tile.barrier
// BAR: tile.copy %[[GA]] to
// BAR-NOT: tile.barrier
// BAR: tile.async_wait {pending = 0 : i64}
// BAR-NEXT: tile.barrier
// BAR-NEXT: tile.copy %{{.*}} {layout = #tile.blocked<vector = 1>, masked} : !tile.buffer<64xf32, shared> to !tile.buffer<?xf32, global>

// PREP: kernel = gdn_chunk_prep_f16
// PREP: shared_bytes = 36868
// PREP: param = q:ptr<f16>
// Each block finds its chunk and its sequence's bounds in the host-computed
// chunk_map ({sequence, chunk, bos, eos} per chunk): no cu_seqlens.
// PREP-NOT: param = cu_seqlens
// PREP: param = chunk_map:ptr<i32>
// PREP: param = NT:i32
// PREP: param = scale:f32
// Both preps apply the gate and beta transforms to what they load (the only
// readers of g and beta), so the gate_beta stage never runs with them.
// The varlen flag: equal-length sequences need no chunk_map load.
// PREP: param = varlen:i32
// PREP: meta.block_v = 16
// PREP: meta.fuses = gate_beta
// PREP: meta.grid = HV,cdiv(NT,cdiv(NT,65535)),cdiv(NT,65535)
// PREP: meta.order = 2
// PREP: meta.ws_Ag = B*T*HV*64
// The alike-keys guard's outputs (docs/gdn-math.md §6.8): Ag's and P's low
// halves of flagged chunks and one flag per chunk.
// PREP: meta.ws_Ag_lo = B*T*HV*64
// PREP: meta.ws_P = B*T*HV*64
// PREP: meta.ws_P_lo = B*T*HV*64
// PREP: meta.ws_alike = HV*cdiv(B*T,4)*4
// The prep of the block_v 128 forward, which forms P itself: no scale, no
// P workspace, less shared memory (no Q tile). With the problem's L2 norm
// (meta.fuses = qk_l2norm, the scalar qk_l2norm) it scales its Gram by the
// keys' factors and writes no normalized copies (the value-major kernels after it
// normalize what they read themselves): no q_l2 / k_l2 workspaces.
// PREPK: kernel = gdn_chunk_prep_k_f16
// PREPK: shared_bytes = 28804
// PREPK: param = q:ptr<f16>
// PREPK: param = k:ptr<f16>
// PREPK-NOT: param = cu_seqlens
// PREPK: param = chunk_map:ptr<i32>
// PREPK: param = NT:i32
// PREPK-NOT: param = scale
// PREPK-NOT: param = P:
// PREPK-NOT: param = q_l2
// PREPK: param = qk_l2norm:i32
// PREPK: param = varlen:i32
// PREPK: meta.block_v = 128
// PREPK: meta.fuses = qk_l2norm,gate_beta
// PREPK: meta.grid = HV,cdiv(NT,cdiv(NT,65535)),cdiv(NT,65535)
// PREPK-NOT: meta.ws_P
// PREPK-NOT: meta.ws_k_l2
// PREPK-NOT: meta.ws_q_l2
// FWD: kernel = gdn_chunk_fwd_f16
// FWD: block = 128,1,1
// FWD: param = h0:ptr<f32>
// FWD: param = has_h0:i32
// Every kernel that reads h0 or writes ht takes the state's layout
// (state_v_first: [N, HV, V, K]).
// FWD: param = state_v_first:i32
// FWD: meta.grid = 8,HV,N
// FWD: meta.order = 3
// FWD: meta.path = direct
// The block_v 64 variant: 8 warps, 2 blocks per head, 64-wide tiles.
// FWD64: kernel = gdn_chunk_fwd_bv64_f16
// FWD64: block = 256,1,1
// FWD64: shared_bytes = 147968
// FWD64: meta.block_v = 64
// FWD64: meta.grid = 2,HV,N
// FWD64: meta.path = direct
// SUMM64: kernel = gdn_cp_summary_bv64_f16
// SUMM64: block = 256,1,1
// SUMM64: meta.grid = 4,HV,NS

// The CP path: the summary runs the shared chunk loop without O (no q, P,
// o parameters, no Q/P buffers: 60 KB of shared memory instead of 111 KB);
// the scan keeps four stages of B_s (8 KB) and of its record (cp_win, which
// says whether M_s is zero) and one of the three bf16 parts of M_s
// (3 x 32 KB), which it loads only where M_s is not zero.
// SUMM: kernel = gdn_cp_summary_f16
// SUMM: shared_bytes = 59904
// SUMM: param = cp_bounds:ptr<i32>
// SUMM: param = cp_B:ptr<f32>
// SUMM: param = cp_M:ptr<bf16>
// SUMM: param = NS:i32
// SUMM: meta.grid = 16,HV,NS
// SUMM: meta.order = 3
// SUMM: meta.path = cp
// SUMM: meta.ws_cp_B = NS*HV*16384
// SUMM: meta.ws_cp_M = 3*NS*HV*16384
// SCAN: kernel = gdn_cp_scan_f16
// SCAN: shared_bytes = 143424
// SCAN: param = h0:ptr<f32>
// SCAN: param = cp_seg_start:ptr<i32>
// SCAN-NEXT: param = cp_win:ptr<i32>
// SCAN-NEXT: param = cp_h:ptr<f32>
// SCAN: param = state_v_first:i32
// SCAN-NOT: meta.block_v
// SCAN: meta.grid = 8,HV,N
// SCAN: meta.order = 5
// SCAN: meta.path = cp
// SCAN: meta.ws_cp_h = NS*HV*16384
// REPLAY: kernel = gdn_cp_replay_f16
// REPLAY: shared_bytes = 111104
// REPLAY: param = cp_h:ptr<f32>
// REPLAY: param = o:ptr<f16>
// REPLAY: param = ht:ptr<f32>
// REPLAY: param = state_v_first:i32
// REPLAY: meta.grid = 8,HV,NS
// REPLAY: meta.order = 6
// REPLAY: meta.path = cp

// PTX: .target sm_90a
// PTX: .entry gdn_chunk_prep_f16
// PTX: .maxnreg 80
// PTX: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTX: .entry gdn_chunk_prep_k_f16
// PTX: .maxnreg 72
// PTX: .entry gdn_cp_scan_f16
// PTX: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// PTXFWD: .entry gdn_chunk_fwd_f16
// PTXFWD: cp.async.cg.shared.global
// PTXFWD: ex2.approx.ftz.f32
// The block_v 64 variant runs on wgmma: its two warpgroups split the
// 64-row products along N (m64n32: K S, Q S, Ag W, P V_new) and the
// 128-row state update along M (m64n64: K^T V').
// PTXFWD64: .entry gdn_chunk_fwd_bv64_f16
// PTXFWD64-DAG: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16
// PTXFWD64-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16
// PTXFWD64-NOT: mma.sync.aligned
// PTXFWD64: .entry
// The value-major kernels (gdn_forward_vm.mlir.in): two warpgroups, every
// [values x ...] fragment m64 wgmma tiles along M ([8, 1]); the register
// operands (S^T, W^T, V_new^T, V'^T) are f16 fragments of the same layout;
// P = Q K^T [64 x 64] is split along N between the warpgroups ([4, 2]).
// LAYOUT-VM-LABEL: func.func @gdn_chunk_fwd_vm128_f16
// LAYOUT-VM-DAG: tile.alloc : !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
// LAYOUT-VM-DAG: tile.alloc : !tile.buffer<128x128xf16, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
// LAYOUT-VM-DAG: tile.alloc : !tile.buffer<128x64xf16, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
// LAYOUT-VM-DAG: tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 2], engine = wgmma>>
// LAYOUT-VM: tile.gemm {{.*}} {transpose_b} : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 2], engine = wgmma>>
// LAYOUT-VM: tile.gemm {{.*}} {transpose_b} : !tile.buffer<128x128xf16, fragment
// Warp-specialized (a producer warpgroup issues the TMA loads of every
// chunk: q, k, v by 64-column swizzled boxes, Ag by three 32x32 boxes of
// 64-byte swizzle spans (block_lower: not its zero block), gamma by a 96-value window
// from the sequence start rounded down to 16 bytes; two consumer
// warpgroups), so 384 threads. o of a whole chunk goes out by one TMA
// store (tile-tma-store: the o_tma map, 16 KB more shared memory).
// FWDVM: kernel = gdn_chunk_fwd_vm128_f16
// FWDVM: block = 384,1,1
// FWDVM: shared_bytes = 141456
// FWDVM-NOT: param = P:
// FWDVM: param = state_v_first:i32
// FWDVM-NEXT: param = qk_l2norm:i32
// FWDVM: param = q_tma:tensormap
// FWDVM: param = gamma_tma:tensormap
// FWDVM: param = o_tma:tensormap
// FWDVM: tensormap.Ag_tma = base=Ag; dims=64, HV, (B)*(T); strides=64, (HV)*(64); box=32, 1, 32; swizzle=64; l2=none; fill=zero
// FWDVM: tensormap.gamma_tma = base=gamma; dims=(cdiv((B)*(T), 4))*(4), HV; strides=(cdiv((B)*(T), 4))*(4); box=96, 1; swizzle=none; l2=256
// FWDVM: tensormap.o_tma = base=o; dims=128, HV, (B)*(T); strides=128, (HV)*(128); box=64, 1, 64; swizzle=128
// FWDVM: tensormap.q_tma = base=q; dims=128, H, (B)*(T); strides=128, (H)*(128); box=64, 1, 64; swizzle=128
// FWDVM: meta.block_v = 128
// FWDVM: meta.grid = 1,HV,N
// FWDVM: meta.path = direct
// SUMMVM: kernel = gdn_cp_summary_vm128_f16
// SUMMVM-NOT: param = state_v_first
// SUMMVM-NOT: param = o_tma
// One block per (segment, value head): B, then M where it is needed, each
// chunk loop with its own TMA ring (two rings of 80 KB).
// SUMMVM: block = 384,1,1
// SUMMVM: shared_bytes = 167056
// SUMMVM: param = cp_theta:f32
// SUMMVM-NEXT: param = qk_l2norm:i32
// Ag's three lower 32x32 blocks by TMA, without L2 promotion (it would
// fetch the skipped block's sectors); the other maps keep 256 bytes.
// SUMMVM: tensormap.Ag_tma = base=Ag; dims=64, HV, (B)*(T); strides=64, (HV)*(64); box=32, 1, 32; swizzle=64; l2=none; fill=zero
// SUMMVM: tensormap.k_tma = {{.*}}; swizzle=128; l2=256; fill=zero
// SUMMVM: meta.grid = 1,HV,NS
// REPLAYVM: kernel = gdn_cp_replay_vm128_f16
// REPLAYVM-NOT: param = P:
// REPLAYVM: param = state_v_first:i32
// REPLAYVM-NEXT: param = qk_l2norm:i32
// REPLAYVM: param = o_tma:tensormap
// REPLAYVM: tensormap.Ag_tma = base=Ag; dims=64, HV, (B)*(T); strides=64, (HV)*(64); box=32, 1, 32; swizzle=64; l2=none; fill=zero
// REPLAYVM: tensormap.q_tma = {{.*}}; swizzle=128; l2=256; fill=zero
// REPLAYVM: meta.grid = 1,HV,NS
// REPLAYVM: meta.order = 6
// The refined kernels (docs/gdn-math.md §6.8): launched after their plain
// counterparts (meta.order: the direct kernel's 3 -> 4; the CP summary 3
// -> 4, before the scan at 5; the replay 6 -> 7), same grid and variant;
// they take the prep's flags (alike: the flag's 96-value window on the
// TMA ring beside gamma) and Ag's low half (Ag_lo: read with ordinary
// loads, flagged chunks only), and declare no workspace of their own.
// REFVM: kernel = gdn_chunk_fwd_vm128_ref_f16
// REFVM: block = 384,1,1
// REFVM: shared_bytes = 191376
// REFVM: param = Ag_lo:ptr<f16>
// REFVM-NEXT: param = alike:ptr<f32>
// REFVM: tensormap.alike_tma = base=alike; dims=(cdiv((B)*(T), 4))*(4), HV; strides=(cdiv((B)*(T), 4))*(4); box=96, 1
// REFVM-NOT: meta.ws_
// REFVM: meta.block_v = 128
// REFVM: meta.grid = 1,HV,N
// REFVM: meta.order = 4
// REFVM: meta.path = direct
// REFVM: meta.stage = chunk_refine
// SREFVM: kernel = gdn_cp_summary_vm128_ref_f16
// SREFVM: param = alike:ptr<f32>
// SREFVM-NOT: meta.ws_
// SREFVM: meta.grid = 1,HV,NS
// SREFVM: meta.order = 4
// SREFVM: meta.path = cp
// SREFVM: meta.stage = cp_summary_refine
// RREFVM: kernel = gdn_cp_replay_vm128_ref_f16
// RREFVM: param = alike:ptr<f32>
// RREFVM: meta.grid = 1,HV,NS
// RREFVM: meta.order = 7
// RREFVM: meta.path = cp
// RREFVM: meta.stage = cp_refine
// The block_v 16 one also reads P's low half, which its prep writes.
// REF: kernel = gdn_chunk_fwd_ref_f16
// REF: param = Ag_lo:ptr<f16>
// REF-NEXT: param = P_lo:ptr<f16>
// REF-NEXT: param = alike:ptr<f32>
// REF: meta.grid = 8,HV,N
// REF: meta.order = 4
// REF: meta.stage = chunk_refine
// Shared-operand wgmma for P = Q K^T (m64n32 per warpgroup, both operands
// by descriptor), register-A wgmma for K S, Q S (m64n64, K = 128), Ag W
// and P V_new (m64n64, K = 64) and the state update (m64n128); no
// mma.sync.
// o's TMA store in the forward (tile-tma-store, tile-insert-barriers):
// every thread waits for the previous chunk's store to have read sO right
// before the barrier that publishes P (no branch, no barrier of its own),
// then o += V_new P^T and the state update; every thread writes sO
// (stmatrix.trans, four 8x8 blocks each) with no barrier before it, the
// async-proxy fence and a barrier, then the store (two 64-column boxes),
// committed; one more wait after the loop. Three block barriers per whole
// chunk (the gate exponents' per-chunk vectors, P, sO; the q/k norm's
// factors add theirs only with qk_l2norm). LLVM places the sO block and
// the store's before the loop head, so each order is checked on its own.
// PTXOST-LABEL: .entry gdn_chunk_fwd_vm128_f16
// PTXOST: cp.async.bulk.wait_group.read 0;
// PTXOST-NEXT: // begin inline asm
// PTXOST-NEXT: fence.proxy.async.shared::cta;
// PTXOST-NEXT: // end inline asm
// PTXOST-NEXT: bar.sync
// PTXOST-NOT: bar.sync
// PTXOST: wgmma.mma_async.sync.aligned.m64n128k16
// PTXOST: .entry gdn_cp_summary_vm128_f16
// The CP replay has the same chunk step.
// PTXOST: .entry gdn_cp_replay_vm128_f16
// PTXOST: cp.async.bulk.wait_group.read 0;
// PTXOST-NEXT: // begin inline asm
// PTXOST-NEXT: fence.proxy.async.shared::cta;
// PTXOST-NEXT: // end inline asm
// PTXOST-NEXT: bar.sync
// PTXOST-NOT: bar.sync
// PTXOST: wgmma.mma_async.sync.aligned.m64n128k16
// PTXSTM-LABEL: .entry gdn_chunk_fwd_vm128_f16
// PTXSTM-COUNT-4: stmatrix.sync.aligned.x4.trans.m8n8.shared.b16
// PTXSTM-NOT: st.shared
// PTXSTM-NOT: cp.async.bulk.tensor.3d.global
// PTXSTM: fence.proxy.async.shared::cta;
// PTXSTM-NOT: st.shared
// PTXSTM: bar.sync
// PTXSTM: cp.async.bulk.tensor.3d.global.shared::cta.bulk_group
// PTXSTM: cp.async.bulk.tensor.3d.global.shared::cta.bulk_group
// PTXSTM-NEXT: // end inline asm
// PTXSTM-NEXT: cp.async.bulk.commit_group;
// PTXSTM: cp.async.bulk.wait_group.read 0;
// PTXSTM-LABEL: .entry gdn_cp_replay_vm128_f16
// PTXSTM-COUNT-4: stmatrix.sync.aligned.x4.trans.m8n8.shared.b16
// PTXSTM-NOT: st.shared
// PTXSTM: fence.proxy.async.shared::cta;
// PTXSTM-NOT: st.shared
// PTXSTM: bar.sync
// The value-major CP summary stores B only for a segment that is not its
// sequence's last, and M's three parts only where the scan reads them (not
// the shortcut, not a last segment: cp_win >= 0 says M = 0).
// SUMMSTORE-LABEL: func.func @gdn_cp_summary_vm128_f16
// SUMMSTORE: tile.copy {{.*}} {transpose} : !tile.buffer<128x128xf32, fragment> to !tile.buffer<128x128xf32, global>
// SUMMSTORE-NEXT: }
// SUMMSTORE: %[[MZ:[0-9]+]] = arith.ori %{{[0-9]+}}, %{{[0-9]+}} : i1
// SUMMSTORE-NEXT: %[[RD:[0-9]+]] = arith.xori %[[MZ]], %true : i1
// SUMMSTORE-NEXT: scf.if %[[RD]] {
// SUMMSTORE-COUNT-3: tile.copy {{.*}} {transpose} : !tile.buffer<128x128xf32, fragment> to !tile.buffer<128x128xbf16, global>
// SUMMSTORE-NEXT: }
// SUMMSTORE-NOT: tile.copy {{.*}} to !tile.buffer<128x128xbf16, global>
// SUMMSTORE-LABEL: func.func @gdn_cp_summary_vm128_ref_f16

// The block_v 16 summary: the same rule over its B and M blocks (%is_m):
// M where the record is -1, B where the segment is not its sequence's last.
// SUMMSTORE16-LABEL: func.func @gdn_cp_summary_f16
// SUMMSTORE16: %[[NR:[0-9]+]] = arith.select %[[ISM:[0-9]+]], %{{[0-9]+}}, %{{[0-9]+}} : i1
// SUMMSTORE16-NEXT: %[[RD:[0-9]+]] = arith.xori %[[NR]], %true : i1
// SUMMSTORE16-NEXT: scf.if %[[RD]] {
// SUMMSTORE16-NEXT: scf.if %[[ISM]] {
// SUMMSTORE16-COUNT-3: tile.copy {{.*}} : !tile.buffer<128x16xf32, fragment> to !tile.buffer<128x128xbf16, global>
// SUMMSTORE16-NEXT: } else {
// SUMMSTORE16: tile.copy {{.*}} : !tile.buffer<128x16xf32, fragment> to !tile.buffer<128x128xf32, global>
// SUMMSTORE16-NEXT: }
// SUMMSTORE16-NEXT: }
// SUMMSTORE16-NOT: tile.copy {{.*}} global>
// SUMMSTORE16-LABEL: func.func @gdn_cp_summary_ref_f16

// The chunk step's gates in base 2: W = vscale V - e ks contracts into an
// fma (fastmath<contract>), 32 per consumer thread and step, the chunk's
// three shifted exponent vectors are fma (gamma log2e +- the q/k norm's
// log2 factor), and P's and V''s exponents subtract two of them (16 + 16
// per thread); with the q/k norm's branch, 44 fma and 36 subtractions
// (the norm's overflow branch, which forms V' r_k again to round it
// 2^-10 after a warp's vote found a non-finite one, reuses the first
// V' map's exponents: a warp vote orders no memory, so the shifted
// exponents' loads and differences are not redone; 16 more behind v68's
// barrier vote).
// PTXGATE-LABEL: .entry gdn_chunk_fwd_vm128_f16
// PTXGATE-COUNT-44: fma.rn.f32
// PTXGATE-NOT: fma.rn.f32
// PTXGATE-LABEL: .entry gdn_chunk_fwd_vm128_ref_f16
// PTXNOSUB-LABEL: .entry gdn_chunk_fwd_vm128_f16
// PTXNOSUB-COUNT-36: sub.rn.f32
// PTXNOSUB-NOT: sub.rn.f32
// PTXNOSUB-LABEL: .entry gdn_chunk_fwd_vm128_ref_f16

// The q/k norm's overflow vote (V' r_k in 16 bits) is each warp's own
// (tile.warp_any): a vote.sync, no barrier of the consumers.
// PTXVM: .entry gdn_chunk_fwd_vm128_f16
// PTXVM-DAG: vote.sync.ballot.b32
// PTXVM-DAG: wgmma.mma_async.sync.aligned.m64n32k16.f32.f16.f16 {{{.*}}}, %rd{{[0-9]+}}, %rd{{[0-9]+}}, p, 1, 1, 0, 0;
// PTXVM-DAG: wgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 0;
// PTXVM-DAG: wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16 {{{.*}}}, {%r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}, %r{{[0-9]+}}}, %rd{{[0-9]+}}, p, 1, 1, 1;
// PTXVM-NOT: mma.sync.aligned
// PTXVM: .entry gdn_chunk_fwd_vm128_fref_f16
// PTXVM-NOT: mma.sync.aligned
// PTXVM: .entry gdn_chunk_fused_vm128_f16
// By default (tile-fold-zero-init) the forward's products into freshly
// zeroed accumulators start without accumulating (scale-d predicate 0):
// P (shared A), then K S, Q S (register A), then W Ag. With
// zero-init-gemm=0 every wgmma accumulates into zeroed registers.
// PTXZI: .entry gdn_chunk_fwd_vm128_f16
// PTXZI-COUNT-4: setp.ne.b32 p, 0, 0;
// PTXZI: .entry gdn_cp_summary_vm128_f16
// PTXNOZI: .entry gdn_chunk_fwd_vm128_f16
// PTXNOZI-NOT: setp.ne.b32 p, 0, 0;
// PTXNOZI: .entry gdn_cp_summary_vm128_f16
// With async-gemm (the tile-async-gemm pass; on the kernels without
// warp specialization, where it was measured: the fused kernel, which
// needs its producer warpgroup, is left out) K S and Q S are two wgmma
// groups in flight together: the P group is waited for (its epilogue
// follows), then two groups are committed before the next wait.
// (The q/k norm's two Gram chains, K K^T and Q Q^T, come first, each
// waited for: their diagonals are stored right after.)
// PTXASYNC: .entry gdn_chunk_fwd_vm128_f16
// PTXASYNC-COUNT-2: wgmma.wait_group.sync.aligned 0;
// PTXASYNC: wgmma.mma_async.sync.aligned.m64n32k16
// PTXASYNC: wgmma.wait_group.sync.aligned 0;
// PTXASYNC: wgmma.commit_group.sync.aligned;
// PTXASYNC-NOT: wgmma.wait_group
// PTXASYNC: wgmma.mma_async.sync.aligned.m64n64k16
// PTXASYNC-NOT: wgmma.wait_group
// PTXASYNC: wgmma.commit_group.sync.aligned;
// PTXASYNC: wgmma.wait_group.sync.aligned 0;
// PTXBF: wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16
// PTXBFFWD: mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
