// RUN: gdn-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(func.func(tile-pipeline))'

// Multi-buffering must fit in shared memory: 4 stages of a 64 KiB tile are
// 256 KiB, more than a block has. Rejected when the stage buffers are made,
// with the sizes, rather than by the plan.
func.func @too_many_stages(%p: !tile.ptr<f16>, %n: index) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %g = tile.view %p[%n] : !tile.ptr<f16> -> !tile.buffer<?x256xf16, global>
  %s = tile.alloc : !tile.buffer<128x256xf16, shared>
  tile.for %k = %c0 to %n step %c64 stages 4 {
    // expected-error @below {{'tile.copy' op pipelining over 4 stages needs 262144 bytes for the shared buffer 128x256xf16, more than the 232448 bytes of shared memory of a block}}
    tile.copy %g[%k, %c0] to %s : !tile.buffer<?x256xf16, global> to !tile.buffer<128x256xf16, shared>
    %v = tile.load %s[%c0, %c0] : !tile.buffer<128x256xf16, shared>
  }
  return
}

// -----

// A group-skewed padded buffer (#tile.padded<P, G, S>, rank 2 only) cannot
// get the stages' leading dimension: rejected with the reason.
func.func @skewed_stage(%p: !tile.ptr<f32>, %n: index) attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %g = tile.view %p[%n] : !tile.ptr<f32> -> !tile.buffer<?x64xf32, global>
  %s = tile.alloc : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  tile.for %k = %c0 to %n step %c64 stages 2 {
    // expected-error @below {{'tile.copy' op pipelining cannot multi-buffer the shared buffer 64x64xf32: its layout #tile.padded<8, 4, 4> has a group skew, which takes rank-2 buffers only}}
    tile.copy %g[%k, %c0] to %s : !tile.buffer<?x64xf32, global> to !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
    %v = tile.load %s[%c0, %c0] : !tile.buffer<64x64xf32, shared, #tile.padded<8, 4, 4>>
  }
  return
}
