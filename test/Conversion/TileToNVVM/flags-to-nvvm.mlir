// RUN: gdn-opt %s -split-input-file --tile-outline-kernels --convert-tile-to-nvvm | FileCheck %s

// The ready flags (SyncToNVVM.cpp). A release: the flag's address, a
// barrier over the threads that run it, then the first of them fences its
// async-proxy (TMA store) writes and stores the value with release
// semantics at GPU scope. A wait: an acquire spin with a timeout (or none),
// then the proxy fence before TMA reads; it is run by whoever executes it
// (here the producer thread, then every thread).

// CHECK-LABEL: llvm.func @release
// CHECK:         %[[PTR:.*]] = llvm.getelementptr %{{.*}}[%{{.*}}] : (!llvm.ptr<1>, i64) -> !llvm.ptr<1>, i32
// CHECK-NEXT:    nvvm.barrier0
// CHECK-NEXT:    %[[Z:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[T:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    %[[FIRST:.*]] = llvm.icmp "eq" %[[T]], %[[Z]] : i32
// CHECK-NEXT:    llvm.cond_br %[[FIRST]], ^[[ST:.*]], ^[[END:.*]]
// CHECK:       ^[[ST]]:
// CHECK-NEXT:    llvm.inline_asm has_side_effects asm_dialect = att "fence.proxy.async.global;\0A\09st.release.gpu.global.b32 [$0], $1;", "l,r,~{memory}" %[[PTR]], %arg2 : (!llvm.ptr<1>, i32) -> !llvm.void
// CHECK-NEXT:    llvm.br ^[[END]]
// CHECK:       ^[[END]]:
// CHECK-NEXT:    llvm.return

// CHECK-LABEL: llvm.func @wait
// CHECK:         llvm.cond_br
// CHECK:         %[[P1:.*]] = llvm.getelementptr
// CHECK-NEXT:    llvm.inline_asm has_side_effects asm_dialect = att "{\0A\09.reg .pred fw_p;\0A\09.reg .b32 fw_v;\0A\09.reg .b64 fw_t0, fw_t1;\0A\09mov.u64 fw_t0, %globaltimer;\0A\09fw_wait:\0A\09ld.acquire.gpu.global.b32 fw_v, [$0];\0A\09sub.s32 fw_v, fw_v, $1;\0A\09setp.ge.s32 fw_p, fw_v, 0;\0A\09@fw_p bra fw_done;\0A\09nanosleep.u32 32;\0A\09mov.u64 fw_t1, %globaltimer;\0A\09sub.u64 fw_t1, fw_t1, fw_t0;\0A\09setp.lt.u64 fw_p, fw_t1, 10000000000;\0A\09@fw_p bra fw_wait;\0A\09trap;\0A\09fw_done:\0A\09fence.proxy.async.global;\0A\09}", "l,r,~{memory}" %[[P1]], %arg2
// CHECK:         %[[P2:.*]] = llvm.getelementptr
// CHECK-NEXT:    llvm.inline_asm has_side_effects asm_dialect = att "{\0A\09.reg .pred fw_p;\0A\09.reg .b32 fw_v;\0A\09fw_wait:\0A\09ld.acquire.gpu.global.b32 fw_v, [$0];\0A\09sub.s32 fw_v, fw_v, $1;\0A\09setp.ge.s32 fw_p, fw_v, 0;\0A\09@fw_p bra fw_done;\0A\09nanosleep.u32 32;\0A\09bra fw_wait;\0A\09fw_done:\0A\09fence.proxy.async.global;\0A\09}", "l,r,~{memory}" %[[P2]], %arg2
// CHECK:         %[[P3:.*]] = llvm.getelementptr
// CHECK-NEXT:    llvm.inline_asm {{.*}}setp.lt.u64 fw_p, fw_t1, 250000000;{{.*}}"l,r,~{memory}" %[[P3]], %arg2
// CHECK-NOT:     tile.
// CHECK:         llvm.return
module @flags {
  func.func @release(%pf: !tile.ptr<i32> {tile.name = "flags"}, %n: i32 {tile.name = "n"}, %epoch: i32 {tile.name = "epoch"})
      attributes {tile.kernel, tile.num_warps = 4 : i64} {
    %nn = arith.index_cast %n : i32 to index
    %F = tile.view %pf[%nn] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
    %i = tile.program_id x
    tile.flag_release %F[%i], %epoch : !tile.buffer<?xi32, global>
    return
  }
  func.func @wait(%pf: !tile.ptr<i32> {tile.name = "flags"}, %n: i32 {tile.name = "n"}, %epoch: i32 {tile.name = "epoch"})
      attributes {tile.kernel, tile.num_warps = 4 : i64} {
    %nn = arith.index_cast %n : i32 to index
    %F = tile.view %pf[%nn] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
    %i = tile.program_id x
    tile.producer {
      tile.flag_wait %F[%i], %epoch : !tile.buffer<?xi32, global>
    }
    tile.flag_wait %F[%i], %epoch {timeout_ms = 0} : !tile.buffer<?xi32, global>
    tile.flag_wait %F[%i], %epoch {timeout_ms = 250} : !tile.buffer<?xi32, global>
    return
  }
}

// -----

// In a warp-specialized kernel: the consumers' release waits on their
// named barrier (1, 256 threads) and is stored by thread 0; a producer
// task's on the producer warpgroup's (2, 128 threads) and is stored by the
// task's first thread (tid.x - 256).

// CHECK-LABEL: llvm.func @roles
// CHECK:         nvvm.setmaxregister  decrease 40
// CHECK:         %[[ID2:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT:    %[[N2:.*]] = llvm.mlir.constant(128 : i32) : i32
// CHECK-NEXT:    nvvm.barrier id = %[[ID2]] number_of_threads = %[[N2]]
// CHECK-NEXT:    %[[Z2:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[T2:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    %[[B2:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT:    %[[R2:.*]] = llvm.sub %[[T2]], %[[B2]] overflow<nuw> : i32
// CHECK-NEXT:    llvm.icmp "eq" %[[R2]], %[[Z2]] : i32
// CHECK:         st.release.gpu.global.b32
// CHECK:         nvvm.setmaxregister  increase 232
// CHECK:         %[[ID1:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT:    %[[N1:.*]] = llvm.mlir.constant(256 : i32) : i32
// CHECK-NEXT:    nvvm.barrier id = %[[ID1]] number_of_threads = %[[N1]]
// CHECK-NEXT:    %[[Z1:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT:    %[[T1:.*]] = nvvm.read.ptx.sreg.tid.x : i32
// CHECK-NEXT:    llvm.icmp "eq" %[[T1]], %[[Z1]] : i32
// CHECK:         st.release.gpu.global.b32
module @roles {
  func.func @roles(%pf: !tile.ptr<i32> {tile.name = "flags"}, %epoch: i32 {tile.name = "epoch"})
      attributes {tile.kernel, tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64} {
    %c6 = arith.constant 6 : index
    %c7 = arith.constant 7 : index
    %F = tile.view %pf[] : !tile.ptr<i32> -> !tile.buffer<8xi32, global>
    tile.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232}
    producer {
      tile.producer_task warps 4 {
        tile.flag_release %F[%c6], %epoch : !tile.buffer<8xi32, global>
      } {thread_base = 256 : i64}
    } consumer {
      tile.flag_release %F[%c7], %epoch : !tile.buffer<8xi32, global>
    }
    return
  }
}
