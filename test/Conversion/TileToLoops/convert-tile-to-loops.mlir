// RUN: gdn-opt %s -split-input-file --convert-tile-to-loops | FileCheck %s --implicit-check-not=__tile_flag_
// RUN: gdn-opt %s -split-input-file --convert-tile-to-loops=poison=false | FileCheck %s --check-prefix=NOPOISON
// RUN: gdn-opt %s -split-input-file --convert-tile-to-loops=flag-hooks=true | FileCheck %s --check-prefix=HOOKS

// A kernel: tile types become memrefs, the grid comes from @__tile_grid, a
// view is a reinterpret_cast with row-major strides, a masked copy loads
// only inside the view and zero-fills the rest, the barrier is gone.

// CHECK: memref.global "private" @__tile_grid : memref<6xindex>
// CHECK-LABEL: func.func @__tile_set_grid(
// CHECK-SAME: %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index, %{{.*}}: index)
// CHECK-COUNT-6: memref.store
// CHECK-LABEL: func.func @k(
// CHECK-SAME: %[[P:.*]]: memref<?xf16> {gdn.name = "x"}, %[[N:.*]]: i32 {gdn.name = "n"}) attributes {gdn.cpu_kernel} {
// CHECK: %[[BUF:.*]] = memref.alloca() : memref<64x128xf16>
// CHECK: %[[NAN:.*]] = arith.constant 0x7E00 : f16
// CHECK: scf.for
// CHECK: scf.for
// CHECK: memref.store %[[NAN]], %[[BUF]]
// CHECK: %[[S:.*]] = memref.cast %[[BUF]] : memref<64x128xf16> to memref<64x128xf16, strided<[?, ?], offset: ?>>
// CHECK: %[[G:.*]] = memref.get_global @__tile_grid
// CHECK: %[[BX:.*]] = memref.load %[[G]][%{{.*}}] : memref<6xindex>
// CHECK: %[[G2:.*]] = memref.get_global @__tile_grid
// CHECK: memref.load %[[G2]][%c4{{.*}}] : memref<6xindex>
// CHECK: %[[X:.*]] = memref.reinterpret_cast %[[P]] to offset: [%{{.*}}], sizes: [%{{.*}}, 128], strides: [%{{.*}}, %{{.*}}] : memref<?xf16> to memref<?x128xf16, strided<[?, ?], offset: ?>>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %c64
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %c128
// CHECK: %[[R:.*]] = arith.addi %[[BX]], %[[I]] : index
// CHECK: %[[DIM:.*]] = memref.dim %[[X]]
// CHECK: %[[IN0:.*]] = arith.cmpi ult, %[[R]], %[[DIM]] : index
// CHECK: %[[IN:.*]] = arith.andi %[[IN0]], %{{.*}} : i1
// CHECK: %[[V:.*]] = scf.if %[[IN]] -> (f16) {
// CHECK: memref.load %[[X]]
// CHECK: } else {
// CHECK: arith.constant 0.000000e+00 : f16
// CHECK: memref.store %[[V]], %[[S]][%[[I]], %[[J]]]
// CHECK-NOT: tile.
// CHECK: return

// NOPOISON-LABEL: func.func @k(
// NOPOISON: memref.alloca() : memref<64x128xf16>
// NOPOISON-NOT: 0x7E00
// NOPOISON: memref.cast
func.func @k(%p: !tile.ptr<f16> {tile.name = "x"}, %n: i32 {tile.name = "n"})
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %bx = tile.program_id x
  %ny = tile.num_programs y
  %m = arith.index_cast %n : i32 to index
  %X = tile.view %p[%m] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  %s = tile.alloc : !tile.buffer<64x128xf16, shared>
  tile.copy %X[%bx, %c0] to %s {masked} : !tile.buffer<?x128xf16, global> to !tile.buffer<64x128xf16, shared>
  tile.barrier
  return
}

// -----

// An unmasked store to global memory checks its bounds (cf.assert); the
// conversion rounds to the destination type.

// CHECK-LABEL: func.func @store
// CHECK: scf.for
// CHECK: scf.for
// CHECK: cf.assert %{{.*}}, "tile.copy at {{.*}}: store out of bounds"
// CHECK: %[[V:.*]] = memref.load
// CHECK: %[[H:.*]] = arith.truncf %[[V]] : f32 to bf16
// CHECK: memref.store %[[H]]
func.func @store(%p: !tile.ptr<bf16>, %n: index) {
  %c0 = arith.constant 0 : index
  %Y = tile.view %p[%n] : !tile.ptr<bf16> -> !tile.buffer<?x16xbf16, global>
  %f = tile.alloc : !tile.buffer<16x16xf32, fragment>
  %one = arith.constant 1.0 : f32
  tile.fill %f, %one : !tile.buffer<16x16xf32, fragment>, f32
  tile.copy %f to %Y[%c0, %c0] : !tile.buffer<16x16xf32, fragment> to !tile.buffer<?x16xbf16, global>
  return
}

// -----

// tile.gemm: f32 accumulation in k order; b_block_lower = 16 stops the k
// loop at the end of column n's block, transpose_b reads B[n][k].

// CHECK-LABEL: func.func @gemm
// CHECK: scf.for %[[M:.*]] = %{{.*}} to %c64
// CHECK: scf.for %[[N:.*]] = %{{.*}} to %c32
// CHECK: %[[C0:.*]] = memref.load %[[C:.*]][%[[M]], %[[N]]]
// CHECK: %[[BLK:.*]] = arith.divui %[[N]], %c16
// CHECK: %[[BLK1:.*]] = arith.addi %[[BLK]], %{{.*}}
// CHECK: %[[END:.*]] = arith.muli %[[BLK1]], %c16
// CHECK: %[[KEND:.*]] = arith.minui %[[END]], %c32
// CHECK: %[[SUM:.*]] = scf.for %[[K:.*]] = %{{.*}} to %[[KEND]] step %{{.*}} iter_args(%[[ACC:.*]] = %[[C0]]) -> (f32) {
// CHECK: %[[A:.*]] = memref.load %{{.*}}[%[[M]], %[[K]]]
// CHECK: %[[B:.*]] = memref.load %{{.*}}[%[[N]], %[[K]]]
// CHECK: %[[AF:.*]] = arith.extf %[[A]] : f16 to f32
// CHECK: %[[BF:.*]] = arith.extf %[[B]] : f16 to f32
// CHECK: %[[PR:.*]] = arith.mulf %[[AF]], %[[BF]]
// CHECK: %[[NX:.*]] = arith.addf %[[ACC]], %[[PR]]
// CHECK: scf.yield %[[NX]]
// CHECK: memref.store %[[SUM]], %[[C]][%[[M]], %[[N]]]
func.func @gemm(%a: !tile.buffer<64x32xf16, shared>, %b: !tile.buffer<32x32xf16, shared>,
                %c: !tile.buffer<64x32xf32, fragment>) {
  tile.gemm %a, %b, %c {transpose_b, b_block_lower = 16 : i64} : !tile.buffer<64x32xf16, shared>, !tile.buffer<32x32xf16, shared>, !tile.buffer<64x32xf32, fragment>
  return
}

// -----

// tile.copy {diagonal}: element (i, i) of the fragment, converted, to [i].

// CHECK-LABEL: func.func @copy_diagonal
// CHECK: scf.for %[[I:.*]] =
// CHECK: scf.for %[[J:.*]] =
// CHECK: %[[EQ:.*]] = arith.cmpi eq, %[[I]], %[[J]] : index
// CHECK: scf.if %[[EQ]] {
// CHECK: %[[X:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK: %[[H:.*]] = arith.truncf %[[X]] : f32 to f16
// CHECK: memref.store %[[H]], %{{.*}}[%[[I]]] : memref<8xf16
func.func @copy_diagonal(%f: !tile.buffer<8x8xf32, fragment>, %s: !tile.buffer<8xf16, shared>) {
  tile.copy %f to %s {diagonal} : !tile.buffer<8x8xf32, fragment> to !tile.buffer<8xf16, shared>
  return
}

// -----

// tile.map: the body runs in the innermost loop on loaded elements (the
// coordinates first with `indexed`); every input is loaded before the
// outputs are stored (in place).

// CHECK-LABEL: func.func @map
// CHECK: scf.for %[[I:.*]] =
// CHECK: scf.for %[[J:.*]] =
// CHECK: %[[X:.*]] = memref.load %[[BUF:.*]][%[[I]], %[[J]]]
// CHECK: %[[L:.*]] = arith.cmpi uge, %[[I]], %[[J]] : index
// CHECK: %[[R:.*]] = arith.select %[[L]], %[[X]], %{{.*}} : f32
// CHECK: memref.store %[[R]], %[[BUF]][%[[I]], %[[J]]]
// CHECK-NOT: tile.yield
func.func @map(%x: !tile.buffer<16x16xf32, fragment>) {
  %zero = arith.constant 0.0 : f32
  tile.map indexed ins(%x : !tile.buffer<16x16xf32, fragment>) outs(%x : !tile.buffer<16x16xf32, fragment>) {
  ^bb0(%i: index, %j: index, %a: f32):
    %lower = arith.cmpi uge, %i, %j : index
    %r = arith.select %lower, %a, %zero : f32
    tile.yield %r : f32
  }
  return
}

// -----

// tile.any: the body in the innermost loop, its i1 or-ed into a
// one-element accumulator read after the loops (the block's vote).

// CHECK-LABEL: func.func @any
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<1xi1>
// CHECK: memref.store %false, %[[ACC]][%c0]
// CHECK: scf.for %[[I:.*]] =
// CHECK: scf.for %[[J:.*]] =
// CHECK: %[[X:.*]] = memref.load %{{.*}}[%[[I]], %[[J]]]
// CHECK: %[[B:.*]] = arith.cmpf ogt, %[[X]], %{{.*}} : f32
// CHECK: %[[OLD:.*]] = memref.load %[[ACC]][%c0]
// CHECK: %[[NEW:.*]] = arith.ori %[[OLD]], %[[B]] : i1
// CHECK: memref.store %[[NEW]], %[[ACC]][%c0]
// CHECK: %[[R:.*]] = memref.load %[[ACC]][%c0]
// CHECK: return %[[R]] : i1
// CHECK-NOT: tile.yield
func.func @any(%x: !tile.buffer<16x16xf32, fragment>) -> i1 {
  %half = arith.constant 0.5 : f32
  %r = tile.any %x : !tile.buffer<16x16xf32, fragment> {
  ^bb0(%i: index, %j: index, %a: f32):
    %big = arith.cmpf ogt, %a, %half : f32
    tile.yield %big : i1
  }
  return %r : i1
}

// tile.warp_any: without warps, the whole fragment's vote (as tile.any).

// CHECK-LABEL: func.func @warp_any
// CHECK: %[[ACC:.*]] = memref.alloca() : memref<1xi1>
// CHECK: scf.for
// CHECK: scf.for
// CHECK: arith.ori
// CHECK: %[[R:.*]] = memref.load %[[ACC]][%c0]
// CHECK: return %[[R]] : i1
func.func @warp_any(%x: !tile.buffer<16x16xf32, fragment>) -> i1 {
  %half = arith.constant 0.5 : f32
  %r = tile.warp_any %x : !tile.buffer<16x16xf32, fragment> {
  ^bb0(%i: index, %j: index, %a: f32):
    %big = arith.cmpf ogt, %a, %half : f32
    tile.yield %big : i1
  }
  return %r : i1
}

// tile.tril_inverse {lower_only}: zeros above the diagonal only inside the
// 16 x 16 diagonal blocks (from row 16 (c / 16) of column c), then forward
// substitution down the column.

// CHECK-LABEL: func.func @inverse
// CHECK: scf.for %[[C:.*]] = %{{.*}} to %c32
// CHECK: %[[B:.*]] = arith.divui %[[C]], %c16
// CHECK: %[[FROM:.*]] = arith.muli %[[B]], %c16
// CHECK: scf.for %[[Z:.*]] = %[[FROM]] to %[[C]]
// CHECK: memref.store %{{.*}}, %[[T:.*]][%[[Z]], %[[C]]]
// CHECK: scf.for %[[I:.*]] = %[[C]] to %c32
// CHECK: %[[D:.*]] = arith.cmpi eq, %[[I]], %[[C]]
// CHECK: scf.for %[[K:.*]] = %[[C]] to %[[I]]
// CHECK: memref.load %{{.*}}[%[[I]], %[[K]]]
// CHECK: memref.load %[[T]][%[[K]], %[[C]]]
// CHECK: arith.subf
// CHECK: memref.store %{{.*}}, %[[T]][%[[I]], %[[C]]]
func.func @inverse(%l: !tile.buffer<32x32xf32, shared>, %t: !tile.buffer<32x32xf32, shared>) {
  tile.tril_inverse %l, %t {lower_only} : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
  return
}

// -----

// Flags: a release is a store; a wait checks that the flag was released by
// an earlier block (blocks run in order). A tile.for is an scf.for, its
// allocation hoisted to the function's entry.

// CHECK-LABEL: func.func @flags
// CHECK: memref.alloca() : memref<4xf32>
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: %[[F:.*]] = memref.load %[[FL:.*]][%[[I]]] : memref<?xi32, strided<[?], offset: ?>>
// CHECK: %[[D:.*]] = arith.subi %[[F]], %{{.*}} : i32
// CHECK: %[[OK:.*]] = arith.cmpi sge, %[[D]], %{{.*}} : i32
// CHECK: cf.assert %[[OK]], "tile.flag_wait at {{.*}}: flag not released by an earlier block (blocks run in order on the CPU)"
// CHECK: memref.store %{{.*}}, %[[FL]][%[[I]]]
// CHECK: }
// With flag-hooks a wait loops on the runner's @__tile_flag_stalled while
// the flag is not reached (aborting when it says nothing is left to run),
// and a release calls @__tile_flag_released after its store; the hooks are
// declared once, private, at the top of the module. Without flag-hooks
// neither is declared.
// HOOKS: func.func private @__tile_flag_released()
// HOOKS-NEXT: func.func private @__tile_flag_stalled() -> i1
// HOOKS-LABEL: func.func @flags
// HOOKS: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// HOOKS: scf.while : () -> () {
// HOOKS: %[[F:.*]] = memref.load %[[FL:.*]][%[[I]]] : memref<?xi32, strided<[?], offset: ?>>
// HOOKS: %[[D:.*]] = arith.subi %[[F]], %{{.*}} : i32
// HOOKS: %[[OK:.*]] = arith.cmpi sge, %[[D]], %{{.*}} : i32
// HOOKS: %[[NOT:.*]] = arith.xori %[[OK]], %{{.*}} : i1
// HOOKS: scf.condition(%[[NOT]])
// HOOKS: } do {
// HOOKS: %[[RAN:.*]] = func.call @__tile_flag_stalled() : () -> i1
// HOOKS: cf.assert %[[RAN]], "tile.flag_wait at {{.*}}: flag never released (no block that could release it is left to run)"
// HOOKS: scf.yield
// HOOKS: }
// HOOKS: memref.store %{{.*}}, %[[FL]][%[[I]]]
// HOOKS-NEXT: func.call @__tile_flag_released() : () -> ()
// HOOKS: }
func.func @flags(%p: !tile.ptr<i32>, %n: index, %epoch: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %F = tile.view %p[%n] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  tile.for %i = %c0 to %n step %c1 stages 1 {
    %s = tile.alloc : !tile.buffer<4xf32, shared>
    tile.flag_wait %F[%i], %epoch : !tile.buffer<?xi32, global>
    tile.flag_release %F[%i], %epoch : !tile.buffer<?xi32, global>
  }
  return
}

// -----

// A producer task runs in place; an mbarrier element counts completed
// phases (init: 0; an arrive completes one); a wait for parity p checks
// that the current phase's parity differs from p.

// CHECK-LABEL: func.func @handoff
// CHECK: %[[BAR:.*]] = memref.cast %{{.*}} : memref<2xi64> to memref<2xi64, strided<[?], offset: ?>>
// CHECK: scf.for
// CHECK: memref.store %{{.*}}, %[[BAR]]
// CHECK: %[[N:.*]] = memref.load %[[BAR]][%{{.*}}]
// CHECK: %[[N1:.*]] = arith.addi %[[N]], %{{.*}} : i64
// CHECK: memref.store %[[N1]], %[[BAR]]
// CHECK: %[[M:.*]] = memref.load %[[BAR]][%{{.*}}]
// CHECK: %[[MI:.*]] = arith.index_cast %[[M]] : i64 to index
// CHECK: %[[CUR:.*]] = arith.remui %[[MI]], %c2
// CHECK: %[[WANT:.*]] = arith.remui %{{.*}}, %c2
// CHECK: %[[DONE:.*]] = arith.cmpi ne, %[[CUR]], %[[WANT]] : index
// CHECK: cf.assert %[[DONE]], "tile.mbarrier_wait at {{.*}}: the phase is not complete (blocks and roles run in program order on the CPU)"
// CHECK-NOT: tile.
func.func @handoff(%p: index) attributes {tile.kernel, tile.num_warps = 8 : i64,
    tile.warp_specialize = {producer_registers = 104 : i64, consumer_registers = 200 : i64}} {
  %c0 = arith.constant 0 : index
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  tile.producer {
    tile.mbarrier_init %full {count = 1} : !tile.buffer<2xi64, shared>
  }
  tile.barrier
  tile.producer_task warps 4 {
    tile.barrier
    tile.producer {
      tile.mbarrier_arrive %full[%c0] : !tile.buffer<2xi64, shared>
    }
  }
  tile.mbarrier_wait %full[%c0], %p : !tile.buffer<2xi64, shared>
  return
}

// -----

// A deferred grid wait has nothing to wait for on the CPU (kernels run one
// after another): it is dropped, the branch around it left empty.

// CHECK-LABEL: func.func @grid_wait
// CHECK: scf.if %{{.*}} {
// CHECK-NEXT: }
// CHECK-NOT: tile.grid_wait
func.func @grid_wait(%c: i1) attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.grid_dependency = "deferred"} {
  scf.if %c {
    tile.grid_wait
  }
  return
}
