// The optional per-token stage of the GDN prefill (kernels/gdn_prefill/
// gdn_gate_beta.mlir.in): g from a raw gate, a_log and dt_bias, beta through
// a sigmoid and/or doubled, into the workspaces g_act and beta_act that the
// later stages read (GdnSequence.h, meta.when = gate_beta). Per dtype: the
// manifest's contract, the flags as runtime scalars (each transform behind
// its own branch), and the math in the PTX (exp and log by ex2/lg2, the
// sigmoid's reciprocal correctly rounded).
// RUN: rm -rf %t && mkdir -p %t
// RUN: sed s/@DT@/f16/g %gdn_kernels/gdn_prefill/gdn_gate_beta.mlir.in > %t/f16.mlir
// RUN: sed s/@DT@/bf16/g %gdn_kernels/gdn_prefill/gdn_gate_beta.mlir.in > %t/bf16.mlir
// RUN: gdn-opt %t/f16.mlir --pass-pipeline='builtin.module(func.func(canonicalize,tile-assign-layouts))' | FileCheck %s --check-prefix=LAYOUT
// RUN: gdn-opt %t/f16.mlir --gdn-lower-to-ptx="index-bitwidth=32 output-dir=%t" -o /dev/null
// RUN: gdn-opt %t/bf16.mlir --gdn-lower-to-ptx="index-bitwidth=32 output-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=MANIFEST --input-file=%t/gdn_gate_beta_f16.manifest
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/gdn_gate_beta_f16.ptx
// RUN: FileCheck %s --check-prefix=BF16 --input-file=%t/gdn_gate_beta_bf16.manifest

// The 1-D tiles stay one element per register (masked rows of any length);
// a_log and dt_bias are read only inside the gate's branch.
// LAYOUT-LABEL: func.func @gdn_gate_beta_f16
// LAYOUT:       tile.copy {{.*}} {{{.*}}masked} : !tile.buffer<?xf32, global> to !tile.buffer<256xf32, shared>
// LAYOUT:       scf.if
// LAYOUT:         tile.map indexed
// LAYOUT:           tile.load {{.*}} : !tile.buffer<?xf32, global>
// LAYOUT:           tile.load {{.*}} : !tile.buffer<?xf32, global>
// LAYOUT:           math.exp
// LAYOUT:           math.log
// LAYOUT:           arith.cmpf ogt
// LAYOUT:       tile.copy {{.*}} {masked} : !tile.buffer<256xf32, fragment, #tile.blocked<vector = 1>> to !tile.buffer<?xf32, global>
// LAYOUT:       scf.if
// LAYOUT:         arith.divf
// LAYOUT:       scf.if
// LAYOUT:       tile.copy {{.*}} {masked} : !tile.buffer<256xf32, fragment, #tile.blocked<vector = 1>> to !tile.buffer<?xf16, global>

// MANIFEST: kernel = gdn_gate_beta_f16
// MANIFEST: param = g:ptr<f32>
// MANIFEST-NEXT: param = beta:ptr<f16>
// MANIFEST-NEXT: param = a_log:ptr<f32>
// MANIFEST-NEXT: param = dt_bias:ptr<f32>
// MANIFEST-NEXT: param = g_act:ptr<f32>
// MANIFEST-NEXT: param = beta_act:ptr<f16>
// MANIFEST: param = gate_in_kernel:i32
// MANIFEST-NEXT: param = beta_sigmoid:i32
// MANIFEST-NEXT: param = neg_eigval:i32
// MANIFEST: meta.grid = cdiv(B*T*HV, 256),1,1
// MANIFEST: meta.order = 0
// MANIFEST: meta.when = gate_beta
// MANIFEST: meta.ws_beta_act = B*T*HV
// MANIFEST: meta.ws_g_act = B*T*HV

// PTX: .entry gdn_gate_beta_f16
// PTX-DAG: lg2.approx.ftz.f32
// PTX-DAG: ex2.approx.ftz.f32
// PTX-DAG: rcp.rn.f32

// BF16: kernel = gdn_gate_beta_bf16
// BF16: param = beta:ptr<bf16>
// BF16: param = beta_act:ptr<bf16>
