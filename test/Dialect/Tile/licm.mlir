// RUN: gdn-opt %s -loop-invariant-code-motion | FileCheck %s

// tile.for is a LoopLikeOpInterface loop: invariant pure ops leave it, ops
// that depend on the induction variable or touch memory stay. tile.map has
// the effects of its operands and of its body, so it stays even when its
// body is pure.

// CHECK-LABEL: func.func @hoist
// CHECK:       %[[INV:.*]] = arith.muli %arg0, %arg1 : index
// CHECK-NEXT:  %[[CST:.*]] = arith.addf
// CHECK-NEXT:  tile.for %[[K:.*]] = %{{.*}} to %{{.*}} step %{{.*}} stages 1 {
// CHECK-NEXT:    %[[J:.*]] = arith.addi %[[K]], %[[INV]] : index
// CHECK-NEXT:    tile.copy %{{.*}}[%[[J]], %{{.*}}] to %{{.*}} :
// CHECK-NEXT:    tile.map outs(
// CHECK:           arith.mulf
// CHECK:         }
// CHECK-NEXT:  }
// CHECK-NEXT:  return
func.func @hoist(%a: index, %b: index, %p: !tile.ptr<f16>, %x: f32) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %A = tile.view %p[%a, %a] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
  tile.for %k = %c0 to %a step %c64 stages 1 {
    %inv = arith.muli %a, %b : index
    %j = arith.addi %k, %inv : index
    %y = arith.addf %x, %x : f32
    tile.copy %A[%j, %c0] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<64x64xf16, shared>
    tile.map outs(%f : !tile.buffer<64x64xf32, fragment>) {
      %z = arith.mulf %y, %y : f32
      tile.yield %z : f32
    }
  }
  return
}
