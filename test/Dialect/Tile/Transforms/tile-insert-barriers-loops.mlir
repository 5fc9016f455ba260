// RUN: gdn-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(tile-insert-barriers))' | FileCheck %s

// tile-insert-barriers on loops that are still tile.for (LoopLikeOpInterface)
// and on tile.map bodies (recursive memory effects): iteration i+1's copy
// overwrites what iteration i's map read through tile.load, so the copy
// needs a barrier in front of it, and the map one after the copy.

// CHECK-LABEL: func.func @tile_for
// CHECK:       tile.for
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.copy %{{.*}} to %[[G:[^ ]*]] {
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.map indexed outs(
// CHECK:           tile.load %[[G]]
// CHECK:         }
// CHECK-NEXT:  }
// CHECK-NEXT:  return
func.func @tile_for(%n: index, %p: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %G = tile.view %p[%n] : !tile.ptr<f32> -> !tile.buffer<?xf32, global>
  %g = tile.alloc {offset = 0 : i64} : !tile.buffer<64xf32, shared>
  %f = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
  tile.for %k = %c0 to %n step %c1 stages 1 {
    tile.copy %G[%k] to %g {layout = #tile.blocked<vector = 4>} : !tile.buffer<?xf32, global> to !tile.buffer<64xf32, shared>
    tile.map indexed outs(%f : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>) {
    ^bb0(%i: index):
      %v = tile.load %g[%i] : !tile.buffer<64xf32, shared>
      tile.yield %v : f32
    }
  }
  return
}

// -----

// A map whose body reads nothing shared needs no barrier after the copy.

// CHECK-LABEL: func.func @map_without_load
// CHECK:       tile.copy
// CHECK-NEXT:  tile.map
// CHECK-NOT:   tile.barrier
// CHECK:       return
func.func @map_without_load(%n: index, %p: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 256 : i64} {
  %c0 = arith.constant 0 : index
  %G = tile.view %p[%n] : !tile.ptr<f32> -> !tile.buffer<?xf32, global>
  %g = tile.alloc {offset = 0 : i64} : !tile.buffer<64xf32, shared>
  %f = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
  tile.copy %G[%c0] to %g {layout = #tile.blocked<vector = 4>} : !tile.buffer<?xf32, global> to !tile.buffer<64xf32, shared>
  tile.map indexed outs(%f : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>) {
  ^bb0(%i: index):
    %v = arith.index_cast %i : index to i32
    %x = arith.sitofp %v : i32 to f32
    tile.yield %x : f32
  }
  return
}

// -----

// The next iteration's write of %p conflicts with this iteration's read of
// it only through the else branch: the then branch ends after a barrier of
// its own (before its read of %o). The barrier goes to the end of the else
// branch instead of before every write of %p.

// CHECK-LABEL: func.func @sink_into_branch
// CHECK:       scf.for
// CHECK-NEXT:    tile.copy %{{.*}} to %[[P:[^ ]*]] :
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.copy %[[P]] to
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      tile.copy %{{.*}} to %[[O:[^ ]*]] :
// CHECK-NEXT:      tile.barrier
// CHECK-NEXT:      tile.copy %[[O]] to
// CHECK-NEXT:    } else {
// CHECK-NEXT:      tile.copy %{{.*}} to %{{.*}}[%{{.*}}] :
// CHECK-NEXT:      tile.barrier
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  return
func.func @sink_into_branch(%n: index, %c: i1, %q: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 512 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %G = tile.view %q[%n] : !tile.ptr<f32> -> !tile.buffer<?xf32, global>
  %p = tile.alloc {offset = 0 : i64} : !tile.buffer<64xf32, shared>
  %o = tile.alloc {offset = 256 : i64} : !tile.buffer<64xf32, shared>
  %f = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
  scf.for %k = %c0 to %n step %c1 {
    tile.copy %f to %p : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>> to !tile.buffer<64xf32, shared>
    tile.barrier
    tile.copy %p to %f : !tile.buffer<64xf32, shared> to !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
    scf.if %c {
      tile.copy %f to %o : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>> to !tile.buffer<64xf32, shared>
      tile.copy %o to %f : !tile.buffer<64xf32, shared> to !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
    } else {
      tile.copy %f to %G[%k] : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>> to !tile.buffer<?xf32, global>
    }
  }
  return
}

// -----

// Neither branch has a barrier: a barrier in either would leave the other
// path unordered, so it stays before the write.

// CHECK-LABEL: func.func @no_sink_without_barrier
// CHECK:       scf.for
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.copy %{{.*}} to %[[P:[^ ]*]] :
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    tile.copy %[[P]] to
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      tile.copy
// CHECK-NEXT:    } else {
// CHECK-NEXT:      tile.copy
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NOT:   tile.barrier
// CHECK:       return
func.func @no_sink_without_barrier(%n: index, %c: i1, %q: !tile.ptr<f32>)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %G = tile.view %q[%n] : !tile.ptr<f32> -> !tile.buffer<?xf32, global>
  %p = tile.alloc {offset = 0 : i64} : !tile.buffer<64xf32, shared>
  %f = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
  scf.for %k = %c0 to %n step %c1 {
    tile.copy %f to %p : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>> to !tile.buffer<64xf32, shared>
    tile.barrier
    tile.copy %p to %f : !tile.buffer<64xf32, shared> to !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
    scf.if %c {
      tile.copy %f to %G[%k] : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>> to !tile.buffer<?xf32, global>
    } else {
      tile.copy %f to %G[%c0] : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>> to !tile.buffer<?xf32, global>
    }
  }
  return
}

// -----

// An scf.if without an else: the next write of %p conflicts only with the
// read in the then branch, which gets the barrier at its end; the path
// around the branch runs none.

// CHECK-LABEL: func.func @sink_into_then
// CHECK:       scf.for
// CHECK-NEXT:    tile.copy %{{.*}} to %[[P:[^ ]*]] :
// CHECK-NEXT:    tile.barrier
// CHECK-NEXT:    scf.if
// CHECK-NEXT:      tile.copy %[[P]] to
// CHECK-NEXT:      tile.barrier
// CHECK-NEXT:    }
// CHECK-NEXT:  }
// CHECK-NEXT:  return
func.func @sink_into_then(%n: index, %c: i1)
    attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 256 : i64} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %p = tile.alloc {offset = 0 : i64} : !tile.buffer<64xf32, shared>
  %f = tile.alloc : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
  scf.for %k = %c0 to %n step %c1 {
    tile.copy %f to %p : !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>> to !tile.buffer<64xf32, shared>
    tile.barrier
    scf.if %c {
      tile.copy %p to %f : !tile.buffer<64xf32, shared> to !tile.buffer<64xf32, fragment, #tile.blocked<vector = 1>>
    }
  }
  return
}
