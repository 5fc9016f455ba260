// RUN: rm -rf %t && mkdir -p %t/out
// RUN: gdn-opt %s -split-input-file -verify-diagnostics --gdn-export-ptx="output-dir=%t/out" -o /dev/null
// RUN: not ls %t/x.ptx %t/evil.manifest
// RUN: FileCheck %s --check-prefix=TMA --match-full-lines --input-file=%t/out/tma.manifest
// RUN: FileCheck %s --check-prefix=L2 --input-file=%t/out/maps.manifest

// gdn-export-ptx writes only what gdn-run can read back as written: file
// names that stay in output-dir, `key = value` lines that no value can break
// or extend, parameter types gdn-run binds.

// expected-error @below {{module name '../x' is not a PTX identifier ([A-Za-z_$][A-Za-z0-9_$]*); it would name the file '../x.ptx'}}
gpu.binary @"../x" [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\0A">]

// -----

// expected-error @below {{kernel name '../evil' is not a PTX identifier ([A-Za-z_$][A-Za-z0-9_$]*); it would name the file '../evil.manifest'}}
module @k1 attributes {gdn.kernels = {"../evil" = {module = "bin", params = [], block = [32, 1, 1], shared_bytes = 0 : i64}}} {
  gpu.binary @bin [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\0A">]
}

// -----

// expected-error @below {{cannot write the launch manifest of kernel 'k': value of 'meta.op' contains a control character or '#'}}
module @k2 attributes {gdn.kernels = {k = {module = "bin", params = [], block = [32, 1, 1], shared_bytes = 0 : i64, meta = {op = "gemm\0Ashared_bytes = 0"}}}} {
  gpu.binary @bin [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\0A">]
}

// -----

// expected-error @below {{cannot write the launch manifest of kernel 'k': key 'meta.a b' is not [A-Za-z_][A-Za-z0-9_.]*}}
module @k3 attributes {gdn.kernels = {k = {module = "bin", params = [], block = [32, 1, 1], shared_bytes = 0 : i64, meta = {"a b" = 1 : i64}}}} {
  gpu.binary @bin [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\0A">]
}

// -----

// expected-error @below {{kernel 'k': parameter 'x' has type 'ptr<f64>', which gdn-run cannot bind (supported: ptr<f16|bf16|f32|i32|i64>, i32, i64, f32, tensormap)}}
module @k4 attributes {gdn.kernels = {k = {module = "bin", params = ["x:ptr<f64>"], block = [32, 1, 1], shared_bytes = 0 : i64}}} {
  gpu.binary @bin [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\0A">]
}

// -----

// expected-error @below {{kernel 'k': parameter 'n' has type 'i16', which gdn-run cannot bind}}
module @k5 attributes {gdn.kernels = {k = {module = "bin", params = ["n:i16"], block = [32, 1, 1], shared_bytes = 0 : i64}}} {
  gpu.binary @bin [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\0A">]
}

// -----

// expected-error @below {{kernel 'k': parameter "n\0Ablock = 1:i32" is not 'name:type' with an identifier name}}
module @k6 attributes {gdn.kernels = {k = {module = "bin", params = ["n\0Ablock = 1:i32"], block = [32, 1, 1], shared_bytes = 0 : i64}}} {
  gpu.binary @bin [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\0A">]
}

// -----

// expected-error @below {{kernel 'k': block must be three positive sizes of at most 1024 threads in all}}
module @k7 attributes {gdn.kernels = {k = {module = "bin", params = [], block = [2048, 1, 1], shared_bytes = 0 : i64}}} {
  gpu.binary @bin [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\0A">]
}

// -----

// expected-error @below {{kernel 'k': block must be three positive sizes of at most 1024 threads in all}}
module @k8 attributes {gdn.kernels = {k = {module = "bin", params = [], block = [4294967296, 4294967296, 1], shared_bytes = 0 : i64}}} {
  gpu.binary @bin [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\0A">]
}

// -----

// expected-error @below {{kernel 'k': shared_bytes must be an integer in [0, 232448]}}
module @k9 attributes {gdn.kernels = {k = {module = "bin", params = [], block = [32, 1, 1], shared_bytes = -1 : i64}}} {
  gpu.binary @bin [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\0A">]
}

// -----

// TMA descriptors to come: tensormap parameters and values of this shape
// pass.
// TMA:      # launch manifest written by gdn-opt (gdn-export-ptx)
// TMA-NEXT: gdn_manifest = 1
// TMA-NEXT: kernel = tma
// TMA-NEXT: ptx = bin.ptx
// TMA-NEXT: ptx_hash = fnv1a64w:{{[0-9a-f]{16}$}}
// TMA-NEXT: target = sm_90a
// TMA-NEXT: block = 128,1,1
// TMA-NEXT: shared_bytes = 0
// TMA-NEXT: param = tmA:tensormap
// TMA-NEXT: param = A:ptr<f16>
// TMA-NEXT: meta.grid = (M+127)/128*2-1
// TMA-NEXT: meta.tensormap.tmA = base=A; dims=K, M; strides=K; box=64, 128; swizzle=128; l2=256; fill=zero
// TMA-NOT:  {{.}}
module @k10 attributes {gdn.kernels = {tma = {module = "bin", params = ["tmA:tensormap", "A:ptr<f16>"], block = [128, 1, 1], shared_bytes = 0 : i64,
    meta = {tensormap.tmA = "base=A; dims=K, M; strides=K; box=64, 128; swizzle=128; l2=256; fill=zero", grid = "(M+127)/128*2-1"}}}} {
  gpu.binary @bin [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\0A">]
}

// -----

// A tensor map's L2 promotion: the recipe's l2_promotion (0 = none), 256
// bytes where it has none; the manifest always says which.
// L2: tensormap.Ag_tma = base=Ag; dims=64, HV, T; strides=64, (HV)*(64); box=32, 1, 32; swizzle=64; l2=none; fill=zero
// L2: tensormap.k_tma = base=k; dims=128, T; strides=128; box=64, 64; swizzle=128; l2=256; fill=zero
module @k11 attributes {gdn.kernels = {maps = {module = "bin", params = ["Ag_tma:tensormap", "k_tma:tensormap"], block = [128, 1, 1], shared_bytes = 0 : i64,
    tensormaps = {Ag_tma = {base = "Ag", dims = ["T", "HV", "64"], strides = ["(HV)*(64)", "64"], l2_promotion = 0 : i64, box = [32, 1, 32], swizzle = 64 : i64},
                  k_tma = {base = "k", dims = ["T", "128"], strides = ["128"], box = [64, 64], swizzle = 128 : i64}}}}} {
  gpu.binary @bin [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\0A">]
}

// -----

// expected-error @below {{kernel 'k': tensor map 'Ag_tma' has l2_promotion 512 : i64, not one of 0 (none), 64, 128 or 256 bytes}}
module @k12 attributes {gdn.kernels = {k = {module = "bin", params = ["Ag_tma:tensormap"], block = [128, 1, 1], shared_bytes = 0 : i64,
    tensormaps = {Ag_tma = {base = "Ag", dims = ["T", "64"], strides = ["64"], l2_promotion = 512 : i64, box = [32, 32], swizzle = 64 : i64}}}}} {
  gpu.binary @bin [#gpu.object<#nvvm.target<chip = "sm_90a">, assembly = ".version 8.0\0A">]
}
