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
