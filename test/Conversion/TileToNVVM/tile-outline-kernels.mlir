// RUN: gdn-opt %s -split-input-file -verify-diagnostics --tile-outline-kernels | FileCheck %s

// Kernels move, unconverted, into one gpu.module named after the module,
// after the extern 1024-aligned shared-memory array; other functions stay.
// Their launch interface is recorded in gdn.kernels: parameter names from
// tile.name or argN, !tile.ptr<T> as ptr<T>, index as i64, the block from
// tile.num_warps, the planned shared bytes, tile.meta.

// CHECK-LABEL: module @iface attributes {gdn.kernels = {k = {block = [128, 1, 1], meta = {block_m = 64 : i64, op = "test"}, module = "iface", params = ["A:ptr<f16>", "arg1:ptr<f32>", "arg2:i32", "len:i64"], shared_bytes = 4096 : i64}, k2 = {block = [32, 1, 1], module = "iface", params = [], shared_bytes = 0 : i64}}, gpu.container_module}
// CHECK-NEXT:    func.func @helper()
// CHECK-NEXT:      tile.alloc : !tile.buffer<64x64xf32, fragment>
// CHECK-NEXT:      return
// CHECK-NEXT:    }
// CHECK-NEXT:    gpu.module @iface {
// CHECK-NEXT:      llvm.mlir.global external @__tile_smem() {addr_space = 3 : i32, alignment = 1024 : i64} : !llvm.array<0 x i8>
// CHECK-NEXT:      func.func @k(%{{.*}}: !tile.ptr<f16> {tile.name = "A"}, %{{.*}}: !tile.ptr<f32>, %{{.*}}: i32, %{{.*}}: index {tile.name = "len"}) attributes {tile.kernel,
// CHECK-NEXT:        %[[S:.*]] = tile.alloc {offset = 0 : i64} : !tile.buffer<32x32xf32, shared>
// CHECK-NEXT:        tile.barrier
// CHECK-NEXT:        return
// CHECK-NEXT:      }
// CHECK-NEXT:      func.func @k2() attributes {tile.kernel, tile.num_warps = 1 : i64}
// CHECK-NEXT:        return
// CHECK-NEXT:      }
// CHECK-NEXT:    }
// CHECK-NEXT:  }
module @iface {
  func.func @k(%pa: !tile.ptr<f16> {tile.name = "A"}, %pc: !tile.ptr<f32>, %n: i32,
               %len: index {tile.name = "len"})
      attributes {tile.kernel, tile.num_warps = 4 : i64, tile.shared_memory_bytes = 4096 : i64,
                  tile.meta = {op = "test", block_m = 64 : i64}} {
    %s = tile.alloc {offset = 0 : i64} : !tile.buffer<32x32xf32, shared>
    tile.barrier
    return
  }
  func.func @helper() {
    %f = tile.alloc : !tile.buffer<64x64xf32, fragment>
    return
  }
  func.func @k2() attributes {tile.kernel, tile.num_warps = 1 : i64} {
    return
  }
}

// -----

// An unnamed module gives gpu.module @kernels; entries already in
// gdn.kernels are kept.

// CHECK-LABEL: module attributes {gdn.kernels = {earlier = {block = [64, 1, 1]}, k8 = {block = [256, 1, 1], module = "kernels", params = [], shared_bytes = 0 : i64}}, gpu.container_module}
// CHECK-NEXT:    gpu.module @kernels {
// CHECK-NEXT:      llvm.mlir.global external @__tile_smem()
// CHECK-NEXT:      func.func @k8() attributes {tile.kernel, tile.num_warps = 8 : i64}
module attributes {gdn.kernels = {earlier = {block = [64, 1, 1]}}} {
  func.func @k8() attributes {tile.kernel, tile.num_warps = 8 : i64} {
    return
  }
}

// -----

// Without kernels the module is left as it is.

// CHECK-LABEL: module @none {
// CHECK-NEXT:    func.func @f()
// CHECK-NOT:   gpu.module
// CHECK-NOT:   gdn.kernels
module @none {
  func.func @f() {
    return
  }
}

// -----

// Error: shared buffers without a plan (no tile.shared_memory_bytes).

module @unplanned {
  func.func @k() attributes {tile.kernel, tile.num_warps = 4 : i64} {
    // expected-error @below {{'tile.alloc' op kernel uses shared memory but has no plan; run tile-plan-shared-memory first}}
    %s = tile.alloc : !tile.buffer<64x64xf16, shared>
    return
  }
}

// -----

// Error: an unplanned shared buffer inside a loop counts too.

module @unplanned_nested {
  func.func @k(%n: index) attributes {tile.kernel, tile.num_warps = 4 : i64} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    scf.for %i = %c0 to %n step %c1 {
      // expected-error @below {{'tile.alloc' op kernel uses shared memory but has no plan; run tile-plan-shared-memory first}}
      %s = tile.alloc : !tile.buffer<64x64xf16, shared>
    }
    return
  }
}
