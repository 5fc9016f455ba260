// REQUIRES: ptxas
// RUN: rm -rf %t && mkdir -p %t
// RUN: gdn-opt %s --gdn-lower-to-ptx="output-dir=%t" -o /dev/null
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t/flag_kernels.ptx
// RUN: %ptxas -arch=sm_90a -v %t/flag_kernels.ptx -o %t/x.cubin > %t/ptxas.log 2>&1
// RUN: FileCheck %s --check-prefix=PTXAS --implicit-check-not=warning --input-file=%t/ptxas.log

// Ready flags through the whole pipeline: a kernel that writes a tile and
// publishes it, and a warp-specialized TMA ring whose producer thread waits
// for each iteration's flag before the stage's loads. ptxas accepts the PTX
// for sm_90a without warnings.

// PTX-LABEL: .entry publish(
// PTX:         st.global
// PTX:         bar.sync 0;
// PTX:         fence.proxy.async.global;
// PTX-NEXT:    st.release.gpu.global.b32
// A tile written with a TMA store (tile-tma-store): before the release, the
// first thread (which issued the store) waits for its global writes, not
// only for its shared reads.
// PTX-LABEL: .entry publish_tma(
// PTX:         cp.async.bulk.tensor.2d.global.shared::cta
// PTX:         cp.async.bulk.wait_group.read 0;
// PTX:         bar.sync 0;
// PTX:         cp.async.bulk.wait_group 0;
// PTX-NEXT:    fence.proxy.async.global;
// PTX-NEXT:    st.release.gpu.global.b32
// PTX-LABEL: .entry consume(
// The producer warpgroup (after setmaxnreg.dec): the flag, then the stage.
// PTX:         setmaxnreg.dec.sync.aligned.u32 40;
// PTX:         ld.acquire.gpu.global.b32
// PTX:         %globaltimer
// PTX:         trap;
// PTX:         fence.proxy.async.global;
// PTX:         mbarrier.try_wait.parity
// PTX:         cp.async.bulk.tensor.2d
// PTX:         setmaxnreg.inc.sync.aligned.u32 256;

// PTXAS: Compiling entry function 'consume' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'publish_tma' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
// PTXAS: Compiling entry function 'publish' for 'sm_90a'
// PTXAS: 0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads

module @flag_kernels {
  // Block b writes rows [64 b, 64 b + 64) of X, then sets ready[b] = epoch.
  func.func @publish(%px: !tile.ptr<f16> {tile.name = "X"}, %pf: !tile.ptr<i32> {tile.name = "ready"},
                     %K: i32 {tile.name = "K"}, %epoch: i32 {tile.name = "epoch"})
      attributes {tile.kernel, tile.num_warps = 4 : i64} {
    %c64 = arith.constant 64 : index
    %one = arith.constant 1.0 : f16
    %k = arith.index_cast %K : i32 to index
    %X = tile.view %px[%k] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
    %F = tile.view %pf[%k] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
    %b = tile.program_id x
    %row = arith.muli %b, %c64 : index
    %c0 = arith.constant 0 : index
    %t = tile.alloc : !tile.buffer<64x64xf16, fragment>
    tile.fill %t, %one : !tile.buffer<64x64xf16, fragment>, f16
    tile.copy %t to %X[%row, %c0] : !tile.buffer<64x64xf16, fragment> to !tile.buffer<?x64xf16, global>
    tile.flag_release %F[%b], %epoch : !tile.buffer<?xi32, global>
    return
  }

  // The same with the tile staged in shared memory and stored by TMA.
  func.func @publish_tma(%px: !tile.ptr<f16> {tile.name = "X"}, %pf: !tile.ptr<i32> {tile.name = "ready"},
                         %K: i32 {tile.name = "K"}, %epoch: i32 {tile.name = "epoch"})
      attributes {tile.kernel, tile.num_warps = 4 : i64, tile.copy_engine = "tma"} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %one = arith.constant 1.0 : f16
    %k = arith.index_cast %K : i32 to index
    %X = tile.view %px[%k] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
    %F = tile.view %pf[%k] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
    %b = tile.program_id x
    %row = arith.muli %b, %c64 : index
    %t = tile.alloc : !tile.buffer<64x64xf16, fragment>
    %s = tile.alloc : !tile.buffer<64x64xf16, shared>
    tile.fill %t, %one : !tile.buffer<64x64xf16, fragment>, f16
    tile.copy %t to %s : !tile.buffer<64x64xf16, fragment> to !tile.buffer<64x64xf16, shared>
    tile.copy %s to %X[%row, %c0] : !tile.buffer<64x64xf16, shared> to !tile.buffer<?x64xf16, global>
    tile.flag_release %F[%b], %epoch : !tile.buffer<?xi32, global>
    return
  }

  // C = sum over the published tiles of X_c^T X_c, tile c loaded once
  // ready[c] = epoch.
  func.func @consume(%px: !tile.ptr<f16> {tile.name = "X"}, %pf: !tile.ptr<i32> {tile.name = "ready"},
                     %pc: !tile.ptr<f32> {tile.name = "C"},
                     %K: i32 {tile.name = "K"}, %epoch: i32 {tile.name = "epoch"})
      attributes {tile.kernel, tile.num_warps = 4 : i64, tile.mma_engine = "wgmma", tile.copy_engine = "tma",
                  tile.warp_specialize = {producer_registers = 40 : i64, consumer_registers = 256 : i64}} {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %zero = arith.constant 0.0 : f32
    %k = arith.index_cast %K : i32 to index
    %X = tile.view %px[%k] : !tile.ptr<f16> -> !tile.buffer<?x64xf16, global>
    %F = tile.view %pf[%k] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
    %C = tile.view %pc[] : !tile.ptr<f32> -> !tile.buffer<64x64xf32, global>
    %sX = tile.alloc : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
    %acc = tile.alloc : !tile.buffer<64x64xf32, fragment>
    tile.fill %acc, %zero : !tile.buffer<64x64xf32, fragment>, f32
    tile.for %kk = %c0 to %k step %c64 stages 2 {
      %chunk = arith.divsi %kk, %c64 : index
      tile.flag_wait %F[%chunk], %epoch : !tile.buffer<?xi32, global>
      tile.copy %X[%kk, %c0] to %sX : !tile.buffer<?x64xf16, global> to !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>
      tile.gemm %sX, %sX, %acc {transpose_a} : !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<64x64xf32, fragment>
    }
    tile.copy %acc to %C[%c0, %c0] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, global>
    return
  }
}
