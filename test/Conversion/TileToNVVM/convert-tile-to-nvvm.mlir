// RUN: gdn-opt %s -split-input-file -verify-diagnostics --tile-outline-kernels --convert-tile-to-nvvm | FileCheck %s
// RUN: gdn-opt %s -split-input-file -verify-diagnostics --tile-outline-kernels --convert-tile-to-nvvm | FileCheck %s --check-prefix=LDM
// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-expand-tril-inverse,tile-assign-layouts,tile-pipeline,tile-plan-shared-memory,tile-insert-barriers,arith-expand),tile-outline-kernels,convert-tile-to-nvvm)' | FileCheck %s --check-prefix=PIPE

// Both runs outline the kernels first (tile-outline-kernels.mlir tests the
// outlining and the launch interface; the first case here checks the
// result of both passes). The first run converts inputs whose layouts and
// offsets are already set;
// the second runs the tile passes first (arith-expand lowers the
// arith.ceildivsi of tile-pipeline's trip count, as gdn-lower-to-ptx does),
// which also plans the unplanned kernels of the error cases.

// The kernel interface: the kernel moves into a gpu.module named after the
// module, becomes an nvvm.kernel llvm.func with maxntid = 32 * num_warps,
// !tile.ptr parameters become !llvm.ptr<1> and scalars stay; the launch
// interface (parameter names from tile.name or argN, index as i64, block,
// shared bytes, meta) is recorded in gdn.kernels. A function that is not a
// kernel stays where it is, unconverted.

// CHECK-LABEL: module @iface attributes {gdn.kernels = {k = {block = [128, 1, 1], meta = {block_m = 64 : i64, op = "test"}, module = "iface", params = ["A:ptr<f16>", "arg1:ptr<f32>", "arg2:i32", "len:i64"], shared_bytes = 4096 : i64}}, gpu.container_module}
// CHECK:       func.func @helper
// CHECK-NEXT:    tile.alloc : !tile.buffer<64x64xf32, fragment>
// CHECK:       gpu.module @iface {
// CHECK-NEXT:    llvm.mlir.global external @__tile_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-NEXT:    llvm.func @k(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32, %{{.*}}: i64) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>} {
// CHECK-NOT:     tile.
// CHECK:         llvm.return
// CHECK-NOT:   func.func @k
module @iface {
  func.func @helper() {
    %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
    return
  }
  func.func @k(%pa: !tile.ptr<f16> {tile.name = "A"}, %pc: !tile.ptr<f32>, %n: i32,
               %len: index {tile.name = "len"})
      attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 4096 : i64,
                  tile.meta = {op = "test", block_m = 64 : i64}} {
    return
  }
}

// -----

// An unnamed module gives gpu.module @kernels; 8 warps are 256 threads.

// CHECK-LABEL: module attributes {gdn.kernels = {k8 = {block = [256, 1, 1], module = "kernels", params = [], shared_bytes = 0 : i64}}, gpu.container_module}
// CHECK:       gpu.module @kernels {
// CHECK:         llvm.func @k8() attributes {nvvm.kernel, nvvm.maxntid = array<i32: 256, 1, 1>}
func.func @k8() attributes {tile.kernel, tile.num_warps = 8 : i64} {
  return
}

// -----

// Shared buffers are addresses in @__tile_smem at their planned offsets;
// tile.async_copy becomes 16-byte cp.async.cg (a 64x64 f16 tile in 8-element
// vectors: 512 vectors, 4 per thread of 128), commit/wait/barrier their NVVM
// counterparts. A thread's 4 vectors are 16 rows apart (its first one moved
// down): one global pointer stepped by 16 row strides and one shared offset
// plus 2048-byte constants (16 rows of the 128-byte swizzle, whose pattern
// repeats every 8 rows).

// CHECK-LABEL: llvm.func @async_copy
// CHECK:       %[[SMEM:.*]] = llvm.mlir.addressof @__tile_smem : !llvm.ptr<3>
// CHECK-NEXT:  %[[OFF:.*]] = llvm.mlir.constant(4096 : i64) : i64
// CHECK-NEXT:  %[[BUF:.*]] = llvm.getelementptr %[[SMEM]][%[[OFF]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK:       %[[S0:.*]] = llvm.getelementptr %[[BUF]][%[[O0:.*]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:  %[[SZ:.*]] = llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT:  nvvm.cp.async.shared.global %[[S0]], %[[G0:.*]], 16, cache =  cg, %[[SZ]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NEXT:  %[[G1:.*]] = llvm.getelementptr %[[G0]][%[[STEP:.*]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
// CHECK-NEXT:  %[[C1:.*]] = llvm.mlir.constant(2048 : i64) : i64
// CHECK-NEXT:  %[[O1:.*]] = llvm.add %[[O0]], %[[C1]] overflow<nsw> : i64
// CHECK-NEXT:  %[[S1:.*]] = llvm.getelementptr %[[BUF]][%[[O1]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:  llvm.mlir.constant(16 : i32) : i32
// CHECK-NEXT:  nvvm.cp.async.shared.global %[[S1]], %[[G1]], 16, cache =  cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NEXT:  %[[G2:.*]] = llvm.getelementptr %[[G1]][%[[STEP]]] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, f16
// CHECK-NEXT:  llvm.mlir.constant(4096 : i64) : i64
// CHECK-COUNT-2: nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache =  cg, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK-NOT:   nvvm.cp.async.shared.global
// CHECK:       nvvm.cp.async.commit.group
// CHECK-NEXT:  nvvm.cp.async.wait.group 1
// CHECK-NEXT:  nvvm.barrier0
// CHECK-NEXT:  llvm.return
func.func @async_copy(%pa: !tile.ptr<f16>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 12288 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc {offset = 4096 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  tile.async_copy %A[%c0, %c0] to %s {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  tile.async_commit
  tile.async_wait {pending = 1}
  tile.barrier
  return
}

// -----

// 4-byte vectors (2 x f16) use cp.async.ca; a masked copy passes the
// source size (16 or 0 bytes) as its fifth operand: slot s of a thread is
// in bounds iff rows-left (signed: size - first row) > s * 16, and its
// columns are.

// CHECK-LABEL: llvm.func @async_copy_small_and_masked
// CHECK:       nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 4, cache =  ca, %{{.*}} : !llvm.ptr<3>, !llvm.ptr<1>, i32
// CHECK:       %[[LEFT:.*]] = llvm.sub %{{.*}}, %{{.*}} : i64
// CHECK:       %[[COLS:.*]] = llvm.icmp "ule" %{{.*}}, %{{.*}} : i64
// CHECK:       %[[IN:.*]] = llvm.icmp "sgt" %[[LEFT]], %{{.*}} : i64
// CHECK-NEXT:  %[[OK:.*]] = llvm.and %[[IN]], %[[COLS]] : i1
// CHECK:       %[[N:.*]] = llvm.select %[[OK]], %{{.*}}, %{{.*}} : i1, i32
// CHECK-NEXT:  nvvm.cp.async.shared.global %{{.*}}, %{{.*}}, 16, cache = cg, %[[N]] : !llvm.ptr<3>, !llvm.ptr<1>, i32
func.func @async_copy_small_and_masked(%pa: !tile.ptr<f16>, %n: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 16384 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
  tile.async_copy %A[%c0, %c0] to %s {layout = #tile.blocked<vector = 2>} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  tile.async_copy %A[%c0, %c0] to %s {layout = #tile.blocked<vector = 8>, masked} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

// tile.gemm: a 64x64x64 f16 gemm over a 2x2 warp grid gives each warp a
// 32x32 block: per k16 step 2 ldmatrix.x4 for A (row), 2 transposed ones for
// B stored [K][N] (col), and 2 x 4 mma.sync.m16n8k16, so 16 ldmatrix and 32
// mma in all. The 64x64 f32 accumulator has 32 registers per thread.

// CHECK-LABEL: llvm.func @gemm_f16
// CHECK:       %[[NREGS:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK-NEXT:  %[[ACC:.*]] = llvm.alloca %[[NREGS]] x f32 {alignment = 16 : i64} : (i64) -> !llvm.ptr
// First k16 step: A (row), A, B (col), B, then 8 mma.
// CHECK:       nvvm.ldmatrix %{{.*}} {layout = #nvvm.mma_layout<row>, num = 4 : i32} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-NOT:   mma.sync
// CHECK:       nvvm.ldmatrix %{{.*}} {layout = #nvvm.mma_layout<row>, num = 4 : i32}
// CHECK-NOT:   mma.sync
// CHECK:       nvvm.ldmatrix %{{.*}} {layout = #nvvm.mma_layout<col>, num = 4 : i32}
// CHECK-NOT:   mma.sync
// CHECK:       nvvm.ldmatrix %{{.*}} {layout = #nvvm.mma_layout<col>, num = 4 : i32}
// CHECK-NOT:   nvvm.ldmatrix
// CHECK:       llvm.inline_asm asm_dialect = att "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {$0,$1,$2,$3}, {$4,$5,$6,$7}, {$8,$9}, {$10,$11,$12,$13};", "=f,=f,=f,=f,r,r,r,r,r,r,0,1,2,3" {{.*}} : (i32, i32, i32, i32, i32, i32, f32, f32, f32, f32) -> !llvm.struct<(f32, f32, f32, f32)>
// CHECK-COUNT-7: mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// CHECK-NOT:   mma.sync
// Three more steps: 32 mma in all.
// CHECK:       nvvm.ldmatrix
// CHECK-COUNT-24: mma.sync.aligned.m16n8k16
// CHECK-NOT:   mma.sync
// CHECK:       llvm.return
func.func @gemm_f16() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 16384 : i64} {
  %sA = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %sB = tile.alloc {offset = 8192 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  tile.gemm %sA, %sB, %acc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  return
}

// -----

// bf16 with B stored [N][K] (transpose_b): both operands load untransposed.
// 128x64 over a 4x1 grid: 32x64 per warp, per k16 step 2 A + 4 B ldmatrix
// and 2 x 8 mma; K = 32 gives 2 steps: 12 ldmatrix, 32 mma.

// CHECK-LABEL: llvm.func @gemm_bf16_nt
// CHECK-COUNT-6: nvvm.ldmatrix %{{.*}} {layout = #nvvm.mma_layout<row>, num = 4 : i32}
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-COUNT-16: "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-NOT:   mma.sync
// CHECK-COUNT-6: nvvm.ldmatrix %{{.*}} {layout = #nvvm.mma_layout<row>, num = 4 : i32}
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-COUNT-16: "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32
// CHECK-NOT:   mma.sync
// CHECK-NOT:   nvvm.ldmatrix
// CHECK:       llvm.return
func.func @gemm_bf16_nt() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 16384 : i64} {
  %sA = tile.alloc {offset = 0 : i64} : !tile.buffer<128x32xbf16, shared>
  %sB = tile.alloc {offset = 8192 : i64} : !tile.buffer<64x32xbf16, shared>
  %acc = tile.alloc : !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [4, 1]>>
  tile.gemm %sA, %sB, %acc {transpose_b} : !tile.buffer<128x32xbf16, shared>, !tile.buffer<64x32xbf16, shared>, !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [4, 1]>>
  return
}

// -----

// math.exp in a tile.map body becomes ex2.approx.ftz(x * log2(e)), once per
// register (a 64x64 fragment in 4-wide blocked vectors over 128 threads:
// 32 registers).

// CHECK-LABEL: llvm.func @map_exp
// CHECK:       %[[LOG2E:.*]] = llvm.mlir.constant(1.44269502 : f32) : f32
// CHECK-NEXT:  %[[X:.*]] = llvm.fmul %{{.*}}, %[[LOG2E]] : f32
// CHECK-NEXT:  %{{.*}} = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%[[X]]) : (f32) -> f32
// CHECK-COUNT-31: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK-NOT:   llvm.nvvm.ex2
// CHECK-NOT:   math.exp
// CHECK-NOT:   llvm.intr.exp
// CHECK:       llvm.return
func.func @map_exp() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.map ins(%f : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>) outs(%f : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>) {
  ^bb0(%x: f32):
    %e = math.exp %x : f32
    tile.yield %e : f32
  }
  return
}

// -----

// math.exp2 is ex2.approx.ftz of its operand itself (no log2(e) factor).

// CHECK-LABEL: llvm.func @map_exp2
// CHECK-NOT:   llvm.fmul
// CHECK:       %{{.*}} = llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"(%{{.*}}) : (f32) -> f32
// CHECK-COUNT-31: llvm.call_intrinsic "llvm.nvvm.ex2.approx.ftz.f"
// CHECK-NOT:   llvm.fmul
// CHECK-NOT:   math.exp2
// CHECK:       llvm.return
func.func @map_exp2() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.map ins(%f : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>) outs(%f : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>) {
  ^bb0(%x: f32):
    %e = math.exp2 %x : f32
    tile.yield %e : f32
  }
  return
}

// -----

// math.log becomes lg2.approx.ftz(x) * ln(2) (NVPTX has no log instruction
// and cannot select llvm.intr.log).

// CHECK-LABEL: llvm.func @map_log
// CHECK:       %[[L2:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"(%{{.*}}) : (f32) -> f32
// CHECK-NEXT:  %[[LN2:.*]] = llvm.mlir.constant(0.693147182 : f32) : f32
// CHECK-NEXT:  %{{.*}} = llvm.fmul %[[L2]], %[[LN2]] : f32
// CHECK-NOT:   math.log
// CHECK-NOT:   llvm.intr.log
// CHECK:       llvm.return
func.func @map_log() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %f = tile.alloc : !tile.buffer<128xf32, fragment, #tile.blocked<vector = 1>>
  tile.map ins(%f : !tile.buffer<128xf32, fragment, #tile.blocked<vector = 1>>) outs(%f : !tile.buffer<128xf32, fragment, #tile.blocked<vector = 1>>) {
  ^bb0(%x: f32):
    %e = math.log %x : f32
    tile.yield %e : f32
  }
  return
}

// -----

// math.log1p: the log of 1 + t (lg2.approx), or for |t| < 1/4 the series
// t (1 - t (1/2 - ... - t / 8)) in Horner form, whose digits 1 + t and
// lg2.approx near 1 would lose.

// CHECK-LABEL: llvm.func @map_log1p
// CHECK:       %[[ONE:.*]] = llvm.mlir.constant(1.000000e+00 : f32) : f32
// CHECK-NEXT:  %[[U:.*]] = llvm.fadd %[[T:.*]], %[[ONE]] : f32
// CHECK-NEXT:  %[[L2:.*]] = llvm.call_intrinsic "llvm.nvvm.lg2.approx.ftz.f"(%[[U]]) : (f32) -> f32
// CHECK-NEXT:  %[[LN2:.*]] = llvm.mlir.constant(0.693147182 : f32) : f32
// CHECK-NEXT:  %[[LG:.*]] = llvm.fmul %[[L2]], %[[LN2]] : f32
// CHECK-NEXT:  %[[C8:.*]] = llvm.mlir.constant(1.250000e-01 : f32) : f32
// CHECK-NEXT:  llvm.fmul %[[T]], %[[C8]] : f32
// CHECK-COUNT-7: llvm.fsub
// CHECK:       %[[SER:.*]] = llvm.fmul %[[T]], %{{.*}} : f32
// CHECK-NEXT:  %[[MAG:.*]] = llvm.intr.fabs(%[[T]]) : (f32) -> f32
// CHECK-NEXT:  %[[Q:.*]] = llvm.mlir.constant(2.500000e-01 : f32) : f32
// CHECK-NEXT:  %[[SMALL:.*]] = llvm.fcmp "olt" %[[MAG]], %[[Q]] : f32
// CHECK-NEXT:  llvm.select %[[SMALL]], %[[SER]], %[[LG]] : i1, f32
// CHECK-NOT:   math.log1p
// CHECK-NOT:   llvm.intr.log1p
// CHECK:       llvm.return
func.func @map_log1p() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %f = tile.alloc : !tile.buffer<128xf32, fragment, #tile.blocked<vector = 1>>
  tile.map ins(%f : !tile.buffer<128xf32, fragment, #tile.blocked<vector = 1>>) outs(%f : !tile.buffer<128xf32, fragment, #tile.blocked<vector = 1>>) {
  ^bb0(%x: f32):
    %e = math.log1p %x : f32
    tile.yield %e : f32
  }
  return
}

// -----

// Error: a kernel with shared buffers but no plan. The PIPE run plans it
// first and lowers the whole 2-stage pipelined gemm: cp.async prologue, the
// loop as LLVM control flow with wait/barrier/issue/commit, ldmatrix + mma
// on the current stage, the drain, and the f32 stores of the accumulator.

// PIPE-LABEL: module attributes {gdn.kernels = {gemm_2stage = {block = [128, 1, 1], module = "kernels", params = ["A:ptr<f16>", "B:ptr<f16>", "C:ptr<f32>", "N:i32"], requires_multiple = {N = 8 : i64}, shared_bytes = 32768 : i64}}
// PIPE:        llvm.func @gemm_2stage(%{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: !llvm.ptr<1>, %{{.*}}: i32) attributes {nvvm.kernel, nvvm.maxntid = array<i32: 128, 1, 1>}
// PIPE:        nvvm.cp.async.shared.global {{.*}}, 16, cache = cg
// PIPE:        nvvm.cp.async.commit.group
// PIPE-NOT:    nvvm.cp.async.commit.group
// PIPE:        llvm.br ^[[HEAD:bb[0-9]+]](
// PIPE:      ^[[HEAD]](%{{.*}}: i64):
// PIPE-NEXT:   %[[CONT:.*]] = llvm.icmp "slt"
// PIPE-NEXT:   llvm.cond_br %[[CONT]], ^[[BODY:bb[0-9]+]], ^[[EXIT:bb[0-9]+]]
// PIPE-NEXT: ^[[BODY]]:
// PIPE:        nvvm.cp.async.wait.group 0
// PIPE-NEXT:   nvvm.barrier0
// PIPE:        nvvm.cp.async.shared.global
// PIPE:        nvvm.cp.async.commit.group
// PIPE:        nvvm.ldmatrix
// PIPE:        mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32
// PIPE:        llvm.br ^[[HEAD]](
// PIPE-NEXT: ^[[EXIT]]:
// PIPE-NEXT:   nvvm.cp.async.wait.group 0
// PIPE-NEXT:   nvvm.barrier0
// PIPE:        llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<1>
// PIPE-NOT:    tile.
// PIPE-NOT:    scf.
// PIPE:        llvm.return
func.func @gemm_2stage(%pa: !tile.ptr<f16> {tile.name = "A"}, %pb: !tile.ptr<f16> {tile.name = "B"},
                       %pc: !tile.ptr<f32> {tile.name = "C"}, %n: i32 {tile.name = "N"})
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = arith.index_cast %n : i32 to index
  %A = tile.view %pa[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %B = tile.view %pb[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %C = tile.view %pc[%m, %m] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  // expected-error @below {{'tile.alloc' op kernel uses shared memory but has no plan; run tile-plan-shared-memory first}}
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared>
  %sB = tile.alloc : !tile.buffer<64x64xf16, shared>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
  tile.for %k = %c0 to %m step %c64 stages 2 {
    tile.copy %A[%c0, %k] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.copy %B[%k, %c0] to %sB : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.gemm %sA, %sB, %acc : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment>
  }
  tile.copy %acc to %C[%c0, %c0] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<?x?xf32, global>
  return
}

// -----

// Error: a planned kernel with a shared buffer that has no offset.

func.func @no_offset() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 8192 : i64} {
  // expected-error @below {{'tile.alloc' op shared buffer has no offset; run tile-plan-shared-memory first}}
  // expected-error @below {{failed to legalize operation 'tile.alloc'}}
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  return
}

// -----

// Error: a fragment without a layout.

func.func @no_layout() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %zero = arith.constant 0.0 : f32
  // expected-error @below {{'tile.alloc' op fragment has no layout; run tile-assign-layouts first}}
  // expected-error @below {{failed to legalize operation 'tile.alloc'}}
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.fill %f, %zero : !tile.buffer<64x64xf32, fragment>, f32
  return
}

// -----

// Error: a global -> shared copy without a thread mapping.

func.func @no_mapping(%pa: !tile.ptr<f16>, %n: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 8192 : i64} {
  %c0 = arith.constant 0 : index
  %A = tile.view %pa[%n, %n] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
  // expected-error @below {{'tile.copy' op copy has no thread mapping; run tile-assign-layouts first}}
  // expected-error @below {{failed to legalize operation 'tile.copy'}}
  tile.copy %A[%c0, %c0] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
  return
}

// -----

// The phases of the blocked exact inverse of a 64x64 tile (as
// tile-expand-tril-inverse writes them; tile-insert-barriers would put a
// barrier between the two). Their lowering synchronizes no more than a
// warp: the diagonal blocks by forward substitution (threads 0..63, 120
// fma), zeros above the diagonal, then level 1 (3 blocks on 4 warps: one
// round, warps 0..2). Each block: Y = L T in two tf32 k-steps, each one A
// fragment (an ldmatrix, split once) times the B operands of the block's
// two 16x8 strips (three split products each), staged in the block (two
// 8-byte stores per lane and strip), a warp sync, -T_ii Y read back (two
// more k-steps), a warp sync, the negated result over both strips. The
// main (h h) and small (l h, h l) products accumulate apart.
// CHECK-LABEL: llvm.func @tril_phases
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.icmp "ult"
// CHECK-NEXT:  llvm.cond_br
// CHECK-COUNT-120: llvm.intr.fma
// CHECK-NOT:   llvm.intr.fma
// CHECK:       %[[TASKS:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-NEXT:  llvm.icmp "ult" %{{.*}}, %[[TASKS]] : i64
// CHECK-NEXT:  llvm.cond_br
// CHECK:       nvvm.ldmatrix
// Each operand's tf32 split: h = bits & ~0x1fff (truncated), then l = x - h
// as it is (the tensor core reads a tf32 operand's top 19 bits). Two ops,
// no add of half a unit, no mask on l, no NaN select.
// CHECK:       %[[BITS:.*]] = llvm.bitcast %[[X:.*]] : f32 to i32
// CHECK-NEXT:  %[[MASK:.*]] = llvm.mlir.constant(-8192 : i32) : i32
// CHECK-NEXT:  %[[HI:.*]] = llvm.and %[[BITS]], %[[MASK]] : i32
// CHECK-NEXT:  %[[HF:.*]] = llvm.bitcast %[[HI]] : i32 to f32
// CHECK-NEXT:  %[[REST:.*]] = llvm.fsub %[[X]], %[[HF]] : f32
// CHECK-NEXT:  %[[LO:.*]] = llvm.bitcast %[[REST]] : f32 to i32
// CHECK-NOT:   llvm.add %{{.*}}, %{{.*}} : i32
// CHECK-NOT:   llvm.fcmp "uno"
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-COUNT-6: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK:       nvvm.ldmatrix
// CHECK-COUNT-6: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-COUNT-4: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.bar.warp.sync
// CHECK-COUNT-12: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-COUNT-4: llvm.extractvalue
// CHECK-NEXT:  nvvm.bar.warp.sync
// CHECK-COUNT-8: llvm.fneg
// CHECK:       llvm.store {{.*}} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NOT:   mma.sync
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.return
func.func @tril_phases() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 32768 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc {offset = 16384 : i64} : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_diag %l, %t : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_level %l, %t {level = 1 : i64} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// Level 3 of a 64x64 inverse has one block, two strips: dealt as strips (one
// round either way, two warps at work instead of one), warps 0 and 1. Each
// strip: Y over three 16-column groups (6 k-steps, 18 mmas, each k-step its
// own ldmatrix of L), staged (two 8-byte stores), a warp sync, -T_ii Y (2
// k-steps, 6 mmas), a warp sync, the negated strip (a whole block per warp
// would stage four stores and run 12 mmas before the second sync). The
// split products accumulate in three chains (h h, l h, h l): the first
// k-step's three mmas all start from zeros, and each result is h h + (l h +
// h l).
// CHECK-LABEL: llvm.func @tril_level3_strips
// CHECK:       llvm.icmp "ult" %{{[0-9]+}}, %{{[0-9]+}} : i64
// CHECK-NEXT:  llvm.cond_br
// CHECK:       %[[Z:.*]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK:       nvvm.ldmatrix
// CHECK-COUNT-3: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {{.*}}, %[[Z]], %[[Z]], %[[Z]], %[[Z]] :
// CHECK-NOT:   %[[Z]], %[[Z]], %[[Z]], %[[Z]] :
// CHECK-COUNT-5: nvvm.ldmatrix
// CHECK-NOT:   nvvm.bar.warp.sync
// CHECK:       %[[SMALL:.*]] = llvm.fadd %{{.*}}, %{{.*}} : f32
// CHECK-NEXT:  llvm.fadd %{{.*}}, %[[SMALL]] : f32
// CHECK-NOT:   nvvm.bar.warp.sync
// CHECK-COUNT-2: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.bar.warp.sync
// CHECK-COUNT-6: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-COUNT-4: llvm.extractvalue
// CHECK-NEXT:  nvvm.bar.warp.sync
// CHECK-COUNT-4: llvm.fneg
// CHECK-NOT:   mma.sync
// CHECK:       llvm.return
func.func @tril_level3_strips() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 32768 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc {offset = 16384 : i64} : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_level %l, %t {level = 3 : i64} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// One doubling merge of size 32 on a 64x64 inverse (T21 = -T2 L21 T1 for the
// 32x32 block below the diagonal): 4 tasks (T1's column blocks 0 and 1, two
// strips each) on 4 warps, one round, no guard. Column block 0 sums over
// T1's blocks 0 and 1 (4 k-steps, an ldmatrix of L per k-step and row block
// of T2: 8), column block 1 over block 1 only (4): one branch per value
// (static sums), each staging its two row blocks of Y (4 stores). Then a
// warp sync, T21 = -T2 Y (row block 0 from Y_0, row block 1 from Y_0 and
// Y_1: 6 k-step products of 3 mmas), a warp sync, the negated strips.
// CHECK-LABEL: llvm.func @tril_merge32
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.icmp "eq"
// CHECK-NEXT:  llvm.cond_br
// CHECK-COUNT-8: nvvm.ldmatrix
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-COUNT-4: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT:  llvm.br
// CHECK:       llvm.icmp "eq"
// CHECK-NEXT:  llvm.cond_br
// CHECK-COUNT-4: nvvm.ldmatrix
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-COUNT-4: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT:  llvm.br
// CHECK:       nvvm.bar.warp.sync
// CHECK-COUNT-18: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-NOT:   mma.sync
// CHECK:       nvvm.bar.warp.sync
// CHECK-COUNT-8: llvm.fneg
// CHECK-NOT:   mma.sync
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.return
func.func @tril_merge32() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 32768 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc {offset = 16384 : i64} : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_merge %l, %t {size = 32 : i64} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// fma: the size-32 merge on the CUDA cores, one strip of 8 columns per
// warp, no tensor-core product. A branch per column block jb of T1 that
// the strip lies in: jb = 0 sums Y over m = 0..31 (2 rows x 4 columns x
// 32 = 256 fmas), jb = 1 over m = 16..31 (128); each stages Y in 16-byte
// stores, syncs the warp, forms T21 (row a: k < 16, row a + 16: k < 32,
// 4 x (16 + 32) = 192 fmas), syncs again and stores it negated.
// CHECK-LABEL: llvm.func @tril_merge32_fma
// CHECK-NOT:   mma.sync
// CHECK-COUNT-256: llvm.intr.fma
// CHECK-NOT:   llvm.intr.fma
// CHECK-COUNT-2: llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.bar.warp.sync
// CHECK-COUNT-192: llvm.intr.fma
// CHECK-NOT:   llvm.intr.fma
// CHECK:       nvvm.bar.warp.sync
// CHECK-COUNT-8: llvm.fneg
// CHECK-COUNT-128: llvm.intr.fma
// CHECK-NOT:   llvm.intr.fma
// CHECK:       nvvm.bar.warp.sync
// CHECK-COUNT-192: llvm.intr.fma
// CHECK-NOT:   mma.sync
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.return
func.func @tril_merge32_fma() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 32768 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc {offset = 16384 : i64} : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_merge %l, %t {size = 32 : i64, fma} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// The diagonal phase with fma: the substitution as without it, then warps
// 0 and 1 form their pair's block below (size 16: 16 columns, lane (a, q)
// = rows a, a + 8 by columns 4 q ..: Y over 16 m, 128 fmas; T21 over 16 k,
// 128) on the CUDA cores.
// CHECK-LABEL: llvm.func @tril_diag_fma
// CHECK:       nvvm.bar.warp.sync
// CHECK-COUNT-128: llvm.intr.fma
// CHECK:       nvvm.bar.warp.sync
// CHECK-COUNT-128: llvm.intr.fma
// CHECK:       nvvm.bar.warp.sync
// CHECK-COUNT-8: llvm.fneg
// CHECK-NOT:   mma.sync
// CHECK-NOT:   llvm.intr.fma
// CHECK:       llvm.return
func.func @tril_diag_fma() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 32768 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc {offset = 16384 : i64} : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_diag %l, %t {lower_only, merge_pairs, fma} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// stage_lo, then (after the barrier) staged_lo. The diagonal phase: after
// the columns' forward substitution and the size-16 merges (threads
// 0..63), threads 64..127 (t = tid - 64: element 4 t of the 32x32 L21 at
// row R = 4t / 32, column C = 4t mod 32, then 8 rows further per round)
// load L at (R + 32, C) and store x - (x & 0xFFFFE000) at T's (R, C + 32)
// in 16-byte vectors, four rounds 2048 bytes apart. The merge: each L21
// fragment two ldmatrix, L at (r1 + lRow, r0 + lCol) and its low parts at
// T's (r0 + lRow, r1 + lCol), and no subtraction of its own: column block
// 0 loads 16 (8 fragments, twice), column block 1 8, and the only fsubs
// before Y's stores are the B operands' (two per k-step). T2's fragments
// in the second product are split as before.
// CHECK-LABEL: llvm.func @tril_stage_lo
// CHECK:       %[[SRC:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK:       llvm.mlir.constant(16384 : i64)
// CHECK-NEXT:  %[[DST:.*]] = llvm.getelementptr
// CHECK:       nvvm.bar.warp.sync
// CHECK:       %[[C63:.*]] = llvm.mlir.constant(63 : i64) : i64
// CHECK-NEXT:  %[[IDLE:.*]] = llvm.icmp "ult" %[[C63]], %{{.*}} : i64
// CHECK-NEXT:  llvm.cond_br %[[IDLE]]
// CHECK-NOT:   mma.sync
// CHECK:       %[[E:.*]] = llvm.mul %{{.*}}, %{{.*}} overflow<nsw> : i64
// CHECK:       %[[R:.*]] = llvm.udiv %[[E]], %{{.*}} : i64
// CHECK:       %[[C:.*]] = llvm.urem %[[E]], %{{.*}} : i64
// CHECK:       %[[C32:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK-NEXT:  %[[RS:.*]] = llvm.add %[[R]], %[[C32]] overflow<nsw> : i64
// CHECK:       llvm.mul %[[RS]], %{{.*}} overflow<nsw> : i64
// CHECK:       %[[SA:.*]] = llvm.getelementptr %[[SRC]][%{{.*}}]
// CHECK:       %[[C32B:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK-NEXT:  %[[CS:.*]] = llvm.add %[[C]], %[[C32B]] overflow<nsw> : i64
// CHECK:       llvm.mul %[[R]], %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:  llvm.add %{{.*}}, %[[CS]] overflow<nsw> : i64
// CHECK:       %[[DA:.*]] = llvm.getelementptr %[[DST]][%{{.*}}]
// CHECK:       llvm.getelementptr %[[SA]][%{{.*}}]
// CHECK-NEXT:  llvm.load {{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK:       %[[M:.*]] = llvm.mlir.constant(-8192 : i32) : i32
// CHECK-NEXT:  llvm.and %{{.*}}, %[[M]] : i32
// CHECK:       llvm.getelementptr %[[DA]][%{{.*}}]
// CHECK-NEXT:  llvm.store {{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK:       llvm.mlir.constant(2048 : i64)
// CHECK-NEXT:  llvm.getelementptr %[[SA]]
// CHECK:       llvm.mlir.constant(2048 : i64)
// CHECK-NEXT:  llvm.getelementptr %[[DA]]
// CHECK:       llvm.mlir.constant(4096 : i64)
// CHECK-NEXT:  llvm.getelementptr %[[SA]]
// CHECK:       llvm.mlir.constant(6144 : i64)
// CHECK-NEXT:  llvm.getelementptr %[[SA]]
// CHECK:       nvvm.barrier0
// CHECK:       llvm.icmp "eq"
// CHECK-NEXT:  llvm.cond_br
// CHECK-NEXT:  ^bb{{[0-9]+}}:
// CHECK-NEXT:  %[[AR:.*]] = llvm.add %[[R1:.*]], %[[LROW:.*]] overflow<nsw> : i64
// CHECK-NEXT:  %[[AC:.*]] = llvm.add %[[R0:.*]], %[[LCOL:.*]] overflow<nsw> : i64
// CHECK:       %[[AAT:.*]] = llvm.getelementptr %[[SRC]][%{{.*}}]
// CHECK-NEXT:  llvm.add %[[R0]], %[[LROW]] overflow<nsw> : i64
// CHECK-NEXT:  llvm.add %[[R1]], %[[LCOL]] overflow<nsw> : i64
// CHECK:       %[[LAT:.*]] = llvm.getelementptr %[[DST]][%{{.*}}]
// CHECK-COUNT-8: llvm.fsub
// CHECK-NOT:   llvm.fsub
// CHECK:       llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK:       llvm.icmp "eq"
// CHECK-NEXT:  llvm.cond_br
// CHECK-COUNT-8: nvvm.ldmatrix
// CHECK-NOT:   nvvm.ldmatrix
// CHECK:       nvvm.bar.warp.sync
// CHECK-COUNT-18: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK:       llvm.return
// LDM-LABEL:   llvm.func @tril_stage_lo
// LDM:         nvvm.barrier0
// LDM:         llvm.cond_br
// LDM-COUNT-16: nvvm.ldmatrix
// LDM-NOT:     nvvm.ldmatrix
// LDM:         llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
func.func @tril_stage_lo() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 32768 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc {offset = 16384 : i64} : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_diag %l, %t {lower_only, merge_pairs, stage_lo} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  tile.barrier
  tile.tril_inverse_merge %l, %t {size = 32 : i64, staged_lo} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// by_rows at size 32 on 64x64: four tasks (block row I of T21, column block
// J of T1), one branch per (I, J) in each of two phases, both strips per
// task (one ldmatrix of A per k-step for six mmas). Phase 0: Y_IJ over T1's
// blocks m >= J (4, 2, 4, 2 k-steps), staged in T21 and, for I = 0, also in
// T12's block (J, J) (8 stores, else 4). One barrier. Phase 1: T21_IJ over
// T2's blocks k <= I (2, 2, 4, 4 k-steps), a warp sync, the negated strips
// (4 stores). 144 mmas in all (24 per 4 k-steps), as many as the strip
// tasks issue.
// CHECK-LABEL: llvm.func @tril_merge32_by_rows
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.icmp "eq"
// CHECK-NEXT:  llvm.cond_br
// CHECK-COUNT-4: nvvm.ldmatrix
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-COUNT-8: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT:  llvm.br
// CHECK:       llvm.icmp "eq"
// CHECK-NEXT:  llvm.cond_br
// CHECK-COUNT-2: nvvm.ldmatrix
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-COUNT-8: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT:  llvm.br
// CHECK:       llvm.icmp "eq"
// CHECK-NEXT:  llvm.cond_br
// CHECK-COUNT-4: nvvm.ldmatrix
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-COUNT-4: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT:  llvm.br
// CHECK:       llvm.icmp "eq"
// CHECK-NEXT:  llvm.cond_br
// CHECK-COUNT-2: nvvm.ldmatrix
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-COUNT-4: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT:  llvm.br
// CHECK:       nvvm.barrier0
// CHECK-NOT:   nvvm.barrier0
// CHECK-COUNT-2: nvvm.ldmatrix
// CHECK:       nvvm.bar.warp.sync
// CHECK-COUNT-8: llvm.fneg
// CHECK-COUNT-2: nvvm.ldmatrix
// CHECK:       nvvm.bar.warp.sync
// CHECK-COUNT-4: nvvm.ldmatrix
// CHECK:       nvvm.bar.warp.sync
// CHECK-COUNT-4: nvvm.ldmatrix
// CHECK:       nvvm.bar.warp.sync
// CHECK-COUNT-8: llvm.fneg
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.return
func.func @tril_merge32_by_rows() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 32768 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc {offset = 16384 : i64} : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_merge %l, %t {size = 32 : i64, by_rows} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// Size 16 on 64x64: two pairs (blocks (1, 0) and (3, 2)), task = 2 pair +
// strip; one 16-column block per pair, so no branch: Y (2 k-steps), a warp
// sync, -T_ii Y (2 k-steps), a warp sync, the negated strip.
// CHECK-LABEL: llvm.func @tril_merge16
// CHECK-NOT:   llvm.cond_br
// CHECK-COUNT-6: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-COUNT-2: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.bar.warp.sync
// CHECK-COUNT-6: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-NOT:   mma.sync
// CHECK:       nvvm.bar.warp.sync
// CHECK-COUNT-4: llvm.fneg
// CHECK:       llvm.return
func.func @tril_merge16() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 32768 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc {offset = 16384 : i64} : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_merge %l, %t {size = 16 : i64} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// The diagonal phase with merge_pairs: the 16 forward substitution rows
// and their stores (threads 0..63: warp w holds blocks 2 w, 2 w + 1), then
// on warps 0 and 1 only (warp < 2) a warp sync and the size-16 merge of the
// warp's own pair, both 8-column strips in lockstep: Y (2 k-steps x 2
// strips, 12 mmas; each A operand L_(2w+1, 2w) one ldmatrix for both
// strips), the two strips staged (four 8-byte stores), a warp sync, -T2 Y
// (12 mmas, one ldmatrix of T2 per k-step), a warp sync, both strips
// negated. No block barrier anywhere.
// CHECK-LABEL: llvm.func @tril_diag_merge_pairs
// CHECK-NOT:   nvvm.bar.warp.sync
// CHECK:       llvm.icmp "ult"
// CHECK:       llvm.cond_br
// CHECK:       nvvm.bar.warp.sync
// CHECK-NOT:   nvvm.bar.warp.sync
// CHECK-COUNT-2: nvvm.ldmatrix
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-COUNT-4: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.bar.warp.sync
// CHECK-COUNT-2: nvvm.ldmatrix
// CHECK-NOT:   nvvm.ldmatrix
// CHECK:       nvvm.bar.warp.sync
// CHECK-COUNT-8: llvm.fneg
// CHECK-NOT:   mma.sync
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.return
// PIPE-LABEL: llvm.func @tril_diag_merge_pairs
// PIPE-COUNT-12: mma.sync.aligned.m16n8k8
// PIPE:        nvvm.bar.warp.sync
// PIPE-COUNT-12: mma.sync.aligned.m16n8k8
// PIPE-NOT:    mma.sync
// PIPE:        llvm.return
func.func @tril_diag_merge_pairs() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 32768 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc {offset = 16384 : i64} : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_diag %l, %t {merge_pairs} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// L in registers: the source is the Gram's accumulator (#tile.mma<warps =
// [4, 1]>: warp w holds rows 16 w .. 16 w + 15). At level 1 warps 1, 2 and
// 3 each take block (w, w - 1), one branch per warp so that the registers
// have static indices. Warp 1's first k-step: L from registers 0, 2, 1, 3
// (the A fragment under the k permutation t -> 2 t, t + 4 -> 2 t + 1), no
// ldmatrix of L; B (T_00) at rows 2 t and 2 t + 1 (256 bytes apart in the
// unpadded T). Both strips' Y staged (four 8-byte stores), a warp sync,
// -T_ii Y with T_ii by ldmatrix as before.
// CHECK-LABEL: llvm.func @tril_level_regs
// CHECK:       %[[L:.*]] = llvm.alloca %{{.*}} x f32
// CHECK:       %[[W1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT:  %[[IS1:.*]] = llvm.icmp "eq" %[[WARP:[0-9]+]], %[[W1]] : i64
// CHECK-NEXT:  %[[W2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT:  llvm.icmp "eq" %[[WARP]], %[[W2]] : i64
// CHECK-NEXT:  %[[W3:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-NEXT:  llvm.icmp "eq" %[[WARP]], %[[W3]] : i64
// CHECK-NEXT:  llvm.cond_br %[[IS1]]
// CHECK-NOT:   nvvm.ldmatrix
// CHECK:       %[[P0:.*]] = llvm.getelementptr %[[L]][%{{[0-9]+}}] : (!llvm.ptr, i64) -> !llvm.ptr, f32
// CHECK-NEXT:  llvm.load %[[P0]] : !llvm.ptr -> f32
// CHECK-NEXT:  %[[R2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT:  llvm.getelementptr %[[L]][%[[R2]]]
// CHECK-NEXT:  llvm.load
// CHECK-NEXT:  %[[R1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT:  llvm.getelementptr %[[L]][%[[R1]]]
// CHECK-NEXT:  llvm.load
// CHECK-NEXT:  %[[R3:.*]] = llvm.mlir.constant(3 : i64) : i64
// CHECK-NEXT:  llvm.getelementptr %[[L]][%[[R3]]]
// CHECK-NEXT:  llvm.load
// CHECK-NOT:   nvvm.ldmatrix
// CHECK:       %[[B0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT:  %[[PB:.*]] = llvm.getelementptr %[[B:[0-9]+]][%[[B0]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:  llvm.load %[[PB]] : !llvm.ptr<3> -> f32
// CHECK-NEXT:  %[[B1:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK-NEXT:  llvm.getelementptr %[[B]][%[[B1]]]
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-COUNT-12: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-COUNT-4: llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.bar.warp.sync
// CHECK:       nvvm.ldmatrix
// CHECK:       llvm.cond_br
// CHECK:       llvm.cond_br
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.return
func.func @tril_level_regs() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 16384 : i64} {
  %l = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %t = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_level %l, %t {level = 1 : i64} : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// block_diagonal = 16: of the accumulator's 16 runs per thread (8 column
// groups x 2 row halves) only those in a diagonal 16x16 block are stored:
// each run's 8-byte store under row / 16 == column / 16 (for this layout
// warp w's column groups 2 w and 2 w + 1: 4 of the 16 runs).
// CHECK-LABEL: llvm.func @copy_block_diagonal
// CHECK-NOT:   llvm.store
// CHECK:       %[[SAME:.*]] = llvm.icmp "eq" %{{[0-9]+}}, %{{[0-9]+}} : i64
// CHECK-NEXT:  llvm.cond_br %[[SAME]]
// CHECK:       llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-COUNT-15: llvm.cond_br
// CHECK:       llvm.return
func.func @copy_block_diagonal() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 16384 : i64} {
  %l = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  tile.copy %l to %s {block_diagonal = 16 : i64} : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>> to !tile.buffer<64x64xf32, shared>
  return
}

// -----

// diagonal: each of the accumulator's 32 elements per thread (16 runs of
// pairs) is stored alone under row == column, as f32 at byte 4 * row of the
// 1-D buffer: 32 guarded 4-byte stores, no vector store.
// CHECK-LABEL: llvm.func @copy_diagonal
// CHECK-NOT:   llvm.store
// CHECK:       %[[SAME:.*]] = llvm.icmp "eq" %{{[0-9]+}}, %{{[0-9]+}} : i64
// CHECK:       %[[P:.*]] = llvm.getelementptr %{{.*}} : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:  llvm.cond_br %[[SAME]], ^[[ST:.*]], ^
// CHECK:       ^[[ST]]:
// CHECK:       %[[V:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:  llvm.store %[[V]], %[[P]] {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-COUNT-31: llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK-NOT:   llvm.store
// CHECK:       llvm.return
func.func @copy_diagonal() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 256 : i64} {
  %l = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<64xf32, shared>
  tile.copy %l to %s {diagonal} : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>> to !tile.buffer<64xf32, shared>
  return
}

// -----

// block_lower = 16, a store: each of the accumulator's 16 runs per thread is
// stored under row / 16 >= column / 16 (warp w keeps the column groups of
// blocks 0 .. w); a load: the runs above the diagonal get zeros without a
// load (a branch around it).
// CHECK-LABEL: llvm.func @copy_block_lower
// CHECK-NOT:   llvm.store
// CHECK:       %[[LOW:.*]] = llvm.icmp "uge" %{{[0-9]+}}, %{{[0-9]+}} : i64
// CHECK-NEXT:  llvm.cond_br %[[LOW]]
// CHECK:       llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK-COUNT-15: llvm.cond_br
// CHECK:       %[[LOW2:.*]] = llvm.icmp "uge" %{{[0-9]+}}, %{{[0-9]+}} : i64
// CHECK:       %[[Z:.*]] = llvm.mlir.zero : vector<2xf32>
// CHECK-NEXT:  llvm.cond_br %[[LOW2]], ^{{.*}}, ^{{.*}}(%[[Z]] : vector<2xf32>)
// CHECK:       llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<3> -> vector<2xf32>
// CHECK:       llvm.return
func.func @copy_block_lower() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 16384 : i64} {
  %l = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  tile.copy %l to %s {block_lower = 16 : i64} : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>> to !tile.buffer<64x64xf32, shared>
  tile.copy %s to %l {block_lower = 16 : i64} : !tile.buffer<64x64xf32, shared> to !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}

// -----

// block_lower = 16 with transpose (the GDN prep's Gram matrix into L): the
// blocks are the shared buffer's, and the accumulator moves one element at
// a time, no movmatrix pairs: 32 single f32 stores per thread, each under
// its memory block's row / 16 >= column / 16, then 32 single loads.
// CHECK-LABEL: llvm.func @copy_block_lower_transposed
// CHECK-NOT:   movmatrix
// CHECK-COUNT-32: llvm.icmp "uge"
// CHECK-NOT:   llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NOT:   vector<2xf32>, !llvm.ptr<3>
// CHECK:       llvm.icmp "uge"
// CHECK:       llvm.load %{{.*}} {alignment = 4 : i64} : !llvm.ptr<3> -> f32
// CHECK-COUNT-31: llvm.icmp "uge"
// CHECK-NOT:   llvm.icmp "uge"
// CHECK-NOT:   movmatrix
// CHECK:       llvm.return
func.func @copy_block_lower_transposed() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 17408 : i64} {
  %l = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  tile.copy %l to %s {block_lower = 16 : i64, transpose} : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>> to !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  tile.copy %s to %l {block_lower = 16 : i64, transpose} : !tile.buffer<64x64xf32, shared, #tile.padded<4>> to !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}

// -----

// The same load from a 16-bit buffer, which without block_lower takes
// ldmatrix.trans (four of them): block_lower moves single elements under
// the buffer's block test, none of the ldmatrix path.
// CHECK-LABEL: llvm.func @copy_block_lower_transposed_f16
// CHECK-NOT:   nvvm.ldmatrix
// CHECK-COUNT-32: llvm.icmp "uge"
// CHECK-NOT:   nvvm.ldmatrix
// CHECK:       llvm.return
func.func @copy_block_lower_transposed_f16() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 8192 : i64} {
  %l = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
  tile.copy %s to %l {block_lower = 16 : i64, transpose} : !tile.buffer<64x64xf16, shared> to !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}

// -----

// block_lower = 32, a fragment stored to a global view (the GDN prep's Ag):
// each of the eight 4-element runs per thread is stored where it is in
// bounds (masked: row < extent, columns within the row) and in a 32x32
// block on or below the diagonal (row / 32 >= column / 32).
// CHECK-LABEL: llvm.func @copy_block_lower_global
// CHECK:       %[[IN:.*]] = llvm.icmp "uge" %{{[0-9]+}}, %{{[0-9]+}} : i64
// CHECK-NEXT:  %[[OK:.*]] = llvm.and %{{[0-9]+}}, %[[IN]] : i1
// CHECK-NEXT:  llvm.cond_br %[[OK]]
// CHECK:       llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<4xf16>, !llvm.ptr<1>
// CHECK-COUNT-7: llvm.icmp "uge"
// CHECK-NOT:   llvm.icmp "uge"
// CHECK:       llvm.return
func.func @copy_block_lower_global(%p: !tile.ptr<f16>, %n: index) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %g = tile.view %p[%n] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.copy %f to %g[%c0, %c0] {masked, block_lower = 32 : i64} : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<?x64xf16, global>
  return
}

// -----

// The diagonal phase with lower_only writes only its diagonal blocks: the
// 16 stores of each thread's column and none of the 16-byte zero stores
// above the diagonal that the default form adds.
// CHECK-LABEL: llvm.func @tril_diag_lower_only
// CHECK-COUNT-16: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr<3>
// CHECK-NOT:   llvm.store
// CHECK:       llvm.return
func.func @tril_diag_lower_only() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 32768 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc {offset = 16384 : i64} : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_diag %l, %t {lower_only} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// On a row-major (unswizzled) buffer every shared access of the inverse is a
// constant byte step from a few per-thread pointers, which NVPTX folds into
// [reg + imm] addresses: the diagonal's rows of L in 16-byte loads at
// (i * 64 + k0) * 4 bytes from the block's corner (rows 1 and 2 here).
// CHECK-LABEL: llvm.func @tril_steps
// CHECK:       %[[S1:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK-NEXT:  %[[P1:.*]] = llvm.getelementptr %[[CORNER:[0-9]+]][%[[S1]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:  llvm.load %[[P1]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK:       %[[S2:.*]] = llvm.mlir.constant(512 : i64) : i64
// CHECK-NEXT:  llvm.getelementptr %[[CORNER]][%[[S2]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK:       llvm.return
func.func @tril_steps() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 32768 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc {offset = 16384 : i64} : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_diag %l, %t : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// With a group skew (#tile.padded<8, 4, 4>: rows of 72 words, 4 more after
// every fourth) the steps stay constant: the diagonal phase's rows from the
// block's 16-aligned corner (row 1: 288 bytes, row 4: 4 * 288 + 16 = 1168),
// and the merge's B operand rows 4 apart (1168 bytes) and its strips' rows 8
// apart (2336 bytes): constant byte offsets, as on unskewed rows.
// CHECK-LABEL: llvm.func @tril_steps_skewed
// CHECK:       llvm.mlir.constant(288 : i64) : i64
// CHECK:       llvm.mlir.constant(1168 : i64) : i64
// CHECK:       nvvm.bar.warp.sync
// CHECK:       %[[SB:.*]] = llvm.mlir.constant(1168 : i64) : i64
// CHECK-NEXT:  llvm.getelementptr %{{[0-9]+}}[%[[SB]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:  llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK:       llvm.mlir.constant(2336 : i64) : i64
// CHECK:       llvm.return
func.func @tril_steps_skewed() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 36864 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  %t = tile.alloc {offset = 17408 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.tril_inverse_diag %l, %t {merge_pairs} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  return
}

// -----

// A level's k-step of 8: A's 16x8 block by one ldmatrix.x4 (the m16n8k8
// tf32 A fragment, split once for both strips), then per strip B's rows t
// and t + 4 (4 rows = 1024 bytes apart) by single loads, the second strip 8
// columns (32 bytes) on; the next k-step is 8 columns of A (32 bytes) and 8
// rows of B (2048, 3072) further. Every address is a constant step from
// one pointer per operand.
// CHECK-LABEL: llvm.func @tril_steps_level
// CHECK:       nvvm.ldmatrix
// CHECK:       %[[SB:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT:  %[[PB:.*]] = llvm.getelementptr %[[B:[0-9]+]][%[[SB]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:  llvm.load %[[PB]] : !llvm.ptr<3> -> f32
// CHECK-NEXT:  %[[S4:.*]] = llvm.mlir.constant(1024 : i64) : i64
// CHECK-NEXT:  %[[P4:.*]] = llvm.getelementptr %[[B]][%[[S4]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:  llvm.load %[[P4]] : !llvm.ptr<3> -> f32
// CHECK:       mma.sync
// CHECK:       %[[S8:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK-NEXT:  %[[P8:.*]] = llvm.getelementptr %[[B]][%[[S8]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:  llvm.load %[[P8]] : !llvm.ptr<3> -> f32
// CHECK-NEXT:  %[[S12:.*]] = llvm.mlir.constant(1056 : i64) : i64
// CHECK-NEXT:  %[[P12:.*]] = llvm.getelementptr %[[B]][%[[S12]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:  llvm.load %[[P12]] : !llvm.ptr<3> -> f32
// CHECK:       %[[S32:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK-NEXT:  %[[P32:.*]] = llvm.getelementptr %{{[0-9]+}}[%[[S32]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:  nvvm.ldmatrix %[[P32]]
// CHECK:       %[[S16:.*]] = llvm.mlir.constant(2048 : i64) : i64
// CHECK-NEXT:  llvm.getelementptr %[[B]][%[[S16]]]
// CHECK-NEXT:  llvm.load
// CHECK-NEXT:  llvm.mlir.constant(3072 : i64)
// CHECK:       llvm.return
func.func @tril_steps_level() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 32768 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc {offset = 16384 : i64} : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_level %l, %t {level = 1 : i64} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// Padded rows (#tile.padded<4>: a 272-byte row stride) keep the buffer
// linear: the same constant steps, with the padded stride (L's row 1 at 272
// bytes from the corner, row 2 at 544).
// CHECK-LABEL: llvm.func @tril_steps_padded
// CHECK:       %[[S1:.*]] = llvm.mlir.constant(272 : i64) : i64
// CHECK-NEXT:  %[[P1:.*]] = llvm.getelementptr %[[CORNER:[0-9]+]][%[[S1]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:  llvm.load %[[P1]] {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK:       %[[S2:.*]] = llvm.mlir.constant(544 : i64) : i64
// CHECK-NEXT:  llvm.getelementptr %[[CORNER]][%[[S2]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK:       llvm.return
func.func @tril_steps_padded() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 34816 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  %t = tile.alloc {offset = 17408 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  tile.tril_inverse_diag %l, %t : !tile.buffer<64x64xf32, shared, #tile.padded<4>>, !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  return
}

// -----

// Each operand with its own stride: B's rows 4 apart in the destination's
// 288-byte rows (#tile.padded<8>, as tile-assign-layouts gives the
// inverse's destination; the second strip 32 bytes on: 1184), A's ldmatrix
// 8 columns (32 bytes) on in the source's 272-byte rows, then B 8 rows on
// (2304).
// CHECK-LABEL: llvm.func @tril_steps_level_padded
// CHECK:       nvvm.ldmatrix
// CHECK:       llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT:  %[[S4:.*]] = llvm.mlir.constant(1152 : i64) : i64
// CHECK-NEXT:  %[[P4:.*]] = llvm.getelementptr %{{.*}}[%[[S4]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:  llvm.load %[[P4]] : !llvm.ptr<3> -> f32
// CHECK:       llvm.mlir.constant(1184 : i64)
// CHECK:       %[[S32:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK-NEXT:  %[[P32:.*]] = llvm.getelementptr %{{.*}}[%[[S32]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:  nvvm.ldmatrix %[[P32]]
// CHECK:       llvm.mlir.constant(2304 : i64)
// CHECK:       llvm.return
func.func @tril_steps_level_padded() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 35840 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  %t = tile.alloc {offset = 17408 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<8>>
  tile.tril_inverse_level %l, %t {level = 1 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>, !tile.buffer<64x64xf32, shared, #tile.padded<8>>
  return
}

// -----

// tile.load and an mma fragment's store address a padded buffer by its
// padded row stride: row * 68 words.
// CHECK-LABEL: llvm.func @padded_access
// CHECK:       llvm.mlir.constant(68 : i{{32|64}})
// CHECK:       llvm.load {{.*}} : !llvm.ptr<3> -> f32
// CHECK:       llvm.return
func.func @padded_access(%i: index, %j: index) attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 17408 : i64} {
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  %v = tile.load %s[%i, %j] : !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  return
}

// -----

// A sub-tile of a shared buffer: the fragment [16, 32] at rows 16.., columns
// 32.. of [64, 64] f32. Each run's coordinates get the constant offsets
// before the row-major offset (row * 64 + column) * 4; 16-byte vectors.
// CHECK-LABEL: llvm.func @shared_subtile
// CHECK-DAG:   %[[R16:.*]] = llvm.mlir.constant(16 : index) : i64
// CHECK-DAG:   %[[C32:.*]] = llvm.mlir.constant(32 : index) : i64
// CHECK:       %[[ROW:.*]] = llvm.add %{{.*}}, %[[R16]] overflow<nsw> : i64
// CHECK-NEXT:  %[[COL:.*]] = llvm.add %{{.*}}, %[[C32]] overflow<nsw> : i64
// CHECK:       %[[RB:.*]] = llvm.mul %[[ROW]], %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:  llvm.add %[[RB]], %[[COL]] overflow<nsw> : i64
// CHECK:       llvm.load %{{.*}} {alignment = 16 : i64} : !llvm.ptr<3> -> vector<4xf32>
// CHECK:       llvm.add %{{.*}}, %[[R16]] overflow<nsw> : i64
// CHECK:       llvm.store %{{.*}}, %{{.*}} {alignment = 16 : i64} : vector<4xf32>, !llvm.ptr<3>
// CHECK:       llvm.return
func.func @shared_subtile() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 16384 : i64} {
  %c16 = arith.constant 16 : index
  %c32 = arith.constant 32 : index
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  %f = tile.alloc : !tile.buffer<16x32xf32, fragment, #tile.blocked<vector = 4>>
  tile.copy %s[%c16, %c32] to %f : !tile.buffer<64x64xf32, shared> to !tile.buffer<16x32xf32, fragment, #tile.blocked<vector = 4>>
  tile.copy %f to %s[%c16, %c32] : !tile.buffer<16x32xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<64x64xf32, shared>
  return
}

// -----

// CHECK-LABEL: llvm.func @padded_store
// CHECK:       llvm.mlir.constant(68 : i64)
// CHECK:       llvm.store {{.*}} {alignment = 8 : i64} : vector<2xf32>, !llvm.ptr<3>
// CHECK:       llvm.return
func.func @padded_store() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.shared_memory_bytes = 17408 : i64} {
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  tile.copy %f to %s : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>> to !tile.buffer<64x64xf32, shared, #tile.padded<4>>
  return
}

// -----

// On swizzled buffers no element is a constant step from another: every
// load and ldmatrix row address of a level recomputes its swizzled offset
// (the 16-byte chunk index XOR the row's) from the buffer's base, so no
// 8-row step (2048 bytes, as in @tril_steps_level) appears.
// CHECK-LABEL: llvm.func @tril_steps_swizzled
// CHECK-NOT:   llvm.mlir.constant(2048 : i64)
// CHECK:       llvm.xor
// CHECK-NOT:   llvm.mlir.constant(2048 : i64)
// CHECK:       nvvm.ldmatrix
// CHECK-NOT:   llvm.mlir.constant(2048 : i64)
// CHECK:       llvm.return
func.func @tril_steps_swizzled() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 32768 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared, #tile.swizzle<128>>
  %t = tile.alloc {offset = 16384 : i64} : !tile.buffer<64x64xf32, shared, #tile.swizzle<128>>
  tile.tril_inverse_level %l, %t {level = 1 : i64} : !tile.buffer<64x64xf32, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, shared, #tile.swizzle<128>>
  return
}

// -----

// The whole blocked inverse through the tile passes (PIPE): 2 phases (the
// diagonal with the size-16 merge on its warps, then the merge of size 32),
// and the one barrier between them comes from tile-insert-barriers; the
// diagonal phase has three warp syncs (one before its merge, two inside),
// the merge's code two (4 tasks on 4 warps: one round). The first run
// lowers tile.tril_inverse itself: no barrier.
// CHECK-LABEL: llvm.func @tril_pipeline
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.return
// PIPE-LABEL: llvm.func @tril_pipeline
// PIPE-NOT:     nvvm.barrier0
// PIPE-COUNT-3: nvvm.bar.warp.sync
// PIPE-NOT:     nvvm.bar.warp.sync
// PIPE:         nvvm.barrier0
// PIPE-COUNT-2: nvvm.bar.warp.sync
// PIPE-NOT:     nvvm.barrier0
// PIPE-NOT:     nvvm.bar.warp.sync
// PIPE:         llvm.return
func.func @tril_pipeline() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 32768 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  %t = tile.alloc {offset = 16384 : i64} : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse %l, %t : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// tile.tril_inverse itself (sizes tile-expand-tril-inverse leaves alone) is
// the one-column-per-thread forward substitution: no barrier at all.
// CHECK-LABEL: llvm.func @tril_small
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.intr.fma
// CHECK-NOT: nvvm.barrier0
// CHECK: llvm.return
func.func @tril_small() attributes {tile.kernel, tile.num_warps = 1 : i64, tile.shared_memory_bytes = 1024 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<12x12xf32, shared>
  %t = tile.alloc {offset = 576 : i64} : !tile.buffer<12x12xf32, shared>
  tile.tril_inverse %l, %t : !tile.buffer<12x12xf32, shared>, !tile.buffer<12x12xf32, shared>
  return
}

// -----

// Past 4,096 unrolled multiply-adds (here 4 columns per thread x 128 x 127 /
// 2) the column substitution is three loops (columns of the thread, rows,
// groups of four of the row's entries carrying four partial sums): four fma
// in all, whatever n, each on operands selected to zero past the row's
// diagonal; then the row's entry is stored for the later rows to read.
// CHECK-LABEL: llvm.func @tril_columns_rolled
// CHECK:       llvm.br ^[[SLOT:bb[0-9]+]](%{{.*}} : i64)
// CHECK:       ^[[SLOT]](%{{.*}}: i64):
// CHECK:       llvm.br ^[[ROW:bb[0-9]+]](%{{.*}} : i64)
// CHECK:       ^[[ROW]](%{{.*}}: i64):
// CHECK:       llvm.br ^[[K:bb[0-9]+]](%{{.*}} : i64, f32, f32, f32, f32)
// CHECK:       ^[[K]](%{{.*}}: i64, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32, %{{.*}}: f32):
// CHECK-NOT:   llvm.intr.fma
// CHECK:       llvm.cond_br
// CHECK:       %[[IN0:.*]] = llvm.icmp "ult"
// CHECK:       %[[X0:.*]] = llvm.select %[[IN0]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  %[[L0:.*]] = llvm.select %[[IN0]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  llvm.intr.fma(%[[L0]], %[[X0]], %{{.*}})
// CHECK:       %[[IN1:.*]] = llvm.icmp "ult"
// CHECK:       %[[X1:.*]] = llvm.select %[[IN1]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  %[[L1:.*]] = llvm.select %[[IN1]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  llvm.intr.fma(%[[L1]], %[[X1]], %{{.*}})
// CHECK:       %[[IN2:.*]] = llvm.icmp "ult"
// CHECK:       %[[X2:.*]] = llvm.select %[[IN2]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  %[[L2:.*]] = llvm.select %[[IN2]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  llvm.intr.fma(%[[L2]], %[[X2]], %{{.*}})
// CHECK:       %[[IN3:.*]] = llvm.icmp "ult"
// CHECK:       %[[X3:.*]] = llvm.select %[[IN3]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  %[[L3:.*]] = llvm.select %[[IN3]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  llvm.intr.fma(%[[L3]], %[[X3]], %{{.*}})
// CHECK-NOT:   llvm.intr.fma
// CHECK:       llvm.br ^[[K]](
// CHECK-NOT:   llvm.intr.fma
// CHECK:       llvm.fsub
// CHECK-NOT:   llvm.intr.fma
// CHECK:       llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK-NOT:   llvm.intr.fma
// CHECK:       llvm.br ^[[ROW]](
// CHECK-NOT:   llvm.intr.fma
// CHECK:       llvm.br ^[[SLOT]](
// CHECK-NOT:   llvm.intr.fma
// CHECK:       llvm.return
func.func @tril_columns_rolled() attributes {tile.kernel, tile.num_warps = 1 : i64, tile.shared_memory_bytes = 131072 : i64} {
  %l = tile.alloc {offset = 0 : i64} : !tile.buffer<128x128xf32, shared>
  %t = tile.alloc {offset = 65536 : i64} : !tile.buffer<128x128xf32, shared>
  tile.tril_inverse %l, %t : !tile.buffer<128x128xf32, shared>, !tile.buffer<128x128xf32, shared>
  return
}

// -----

// Packed, rolled: T's entries above the diagonal (k < col) are not in the
// buffer (L is), so each T operand's select also asks col <= k, and only
// the entries on and below the diagonal are stored.
// CHECK-LABEL: llvm.func @tril_columns_rolled_packed
// CHECK:       llvm.br ^[[K:bb[0-9]+]](%{{.*}} : i64, f32, f32, f32, f32)
// CHECK:       llvm.cond_br
// CHECK:       %[[IN0:.*]] = llvm.icmp "ult"
// CHECK:       %[[ABOVE0:.*]] = llvm.icmp "ule"
// CHECK-NEXT:  %[[XIN0:.*]] = llvm.and %[[IN0]], %[[ABOVE0]] : i1
// CHECK-NEXT:  %[[X0:.*]] = llvm.select %[[XIN0]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  %[[L0:.*]] = llvm.select %[[IN0]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  llvm.intr.fma(%[[L0]], %[[X0]], %{{.*}})
// CHECK:       %[[IN1:.*]] = llvm.icmp "ult"
// CHECK:       %[[ABOVE1:.*]] = llvm.icmp "ule"
// CHECK-NEXT:  %[[XIN1:.*]] = llvm.and %[[IN1]], %[[ABOVE1]] : i1
// CHECK-NEXT:  %[[X1:.*]] = llvm.select %[[XIN1]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  %[[L1:.*]] = llvm.select %[[IN1]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  llvm.intr.fma(%[[L1]], %[[X1]], %{{.*}})
// CHECK:       %[[IN2:.*]] = llvm.icmp "ult"
// CHECK:       %[[ABOVE2:.*]] = llvm.icmp "ule"
// CHECK-NEXT:  %[[XIN2:.*]] = llvm.and %[[IN2]], %[[ABOVE2]] : i1
// CHECK-NEXT:  %[[X2:.*]] = llvm.select %[[XIN2]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  %[[L2:.*]] = llvm.select %[[IN2]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  llvm.intr.fma(%[[L2]], %[[X2]], %{{.*}})
// CHECK:       %[[IN3:.*]] = llvm.icmp "ult"
// CHECK:       %[[ABOVE3:.*]] = llvm.icmp "ule"
// CHECK-NEXT:  %[[XIN3:.*]] = llvm.and %[[IN3]], %[[ABOVE3]] : i1
// CHECK-NEXT:  %[[X3:.*]] = llvm.select %[[XIN3]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  %[[L3:.*]] = llvm.select %[[IN3]], %{{.*}}, %{{.*}} : i1, f32
// CHECK-NEXT:  llvm.intr.fma(%[[L3]], %[[X3]], %{{.*}})
// CHECK:       llvm.br ^[[K]](
// CHECK:       llvm.fsub
// CHECK:       llvm.icmp "ule"
// CHECK-NEXT:  llvm.cond_br %{{.*}}, ^[[STORE:bb[0-9]+]], ^[[NEXT:bb[0-9]+]]
// CHECK:       ^[[STORE]]:
// CHECK:       llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT:  llvm.br ^[[NEXT]]
// CHECK:       llvm.return
func.func @tril_columns_rolled_packed() attributes {tile.kernel, tile.num_warps = 1 : i64, tile.shared_memory_bytes = 36864 : i64} {
  %lt = tile.alloc {offset = 0 : i64} : !tile.buffer<96x96xf32, shared>
  tile.tril_inverse %lt, %lt {packed} : !tile.buffer<96x96xf32, shared>, !tile.buffer<96x96xf32, shared>
  return
}

// -----

// wgmma: one m64n64k16 per k16 step (K = 64: 4 steps) between a fence and a
// commit + wait; barriers get the generic-to-async proxy fence.
// CHECK-LABEL: llvm.func @wgmma_gemm
// CHECK: nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
// CHECK: nvvm.wgmma.wait.group.sync.aligned 0
func.func @wgmma_gemm() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.shared_memory_bytes = 16384 : i64} {
  %a = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %b = tile.alloc {offset = 8192 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.barrier
  tile.gemm %a, %b, %c {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}

// -----

// A barrier's proxy_fence (tile-proxy-fences) overrides the kernel-wide
// rule both ways: no fence after the wgmma kernel's last gemm, a fence in an
// mma.sync kernel where it is asked for.
// CHECK-LABEL: llvm.func @proxy_fence_decided
// CHECK:      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
// CHECK:      nvvm.wgmma.wait.group.sync.aligned 0
// CHECK-NOT:  nvvm.fence.proxy
// CHECK:      nvvm.barrier0
// CHECK-NEXT: llvm.return
// CHECK-LABEL: llvm.func @proxy_fence_asked
// CHECK:      nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
// CHECK-NEXT: nvvm.barrier0
func.func @proxy_fence_decided() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.shared_memory_bytes = 16384 : i64} {
  %a = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %b = tile.alloc {offset = 8192 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.barrier {proxy_fence = true}
  tile.gemm %a, %b, %c {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.barrier {proxy_fence = false}
  return
}
func.func @proxy_fence_asked() attributes {tile.kernel, tile.num_warps = 4 : i64} {
  tile.barrier {proxy_fence = true}
  return
}

// -----

// tile.copy {transpose}: fragment element (i, j) is memory element (j, i);
// each element moves alone (no f16 pairs: two atoms are too few for an
// ldmatrix.x4, and the row stride of the [?, ?] view is not known to be
// even, so no movmatrix), here 4 per lane of a 16x8 mma
// fragment: a shared [8, 16] tile read into it (f16 -> f32), then written
// to global memory as an [8, 16] tile (f32 -> f16), masked per element.
// CHECK-LABEL: llvm.func @copy_transpose
// CHECK-COUNT-4: llvm.load {{.*}} : !llvm.ptr<3> -> f16
// CHECK-NOT:     vector<2xf16>
// CHECK-COUNT-4: llvm.store {{.*}} : f16, !llvm.ptr<1>
// CHECK-NOT:     vector<2xf16>
// CHECK:         llvm.return
func.func @copy_transpose(%p: !tile.ptr<f16>, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i64, tile.shared_memory_bytes = 256 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m, %m] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<8x16xf16, shared>
  %f = tile.alloc : !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>>
  tile.copy %s to %f {transpose} : !tile.buffer<8x16xf16, shared> to !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>>
  tile.copy %f to %G[%c0, %c0] {masked, transpose} : !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>> to !tile.buffer<?x?xf16, global>
  return
}

// -----

// A transposed load of a shared 16-bit tile into an mma accumulator: the
// fragment's four 8x8 atoms come with one ldmatrix.x4.trans (lane l
// addresses row l % 8 of atom l / 8: the shared block at rows atomCol..,
// columns atomRow..), each f16 pair widened into the atom's two registers.
// CHECK-LABEL: llvm.func @copy_transpose_ldmatrix
// CHECK-NOT:     llvm.load {{.*}} : !llvm.ptr<3> -> f16
// CHECK-COUNT-3: llvm.select
// CHECK:         nvvm.ldmatrix %{{.*}} {layout = #nvvm.mma_layout<col>, num = 4 : i32} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-COUNT-4: llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// CHECK-NOT:     nvvm.ldmatrix
// CHECK-NOT:     llvm.load {{.*}} : !llvm.ptr<3> -> f16
// CHECK:         llvm.return
func.func @copy_transpose_ldmatrix() attributes {tile.kernel, tile.num_warps = 1 : i64, tile.shared_memory_bytes = 512 : i64} {
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<16x16xf16, shared>
  %f = tile.alloc : !tile.buffer<16x16xf32, fragment, #tile.mma<warps = [1, 1]>>
  tile.copy %s to %f {transpose} : !tile.buffer<16x16xf16, shared> to !tile.buffer<16x16xf32, fragment, #tile.mma<warps = [1, 1]>>
  return
}

// -----

// The same for a 16-bit fragment in the mma layout (a wgmma register A
// operand holds the accumulator's pairs): ldmatrix.x4.trans, each pair kept
// 16-bit (no widening), and the mirror store by stmatrix.trans; no 2-byte
// shared loads or stores.
// CHECK-LABEL: llvm.func @copy_transpose_ldmatrix_16bit
// CHECK-NOT:     llvm.load {{.*}} : !llvm.ptr<3> -> f16
// CHECK:         nvvm.ldmatrix %{{.*}} {layout = #nvvm.mma_layout<col>, num = 4 : i32} : (!llvm.ptr<3>) -> !llvm.struct<(i32, i32, i32, i32)>
// CHECK-COUNT-4: llvm.bitcast %{{.*}} : i32 to vector<2xf16>
// CHECK-NOT:     llvm.fpext
// CHECK-NOT:     nvvm.ldmatrix
// CHECK:         nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {layout = #nvvm.mma_layout<col>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NOT:     llvm.store {{.*}} : f16, !llvm.ptr<3>
// CHECK:         llvm.return
func.func @copy_transpose_ldmatrix_16bit() attributes {tile.kernel, tile.num_warps = 1 : i64, tile.shared_memory_bytes = 1024 : i64} {
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<16x16xf16, shared>
  %d = tile.alloc {offset = 512 : i64} : !tile.buffer<16x16xf16, shared>
  %f = tile.alloc : !tile.buffer<16x16xf16, fragment, #tile.mma<warps = [1, 1]>>
  tile.copy %s to %f {transpose} : !tile.buffer<16x16xf16, shared> to !tile.buffer<16x16xf16, fragment, #tile.mma<warps = [1, 1]>>
  tile.copy %f to %d {transpose} : !tile.buffer<16x16xf16, fragment, #tile.mma<warps = [1, 1]>> to !tile.buffer<16x16xf16, shared>
  return
}

// -----

// A transposed store of an mma accumulator into a 16-bit tile whose first
// element is 4-byte aligned (a kernel parameter) and whose row stride (128)
// and column offset (64) are even: per 8x8 atom the f16 pair
// of each lane goes through movmatrix.trans and leaves as one 4-byte store
// (memory row atomCol + lane / 4, columns atomRow + 2 (lane % 4) + {0, 1}),
// with one bounds check per pair. The 16x8 fragment has two atoms.
// CHECK-LABEL: llvm.func @copy_transpose_pairs
// CHECK-NOT:     llvm.store {{.*}} : f16, !llvm.ptr<1>
// CHECK:         llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK-NEXT:    llvm.inline_asm has_side_effects asm_dialect = att "movmatrix.sync.aligned.m8n8.trans.b16 $0, $1;", "=r,r"
// CHECK:         llvm.cond_br
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK:         movmatrix.sync.aligned.m8n8.trans.b16
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<1>
// CHECK-NOT:     movmatrix
// CHECK-NOT:     llvm.store {{.*}} : f16, !llvm.ptr<1>
// CHECK:         llvm.return
func.func @copy_transpose_pairs(%p: !tile.ptr<f16>, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  %f = tile.alloc : !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>>
  tile.copy %f to %G[%c0, %c64] {masked, transpose} : !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>> to !tile.buffer<?x128xf16, global>
  return
}

// -----

// The same into an f32 tile (a state written as its transpose): movmatrix
// moves 16-bit halves, so each pair's low halves and high halves go through
// one movmatrix.trans each and are put back together (bit for bit), then
// leave as one 8-byte store (memory row atomCol + lane / 4, columns atomRow
// + 2 (lane % 4) + {0, 1}) with one bounds check.
// CHECK-LABEL: llvm.func @copy_transpose_pairs_f32
// CHECK-NOT:     llvm.store {{.*}} : f32, !llvm.ptr<1>
// CHECK:         llvm.bitcast %{{.*}} : vector<2xf32> to vector<2xi32>
// CHECK:         movmatrix.sync.aligned.m8n8.trans.b16
// CHECK:         movmatrix.sync.aligned.m8n8.trans.b16
// CHECK:         llvm.cond_br
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xi32>, !llvm.ptr<1>
// CHECK-COUNT-2: movmatrix.sync.aligned.m8n8.trans.b16
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 8 : i64} : vector<2xi32>, !llvm.ptr<1>
// CHECK-NOT:     movmatrix
// CHECK-NOT:     llvm.store {{.*}} : f32, !llvm.ptr<1>
// CHECK:         llvm.return
func.func @copy_transpose_pairs_f32(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m] : !tile.ptr<f32> -> !tile.buffer<?x128xf32, global>
  %f = tile.alloc : !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>>
  tile.copy %f to %G[%c0, %c64] {masked, transpose} : !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>> to !tile.buffer<?x128xf32, global>
  return
}

// -----

// The same into a whole 16-bit shared tile with 16-byte rows (o^T staged
// for a TMA store): stmatrix.trans stores four atoms at once, lane l
// addressing row l % 8 of atom l / 8 (the memory row atomCol + l % 8, the
// 16 bytes at atomRow, under the buffer's layout: a 16-byte chunk stays
// whole under a swizzle), each lane passing its pairs unmoved: no movmatrix,
// no per-pair stores, no bounds check; the 64x8 fragment's 8 atoms are two
// stmatrix.x4.
// CHECK-LABEL: llvm.func @copy_transpose_pairs_shared
// CHECK-NOT:     llvm.cond_br
// CHECK-NOT:     movmatrix
// CHECK-NOT:     llvm.store
// CHECK-COUNT-4: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK:         %[[Q0:.*]] = llvm.udiv
// CHECK:         llvm.icmp "eq" %[[Q0]], %{{.*}}
// CHECK-NEXT:    llvm.select
// CHECK:         llvm.icmp "eq" %[[Q0]], %{{.*}}
// CHECK-NEXT:    llvm.select
// CHECK:         llvm.icmp "eq" %[[Q0]], %{{.*}}
// CHECK-NEXT:    llvm.select
// CHECK-NOT:     llvm.store
// CHECK:         nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {layout = #nvvm.mma_layout<col>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-COUNT-4: llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK:         %[[Q1:.*]] = llvm.udiv
// CHECK:         llvm.icmp "eq" %[[Q1]], %{{.*}}
// CHECK-NEXT:    llvm.select
// CHECK:         llvm.icmp "eq" %[[Q1]], %{{.*}}
// CHECK-NEXT:    llvm.select
// CHECK:         llvm.icmp "eq" %[[Q1]], %{{.*}}
// CHECK-NEXT:    llvm.select
// CHECK-NOT:     llvm.store
// CHECK:         nvvm.stmatrix %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} {layout = #nvvm.mma_layout<col>} : !llvm.ptr<3>, i32, i32, i32, i32
// CHECK-NOT:     nvvm.stmatrix
// CHECK-NOT:     llvm.store
// CHECK-NOT:     llvm.cond_br
// CHECK:         llvm.return
func.func @copy_transpose_pairs_shared() attributes {tile.kernel, tile.num_warps = 1 : i64, tile.shared_memory_bytes = 2048 : i64} {
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<8x64xf16, shared, #tile.swizzle<128>>
  %f = tile.alloc : !tile.buffer<64x8xf32, fragment, #tile.mma<warps = [1, 1]>>
  tile.copy %f to %s {transpose} : !tile.buffer<64x8xf32, fragment, #tile.mma<warps = [1, 1]>> to !tile.buffer<8x64xf16, shared, #tile.swizzle<128>>
  return
}

// -----

// Atoms not in fours (the 16x8 fragment has two): each movmatrix'd pair
// leaves as one 4-byte shared store at its address under the buffer's
// layout (the pair stays inside its 16-byte chunk), no bounds check and no
// 2-byte stores.
// CHECK-LABEL: llvm.func @copy_transpose_pairs_shared_two_atoms
// CHECK-NOT:     llvm.cond_br
// CHECK-NOT:     llvm.store {{.*}} : f16, !llvm.ptr<3>
// CHECK-NOT:     nvvm.stmatrix
// CHECK:         movmatrix.sync.aligned.m8n8.trans.b16
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK:         movmatrix.sync.aligned.m8n8.trans.b16
// CHECK:         llvm.store %{{.*}}, %{{.*}} {alignment = 4 : i64} : i32, !llvm.ptr<3>
// CHECK-NOT:     llvm.store
// CHECK-NOT:     llvm.cond_br
// CHECK:         llvm.return
func.func @copy_transpose_pairs_shared_two_atoms() attributes {tile.kernel, tile.num_warps = 1 : i64, tile.shared_memory_bytes = 2048 : i64} {
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<8x16xf16, shared, #tile.swizzle<32>>
  %f = tile.alloc : !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>>
  tile.copy %f to %s {transpose} : !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>> to !tile.buffer<8x16xf16, shared, #tile.swizzle<32>>
  return
}

// -----

// The mirror: a transposed load of an f32 global tile into an mma
// accumulator. Each lane loads the 8-byte pair at memory row atomCol + lane
// / 4 (zeros outside the view), and two movmatrix.trans (low and high
// halves) give the accumulator's pair.
// CHECK-LABEL: llvm.func @copy_transpose_load_f32
// CHECK-NOT:     llvm.load {{.*}} : !llvm.ptr<1> -> f32
// CHECK:         llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xi32>
// CHECK:         movmatrix.sync.aligned.m8n8.trans.b16
// CHECK:         movmatrix.sync.aligned.m8n8.trans.b16
// CHECK:         llvm.bitcast %{{.*}} : vector<2xi32> to vector<2xf32>
// CHECK:         llvm.load %{{.*}} {alignment = 8 : i64} : !llvm.ptr<1> -> vector<2xi32>
// CHECK-COUNT-2: movmatrix.sync.aligned.m8n8.trans.b16
// CHECK-NOT:     movmatrix
// CHECK-NOT:     llvm.load {{.*}} : !llvm.ptr<1> -> f32
// CHECK:         llvm.return
func.func @copy_transpose_load_f32(%p: !tile.ptr<f32>, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m] : !tile.ptr<f32> -> !tile.buffer<?x128xf32, global>
  %f = tile.alloc : !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>>
  tile.copy %G[%c0, %c64] to %f {masked, transpose} : !tile.buffer<?x128xf32, global> to !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>>
  return
}

// -----

// The same store into a tile whose first element is not provably 4-byte
// aligned (head 1 of a [?, 2, 129] tensor starts 129 elements, 258 bytes,
// in; the row stride 258 and the column offset 0 are even): elements move
// one at a time.
// CHECK-LABEL: llvm.func @copy_transpose_unaligned
// CHECK-NOT:     movmatrix
// CHECK-COUNT-4: llvm.store {{.*}} : f16, !llvm.ptr<1>
// CHECK-NOT:     movmatrix
// CHECK:         llvm.return
func.func @copy_transpose_unaligned(%p: !tile.ptr<f16>, %n: i32) attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %m = arith.index_cast %n : i32 to index
  %G = tile.view %p[%m] : !tile.ptr<f16> -> !tile.buffer<?x2x129xf16, global>
  %G1 = tile.take %G[%c1] dims [1] : !tile.buffer<?x2x129xf16, global> -> !tile.buffer<?x129xf16, global>
  %f = tile.alloc : !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>>
  tile.copy %f to %G1[%c0, %c0] {masked, transpose} : !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>> to !tile.buffer<?x129xf16, global>
  return
}

// -----

// Masked, into a tile narrowed to a dynamic number of columns (which may be
// odd: a pair straddling the end would be stored whole or not at all):
// elements move one at a time.
// CHECK-LABEL: llvm.func @copy_transpose_odd_extent
// CHECK-NOT:     movmatrix
// CHECK-COUNT-4: llvm.store {{.*}} : f16, !llvm.ptr<1>
// CHECK-NOT:     movmatrix
// CHECK:         llvm.return
func.func @copy_transpose_odd_extent(%p: !tile.ptr<f16>, %n: i32, %w: i32) attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %m = arith.index_cast %n : i32 to index
  %width = arith.index_cast %w : i32 to index
  %G = tile.view %p[%m] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  %Gw = tile.narrow %G[%c0, %width] dim 1 : !tile.buffer<?x128xf16, global> -> !tile.buffer<?x?xf16, global>
  %f = tile.alloc : !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>>
  tile.copy %f to %Gw[%c0, %c0] {masked, transpose} : !tile.buffer<16x8xf32, fragment, #tile.mma<warps = [1, 1]>> to !tile.buffer<?x?xf16, global>
  return
}

// -----

// Two warpgroups splitting N ([4, 2]): each issues m64n32k16 on its 32
// columns. B [K][N] (MN-major): warpgroup 1 starts 64 bytes into the
// 128-byte box (byte column 32 x 2, no whole box): base + (wg / 1) * 64.
// The warpgroup index tid / 128 is broadcast from lane 0 (shfl.sync idx),
// so that ptxas keeps it and the descriptors built from it in uniform
// registers.
// CHECK-LABEL: llvm.func @wgmma_split_n
// CHECK: %[[TID:.*]] = nvvm.read.ptx.sreg.tid.x
// CHECK: %[[Q:.*]] = llvm.udiv %[[TID]], %{{.*}} : i32
// CHECK: %[[B:.*]] = nvvm.shfl.sync idx %{{.*}}, %[[Q]], %{{.*}}, %{{.*}} : i32 -> i32
// CHECK: %[[WG:.*]] = llvm.zext %[[B]] : i32 to i64
// CHECK: %[[COLB:.*]] = llvm.mul %[[WG]], %[[C64:.*]] : i64
// CHECK: llvm.urem %[[COLB]]
// CHECK: nvvm.wgmma.fence.aligned
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
// CHECK: nvvm.wgmma.commit.group.sync.aligned
func.func @wgmma_split_n() attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma", tile.shared_memory_bytes = 16384 : i64} {
  %a = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %b = tile.alloc {offset = 8192 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 2], engine = wgmma>>
  tile.barrier
  tile.gemm %a, %b, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 2], engine = wgmma>>
  return
}

// -----

// The same with B^T [N][K] (K-major): warpgroup 1's 32 rows of B^T start
// 32 x 128 bytes in.
// CHECK-LABEL: llvm.func @wgmma_split_n_kmajor
// CHECK: %[[B:.*]] = nvvm.shfl.sync idx
// CHECK: %[[WG:.*]] = llvm.zext %[[B]] : i32 to i64
// CHECK: %[[C4096:.*]] = llvm.mlir.constant(4096 : i64) : i64
// CHECK: llvm.mul %[[WG]], %[[C4096]] overflow<nsw> : i64
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 32, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
func.func @wgmma_split_n_kmajor() attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma", tile.shared_memory_bytes = 16384 : i64} {
  %a = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %b = tile.alloc {offset = 8192 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 2], engine = wgmma>>
  tile.barrier
  tile.gemm %a, %b, %c {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 2], engine = wgmma>>
  return
}

// -----

// The 64- and 32-byte swizzles: descriptor mode 2 / 3 (bits 62-63), SBO =
// 8 box rows (512 / 256 bytes >> 4 = 32 / 16); A K-major (LBO 1), B
// [K][N] MN-major: LBO = the distance of its 32-column (64-byte) boxes,
// K rows x 64 bytes = 4096 >> 4 = 256; B's k-steps move 16 rows (1024
// bytes, 64 >> 4), A's 32 bytes inside a box (+2) and then a box
// (64 rows x 64 bytes = 4096, +256).
// CHECK-LABEL: llvm.func @wgmma_swizzle64
// CHECK-DAG: llvm.mlir.constant(-9223371899415756800 : i64) : i64
// CHECK-DAG: llvm.mlir.constant(-9223371899399045120 : i64) : i64
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <row>]
func.func @wgmma_swizzle64() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.shared_memory_bytes = 16384 : i64} {
  %a = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
  %b = tile.alloc {offset = 8192 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.barrier
  tile.gemm %a, %b, %c : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}

// -----

// CHECK-LABEL: llvm.func @wgmma_swizzle32
// CHECK: llvm.mlir.constant(-4611685949707845632 : i64) : i64
// CHECK-COUNT-4: nvvm.wgmma.mma_async {{.*}} <m = 64, n = 64, k = 16>, D[<f32>, <one>], A[<f16>, <one>, <row>], B[<f16>, <one>, <col>]
func.func @wgmma_swizzle32() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.shared_memory_bytes = 16384 : i64} {
  %a = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<32>>
  %b = tile.alloc {offset = 8192 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<32>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.barrier
  tile.gemm %a, %b, %c {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<32>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<32>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}

// -----

func.func @wgmma_unswizzled() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.shared_memory_bytes = 16384 : i64} {
  %a = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  // expected-error @below {{wgmma operands must be swizzled (#tile.swizzle<32|64|128>)}}
  // expected-error @below {{failed to legalize operation 'tile.gemm'}}
  tile.gemm %a, %a, %c : !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf16, shared>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}

// -----

// wgmma with A in registers: four i32 per k-step, each two A registers
// (the accumulator layout's (g, 2q..2q+1), (g+8, ..), (g, 8+2q..),
// (g+8, 8+2q..)) packed as vector<2xf16>, all before wgmma.fence; then one
// inline-PTX register-form wgmma per k-step: 32 accumulators tied, the four
// A registers, B's descriptor, scale-d 1, B MN-major (transpose bit 1).
// CHECK-LABEL: llvm.func @wgmma_rs
// CHECK:       llvm.bitcast %{{.*}} : vector<2xf16> to i32
// CHECK:       nvvm.wgmma.fence.aligned
// CHECK-NOT:   llvm.bitcast
// CHECK:       llvm.inline_asm has_side_effects asm_dialect = att "{\0A.reg .pred p;\0Asetp.ne.b32 p, $69, 0;\0Awgmma.mma_async.sync.aligned.m64n64k16.f32.f16.f16 {$0, {{.*}}, $31}, {$64, $65, $66, $67}, $68, p, 1, 1, 1;\0A}\0A", "=f,{{.*}},31,r,r,r,r,l,n"
// CHECK-COUNT-3: wgmma.mma_async.sync.aligned.m64n64k16
// CHECK:       nvvm.wgmma.commit.group.sync.aligned
// CHECK:       nvvm.wgmma.wait.group.sync.aligned 0
func.func @wgmma_rs() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.shared_memory_bytes = 8192 : i64} {
  %b = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %a = tile.alloc : !tile.buffer<64x64xf16, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %b, %c : !tile.buffer<64x64xf16, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}

// -----

// b_block_lower = 32: B^T (64x64, K-major) is zero above its 32x32 block
// diagonal, so each 32-column block of C is its own m64n32 chain (16
// accumulators, tied, then the four A registers: the D fragment's
// registers 0-15 and 16-31) over the k-steps
// up to its diagonal block: block 0 two (B's descriptor +0, +2: 32 bytes a
// k-step), block 1 four from B's row 32 (+256 = 4096 bytes: 32 rows of 128
// bytes, whole swizzle atoms); 6 wgmma instead of 4 m64n64, and B's block
// above the diagonal is never read.
// CHECK-LABEL: llvm.func @wgmma_rs_block_lower
// CHECK:       nvvm.wgmma.fence.aligned
// CHECK-NOT:   m64n64k16
// CHECK:       llvm.inline_asm {{.*}}m64n32k16.f32.f16.f16 {$0, {{.*}}, $15}, {$32, $33, $34, $35}, $36, p, 1, 1, 0;
// CHECK:       %[[C2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT:  llvm.add %[[D:.*]], %[[C2]]
// CHECK:       llvm.inline_asm {{.*}}m64n32k16
// CHECK:       llvm.mlir.constant(256 : i64) : i64
// CHECK:       llvm.inline_asm {{.*}}m64n32k16
// CHECK:       llvm.mlir.constant(258 : i64) : i64
// CHECK:       llvm.inline_asm {{.*}}m64n32k16
// CHECK:       llvm.mlir.constant(260 : i64) : i64
// CHECK:       llvm.inline_asm {{.*}}m64n32k16
// CHECK:       llvm.mlir.constant(262 : i64) : i64
// CHECK:       llvm.inline_asm {{.*}}m64n32k16
// CHECK-NOT:   wgmma.mma_async
// CHECK:       nvvm.wgmma.commit.group.sync.aligned
func.func @wgmma_rs_block_lower() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.shared_memory_bytes = 8192 : i64} {
  %b = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %a = tile.alloc : !tile.buffer<64x64xf16, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %b, %c {transpose_b, b_block_lower = 32 : i64} : !tile.buffer<64x64xf16, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}

// -----

// tile.zero_tail: a 64x128 f16 tile (128-byte swizzle) as 1024 16-byte
// groups over 128 threads, eight per thread, each stored when its row
// (group / 16) is at least `from` (signed: a negative `from` clears all);
// a 1-D f32 buffer element by element, the last slot guarded to 64; then
// each thread's fence.proxy.async (the stage is TMA's and wgmma's).
// CHECK-LABEL: llvm.func @zero_tail
// CHECK:           %[[Z:.*]] = llvm.mlir.zero : vector<8xf16>
// CHECK-COUNT-8:   llvm.icmp "sge" %{{.*}}, %[[FROM:.*]] : i64
// CHECK-NOT:       llvm.icmp "sge"
// CHECK:           llvm.store %[[Z]], %{{.*}} {alignment = 16 : i64} : vector<8xf16>, !llvm.ptr<3>
// CHECK:           %[[ZF:.*]] = llvm.mlir.zero : f32
// CHECK:           llvm.icmp "sge" %{{.*}}, %[[FROM]] : i64
// CHECK-NEXT:      llvm.mlir.constant(64 : i64)
// CHECK-NEXT:      llvm.icmp "ult"
// CHECK-NEXT:      llvm.and
// CHECK:           llvm.store %[[ZF]], %{{.*}} {alignment = 4 : i64} : f32, !llvm.ptr<3>
// CHECK:           nvvm.fence.proxy {kind = #nvvm.proxy_kind<async.shared>, space = #nvvm.shared_space<cta>}
func.func @zero_tail(%n: index) attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 16640 : i64} {
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  %g = tile.alloc {offset = 16384 : i64} : !tile.buffer<64xf32, shared>
  tile.zero_tail %s from %n : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  tile.zero_tail %g from %n : !tile.buffer<64xf32, shared>
  return
}

// -----

// The packed phases (one buffer: L below the diagonal, T^T above): the
// diagonal blocks' forward substitution is unchanged (120 fma), then each
// x_i goes to (c, i) only when c <= i (16 guarded scalar stores, no zeros
// above the blocks). A level reads T_qj as rows of the buffer (16-byte
// loads), the diagonal block's masked to zero above its diagonal (four
// selects), T_ii by columns (eight masked scalar loads), and stores its
// strip transposed (four scalar stores before the warp sync, four negated
// after); two rounds of strips for six tasks on four warps.
// CHECK-LABEL: llvm.func @tril_packed
// CHECK-COUNT-120: llvm.intr.fma
// CHECK-NOT:   llvm.intr.fma
// CHECK-COUNT-16: llvm.icmp "ule"
// CHECK-NOT:   llvm.store {{.*}} : vector<
// CHECK:       llvm.cond_br
// CHECK-COUNT-4: llvm.select
// CHECK-COUNT-6: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK-COUNT-4: llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK-NEXT:  nvvm.bar.warp.sync
// CHECK-COUNT-8: llvm.select
// CHECK-COUNT-6: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK:       nvvm.bar.warp.sync
// CHECK-COUNT-4: llvm.fneg
// CHECK-NOT:   nvvm.barrier0
// CHECK:       llvm.return
func.func @tril_packed() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 16384 : i64} {
  %lt = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_diag %lt, %lt {packed} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  tile.tril_inverse_level %lt, %lt {level = 1 : i64, packed} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
  return
}

// -----

// A small packed inverse (the column-per-thread path): x_i of column c goes
// to (c, i) when c <= i; nothing is written below the diagonal (L stays).
// CHECK-LABEL: llvm.func @tril_packed_cols
// CHECK-COUNT-120: llvm.intr.fma
// CHECK-COUNT-16: llvm.icmp "ule"
// CHECK-NOT:   llvm.store {{.*}} : vector<
// CHECK:       llvm.return
func.func @tril_packed_cols() attributes {tile.kernel, tile.num_warps = 1 : i64, tile.shared_memory_bytes = 1024 : i64} {
  %lt = tile.alloc {offset = 0 : i64} : !tile.buffer<16x16xf32, shared>
  tile.tril_inverse %lt, %lt {packed} : !tile.buffer<16x16xf32, shared>, !tile.buffer<16x16xf32, shared>
  return
}

// -----

// tile.zero_tail on a rank-3 buffer whose innermost dimension (4 f16) is
// narrower than 16 bytes: 8-byte groups, two per row of 2x4, sixteen over
// 32 threads (the one slot guarded to 16).
// CHECK-LABEL: llvm.func @zero_tail_rank3
// CHECK:         %[[Z:.*]] = llvm.mlir.zero : vector<4xf16>
// CHECK:         llvm.icmp "sge"
// CHECK:         llvm.icmp "ult"
// CHECK:         llvm.store %[[Z]], %{{.*}} {alignment = 8 : i64} : vector<4xf16>, !llvm.ptr<3>
// CHECK-NOT:     llvm.store
// CHECK:         nvvm.fence.proxy
func.func @zero_tail_rank3(%n: index) attributes {tile.kernel, tile.num_warps = 1 : i64, tile.shared_memory_bytes = 1024 : i64} {
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<8x2x4xf16, shared>
  tile.zero_tail %s from %n : !tile.buffer<8x2x4xf16, shared>
  return
}

// -----

// The packed inverse in a 128-byte-swizzled buffer: the same phases, every
// address through the swizzle (an xor of the 16-byte chunk with the row),
// so the transposed accesses of a warp spread over eight chunks.
// CHECK-LABEL: llvm.func @tril_packed_swizzled
// CHECK-COUNT-120: llvm.intr.fma
// CHECK:       llvm.xor
// CHECK-COUNT-6: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK:       nvvm.bar.warp.sync
// CHECK-COUNT-6: mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32
// CHECK:       llvm.return
func.func @tril_packed_swizzled() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 16384 : i64} {
  %lt = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf32, shared, #tile.swizzle<128>>
  tile.tril_inverse_diag %lt, %lt {packed} : !tile.buffer<64x64xf32, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, shared, #tile.swizzle<128>>
  tile.tril_inverse_level %lt, %lt {level = 1 : i64, packed} : !tile.buffer<64x64xf32, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, shared, #tile.swizzle<128>>
  return
}

// -----

// A row reduction's padded scratch (tile-assign-layouts gives rows of a
// multiple of 32 words #tile.padded<4>): every scratch address steps rows by the
// padded stride, 36 words, in the stores and in the serial reads after the
// barrier, which combine a row in column order.
// CHECK-LABEL: llvm.func @reduce_padded
// CHECK:       %[[W1:.*]] = llvm.mlir.constant(36 : i64) : i64
// CHECK-NEXT:  llvm.mul %{{.*}}, %[[W1]] overflow<nsw> : i64
// CHECK:       llvm.store {{.*}} : f32, !llvm.ptr<3>
// CHECK:       nvvm.barrier0
// CHECK:       %[[W2:.*]] = llvm.mlir.constant(36 : i64) : i64
// CHECK-NEXT:  %[[R0:.*]] = llvm.mul %[[ROW:.*]], %[[W2]] overflow<nsw> : i64
// CHECK:       %[[A:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK:       %[[W3:.*]] = llvm.mlir.constant(36 : i64) : i64
// CHECK-NEXT:  %[[R1:.*]] = llvm.mul %[[ROW]], %[[W3]] overflow<nsw> : i64
// CHECK-NEXT:  llvm.add %[[R1]], %{{.*}} overflow<nsw> : i64
// CHECK:       %[[B:.*]] = llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK-NEXT:  llvm.fadd %[[A]], %[[B]] : f32
func.func @reduce_padded() attributes {tile.kernel, tile.num_warps = 2 : i64, tile.shared_memory_bytes = 9216 : i64} {
  %src = tile.alloc : !tile.buffer<64x32xf32, fragment, #tile.blocked<vector = 4>>
  %dst = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<64x32xf32, shared, #tile.padded<4>>
  tile.reduce add %src, %dst scratch(%s : !tile.buffer<64x32xf32, shared, #tile.padded<4>>) {dim = 1 : i64} : !tile.buffer<64x32xf32, fragment, #tile.blocked<vector = 4>> -> !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
  return
}

// -----

// The in-warp row reduction (a scratch of one f32 per row): rows of 32 f32
// in vectors of 4 are 8 lanes; each lane adds its 4 registers in order,
// then 3 butterfly shuffles (xor 1, 2, 4) across its group, the group's
// first lane (lane % 8 == 0) stores the row's sum
// at 4 bytes per row (4 rows: only the first 32 of the 64 threads own a
// vector, the others' values are replaced by 0 and not stored), a barrier, and each owner of a destination element
// loads it back; a last barrier before the scratch is reused. No full-tile
// stores.
// CHECK-LABEL: llvm.func @reduce_in_warp
// CHECK-NOT:     nvvm.barrier0
// CHECK:         %[[P1:.*]] = llvm.fadd
// CHECK:         %[[P2:.*]] = llvm.fadd %[[P1]]
// CHECK:         %[[P3:.*]] = llvm.fadd %[[P2]]
// CHECK-NEXT:    %[[Z:.*]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK-NEXT:    %[[A:.*]] = llvm.select %{{.*}}, %[[P3]], %[[Z]] : i1, f32
// CHECK-NEXT:    %[[M1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[S1:.*]] = nvvm.shfl.sync  bfly %{{.*}}, %[[A]], %[[M1]], %{{.*}} : f32 -> f32
// CHECK-NEXT:    %[[B:.*]] = llvm.fadd %[[A]], %[[S1]] : f32
// CHECK-NEXT:    %[[M2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[S2:.*]] = nvvm.shfl.sync  bfly %{{.*}}, %[[B]], %[[M2]], %{{.*}} : f32 -> f32
// CHECK-NEXT:    %[[C:.*]] = llvm.fadd %[[B]], %[[S2]] : f32
// CHECK-NEXT:    %[[M4:.*]] = llvm.mlir.constant(4 : i32) : i32
// CHECK-NEXT:    %[[S4:.*]] = nvvm.shfl.sync  bfly %{{.*}}, %[[C]], %[[M4]], %{{.*}} : f32 -> f32
// CHECK-NEXT:    %[[D:.*]] = llvm.fadd %[[C]], %[[S4]] : f32
// CHECK-NEXT:    llvm.cond_br
// CHECK:         llvm.cond_br
// CHECK:         %[[OFF:.*]] = llvm.mul %{{.*}}, %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    %[[PTR:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:    llvm.store %[[D]], %[[PTR]] : f32, !llvm.ptr<3>
// CHECK-NOT:     llvm.store
// CHECK:         nvvm.barrier0
// CHECK:         llvm.load %{{.*}} : !llvm.ptr<3> -> f32
// CHECK:         nvvm.barrier0
// CHECK:         llvm.return
func.func @reduce_in_warp() attributes {tile.kernel, tile.num_warps = 2 : i64, tile.shared_memory_bytes = 16 : i64} {
  %src = tile.alloc : !tile.buffer<4x32xf32, fragment, #tile.blocked<vector = 4>>
  %dst = tile.alloc : !tile.buffer<4xf32, fragment, #tile.blocked<vector = 1>>
  %s = tile.alloc {offset = 0 : i64} : !tile.buffer<4xf32, shared>
  tile.reduce add %src, %dst scratch(%s : !tile.buffer<4xf32, shared>) {dim = 1 : i64} : !tile.buffer<4x32xf32, fragment, #tile.blocked<vector = 4>> -> !tile.buffer<4xf32, fragment, #tile.blocked<vector = 1>>
  return
}

// -----

// Into shared memory: the in-warp reduction's butterfly (8 lanes of 4:
// xor 1, 2, 4), then the group's first lane stores the row's sum straight
// into the destination; no barrier and no load back (the destination's
// readers are ordered by tile-insert-barriers).
// CHECK-LABEL: llvm.func @reduce_into_shared
// CHECK-NOT:     nvvm.barrier0
// CHECK-COUNT-3: nvvm.shfl.sync  bfly
// CHECK-NOT:     nvvm.shfl.sync
// CHECK:         %[[OFF:.*]] = llvm.mul %{{.*}}, %{{.*}} overflow<nsw> : i64
// CHECK-NEXT:    %[[PTR:.*]] = llvm.getelementptr %{{.*}}[%[[OFF]]] : (!llvm.ptr<3>, i64) -> !llvm.ptr<3>, i8
// CHECK-NEXT:    llvm.store %{{.*}}, %[[PTR]] : f32, !llvm.ptr<3>
// CHECK-NOT:     llvm.load
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.return
func.func @reduce_into_shared() attributes {tile.kernel, tile.num_warps = 2 : i64, tile.shared_memory_bytes = 16 : i64} {
  %src = tile.alloc : !tile.buffer<4x32xf32, fragment, #tile.blocked<vector = 4>>
  %d = tile.alloc {offset = 0 : i64} : !tile.buffer<4xf32, shared>
  tile.reduce add %src, %d {dim = 1 : i64} : !tile.buffer<4x32xf32, fragment, #tile.blocked<vector = 4>> -> !tile.buffer<4xf32, shared>
  return
}

// -----

// A single row without a scratch: 16 lanes of 4, the butterfly (m = 1, 2,
// 4, 8), the result straight into the destination's register; no shared
// memory, no barrier.
// CHECK-LABEL: llvm.func @reduce_one_row
// CHECK-NOT:     nvvm.barrier0
// CHECK-COUNT-4: nvvm.shfl.sync  bfly
// CHECK-NOT:     nvvm.shfl.sync
// CHECK:         %[[R:.*]] = llvm.intr.maxnum
// CHECK:         llvm.store %[[R]], %{{.*}} : f32, !llvm.ptr{{$}}
// CHECK-NOT:     !llvm.ptr<3>
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.return
func.func @reduce_one_row() attributes {tile.kernel, tile.num_warps = 2 : i64} {
  %src = tile.alloc : !tile.buffer<1x64xf32, fragment, #tile.blocked<vector = 4>>
  %dst = tile.alloc : !tile.buffer<1xf32, fragment, #tile.blocked<vector = 1>>
  tile.reduce max %src, %dst {dim = 1 : i64} : !tile.buffer<1x64xf32, fragment, #tile.blocked<vector = 4>> -> !tile.buffer<1xf32, fragment, #tile.blocked<vector = 1>>
  return
}

// -----

// f32 registers stored as f16 / bf16 in runs of 4: one packed conversion
// per pair (cvt.rn.{f16,bf16}x2.f32, element 2i + 1 first: it goes to the
// upper half), the words assembled and stored as one 8-byte vector; the
// selects of a map before the store stay on the f32 values.
// CHECK-LABEL: llvm.func @copy_packed_cvt
// CHECK:         %[[SEL:.*]] = llvm.select %{{.*}}, %{{.*}}, %{{.*}} : i1, f32
// CHECK-NOT:     llvm.fptrunc
// CHECK:         %[[P0:.*]] = llvm.call_intrinsic "llvm.nvvm.ff2f16x2.rn"(%{{.*}}, %{{.*}}) : (f32, f32) -> vector<2xf16>
// CHECK:         llvm.bitcast %[[P0]] : vector<2xf16> to i32
// CHECK:         %[[P1:.*]] = llvm.call_intrinsic "llvm.nvvm.ff2f16x2.rn"(%{{.*}}, %{{.*}}) : (f32, f32) -> vector<2xf16>
// CHECK:         %[[W:.*]] = llvm.bitcast %{{.*}} : vector<2xi32> to vector<4xf16>
// CHECK:         llvm.store %[[W]], %{{.*}} {alignment = 8 : i64} : vector<4xf16>, !llvm.ptr<1>
// CHECK:         llvm.call_intrinsic "llvm.nvvm.ff2bf16x2.rn"
// CHECK:         llvm.call_intrinsic "llvm.nvvm.ff2bf16x2.rn"
// CHECK:         llvm.bitcast %{{.*}} : vector<2xi32> to vector<4xbf16>
// CHECK-NOT:     llvm.fptrunc
// CHECK:         llvm.return
func.func @copy_packed_cvt(%p: !tile.ptr<f16>, %q: !tile.ptr<bf16>) attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %G = tile.view %p[] : !tile.ptr<f16> -> !tile.buffer<32x4xf16, global>
  %H = tile.view %q[] : !tile.ptr<bf16> -> !tile.buffer<32x4xbf16, global>
  %f = tile.alloc : !tile.buffer<32x4xf32, fragment, #tile.blocked<vector = 4>>
  tile.map indexed ins(%f : !tile.buffer<32x4xf32, fragment, #tile.blocked<vector = 4>>) outs(%f : !tile.buffer<32x4xf32, fragment, #tile.blocked<vector = 4>>) {
  ^bb0(%i: index, %j: index, %x: f32):
    %lower = arith.cmpi uge, %i, %j : index
    %r = arith.select %lower, %x, %zero : f32
    tile.yield %r : f32
  }
  tile.copy %f to %G[%c0, %c0] : !tile.buffer<32x4xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<32x4xf16, global>
  tile.copy %f to %H[%c0, %c0] : !tile.buffer<32x4xf32, fragment, #tile.blocked<vector = 4>> to !tile.buffer<32x4xbf16, global>
  return
}

// -----

// A map that yields f32 values rounded to its 16-bit outputs (the GDN step's
// S^T and W^T copies, V_new^T's two): each output's registers are rounded
// two at a time, one cvt.rn.{f16,bf16}x2.f32 per pair (register 2i + 1 in
// the upper half), in register order, and the halves stored to the two
// registers; no scalar fptrunc is left. A buffer named twice in `outs`, a
// truncation with another rounding mode, or one whose value the body uses
// again, stays scalar.
// CHECK-LABEL: llvm.func @map_packed_trunc
// CHECK-NOT:     llvm.fptrunc
// CHECK:         %[[R0:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[X0:.*]] = llvm.fmul %[[R0]], %{{.*}} : f32
// CHECK:         %[[R1:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[X1:.*]] = llvm.fmul %[[R1]], %{{.*}} : f32
// CHECK-NEXT:    %[[P:.*]] = llvm.call_intrinsic "llvm.nvvm.ff2f16x2.rn"(%[[X1]], %[[X0]]) : (f32, f32) -> vector<2xf16>
// CHECK-NEXT:    %[[I0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[E0:.*]] = llvm.extractelement %[[P]][%[[I0]] : i32] : vector<2xf16>
// CHECK-NEXT:    %[[K0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT:    %[[G0:.*]] = llvm.getelementptr %[[H:.*]][%[[K0]]] : (!llvm.ptr, i64) -> !llvm.ptr, f16
// CHECK-NEXT:    llvm.store %[[E0]], %[[G0]] : f16, !llvm.ptr
// CHECK-NEXT:    %[[I1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[E1:.*]] = llvm.extractelement %[[P]][%[[I1]] : i32] : vector<2xf16>
// CHECK-NEXT:    %[[K1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT:    %[[G1:.*]] = llvm.getelementptr %[[H]][%[[K1]]] : (!llvm.ptr, i64) -> !llvm.ptr, f16
// CHECK-NEXT:    llvm.store %[[E1]], %[[G1]] : f16, !llvm.ptr
// CHECK-NEXT:    %[[Q:.*]] = llvm.call_intrinsic "llvm.nvvm.ff2bf16x2.rn"(%[[R1]], %[[R0]]) : (f32, f32) -> vector<2xbf16>
// CHECK-NEXT:    %[[J0:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[F0:.*]] = llvm.extractelement %[[Q]][%[[J0]] : i32] : vector<2xbf16>
// CHECK-NEXT:    %[[L0:.*]] = llvm.mlir.constant(0 : i64) : i64
// CHECK-NEXT:    %[[B0:.*]] = llvm.getelementptr %[[BF:.*]][%[[L0]]] : (!llvm.ptr, i64) -> !llvm.ptr, bf16
// CHECK-NEXT:    llvm.store %[[F0]], %[[B0]] : bf16, !llvm.ptr
// CHECK-NEXT:    %[[J1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[F1:.*]] = llvm.extractelement %[[Q]][%[[J1]] : i32] : vector<2xbf16>
// CHECK-NEXT:    %[[L1:.*]] = llvm.mlir.constant(1 : i64) : i64
// CHECK-NEXT:    %[[B1:.*]] = llvm.getelementptr %[[BF]][%[[L1]]] : (!llvm.ptr, i64) -> !llvm.ptr, bf16
// CHECK-NEXT:    llvm.store %[[F1]], %[[B1]] : bf16, !llvm.ptr
// The next pair (registers 2 and 3), the same way.
// CHECK:         %[[R2:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[X2:.*]] = llvm.fmul %[[R2]], %{{.*}} : f32
// CHECK:         %[[R3:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[X3:.*]] = llvm.fmul %[[R3]], %{{.*}} : f32
// CHECK-NEXT:    %[[P2:.*]] = llvm.call_intrinsic "llvm.nvvm.ff2f16x2.rn"(%[[X3]], %[[X2]]) : (f32, f32) -> vector<2xf16>
// CHECK-NEXT:    %[[I2:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[E2:.*]] = llvm.extractelement %[[P2]][%[[I2]] : i32] : vector<2xf16>
// CHECK-NEXT:    %[[K2:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT:    %[[G2:.*]] = llvm.getelementptr %[[H]][%[[K2]]] : (!llvm.ptr, i64) -> !llvm.ptr, f16
// CHECK-NEXT:    llvm.store %[[E2]], %[[G2]] : f16, !llvm.ptr
// CHECK-COUNT-2: llvm.call_intrinsic "llvm.nvvm.ff2f16x2.rn"
// CHECK-NOT:     llvm.fptrunc
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func @map_aliased_outs
// CHECK-NOT:     llvm.nvvm.ff2f16x2.rn
// CHECK-COUNT-4: llvm.fptrunc %{{.*}} : f32 to f16
// CHECK-NOT:     llvm.nvvm.ff2f16x2.rn
// CHECK:         llvm.return
// CHECK-LABEL: llvm.func @map_scalar_trunc
// CHECK-NOT:     llvm.nvvm.ff2f16x2.rn
// CHECK:         llvm.intr.experimental.constrained.fptrunc %[[X:.*]] towardzero ignore : f32 to f16
// CHECK-NEXT:    llvm.fptrunc %[[X]] : f32 to f16
// CHECK:         llvm.intr.experimental.constrained.fptrunc %[[X:.*]] towardzero ignore : f32 to f16
// CHECK-NEXT:    llvm.fptrunc %[[X]] : f32 to f16
// CHECK:         llvm.intr.experimental.constrained.fptrunc %[[X:.*]] towardzero ignore : f32 to f16
// CHECK-NEXT:    llvm.fptrunc %[[X]] : f32 to f16
// CHECK:         llvm.intr.experimental.constrained.fptrunc %[[X:.*]] towardzero ignore : f32 to f16
// CHECK-NEXT:    llvm.fptrunc %[[X]] : f32 to f16
// CHECK-NOT:     llvm.nvvm.ff2f16x2.rn
// CHECK:         llvm.return
func.func @map_packed_trunc(%s: f32) attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %f = tile.alloc : !tile.buffer<32x8xf32, fragment, #tile.blocked<vector = 8>>
  %h = tile.alloc : !tile.buffer<32x8xf16, fragment, #tile.blocked<vector = 8>>
  %b = tile.alloc : !tile.buffer<32x8xbf16, fragment, #tile.blocked<vector = 8>>
  tile.map ins(%f : !tile.buffer<32x8xf32, fragment, #tile.blocked<vector = 8>>) outs(%h, %b : !tile.buffer<32x8xf16, fragment, #tile.blocked<vector = 8>>, !tile.buffer<32x8xbf16, fragment, #tile.blocked<vector = 8>>) {
  ^bb0(%x: f32):
    %y = arith.mulf %x, %s : f32
    %yh = arith.truncf %y : f32 to f16
    %xb = arith.truncf %x : f32 to bf16
    tile.yield %yh, %xb : f16, bf16
  }
  return
}
func.func @map_aliased_outs(%c: f16) attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %f = tile.alloc : !tile.buffer<32x4xf32, fragment, #tile.blocked<vector = 4>>
  %h = tile.alloc : !tile.buffer<32x4xf16, fragment, #tile.blocked<vector = 4>>
  tile.map ins(%f : !tile.buffer<32x4xf32, fragment, #tile.blocked<vector = 4>>) outs(%h, %h : !tile.buffer<32x4xf16, fragment, #tile.blocked<vector = 4>>, !tile.buffer<32x4xf16, fragment, #tile.blocked<vector = 4>>) {
  ^bb0(%x: f32):
    %u = arith.truncf %x : f32 to f16
    tile.yield %u, %c : f16, f16
  }
  return
}
func.func @map_scalar_trunc() attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %f = tile.alloc : !tile.buffer<32x4xf32, fragment, #tile.blocked<vector = 4>>
  %h = tile.alloc : !tile.buffer<32x4xf16, fragment, #tile.blocked<vector = 4>>
  %g = tile.alloc : !tile.buffer<32x4xf16, fragment, #tile.blocked<vector = 4>>
  tile.map ins(%f : !tile.buffer<32x4xf32, fragment, #tile.blocked<vector = 4>>) outs(%h, %g : !tile.buffer<32x4xf16, fragment, #tile.blocked<vector = 4>>, !tile.buffer<32x4xf16, fragment, #tile.blocked<vector = 4>>) {
  ^bb0(%x: f32):
    %t = arith.truncf %x toward_zero : f32 to f16
    %u = arith.truncf %x : f32 to f16
    %v = arith.addf %u, %u : f16
    tile.yield %t, %u : f16, f16
  }
  return
}

// -----

// tile.scan on 64 elements, two per lane of the first warp: the lane's pair
// (x0, x0 + x1), five Kogge-Stone rounds over shfl.up (lane >= m combines
// lane l - m's total on the left), then the inclusive total of lane l - 1
// on the left of both elements (lane 0 keeps its own). Registers only: no
// shared memory, no barrier.
// CHECK-LABEL: llvm.func @scan_add
// CHECK-NOT:     nvvm.barrier0
// CHECK:         %[[X0:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK:         %[[X1:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT:    %[[R1:.*]] = llvm.fadd %[[X0]], %[[X1]] : f32
// CHECK:         %[[LANE:.*]] = llvm.urem %{{.*}}, %{{.*}} : i64
// CHECK:         %[[U1:.*]] = nvvm.shfl.sync  up %{{.*}}, %[[R1]], %{{.*}}, %{{.*}} : f32 -> f32
// CHECK:         %[[H1:.*]] = llvm.icmp "uge" %[[LANE]], %{{.*}} : i64
// CHECK-NEXT:    %[[A1:.*]] = llvm.fadd %[[U1]], %[[R1]] : f32
// CHECK-NEXT:    %[[T1:.*]] = llvm.select %[[H1]], %[[A1]], %[[R1]] : i1, f32
// CHECK-COUNT-4: nvvm.shfl.sync  up
// CHECK:         %[[T5:.*]] = llvm.select %{{.*}} : i1, f32
// CHECK:         %[[P:.*]] = nvvm.shfl.sync  up %{{.*}}, %[[T5]], %{{.*}}, %{{.*}} : f32 -> f32
// CHECK:         %[[FIRST:.*]] = llvm.icmp "ult" %[[LANE]], %{{.*}} : i64
// CHECK-NEXT:    %[[Y0:.*]] = llvm.fadd %[[P]], %[[X0]] : f32
// CHECK-NEXT:    %[[O0:.*]] = llvm.select %[[FIRST]], %[[X0]], %[[Y0]] : i1, f32
// CHECK-NEXT:    %[[Y1:.*]] = llvm.fadd %[[P]], %[[R1]] : f32
// CHECK-NEXT:    %[[O1:.*]] = llvm.select %[[FIRST]], %[[R1]], %[[Y1]] : i1, f32
// CHECK:         llvm.store %[[O0]]
// CHECK:         llvm.store %[[O1]]
// CHECK-NOT:     nvvm.shfl.sync
// CHECK-NOT:     nvvm.barrier0
// CHECK:         llvm.return
func.func @scan_add() attributes {tile.kernel, tile.num_warps = 2 : i64} {
  %g = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>>
  tile.scan add %g, %g : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>> -> !tile.buffer<64xf32, fragment, #tile.blocked<vector = 2>>
  return
}

// -----

// One element per lane (32 on one warp): the rounds and the final shuffle,
// with max as the combiner; 4 lanes of 8 take two rounds.
// CHECK-LABEL: llvm.func @scan_max
// CHECK-COUNT-5: nvvm.shfl.sync  up
// CHECK:         llvm.intr.maxnum
// CHECK:         nvvm.shfl.sync  up
// CHECK-NOT:     nvvm.shfl.sync
// CHECK-LABEL: llvm.func @scan_min_short
// CHECK-COUNT-2: nvvm.shfl.sync  up
// CHECK:         nvvm.shfl.sync  up
// CHECK-NOT:     nvvm.shfl.sync
// CHECK:         llvm.return
func.func @scan_max() attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %g = tile.alloc : !tile.buffer<32xf32, fragment, #tile.blocked<vector = 1>>
  tile.scan max %g, %g : !tile.buffer<32xf32, fragment, #tile.blocked<vector = 1>> -> !tile.buffer<32xf32, fragment, #tile.blocked<vector = 1>>
  return
}
func.func @scan_min_short() attributes {tile.kernel, tile.num_warps = 1 : i64} {
  %g = tile.alloc : !tile.buffer<32xf32, fragment, #tile.blocked<vector = 8>>
  tile.scan min %g, %g : !tile.buffer<32xf32, fragment, #tile.blocked<vector = 8>> -> !tile.buffer<32xf32, fragment, #tile.blocked<vector = 8>>
  return
}

// -----

// zero_init (tile-fold-zero-init): C = A x B. On the wgmma engine the first
// k-step does not accumulate (scale-d zero) and takes an undefined
// accumulator, the others accumulate.
// CHECK-LABEL: llvm.func @gemm_zero_init
// CHECK:       %[[U:.*]] = llvm.mlir.undef : !llvm.struct<(f32, f32
// CHECK:       nvvm.wgmma.mma_async %{{.*}}, %{{.*}}, %[[U]], <m = 64, n = 64, k = 16>, D[<f32>, <zero>]
// CHECK-COUNT-3: nvvm.wgmma.mma_async {{.*}} D[<f32>, <one>]
// CHECK-NOT:   nvvm.wgmma.mma_async
// CHECK:       llvm.return
func.func @gemm_zero_init() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.shared_memory_bytes = 16384 : i64} {
  %a = tile.alloc {offset = 0 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %b = tile.alloc {offset = 8192 : i64} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %b, %c {transpose_b, zero_init} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}

// -----

// Register A (inline PTX): the scale-d predicate's operand is 0 for the
// first k-step, 1 after it.
// CHECK-LABEL: llvm.func @gemm_zero_init_rs
// CHECK:       llvm.extractvalue %{{.*}}[31]
// CHECK-NEXT:  %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:  llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async{{.*}}, %[[Z]] :
// CHECK:       llvm.extractvalue %{{.*}}[31]
// CHECK:       %[[O:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:  llvm.inline_asm has_side_effects {{.*}}wgmma.mma_async{{.*}}, %[[O]] :
func.func @gemm_zero_init_rs() attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.shared_memory_bytes = 8192 : i64} {
  %a = tile.alloc : !tile.buffer<64x32xf16, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %b = tile.alloc {offset = 0 : i64} : !tile.buffer<64x32xf16, shared, #tile.swizzle<64>>
  %c = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.gemm %a, %b, %c {transpose_b, zero_init} : !tile.buffer<64x32xf16, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>, !tile.buffer<64x32xf16, shared, #tile.swizzle<64>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  return
}

// -----

// mma.sync has no scale-d: the accumulators start as constant zeros.
// CHECK-LABEL: llvm.func @gemm_zero_init_mma
// CHECK:       %[[Z:.*]] = llvm.mlir.constant(0.000000e+00 : f32) : f32
// CHECK:       llvm.inline_asm {{.*}}mma.sync{{.*}}, %[[Z]], %[[Z]], %[[Z]], %[[Z]] :
func.func @gemm_zero_init_mma() attributes {tile.kernel, tile.num_warps = 1 : i64, tile.shared_memory_bytes = 1536 : i64} {
  %a = tile.alloc {offset = 0 : i64} : !tile.buffer<16x16xf16, shared>
  %b = tile.alloc {offset = 512 : i64} : !tile.buffer<16x16xf16, shared>
  %c = tile.alloc : !tile.buffer<16x16xf32, fragment, #tile.mma<warps = [1, 1]>>
  tile.gemm %a, %b, %c {zero_init} : !tile.buffer<16x16xf16, shared>, !tile.buffer<16x16xf16, shared>, !tile.buffer<16x16xf32, fragment, #tile.mma<warps = [1, 1]>>
  return
}

// -----

// tile.any: the body once per register (a 64x64 fragment in 4-wide blocked
// vectors over 128 threads: 32 registers), or-ed into the thread's vote,
// then one bar.red.or.pred over the block, whose result every thread gets.

// CHECK-LABEL: llvm.func @any_vote
// CHECK:       %[[F:.*]] = llvm.mlir.constant(false) : i1
// CHECK:       %[[V0:.*]] = llvm.fcmp "ogt"
// CHECK-NEXT:  llvm.or %[[F]], %[[V0]] : i1
// CHECK-COUNT-31: llvm.fcmp "ogt"
// CHECK:       %[[Z:.*]] = llvm.zext %{{.*}} : i1 to i32
// CHECK:       %[[R:.*]] = llvm.inline_asm has_side_effects {{.*}}"{ .reg .pred vi, vo; setp.ne.u32 vi, $1, 0; bar.red.or.pred vo, 0, vi; selp.u32 $0, 1, 0, vo; }", "=r,r" %[[Z]] : (i32) -> i32
// CHECK:       llvm.icmp "ne" %[[R]]
// CHECK-NOT:   tile.any
// CHECK:       llvm.return
func.func @any_vote(%p: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %half = arith.constant 0.5 : f32
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  %any = tile.any %f : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> {
  ^bb0(%i: index, %j: index, %x: f32):
    %big = arith.cmpf ogt, %x, %half : f32
    tile.yield %big : i1
  }
  %r = arith.extui %any : i1 to i32
  %o = tile.alloc : !tile.buffer<1xi32, fragment, #tile.blocked<vector = 1>>
  tile.fill %o, %r : !tile.buffer<1xi32, fragment, #tile.blocked<vector = 1>>, i32
  %P = tile.view %p[%c1] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  tile.copy %o to %P[%c0] : !tile.buffer<1xi32, fragment, #tile.blocked<vector = 1>> to !tile.buffer<?xi32, global>
  return
}

// -----

// tile.warp_any: the same per-thread fold as tile.any, then one vote over
// the warp's lanes (vote.sync.ballot, all lanes), no barrier.

// CHECK-LABEL: llvm.func @warp_any_vote
// CHECK:       %[[F:.*]] = llvm.mlir.constant(false) : i1
// CHECK:       %[[V0:.*]] = llvm.fcmp "ogt"
// CHECK-NEXT:  llvm.or %[[F]], %[[V0]] : i1
// CHECK-COUNT-31: llvm.fcmp "ogt"
// CHECK:       %[[V:.*]] = llvm.or
// CHECK:       %[[M:.*]] = llvm.mlir.constant(-1 : i32) : i32
// CHECK-NEXT:  %[[B:.*]] = nvvm.vote.ballot.sync %[[M]], %[[V]] : i32
// CHECK-NEXT:  llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:  llvm.icmp "ne" %[[B]]
// CHECK-NOT:   bar.red
// CHECK-NOT:   nvvm.barrier
// CHECK:       llvm.return
func.func @warp_any_vote(%p: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %half = arith.constant 0.5 : f32
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  %any = tile.warp_any %f : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> {
  ^bb0(%i: index, %j: index, %x: f32):
    %big = arith.cmpf ogt, %x, %half : f32
    tile.yield %big : i1
  }
  %r = arith.extui %any : i1 to i32
  %o = tile.alloc : !tile.buffer<1xi32, fragment, #tile.blocked<vector = 1>>
  tile.fill %o, %r : !tile.buffer<1xi32, fragment, #tile.blocked<vector = 1>>, i32
  %P = tile.view %p[%c1] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  tile.copy %o to %P[%c0] : !tile.buffer<1xi32, fragment, #tile.blocked<vector = 1>> to !tile.buffer<?xi32, global>
  return
}

// -----

// tile.any with a named barrier (a producer task's vote,
// tile-warp-specialize): bar.red.or.pred over that barrier's threads.

// CHECK-LABEL: llvm.func @any_vote_named
// CHECK:       llvm.inline_asm has_side_effects {{.*}}"{ .reg .pred vi, vo; setp.ne.u32 vi, $1, 0; bar.red.or.pred vo, 2, 128, vi; selp.u32 $0, 1, 0, vo; }", "=r,r"
// CHECK-NOT:   bar.red.or.pred vo, 0,
func.func @any_vote_named(%p: !tile.ptr<i32>) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %half = arith.constant 0.5 : f32
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>>
  %any = tile.any %f : !tile.buffer<64x64xf32, fragment, #tile.blocked<vector = 4>> {
  ^bb0(%i: index, %j: index, %x: f32):
    %big = arith.cmpf ogt, %x, %half : f32
    tile.yield %big : i1
  } {id = 2 : i64, threads = 128 : i64}
  %r = arith.extui %any : i1 to i32
  %o = tile.alloc : !tile.buffer<1xi32, fragment, #tile.blocked<vector = 1>>
  tile.fill %o, %r : !tile.buffer<1xi32, fragment, #tile.blocked<vector = 1>>, i32
  %P = tile.view %p[%c1] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  tile.copy %o to %P[%c0] : !tile.buffer<1xi32, fragment, #tile.blocked<vector = 1>> to !tile.buffer<?xi32, global>
  return
}
