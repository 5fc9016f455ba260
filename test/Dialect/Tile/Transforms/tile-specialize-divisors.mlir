// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-specialize-divisors))' -allow-unregistered-dialect | FileCheck %s

// The GDN prep's divisions: the GVA group HV / H by kernel parameters, the
// key head hv / group (a divisor that is itself a division's result) and
// its remainder, and a chunk's sequence by a divisor computed from a
// parameter. Each becomes a branch on "the divisor is a power of two":
// popcount(d - 1) as the shift, d - 1 as the mask, the division itself on
// the other side.
// CHECK-LABEL: func.func @prep_indices
// CHECK-SAME:  (%[[T:[^:]+]]: index, %[[H:[^:]+]]: index, %[[HV:[^:]+]]: index)
// CHECK-DAG:   %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG:   %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG:   %[[BX:.*]] = tile.program_id x
// CHECK-DAG:   %[[BY:.*]] = tile.program_id y
// CHECK:       %[[M:.*]] = arith.subi %[[H]], %[[C1]] : index
// CHECK:       %[[LOW:.*]] = arith.andi %[[H]], %[[M]] : index
// CHECK:       %[[EQ:.*]] = arith.cmpi eq, %[[LOW]], %[[C0]] : index
// CHECK:       %[[NZ:.*]] = arith.cmpi ne, %[[H]], %[[C0]] : index
// CHECK:       %[[P2:.*]] = arith.andi %[[EQ]], %[[NZ]] : i1
// CHECK:       %[[G:.*]] = scf.if %[[P2]] -> (index) {
// CHECK:         %[[W:.*]] = arith.index_castui %[[M]] : index to i64
// CHECK:         %[[N:.*]] = math.ctpop %[[W]] : i64
// CHECK:         %[[S:.*]] = arith.index_castui %[[N]] : i64 to index
// CHECK:         %[[Q:.*]] = arith.shrui %[[HV]], %[[S]] : index
// CHECK:         scf.yield %[[Q]] : index
// CHECK:       } else {
// CHECK:         %[[D:.*]] = arith.divui %[[HV]], %[[H]] : index
// CHECK:         scf.yield %[[D]] : index
// CHECK:       }
// CHECK:       %[[GM:.*]] = arith.subi %[[G]], %{{.*}} : index
// CHECK:       %[[QH:.*]] = scf.if %{{.*}} -> (index) {
// CHECK:         arith.shrui %[[BX]], %{{.*}} : index
// CHECK:       } else {
// CHECK:         arith.divui %[[BX]], %[[G]] : index
// CHECK:       }
// CHECK:       %[[HVQ:.*]] = scf.if %{{.*}} -> (index) {
// CHECK:         %[[R:.*]] = arith.andi %[[BX]], %{{.*}} : index
// CHECK:         scf.yield %[[R]] : index
// CHECK:       } else {
// CHECK:         arith.remui %[[BX]], %[[G]] : index
// CHECK:       }
// CHECK:       arith.ceildivui
// CHECK:       scf.if
// CHECK:         arith.shrui %[[BY]]
// CHECK:       } else {
// CHECK:         arith.divui %[[BY]], %[[NCT:.*]] : index
// CHECK:       }
// CHECK:       "test.use"(%[[QH]], %[[HVQ]]
func.func @prep_indices(%t: index, %h: index, %hvs: index) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c64 = arith.constant 64 : index
  %hv = tile.program_id x
  %cid = tile.program_id y
  %group = arith.divui %hvs, %h : index
  %qh = arith.divui %hv, %group : index
  %hvq = arith.remui %hv, %group : index
  %nct = arith.ceildivui %t, %c64 : index
  %seq = arith.divui %cid, %nct : index
  "test.use"(%qh, %hvq, %seq) : (index, index, index) -> ()
  return
}

// -----

// Integer divisors take the popcount in their own type; a divisor built
// from tile.num_programs and a parameter by arith ops is uniform, and so is
// one in a producer region or under scf control flow inside a
// warp-specialized region.
// CHECK-LABEL: func.func @integer_and_nested
// CHECK:       scf.if
// CHECK:         math.ctpop %{{.*}} : i32
// CHECK-NEXT:    arith.shrui %{{.*}} : i32
// CHECK:       } else {
// CHECK-NEXT:    arith.divui %{{.*}} : i32
// CHECK:       tile.warp_specialize
// CHECK:       tile.producer
// CHECK:         scf.if
// CHECK:           arith.shrui
// CHECK:         } else {
// CHECK-NEXT:      arith.divui
// CHECK:       scf.for
// CHECK:         scf.if
// CHECK:           arith.andi
// CHECK:         } else {
// CHECK-NEXT:      arith.remui
func.func @integer_and_nested(%a: i32, %b: i32, %n: index) attributes {tile.kernel, tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64} {
  %d = arith.addi %b, %b : i32
  %q = arith.divui %a, %d : i32
  %np = tile.num_programs x
  %dn = arith.muli %np, %n : index
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232} producer {
    tile.producer thread 256 {
      %pq = arith.divui %n, %dn : index
      "test.use"(%q, %pq) : (i32, index) -> ()
    }
  } consumer {
    scf.for %i = %c0 to %n step %c1 {
      %r = arith.remui %i, %dn : index
      "test.use"(%r) : (index) -> ()
    }
  }
  "test.use"(%q) : (i32) -> ()
  return
}

// -----

// Left alone: constant divisors (LLVM strength-reduces them), signed
// divisions, thread-dependent divisors (a loaded value, a loop induction
// variable, a thread id plus a parameter, an unknown op's result, a
// non-kernel function's argument), and
// divisions inside a tile.map body (instantiated per element) or an unknown
// op's region.
// CHECK-LABEL: func.func @untouched
// CHECK-NOT:   scf.if
// CHECK:       return
func.func @untouched(%x: index, %d: index) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %buf = tile.alloc : !tile.buffer<4xi32, shared>
  %frag = tile.alloc : !tile.buffer<64xf32, fragment>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c6 = arith.constant 6 : index
  %a = arith.divui %x, %c6 : index
  %b = arith.remui %x, %c4 : index
  %s = arith.divsi %x, %d : index
  %li = tile.load %buf[%c0] : !tile.buffer<4xi32, shared>
  %l = arith.index_cast %li : i32 to index
  %e = arith.divui %x, %l : index
  scf.for %i = %c1 to %x step %c1 {
    %f = arith.divui %x, %i : index
    "test.use"(%f) : (index) -> ()
  }
  tile.map indexed outs(%frag : !tile.buffer<64xf32, fragment>) {
  ^bb0(%i: index):
    %m = arith.remui %i, %d : index
    %v = arith.index_cast %m : index to i32
    %y = arith.sitofp %v : i32 to f32
    tile.yield %y : f32
  }
  %tid = gpu.thread_id x
  %dt = arith.addi %tid, %d : index
  %h = arith.divui %x, %dt : index
  %u = "test.value"() : () -> index
  %g = arith.divui %x, %u : index
  "test.region"() ({
    %r = arith.divui %x, %d : index
    "test.use"(%r) : (index) -> ()
  }) : () -> ()
  "test.use"(%a, %b, %s, %e, %g, %h) : (index, index, index, index, index, index) -> ()
  return
}

// CHECK-LABEL: func.func @not_a_kernel
// CHECK-NOT:   scf.if
// CHECK:       return
func.func @not_a_kernel(%x: index, %d: index) -> index {
  %q = arith.divui %x, %d : index
  return %q : index
}
