// The fused prep + forward kernel (the direct path's fused form,
// meta.form = fused): the value-major forward whose producer warpgroup
// also forms each chunk's gamma and Ag (@gdn_chunk_loop_fused of
// kernels/gdn_prefill/gdn_forward_vm.mlir.in, a tile.producer_task running
// the prep kernel's solve) into a two-slot shared-memory ring, in place of
// the prep and forward kernels (meta.replaces), storing of the prep's
// outputs only gamma and the alike-keys flags (the fused form's prep forms
// Ag and its low half of a flagged sequence again: no Ag parameter, no Ag
// workspace declared here). On the GPU it was bit-identical to prep +
// forward on every input family and faster at 8x4K·H16 (docs/perf-notes.md
// v37, v54, v60). Its template's split is the fastest measured: task /
// consumers 88 / 208 registers, the q/k/v ring's TMA issued by consumer
// thread 0 (the task warpgroup only computes), LICM off in the task's copy
// of the chunk loop only. The template's module (which takes in
// kernels/gdn_prefill/gdn_chunk_fused.mlir.inc) is lowered to PTX; ptxas
// must take the kernel without spills (f16 here; bf16 has none either
// since v73): at the task's 88 registers a few bytes of spill inside its
// chunk loop made the stage 4 % slower at 8x4K·H16 (12 bytes without
// gamma's store, 8 with v61's Ag stores: ptxas -v's spill stores;
// docs/perf-notes.md v62; v73: the Gram first with the default layout of
// the next chunk's g and beta, 8 bytes, +5 %).
// RUN: %expand-includes %gdn_kernels/gdn_prefill/gdn_forward_vm.mlir.in %t.vm.mlir.in
// RUN: sed s/@DT@/f16/g %t.vm.mlir.in > %t.mlir
// RUN: gdn-opt %t.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize,tile-fold-zero-init,tile-expand-tril-inverse,tile-assign-layouts,tile-pipeline,tile-tma-store,canonicalize,tile-plan-shared-memory,tile-insert-barriers,tile-async-gemm,tile-warp-specialize))' | FileCheck %s --check-prefix=SPLIT
// RUN: rm -rf %t.out && mkdir -p %t.out
// RUN: gdn-opt %t.mlir --gdn-lower-to-ptx="index-bitwidth=32 output-dir=%t.out" -o /dev/null
// RUN: sed -n '/\.entry gdn_chunk_fused_vm128_f16(/,/\/\/ \.globl/p' %t.out/gdn_forward_vm_f16.ptx > %t.fused.ptx
// RUN: FileCheck %s --check-prefix=PTX < %t.fused.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.out/gdn_forward_vm_f16.ptx -o %t.out/fused.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.out/gdn_chunk_fused_vm128_f16.manifest

// The split: the producer warpgroup runs only the task (its barriers the
// named barrier 2 over 128 threads, thread base 256; at its end it stores
// the next chunk's g and beta, loaded at its start one element a thread,
// and every task thread arrives on the hand-off's full barrier, count
// 128); the task reads the chunk's K from the ring's stage (it waits for
// the stage's loads itself and zeroes the rows past the sequence's end: no
// copy of K of its own); its Gram matrix is issued first (the task is
// marked async_gemm: tile-async-gemm) and flies through the gamma scan,
// which has no barrier of its own (the alike-keys vote's barrier publishes
// gamma), up to its wait before the solve's first map; the consumers (no
// tail zeroing of their own) issue the ring's loads (one thread: wait for
// a free stage, then the TMA loads), wait on the hand-off's full barrier,
// run the step and release the slot;
// the task's buffers and the ring live for the whole kernel (disjoint from
// the consumers' by the plan).
// SPLIT-LABEL: func.func @gdn_chunk_fused_vm128_f16
// SPLIT:         tile.mbarrier_init %[[RFULL:[0-9]+]] {count = 1 : i64} : !tile.buffer<3xi64, shared>
// SPLIT:         tile.warp_specialize {consumer_registers = 208 : i64, producer_registers = 88 : i64, producer_warps = 4 : i64} producer {
// SPLIT:           tile.producer_task warps 4 async_gemm {
// SPLIT-NOT:         tile.async_copy
// SPLIT:             tile.copy {{.*}} {masked} : !tile.buffer<?xf32, global> to !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
// SPLIT-NEXT:        tile.copy {{.*}} {masked} : !tile.buffer<?xf16, global> to !tile.buffer<64xf16, fragment, #tile.blocked<vector = 1>>
// SPLIT-NOT:         tile.async_copy
// SPLIT:             tile.mbarrier_wait %[[RFULL]][
// SPLIT:             tile.zero_tail
// SPLIT:             tile.zero_tail
// SPLIT:             tile.zero_tail
// SPLIT-NEXT:        tile.barrier {id = 2 : i64, threads = 128 : i64}
// SPLIT-NEXT:      }
// SPLIT-NEXT:      tile.gemm %[[KST:[0-9]+]], %[[KST]], %[[GRAM:[0-9]+]] {async, transpose_b, zero_init}
// SPLIT-NOT:         tile.barrier
// SPLIT:             tile.scan add
// SPLIT-NOT:         tile.barrier
// SPLIT:             tile.gemm_wait {pending = 0 : i64}
// SPLIT-NEXT:        tile.map indexed ins(%[[GRAM]]
// SPLIT-NOT:         tile.barrier
// SPLIT:             tile.any %[[GRAM]]
// SPLIT:             } {id = 2 : i64, threads = 128 : i64}
// SPLIT:             tile.tril_inverse_diag
// SPLIT:             tile.mbarrier_wait
// SPLIT:             scf.if
// SPLIT:               tile.copy {{.*}} : !tile.buffer<64xf32, fragment, {{.*}}> to !tile.buffer<64xf32, shared>
// SPLIT:               tile.copy {{.*}} : !tile.buffer<64xf16, fragment, {{.*}}> to !tile.buffer<64xf16, shared>
// SPLIT-NEXT:        }
// SPLIT-NEXT:        tile.barrier {id = 2 : i64, threads = 128 : i64}
// SPLIT-NEXT:        tile.mbarrier_arrive
// SPLIT:           } {thread_base = 256 : i64}
// SPLIT-NOT:       tile.tma_load
// SPLIT:           } {loop_annotation = #{{.*}}}
// SPLIT-NEXT:    } consumer {
// SPLIT-NOT:       tile.producer_task
// SPLIT-NOT:       tile.tril_inverse
// SPLIT:           tile.producer {
// SPLIT-NEXT:        tile.mbarrier_wait
// SPLIT:             tile.tma_load
// SPLIT:           tile.mbarrier_wait %[[RFULL]][
// SPLIT-NOT:       tile.zero_tail
// SPLIT:           tile.mbarrier_wait
// SPLIT-NOT:       tile.zero_tail
// SPLIT:           tile.gemm
// SPLIT-NOT:       tile.zero_tail
// SPLIT:           tile.mbarrier_arrive
// SPLIT-NOT:       tile.zero_tail
// SPLIT-NOT:       loop_annotation
// SPLIT:         return

// In the PTX the producer gives registers back to 88, the consumers take
// 208; the task's threads are numbered from 256 (tid.x - 256); its barriers
// are named ones (their ids are in registers here: SPLIT above checks id
// 2). The chunk loop's task copy runs with LLVM's LICM off
// (producer_loop_annotation: per-thread addresses stay inside the loop
// instead of occupying registers across it, without which the task spills
// at every split: docs/perf-notes.md v36), the consumers' with LICM on
// (their wgmma descriptors hoisted: v60). The consumer thread that issues
// the ring's loads waits for a free stage with its whole warp, under the
// warp index broadcast by shfl (a condition ptxas sees as warp-uniform: a
// spin loop in a one-thread branch costs the consumers' loop its uniform
// registers, v60).
// The task's alike-keys pre-filter is a vote over its warpgroup's named
// barrier (tile.any, tile-warp-specialize).
// (The roles' blocks may come in either order; %t.fused.ptx is the
// kernel's entry alone.)
// PTX-LABEL: .entry gdn_chunk_fused_vm128_f16(
// PTX-DAG:     bar.red.or.pred vo, 2, 128, vi;
// PTX-DAG:     setmaxnreg.dec.sync.aligned.u32 88;
// PTX-DAG:     add.s32 {{.*}}, -256;
// PTX-DAG:     bar.sync %r{{[0-9]+}}, %r{{[0-9]+}};
// PTX-DAG:     setmaxnreg.inc.sync.aligned.u32 208;
// PTX-DAG:     shfl.sync.idx.b32

// PTXAS: Function properties for gdn_chunk_fused_vm128_f16
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// MANIFEST: kernel = gdn_chunk_fused_vm128_f16
// MANIFEST: block = 384,1,1
// MANIFEST: param = g:ptr<f32>
// MANIFEST: param = beta:ptr<f16>
// MANIFEST-NEXT: param = gamma:ptr<f32>
// MANIFEST-NEXT: param = alike:ptr<f32>
// MANIFEST-NOT: param = Ag
// MANIFEST: meta.form = fused
// MANIFEST: meta.replaces = chunk_prep,chunk_fwd,chunk_refine
// MANIFEST: meta.stage = chunk_fused
// MANIFEST-NOT: meta.ws_Ag
// MANIFEST: meta.ws_alike = HV*cdiv(B*T,4)*4
// MANIFEST-NEXT: meta.ws_gamma = HV*cdiv(B*T,4)*4
// MANIFEST-NOT: meta.ws_Ag
