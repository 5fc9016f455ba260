// Hardware checks of the compiler's exact triangular inverse: gdn-run --op
// tril_inverse (tools/gdn-run/TrilInverseDriver.h) runs each kernel on
// random L (the GDN prep's beta_i <k_i, k_j> below the diagonal, 3.0 on it,
// NaN above it) and compares T = (I + strict_lower(L))^-1 with fp64.
// One block per n x n matrix: L into shared memory, tile.tril_inverse,
// T out through registers. tile-expand-tril-inverse turns the inverse into
// the phases the GDN prep kernels use only at n = 64 (the diagonal blocks
// with the size-16 merge on their own warps, the size-32 merge): these
// kernels run the other sizes and forms on the hardware too,
//   n = 32  (one warp: the diagonal phase with its merge, nothing else),
//   n = 48  (three blocks per row: the levels),
//   n = 64  (the kernels' phases; zeros above the diagonal written),
//   n = 64  lower_only (the prep's form: the upper blocks neither written
//           nor read; the store masks them), on four warps and on five,
//   n = 128 lower_only on eight warps (with gdn-lower-to-ptx stage-lo=1,
//           as the build also compiles this file, the 64x64 forms split
//           the final merge's L21 on the threads idle in the diagonal phase:
//           four warps in rounds of whole rows, five not, eight at n = 128),
//   n = 64  packed (one buffer: L below, T transposed above; unpacked by
//           the store),
//   n = 128 (merges of sizes 16, 32 and 64: two rounds of merge tasks on
//           four warps, one branch per 16-column block),
//   n = 16 and 24 (left as tile.tril_inverse: one column per thread),
//   n = 128 on one warp and n = 96 packed on one warp (one column per
//           thread too, four and three columns each: past 4,096 unrolled
//           multiply-adds the lowering emits it as loops),
//   n = 64 lower_only, 128 (four warps) and 128 lower_only (eight) with L
//           stored from registers (`_regs`), as the prep stores it: padded
//           rows (with gdn-lower-to-ptx tril-overlap=1, as the build also
//           compiles this file, T then lies over half of L).
// Not part of the GDN kernel bundle (meta.op is not gdn_prefill).

module @tril_inverse_checks {
  func.func @tril_inverse_n16(
      %pl: !tile.ptr<f32> {tile.name = "L"}, %pt: !tile.ptr<f32> {tile.name = "T"},
      %count: i32 {tile.name = "count"})
      attributes {tile.kernel, tile.num_warps = 1 : i64,
                  tile.meta = {op = "tril_inverse", n = 16 : i64}} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %cnt = arith.index_cast %count : i32 to index
    %b = tile.program_id x
    %L = tile.view %pl[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x16x16xf32, global>
    %T = tile.view %pt[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x16x16xf32, global>
    %Lb = tile.take %L[%b] dims [0] : !tile.buffer<?x16x16xf32, global> -> !tile.buffer<16x16xf32, global>
    %Tb = tile.take %T[%b] dims [0] : !tile.buffer<?x16x16xf32, global> -> !tile.buffer<16x16xf32, global>
    %sL = tile.alloc : !tile.buffer<16x16xf32, shared>
    tile.copy %Lb[%c0, %c0] to %sL : !tile.buffer<16x16xf32, global> to !tile.buffer<16x16xf32, shared>
    %x = tile.alloc : !tile.buffer<16x16xf32, fragment>
    %sT = tile.alloc : !tile.buffer<16x16xf32, shared>
    tile.tril_inverse %sL, %sT : !tile.buffer<16x16xf32, shared>, !tile.buffer<16x16xf32, shared>
    tile.copy %sT to %x : !tile.buffer<16x16xf32, shared> to !tile.buffer<16x16xf32, fragment>
    tile.copy %x to %Tb[%c0, %c0] : !tile.buffer<16x16xf32, fragment> to !tile.buffer<16x16xf32, global>
    return
  }

  func.func @tril_inverse_n24(
      %pl: !tile.ptr<f32> {tile.name = "L"}, %pt: !tile.ptr<f32> {tile.name = "T"},
      %count: i32 {tile.name = "count"})
      attributes {tile.kernel, tile.num_warps = 1 : i64,
                  tile.meta = {op = "tril_inverse", n = 24 : i64}} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %cnt = arith.index_cast %count : i32 to index
    %b = tile.program_id x
    %L = tile.view %pl[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x24x24xf32, global>
    %T = tile.view %pt[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x24x24xf32, global>
    %Lb = tile.take %L[%b] dims [0] : !tile.buffer<?x24x24xf32, global> -> !tile.buffer<24x24xf32, global>
    %Tb = tile.take %T[%b] dims [0] : !tile.buffer<?x24x24xf32, global> -> !tile.buffer<24x24xf32, global>
    %sL = tile.alloc : !tile.buffer<24x24xf32, shared>
    tile.copy %Lb[%c0, %c0] to %sL : !tile.buffer<24x24xf32, global> to !tile.buffer<24x24xf32, shared>
    %x = tile.alloc : !tile.buffer<24x24xf32, fragment>
    %sT = tile.alloc : !tile.buffer<24x24xf32, shared>
    tile.tril_inverse %sL, %sT : !tile.buffer<24x24xf32, shared>, !tile.buffer<24x24xf32, shared>
    tile.copy %sT to %x : !tile.buffer<24x24xf32, shared> to !tile.buffer<24x24xf32, fragment>
    tile.copy %x to %Tb[%c0, %c0] : !tile.buffer<24x24xf32, fragment> to !tile.buffer<24x24xf32, global>
    return
  }

  func.func @tril_inverse_n32(
      %pl: !tile.ptr<f32> {tile.name = "L"}, %pt: !tile.ptr<f32> {tile.name = "T"},
      %count: i32 {tile.name = "count"})
      attributes {tile.kernel, tile.num_warps = 1 : i64,
                  tile.meta = {op = "tril_inverse", n = 32 : i64}} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %cnt = arith.index_cast %count : i32 to index
    %b = tile.program_id x
    %L = tile.view %pl[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x32x32xf32, global>
    %T = tile.view %pt[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x32x32xf32, global>
    %Lb = tile.take %L[%b] dims [0] : !tile.buffer<?x32x32xf32, global> -> !tile.buffer<32x32xf32, global>
    %Tb = tile.take %T[%b] dims [0] : !tile.buffer<?x32x32xf32, global> -> !tile.buffer<32x32xf32, global>
    %sL = tile.alloc : !tile.buffer<32x32xf32, shared>
    tile.copy %Lb[%c0, %c0] to %sL : !tile.buffer<32x32xf32, global> to !tile.buffer<32x32xf32, shared>
    %x = tile.alloc : !tile.buffer<32x32xf32, fragment>
    %sT = tile.alloc : !tile.buffer<32x32xf32, shared>
    tile.tril_inverse %sL, %sT : !tile.buffer<32x32xf32, shared>, !tile.buffer<32x32xf32, shared>
    tile.copy %sT to %x : !tile.buffer<32x32xf32, shared> to !tile.buffer<32x32xf32, fragment>
    tile.copy %x to %Tb[%c0, %c0] : !tile.buffer<32x32xf32, fragment> to !tile.buffer<32x32xf32, global>
    return
  }

  func.func @tril_inverse_n48(
      %pl: !tile.ptr<f32> {tile.name = "L"}, %pt: !tile.ptr<f32> {tile.name = "T"},
      %count: i32 {tile.name = "count"})
      attributes {tile.kernel, tile.num_warps = 2 : i64,
                  tile.meta = {op = "tril_inverse", n = 48 : i64}} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %cnt = arith.index_cast %count : i32 to index
    %b = tile.program_id x
    %L = tile.view %pl[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x48x48xf32, global>
    %T = tile.view %pt[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x48x48xf32, global>
    %Lb = tile.take %L[%b] dims [0] : !tile.buffer<?x48x48xf32, global> -> !tile.buffer<48x48xf32, global>
    %Tb = tile.take %T[%b] dims [0] : !tile.buffer<?x48x48xf32, global> -> !tile.buffer<48x48xf32, global>
    %sL = tile.alloc : !tile.buffer<48x48xf32, shared>
    tile.copy %Lb[%c0, %c0] to %sL : !tile.buffer<48x48xf32, global> to !tile.buffer<48x48xf32, shared>
    %x = tile.alloc : !tile.buffer<48x48xf32, fragment>
    %sT = tile.alloc : !tile.buffer<48x48xf32, shared>
    tile.tril_inverse %sL, %sT : !tile.buffer<48x48xf32, shared>, !tile.buffer<48x48xf32, shared>
    tile.copy %sT to %x : !tile.buffer<48x48xf32, shared> to !tile.buffer<48x48xf32, fragment>
    tile.copy %x to %Tb[%c0, %c0] : !tile.buffer<48x48xf32, fragment> to !tile.buffer<48x48xf32, global>
    return
  }

  func.func @tril_inverse_n64(
      %pl: !tile.ptr<f32> {tile.name = "L"}, %pt: !tile.ptr<f32> {tile.name = "T"},
      %count: i32 {tile.name = "count"})
      attributes {tile.kernel, tile.num_warps = 4 : i64,
                  tile.meta = {op = "tril_inverse", n = 64 : i64}} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %cnt = arith.index_cast %count : i32 to index
    %b = tile.program_id x
    %L = tile.view %pl[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x64x64xf32, global>
    %T = tile.view %pt[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x64x64xf32, global>
    %Lb = tile.take %L[%b] dims [0] : !tile.buffer<?x64x64xf32, global> -> !tile.buffer<64x64xf32, global>
    %Tb = tile.take %T[%b] dims [0] : !tile.buffer<?x64x64xf32, global> -> !tile.buffer<64x64xf32, global>
    %sL = tile.alloc : !tile.buffer<64x64xf32, shared>
    tile.copy %Lb[%c0, %c0] to %sL : !tile.buffer<64x64xf32, global> to !tile.buffer<64x64xf32, shared>
    %x = tile.alloc : !tile.buffer<64x64xf32, fragment>
    %sT = tile.alloc : !tile.buffer<64x64xf32, shared>
    tile.tril_inverse %sL, %sT : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
    tile.copy %sT to %x : !tile.buffer<64x64xf32, shared> to !tile.buffer<64x64xf32, fragment>
    tile.copy %x to %Tb[%c0, %c0] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, global>
    return
  }

  func.func @tril_inverse_n64_lower_only(
      %pl: !tile.ptr<f32> {tile.name = "L"}, %pt: !tile.ptr<f32> {tile.name = "T"},
      %count: i32 {tile.name = "count"})
      attributes {tile.kernel, tile.num_warps = 4 : i64,
                  tile.meta = {op = "tril_inverse", n = 64 : i64}} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %cnt = arith.index_cast %count : i32 to index
    %b = tile.program_id x
    %L = tile.view %pl[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x64x64xf32, global>
    %T = tile.view %pt[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x64x64xf32, global>
    %Lb = tile.take %L[%b] dims [0] : !tile.buffer<?x64x64xf32, global> -> !tile.buffer<64x64xf32, global>
    %Tb = tile.take %T[%b] dims [0] : !tile.buffer<?x64x64xf32, global> -> !tile.buffer<64x64xf32, global>
    %sL = tile.alloc : !tile.buffer<64x64xf32, shared>
    tile.copy %Lb[%c0, %c0] to %sL : !tile.buffer<64x64xf32, global> to !tile.buffer<64x64xf32, shared>
    %x = tile.alloc : !tile.buffer<64x64xf32, fragment>
    %sT = tile.alloc : !tile.buffer<64x64xf32, shared>
    tile.tril_inverse %sL, %sT {lower_only} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
    // The blocks above the diagonal hold whatever was there: masked.
    tile.copy %sT to %x {block_lower = 16 : i64} : !tile.buffer<64x64xf32, shared> to !tile.buffer<64x64xf32, fragment>
    tile.map indexed ins(%x : !tile.buffer<64x64xf32, fragment>) outs(%x : !tile.buffer<64x64xf32, fragment>) {
    ^bb0(%i: index, %j: index, %v: f32):
      %lower = arith.cmpi uge, %i, %j : index
      %r = arith.select %lower, %v, %zero : f32
      tile.yield %r : f32
    }
    tile.copy %x to %Tb[%c0, %c0] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, global>
    return
  }

  func.func @tril_inverse_n64_lower_only_w5(
      %pl: !tile.ptr<f32> {tile.name = "L"}, %pt: !tile.ptr<f32> {tile.name = "T"},
      %count: i32 {tile.name = "count"})
      attributes {tile.kernel, tile.num_warps = 5 : i64,
                  tile.meta = {op = "tril_inverse", n = 64 : i64}} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %cnt = arith.index_cast %count : i32 to index
    %b = tile.program_id x
    %L = tile.view %pl[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x64x64xf32, global>
    %T = tile.view %pt[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x64x64xf32, global>
    %Lb = tile.take %L[%b] dims [0] : !tile.buffer<?x64x64xf32, global> -> !tile.buffer<64x64xf32, global>
    %Tb = tile.take %T[%b] dims [0] : !tile.buffer<?x64x64xf32, global> -> !tile.buffer<64x64xf32, global>
    %sL = tile.alloc : !tile.buffer<64x64xf32, shared>
    tile.copy %Lb[%c0, %c0] to %sL : !tile.buffer<64x64xf32, global> to !tile.buffer<64x64xf32, shared>
    %x = tile.alloc : !tile.buffer<64x64xf32, fragment>
    %sT = tile.alloc : !tile.buffer<64x64xf32, shared>
    tile.tril_inverse %sL, %sT {lower_only} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
    // The blocks above the diagonal hold whatever was there: masked.
    tile.copy %sT to %x {block_lower = 16 : i64} : !tile.buffer<64x64xf32, shared> to !tile.buffer<64x64xf32, fragment>
    tile.map indexed ins(%x : !tile.buffer<64x64xf32, fragment>) outs(%x : !tile.buffer<64x64xf32, fragment>) {
    ^bb0(%i: index, %j: index, %v: f32):
      %lower = arith.cmpi uge, %i, %j : index
      %r = arith.select %lower, %v, %zero : f32
      tile.yield %r : f32
    }
    tile.copy %x to %Tb[%c0, %c0] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, global>
    return
  }

  func.func @tril_inverse_n128_lower_only(
      %pl: !tile.ptr<f32> {tile.name = "L"}, %pt: !tile.ptr<f32> {tile.name = "T"},
      %count: i32 {tile.name = "count"})
      attributes {tile.kernel, tile.num_warps = 8 : i64,
                  tile.meta = {op = "tril_inverse", n = 128 : i64}} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %cnt = arith.index_cast %count : i32 to index
    %b = tile.program_id x
    %L = tile.view %pl[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x128x128xf32, global>
    %T = tile.view %pt[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x128x128xf32, global>
    %Lb = tile.take %L[%b] dims [0] : !tile.buffer<?x128x128xf32, global> -> !tile.buffer<128x128xf32, global>
    %Tb = tile.take %T[%b] dims [0] : !tile.buffer<?x128x128xf32, global> -> !tile.buffer<128x128xf32, global>
    %sL = tile.alloc : !tile.buffer<128x128xf32, shared>
    tile.copy %Lb[%c0, %c0] to %sL : !tile.buffer<128x128xf32, global> to !tile.buffer<128x128xf32, shared>
    %x = tile.alloc : !tile.buffer<128x128xf32, fragment>
    %sT = tile.alloc : !tile.buffer<128x128xf32, shared>
    tile.tril_inverse %sL, %sT {lower_only} : !tile.buffer<128x128xf32, shared>, !tile.buffer<128x128xf32, shared>
    // The blocks above the diagonal hold whatever was there: masked.
    tile.copy %sT to %x {block_lower = 16 : i64} : !tile.buffer<128x128xf32, shared> to !tile.buffer<128x128xf32, fragment>
    tile.map indexed ins(%x : !tile.buffer<128x128xf32, fragment>) outs(%x : !tile.buffer<128x128xf32, fragment>) {
    ^bb0(%i: index, %j: index, %v: f32):
      %lower = arith.cmpi uge, %i, %j : index
      %r = arith.select %lower, %v, %zero : f32
      tile.yield %r : f32
    }
    tile.copy %x to %Tb[%c0, %c0] : !tile.buffer<128x128xf32, fragment> to !tile.buffer<128x128xf32, global>
    return
  }

  func.func @tril_inverse_n64_packed(
      %pl: !tile.ptr<f32> {tile.name = "L"}, %pt: !tile.ptr<f32> {tile.name = "T"},
      %count: i32 {tile.name = "count"})
      attributes {tile.kernel, tile.num_warps = 4 : i64,
                  tile.meta = {op = "tril_inverse", n = 64 : i64}} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %cnt = arith.index_cast %count : i32 to index
    %b = tile.program_id x
    %L = tile.view %pl[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x64x64xf32, global>
    %T = tile.view %pt[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x64x64xf32, global>
    %Lb = tile.take %L[%b] dims [0] : !tile.buffer<?x64x64xf32, global> -> !tile.buffer<64x64xf32, global>
    %Tb = tile.take %T[%b] dims [0] : !tile.buffer<?x64x64xf32, global> -> !tile.buffer<64x64xf32, global>
    %sL = tile.alloc : !tile.buffer<64x64xf32, shared>
    tile.copy %Lb[%c0, %c0] to %sL : !tile.buffer<64x64xf32, global> to !tile.buffer<64x64xf32, shared>
    %x = tile.alloc : !tile.buffer<64x64xf32, fragment>
    tile.tril_inverse %sL, %sL {packed} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
    // T(i, j) (i >= j) is at [j][i]; zeros above the diagonal.
    tile.map indexed outs(%x : !tile.buffer<64x64xf32, fragment>) {
    ^bb0(%i: index, %j: index):
      %v = tile.load %sL[%j, %i] : !tile.buffer<64x64xf32, shared>
      %lower = arith.cmpi uge, %i, %j : index
      %r = arith.select %lower, %v, %zero : f32
      tile.yield %r : f32
    }
    tile.copy %x to %Tb[%c0, %c0] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, global>
    return
  }

  func.func @tril_inverse_n128_w1(
      %pl: !tile.ptr<f32> {tile.name = "L"}, %pt: !tile.ptr<f32> {tile.name = "T"},
      %count: i32 {tile.name = "count"})
      attributes {tile.kernel, tile.num_warps = 1 : i64,
                  tile.meta = {op = "tril_inverse", n = 128 : i64}} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %cn = arith.constant 128 : index
    %zero = arith.constant 0.0 : f32
    %cnt = arith.index_cast %count : i32 to index
    %b = tile.program_id x
    %L = tile.view %pl[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x128x128xf32, global>
    %T = tile.view %pt[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x128x128xf32, global>
    %Lb = tile.take %L[%b] dims [0] : !tile.buffer<?x128x128xf32, global> -> !tile.buffer<128x128xf32, global>
    %Tb = tile.take %T[%b] dims [0] : !tile.buffer<?x128x128xf32, global> -> !tile.buffer<128x128xf32, global>
    %sL = tile.alloc : !tile.buffer<128x128xf32, shared>
    tile.copy %Lb[%c0, %c0] to %sL : !tile.buffer<128x128xf32, global> to !tile.buffer<128x128xf32, shared>
    %sT = tile.alloc : !tile.buffer<128x128xf32, shared>
    tile.tril_inverse %sL, %sT : !tile.buffer<128x128xf32, shared>, !tile.buffer<128x128xf32, shared>
    // T out 16 rows at a time (a whole 128x128 fragment would not fit
    // 32 threads' registers).
    %x = tile.alloc : !tile.buffer<16x128xf32, fragment>
    scf.for %s = %c0 to %cn step %c16 {
      tile.map indexed outs(%x : !tile.buffer<16x128xf32, fragment>) {
      ^bb0(%i: index, %j: index):
        %ii = arith.addi %i, %s : index
        %v = tile.load %sT[%ii, %j] : !tile.buffer<128x128xf32, shared>
        tile.yield %v : f32
      }
      tile.copy %x to %Tb[%s, %c0] : !tile.buffer<16x128xf32, fragment> to !tile.buffer<128x128xf32, global>
    }
    return
  }

  func.func @tril_inverse_n96_packed_w1(
      %pl: !tile.ptr<f32> {tile.name = "L"}, %pt: !tile.ptr<f32> {tile.name = "T"},
      %count: i32 {tile.name = "count"})
      attributes {tile.kernel, tile.num_warps = 1 : i64,
                  tile.meta = {op = "tril_inverse", n = 96 : i64}} {
    %c0 = arith.constant 0 : index
    %c16 = arith.constant 16 : index
    %cn = arith.constant 96 : index
    %zero = arith.constant 0.0 : f32
    %cnt = arith.index_cast %count : i32 to index
    %b = tile.program_id x
    %L = tile.view %pl[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x96x96xf32, global>
    %T = tile.view %pt[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x96x96xf32, global>
    %Lb = tile.take %L[%b] dims [0] : !tile.buffer<?x96x96xf32, global> -> !tile.buffer<96x96xf32, global>
    %Tb = tile.take %T[%b] dims [0] : !tile.buffer<?x96x96xf32, global> -> !tile.buffer<96x96xf32, global>
    %sL = tile.alloc : !tile.buffer<96x96xf32, shared>
    tile.copy %Lb[%c0, %c0] to %sL : !tile.buffer<96x96xf32, global> to !tile.buffer<96x96xf32, shared>
    tile.tril_inverse %sL, %sL {packed} : !tile.buffer<96x96xf32, shared>, !tile.buffer<96x96xf32, shared>
    // T out 16 rows at a time (a whole 96x96 fragment would not fit
    // 32 threads' registers).
    // T(i, j) (i >= j) is at [j][i]; zeros above the diagonal.
    %x = tile.alloc : !tile.buffer<16x96xf32, fragment>
    scf.for %s = %c0 to %cn step %c16 {
      tile.map indexed outs(%x : !tile.buffer<16x96xf32, fragment>) {
      ^bb0(%i: index, %j: index):
        %ii = arith.addi %i, %s : index
        %v = tile.load %sL[%j, %ii] : !tile.buffer<96x96xf32, shared>
        %lower = arith.cmpi uge, %ii, %j : index
        %r = arith.select %lower, %v, %zero : f32
        tile.yield %r : f32
      }
      tile.copy %x to %Tb[%s, %c0] : !tile.buffer<16x96xf32, fragment> to !tile.buffer<96x96xf32, global>
    }
    return
  }

  func.func @tril_inverse_n128(
      %pl: !tile.ptr<f32> {tile.name = "L"}, %pt: !tile.ptr<f32> {tile.name = "T"},
      %count: i32 {tile.name = "count"})
      attributes {tile.kernel, tile.num_warps = 4 : i64,
                  tile.meta = {op = "tril_inverse", n = 128 : i64}} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %cnt = arith.index_cast %count : i32 to index
    %b = tile.program_id x
    %L = tile.view %pl[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x128x128xf32, global>
    %T = tile.view %pt[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x128x128xf32, global>
    %Lb = tile.take %L[%b] dims [0] : !tile.buffer<?x128x128xf32, global> -> !tile.buffer<128x128xf32, global>
    %Tb = tile.take %T[%b] dims [0] : !tile.buffer<?x128x128xf32, global> -> !tile.buffer<128x128xf32, global>
    %sL = tile.alloc : !tile.buffer<128x128xf32, shared>
    tile.copy %Lb[%c0, %c0] to %sL : !tile.buffer<128x128xf32, global> to !tile.buffer<128x128xf32, shared>
    %x = tile.alloc : !tile.buffer<128x128xf32, fragment>
    %sT = tile.alloc : !tile.buffer<128x128xf32, shared>
    tile.tril_inverse %sL, %sT : !tile.buffer<128x128xf32, shared>, !tile.buffer<128x128xf32, shared>
    tile.copy %sT to %x : !tile.buffer<128x128xf32, shared> to !tile.buffer<128x128xf32, fragment>
    tile.copy %x to %Tb[%c0, %c0] : !tile.buffer<128x128xf32, fragment> to !tile.buffer<128x128xf32, global>
    return
  }

  // L through registers into shared memory, as the GDN prep's Gram product
  // stores it: only registers touch it, so tile-assign-layouts pads its rows
  // (#tile.padded<4>; with overlap-tril-inverse the inverse's own <8, 4, 4>,
  // and tile-plan-shared-memory lays T over half of it: the _overlap and
  // _overlapsl builds of this file).

  func.func @tril_inverse_n64_lower_only_regs(
      %pl: !tile.ptr<f32> {tile.name = "L"}, %pt: !tile.ptr<f32> {tile.name = "T"},
      %count: i32 {tile.name = "count"})
      attributes {tile.kernel, tile.num_warps = 4 : i64,
                  tile.meta = {op = "tril_inverse", n = 64 : i64}} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %cnt = arith.index_cast %count : i32 to index
    %b = tile.program_id x
    %L = tile.view %pl[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x64x64xf32, global>
    %T = tile.view %pt[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x64x64xf32, global>
    %Lb = tile.take %L[%b] dims [0] : !tile.buffer<?x64x64xf32, global> -> !tile.buffer<64x64xf32, global>
    %Tb = tile.take %T[%b] dims [0] : !tile.buffer<?x64x64xf32, global> -> !tile.buffer<64x64xf32, global>
    %x = tile.alloc : !tile.buffer<64x64xf32, fragment>
    tile.copy %Lb[%c0, %c0] to %x : !tile.buffer<64x64xf32, global> to !tile.buffer<64x64xf32, fragment>
    %sL = tile.alloc : !tile.buffer<64x64xf32, shared>
    tile.copy %x to %sL : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, shared>
    %sT = tile.alloc : !tile.buffer<64x64xf32, shared>
    tile.tril_inverse %sL, %sT  {lower_only} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
    // The blocks above the diagonal hold whatever was there: masked.
    tile.copy %sT to %x {block_lower = 16 : i64} : !tile.buffer<64x64xf32, shared> to !tile.buffer<64x64xf32, fragment>
    tile.map indexed ins(%x : !tile.buffer<64x64xf32, fragment>) outs(%x : !tile.buffer<64x64xf32, fragment>) {
    ^bb0(%i: index, %j: index, %v: f32):
      %lower = arith.cmpi uge, %i, %j : index
      %r = arith.select %lower, %v, %zero : f32
      tile.yield %r : f32
    }
    tile.copy %x to %Tb[%c0, %c0] : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64x64xf32, global>
    return
  }

  func.func @tril_inverse_n128_regs(
      %pl: !tile.ptr<f32> {tile.name = "L"}, %pt: !tile.ptr<f32> {tile.name = "T"},
      %count: i32 {tile.name = "count"})
      attributes {tile.kernel, tile.num_warps = 4 : i64,
                  tile.meta = {op = "tril_inverse", n = 128 : i64}} {
    %c0 = arith.constant 0 : index
    %cnt = arith.index_cast %count : i32 to index
    %b = tile.program_id x
    %L = tile.view %pl[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x128x128xf32, global>
    %T = tile.view %pt[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x128x128xf32, global>
    %Lb = tile.take %L[%b] dims [0] : !tile.buffer<?x128x128xf32, global> -> !tile.buffer<128x128xf32, global>
    %Tb = tile.take %T[%b] dims [0] : !tile.buffer<?x128x128xf32, global> -> !tile.buffer<128x128xf32, global>
    %x = tile.alloc : !tile.buffer<128x128xf32, fragment>
    tile.copy %Lb[%c0, %c0] to %x : !tile.buffer<128x128xf32, global> to !tile.buffer<128x128xf32, fragment>
    %sL = tile.alloc : !tile.buffer<128x128xf32, shared>
    tile.copy %x to %sL : !tile.buffer<128x128xf32, fragment> to !tile.buffer<128x128xf32, shared>
    %sT = tile.alloc : !tile.buffer<128x128xf32, shared>
    tile.tril_inverse %sL, %sT  : !tile.buffer<128x128xf32, shared>, !tile.buffer<128x128xf32, shared>
    tile.copy %sT to %x : !tile.buffer<128x128xf32, shared> to !tile.buffer<128x128xf32, fragment>
    tile.copy %x to %Tb[%c0, %c0] : !tile.buffer<128x128xf32, fragment> to !tile.buffer<128x128xf32, global>
    return
  }

  func.func @tril_inverse_n128_lower_only_regs(
      %pl: !tile.ptr<f32> {tile.name = "L"}, %pt: !tile.ptr<f32> {tile.name = "T"},
      %count: i32 {tile.name = "count"})
      attributes {tile.kernel, tile.num_warps = 8 : i64,
                  tile.meta = {op = "tril_inverse", n = 128 : i64}} {
    %c0 = arith.constant 0 : index
    %zero = arith.constant 0.0 : f32
    %cnt = arith.index_cast %count : i32 to index
    %b = tile.program_id x
    %L = tile.view %pl[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x128x128xf32, global>
    %T = tile.view %pt[%cnt] : !tile.ptr<f32> -> !tile.buffer<?x128x128xf32, global>
    %Lb = tile.take %L[%b] dims [0] : !tile.buffer<?x128x128xf32, global> -> !tile.buffer<128x128xf32, global>
    %Tb = tile.take %T[%b] dims [0] : !tile.buffer<?x128x128xf32, global> -> !tile.buffer<128x128xf32, global>
    %x = tile.alloc : !tile.buffer<128x128xf32, fragment>
    tile.copy %Lb[%c0, %c0] to %x : !tile.buffer<128x128xf32, global> to !tile.buffer<128x128xf32, fragment>
    %sL = tile.alloc : !tile.buffer<128x128xf32, shared>
    tile.copy %x to %sL : !tile.buffer<128x128xf32, fragment> to !tile.buffer<128x128xf32, shared>
    %sT = tile.alloc : !tile.buffer<128x128xf32, shared>
    tile.tril_inverse %sL, %sT  {lower_only} : !tile.buffer<128x128xf32, shared>, !tile.buffer<128x128xf32, shared>
    // The blocks above the diagonal hold whatever was there: masked.
    tile.copy %sT to %x {block_lower = 16 : i64} : !tile.buffer<128x128xf32, shared> to !tile.buffer<128x128xf32, fragment>
    tile.map indexed ins(%x : !tile.buffer<128x128xf32, fragment>) outs(%x : !tile.buffer<128x128xf32, fragment>) {
    ^bb0(%i: index, %j: index, %v: f32):
      %lower = arith.cmpi uge, %i, %j : index
      %r = arith.select %lower, %v, %zero : f32
      tile.yield %r : f32
    }
    tile.copy %x to %Tb[%c0, %c0] : !tile.buffer<128x128xf32, fragment> to !tile.buffer<128x128xf32, global>
    return
  }
}
