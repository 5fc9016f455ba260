// REQUIRES: ptxas
// ptxas accepts the PTX of kernels/gemm/gemm.mlir for sm_90a without
// warnings, and neither kernel spills (each 128x128 accumulator takes 128
// registers per thread).
//
// RUN: rm -rf %t && mkdir -p %t
// RUN: gdn-opt %gdn_kernels/gemm/gemm.mlir --gdn-lower-to-ptx="output-dir=%t" -o /dev/null
// RUN: %ptxas -arch=sm_90a -v %t/gemm.ptx -o %t/gemm.cubin > %t/ptxas.log 2>&1
// RUN: FileCheck %s --check-prefix=F16 --implicit-check-not=warning --input-file=%t/ptxas.log
// RUN: FileCheck %s --check-prefix=BF16 --input-file=%t/ptxas.log
// RUN: FileCheck %s --check-prefix=RS --input-file=%t/ptxas.log

// F16:      Compiling entry function 'gemm_f16_128x128x64' for 'sm_90a'
// F16-NEXT: Function properties for gemm_f16_128x128x64
// F16-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// F16-NEXT: Used {{[0-9]+}} registers, used 1 barriers

// BF16:      Compiling entry function 'gemm_bf16_nt_128x128x64' for 'sm_90a'
// BF16-NEXT: Function properties for gemm_bf16_nt_128x128x64
// BF16-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// BF16-NEXT: Used {{[0-9]+}} registers, used 1 barriers

// The register-A wgmma kernels: no warning (in particular none about an
// injected warpgroup.arrive: the A registers are ready before the fence),
// no spill.
// RS:      Compiling entry function 'gemm_f16_rs_wgmma_128x128x64' for 'sm_90a'
// RS-NEXT: Function properties for gemm_f16_rs_wgmma_128x128x64
// RS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
