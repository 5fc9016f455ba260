// The experimental two-task fused prep + forward kernel (not in the kernel
// bundle; kernels/gdn_prefill/gdn_chunk_fused2.mlir.inc): as
// gdn-fused-prep.mlir's kernel, but with two tile.producer_task groups, so
// that two producer warpgroups form the gamma and Ag of the even and odd
// chunks at once, and the q/k/v ring's loads issued round-robin by the two
// warpgroups (tile.warp_specialize's tma_issue = "round_robin"). On the
// H200 it is bit-identical to prep + forward and slower than the
// single-task kernel (docs/perf-notes.md v46). This test keeps it
// compiling: appended to the forward template's module, lowered to PTX,
// taken by ptxas.
// RUN: %expand-includes %gdn_kernels/gdn_prefill/gdn_forward_vm.mlir.in %t.vm.mlir.in
// RUN: sed s/@DT@/f16/g %t.vm.mlir.in | sed '$d' > %t.mlir
// RUN: sed s/@DT@/f16/g %gdn_kernels/gdn_prefill/gdn_chunk_fused2.mlir.inc >> %t.mlir
// RUN: echo "}" >> %t.mlir
// RUN: gdn-opt %t.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize,tile-fold-zero-init,tile-expand-tril-inverse,tile-assign-layouts,tile-pipeline,tile-tma-store,canonicalize,tile-plan-shared-memory,tile-insert-barriers,tile-warp-specialize))' | FileCheck %s --check-prefix=SPLIT
// RUN: rm -rf %t.out && mkdir -p %t.out
// RUN: gdn-opt %t.mlir --gdn-lower-to-ptx="index-bitwidth=32 output-dir=%t.out" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.out/gdn_forward_vm_f16.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.out/gdn_forward_vm_f16.ptx -o %t.out/fused2.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.out/gdn_chunk_fused2_vm128_f16.manifest

// The split: two producer warpgroups (8 producer warps). The ring's
// prologue load (stage 0) and its loads in the loop are cloned per
// warpgroup (threads 256 and 384) under `stage mod 2`; the tasks of the
// even and odd chunks run on warpgroups 0 and 1 (thread bases 256 and 384,
// named barriers 2 and 3), each ending with its one-thread arrival on the
// hand-off's full barrier; in the loop the tasks come before the ring's
// next loads, so a warpgroup issues chunk j's loads right after chunk j's
// task. The consumers wait on the hand-off and release it.
// SPLIT-LABEL: func.func @gdn_chunk_fused2_vm128_f16
// SPLIT-SAME:    tile.producer_warps = 8 : i64
// SPLIT:         tile.warp_specialize {consumer_registers = 192 : i64, producer_registers = 64 : i64, producer_warps = 8 : i64} producer {
// SPLIT:           tile.producer thread 256 {
// SPLIT:             tile.tma_load
// SPLIT:           tile.producer thread 384 {
// SPLIT:             tile.tma_load
// SPLIT:           scf.for
// SPLIT:             tile.producer_task warps 4 group 0 {
// SPLIT:               tile.async_copy
// SPLIT:               tile.barrier {id = 2 : i64, threads = 128 : i64}
// SPLIT:               tile.tril_inverse_diag
// SPLIT:               tile.mbarrier_wait
// SPLIT:               tile.producer {
// SPLIT-NEXT:            tile.mbarrier_arrive
// SPLIT:             } {thread_base = 256 : i64}
// SPLIT:             tile.producer_task warps 4 group 1 {
// SPLIT:               tile.barrier {id = 3 : i64, threads = 128 : i64}
// SPLIT:             } {thread_base = 384 : i64}
// SPLIT:             arith.remui
// SPLIT:             tile.producer thread 256 {
// SPLIT:               tile.tma_load
// SPLIT:             tile.producer thread 384 {
// SPLIT:               tile.tma_load
// SPLIT:         } consumer {
// SPLIT-NOT:       tile.producer_task
// SPLIT-NOT:       tile.tril_inverse
// SPLIT:           tile.mbarrier_wait
// SPLIT:           tile.gemm
// SPLIT:           tile.mbarrier_arrive
// SPLIT:         return

// PTX-LABEL: .entry gdn_chunk_fused2_vm128_f16(
// PTX:         .maxntid 512, 1, 1
// PTX:         setmaxnreg.dec.sync.aligned.u32 64;
// PTX:         setmaxnreg.inc.sync.aligned.u32 192;

// ptxas takes it; the tasks at 64 registers spill (a few hundred bytes:
// docs/perf-notes.md v46); four named barriers (0-3).
// PTXAS: Function properties for gdn_chunk_fused2_vm128_f16
// PTXAS: Used {{[0-9]+}} registers, used 4 barriers

// MANIFEST: kernel = gdn_chunk_fused2_vm128_f16
// MANIFEST: block = 512,1,1
// MANIFEST: param = g:ptr<f32>
// MANIFEST: param = beta:ptr<f16>
