// RUN: rm -rf %t && mkdir -p %t
// RUN: gdn-opt %s -split-input-file -verify-diagnostics --gdn-lower-to-ptx="output-dir=%t" -o /dev/null
// RUN: FileCheck %s --input-file=%t/exp.ptx
// RUN: FileCheck %s --check-prefix=MANIFEST --match-full-lines --input-file=%t/k_named.manifest
// RUN: FileCheck %s --check-prefix=PLAIN --match-full-lines --input-file=%t/k_plain.manifest
// RUN: FileCheck %s --check-prefix=HAND --match-full-lines --input-file=%t/hk.manifest
// RUN: FileCheck %s --check-prefix=HANDPTX --input-file=%t/handbin.ptx
//
// The pass alone leaves the IR as it is.
// RUN: mkdir -p %t/alone
// RUN: gdn-opt %s -split-input-file -verify-diagnostics --gdn-export-ptx="output-dir=%t/alone" | FileCheck %s --check-prefix=IR
//
// A missing or unset output directory is an error.
// RUN: not gdn-opt %s -split-input-file --gdn-lower-to-ptx="output-dir=%t/missing" -o /dev/null 2>&1 | FileCheck %s --check-prefix=NODIR
// RUN: not gdn-opt %s -split-input-file --gdn-export-ptx -o /dev/null 2>&1 | FileCheck %s --check-prefix=NOOPT
// RUN: not ls %t/missing

// NODIR: error: output directory '{{.*}}missing' does not exist
// NOOPT: error: gdn-export-ptx needs an output-dir

// Two kernels in one module: one .ptx named after the module, one manifest
// per kernel.

// CHECK:      .version 8.0
// CHECK-NEXT: .target sm_90a
// CHECK-NEXT: .address_size 64
// CHECK:      .extern .shared .align 1024 .b8 __tile_smem[];
// CHECK:      .visible .entry k_named(
// CHECK-NEXT:   .param .u64 k_named_param_0,
// CHECK-NEXT:   .param .u64 k_named_param_1,
// CHECK-NEXT:   .param .u32 k_named_param_2
// CHECK-NEXT: )
// CHECK-NEXT: .maxntid 64, 1, 1
// CHECK:      bar.sync 0;
// CHECK:      .visible .entry k_plain(
// CHECK-NEXT:   .param .u64 k_plain_param_0,
// CHECK-NEXT:   .param .u64 k_plain_param_1,
// CHECK-NEXT:   .param .f32 k_plain_param_2
// CHECK-NEXT: )
// CHECK-NEXT: .maxntid 32, 1, 1

// Every line of the manifest, in order: the launch requirement of the
// 16-byte vectors over rows of n f16 (tile-assign-layouts), parameters in
// declaration order named by tile.name, meta entries sorted by name (bools
// as 0/1).

// MANIFEST:      # launch manifest written by gdn-opt (gdn-export-ptx)
// MANIFEST-NEXT: gdn_manifest = 1
// MANIFEST-NEXT: kernel = k_named
// MANIFEST-NEXT: ptx = exp.ptx
// MANIFEST-NEXT: ptx_hash = fnv1a64w:{{[0-9a-f]{16}$}}
// MANIFEST-NEXT: target = sm_90a
// MANIFEST-NEXT: block = 64,1,1
// MANIFEST-NEXT: shared_bytes = 8192
// MANIFEST-NEXT: requires_multiple.n = 8
// MANIFEST-NEXT: param = X:ptr<f16>
// MANIFEST-NEXT: param = Y:ptr<f32>
// MANIFEST-NEXT: param = n:i32
// MANIFEST-NEXT: meta.block = 64
// MANIFEST-NEXT: meta.exact = 1
// MANIFEST-NEXT: meta.op = copy
// MANIFEST-NEXT: meta.scale = 5.000000e-01
// MANIFEST-NOT:  {{.}}

// Unnamed parameters are argN; index is i64; no meta lines without tile.meta.

// PLAIN:      # launch manifest written by gdn-opt (gdn-export-ptx)
// PLAIN-NEXT: gdn_manifest = 1
// PLAIN-NEXT: kernel = k_plain
// PLAIN-NEXT: ptx = exp.ptx
// PLAIN-NEXT: ptx_hash = fnv1a64w:{{[0-9a-f]{16}$}}
// PLAIN-NEXT: target = sm_90a
// PLAIN-NEXT: block = 32,1,1
// PLAIN-NEXT: shared_bytes = 0
// PLAIN-NEXT: param = arg0:ptr<bf16>
// PLAIN-NEXT: param = arg1:i64
// PLAIN-NEXT: param = arg2:f32
// PLAIN-NOT:  {{.}}

module @exp {
  func.func @k_named(%px: !tile.ptr<f16> {tile.name = "X"}, %py: !tile.ptr<f32> {tile.name = "Y"},
                     %n: i32 {tile.name = "n"})
      attributes {tile.kernel, tile.num_warps = 2 : i64,
                  tile.meta = {op = "copy", block = 64 : i64, scale = 5.000000e-01 : f32, exact = true}} {
    %c0 = arith.constant 0 : index
    %m = arith.index_cast %n : i32 to index
    %X = tile.view %px[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
    %s = tile.alloc : !tile.buffer<64x64xf16, shared>
    tile.copy %X[%c0, %c0] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.barrier
    tile.copy %s to %X[%c0, %c0] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x?xf16, global>
    return
  }
  func.func @k_plain(%p: !tile.ptr<bf16>, %len: index, %eps: f32)
      attributes {tile.kernel, tile.num_warps = 1 : i64} {
    return
  }
}

// -----

// A binary made elsewhere: the chip comes from its target, the trailing NUL
// of the assembly is dropped, the manifest follows gdn.kernels (array meta
// joined with commas, unit meta as 1).

// HAND:      # launch manifest written by gdn-opt (gdn-export-ptx)
// HAND-NEXT: gdn_manifest = 1
// HAND-NEXT: kernel = hk
// HAND-NEXT: ptx = handbin.ptx
// HAND-NEXT: ptx_hash = fnv1a64w:{{[0-9a-f]{16}$}}
// HAND-NEXT: target = sm_89
// HAND-NEXT: block = 96,1,1
// HAND-NEXT: shared_bytes = 512
// HAND-NEXT: param = p:ptr<f16>
// HAND-NEXT: meta.flag = 1
// HAND-NEXT: meta.name = x
// HAND-NEXT: meta.tiles = 1,2,3
// HAND-NOT:  {{.}}

// HANDPTX:      .version 8.0
// HANDPTX-NEXT: .target sm_89
// HANDPTX-NOT:  {{[^[:space:]]}}

// IR-LABEL: module @hand
// IR:       gpu.binary @handbin [#gpu.object<#nvvm.target<chip = "sm_89">, assembly =
module @hand attributes {gpu.container_module,
    gdn.kernels = {hk = {module = "handbin", params = ["p:ptr<f16>"], block = [96, 1, 1],
                         shared_bytes = 512 : i64, meta = {tiles = [1, 2, 3], flag, name = "x"}}}} {
  gpu.binary @handbin [#gpu.object<#nvvm.target<chip = "sm_89">, assembly = ".version 8.0\0A.target sm_89\0A\00">]
}

// -----

module @binfmt attributes {gpu.container_module} {
  // expected-error @below {{gdn-export-ptx needs PTX; run gpu-module-to-binary with format=isa}}
  gpu.binary @cubin [#gpu.object<#nvvm.target<chip = "sm_90a">, bin = "\7FELF">]
}

// -----

// expected-error @below {{no PTX for kernel 'lost'}}
module @nobin attributes {gdn.kernels = {lost = {module = "gone", params = [], block = [32, 1, 1], shared_bytes = 0 : i64}}} {
}
