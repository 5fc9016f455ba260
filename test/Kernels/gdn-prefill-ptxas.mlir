// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed s/@DT@/f16/g %gdn_kernels/gdn_prefill/gdn_prefill.mlir.in | gdn-opt --gdn-lower-to-ptx="output-dir=%t" -o /dev/null
// RUN: sed s/@DT@/bf16/g %gdn_kernels/gdn_prefill/gdn_prefill.mlir.in | gdn-opt --gdn-lower-to-ptx="output-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/gdn_prefill_f16.ptx -o %t/f16.cubin 2>&1 | FileCheck %s
// RUN: %ptxas -arch=sm_90a -v %t/gdn_prefill_bf16.ptx -o %t/bf16.cubin 2>&1 | FileCheck %s
// CHECK-NOT: warning
// ptxas notes (C7519) that it adds warpgroup.arrive around the wgmma
// accumulators; that is an info line, not a warning.
// CHECK: Compiling entry function 'gdn_chunk_fwd_{{b?f16}}' for 'sm_90a'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// The prep kernel is capped at 128 registers (tile.max_registers: four
// blocks per SM with its 49 KB of shared memory) without spilling.
// CHECK: Compiling entry function 'gdn_chunk_prep_{{b?f16}}' for 'sm_90a'
// CHECK: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// CHECK: Used {{[0-9]+}} registers
