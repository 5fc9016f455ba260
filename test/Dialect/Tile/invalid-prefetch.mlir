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
  // expected-error @below {{shape dimensions must be positive}}
  tile.prefetch %K[%r, %r] {shape = array<i64: 0, 128>} : !tile.buffer<?x128xf16, global>
  return
}

// -----

func.func @huge(%pk: !tile.ptr<f16>, %n: index, %r: index) {
  %K = tile.view %pk[%n] : !tile.ptr<f16> -> !tile.buffer<?x128xf16, global>
  // expected-error @below {{prefetches at most 2^20 elements}}
  tile.prefetch %K[%r, %r] {shape = array<i64: 16384, 128>} : !tile.buffer<?x128xf16, global>
  return
}
