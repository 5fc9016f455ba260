// RUN: gdn-opt %s -split-input-file --tile-outline-kernels | FileCheck %s
// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-assign-layouts),tile-outline-kernels,convert-tile-to-nvvm)' | FileCheck %s --check-prefix=LLVM
// RUN: rm -rf %t && mkdir -p %t
// RUN: gdn-opt %s -split-input-file --gdn-lower-to-ptx="output-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=MANIFEST --input-file=%t/kd.manifest
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/dep.ptx
// RUN: FileCheck %s --check-prefix=PLAIN --input-file=%t/kp.manifest
// RUN: FileCheck %s --check-prefix=PLAINPTX --input-file=%t/plain.ptx
// RUN: FileCheck %s --check-prefix=FLAGS --input-file=%t/kf.manifest
// RUN: FileCheck %s --check-prefix=FLAGSPTX --input-file=%t/flags.ptx
// RUN: FileCheck %s --check-prefix=BOTH --input-file=%t/kb.manifest
// RUN: FileCheck %s --check-prefix=BOTHPTX --input-file=%t/both.ptx
// RUN: FileCheck %s --check-prefix=DEFER --input-file=%t/kw.manifest
// RUN: FileCheck %s --check-prefix=DEFERPTX --input-file=%t/deferred.ptx

// tile.grid_dependency (programmatic dependent launch): the launch
// interface and the manifest say `grid_dependency`, so that the launcher
// sets programmatic stream serialization, and the kernel's first
// instructions wait for its stream predecessor's grid (griddepcontrol.wait)
// before anything else (here the load of A, which a predecessor may have
// written), then let its own successor launch. The inline assembly clobbers
// memory, so no load moves above it.

// CHECK-LABEL: module @dep attributes {gdn.kernels = {kd = {block = [128, 1, 1], grid_dependency, module = "dep", params = ["A:ptr<f16>", "O:ptr<f16>", "len:i64"], shared_bytes = 0 : i64}}, gpu.container_module}

// LLVM-LABEL: llvm.func @kd(
// LLVM-NOT:     llvm.load
// LLVM:         llvm.inline_asm has_side_effects asm_dialect = att "griddepcontrol.wait;\0A\09griddepcontrol.launch_dependents;", "~{memory}" : () -> !llvm.void
// LLVM:         llvm.load
// LLVM:         llvm.store
// LLVM:         llvm.return

// MANIFEST: kernel = kd
// MANIFEST: shared_bytes = 0
// MANIFEST: grid_dependency = 1
// MANIFEST: param = A:ptr<f16>

// PTX:      .entry kd(
// PTX:      {
// PTX-NOT:  {{ld.global|st.global|ld.shared|st.shared|cp.async|mbarrier|atom|red}}
// PTX:      griddepcontrol.wait;
// PTX-NEXT: griddepcontrol.launch_dependents;
// PTX:      ld.global
// PTX:      st.global
module @dep {
  func.func @kd(%pa: !tile.ptr<f16> {tile.name = "A"}, %po: !tile.ptr<f16> {tile.name = "O"},
               %len: index {tile.name = "len"})
      attributes {tile.kernel, tile.grid_dependency, tile.num_warps = 4 : i64} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %a = tile.view %pa[%len] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
    %o = tile.view %po[%len] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
    %pid = tile.program_id x
    %r = arith.muli %pid, %c64 : index
    %f = tile.alloc : !tile.buffer<64x64xf16, fragment>
    tile.copy %a[%r, %c0] to %f : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, fragment>
    tile.copy %f to %o[%r, %c0] : !tile.buffer<64x64xf16, fragment> to !tile.buffer<?x64xf16, global>
    return
  }
}

// -----

// Without the attribute: no grid dependency in the interface, the manifest
// or the PTX (the launcher uses a plain launch).

// CHECK-LABEL: module @plain attributes {gdn.kernels = {kp = {block = [128, 1, 1], module = "plain", params = ["A:ptr<f16>", "len:i64"], shared_bytes = 0 : i64}}, gpu.container_module}
// LLVM-LABEL: llvm.func @kp(
// LLVM-NOT:     griddepcontrol
// LLVM:         llvm.return
// PLAIN-NOT: grid_dependency
// PLAINPTX-NOT: griddepcontrol
module @plain {
  func.func @kp(%pa: !tile.ptr<f16> {tile.name = "A"}, %len: index {tile.name = "len"})
      attributes {tile.kernel, tile.num_warps = 4 : i64} {
    %c1 = arith.constant 1 : index
    %a = tile.view %pa[%len] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
    %pid = tile.program_id x
    %x = tile.load %a[%pid, %c1] : !tile.buffer<?x64xf16, global>
    return
  }
}

// -----

// tile.grid_dependency = "flags": launched the same way (the manifest says
// grid_dependency = 2), the kernel lets its successor launch at once but
// does not wait for its predecessor: it reads that one's data after a ready
// flag (tile.flag_wait) says it is there.

// CHECK-LABEL: module @flags attributes {gdn.kernels = {kf = {block = [128, 1, 1], grid_dependency = "flags", module = "flags", params = ["A:ptr<f16>", "ready:ptr<i32>", "len:i64", "epoch:i32"], shared_bytes = 0 : i64}}, gpu.container_module}
// LLVM-LABEL: llvm.func @kf(
// LLVM:         llvm.inline_asm has_side_effects asm_dialect = att "griddepcontrol.launch_dependents;", "~{memory}" : () -> !llvm.void
// LLVM:         ld.acquire.gpu.global.b32
// LLVM:         llvm.load
// LLVM:         llvm.return
// FLAGS: grid_dependency = 2
// FLAGSPTX-NOT:  griddepcontrol.wait
// FLAGSPTX:      griddepcontrol.launch_dependents;
// FLAGSPTX-NOT:  griddepcontrol.wait
// FLAGSPTX:      ld.acquire.gpu.global.b32
module @flags {
  func.func @kf(%pa: !tile.ptr<f16> {tile.name = "A"}, %pf: !tile.ptr<i32> {tile.name = "ready"},
                %len: index {tile.name = "len"}, %epoch: i32 {tile.name = "epoch"})
      attributes {tile.kernel, tile.grid_dependency = "flags", tile.num_warps = 4 : i64} {
    %c1 = arith.constant 1 : index
    %a = tile.view %pa[%len] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
    %f = tile.view %pf[%len] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
    %pid = tile.program_id x
    tile.flag_wait %f[%pid], %epoch : !tile.buffer<?xi32, global>
    %x = tile.load %a[%pid, %c1] : !tile.buffer<?x64xf16, global>
    return
  }
}

// -----

// tile.grid_dependency = "wait_and_flags" (grid_dependency = 3): the kernel
// waits for its stream predecessor's grid at entry, as the unit attribute
// does, and for an earlier kernel's data (one that may still be running)
// through ready flags.

// CHECK-LABEL: module @both attributes {gdn.kernels = {kb = {block = [128, 1, 1], grid_dependency = "wait_and_flags", module = "both", params = ["A:ptr<f16>", "ready:ptr<i32>", "len:i64", "epoch:i32"], shared_bytes = 0 : i64}}, gpu.container_module}
// LLVM-LABEL: llvm.func @kb(
// LLVM-NOT:     llvm.load
// LLVM:         llvm.inline_asm has_side_effects asm_dialect = att "griddepcontrol.wait;\0A\09griddepcontrol.launch_dependents;", "~{memory}" : () -> !llvm.void
// LLVM:         ld.acquire.gpu.global.b32
// LLVM:         llvm.load
// LLVM:         llvm.return
// BOTH: grid_dependency = 3
// BOTHPTX:      .entry kb(
// BOTHPTX-NOT:  {{ld.global|ld.acquire}}
// BOTHPTX:      griddepcontrol.wait;
// BOTHPTX-NEXT: griddepcontrol.launch_dependents;
// BOTHPTX:      ld.acquire.gpu.global.b32
module @both {
  func.func @kb(%pa: !tile.ptr<f16> {tile.name = "A"}, %pf: !tile.ptr<i32> {tile.name = "ready"},
                %len: index {tile.name = "len"}, %epoch: i32 {tile.name = "epoch"})
      attributes {tile.kernel, tile.grid_dependency = "wait_and_flags", tile.num_warps = 4 : i64} {
    %c1 = arith.constant 1 : index
    %a = tile.view %pa[%len] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
    %f = tile.view %pf[%len] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
    %pid = tile.program_id x
    tile.flag_wait %f[%pid], %epoch : !tile.buffer<?xi32, global>
    %x = tile.load %a[%pid, %c1] : !tile.buffer<?x64xf16, global>
    return
  }
}

// -----

// tile.grid_dependency = "deferred": launched as the unit attribute's
// kernels (the manifest says grid_dependency = 1), the kernel lets its
// successor launch at entry but waits for its predecessor only where it
// executes tile.grid_wait (griddepcontrol.wait): here a block reads a flag
// first (a global read before any wait) and waits before it stores only
// where the flag is set or it is the grid's last block.

// CHECK-LABEL: module @deferred attributes {gdn.kernels = {kw = {block = [128, 1, 1], grid_dependency = "deferred", module = "deferred", params = ["A:ptr<f16>", "ready:ptr<i32>", "len:i64"], shared_bytes = 0 : i64}}, gpu.container_module}
// LLVM-LABEL: llvm.func @kw(
// LLVM:         llvm.inline_asm has_side_effects asm_dialect = att "griddepcontrol.launch_dependents;", "~{memory}" : () -> !llvm.void
// LLVM:         llvm.load
// LLVM:         llvm.cond_br
// LLVM:         llvm.inline_asm has_side_effects asm_dialect = att "griddepcontrol.wait;", "~{memory}" : () -> !llvm.void
// LLVM:         llvm.store
// LLVM:         llvm.return
// DEFER: grid_dependency = 1
// DEFERPTX:      .entry kw(
// DEFERPTX-NOT:  griddepcontrol.wait
// DEFERPTX:      griddepcontrol.launch_dependents;
// DEFERPTX-NOT:  griddepcontrol.wait
// DEFERPTX:      ld.global
// DEFERPTX:      griddepcontrol.wait;
// DEFERPTX:      st.global
module @deferred {
  func.func @kw(%pa: !tile.ptr<f16> {tile.name = "A"}, %pf: !tile.ptr<i32> {tile.name = "ready"},
                %len: index {tile.name = "len"})
      attributes {tile.kernel, tile.grid_dependency = "deferred", tile.num_warps = 4 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c0_i32 = arith.constant 0 : i32
    %h = arith.constant 1.0 : f16
    %a = tile.view %pa[%len] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
    %f = tile.view %pf[%len] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
    %pid = tile.program_id x
    %n = tile.num_programs x
    %last_pid = arith.subi %n, %c1 : index
    %last = arith.cmpi eq, %pid, %last_pid : index
    %v = tile.load %f[%pid] : !tile.buffer<?xi32, global>
    %set = arith.cmpi ne, %v, %c0_i32 : i32
    %w = arith.ori %set, %last : i1
    scf.if %w {
      tile.grid_wait
    }
    scf.if %set {
      %t = tile.alloc : !tile.buffer<1x64xf16, fragment>
      tile.fill %t, %h : !tile.buffer<1x64xf16, fragment>, f16
      tile.copy %t to %a[%pid, %c0] : !tile.buffer<1x64xf16, fragment> to !tile.buffer<?x64xf16, global>
    }
    return
  }
}

// -----

// A kernel that waits at entry (the unit attribute) may also have a
// tile.grid_wait (a deferred kernel's body reused with the unit attribute,
// as tools/kernel-variant.sh --flags does for the refined kernels): a
// second griddepcontrol.wait, which returns at once.

// LLVM-LABEL: llvm.func @ku(
// LLVM:         llvm.inline_asm has_side_effects asm_dialect = att "griddepcontrol.wait;\0A\09griddepcontrol.launch_dependents;", "~{memory}" : () -> !llvm.void
// LLVM:         llvm.inline_asm has_side_effects asm_dialect = att "griddepcontrol.wait;", "~{memory}" : () -> !llvm.void
// LLVM:         llvm.return
module @unitwait {
  func.func @ku(%pa: !tile.ptr<f16> {tile.name = "A"}, %len: index {tile.name = "len"})
      attributes {tile.kernel, tile.grid_dependency, tile.num_warps = 4 : i64} {
    %c1 = arith.constant 1 : index
    %a = tile.view %pa[%len] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
    tile.grid_wait
    %pid = tile.program_id x
    %x = tile.load %a[%pid, %c1] : !tile.buffer<?x64xf16, global>
    return
  }
}
