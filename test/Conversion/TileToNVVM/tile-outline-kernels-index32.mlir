// RUN: gdn-opt %s -split-input-file --tile-outline-kernels="index-bitwidth=32 kernel-suffix=_n" | FileCheck %s
// RUN: gdn-opt %s -split-input-file --tile-outline-kernels="index-bitwidth=32 kernel-suffix=_n" --convert-tile-to-nvvm | FileCheck %s --check-prefix=LLVM
// RUN: not gdn-opt %s -split-input-file --tile-outline-kernels="index-bitwidth=16" 2>&1 | FileCheck %s --check-prefix=BAD

// With index-bitwidth=32 the gpu.module's data layout makes `index` 32 bits
// wide, the launch interface says so (index_bits = 32, index parameters as
// i32), and kernel-suffix renames the kernels and the gpu.module (a second
// build of the same source can sit beside the first).

// CHECK-LABEL: module @narrow attributes {gdn.kernels = {k_n = {block = [128, 1, 1], index_bits = 32 : i64, module = "narrow_n", params = ["A:ptr<f16>", "len:i32"], shared_bytes = 0 : i64}}, gpu.container_module}
// CHECK-NEXT:    gpu.module @narrow_n attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<index, 32 : i32>>} {
// CHECK:           func.func @k_n(

// convert-tile-to-nvvm takes the index type from that data layout: the
// global view's sizes and strides, the program id and the index arithmetic
// are i32 (the address itself stays a 64-bit pointer).
// LLVM-LABEL: llvm.func @k_n(%{{.*}}: !llvm.ptr<1>, %{{.*}}: i32)
// LLVM:         llvm.mlir.undef : !llvm.struct<(ptr<1>, i32, i32, i32, i32)>
// LLVM:         %[[BID:.*]] = nvvm.read.ptx.sreg.ctaid.x : i32
// LLVM-NOT:     llvm.zext %[[BID]]
// LLVM:         llvm.add %{{.*}}, %{{.*}} : i32
// LLVM:         llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f16
// LLVM-NOT:     i64
// LLVM:         llvm.return

// BAD: error: tile-outline-kernels: index-bitwidth must be 32 or 64, got 16
module @narrow {
  func.func @k(%pa: !tile.ptr<f16> {tile.name = "A"}, %len: index {tile.name = "len"})
      attributes {tile.kernel, tile.num_warps = 4 : i64} {
    %c1 = arith.constant 1 : index
    %a = tile.view %pa[%len] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
    %pid = tile.program_id x
    %row = arith.addi %pid, %c1 : index
    %x = tile.load %a[%row, %c1] : !tile.buffer<?x64xf16, global>
    return
  }
}
