// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-pipeline))' | FileCheck %s

// tile.copy_engine = "tma": the loop's global->shared copies become TMA
// loads on a ring of full/empty mbarriers; the kernel gains one tensor-map
// argument per tensor and box.

// Form 1: a top-level loop whose body reads the stages synchronously
// (mma.sync): each iteration waits for its stage's full barrier, runs the
// body, releases the stage (empty barrier), then the producer thread issues
// the load N-1 iterations ahead: wait until that stage is empty (parity of
// the round before, so a fresh ring counts as empty), announce the bytes,
// issue the TMA loads.

// CHECK-LABEL: func.func @sync_body
// CHECK-SAME:    %{{.*}}: !tile.tensormap<128x64xf16, swizzle = 128> {tile.name = "A_tma", tile.tensor_map = {base = "A", dims = ["M", "K"], strides = ["K"]}}
// CHECK-SAME:    %{{.*}}: !tile.tensormap<64x64xf16, swizzle = 128> {tile.name = "B_tma", tile.tensor_map = {base = "B", dims = ["K", "N"], strides = ["N"]}}
// CHECK-NEXT:  %[[FULL:.*]] = tile.alloc : !tile.buffer<3xi64, shared>
// CHECK-NEXT:  %[[EMPTY:.*]] = tile.alloc : !tile.buffer<3xi64, shared>
// CHECK-NEXT:  tile.producer {
// CHECK-NEXT:    tile.mbarrier_init %[[FULL]] {count = 1 : i64}
// CHECK-NEXT:    tile.mbarrier_init %[[EMPTY]] {count = 128 : i64}
// CHECK-NEXT:  }
// CHECK-NEXT:  tile.barrier
// CHECK:       %[[SA:.*]] = tile.alloc : !tile.buffer<3x128x64xf16, shared, #tile.swizzle<128>>
// CHECK:       %[[SB:.*]] = tile.alloc : !tile.buffer<3x64x128xf16, shared, #tile.swizzle<128>>
// CHECK:       %[[TRIP:.*]] = arith.ceildivsi
// Two prologue steps.
// CHECK:       scf.if
// CHECK:         tile.producer {
// CHECK-NEXT:      tile.mbarrier_wait %[[EMPTY]]
// CHECK-NEXT:      tile.mbarrier_arrive %[[FULL]][%{{.*}}] {expect_tx = 32768 : i64}
// CHECK-NEXT:      tile.tma_load %arg7[%{{.*}}, %{{.*}}] to %{{.*}}, %[[FULL]]
// CHECK-NEXT:      tile.tma_load %arg8[%{{.*}}, %{{.*}}] to %{{.*}}, %[[FULL]]
// CHECK-NEXT:    }
// CHECK:       scf.if
// CHECK:         tile.producer {
// CHECK:       scf.for %[[IV:.*]] =
// CHECK:         %[[G:.*]] = arith.addi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[ST:.*]] = arith.remsi %[[G]], %{{.*}} : index
// CHECK:         tile.mbarrier_wait %[[FULL]][%[[ST]]], %{{.*}}
// CHECK:         tile.gemm %{{.*}}, %{{.*}}, %{{.*}} : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
// CHECK-NEXT:    tile.mbarrier_arrive %[[EMPTY]][%[[ST]]] :
// CHECK:         scf.if
// CHECK:           tile.producer {
// CHECK:       }
// CHECK-NOT:   tile.gemm_wait
// CHECK-NOT:   tile.copy
// CHECK:       return
func.func @sync_body(%pa: !tile.ptr<f16> {tile.name = "A"}, %pb: !tile.ptr<f16> {tile.name = "B"},
                     %M: i32 {tile.name = "M"}, %N: i32 {tile.name = "N"}, %K: i32 {tile.name = "K"},
                     %m0: index, %bn: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  // B's innermost (contiguous) coordinate must be a provable multiple of
  // 16 bytes: a block index times 128 is.
  %c128 = arith.constant 128 : index
  %n0 = arith.muli %bn, %c128 : index
  %m = arith.index_cast %M : i32 to index
  %n = arith.index_cast %N : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %B = tile.view %pb[%k, %n] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %sA = tile.alloc : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
  %sB = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [2, 2]>>
  tile.for %kk = %c0 to %k step %c64 stages 3 {
    tile.copy %A[%m0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
    tile.copy %B[%kk, %n0] to %sB : !tile.buffer<?x?xf16, global> to !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
    tile.gemm %sA, %sB, %acc : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>, !tile.buffer<128x128xf32, fragment, #tile.mma<warps = [2, 2]>>
  }
  return
}

// -----

// Form 2: wgmma kernels keep one k-step's MMAs in flight: the gemm becomes
// async, a wait leaves one group pending, and the stage of the previous
// iteration (whose group just retired) is released; after the loop all
// groups retire and the last stage is released. In a persistent loop the
// ring's iterations continue across tiles: g = tile iteration * trip + i.

// CHECK-LABEL: func.func @async_persistent
// CHECK:       scf.for %[[T:.*]] = %[[FIRST:.*]] to %{{.*}} step %[[STRIDE:.*]] {
// CHECK:         %[[SPAN:.*]] = arith.subi %{{.*}}, %{{.*}} : index
// CHECK-NEXT:    %[[TRIP:.*]] = arith.ceildivsi %[[SPAN]], %{{.*}} : index
// CHECK:         %[[REL:.*]] = arith.subi %[[T]], %[[FIRST]] : index
// CHECK-NEXT:    %[[TI:.*]] = arith.divsi %[[REL]], %[[STRIDE]] : index
// CHECK-NEXT:    %[[BASE:.*]] = arith.muli %[[TI]], %[[TRIP]] : index
// CHECK:         scf.for
// CHECK:           tile.mbarrier_wait %[[FULL:.*]][%{{.*}}], %{{.*}}
// CHECK:           tile.gemm %{{.*}}, %{{.*}}, %{{.*}} {async, transpose_b}
// CHECK-NEXT:      tile.gemm_wait {pending = 1 : i64}
// CHECK:           %[[NOTFIRST:.*]] = arith.cmpi sgt
// CHECK-NEXT:      scf.if %[[NOTFIRST]] {
// CHECK-NEXT:        arith.subi
// CHECK-NEXT:        %[[PREV:.*]] = arith.remsi
// CHECK-NEXT:        tile.mbarrier_arrive %[[EMPTY:.*]][%[[PREV]]] :
// CHECK-NEXT:      }
// CHECK:           tile.producer {
// CHECK:         tile.gemm_wait {pending = 0 : i64}
// CHECK:         scf.if
// CHECK:           tile.mbarrier_arrive %[[EMPTY]]
// CHECK:         tile.copy %{{.*}} to %{{.*}}[%{{.*}}, %{{.*}}] : !tile.buffer<128x256xf32
func.func @async_persistent(%pa: !tile.ptr<bf16> {tile.name = "A"}, %pb: !tile.ptr<bf16> {tile.name = "B"},
                            %pc: !tile.ptr<f32> {tile.name = "C"},
                            %M: i32 {tile.name = "M"}, %N: i32 {tile.name = "N"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 8 : i64, tile.copy_engine = "tma", tile.mma_engine = "wgmma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  %zero = arith.constant 0.0 : f32
  %m = arith.index_cast %M : i32 to index
  %n = arith.index_cast %N : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<bf16> -> !tile.buffer<?x?xbf16, global>
  %B = tile.view %pb[%n, %k] : !tile.ptr<bf16> -> !tile.buffer<?x?xbf16, global>
  %C = tile.view %pc[%m, %n] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %first = tile.program_id x
  %stride = tile.num_programs x
  %sA = tile.alloc : !tile.buffer<128x64xbf16, shared, #tile.swizzle<128>>
  %sB = tile.alloc : !tile.buffer<256x64xbf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<128x256xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
  tile.for %t = %first to %n step %stride stages 1 {
    %n0 = arith.muli %t, %c256 : index
    tile.fill %acc, %zero : !tile.buffer<128x256xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>, f32
    tile.for %kk = %c0 to %k step %c64 stages 4 {
      tile.copy %A[%c0, %kk] to %sA : !tile.buffer<?x?xbf16, global> to !tile.buffer<128x64xbf16, shared, #tile.swizzle<128>>
      tile.copy %B[%n0, %kk] to %sB : !tile.buffer<?x?xbf16, global> to !tile.buffer<256x64xbf16, shared, #tile.swizzle<128>>
      tile.gemm %sA, %sB, %acc {transpose_b} : !tile.buffer<128x64xbf16, shared, #tile.swizzle<128>>, !tile.buffer<256x64xbf16, shared, #tile.swizzle<128>>, !tile.buffer<128x256xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
    }
    tile.copy %acc to %C[%c0, %n0] : !tile.buffer<128x256xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>> to !tile.buffer<?x?xf32, global>
  }
  return
}

// -----

// Form 3: a tensor reached through tile.take keeps all its dimensions; the
// taken one gets a box of 1 and the take's index as its coordinate. Sizes
// that are products of launch parameters become expressions.

// CHECK-LABEL: func.func @taken_head
// CHECK-SAME:    !tile.tensormap<64x1x64xf16, swizzle = 128> {tile.name = "q_tma", tile.tensor_map = {base = "q", dims = ["(B)*(T)", "H", "128"], strides = ["(H)*(128)", "128"]}}
// CHECK:         tile.tma_load %{{.*}}[%{{.*}}, %[[HEAD:.*]], %{{.*}}] to
func.func @taken_head(%pq: !tile.ptr<f16> {tile.name = "q"}, %B: i32 {tile.name = "B"}, %T: i32 {tile.name = "T"},
                      %H: i32 {tile.name = "H"}, %head: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %b = arith.index_cast %B : i32 to index
  %t = arith.index_cast %T : i32 to index
  %h = arith.index_cast %H : i32 to index
  %bt = arith.muli %b, %t : index
  %q = tile.view %pq[%bt, %h] : !tile.ptr<f16> -> !tile.buffer<?x?x128xf16, global>
  %qh = tile.take %q[%head] dims [1] : !tile.buffer<?x?x128xf16, global> -> !tile.buffer<?x128xf16, global>
  %s = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  %f = tile.alloc : !tile.buffer<64x128xf32, fragment, #tile.blocked<vector = 4>>
  tile.for %i = %c0 to %bt step %c64 stages 2 {
    tile.copy %qh[%i, %c0] to %s : !tile.buffer<?x128xf16, global> to !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
    tile.copy %s to %f : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>> to !tile.buffer<64x128xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// The 64-byte swizzle is the TMA unit's too: a 64x32 f16 tile (64-byte
// rows) is one box with swizzle = 64.
// CHECK-LABEL: func.func @swizzle64
// CHECK-SAME:    %{{.*}}: !tile.tensormap<64x32xf16, swizzle = 64> {tile.name = "A_tma"
// CHECK:         tile.tma_load %{{.*}} : !tile.tensormap<64x32xf16, swizzle = 64>, !tile.buffer<64x32xf16, shared, #tile.swizzle<64>>
func.func @swizzle64(%pa: !tile.ptr<f16> {tile.name = "A"}, %M: i32 {tile.name = "M"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c32 = arith.constant 32 : index
  %m = arith.index_cast %M : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<64x32xf16, shared, #tile.swizzle<64>>
  %f = tile.alloc : !tile.buffer<64x32xf32, fragment, #tile.blocked<vector = 4>>
  tile.for %kk = %c0 to %k step %c32 stages 2 {
    tile.copy %A[%c0, %kk] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x32xf16, shared, #tile.swizzle<64>>
    tile.copy %s to %f : !tile.buffer<64x32xf16, shared, #tile.swizzle<64>> to !tile.buffer<64x32xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// Form 4: a masked copy from a head of a packed sequence (tile.take, then
// tile.narrow to [bos, bos + len)). The tensor map covers the whole tensor;
// the narrow's start is added to the row coordinate. TMA fills zeros only
// past the tensor's end, so rows past the sequence's end (the next
// sequence's tokens) are zeroed after the stage has landed, in iterations
// whose tile crosses it, then a barrier; a 1-D f32 tile (a per-token
// scalar of the same sequence, rows padded to 16 bytes: a ceiling quotient
// in the tensor's size expression) the same way. Its coordinate is along
// the contiguous dimension, so its window starts at bos rounded down to a
// multiple of 4 (16 bytes), which the pass proves through the arith.andi.

// CHECK-LABEL: func.func @packed_sequence
// CHECK-SAME:    %{{[^:]*}}: index, %[[BOS:[^:]*]]: index, %[[LEN:[^:]*]]: index
// CHECK-SAME:    !tile.tensormap<64x1x64xf16, swizzle = 128> {tile.name = "k_tma", tile.tensor_map = {base = "k", dims = ["T", "H", "128"], strides = ["(H)*(128)", "128"]}}
// CHECK-SAME:    !tile.tensormap<1x64xf32, swizzle = 0> {tile.name = "gamma_tma", tile.tensor_map = {base = "gamma", dims = ["H", "(cdiv(T, 4))*(4)"], strides = ["(cdiv(T, 4))*(4)"]}}
// CHECK:         tile.producer {
// CHECK:           tile.mbarrier_arrive %{{.*}} {expect_tx = 16640 : i64}
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %[[LEN]] step %{{.*}} {
// CHECK:           tile.mbarrier_wait %[[FULL:.*]][%[[CUR:.*]]], %{{.*}}
// CHECK-NEXT:      %[[VALID:.*]] = arith.subi %[[LEN]], %[[I]] : index
// CHECK-NEXT:      %[[C64:.*]] = arith.constant 64 : index
// CHECK-NEXT:      %[[P0:.*]] = arith.cmpi slt, %[[VALID]], %[[C64]] : index
// CHECK:           %[[VALID2:.*]] = arith.subi %{{.*}}, %[[I]] : index
// CHECK:           %[[ANY:.*]] = arith.ori %[[P0]], %{{.*}} : i1
// CHECK-NEXT:      scf.if %[[ANY]] {
// CHECK-NEXT:        %[[SK:.*]] = tile.slice %{{.*}}[%[[CUR]]]
// CHECK-NEXT:        tile.zero_tail %[[SK]] from %[[VALID]] : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
// CHECK-NEXT:        %[[SG:.*]] = tile.slice %{{.*}}[%[[CUR]]]
// CHECK-NEXT:        tile.zero_tail %[[SG]] from %[[VALID2]] : !tile.buffer<64xf32, shared>
// CHECK-NEXT:        tile.barrier
// CHECK-NEXT:      }
// CHECK:           scf.if
// CHECK:             %[[ROW:.*]] = arith.addi %[[BOS]], %{{.*}} : index
// CHECK:             tile.producer {
// CHECK:               tile.tma_load %{{.*}}[%[[ROW]], %{{.*}}, %{{.*}}] to
// CHECK:               tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}] to
func.func @packed_sequence(%pk: !tile.ptr<f16> {tile.name = "k"}, %pg: !tile.ptr<f32> {tile.name = "gamma"},
                           %T: i32 {tile.name = "T"}, %H: i32 {tile.name = "H"},
                           %head: index, %bos: index, %len: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %h = arith.index_cast %H : i32 to index
  %k = tile.view %pk[%t, %h] : !tile.ptr<f16> -> !tile.buffer<?x?x128xf16, global>
  %kh = tile.take %k[%head] dims [1] : !tile.buffer<?x?x128xf16, global> -> !tile.buffer<?x128xf16, global>
  %ks = tile.narrow %kh[%bos, %len] dim 0 : !tile.buffer<?x128xf16, global> -> !tile.buffer<?x128xf16, global>
  %c4 = arith.constant 4 : index
  %tq = arith.ceildivui %t, %c4 : index
  %tp = arith.muli %tq, %c4 : index
  %g = tile.view %pg[%h, %tp] : !tile.ptr<f32> -> !tile.buffer<?x?xf32, global>
  %gh = tile.take %g[%head] dims [0] : !tile.buffer<?x?xf32, global> -> !tile.buffer<?xf32, global>
  %cm4 = arith.constant -4 : index
  %bos4 = arith.andi %bos, %cm4 : index
  %goff = arith.subi %bos, %bos4 : index
  %glen = arith.addi %len, %goff : index
  %gs = tile.narrow %gh[%bos4, %glen] dim 0 : !tile.buffer<?xf32, global> -> !tile.buffer<?xf32, global>
  %sk = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  %sg = tile.alloc : !tile.buffer<64xf32, shared>
  %f = tile.alloc : !tile.buffer<64x128xf32, fragment, #tile.blocked<vector = 4>>
  %fg = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
  tile.for %i = %c0 to %len step %c64 stages 2 {
    tile.copy %ks[%i, %c0] to %sk {masked} : !tile.buffer<?x128xf16, global> to !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
    tile.copy %gs[%i] to %sg {masked} : !tile.buffer<?xf32, global> to !tile.buffer<64xf32, shared>
    tile.copy %sk to %f : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>> to !tile.buffer<64x128xf32, fragment, #tile.blocked<vector = 4>>
    tile.copy %sg to %fg : !tile.buffer<64xf32, shared> to !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
  }
  return
}

// -----

// Form 5: nested narrows add their starts to the coordinate; a copy that is
// not masked needs no zeroing (reading past the narrowed end is the
// program's promise, as with cp.async).

// CHECK-LABEL: func.func @nested_narrow
// CHECK-SAME:    %[[S0:[^:]*]]: index, %[[N0:[^:]*]]: index, %[[S1:[^:]*]]: index, %[[N1:[^:]*]]: index
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %[[N1]] step %{{.*}} {
// CHECK-NOT:       tile.zero_tail
// CHECK:           scf.if
// CHECK:             %[[R0:.*]] = arith.addi %[[S0]], %{{.*}} : index
// CHECK-NEXT:        %[[R1:.*]] = arith.addi %[[S1]], %[[R0]] : index
// CHECK:             tile.tma_load %{{.*}}[%[[R1]], %{{.*}}] to
func.func @nested_narrow(%pq: !tile.ptr<f16> {tile.name = "q"}, %T: i32 {tile.name = "T"},
                         %s0: index, %n0: index, %s1: index, %n1: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %q = tile.view %pq[%t] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  %a = tile.narrow %q[%s0, %n0] dim 0 : !tile.buffer<?x128xf16, global> -> !tile.buffer<?x128xf16, global>
  %b = tile.narrow %a[%s1, %n1] dim 0 : !tile.buffer<?x128xf16, global> -> !tile.buffer<?x128xf16, global>
  %s = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  %f = tile.alloc : !tile.buffer<64x128xf32, fragment, #tile.blocked<vector = 4>>
  tile.for %i = %c0 to %n1 step %c64 stages 2 {
    tile.copy %b[%i, %c0] to %s : !tile.buffer<?x128xf16, global> to !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
    tile.copy %s to %f : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>> to !tile.buffer<64x128xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// A wgmma whose operand a tile.producer_task writes through another view of
// the same buffer (a slot of a hand-off ring) stays synchronous: the slot
// is released right after the gemm, which must have read it by then.
// CHECK-LABEL: func.func @task_operand
// CHECK:         scf.for
// CHECK:           tile.producer_task
// CHECK:           tile.gemm %{{.*}}, %{{.*}}, %{{.*}} : !tile.buffer<128x64xf16
// CHECK-NEXT:      tile.mbarrier_arrive
// CHECK-NOT:     tile.gemm_wait
func.func @task_operand(%pa: !tile.ptr<f16> {tile.name = "A"}, %M: i32 {tile.name = "M"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma", tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = arith.index_cast %M : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %ring = tile.alloc : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>>
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  %empty = tile.alloc : !tile.buffer<2xi64, shared>
  %sA = tile.alloc : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
  tile.for %i = %c0 to %k step %c1 stages 2 {
    %kk = arith.muli %i, %c64 : index
    tile.copy %A[%c0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
    %slot = arith.remsi %i, %c2 : index
    tile.producer_task warps 4 {
      %dst = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.copy %A[%c0, %kk] to %dst {layout = #tile.blocked<vector = 8>} : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    }
    tile.mbarrier_wait %full[%slot], %i : !tile.buffer<2xi64, shared>
    %src = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf16, shared, #tile.swizzle<128>> -> !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.gemm %sA, %src, %acc : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
    tile.mbarrier_arrive %empty[%slot] : !tile.buffer<2xi64, shared>
  }
  return
}

// -----

// The loop's `loop_annotation` reaches the TMA ring's steady-state scf.for
// (the prologue's loads are not a loop).

// CHECK:       #[[$LICM:[a-z_0-9]+]] = #llvm.loop_licm<disable = true>
// CHECK-NEXT:  #[[$ANN:[a-z_0-9]+]] = #llvm.loop_annotation<licm = #[[$LICM]]>
// CHECK-LABEL: func.func @annotated_ring
// CHECK:       scf.for
// CHECK:         tile.mbarrier_wait
// CHECK:         tile.gemm
// CHECK:       } {loop_annotation = #[[$ANN]]}
// CHECK-NOT:   loop_annotation
// CHECK:       return
func.func @annotated_ring(%pa: !tile.ptr<f16> {tile.name = "A"}, %M: i32 {tile.name = "M"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %M : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  tile.for %kk = %c0 to %k step %c64 stages 2 {
    tile.copy %A[%c0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.gemm %sA, %sA, %acc {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  } {loop_annotation = #llvm.loop_annotation<licm = <disable = true>>}
  return
}

// -----

// So does its `producer_loop_annotation`, for tile-warp-specialize.

// CHECK:       #[[$LICM:[a-z_0-9]+]] = #llvm.loop_licm<disable = true>
// CHECK:       #[[$ANN:[a-z_0-9]+]] = #llvm.loop_annotation<licm = #[[$LICM]]>
// CHECK-LABEL: func.func @annotated_ring_roles
// CHECK:       scf.for
// CHECK:         tile.mbarrier_wait
// CHECK:         tile.gemm
// CHECK:       } {producer_loop_annotation = #[[$ANN]]}
// CHECK-NOT:   loop_annotation
// CHECK:       return
func.func @annotated_ring_roles(%pa: !tile.ptr<f16> {tile.name = "A"}, %M: i32 {tile.name = "M"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %M : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %sA = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  tile.for %kk = %c0 to %k step %c64 stages 2 {
    tile.copy %A[%c0, %kk] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.gemm %sA, %sA, %acc {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [2, 2]>>
  } {producer_loop_annotation = #llvm.loop_annotation<licm = <disable = true>>}
  return
}

// -----

// A lower triangular tile (the GDN chunk step's Ag): tile.copy {block_lower
// = 32} of a 64x64 f16 tile in 64-byte swizzle spans becomes a TMA load of
// 32-row boxes (the map's box 32 x 1 x 32, the head dimension taken) that
// skips the block above the diagonal: the stage expects the three boxes'
// 6144 bytes (+ K's 16384), not 8192.
// CHECK-LABEL: func.func @block_lower_ring
// CHECK-SAME:    %{{.*}}: !tile.tensormap<64x1x64xf16, swizzle = 128> {tile.name = "K_tma"
// CHECK-SAME:    %{{.*}}: !tile.tensormap<32x1x32xf16, swizzle = 64> {tile.name = "Ag_tma", tile.tensor_map = {base = "Ag", dims = ["T", "H", "64"], l2_promotion = 0 : i64, strides =
// CHECK:         tile.mbarrier_init
// CHECK:         tile.producer {
// CHECK-NEXT:      tile.mbarrier_wait
// CHECK-NEXT:      tile.mbarrier_arrive %{{.*}}[%{{.*}}] {expect_tx = 22528 : i64}
// CHECK-NEXT:      tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] to %{{.*}}, %{{.*}}[%{{.*}}] :
// CHECK-NEXT:      tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] to %{{.*}}, %{{.*}}[%{{.*}}] {block_lower = 32 : i64} : !tile.tensormap<32x1x32xf16, swizzle = 64>, !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
// CHECK-NEXT:    }
// CHECK-NOT:   tile.copy
func.func @block_lower_ring(%pk: !tile.ptr<f16> {tile.name = "K"}, %pag: !tile.ptr<f16> {tile.name = "Ag"},
                            %T: i32 {tile.name = "T"}, %H: i32 {tile.name = "H"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma", tile.mma_engine = "wgmma"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %h = arith.index_cast %H : i32 to index
  %hv = tile.program_id x
  %nch = arith.ceildivui %t, %c64 : index
  %K = tile.view %pk[%t, %h] : !tile.ptr<f16> -> !tile.buffer<?x?x128xf16, global>
  %Kh = tile.take %K[%hv] dims [1] : !tile.buffer<?x?x128xf16, global> -> !tile.buffer<?x128xf16, global>
  %AG = tile.view %pag[%t, %h] : !tile.ptr<f16> -> !tile.buffer<?x?x64xf16, global>
  %AGh = tile.take %AG[%hv] dims [1] : !tile.buffer<?x?x64xf16, global> -> !tile.buffer<?x64xf16, global>
  %sK = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  %sAg = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
  %acc = tile.alloc : !tile.buffer<64x128xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.for %c = %c0 to %nch step %c1 stages 2 {
    %t0 = arith.muli %c, %c64 : index
    tile.copy %Kh[%t0, %c0] to %sK {masked} : !tile.buffer<?x128xf16, global> to !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
    tile.copy %AGh[%t0, %c0] to %sAg {masked, block_lower = 32 : i64} : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
    tile.gemm %sAg, %sK, %acc : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>, !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x128xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  }
  return
}

// -----

// The same tensor, box and swizzle through two maps when only their L2
// promotion differs: the block_lower load's (none) and a plain load of a
// 32x32 tile (256 bytes), whose 32-row box is the block_lower boxes' shape.
// CHECK-LABEL: func.func @block_lower_l2_maps
// CHECK-SAME:    %{{.*}}: !tile.tensormap<32x1x32xf16, swizzle = 64> {tile.name = "Ag_tma", tile.tensor_map = {base = "Ag", dims = ["T", "H", "64"], l2_promotion = 0 : i64, strides = ["(H)*(64)", "64"]}}
// CHECK-SAME:    %{{.*}}: !tile.tensormap<32x1x32xf16, swizzle = 64> {tile.name = "Ag_tma1", tile.tensor_map = {base = "Ag", dims = ["T", "H", "64"], strides = ["(H)*(64)", "64"]}}
// CHECK:         tile.tma_load {{.*}} {block_lower = 32 : i64} : !tile.tensormap<32x1x32xf16, swizzle = 64>, !tile.buffer<64x64xf16
// CHECK-NEXT:    tile.tma_load {{.*}} : !tile.tensormap<32x1x32xf16, swizzle = 64>, !tile.buffer<32x32xf16
func.func @block_lower_l2_maps(%pag: !tile.ptr<f16> {tile.name = "Ag"},
                               %T: i32 {tile.name = "T"}, %H: i32 {tile.name = "H"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma", tile.mma_engine = "wgmma"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %h = arith.index_cast %H : i32 to index
  %hv = tile.program_id x
  %nch = arith.ceildivui %t, %c64 : index
  %AG = tile.view %pag[%t, %h] : !tile.ptr<f16> -> !tile.buffer<?x?x64xf16, global>
  %AGh = tile.take %AG[%hv] dims [1] : !tile.buffer<?x?x64xf16, global> -> !tile.buffer<?x64xf16, global>
  %sAg = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
  %sB = tile.alloc : !tile.buffer<32x32xf16, shared, #tile.swizzle<64>>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  %acc2 = tile.alloc : !tile.buffer<32x32xf32, fragment>
  tile.for %c = %c0 to %nch step %c1 stages 2 {
    %t0 = arith.muli %c, %c64 : index
    tile.copy %AGh[%t0, %c0] to %sAg {masked, block_lower = 32 : i64} : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
    tile.copy %AGh[%t0, %c0] to %sB {masked} : !tile.buffer<?x64xf16, global> to !tile.buffer<32x32xf16, shared, #tile.swizzle<64>>
    tile.copy %sB to %acc2 : !tile.buffer<32x32xf16, shared, #tile.swizzle<64>> to !tile.buffer<32x32xf32, fragment>
    tile.gemm %sAg, %sAg, %acc {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  }
  return
}

// -----

// block_lower = 16 under a 64-byte swizzle (32-column spans): the boxes
// cannot follow 16-row blocks, so the load takes the 32-row blocks on and
// below the diagonal (a superset: three 32x32 boxes, 6144 bytes), not the
// whole tile.
// CHECK-LABEL: func.func @block_lower_coarser
// CHECK-SAME:    %{{.*}}: !tile.tensormap<32x1x32xf16, swizzle = 64> {tile.name = "Ag_tma", tile.tensor_map = {base = "Ag", dims = ["T", "H", "64"], l2_promotion = 0 : i64, strides = ["(H)*(64)", "64"]}}
// CHECK:         tile.mbarrier_arrive %{{.*}}[%{{.*}}] {expect_tx = 6144 : i64}
// CHECK-NEXT:    tile.tma_load %{{.*}} {block_lower = 32 : i64} : !tile.tensormap<32x1x32xf16, swizzle = 64>, !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
// CHECK-NOT:   tile.async_copy
func.func @block_lower_coarser(%pag: !tile.ptr<f16> {tile.name = "Ag"},
                               %T: i32 {tile.name = "T"}, %H: i32 {tile.name = "H"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma", tile.mma_engine = "wgmma"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %h = arith.index_cast %H : i32 to index
  %hv = tile.program_id x
  %nch = arith.ceildivui %t, %c64 : index
  %AG = tile.view %pag[%t, %h] : !tile.ptr<f16> -> !tile.buffer<?x?x64xf16, global>
  %AGh = tile.take %AG[%hv] dims [1] : !tile.buffer<?x?x64xf16, global> -> !tile.buffer<?x64xf16, global>
  %sAg = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.for %c = %c0 to %nch step %c1 stages 2 {
    %t0 = arith.muli %c, %c64 : index
    tile.copy %AGh[%t0, %c0] to %sAg {masked, block_lower = 16 : i64} : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
    tile.gemm %sAg, %sAg, %acc {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  }
  return
}

// -----

// A block_lower copy whose boxes cannot be split (a 128-byte swizzle span
// is wider than the 32-column block) loads the whole tile by TMA (one 64x64
// box, 8192 bytes) rather than costing the ring its TMA.
// CHECK-LABEL: func.func @block_lower_whole
// CHECK-SAME:    %{{.*}}: !tile.tensormap<64x1x64xf16, swizzle = 128> {tile.name = "Ag_tma", tile.tensor_map = {base = "Ag", dims = ["T", "H", "64"], strides = ["(H)*(64)", "64"]}}
// CHECK:         tile.mbarrier_arrive %{{.*}}[%{{.*}}] {expect_tx = 8192 : i64}
// CHECK-NEXT:    tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] to %{{.*}}, %{{.*}}[%{{.*}}] : !tile.tensormap<64x1x64xf16, swizzle = 128>
// CHECK-NOT:   block_lower
// CHECK-NOT:   tile.async_copy
func.func @block_lower_whole(%pag: !tile.ptr<f16> {tile.name = "Ag"},
                             %T: i32 {tile.name = "T"}, %H: i32 {tile.name = "H"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma", tile.mma_engine = "wgmma"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %h = arith.index_cast %H : i32 to index
  %hv = tile.program_id x
  %nch = arith.ceildivui %t, %c64 : index
  %AG = tile.view %pag[%t, %h] : !tile.ptr<f16> -> !tile.buffer<?x?x64xf16, global>
  %AGh = tile.take %AG[%hv] dims [1] : !tile.buffer<?x?x64xf16, global> -> !tile.buffer<?x64xf16, global>
  %sAg = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.for %c = %c0 to %nch step %c1 stages 2 {
    %t0 = arith.muli %c, %c64 : index
    tile.copy %AGh[%t0, %c0] to %sAg {masked, block_lower = 32 : i64} : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    tile.gemm %sAg, %sAg, %acc {transpose_b} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  }
  return
}

// -----

// A function declaration (no body; e.g. a runtime helper a CPU test calls)
// is left alone: its parameters are read from its type, not from an entry
// block it does not have (this crashed, found by the fuzzer).
// CHECK-LABEL: func.func private @declared(f32, !tile.ptr<f16>)
func.func private @declared(f32, !tile.ptr<f16>)

// -----

// A tile.producer_task that reads a ring stage (here the Gram K K^T of the
// chunk the consumers also read, handed over through a slot ring): the
// task waits for the stage's loads itself (its warpgroup does not run the
// consumers' wait), right before its first use of the stage, and zeroes
// the rows past the sequence's end before its reads; the consumers, which
// wait for the task's hand-off before touching the stage, zero nothing. Their wgmma on the stage may still run
// asynchronously (the ring's release follows the task's reads).

// CHECK-LABEL: func.func @task_reads_ring
// CHECK-SAME:    %{{[^:]*}}: index, %{{[^:]*}}: index, %[[LEN:[^:]*]]: index
// CHECK:         scf.for %[[I:.*]] = %{{.*}} to %[[LEN]] step %{{.*}} {
// CHECK:           tile.mbarrier_wait %[[FULL:.*]][%[[CUR:.*]]], %[[PAR:[^ ]*]] :
// CHECK-NEXT:      %[[STAGE:.*]] = tile.slice %{{.*}}[%[[CUR]]]
// CHECK-NOT:       tile.zero_tail
// CHECK:           tile.producer_task warps 4 {
// CHECK-NEXT:        tile.alloc
// CHECK-NEXT:        tile.fill
// CHECK-NEXT:        tile.mbarrier_wait %[[FULL]][%[[CUR]]], %[[PAR]] :
// CHECK-NEXT:        %[[VALID:.*]] = arith.subi %[[LEN]], %[[I]] : index
// CHECK:             scf.if %{{.*}} {
// CHECK-NEXT:          %[[SK:.*]] = tile.slice %{{.*}}[%[[CUR]]]
// CHECK-NEXT:          tile.zero_tail %[[SK]] from %[[VALID]]
// CHECK-NEXT:          tile.barrier
// CHECK-NEXT:        }
// CHECK-NEXT:        tile.gemm %[[STAGE]], %[[STAGE]], %{{.*}} {transpose_b}
// CHECK:             tile.producer {
// CHECK-NEXT:          tile.mbarrier_arrive
// CHECK:           }
// CHECK-NOT:       tile.zero_tail
// CHECK:           tile.mbarrier_wait
// CHECK:           tile.gemm %{{.*}}, %[[STAGE]], %{{.*}} {async, transpose_b}
// CHECK:           tile.gemm_wait {pending = 1 : i64}
func.func @task_reads_ring(%pk: !tile.ptr<f16> {tile.name = "k"}, %T: i32 {tile.name = "T"},
                           %bos: index, %slot: index, %len: index)
    attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma", tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 72 : i64, consumer_registers = 216 : i64}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %t = arith.index_cast %T : i32 to index
  %k = tile.view %pk[%t] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  %ks = tile.narrow %k[%bos, %len] dim 0 : !tile.buffer<?x128xf16, global> -> !tile.buffer<?x128xf16, global>
  %sk = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  %ring = tile.alloc : !tile.buffer<2x64x64xf32, shared>
  %full = tile.alloc : !tile.buffer<2xi64, shared>
  %empty = tile.alloc : !tile.buffer<2xi64, shared>
  %acc = tile.alloc : !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
  %a = tile.alloc : !tile.buffer<128x128xf16, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
  tile.for %i = %c0 to %len step %c64 stages 2 {
    tile.copy %ks[%i, %c0] to %sk {masked} : !tile.buffer<?x128xf16, global> to !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
    tile.producer_task warps 4 {
      %gram = tile.alloc : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
      tile.fill %gram, %zero : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>, f32
      tile.gemm %sk, %sk, %gram {transpose_b} : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
      tile.mbarrier_wait %empty[%slot], %i : !tile.buffer<2xi64, shared>
      %dst = tile.slice %ring[%slot] : !tile.buffer<2x64x64xf32, shared> -> !tile.buffer<64x64xf32, shared>
      tile.copy %gram to %dst : !tile.buffer<64x64xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>> to !tile.buffer<64x64xf32, shared>
      tile.barrier
      tile.producer {
        tile.mbarrier_arrive %full[%slot] : !tile.buffer<2xi64, shared>
      }
    }
    tile.mbarrier_wait %full[%slot], %i : !tile.buffer<2xi64, shared>
    tile.gemm %a, %sk, %acc {transpose_b} : !tile.buffer<128x128xf16, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>, !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>, !tile.buffer<128x64xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
    tile.mbarrier_arrive %empty[%slot] : !tile.buffer<2xi64, shared>
  }
  return
}

// -----

// With tile.warp_specialize's tma_issue = "consumer" the consumers issue
// the loads right after releasing their stage, so the ring runs N ahead
// (the stage just released takes iteration i + N): a prologue of N = 2
// iterations, and the loop's issue for i + 2 into the current stage.

// CHECK-LABEL: func.func @consumer_issue_ahead
// CHECK:         scf.if
// CHECK:           tile.tma_load
// CHECK:         scf.if
// CHECK:           tile.tma_load
// CHECK-NOT:     tile.tma_load
// CHECK:         scf.for
// CHECK:           tile.mbarrier_wait %[[FULL:[0-9]+]][%[[CUR:[0-9]+]]], %{{.*}} :
// CHECK:           tile.mbarrier_arrive %[[EMPTY:[0-9]+]][%[[CUR]]] :
// CHECK-NEXT:      %[[TWO:.*]] = arith.constant 2 : index
// CHECK:           arith.addi %{{.*}}, %[[TWO]] : index
// CHECK:           scf.if
// CHECK:             tile.producer {
// CHECK-NEXT:          tile.mbarrier_wait %[[EMPTY]][
// CHECK-NEXT:          tile.mbarrier_arrive %[[FULL]][{{.*}}] {expect_tx = 16384 : i64}
// CHECK:         return
func.func @consumer_issue_ahead(%pa: !tile.ptr<f16> {tile.name = "A"}, %M: i32 {tile.name = "M"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64,
                                        tma_issue = "consumer"}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %m = arith.index_cast %M : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
  %f = tile.alloc : !tile.buffer<128x64xf32, fragment, #tile.blocked<vector = 4>>
  tile.for %kk = %c0 to %k step %c64 stages 2 {
    tile.copy %A[%c0, %kk] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<128x64xf16, shared, #tile.swizzle<128>>
    tile.copy %s to %f : !tile.buffer<128x64xf16, shared, #tile.swizzle<128>> to !tile.buffer<128x64xf32, fragment, #tile.blocked<vector = 4>>
  }
  return
}

// -----

// Consumer issue with asynchronous wgmma: the stage released in iteration i
// is iteration i - 1's (after its group retired), so the ring stays N - 1
// ahead: a prologue of 1 iteration for 2 stages, the loop's issue for i + 1.

// CHECK-LABEL: func.func @consumer_issue_async
// CHECK:         scf.if
// CHECK:           tile.tma_load
// CHECK-NEXT:      tile.tma_load
// CHECK-NOT:     tile.tma_load
// CHECK:         scf.for
// CHECK:           tile.gemm %{{.*}} {async, transpose_b}
// CHECK:           tile.gemm_wait {pending = 1 : i64}
// CHECK:           %[[ONE:.*]] = arith.constant 1 : index
// CHECK-NEXT:      arith.muli %[[ONE]], %{{.*}} : index
// CHECK:           tile.producer {
// CHECK:             tile.tma_load
func.func @consumer_issue_async(%pa: !tile.ptr<bf16> {tile.name = "A"}, %pb: !tile.ptr<bf16> {tile.name = "B"},
                                %M: i32 {tile.name = "M"}, %N: i32 {tile.name = "N"}, %K: i32 {tile.name = "K"})
    attributes {tile.kernel, tile.num_warps = 8 : i64, tile.copy_engine = "tma", tile.mma_engine = "wgmma",
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64,
                                        tma_issue = "consumer"}} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  %m = arith.index_cast %M : i32 to index
  %n = arith.index_cast %N : i32 to index
  %k = arith.index_cast %K : i32 to index
  %A = tile.view %pa[%m, %k] : !tile.ptr<bf16> -> !tile.buffer<?x?xbf16, global>
  %B = tile.view %pb[%n, %k] : !tile.ptr<bf16> -> !tile.buffer<?x?xbf16, global>
  %sA = tile.alloc : !tile.buffer<128x64xbf16, shared, #tile.swizzle<128>>
  %sB = tile.alloc : !tile.buffer<256x64xbf16, shared, #tile.swizzle<128>>
  %acc = tile.alloc : !tile.buffer<128x256xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
  tile.fill %acc, %zero : !tile.buffer<128x256xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>, f32
  tile.for %kk = %c0 to %k step %c64 stages 2 {
    tile.copy %A[%c0, %kk] to %sA : !tile.buffer<?x?xbf16, global> to !tile.buffer<128x64xbf16, shared, #tile.swizzle<128>>
    tile.copy %B[%c0, %kk] to %sB : !tile.buffer<?x?xbf16, global> to !tile.buffer<256x64xbf16, shared, #tile.swizzle<128>>
    tile.gemm %sA, %sB, %acc {transpose_b} : !tile.buffer<128x64xbf16, shared, #tile.swizzle<128>>, !tile.buffer<256x64xbf16, shared, #tile.swizzle<128>>, !tile.buffer<128x256xf32, fragment, #tile.mma<warps = [8, 1], engine = wgmma>>
  }
  return
}

// -----

// A ring copy's L2 eviction priority goes with its TMA loads (every box);
// the other copy's loads keep none.
// CHECK-LABEL: func.func @l2_hint_ring
// CHECK:         tile.mbarrier_init
// CHECK:         tile.producer {
// CHECK-NEXT:      tile.mbarrier_wait
// CHECK-NEXT:      tile.mbarrier_arrive %{{.*}}[%{{.*}}] {expect_tx = 22528 : i64}
// CHECK-NEXT:      tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] to %{{.*}}, %{{.*}}[%{{.*}}] : !tile.tensormap<64x1x64xf16
// CHECK-NEXT:      tile.tma_load %{{.*}}[%{{.*}}, %{{.*}}, %{{.*}}] to %{{.*}}, %{{.*}}[%{{.*}}] {block_lower = 32 : i64, l2_hint = #tile.l2_hint<evict_first>} : !tile.tensormap<32x1x32xf16, swizzle = 64>
// CHECK-NEXT:    }
// CHECK-NOT:   tile.copy
func.func @l2_hint_ring(%pk: !tile.ptr<f16> {tile.name = "K"}, %pag: !tile.ptr<f16> {tile.name = "Ag"},
                        %T: i32 {tile.name = "T"}, %H: i32 {tile.name = "H"})
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma", tile.mma_engine = "wgmma"} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %t = arith.index_cast %T : i32 to index
  %h = arith.index_cast %H : i32 to index
  %hv = tile.program_id x
  %nch = arith.ceildivui %t, %c64 : index
  %K = tile.view %pk[%t, %h] : !tile.ptr<f16> -> !tile.buffer<?x?x128xf16, global>
  %Kh = tile.take %K[%hv] dims [1] : !tile.buffer<?x?x128xf16, global> -> !tile.buffer<?x128xf16, global>
  %AG = tile.view %pag[%t, %h] : !tile.ptr<f16> -> !tile.buffer<?x?x64xf16, global>
  %AGh = tile.take %AG[%hv] dims [1] : !tile.buffer<?x?x64xf16, global> -> !tile.buffer<?x64xf16, global>
  %sK = tile.alloc : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
  %sAg = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
  %acc = tile.alloc : !tile.buffer<64x128xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  tile.for %c = %c0 to %nch step %c1 stages 2 {
    %t0 = arith.muli %c, %c64 : index
    tile.copy %Kh[%t0, %c0] to %sK {masked} : !tile.buffer<?x128xf16, global> to !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
    tile.copy %AGh[%t0, %c0] to %sAg {masked, block_lower = 32 : i64, l2_hint = #tile.l2_hint<evict_first>} : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>
    tile.gemm %sAg, %sK, %acc : !tile.buffer<64x64xf16, shared, #tile.swizzle<64>>, !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x128xf32, fragment, #tile.mma<warps = [4, 1], engine = wgmma>>
  }
  return
}
