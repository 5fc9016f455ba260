// RUN: gdn-opt %s -split-input-file -verify-diagnostics

// Verifier diagnostics of tile.prefetch.

func.func @shared(%r: index) {
  %s = tile.alloc : !tile.buffer<64x64xf16, shared>
  // expected-error @below {{source must be a global buffer, got '!tile.buffer<64x64xf16, shared>'}}
  tile.prefetch %s[%r, %r] {shape = array<i64: 64, 64>} : !tile.buffer<64x64xf16, shared>
  return
}

// -----

func.func @offsets(%pk: !tile.ptr<f16>, %n: index, %r: index) {
  %K = tile.view %pk[%n] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  // expected-error @below {{expected 2 offsets (one per dimension), got 1}}
  tile.prefetch %K[%r] {shape = array<i64: 64, 128>} : !tile.buffer<?x128xf16, global>
  return
}

// -----

func.func @shape_rank(%pk: !tile.ptr<f16>, %n: index, %r: index) {
  %K = tile.view %pk[%n] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  // expected-error @below {{shape has 1 dimensions, the buffer 2}}
  tile.prefetch %K[%r, %r] {shape = array<i64: 64>} : !tile.buffer<?x128xf16, global>
  return
}

// -----

func.func @empty(%pk: !tile.ptr<f16>, %n: index, %r: index) {
  %K = tile.view %pk[%n] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  // expected-error @below {{shape dimensions must be in [1, 2^20]}}
  tile.prefetch %K[%r, %r] {shape = array<i64: 0, 128>} : !tile.buffer<?x128xf16, global>
  return
}

// -----

func.func @huge(%pk: !tile.ptr<f16>, %n: index, %r: index) {
  %c0 = arith.constant 0 : index
  %K = tile.view %pk[%n] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  // expected-error @below {{prefetches at most 16384 units (128-byte lines of the rows' runs, or elements of a strided view)}}
  tile.prefetch %K[%r, %c0] {shape = array<i64: 8192, 128>} : !tile.buffer<?x128xf16, global>
  return
}

// -----

func.func @too_wide(%pk: !tile.ptr<f16>, %n: index, %r: index) {
  %c0 = arith.constant 0 : index
  %K = tile.view %pk[%n] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  // expected-error @below {{shape 256 exceeds the buffer's size 128 along dimension 1}}
  tile.prefetch %K[%r, %c0] {shape = array<i64: 64, 256>} : !tile.buffer<?x128xf16, global>
  return
}

// -----

func.func @past_the_end(%pk: !tile.ptr<f16>, %n: index, %r: index) {
  %c100 = arith.constant 100 : index
  %K = tile.view %pk[%n] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  // expected-error @below {{tile [100, 164) exceeds the buffer's size 128 along dimension 1}}
  tile.prefetch %K[%r, %c100] {shape = array<i64: 64, 64>} : !tile.buffer<?x128xf16, global>
  return
}

// -----

func.func @negative(%pk: !tile.ptr<f16>, %n: index) {
  %cm1 = arith.constant -1 : index
  %c0 = arith.constant 0 : index
  %K = tile.view %pk[%n] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  // expected-error @below {{offset -1 along dimension 0 is negative}}
  tile.prefetch %K[%cm1, %c0] {shape = array<i64: 64, 128>} : !tile.buffer<?x128xf16, global>
  return
}

// -----

func.func @one_thread(%pk: !tile.ptr<f16>, %n: index, %r: index)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %K = tile.view %pk[%n] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  tile.producer {
    // expected-error @below {{cannot be in a tile.producer region: the block's threads share its lines}}
    tile.prefetch %K[%r, %c0] {shape = array<i64: 64, 128>} : !tile.buffer<?x128xf16, global>
  }
  return
}
