// RUN: gdn-opt %s -split-input-file | FileCheck %s
// RUN: gdn-opt %s -split-input-file -mlir-print-op-generic | gdn-opt -split-input-file | FileCheck %s

// The ready-flag ops round-trip in both the pretty and the generic form; the
// wait's timeout defaults to 10 s and is printed only where it differs. So
// does the deferred grid wait (tile.grid_wait, in a "deferred" kernel).

// CHECK-LABEL: func.func @flags
// CHECK:         %[[F:.*]] = tile.view %{{.*}}[%{{.*}}] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
// CHECK-NEXT:    %[[I:.*]] = tile.program_id x
// CHECK-NEXT:    tile.flag_release %[[F]][%[[I]]], %[[E:[^ ]*]] : !tile.buffer<?xi32, global>
// CHECK-NEXT:    tile.flag_wait %[[F]][%[[I]]], %[[E]] : !tile.buffer<?xi32, global>
// CHECK-NEXT:    tile.flag_wait %[[F]][%[[I]]], %[[E]] {timeout_ms = 0 : i64} : !tile.buffer<?xi32, global>
// CHECK-NEXT:    tile.flag_wait %[[F]][%[[I]]], %[[E]] {timeout_ms = 250 : i64} : !tile.buffer<?xi32, global>
// CHECK-NEXT:    tile.producer {
// CHECK-NEXT:      tile.flag_wait %[[F]][%[[I]]], %[[E]] : !tile.buffer<?xi32, global>
// CHECK-NEXT:    }
func.func @flags(%pf: !tile.ptr<i32> {tile.name = "flags"}, %n: index, %epoch: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %F = tile.view %pf[%n] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  %i = tile.program_id x
  tile.flag_release %F[%i], %epoch : !tile.buffer<?xi32, global>
  tile.flag_wait %F[%i], %epoch : !tile.buffer<?xi32, global>
  tile.flag_wait %F[%i], %epoch {timeout_ms = 0} : !tile.buffer<?xi32, global>
  tile.flag_wait %F[%i], %epoch {timeout_ms = 250} : !tile.buffer<?xi32, global>
  tile.producer {
    tile.flag_wait %F[%i], %epoch : !tile.buffer<?xi32, global>
  }
  return
}

// -----

// A release inside a producer task (its warpgroup's barrier) and in the
// consumers of a warp-specialized kernel; a constant index inside a
// static buffer.

// CHECK-LABEL: func.func @task
// CHECK:         tile.producer_task warps 4 {
// CHECK-NEXT:      tile.flag_release %{{.*}}[%{{.*}}], %{{.*}} : !tile.buffer<8xi32, global>
func.func @task(%pf: !tile.ptr<i32> {tile.name = "flags"}, %epoch: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i64,
                tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 232 : i64}} {
  %c7 = arith.constant 7 : index
  %F = tile.view %pf[] : !tile.ptr<i32> -> !tile.buffer<8xi32, global>
  tile.producer_task warps 4 {
    tile.flag_release %F[%c7], %epoch : !tile.buffer<8xi32, global>
  }
  return
}

// CHECK-LABEL: func.func @consumers
// CHECK:         tile.warp_specialize
// CHECK:           tile.flag_wait %{{.*}}[%{{.*}}], %{{.*}} : !tile.buffer<8xi32, global>
// CHECK:         consumer {
// CHECK-NEXT:      tile.flag_release %{{.*}}[%{{.*}}], %{{.*}} : !tile.buffer<8xi32, global>
func.func @consumers(%pf: !tile.ptr<i32> {tile.name = "flags"}, %epoch: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64} {
  %c7 = arith.constant 7 : index
  %F = tile.view %pf[] : !tile.ptr<i32> -> !tile.buffer<8xi32, global>
  tile.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232}
  producer {
    tile.producer {
      tile.flag_wait %F[%c7], %epoch : !tile.buffer<8xi32, global>
    }
  } consumer {
    tile.flag_release %F[%c7], %epoch : !tile.buffer<8xi32, global>
  }
  return
}

// -----

// CHECK-LABEL: func.func @deferred
// CHECK-SAME:    tile.grid_dependency = "deferred"
// CHECK:         scf.if %{{.*}} {
// CHECK-NEXT:      tile.grid_wait
// CHECK-NEXT:    }
// CHECK-NEXT:    tile.grid_wait
func.func @deferred(%c: i1)
    attributes {tile.kernel, tile.grid_dependency = "deferred", tile.num_warps = 4 : i64} {
  scf.if %c {
    tile.grid_wait
  }
  tile.grid_wait
  return
}
