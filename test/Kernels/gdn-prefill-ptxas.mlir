// REQUIRES: ptxas
// Every GDN prefill kernel (both dtypes, every forward variant) through the
// whole pipeline as kernels/CMakeLists builds them (32-bit indices) and
// ptxas for sm_90a: no warnings, and no spills except in the value-major
// replay (one warpgroup holds S^T, 64 registers, its 16-bit copy and three
// 64x64 accumulators next to 28 cp.async slots per chunk step; 24-32 bytes
// with 32-bit indices, 2026-12-01). The CP scan (six 128x16x128 products of
// the bf16 parts of M and h in 255 registers) spilled ~60 bytes with 64-bit
// indices and none with 32-bit ones; it is not checked here.
// RUN: %expand-includes %gdn_kernels/gdn_prefill/gdn_prefill.mlir.in %t.prefill.mlir.in
// RUN: %expand-includes %gdn_kernels/gdn_prefill/gdn_forward.mlir.in %t.forward.mlir.in
// RUN: %expand-includes %gdn_kernels/gdn_prefill/gdn_forward_vm.mlir.in %t.forward_vm.mlir.in
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed s/@DT@/f16/g %t.prefill.mlir.in | gdn-opt --gdn-lower-to-ptx="index-bitwidth=32 output-dir=%t" -o /dev/null
// RUN: sed s/@DT@/bf16/g %t.prefill.mlir.in | gdn-opt --gdn-lower-to-ptx="index-bitwidth=32 output-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=MANIFEST --input-file=%t/gdn_chunk_prep_f16.manifest
// RUN: %ptxas -arch=sm_90a -v %t/gdn_prefill_f16.ptx -o %t/f16.cubin 2>&1 | FileCheck %s --check-prefix=PREP --implicit-check-not=warning
// RUN: %ptxas -arch=sm_90a -v %t/gdn_prefill_bf16.ptx -o %t/bf16.cubin 2>&1 | FileCheck %s --check-prefix=PREP --implicit-check-not=warning
// RUN: sed s/@DT@/f16/g %t.forward.mlir.in | %instantiate-bv16 | gdn-opt --gdn-lower-to-ptx="index-bitwidth=32 output-dir=%t" -o /dev/null
// RUN: sed s/@DT@/bf16/g %t.forward.mlir.in | %instantiate-bv16 | gdn-opt --gdn-lower-to-ptx="index-bitwidth=32 output-dir=%t" -o /dev/null
// RUN: sed s/@DT@/f16/g %t.forward.mlir.in | %instantiate-bv64 | gdn-opt --gdn-lower-to-ptx="index-bitwidth=32 output-dir=%t" -o /dev/null
// RUN: sed s/@DT@/bf16/g %t.forward.mlir.in | %instantiate-bv64 | gdn-opt --gdn-lower-to-ptx="index-bitwidth=32 output-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/gdn_forward_f16.ptx -o %t/fwd.cubin 2>&1 | FileCheck %s --check-prefix=FWD --implicit-check-not=warning
// RUN: %ptxas -arch=sm_90a -v %t/gdn_forward_bf16.ptx -o %t/fwd.cubin 2>&1 | FileCheck %s --check-prefix=FWD --implicit-check-not=warning
// RUN: %ptxas -arch=sm_90a -v %t/gdn_forward_bv64_f16.ptx -o %t/fwd.cubin 2>&1 | FileCheck %s --check-prefix=FWD --implicit-check-not=warning
// RUN: %ptxas -arch=sm_90a -v %t/gdn_forward_bv64_bf16.ptx -o %t/fwd.cubin 2>&1 | FileCheck %s --check-prefix=FWD --implicit-check-not=warning
// RUN: sed s/@DT@/f16/g %t.forward_vm.mlir.in | gdn-opt --gdn-lower-to-ptx="index-bitwidth=32 output-dir=%t" -o /dev/null
// RUN: sed s/@DT@/bf16/g %t.forward_vm.mlir.in | gdn-opt --gdn-lower-to-ptx="index-bitwidth=32 output-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/gdn_forward_vm_f16.ptx -o %t/vm.cubin 2>&1 | FileCheck %s --check-prefix=VM --implicit-check-not=warning
// RUN: %ptxas -arch=sm_90a -v %t/gdn_forward_vm_bf16.ptx -o %t/vm.cubin 2>&1 | FileCheck %s --check-prefix=VM --implicit-check-not=warning
// RUN: FileCheck %s --check-prefix=HINTPREP --input-file=%t/gdn_prefill_f16.ptx
// RUN: FileCheck %s --check-prefix=HINTVM --input-file=%t/gdn_forward_vm_bf16.ptx

// Ag's L2 eviction priorities (tile.copy {l2_hint}, docs/perf-notes.md
// v58): prep_k stores it evict_last (where it has at most 2^19
// token-heads), and so does the fused form's prep (the same tile), the
// prep with P (block_v 16) without a hint; the
// value-major kernels' rings load it evict_first (its three 32-row boxes),
// their other loads without one.
// HINTPREP-LABEL: .visible .entry gdn_chunk_prep_f16(
// HINTPREP-NOT:   cache_hint
// HINTPREP-LABEL: .visible .entry gdn_chunk_prep_k_f16(
// HINTPREP:       createpolicy.fractional.L2::evict_last.b64 [[POL:%rd[0-9]+]], 1.0;
// HINTPREP-COUNT-8: st.global.L2::cache_hint.b64 [{{%rd[0-9]+}}], {{%rd[0-9]+}}, [[POL]];
// HINTPREP-NOT:   cache_hint
// HINTPREP-LABEL: .visible .entry gdn_chunk_prep_fref_f16(
// HINTPREP:       createpolicy.fractional.L2::evict_last.b64 [[POLF:%rd[0-9]+]], 1.0;
// HINTPREP-COUNT-8: st.global.L2::cache_hint.b64 [{{%rd[0-9]+}}], {{%rd[0-9]+}}, [[POLF]];
// HINTPREP-NOT:   cache_hint
// HINTPREP-LABEL: .visible .entry gdn_cp_scan_f16(
// HINTVM-LABEL:   .visible .entry gdn_chunk_fwd_vm128_bf16(
// HINTVM-NOT:     cache_hint
// HINTVM:         createpolicy.fractional.L2::evict_first.b64 [[POL:%rd[0-9]+]], 1.0;
// HINTVM-COUNT-3: .L2::cache_hint [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{.*}}], [{{%r[0-9]+}}], [[POL]];
// HINTVM-NOT:     cache_hint
// HINTVM:         createpolicy.fractional.L2::evict_first.b64 [[POL2:%rd[0-9]+]], 1.0;
// HINTVM-COUNT-3: .L2::cache_hint [{{%r[0-9]+}}], [{{%rd[0-9]+}}, {{.*}}], [{{%r[0-9]+}}], [[POL2]];
// HINTVM-NOT:     cache_hint
// HINTVM-LABEL:   .visible .entry gdn_chunk_fwd_vm128_ref_bf16(

// MANIFEST: kernel = gdn_chunk_prep_f16
// MANIFEST: index_bits = 32

// No line anywhere may say "warning" (--implicit-check-not). ptxas notes
// (C7519) that it adds warpgroup.arrive around the wgmma accumulators; that
// is an info line, not a warning.
// PREP: Compiling entry function 'gdn_cp_scan_{{b?f16}}' for 'sm_90a'
// The prep kernels are capped (tile.max_registers) without spilling:
// gdn_chunk_prep_k at 72 registers with its inverse's destination laid over
// half of its source (tile.overlap_tril_inverse = 1: 28,804 bytes, seven
// blocks per SM), the prep with P at 80 (36,868 bytes, six blocks). The
// fused form's prep (gdn_chunk_prep_fref: prep_k's tile in a loop over a
// flagged sequence's chunks, LICM off in it) at 72 too (with LICM it
// spilled 248 bytes).
// PREP: Compiling entry function 'gdn_chunk_prep_fref_{{b?f16}}' for 'sm_90a'
// PREP-NEXT: Function properties
// PREP-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PREP: Compiling entry function 'gdn_chunk_prep_k_{{b?f16}}' for 'sm_90a'
// PREP-NEXT: Function properties
// PREP-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PREP: Used {{[0-9]+}} registers
// PREP: Compiling entry function 'gdn_chunk_prep_{{b?f16}}' for 'sm_90a'
// PREP-NEXT: Function properties
// PREP-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PREP: Used {{[0-9]+}} registers

// The replay spills (148 bytes with ptxas 13.0: its segment bounds stay
// live across the chunk loop; docs/perf-notes.md v13); the summary and the
// direct forward must not. Their refined copies (the _ref kernels after
// them, which run only the blocks with a flagged chunk: docs/gdn-math.md
// §6.8) carry the refined step's parts in LICM-off subloops of the chunk
// loop and spill in the value-major form, 20 bytes (direct) and 36
// (replay) in f16, 36 and 52 in bf16, with ptxas 13.0 since the q/k
// norm's overflow vote is each warp's (24 and 40 in both with the
// consumers' barrier vote; 72 and 84 with the
// rows' sums of squares on the CUDA cores; 68 and 76 before the norm's
// factor branch joined the chunk loop, 148 and 160 with it; values
// stored before the chunk loop, reloaded in it; docs/perf-notes.md v57,
// v65, v66, v68, v69, v71), on flagged chunks' blocks only; the block_v
// 16 ones none: more is a regression. The fused prep + forward kernel
// none in either dtype (its task at 88 registers; bf16 16 bytes in the
// task's chunk loop before v73; test/Kernels/gdn-fused-prep.mlir checks
// its structure).
// VM: Compiling entry function 'gdn_cp_replay_vm128_ref_{{b?f16}}' for 'sm_90a'
// VM: {{40 bytes stack frame, 36|56 bytes stack frame, 52}} bytes spill stores
// VM: Compiling entry function 'gdn_cp_replay_vm128_{{b?f16}}' for 'sm_90a'
// VM: Used {{[0-9]+}} registers
// VM: Compiling entry function 'gdn_cp_summary_vm128_ref_{{b?f16}}' for 'sm_90a'
// VM: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// VM: Compiling entry function 'gdn_cp_summary_vm128_{{b?f16}}' for 'sm_90a'
// VM: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// VM: Compiling entry function 'gdn_chunk_fused_vm128_{{b?f16}}' for 'sm_90a'
// VM: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// VM: Compiling entry function 'gdn_chunk_fwd_vm128_ref_{{b?f16}}' for 'sm_90a'
// VM: {{16 bytes stack frame, 20|32 bytes stack frame, 36}} bytes spill stores
// VM: Compiling entry function 'gdn_chunk_fwd_vm128_{{b?f16}}' for 'sm_90a'
// VM: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// FWD: Compiling entry function 'gdn_cp_replay{{(_bv64)?}}_ref_{{b?f16}}' for 'sm_90a'
// FWD: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// FWD: Compiling entry function 'gdn_cp_replay{{(_bv64)?}}_{{b?f16}}' for 'sm_90a'
// FWD: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// FWD: Compiling entry function 'gdn_cp_summary{{(_bv64)?}}_ref_{{b?f16}}' for 'sm_90a'
// FWD: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// FWD: Compiling entry function 'gdn_cp_summary{{(_bv64)?}}_{{b?f16}}' for 'sm_90a'
// FWD: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// FWD: Compiling entry function 'gdn_chunk_fwd{{(_bv64)?}}_ref_{{b?f16}}' for 'sm_90a'
// FWD: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// FWD: Compiling entry function 'gdn_chunk_fwd{{(_bv64)?}}_{{b?f16}}' for 'sm_90a'
// FWD: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
