//===- TileOps.td - tile dialect operations ---------------*- tablegen -*-===//
//
// Tile-level operations. Buffers have memory semantics: ops read and write
// their buffer operands in place (as TileLang's `T.copy`/`T.gemm` do), so a
// loop accumulates into a fragment without loop-carried SSA values.
//
//===----------------------------------------------------------------------===//

#ifndef GDN_DIALECT_TILE_IR_TILEOPS_TD
#define GDN_DIALECT_TILE_IR_TILEOPS_TD

include "gdn/Dialect/Tile/IR/TileTypes.td"
include "mlir/Interfaces/ControlFlowInterfaces.td"
include "mlir/Interfaces/LoopLikeInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/OpAsmInterface.td"

class Tile_Op<string mnemonic, list<Trait> traits = []>
    : Op<Tile_Dialect, mnemonic, traits>;

def Tile_AnyBuffer : Type<CPred<"::llvm::isa<::mlir::gdn::tile::BufferType>($_self)">,
                          "tile buffer", "::mlir::gdn::tile::BufferType">;

//===----------------------------------------------------------------------===//
// Indexing and allocation
//===----------------------------------------------------------------------===//

def Tile_ProgramIdOp : Tile_Op<"program_id", [Pure]> {
  let summary = "index of this thread block in the grid";
  let description = [{
    Example:
    ```mlir
    %bx = tile.program_id x
    ```
  }];
  let arguments = (ins Tile_DimAttr:$dim);
  let results = (outs Index:$result);
  let assemblyFormat = "custom<Dim>($dim) attr-dict";
}

def Tile_ViewOp : Tile_Op<"view", [Pure]> {
  let summary = "give a global pointer a row-major shape";
  let description = [{
    One index operand per dynamic dimension of the result, in order. The
    view is dense and row-major.

    Example:
    ```mlir
    %A = tile.view %pa[%m, %k] : !tile.ptr<f16> -> !tile.buffer<?x?xf16, global>
    ```
  }];
  let arguments = (ins Tile_PtrType:$ptr, Variadic<Index>:$sizes);
  let results = (outs Tile_AnyBuffer:$result);
  let assemblyFormat = "$ptr `[` $sizes `]` attr-dict `:` qualified(type($ptr)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_TakeOp : Tile_Op<"take", [Pure]> {
  let summary = "fix some dimensions of a global buffer at given indices";
  let description = [{
    Selects the sub-buffer of a global buffer at one index in each of the
    dimensions `dims` (ascending), keeping the other dimensions with their
    sizes and strides. Taking the innermost dimension leaves a strided view.

    Example: the keys of batch `%b` and head `%h` in BTHD layout:
    ```mlir
    %kbh = tile.take %k[%b, %h] dims [0, 2] : !tile.buffer<?x?x?x128xf16, global> -> !tile.buffer<?x128xf16, global>
    ```
  }];
  let arguments = (ins Tile_AnyBuffer:$source, Variadic<Index>:$indices,
                       DenseI64ArrayAttr:$dims);
  let results = (outs Tile_AnyBuffer:$result);
  let assemblyFormat = [{
    $source `[` $indices `]` `dims` $dims attr-dict `:` qualified(type($source)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_NarrowOp : Tile_Op<"narrow", [Pure]> {
  let summary = "restrict one dimension of a global buffer to a range";
  let description = [{
    The view of `[start, start + size)` along dimension `dim`; the result's
    size in that dimension is dynamic. Masked copies through the result stop
    at its end, which is how a packed variable-length sequence is kept from
    reading its neighbours.

    Example:
    ```mlir
    %seq = tile.narrow %q[%bos, %len] dim 0 : !tile.buffer<?x128xf16, global> -> !tile.buffer<?x128xf16, global>
    ```
  }];
  let arguments = (ins Tile_AnyBuffer:$source, Index:$start, Index:$size,
                       I64Attr:$dim);
  let results = (outs Tile_AnyBuffer:$result);
  let assemblyFormat = [{
    $source `[` $start `,` $size `]` `dim` $dim attr-dict `:` qualified(type($source)) `->` qualified(type($result))
  }];
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load", [
    TypesMatchWith<"result is the element type of the source", "source", "result",
                   "::llvm::cast<::mlir::gdn::tile::BufferType>($_self).getElementType()">]> {
  let summary = "read one element of a shared or global buffer";
  let description = [{
    Every thread reads the same element (a broadcast), e.g. a per-row gate
    inside a `tile.map` body.

    Example:
    ```mlir
    %g = tile.load %gamma[%i] : !tile.buffer<64xf32, shared>
    ```
  }];
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemRead]>:$source,
                       Variadic<Index>:$indices);
  let results = (outs AnyType:$result);
  let assemblyFormat = "$source `[` $indices `]` attr-dict `:` qualified(type($source))";
  let hasVerifier = 1;
}

def Tile_TrilInverseOp : Tile_Op<"tril_inverse"> {
  let summary = "exact inverse of a unit lower triangular matrix";
  let description = [{
    `dest = (I + L)^-1`, where `L` is the strictly lower part of `source` (the
    diagonal and the upper part of `source` are ignored). Both are square f32
    shared buffers of one shape, each row-major, `#tile.padded` (row-strided
    accesses then spread over the banks, addresses stay constant steps) or
    `#tile.swizzle`d (a transposed access spreads over the banks, at the
    cost of recomputed addresses), each addressed with its own layout
    (tile-assign-layouts pads the source's rows by 4 words, the
    destination's by 8: the levels read the source's blocks by ldmatrix
    and the destination's by columns), and distinct (so are those of the
    phase ops), unless
    `packed`: then `source` and `dest` are one buffer, whose strict lower
    triangle keeps `L` and whose upper triangle (with the diagonal) receives
    the inverse transposed (`T[i][j]`, `i >= j`, at `[j][i]`): half the
    shared memory. With `lower_only` (not packed) the 16 x 16 blocks of
    `dest` above its block diagonal are unspecified afterwards (the blocked
    form below does not write them); the diagonal blocks are whole, zeros
    above the diagonal included, and so is all of `dest` for sizes that are
    not multiples of 16. For readers that take only the blocks on and below
    the diagonal (`tile.copy {block_lower = 16}`, which the GDN prep's
    unmasked Ag map then multiplies without a select: it relies on those
    zeros).
    The inverse is computed exactly in f32 by forward
    substitution, one column per thread, in a fixed order (bit-identical
    from run to run): no truncated series. Small inverses lower to
    straight-line code; past 4,096 multiply-adds per thread (e.g. 128 x 128
    on one warp) to loops with the same sums, so that compile time stays
    flat in the size. `tile-expand-tril-inverse`
    rewrites sizes that are multiples of 16 (32 up to one element per
    thread) into the phases of the blocked inverse
    (`tile.tril_inverse_diag`, then one `tile.tril_inverse_level` per
    level of blocks below the diagonal, whose products run in split tf32 on
    the tensor cores: f32-accurate, see that op), whose barriers
    `tile-insert-barriers` places.

    Example:
    ```mlir
    tile.tril_inverse %l, %t : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
    tile.tril_inverse %lt, %lt {packed} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
    tile.tril_inverse %l, %t {lower_only} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
    ```
  }];
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemRead]>:$source,
                       Arg<Tile_AnyBuffer, "", [MemWrite]>:$dest,
                       UnitAttr:$packed, UnitAttr:$lower_only);
  let assemblyFormat = "$source `,` $dest attr-dict `:` qualified(type($source)) `,` qualified(type($dest))";
  let hasVerifier = 1;
}

// The phases of the blocked tril_inverse (tile-expand-tril-inverse). Each is
// barrier-free: its threads read only what other threads wrote before it, so
// tile-insert-barriers places the barriers between them from their operand
// effects.

def Tile_TrilInverseDiagOp : Tile_Op<"tril_inverse_diag"> {
  let summary = "blocked tril_inverse, phase 1: the 16x16 diagonal blocks";
  let description = [{
    For an `n x n` source (`n` a multiple of 16): writes into `dest` the
    inverse `(I + L_bb)^-1` of each 16x16 diagonal block `b` of the strictly
    lower part `L` of `source`, by forward substitution (one column per
    thread, `x_i = [i == c] - sum_{k < i} L_ik x_k` accumulated in `k`
    order), and zeros into every block above the diagonal. Blocks below the
    diagonal are left alone (`tile.tril_inverse_level` fills them). With
    `packed` (one buffer, see `tile.tril_inverse`) each diagonal block's
    inverse goes transposed into the block's upper triangle with its
    diagonal, and nothing else is written. With `lower_only` the blocks
    above the diagonal are not zeroed either (see `tile.tril_inverse`).

    With `merge_pairs` (not packed; `n / 16` even; one thread per column,
    `n` at most the block's threads) the op also takes the first doubling
    step of `tile.tril_inverse_merge` (`size = 16`): the threads of block
    `b` are `16 b .. 16 b + 15`, so warp `w` inverts blocks `2 w` and
    `2 w + 1`, and after a warp sync the same warp writes the block below
    them, `T_(2w+1, 2w) = -T_(2w+1, 2w+1) (L_(2w+1, 2w) T_(2w, 2w))`, both
    8-column strips in lockstep (the merge's products and order). No block
    barrier between the two steps: each warp reads only what it wrote.

    With `stage_lo` (with `merge_pairs` and `lower_only`, `n / 16` at least
    4; the block must have threads beyond the `n` that invert columns) the
    threads `n ..` of the block, idle in this phase, also write the tf32
    low parts `l = x - tf32(x)` of the final merge's `L21` (`L`'s rows
    `n / 2 ..` by columns `.. n / 2`) into `dest`'s block above the
    diagonal, `dest[r][n / 2 + c] = l(L[n / 2 + r][c])`, for the final
    `tile.tril_inverse_merge {staged_lo}` to read instead of splitting
    `L21` again on every warp that uses it.

    With `fma` (with `merge_pairs`) the size-16 merge runs on the CUDA
    cores instead of the tensor cores: `tile.tril_inverse_merge {fma}`'s
    form, each warp on its own pair.

    Example:
    ```mlir
    tile.tril_inverse_diag %l, %t : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
    tile.tril_inverse_diag %l, %t {lower_only, merge_pairs, stage_lo} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
    ```
  }];
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemRead]>:$source,
                       Arg<Tile_AnyBuffer, "", [MemRead, MemWrite]>:$dest,
                       UnitAttr:$packed, UnitAttr:$lower_only,
                       UnitAttr:$merge_pairs, UnitAttr:$stage_lo,
                       UnitAttr:$fma);
  let assemblyFormat = "$source `,` $dest attr-dict `:` qualified(type($source)) `,` qualified(type($dest))";
  let hasVerifier = 1;
}

def Tile_TrilInverseLevelOp : Tile_Op<"tril_inverse_level"> {
  let summary = "blocked tril_inverse, one level of blocks below the diagonal";
  let description = [{
    For each block `(i, j)` with `i - j = level` of an `n x n` inverse
    (`n = 16 nb`, `1 <= level < nb`), where `L` is `source` and `T` is
    `dest`: writes `T_ij = -T_ii Y_ij` into block `(i, j)` of `dest`, with
    `Y_ij = sum_{16 j <= q < 16 i} L[16 i + r][q] T[q][16 j + c]`. It reads
    the blocks `(i, j .. i - 1)` of `L` and `(j .. i, j)`, `(i, i)` of `T`
    (the diagonal phase and earlier levels wrote them) and writes only the
    blocks of its level, so the levels need a barrier between them and none
    inside.

    Both products run on the tensor cores (`mma.sync.m16n8k8` in tf32,
    f32 accumulators): every f32 operand `x` is split into a high part
    `h = tf32(x)` (truncated: the low 13 bits cleared) and a low part
    `l = x - h` (exact; handed over as f32, whose low bits the tensor core
    ignores; a NaN or inf of `x` makes `l` NaN, so it stays in the
    products), and each term is `h_a h_b + (l_a h_b + h_a l_b)` (two
    accumulator chains, added at the end), which drops only `l_a l_b` and
    the parts below the low halves (relative error about 2^-19 per term, an
    f32 FMA chain's is 2^-24): no truncated series, and the same bits on
    every run. One warp computes one 16x8 column strip of a block, or, where
    dealing strips round-robin over the warps would take more rounds than
    dealing blocks, a whole block (its two strips, each A fragment loaded
    and split once for both), and stages `Y` in those strips of `dest`,
    which no other warp touches during the level. With `packed` (one
    buffer, `T` stored transposed above the diagonal, see
    `tile.tril_inverse`) block `(i, j)` of `T` lives in block `(j, i)` of
    the buffer and the entries of the diagonal blocks of `T` above their
    diagonal (which would overlap `L`) are read as zeros.

    `source` may instead be an f32 fragment with the layout
    `#tile.mma<warps = [nb, 1]>` (any engine: warp `w` holds rows
    `16 w .. 16 w + 15`, e.g. the accumulator of the Gram product that
    forms `L`): then warp `i` computes block `(i, i - level)` (both strips)
    from its own registers of `L` (the accumulator's registers are the
    tf32 A fragment under a permutation of each k-step's index, which B's
    rows follow), one branch per busy warp so that the registers have
    static indices, and no `L` is read from shared memory. Not packed.
    (Opt-in: the kernels do not use it yet; docs/perf-notes.md v22.)

    Example:
    ```mlir
    tile.tril_inverse_level %l, %t {level = 1 : i64} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
    ```
  }];
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemRead]>:$source,
                       Arg<Tile_AnyBuffer, "", [MemRead, MemWrite]>:$dest,
                       ConfinedAttr<I64Attr, [IntPositive]>:$level,
                       UnitAttr:$packed);
  let assemblyFormat = "$source `,` $dest attr-dict `:` qualified(type($source)) `,` qualified(type($dest))";
  let hasVerifier = 1;
}

def Tile_TrilInverseMergeOp : Tile_Op<"tril_inverse_merge"> {
  let summary = "blocked tril_inverse, one doubling step: the off-diagonal blocks of 2s x 2s diagonal blocks";
  let description = [{
    For an `n x n` inverse where `L` is `source` and `T` is `dest`, and each
    pair `p` of adjacent `s x s` diagonal blocks (`s = size`, a multiple of
    16 with `2 s` dividing `n`: rows and columns `2 p s .. 2 p s + 2 s - 1`)
    whose two inverses `T1`, `T2` are already in `dest` (the diagonal phase
    for `s = 16`, the diagonal phase and the merges of smaller sizes
    otherwise): writes the block below them,

        T21 = -T2 (L21 T1),

    `L21` being `L`'s rows `2 p s + s ..` by columns `2 p s ..` (every 16x16
    block of it lies below the diagonal). In 16x16 blocks, block `(i, j)`
    of `T21` is `-sum_{i0 <= k <= i} T_ik Y_kj`, `Y_kj = sum_{j <= m < j0 +
    s / 16} L_km T_mj` (`i0`, `j0` the first block rows of `T2`, `T1`): it
    reads `L21`, the blocks of `T1` and `T2` on and below their diagonals
    (zeros above the diagonal inside the 16x16 diagonal blocks, as the
    diagonal phase writes them), and writes only `T21`, so the merges need
    a barrier between them and none inside. `tile-expand-tril-inverse`
    emits the merges of sizes 16, 32, .., n / 2 after the diagonal phase
    when `n / 16` is a power of two: log2(n / 16) phases instead of the
    `n / 16 - 1` of `tile.tril_inverse_level`, the same products.

    The products are split-tf32 tensor-core products as in
    `tile.tril_inverse_level` (three accumulator chains, fp32-accurate,
    every sum in a fixed order). One task per (pair, 16-column block of
    `T1`, 8-column strip): `n / 16` tasks per merge, dealt round-robin to
    the warps. A task computes its strip of every block row of `T21`:
    first the strips of `Y` (each B operand `T_mj` loaded and split once for
    all rows), staged in the task's own strips of `dest`, then, after a
    warp sync, the strips of `T21` (each staged `Y_kj` read and split once
    for all rows `i >= k`), held in registers until all are formed, a warp
    sync, and stored negated. No warp reads another's strips.

    With `by_rows` (sizes 16 and 32) a task is one 16-row block `i` of a
    pair's `T21` by one 16-column block `j` of `T1`, both strips at once
    (each A operand, `L_im` then `T_ik`, loaded and split once for the two;
    `(n / 2s) (s / 16)^2` tasks): its `Y_ij` is staged in its own block of
    `T21` and, for the row blocks below it (size 32: `i = 0`), also in the
    pair's block of `dest` above the diagonal (`T12`'s block `(j, j)`), and
    after one barrier among the op's threads every task forms its `T21_ij`
    from `T2`'s row `i`, its own `Y_ij` and the copies of the `Y_kj` above
    it. Same products in the same order (the same bits); about a third
    fewer operand loads and splits at size 32 (four tasks of 6, 8, 4 and 6
    k-steps for two strips each, instead of two of 14 and two of 10 for one
    strip each). `dest`'s blocks above
    the diagonal are overwritten: only for inverses whose upper blocks
    nobody reads (`tile.tril_inverse {lower_only}`, which
    `tile-expand-tril-inverse` gives `by_rows` with its `merge-by-rows`
    option).

    With `staged_lo` (`size = n / 2`: the one pair of the final merge; not
    with `by_rows`) the low parts of `L21` are read from `dest`'s block
    above the diagonal, where `tile.tril_inverse_diag {stage_lo}` (which
    must come before it, with only merges and barriers between) wrote
    them, and the high parts are `L21`'s values masked to tf32 as in the
    split (ptxas drops the mask: the tensor core reads only a tf32
    operand's top 19 bits): each `L21` fragment is two loads instead of a
    load and a split per warp that uses it. The same values reach the same
    products (the same bits). Only the final merge (`size = n / 2`, `n /
    16 >= 4`), not with `by_rows`.

    With `fma` (sizes 16 and 32; not with `by_rows` or `staged_lo`) the
    products run on the CUDA cores in f32 fused multiply-adds instead: one
    task per (pair, strip of `256 / size` columns of `T21`, which lies in
    one 16-column block `J` of `T1`), dealt round-robin to the warps; lane
    `(a, q)` (`a = lane / (64 / size)`, `q = lane mod (64 / size)`) holds
    rows `a` and `a + size / 2` by four columns `4 q ..` of the strip.
    `Y_ij = sum_m L21_im T1_mj` over `m = 16 J .. size - 1` in ascending
    order (16-byte loads of `L21`'s rows and `T1`'s rows: the block of
    `T1` above its block diagonal is never read, the zeros above the
    diagonal inside its diagonal blocks are), staged in the task's own
    strip of `T21`; after a warp sync, `T21_ij = -sum_k T2_ik Y_kj` over
    `k` from 0 to the end of row `i`'s 16-row block of `T2`, ascending,
    held in registers until the warp syncs again, then stored. Every
    product is exact and each sum is an f32 multiply-add chain in a fixed
    order (as the diagonal phase's substitution; the split-tf32 form
    drops the `l_a l_b` terms), and no tensor core is used. Meant for a
    fused producer task whose tensor cores the consumers' wgmma keep
    busy; measured there 15 % slower than the split-tf32 form (the fused
    GDN stage at 8x4K·H16 on an H100, docs/perf-notes.md v76), so no
    kernel uses it.

    Example:
    ```mlir
    tile.tril_inverse_merge %l, %t {size = 32 : i64} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
    tile.tril_inverse_merge %l, %t {size = 32 : i64, staged_lo} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
    tile.tril_inverse_merge %l, %t {size = 32 : i64, fma} : !tile.buffer<64x64xf32, shared>, !tile.buffer<64x64xf32, shared>
    ```
  }];
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemRead]>:$source,
                       Arg<Tile_AnyBuffer, "", [MemRead, MemWrite]>:$dest,
                       ConfinedAttr<I64Attr, [IntPositive]>:$size,
                       UnitAttr:$by_rows, UnitAttr:$staged_lo,
                       UnitAttr:$fma);
  let assemblyFormat = "$source `,` $dest attr-dict `:` qualified(type($source)) `,` qualified(type($dest))";
  let hasVerifier = 1;
}

def Tile_AllocOp : Tile_Op<"alloc"> {
  let summary = "allocate a shared or fragment buffer";
  let description = [{
    Shared buffers are placed in the kernel's one dynamic shared-memory
    region by `tile-plan-shared-memory`, which sets `offset` (bytes).
    Fragments live in registers.

    `no_reuse` (shared buffers only) gives the buffer bytes of its own for
    the kernel's whole run: the planner shares no byte of it with another
    buffer, even one whose live range it never meets. For small buffers
    rewritten every iteration of a loop by many threads: laid over a
    buffer that is dead only between two of their uses, they would need a
    block barrier on each side of that overlap in every iteration
    (`tile-insert-barriers` orders the reuse), which costs more than the
    bytes.

    Example:
    ```mlir
    %s = tile.alloc : !tile.buffer<128x64xf16, shared>
    %acc = tile.alloc : !tile.buffer<128x128xf32, fragment>
    %f = tile.alloc {no_reuse} : !tile.buffer<64xf32, shared>
    ```
  }];
  let arguments = (ins OptionalAttr<I64Attr>:$offset, UnitAttr:$no_reuse);
  let results = (outs Res<Tile_AnyBuffer, "", [MemAlloc]>:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Tile_SliceOp : Tile_Op<"slice", [Pure]> {
  let summary = "one slice of a buffer along its leading dimension";
  let description = [{
    Selects `%buf[%i]` of a shared buffer, dropping the leading dimension;
    `tile-pipeline` uses it to address the stages of a multi-buffered tile.

    Example:
    ```mlir
    %s1 = tile.slice %s[%i] : !tile.buffer<3x128x64xf16, shared> -> !tile.buffer<128x64xf16, shared>
    ```
  }];
  let arguments = (ins Tile_AnyBuffer:$source, Index:$index);
  let results = (outs Tile_AnyBuffer:$result);
  let assemblyFormat = "$source `[` $index `]` attr-dict `:` qualified(type($source)) `->` qualified(type($result))";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

def Tile_CopyOp : Tile_Op<"copy", [AttrSizedOperandSegments]> {
  let summary = "copy a tile between memory spaces";
  let description = [{
    Copies the tile shape of the fragment operand, else of the shared one
    (both shapes must agree when neither is global). A global operand takes
    one index offset per dimension: the element coordinates of the tile's
    origin. So may a shared operand copied to or from a fragment: the
    fragment is then a sub-tile of the shared buffer (for example 16 rows of
    a [64, 128] tile, so that a row-wise transform needs 16 rows of
    registers and scratch at a time); its offsets must be constants that
    keep the sub-tile inside the buffer, the innermost a multiple of 16
    bytes (the verifier checks them). Global to shared, shared to fragment,
    fragment to shared, global to fragment and fragment to global are
    supported; a fragment endpoint may convert between float types (`f32` to
    `f16` on a store, say).

    With `masked`, elements outside the global view's bounds read as zero
    and are not written (at the granularity of one vector of the copy's
    thread mapping; exact when the innermost global dimension is a multiple
    of it).

    With `transpose` (2-D, one endpoint a fragment), the fragment holds the
    transpose of the memory tile: fragment element `(i, j)` is memory
    element `(j, i)` of the tile (whose origin the global offsets give in
    memory coordinates), so a `[A, B]` fragment moves a `[B, A]` tile. Each
    element moves on its own (no vectors along the fragment's rows); this
    is how a kernel that keeps a value-major state (`S^T`) reads `V^T` and
    writes `O^T`, `h0`/`ht` and the CP summaries in the token-major layouts
    of the ABI.

    With `block_diagonal = K` (a fragment copied to a shared buffer, 2-D,
    square, K dividing its size) only the elements of the diagonal K x K
    blocks are stored; the rest of the buffer keeps its contents. This is
    what the blocked inverse's diagonal phase needs of `L` when its levels
    take `L` from the fragment (`tile.tril_inverse_level`).

    With `diagonal` (a square `[N, N]` fragment stored to a whole 1-D `[N]`
    shared buffer; no offsets, `transpose`, `masked` or block attribute)
    the buffer receives the fragment's diagonal: element `i` is fragment
    element `(i, i)`. Each thread stores the diagonal elements it holds,
    one at a time. With a Gram matrix on the tensor cores (`tile.gemm %sX,
    %sX, %acc {transpose_b}`) this gives the rows' sums of squares `|x_i|^2`
    in a handful of instructions a thread: the GDN kernels' q/k L2 norm.

    With `block_lower = K` (a whole 2-D square fragment and a shared buffer,
    either way, or a 2-D square fragment stored to a global view; K dividing
    the size) only the K x K blocks on and below the diagonal move: a store
    leaves the blocks above the diagonal of the buffer as they were, a load
    sets the fragment's elements there to zero without reading them. For
    lower triangular tiles (the inverse's `L` and `T`, the GDN prep's Ag),
    whose upper blocks nobody reads (a `tile.gemm {b_block_lower}`): fewer
    shared-memory accesses and global stores. A global tile loaded into a
    whole shared buffer with `block_lower = K` may leave the blocks above
    the diagonal of the buffer as they were: a TMA ring's load
    (`tile-pipeline`) skips their boxes (`tile.tma_load {block_lower}`,
    fewer bytes through L2; where a swizzle span is wider than K, the
    blocks of lcm(K, span) if they are smaller than the tile, else the
    whole tile),
    other lowerings copy the whole tile; either
    way nothing may read those blocks afterwards. With `transpose` (shared
    buffers only) the blocks are the buffer's: the fragment's blocks on and
    above its diagonal move (a load zeros those strictly below it), one
    element at a time; a symmetric fragment (a Gram matrix) stored so lands
    its lower triangle without the bank conflicts of an accumulator's row
    pairs.

    With `l2_hint` (a copy with a global endpoint) the copy's global
    accesses carry an L2 eviction priority: `evict_first` for data read or
    written once (its lines are replaced before others), `evict_last` for
    data that a later kernel reads soon (replaced after others),
    `evict_normal`. It is a hint: no value changes. It takes effect where
    the hardware path has one: a fragment stored to global memory run by
    run (`st.global.L2::cache_hint`, in pieces of up to 16 bytes; single
    bytes without it) and the TMA loads that `tile-pipeline` makes of a
    ring's global-to-shared copies (`tile.tma_load {l2_hint}`). It is
    dropped, with a remark, where a pass turns the copy into something
    without a hint (`tile-tma-store`'s TMA store, whose MLIR 19 op has no
    hint operand; `tile-pipeline`'s cp.async ring: `cp.async` with a cache
    hint raised an illegal-instruction fault on the H100), and without one
    by the other lowerings (loads into fragments, the transposed
    accumulator stores, the CPU emulator). The GDN prep stores Ag
    `evict_last` and the forward loads it `evict_first`, so that part of Ag
    is still in L2 when the forward reads it (docs/perf-notes.md v58).

    `tile-assign-layouts` sets `layout`, the thread mapping of copies that
    involve no fragment (for example `#tile.blocked<vector = 8>`: 16-byte
    `cp.async` chunks of f16).

    Example:
    ```mlir
    tile.copy %A[%m0, %k0] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<128x64xf16, shared>
    tile.copy %acc to %C[%m0, %n0] {masked} : !tile.buffer<128x128xf32, fragment> to !tile.buffer<?x?xf32, global>
    tile.copy %sK[%c16, %c0] to %rows : !tile.buffer<64x128xf16, shared> to !tile.buffer<16x128xf32, fragment>
    tile.copy %gram to %sNorms {diagonal} : !tile.buffer<64x64xf32, fragment> to !tile.buffer<64xf32, shared>
    ```
  }];
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemRead]>:$source,
                       Variadic<Index>:$sourceOffsets,
                       Arg<Tile_AnyBuffer, "", [MemWrite]>:$dest,
                       Variadic<Index>:$destOffsets,
                       UnitAttr:$masked,
                       UnitAttr:$transpose,
                       UnitAttr:$diagonal,
                       OptionalAttr<AnyAttr>:$layout,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$block_diagonal,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$block_lower,
                       OptionalAttr<Tile_L2HintAttr>:$l2_hint);
  let assemblyFormat = [{
    $source (`[` $sourceOffsets^ `]`)? `to` $dest (`[` $destOffsets^ `]`)?
    attr-dict `:` qualified(type($source)) `to` qualified(type($dest))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Shape of the tile that is copied, in memory coordinates (with
    /// `transpose`, the fragment's shape reversed).
    ::llvm::SmallVector<int64_t> getTileShape();
  }];
}

def Tile_PrefetchOp : Tile_Op<"prefetch"> {
  let summary = "hint: bring a tile of a global buffer into L2";
  let description = [{
    Asks the memory system to bring the 128-byte lines of the `shape` tile
    of global buffer `source` at `offsets` (one per dimension, as for
    `tile.copy`) into L2 (`prefetch.global.L2`), so that a later load of
    the tile waits for L2 rather than DRAM: e.g. a persistent kernel's next
    work item, fetched while it works on this one. A hint: it moves no data
    the kernel can see and changes no result. Rows (indices along
    dimension 0) past the buffer's extent are skipped; the other dimensions
    must lie inside the buffer (the verifier checks it where sizes and
    offsets are constants; offsets are never negative). The block's threads
    share the lines (so not in a one-thread `tile.producer`), at most 16384
    units in unrolled steps: with a contiguous innermost dimension, every
    line of each row's run (its first byte of each 128, and its last
    byte); else one per element.

    Example:
    ```mlir
    tile.prefetch %K[%t1, %c0] {shape = array<i64: 64, 128>} : !tile.buffer<?x128xf16, global>
    ```
  }];
  // Modelled as reading and writing the buffer: an op with only reads and
  // no results would be dead code to MLIR; the hint must stay where it is.
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemRead, MemWrite]>:$source,
                       Variadic<Index>:$offsets,
                       DenseI64ArrayAttr:$shape);
  let assemblyFormat = [{
    $source `[` $offsets `]` attr-dict `:` qualified(type($source))
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Rows of the tile (the product of all dimensions but the innermost),
    /// saturated at 2^21.
    int64_t getNumRows();
    /// Prefetch units per row: ceil(n * eb / 128) + 1 over a contiguous
    /// innermost dimension (every 128-byte line of the run), else n.
    int64_t getUnitsPerRow();
  }];
}

def Tile_AsyncCopyOp : Tile_Op<"async_copy"> {
  let summary = "start an asynchronous global-to-shared tile copy";
  let description = [{
    Like `tile.copy` from global to shared memory, but only starts the copy
    (`cp.async`). It completes when a later `tile.async_wait` allows no more
    pending groups than the groups committed after it. Created by
    `tile-pipeline`, or written in a kernel to keep several loads in flight
    at once (masked: zero-filled past the source's end without reading
    it); `tile-assign-layouts` maps it like `tile.copy`.

    Example:
    ```mlir
    tile.async_copy %A[%m0, %k] to %s : !tile.buffer<?x?xf16, global> to !tile.buffer<128x64xf16, shared>
    tile.async_commit
    tile.async_wait {pending = 1}
    ```
  }];
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemRead]>:$source,
                       Variadic<Index>:$sourceOffsets,
                       Arg<Tile_AnyBuffer, "", [MemWrite]>:$dest,
                       UnitAttr:$masked,
                       OptionalAttr<AnyAttr>:$layout);
  let assemblyFormat = [{
    $source `[` $sourceOffsets `]` `to` $dest
    attr-dict `:` qualified(type($source)) `to` qualified(type($dest))
  }];
  let hasVerifier = 1;
}

def Tile_AsyncCommitOp : Tile_Op<"async_commit"> {
  let summary = "close the current group of asynchronous copies";
  let description = [{
    Example: `tile.async_commit`
  }];
  let assemblyFormat = "attr-dict";
}

def Tile_AsyncWaitOp : Tile_Op<"async_wait"> {
  let summary = "wait until at most `pending` copy groups are in flight";
  let description = [{
    Waits for this thread's copies only; a `tile.barrier` must follow before
    other threads read the data.

    Example: `tile.async_wait {pending = 2}`
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$pending);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

def Tile_BarrierOp : Tile_Op<"barrier"> {
  let summary = "synchronize all threads of the block (or a named subset)";
  let description = [{
    Orders the shared-memory accesses of all threads before the barrier
    before those after it (`bar.sync 0`). With `id` and `threads` it is a
    named barrier over the first `threads` threads of the block (`bar.sync
    id, threads`): `tile-warp-specialize` turns the barriers of the
    consumer warpgroups into such barriers, so that the producer warpgroup
    is not waited for.

    `proxy_fence` says whether each thread first orders its generic-proxy
    shared-memory accesses before the async proxy's (wgmma operand reads,
    TMA loads and stores) with `fence.proxy.async.shared::cta`: `true`
    always, `false` never. Without it the lowering decides per kernel: a
    fence before every barrier of a kernel that uses wgmma or TMA stores,
    and before every barrier of a `tile.producer_task`.
    `tile-proxy-fences` sets it on each barrier from where the async proxy
    may read shared memory after it.

    Example: `tile.barrier`, `tile.barrier {id = 1, threads = 256}`,
    `tile.barrier {proxy_fence = false}`
  }];
  let arguments = (ins OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>, IntMaxValue<15>]>>:$id,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$threads,
                       OptionalAttr<BoolAttr>:$proxy_fence);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
  let builders = [
    OpBuilder<(ins), [{ /* a barrier of the whole block */ }]>,
    OpBuilder<(ins "int64_t":$id, "int64_t":$threads), [{
      build($_builder, $_state, $_builder.getI64IntegerAttr(id),
            $_builder.getI64IntegerAttr(threads), /*proxy_fence=*/BoolAttr());
    }]>];
}

//===----------------------------------------------------------------------===//
// Compute
//===----------------------------------------------------------------------===//

def Tile_FillOp : Tile_Op<"fill"> {
  let summary = "fill a fragment with a scalar";
  let description = [{
    Example:
    ```mlir
    tile.fill %acc, %zero : !tile.buffer<128x128xf32, fragment>, f32
    ```
  }];
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemWrite]>:$dest, AnyType:$value);
  let assemblyFormat = "$dest `,` $value attr-dict `:` qualified(type($dest)) `,` type($value)";
  let hasVerifier = 1;
}

def Tile_ZeroTailOp : Tile_Op<"zero_tail"> {
  let summary = "zero the rows of a shared buffer from a given row on";
  let description = [{
    Sets every element of the shared buffer whose index along dimension 0 is
    at least `from` to zero (all of them when `from <= 0`, none when `from`
    is at least the number of rows); `from` must be the same in every
    thread. The block's threads share the stores (16-byte vectors where the
    innermost dimension allows), so other threads see the zeros only after a
    `tile.barrier`.

    `tile-pipeline` writes it where a masked copy from a view narrowed to a
    sequence became a TMA load: TMA fills zeros only past the end of the
    whole tensor, so the rows past the end of the sequence (which hold the
    next sequence's data) are cleared after the load has landed.

    Example:
    ```mlir
    tile.zero_tail %sK from %valid : !tile.buffer<64x128xf16, shared, #tile.swizzle<128>>
    ```
  }];
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemWrite]>:$dest, Index:$from);
  let assemblyFormat = "$dest `from` $from attr-dict `:` qualified(type($dest))";
  let hasVerifier = 1;
}

def Tile_GemmOp : Tile_Op<"gemm"> {
  let summary = "C += A x B on the tensor cores";
  let description = [{
    `A` is `[M, K]` (`[K, M]` with `transpose_a`), `B` is `[K, N]` (`[N, K]`
    with `transpose_b`), both f16 or both bf16 in shared memory; `C` is an
    f32 `[M, N]` fragment, accumulated in place. With the wgmma engine, `A`
    may also be an `[M, K]` fragment (register-A wgmma: no shared-memory
    round trip for an operand just computed); `tile-assign-layouts` gives it
    the accumulator's layout, whose registers are the wgmma A fragment. The warp tiling is the
    layout of `C` (`#tile.mma`, chosen by `tile-assign-layouts`).

    With `async` (wgmma only; set by `tile-pipeline`), the MMAs are issued as
    one asynchronous wgmma group and the op does not wait for them: `C` is
    valid and `A`, `B` may be overwritten only after a `tile.gemm_wait`
    that leaves this group no longer pending.

    With `zero_init` (set by `tile-fold-zero-init` in place of a
    `tile.fill` of `C` with zero), `C = A x B`: `C`'s prior contents are
    not read. On the wgmma engine the first k-step does not accumulate
    (scale-d 0), so no register is zeroed first.

    With `b_block_lower = S` (wgmma only; `transpose_b` with a square `B`,
    S a multiple of 16 dividing N), `B` (`[N, K]` in memory) is taken to be
    zero above its S x S block diagonal, `B[n][k] = 0` for
    `floor(k / S) > floor(n / S)`: those blocks are neither read nor
    multiplied. The lowering issues one m64nS wgmma chain per S-column block
    of `C`, over the k-steps up to that block's diagonal block only: for a
    lower triangular `B` and S = N / 2, 3/4 of the products, and the block
    above the diagonal may hold anything (its writer may skip it). The GDN
    chunk step's `U = W Ag^T` (Ag lower triangular) takes it.

    Example:
    ```mlir
    tile.gemm %sA, %sB, %acc : !tile.buffer<128x64xf16, shared>, !tile.buffer<64x128xf16, shared>, !tile.buffer<128x128xf32, fragment>
    tile.gemm %w16, %sAg, %u {transpose_b, b_block_lower = 32 : i64} : !tile.buffer<128x64xf16, fragment>, !tile.buffer<64x64xf16, shared, #tile.swizzle<128>>, !tile.buffer<128x64xf32, fragment>
    ```
  }];
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemRead]>:$a,
                       Arg<Tile_AnyBuffer, "", [MemRead]>:$b,
                       Arg<Tile_AnyBuffer, "", [MemRead, MemWrite]>:$c,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       UnitAttr:$async, UnitAttr:$zero_init,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$b_block_lower);
  let assemblyFormat = [{
    $a `,` $b `,` $c attr-dict `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($c))
  }];
  let hasVerifier = 1;
}

def Tile_MapOp : Tile_Op<"map", [AttrSizedOperandSegments,
    SingleBlockImplicitTerminator<"::mlir::gdn::tile::YieldOp">,
    RecursiveMemoryEffects]> {
  let summary = "elementwise computation over fragments";
  let description = [{
    Applies the scalar body to every element: its block takes one element of
    each `ins` fragment and yields one element for each `outs` fragment. All
    fragments have the same shape and (after tile-assign-layouts) the same
    layout, so the body runs on the registers each thread owns. An `outs`
    fragment may also appear in `ins` (in-place update). With `indexed`, the
    block first takes the element's coordinates (one `index` per dimension),
    for masks and per-row or per-column factors.

    Memory effects: the map reads its `ins` and writes its `outs`, and has
    the effects of its body (a `tile.load` in the body reads shared or
    global memory).

    Example:
    ```mlir
    tile.map ins(%x, %y : !tile.buffer<64x64xf32, fragment>, !tile.buffer<64x64xf32, fragment>)
             outs(%z : !tile.buffer<64x64xf32, fragment>) {
    ^bb0(%a: f32, %b: f32):
      %s = arith.addf %a, %b : f32
      tile.yield %s : f32
    }
    // Keep the lower triangle.
    tile.map indexed ins(%x : !tile.buffer<64x64xf32, fragment>) outs(%x : !tile.buffer<64x64xf32, fragment>) {
    ^bb0(%i: index, %j: index, %a: f32):
      %lower = arith.cmpi uge, %i, %j : index
      %r = arith.select %lower, %a, %zero : f32
      tile.yield %r : f32
    }
    ```
  }];
  let arguments = (ins Arg<Variadic<Tile_AnyBuffer>, "", [MemRead]>:$inputs,
                       Arg<Variadic<Tile_AnyBuffer>, "", [MemWrite]>:$outputs,
                       UnitAttr:$indexed);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    (`indexed` $indexed^)? (`ins` `(` $inputs^ `:` qualified(type($inputs)) `)`)?
    `outs` `(` $outputs `:` qualified(type($outputs)) `)` $body attr-dict
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_AnyOp : Tile_Op<"any", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"::mlir::gdn::tile::YieldOp">]> {
  let summary = "block-wide vote over a fragment: a barrier that also says "
                "whether any element satisfies a predicate";
  let description = [{
    Evaluates the body on every element of `source` (its block takes the
    element's coordinates, one `index` per dimension, then the element) and
    returns, to every thread of the block, whether the body yielded true
    for at least one element. It is also a block barrier (`tile.barrier`:
    every thread's earlier shared-memory accesses are visible to every
    thread after it), and costs about what a barrier does: each thread
    folds its own elements into one predicate, and the barrier combines
    them (`bar.red.or.pred`), so a kernel can branch on a property of a
    whole tile without a reduction through shared memory.

    The body sees one element at a time (like `tile.map`'s) and may read
    memory with `tile.load` (reads of shared memory other threads wrote
    since the last barrier are not ordered before it).
    `proxy_fence` is `tile.barrier`'s (set by `tile-proxy-fences`).

    With `id` and `threads` (both or neither) the vote and its barrier are
    those of a named barrier over `threads` threads (`bar.red.or.pred vo,
    id, threads, vi`), as `tile.barrier`'s: in a warp-specialized kernel
    the roles never meet at a block-wide barrier, so `tile-warp-specialize`
    gives a `tile.producer_task`'s votes the task's named barrier (its
    warpgroup) and the others the consumers' (the consumer warpgroups).
    A vote inside a `tile.producer` region (one thread's work) is an error:
    no other thread would reach its barrier.

    Example: does some element below the diagonal exceed 0.5 in magnitude?
    ```mlir
    %any = tile.any %l : !tile.buffer<64x64xf32, fragment> {
    ^bb0(%i: index, %j: index, %x: f32):
      %below = arith.cmpi ugt, %i, %j : index
      %ax = math.absf %x : f32
      %big = arith.cmpf ogt, %ax, %half : f32
      %r = arith.andi %below, %big : i1
      tile.yield %r : i1
    }
    ```
  }];
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemRead]>:$source,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntMinValue<1>, IntMaxValue<15>]>>:$id,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$threads,
                       OptionalAttr<BoolAttr>:$proxy_fence);
  let results = (outs I1:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $source `:` qualified(type($source)) $body attr-dict
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_WarpAnyOp : Tile_Op<"warp_any", [RecursiveMemoryEffects,
    SingleBlockImplicitTerminator<"::mlir::gdn::tile::YieldOp">]> {
  let summary = "warp-wide vote over the part of a fragment a warp holds";
  let description = [{
    As `tile.any` (the same body, evaluated on every element), but the
    vote is over the elements held by the lanes of the calling thread's
    warp only, and each warp gets its own answer: one `vote.sync` over the
    warp's lanes, no barrier, no wait for the other warps. Which elements
    a warp holds is the fragment's layout (for an mma accumulator, warp w
    of a warpgroup holds rows 16 w .. 16 w + 15), so a kernel may use it
    only where a row-local decision is valid: when each warp acts on the
    rows it holds alone (for example rescaling those rows of two
    fragments of the same layout, as the GDN chunk step's overflow guard
    does with V'^T and S^T). It is not a barrier and orders no memory.

    The CPU emulator, which has no warps, answers for the whole fragment:
    true wherever some warp's vote would be. A kernel that is right for
    either answer (the contract above) is right on both.

    Example: does some element of my warp's rows overflow f16?
    ```mlir
    %ovf = tile.warp_any %vp16 : !tile.buffer<128x64xf16, fragment> {
    ^bb0(%i: index, %j: index, %y: f16):
      %ye = arith.extf %y : f16 to f32
      %ya = math.absf %ye : f32
      %nf = arith.cmpf ueq, %ya, %inf : f32
      tile.yield %nf : i1
    }
    ```
  }];
  let arguments = (ins Arg<Tile_AnyBuffer, "", [MemRead]>:$source);
  let results = (outs I1:$result);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $source `:` qualified(type($source)) $body attr-dict
  }];
  let hasVerifier = 1;
  let hasRegionVerifier = 1;
}

def Tile_YieldOp : Tile_Op<"yield", [Pure, Terminator, ReturnLike,
    ParentOneOf<["MapOp", "AnyOp", "WarpAnyOp", "ForOp"]>]> {
  let summary = "yield the results of a tile.map body (or end a tile.for body)";
  let description = [{
    Example: `tile.yield %v : f32`
  }];
  let arguments = (ins Variadic<AnyType>:$values);
  let builders = [OpBuilder<(ins), [{ /* nothing to yield */ }]>];
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Tile_ReduceOp : Tile_Op<"reduce"> {
  let summary = "reduce a 2-D fragment along one dimension";
  let description = [{
    `dim = 1` reduces each row of an `[M, N]` fragment into an `[M]`
    fragment, `dim = 0` each column into an `[N]` fragment; the result
    overwrites `dest`. Elements are combined in a fixed order, so results
    are bit-identical from run to run. The lowering goes through shared
    memory, using `scratch`, which tile-assign-layouts provides:

    - a row reduction whose source rows are each held by an aligned group
      of g lanes of one warp (a blocked layout with row length / vector =
      g, a divisor of 32) gets a scratch of the destination's shape `[M]`:
      each lane combines its vector in index order, the g lanes combine
      their partials in a butterfly of warp shuffles (lane l with lane
      l ^ m, m = 1, 2, .., g / 2), and one lane per row writes the result;
      the order depends only on the row length and the vector; a single
      row (`[1, N]` into `[1]`) needs no scratch at all: every lane of the
      group, thread 0 among them, ends the butterfly with the result, which
      goes straight into the destination (no shared memory, no barrier);
    - any other reduction gets a scratch of the source's shape `[M, N]`
      (row-major or `#tile.padded`: rows of a multiple of 32 words are
      padded by 4, so that the threads reading consecutive rows hit
      distinct banks): every thread writes its registers, then each
      destination element is combined serially in index order.

    The destination may instead be a row-major f32 shared buffer `[M]`
    (for a row reduction whose rows are each held by one lane group, as
    above): the lane group's first lane stores each row's result straight
    into it, and the reduction takes no scratch and no barrier of its
    own. Its readers are ordered like those of any shared write
    (tile-insert-barriers): several such reductions followed by their
    readers cost one barrier, where fragment destinations cost two each.

    Example:
    ```mlir
    tile.reduce add %p, %rowsum {dim = 1} : !tile.buffer<64x64xf32, fragment> -> !tile.buffer<64xf32, fragment>
    tile.reduce add %q, %sRows {dim = 1} : !tile.buffer<64x128xf32, fragment> -> !tile.buffer<64xf32, shared>
    ```
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind,
                       Arg<Tile_AnyBuffer, "", [MemRead]>:$source,
                       Arg<Tile_AnyBuffer, "", [MemWrite]>:$dest,
                       ConfinedAttr<I64Attr, [IntMinValue<0>, IntMaxValue<1>]>:$dim,
                       Arg<Optional<Tile_AnyBuffer>, "", [MemRead, MemWrite]>:$scratch);
  let assemblyFormat = [{
    custom<ReduceKind>($kind) $source `,` $dest (`scratch` `(` $scratch^ `:` qualified(type($scratch)) `)`)? attr-dict
    `:` qualified(type($source)) `->` qualified(type($dest))
  }];
  let extraClassDeclaration = [{
    /// g when every row of `source` (a fragment with a blocked layout,
    /// reduced along `dim` = 1) is held by g consecutive lanes of one warp,
    /// one vector each (g = row length / vector, a divisor of 32): the
    /// in-warp lowering applies.
    static std::optional<int64_t> getInWarpLanes(BufferType source,
                                                 int64_t dim);
    /// Whether this reduction needs no scratch: a shared destination, or a
    /// single row (`[1, N]` into `[1]`) held by one lane group
    /// (getInWarpLanes), whose butterfly leaves the result on thread 0, the
    /// destination's owner.
    bool isScratchFree();
  }];
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan"> {
  let summary = "inclusive prefix scan of a 1-D fragment";
  let description = [{
    `dest[i] = source[0] (+) source[1] (+) ... (+) source[i]` for the
    combiner `(+)` of `kind` (`add`: a cumulative sum, `max`, `min`), over a
    1-D f32 fragment; `dest` may be `source`. The order of the combinations
    is fixed by the layout alone, so results are bit-identical from run to
    run: the fragment is a `#tile.blocked<vector = v>` whose `n / v` vectors
    are held by the first `n / v` lanes of the first warp (`n <= 32 v`, `v`
    divides `n`; tile-assign-layouts gives the operands the smallest power of
    two `v` with `n <= 32 v`). Each lane scans its vector in index order,
    the lanes' totals go through an inclusive Kogge-Stone scan over warp
    shuffles (`shfl.up` by 1, 2, 4, ...: lane `l` combines the running value
    of lane `l - m` on the left of its own), and each element of lane `l > 0`
    is then `(prefix of lanes 0 .. l - 1) (+) (its lane's running value)`.
    No shared memory and no barrier: a 64-token cumulative sum is two adds
    per lane, six shuffles and six dependent adds.

    Example:
    ```mlir
    tile.scan add %g, %gamma : !tile.buffer<64xf32, fragment> -> !tile.buffer<64xf32, fragment>
    ```
  }];
  let arguments = (ins Tile_ReduceKindAttr:$kind,
                       Arg<Tile_AnyBuffer, "", [MemRead]>:$source,
                       Arg<Tile_AnyBuffer, "", [MemWrite]>:$dest);
  let assemblyFormat = [{
    custom<ReduceKind>($kind) $source `,` $dest attr-dict
    `:` qualified(type($source)) `->` qualified(type($dest))
  }];
  let extraClassDeclaration = [{
    /// The vector width a scan of `n` elements lowers with when its layout
    /// is chosen for it: the smallest power of two v with n <= 32 v, or
    /// std::nullopt when that v does not divide n.
    static std::optional<int64_t> chooseVector(int64_t n);
    /// Whether `layout` is one the lowering takes for `n` elements: a
    /// #tile.blocked whose vector divides n with 32 x vector >= n.
    static bool fitsOneWarp(Attribute layout, int64_t n);
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Loops
//===----------------------------------------------------------------------===//

def Tile_ForOp : Tile_Op<"for", [
    SingleBlockImplicitTerminator<"::mlir::gdn::tile::YieldOp">,
    RecursiveMemoryEffects,
    DeclareOpInterfaceMethods<LoopLikeOpInterface, [
        "getLoopInductionVars", "getLoopLowerBounds", "getLoopUpperBounds",
        "getLoopSteps"]>]> {
  let summary = "a loop to be software-pipelined over `num_stages` stages";
  let description = [{
    Iterates `%iv` from `lb` to `ub` by `step`. `tile-pipeline` multi-buffers
    the shared buffers written by global-to-shared copies in the body and
    issues them `num_stages - 1` iterations ahead as asynchronous copies
    (`num_stages` on a TMA ring whose loads the consumers issue);
    with `num_stages = 1` the loop runs as written. The body has memory
    semantics only (no iteration arguments). A `LoopLikeOpInterface` loop
    (one induction variable, bounds and step; loop-invariant code motion
    applies). A `loop_annotation` attribute (`#llvm.loop_annotation<...>`,
    e.g. `licm = <disable = true>` for a large body whose per-thread
    addresses would otherwise be hoisted and kept live across the loop) is
    carried to the `scf.for` that `tile-pipeline` makes of the loop, and from
    there to LLVM. A `producer_loop_annotation` (the same kind of
    attribute) is the hint for the producer warpgroups' copy of the loop in
    a warp-specialized kernel (`tile-warp-specialize` puts it in place of
    `loop_annotation` there and drops it from the consumers' copy); other
    kernels ignore it.

    Example:
    ```mlir
    tile.for %k = %c0 to %K step %c64 stages 3 {
      tile.copy %A[%m0, %k] to %sA : !tile.buffer<?x?xf16, global> to !tile.buffer<128x64xf16, shared>
      tile.gemm %sA, %sB, %acc : ...
    }
    ```
  }];
  let arguments = (ins Index:$lowerBound, Index:$upperBound, Index:$step,
                       ConfinedAttr<I64Attr, [IntPositive]>:$num_stages);
  let regions = (region SizedRegion<1>:$region);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
  let skipDefaultBuilders = 1;
  let builders = [OpBuilder<(ins "Value":$lb, "Value":$ub, "Value":$step,
                                 "int64_t":$numStages)>];
  let extraClassDeclaration = [{
    ::mlir::Value getInductionVar() { return getBody()->getArgument(0); }
    ::mlir::Block *getBody() { return &getRegion().front(); }
  }];
}

include "gdn/Dialect/Tile/IR/TileHopperOps.td"
include "gdn/Dialect/Tile/IR/TileFlagOps.td"

#endif // GDN_DIALECT_TILE_IR_TILEOPS_TD
