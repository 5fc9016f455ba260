// RUN: gdn-opt %s -split-input-file -verify-diagnostics

// Verifier diagnostics of the ready-flag ops.

func.func @f32_flags(%pf: !tile.ptr<f32>, %n: index, %i: index, %e: i32) {
  %F = tile.view %pf[%n] : !tile.ptr<f32> -> !tile.buffer<?xf32, global>
  // expected-error @below {{flags must be a 1-D global buffer of i32, got '!tile.buffer<?xf32, global>'}}
  tile.flag_wait %F[%i], %e : !tile.buffer<?xf32, global>
  return
}

// -----

func.func @shared_flags(%i: index, %e: i32) {
  %F = tile.alloc : !tile.buffer<8xi32, shared>
  // expected-error @below {{flags must be a 1-D global buffer of i32, got '!tile.buffer<8xi32, shared>'}}
  tile.flag_release %F[%i], %e : !tile.buffer<8xi32, shared>
  return
}

// -----

func.func @rank2_flags(%pf: !tile.ptr<i32>, %n: index, %i: index, %e: i32) {
  %F = tile.view %pf[%n] : !tile.ptr<i32> -> !tile.buffer<?x4xi32, global>
  // expected-error @below {{flags must be a 1-D global buffer of i32, got '!tile.buffer<?x4xi32, global>'}}
  tile.flag_wait %F[%i], %e : !tile.buffer<?x4xi32, global>
  return
}

// -----

func.func @out_of_bounds(%pf: !tile.ptr<i32>, %e: i32) {
  %c8 = arith.constant 8 : index
  %F = tile.view %pf[] : !tile.ptr<i32> -> !tile.buffer<8xi32, global>
  // expected-error @below {{flag index 8 is out of bounds for 8 flags}}
  tile.flag_release %F[%c8], %e : !tile.buffer<8xi32, global>
  return
}

// -----

func.func @negative(%pf: !tile.ptr<i32>, %n: index, %e: i32) {
  %cm1 = arith.constant -1 : index
  %F = tile.view %pf[%n] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  // expected-error @below {{flag index -1 is out of bounds for a buffer}}
  tile.flag_wait %F[%cm1], %e : !tile.buffer<?xi32, global>
  return
}

// -----

func.func @value_type(%pf: !tile.ptr<i32>, %n: index, %i: index, %e: i64) {
  %F = tile.view %pf[%n] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  // expected-error @below {{operand #2 must be 32-bit signless integer, but got 'i64'}}
  "tile.flag_wait"(%F, %i, %e) : (!tile.buffer<?xi32, global>, index, i64) -> ()
  return
}

// -----

func.func @timeout(%pf: !tile.ptr<i32>, %n: index, %i: index, %e: i32) {
  %F = tile.view %pf[%n] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  // expected-error @below {{attribute 'timeout_ms' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative whose maximum value is 3600000}}
  tile.flag_wait %F[%i], %e {timeout_ms = 3600001} : !tile.buffer<?xi32, global>
  return
}

// -----

func.func @release_in_producer(%pf: !tile.ptr<i32>, %n: index, %i: index, %e: i32)
    attributes {tile.kernel, tile.num_warps = 4 : i64} {
  %F = tile.view %pf[%n] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  tile.producer {
    // expected-error @below {{cannot be in a tile.producer region: one thread runs it, and the release waits for all threads of the block}}
    tile.flag_release %F[%i], %e : !tile.buffer<?xi32, global>
  }
  return
}

// -----

func.func @release_in_producer_warps(%pf: !tile.ptr<i32>, %n: index, %i: index, %e: i32)
    attributes {tile.kernel, tile.num_warps = 8 : i64, tile.producer_warps = 4 : i64} {
  %F = tile.view %pf[%n] : !tile.ptr<i32> -> !tile.buffer<?xi32, global>
  tile.warp_specialize {producer_warps = 4, producer_registers = 40, consumer_registers = 232}
  producer {
    // expected-error @below {{cannot be in the producer region of tile.warp_specialize outside a tile.producer_task}}
    tile.flag_release %F[%i], %e : !tile.buffer<?xi32, global>
  } consumer {
    tile.barrier {id = 1, threads = 256}
  }
  return
}
