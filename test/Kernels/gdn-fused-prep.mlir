// The experimental fused prep + forward kernel (not in the kernel bundle):
// the direct path's value-major forward whose producer warpgroup also forms
// each chunk's gamma and Ag (@gdn_chunk_loop_fused of
// kernels/gdn_prefill/gdn_forward_vm.mlir.in, a tile.producer_task running
// the prep kernel's solve) into a two-slot shared-memory ring, so the prep
// kernel and its Ag / gamma workspaces drop out. On the H200 it is
// bit-identical to prep + forward on every input family; spill-free since
// its loop runs with LICM off (task / consumers 104 / 200 registers), it is
// still 1.2x slower than prep + forward at 8x4K·H16 (docs/perf-notes.md
// v37; v32 has the recipe to run it with gdn-run). This test keeps it
// compiling: the kernel below is appended to the template's module and
// lowered to PTX; ptxas must take it without a spill.
// RUN: %expand-includes %gdn_kernels/gdn_prefill/gdn_forward_vm.mlir.in %t.vm.mlir.in
// RUN: sed s/@DT@/f16/g %t.vm.mlir.in | sed '$d' > %t.mlir
// RUN: sed s/@DT@/f16/g %s >> %t.mlir
// RUN: gdn-opt %t.mlir --pass-pipeline='builtin.module(inline,symbol-dce,func.func(canonicalize,tile-fold-zero-init,tile-expand-tril-inverse,tile-assign-layouts,tile-pipeline,tile-tma-store,canonicalize,tile-plan-shared-memory,tile-insert-barriers,tile-warp-specialize))' | FileCheck %s --check-prefix=SPLIT
// RUN: rm -rf %t.out && mkdir -p %t.out
// RUN: gdn-opt %t.mlir --gdn-lower-to-ptx="index-bitwidth=32 output-dir=%t.out" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX < %t.out/gdn_forward_vm_f16.ptx
// RUN: %if ptxas %{ %ptxas -arch=sm_90a -v %t.out/gdn_forward_vm_f16.ptx -o %t.out/fused.cubin 2>&1 | FileCheck %s --check-prefix=PTXAS %}
// RUN: FileCheck %s --check-prefix=MANIFEST < %t.out/gdn_chunk_fused_vm128_f16.manifest

// The split: the producer warpgroup runs the TMA ring's loads and the task
// (its barriers the named barrier 2 over 128 threads, thread base 256;
// at its end it stores the next chunk's g and beta, loaded at its start);
// the consumers wait on the hand-off's full barrier, run the step and
// release the slot; the task's buffers and the ring live for the whole
// kernel (disjoint from the consumers' by the plan).
// SPLIT-LABEL: func.func @gdn_chunk_fused_vm128_f16
// SPLIT:         tile.warp_specialize {consumer_registers = 200 : i64, producer_registers = 104 : i64, producer_warps = 4 : i64} producer {
// SPLIT:           tile.producer_task warps 4 {
// SPLIT:             tile.async_copy
// SPLIT:             tile.scan add
// SPLIT:             tile.barrier {id = 2 : i64, threads = 128 : i64}
// SPLIT:             tile.gemm
// SPLIT:             tile.tril_inverse_diag
// SPLIT:             tile.mbarrier_wait
// SPLIT:             scf.if
// SPLIT:               tile.copy {{.*}} : !tile.buffer<64xf32, fragment, {{.*}}> to !tile.buffer<64xf32, shared>
// SPLIT:               tile.copy {{.*}} : !tile.buffer<64xf16, fragment, {{.*}}> to !tile.buffer<64xf16, shared>
// SPLIT-NEXT:        }
// SPLIT-NEXT:        tile.barrier {id = 2 : i64, threads = 128 : i64}
// SPLIT-NEXT:        tile.producer {
// SPLIT-NEXT:          tile.mbarrier_arrive
// SPLIT:           } {thread_base = 256 : i64}
// SPLIT:           tile.producer thread 256 {
// SPLIT:             tile.tma_load
// SPLIT:         } consumer {
// SPLIT-NOT:       tile.producer_task
// SPLIT-NOT:       tile.tril_inverse
// SPLIT:           tile.mbarrier_wait
// SPLIT:           tile.gemm
// SPLIT:           tile.mbarrier_arrive
// SPLIT:         return

// In the PTX the producer gives registers back to 104, the consumers take
// 200; the task's threads are numbered from 256 (tid.x - 256); its barriers
// are named ones (their ids are in registers here: SPLIT above checks id
// 2). The chunk loop runs with LLVM's LICM off (llvm.loop.licm.disable on
// its latch in the LLVM IR): per-thread addresses stay inside the loop
// instead of occupying registers across it, without which both roles
// spill at every split (docs/perf-notes.md v36).
// PTX-LABEL: .entry gdn_chunk_fused_vm128_f16(
// PTX:         setmaxnreg.dec.sync.aligned.u32 104;
// PTX:         add.s32 {{.*}}, -256;
// PTX:         bar.sync {{.*}};
// PTX:         setmaxnreg.inc.sync.aligned.u32 200;

// PTXAS: Function properties for gdn_chunk_fused_vm128_f16
// PTXAS-NEXT: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

// MANIFEST: kernel = gdn_chunk_fused_vm128_f16
// MANIFEST: block = 384,1,1
// MANIFEST: param = g:ptr<f32>
// MANIFEST: param = beta:ptr<f16>


  func.func @gdn_chunk_fused_vm128_@DT@(
      %pq: !tile.ptr<@DT@> {tile.name = "q"}, %pk: !tile.ptr<@DT@> {tile.name = "k"},
      %pv: !tile.ptr<@DT@> {tile.name = "v"}, %ph0: !tile.ptr<f32> {tile.name = "h0"},
      %pg: !tile.ptr<f32> {tile.name = "g"}, %pbeta: !tile.ptr<@DT@> {tile.name = "beta"},
      %pcu: !tile.ptr<i32> {tile.name = "cu_seqlens"},
      %po: !tile.ptr<@DT@> {tile.name = "o"}, %pht: !tile.ptr<f32> {tile.name = "ht"},
      %B: i32 {tile.name = "B"}, %T: i32 {tile.name = "T"},
      %H: i32 {tile.name = "H"}, %HV: i32 {tile.name = "HV"},
      %N: i32 {tile.name = "N"}, %has_h0: i32 {tile.name = "has_h0"},
      %scale: f32 {tile.name = "scale"}, %svf: i32 {tile.name = "state_v_first"})
      attributes {tile.kernel, tile.num_warps = 8 : i64, tile.mma_engine = "wgmma", tile.copy_engine = "tma",
                  tile.warp_specialize = {producer_registers = 104 : i64, consumer_registers = 200 : i64},
                  tile.meta = {op = "gdn_prefill", dtype = "@DT@", stage = "chunk_fused", path = "direct",
                               order = 3 : i64, grid = "1,HV,N", block_v = 128 : i64}} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    %c0_i32 = arith.constant 0 : i32
    %zero = arith.constant 0.0 : f32
    %one = arith.constant 1.0 : f32
    %true = arith.constant true
    // The hand-off ring first: its barriers are initialized before the
    // warpgroups split (tile-warp-specialize splits after the last
    // initialization's barrier).
    %agr = tile.alloc : !tile.buffer<2x64x64x@DT@, shared, #tile.swizzle<128>>
    %gmr = tile.alloc : !tile.buffer<2x96xf32, shared>
    %full = tile.alloc : !tile.buffer<2xi64, shared>
    %empty = tile.alloc : !tile.buffer<2xi64, shared>
    tile.producer {
      tile.mbarrier_init %full {count = 1} : !tile.buffer<2xi64, shared>
      tile.mbarrier_init %empty {count = 256} : !tile.buffer<2xi64, shared>
    }
    tile.barrier
    %b = arith.index_cast %B : i32 to index
    %t = arith.index_cast %T : i32 to index
    %h = arith.index_cast %H : i32 to index
    %hvs = arith.index_cast %HV : i32 to index
    %n = arith.index_cast %N : i32 to index
    %tt = arith.muli %b, %t : index
    %n1 = arith.addi %n, %c1 : index
    %vtile = tile.program_id x
    %hv = tile.program_id y
    %seq = tile.program_id z
    %c128 = arith.constant 128 : index
    %v0 = arith.muli %vtile, %c128 : index
    %group = arith.divui %hvs, %h : index
    %qh = arith.divui %hv, %group : index
    %cu = tile.view %pcu[%n1] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
    %seq1 = arith.addi %seq, %c1 : index
    %bos_i = tile.load %cu[%seq] : !tile.buffer<?xi32, global>
    %eos_i = tile.load %cu[%seq1] : !tile.buffer<?xi32, global>
    %bos = arith.index_cast %bos_i : i32 to index
    %eos = arith.index_cast %eos_i : i32 to index
    %len = arith.subi %eos, %bos : index
    %H0 = tile.view %ph0[%n, %hvs] : !tile.ptr<f32> -> !tile.buffer<?x?x128x128xf32, global>
    %H0s = tile.take %H0[%seq, %hv] dims [0, 1] : !tile.buffer<?x?x128x128xf32, global> -> !tile.buffer<128x128xf32, global>
    %HT = tile.view %pht[%n, %hvs] : !tile.ptr<f32> -> !tile.buffer<?x?x128x128xf32, global>
    %HTs = tile.take %HT[%seq, %hv] dims [0, 1] : !tile.buffer<?x?x128x128xf32, global> -> !tile.buffer<128x128xf32, global>
    %S = tile.alloc : !tile.buffer<128x128xf32, fragment>
    %with_h0 = arith.cmpi ne, %has_h0, %c0_i32 : i32
    %vfirst = arith.cmpi ne, %svf, %c0_i32 : i32
    scf.if %with_h0 {
      scf.if %vfirst {
        tile.copy %H0s[%v0, %c0] to %S : !tile.buffer<128x128xf32, global> to !tile.buffer<128x128xf32, fragment>
      } else {
        tile.copy %H0s[%c0, %v0] to %S {transpose} : !tile.buffer<128x128xf32, global> to !tile.buffer<128x128xf32, fragment>
      }
    } else {
      tile.fill %S, %zero : !tile.buffer<128x128xf32, fragment>, f32
    }
    func.call @gdn_chunk_loop_fused_@DT@(%S, %agr, %gmr, %full, %empty, %pq, %pk, %pv, %pg, %pbeta, %po, %tt, %h, %hvs, %hv, %qh, %v0, %bos, %len, %scale, %one, %true)
      : (!tile.buffer<128x128xf32, fragment>, !tile.buffer<2x64x64x@DT@, shared, #tile.swizzle<128>>, !tile.buffer<2x96xf32, shared>, !tile.buffer<2xi64, shared>, !tile.buffer<2xi64, shared>, !tile.ptr<@DT@>, !tile.ptr<@DT@>, !tile.ptr<@DT@>, !tile.ptr<f32>, !tile.ptr<@DT@>, !tile.ptr<@DT@>, index, index, index, index, index, index, index, index, f32, f32, i1) -> ()
    func.call @gdn_store_state_vm_@DT@(%S, %HTs, %v0, %vfirst)
      : (!tile.buffer<128x128xf32, fragment>, !tile.buffer<128x128xf32, global>, index, i1) -> ()
    return
  }
}
