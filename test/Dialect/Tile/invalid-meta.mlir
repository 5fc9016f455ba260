// RUN: gdn-opt %s -split-input-file -verify-diagnostics

// The kernel <-> runtime contract: tile.meta's grid and workspace
// expressions are parsed by the runtime's parser at compile time
// (gdn/Runtime/KernelContract.h), names checked for gdn_prefill.

// A valid gdn_prefill meta.
func.func @ok() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gdn_prefill", dtype = "f16", stage = "s", order = 0 : i64,
                 path = "cp", block_v = 64 : i64,
                 grid = "cdiv(NT, 2), HV, NS", ws_A = "B*T*HV*64", ws_n = 16 : i64}} {
  return
}

// -----

// Other ops: syntax and arity only (their names are not known here); keys
// outside the contract are free-form.
func.func @other_op() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gemm", grid = "cdiv(M, 128), cdiv(N, 128), 1", block_m = 128 : i64,
                 scale = 5.0e-01 : f32, exact = true}} {
  return
}

// -----

// expected-error @below {{'tile.meta': grid = "NT,HV": needs 3 expressions (x, y, z), got 2}}
func.func @arity() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gdn_prefill", stage = "s", order = 0 : i64, grid = "NT,HV"}} {
  return
}

// -----

// expected-error @below {{'tile.meta': grid = "NT,HV,1,1": needs 3 expressions (x, y, z), got 4}}
func.func @arity4() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gemm", grid = "NT,HV,1,1"}} {
  return
}

// -----

// expected-error @below {{grid y: unknown name 'HVV' (gdn_prefill expressions use: B T H HV DK DV N NT NS has_h0 varlen gate_in_kernel beta_sigmoid neg_eigval qk_l2norm state_v_first)}}
func.func @unknown_name() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gdn_prefill", stage = "s", order = 0 : i64, grid = "NT, HVV, 1"}} {
  return
}

// -----

// expected-error @below {{'tile.meta': ws_gamma = "B*T*": workspace size: in 'B*T*'}}
func.func @syntax() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gdn_prefill", stage = "s", order = 0 : i64, grid = "NT,HV,1",
                 ws_gamma = "B*T*"}} {
  return
}

// -----

// expected-error @below {{'tile.meta': grid = "cdiv(NT 2),1,1": grid x: in 'cdiv(NT 2)'}}
func.func @syntax_grid() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gemm", grid = "cdiv(NT 2),1,1"}} {
  return
}

// -----

// expected-error @below {{workspace size: unknown name 'S'}}
func.func @ws_name() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gdn_prefill", stage = "s", order = 0 : i64, grid = "NT,HV,1",
                 ws_P = "S*64"}} {
  return
}

// -----

// expected-error @below {{op = "gdn_prefill" needs grid}}
func.func @no_grid() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gdn_prefill", stage = "s", order = 0 : i64}} {
  return
}

// -----

// expected-error @below {{op = "gdn_prefill" needs order}}
func.func @no_order() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gdn_prefill", stage = "s", grid = "1,1,1"}} {
  return
}

// -----

// expected-error @below {{path = "both": must be "direct" or "cp"}}
func.func @bad_path() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gdn_prefill", stage = "s", order = 0 : i64, grid = "1,1,1", path = "both"}} {
  return
}

// -----

// expected-error @below {{block_v = 48: must be an integer that divides 128}}
func.func @bad_block_v() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gdn_prefill", stage = "s", order = 0 : i64, grid = "1,1,1", block_v = 48 : i64}} {
  return
}

// -----

// expected-error @below {{order = -1: must be an integer >= 0}}
func.func @bad_order() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gdn_prefill", stage = "s", order = -1 : i64, grid = "1,1,1"}} {
  return
}

// -----

// expected-error @below {{'tile.meta': grid must be a string or an integer, got [1, 1, 1]}}
func.func @bad_value() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gemm", grid = [1, 1, 1]}} {
  return
}

// -----

// expected-error @below {{grid = 1: must be a string of 3 expressions}}
func.func @int_grid() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gemm", grid = 1 : i64}} {
  return
}

// -----

// expected-error @below {{'2x' is not a workspace parameter name}}
func.func @bad_ws_name() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gemm", grid = "1,1,1", ws_2x = "1"}} {
  return
}

// -----

// expected-error @below {{when = "l2": must be "qk_l2norm" or "gate_beta"}}
func.func @bad_when() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gdn_prefill", stage = "s", order = 0 : i64, grid = "1,1,1", when = "l2"}} {
  return
}

// -----

// expected-error @below {{fuses = "qk_l2norm, gate": must list "qk_l2norm" and/or "gate_beta"}}
func.func @bad_fuses() attributes {tile.kernel, tile.num_warps = 4 : i64,
    tile.meta = {op = "gdn_prefill", stage = "s", order = 0 : i64, grid = "1,1,1", fuses = "qk_l2norm, gate"}} {
  return
}
