"""gdn.chunk_gated_delta_rule: FLA 0.6.0's entry over libgdn_runtime.

Same names, order and defaults as fla.ops.gated_delta_rule.
chunk_gated_delta_rule (forward only). The kernels take q, k, v and o in
f16 or bf16 ([B, T, H, 128] / [B, T, HV, 128]), g (log decay) in f32, beta
in the input dtype, and a [N, HV, K, V] f32 state. FLA's in-kernel
transforms run inside the prep kernels on the raw inputs (the block_v 16
variant normalizes q and k in an optional first kernel, gdn_qk_l2norm),
and the value-first state layout is read and written by the kernels:

  use_qk_l2norm_in_kernel   q and k are L2-normalized over the head dim in
                            f32 (FLA's x / sqrt(sum x^2 + 1e-6)) and
                            rounded to the input dtype
  use_beta_sigmoid_in_kernel  beta = sigmoid(beta) in f32, rounded to the
                            kernels' beta dtype (the logits reach the
                            kernel in that dtype too, as in FLA: an f32
                            beta is rounded before the sigmoid)
  allow_neg_eigval          beta = 2 * beta (exact)
  use_gate_in_kernel=True   g = -exp(A_log) * softplus(g + dt_bias) in f32
  (kwarg, with A_log [HV]   (per value head)
   and dt_bias [HV])
  state_v_first             initial_state / final_state are [N, HV, V, K]:
                            read and written so by the kernels

An f32 beta is rounded to the kernels' beta dtype, f16/bf16 g is widened
to f32 (exact). Anything else the kernels cannot do raises (TypeError for
a wrong type, dtype, device or keyword; ValueError for a wrong shape or a
non-contiguous tensor; NotImplementedError for a FLA option not
implemented), naming the argument -- never a silently different result.
Runs on torch's current stream of q's device; outputs are allocated with
torch.
"""

import math

from . import _capi

HEAD_DIM = 128
_DTYPES_16 = ("float16", "bfloat16")
# FLA keywords accepted through **kwargs; others raise TypeError.
_KWARGS = {"use_gate_in_kernel": False, "A_log": None, "dt_bias": None,
           "safe_gate": False, "lower_bound": None, "chunk_size": 64,
           "head_first": False}


def _dtype(t):
    return str(t.dtype).replace("torch.", "")


def _is_tensor(x):
    return all(hasattr(x, a) for a in ("shape", "dtype", "device", "is_contiguous", "data_ptr"))


def _require_tensor(name, t):
    if not _is_tensor(t):
        raise TypeError("gdn.chunk_gated_delta_rule: %s must be a torch.Tensor, got %s"
                        % (name, type(t).__name__))
    if getattr(t.device, "type", None) != "cuda":
        raise TypeError("gdn.chunk_gated_delta_rule: %s is on device '%s'; the gdn "
                        "kernels run on CUDA tensors only" % (name, t.device))


def _require_contiguous(name, t):
    if not t.is_contiguous():
        raise ValueError("gdn.chunk_gated_delta_rule: %s (shape %s) is not contiguous; "
                         "pass %s.contiguous()" % (name, tuple(t.shape), name))


def _shape_error(name, t, want):
    return ValueError("gdn.chunk_gated_delta_rule: %s has shape %s, expected %s"
                      % (name, tuple(t.shape), want))


def validate(q, k, v, g, beta, scale=None, initial_state=None,
             output_final_state=False, use_qk_l2norm_in_kernel=False,
             use_beta_sigmoid_in_kernel=False, allow_neg_eigval=False,
             state_v_first=False, cu_seqlens=None, cu_seqlens_cpu=None,
             **kwargs):
    """Checks every argument without torch (any object with shape, dtype,
    device, is_contiguous() and data_ptr() is a tensor here). Returns a
    dict of the problem: B, T, H, HV, N, dtype, scale, the kwargs
    resolved."""
    unknown = sorted(set(kwargs) - set(_KWARGS))
    if unknown:
        raise TypeError("gdn.chunk_gated_delta_rule() got an unexpected keyword "
                        "argument %r (FLA keywords accepted: %s)"
                        % (unknown[0], ", ".join(sorted(_KWARGS))))
    opts = dict(_KWARGS)
    opts.update(kwargs)
    if opts["head_first"]:
        raise NotImplementedError("gdn.chunk_gated_delta_rule: head_first=True is not "
                                  "supported (FLA 0.6 removed it too): pass [B, T, H, K]")
    if opts["chunk_size"] != 64:
        raise NotImplementedError("gdn.chunk_gated_delta_rule: chunk_size=%r: the "
                                  "kernels use 64" % (opts["chunk_size"],))
    if opts["safe_gate"] or opts["lower_bound"] is not None:
        raise NotImplementedError("gdn.chunk_gated_delta_rule: safe_gate / lower_bound "
                                  "are not implemented")
    for name, flag in (("output_final_state", output_final_state),
                       ("use_qk_l2norm_in_kernel", use_qk_l2norm_in_kernel),
                       ("use_beta_sigmoid_in_kernel", use_beta_sigmoid_in_kernel),
                       ("allow_neg_eigval", allow_neg_eigval),
                       ("state_v_first", state_v_first),
                       ("use_gate_in_kernel", opts["use_gate_in_kernel"])):
        if not isinstance(flag, bool):
            raise TypeError("gdn.chunk_gated_delta_rule: %s must be a bool, got %s"
                            % (name, type(flag).__name__))
    for name, t in (("q", q), ("k", k), ("v", v), ("g", g), ("beta", beta)):
        _require_tensor(name, t)
    device = q.device
    for name, t in (("k", k), ("v", v), ("g", g), ("beta", beta)):
        if t.device != device:
            raise TypeError("gdn.chunk_gated_delta_rule: %s is on %s but q is on %s"
                            % (name, t.device, device))
    dtype = _dtype(q)
    if dtype not in _DTYPES_16:
        raise TypeError("gdn.chunk_gated_delta_rule: q has dtype %s; the kernels take "
                        "float16 or bfloat16" % dtype)
    for name, t in (("k", k), ("v", v)):
        if _dtype(t) != dtype:
            raise TypeError("gdn.chunk_gated_delta_rule: %s has dtype %s but q has %s"
                            % (name, _dtype(t), dtype))
    if _dtype(g) not in ("float32",) + _DTYPES_16:
        raise TypeError("gdn.chunk_gated_delta_rule: g has dtype %s; expected float32 "
                        "(or float16/bfloat16, widened exactly)" % _dtype(g))
    if _dtype(beta) not in ("float32",) + _DTYPES_16:
        raise TypeError("gdn.chunk_gated_delta_rule: beta has dtype %s; expected %s or "
                        "float32" % (_dtype(beta), dtype))
    if len(q.shape) != 4:
        raise _shape_error("q", q, "[B, T, H, K] (4-D)")
    B, T, H, K = (int(x) for x in q.shape)
    if K != HEAD_DIM:
        raise NotImplementedError("gdn.chunk_gated_delta_rule: head dim K = %d (q shape "
                                  "%s): the kernels are compiled for K = V = 128 only"
                                  % (K, tuple(q.shape)))
    if tuple(k.shape) != tuple(q.shape):
        raise _shape_error("k", k, "q's shape %s" % (tuple(q.shape),))
    if len(v.shape) != 4 or int(v.shape[0]) != B or int(v.shape[1]) != T:
        raise _shape_error("v", v, "[B=%d, T=%d, HV, V]" % (B, T))
    HV, V = int(v.shape[2]), int(v.shape[3])
    if V != HEAD_DIM:
        raise NotImplementedError("gdn.chunk_gated_delta_rule: value head dim V = %d: "
                                  "the kernels are compiled for V = 128 only" % V)
    if H < 1 or HV % H != 0:
        raise ValueError("gdn.chunk_gated_delta_rule: value heads HV = %d (v) must be a "
                         "multiple of the q/k heads H = %d" % (HV, H))
    for name, t in (("g", g), ("beta", beta)):
        if tuple(int(x) for x in t.shape) != (B, T, HV):
            raise _shape_error(name, t, "[B, T, HV] = [%d, %d, %d]" % (B, T, HV))
    for name, t in (("q", q), ("k", k), ("v", v), ("g", g), ("beta", beta)):
        _require_contiguous(name, t)
    if opts["use_gate_in_kernel"]:
        for name in ("A_log", "dt_bias"):
            t = opts[name]
            if t is None:
                raise TypeError("gdn.chunk_gated_delta_rule: use_gate_in_kernel=True "
                                "needs %s (a [HV] tensor)" % name)
            _require_tensor(name, t)
            if t.device != device:
                raise TypeError("gdn.chunk_gated_delta_rule: %s is on %s but q is on %s"
                                % (name, t.device, device))
            if tuple(int(x) for x in t.shape) != (HV,):
                raise _shape_error(name, t, "[HV] = [%d] (one per value head)" % HV)
    elif opts["A_log"] is not None or opts["dt_bias"] is not None:
        raise TypeError("gdn.chunk_gated_delta_rule: A_log / dt_bias are given but "
                        "use_gate_in_kernel is False")
    if scale is None:
        scale = K ** -0.5
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) \
            or not math.isfinite(scale) or scale <= 0:
        raise ValueError("gdn.chunk_gated_delta_rule: scale must be a positive finite "
                         "number, got %r" % (scale,))

    cu = None
    if cu_seqlens is not None:
        _require_tensor("cu_seqlens", cu_seqlens)
        if _dtype(cu_seqlens) not in ("int32", "int64") or len(cu_seqlens.shape) != 1:
            raise TypeError("gdn.chunk_gated_delta_rule: cu_seqlens must be a 1-D int32 "
                            "or int64 tensor, got %s %s"
                            % (_dtype(cu_seqlens), tuple(cu_seqlens.shape)))
        if B != 1:
            raise ValueError("gdn.chunk_gated_delta_rule: with cu_seqlens the batch "
                             "size must be 1 (sequences packed along T), got B = %d" % B)
        if cu_seqlens_cpu is not None:
            if not _is_tensor(cu_seqlens_cpu) and not isinstance(cu_seqlens_cpu, (list, tuple)):
                raise TypeError("gdn.chunk_gated_delta_rule: cu_seqlens_cpu must be a "
                                "tensor or a list")
            cu = [int(x) for x in (cu_seqlens_cpu.tolist() if _is_tensor(cu_seqlens_cpu)
                                   else cu_seqlens_cpu)]
            if len(cu) != int(cu_seqlens.shape[0]):
                raise ValueError("gdn.chunk_gated_delta_rule: cu_seqlens_cpu has %d "
                                 "values, cu_seqlens %d" % (len(cu), int(cu_seqlens.shape[0])))
    elif cu_seqlens_cpu is not None:
        raise TypeError("gdn.chunk_gated_delta_rule: cu_seqlens_cpu without cu_seqlens")
    N = (int(cu_seqlens.shape[0]) - 1) if cu_seqlens is not None else B
    if initial_state is not None:
        _require_tensor("initial_state", initial_state)
        if initial_state.device != device:
            raise TypeError("gdn.chunk_gated_delta_rule: initial_state is on %s but q "
                            "is on %s" % (initial_state.device, device))
        if _dtype(initial_state) != "float32":
            raise TypeError("gdn.chunk_gated_delta_rule: initial_state has dtype %s; "
                            "the kernels take a float32 state" % _dtype(initial_state))
        if tuple(int(x) for x in initial_state.shape) != (N, HV, K, V):
            raise _shape_error("initial_state", initial_state,
                               "[N, HV, %s] = [%d, %d, 128, 128]"
                               % ("V, K" if state_v_first else "K, V", N, HV))
        _require_contiguous("initial_state", initial_state)
    return dict(B=B, T=T, H=H, HV=HV, N=N, dtype=dtype, scale=float(scale),
                cu=cu, opts=opts, device=device)


def chunk_gated_delta_rule(q, k, v, g, beta, scale=None, initial_state=None,
                           output_final_state=False, use_qk_l2norm_in_kernel=False,
                           use_beta_sigmoid_in_kernel=False, allow_neg_eigval=False,
                           state_v_first=False, cu_seqlens=None, cu_seqlens_cpu=None,
                           **kwargs):
    """o, final_state = chunk_gated_delta_rule(q, k, v, g, beta, ...): the
    exact GDN prefill forward (FLA 0.6.0's signature; see the module doc
    for the layouts, dtypes and the in-kernel transforms). final_state
    is None unless output_final_state."""
    p = validate(q, k, v, g, beta, scale, initial_state, output_final_state,
                 use_qk_l2norm_in_kernel, use_beta_sigmoid_in_kernel,
                 allow_neg_eigval, state_v_first, cu_seqlens, cu_seqlens_cpu,
                 **kwargs)
    import torch  # lazily: importing gdn needs no torch

    dtype = q.dtype
    device = q.device
    index = device.index if device.index is not None else torch.cuda.current_device()
    rt = _capi.runtime(index)
    cu = p["cu"]
    if cu_seqlens is not None and cu is None:
        cu = [int(x) for x in cu_seqlens.tolist()]  # synchronizes, as FLA does
    opts = p["opts"]
    # FLA's in-kernel transforms, done by the kernels on the raw q, k, g,
    # beta when asked; the state's layout.
    flags = (bool(use_qk_l2norm_in_kernel), bool(opts["use_gate_in_kernel"]),
             bool(use_beta_sigmoid_in_kernel), bool(allow_neg_eigval),
             bool(state_v_first))
    key = (p["B"], p["T"], p["H"], p["HV"], p["dtype"], initial_state is not None,
           p["scale"], tuple(cu) if cu is not None else None, flags)
    cached = _plans.get((index, key))
    if cached is None:
        cached = rt.plan(p["B"], p["T"], p["H"], p["HV"],
                         _capi.GDN_DTYPE_F16 if p["dtype"] == "float16" else _capi.GDN_DTYPE_BF16,
                         has_initial_state=initial_state is not None,
                         scale=p["scale"], cu_seqlens=cu, qk_l2norm=flags[0],
                         gate_in_kernel=flags[1], beta_sigmoid=flags[2],
                         neg_eigval=flags[3], state_v_first=flags[4])
        _plans[(index, key)] = cached
    plan, info = cached

    a_log = dt_bias = None
    if flags[1]:
        a_log = opts["A_log"].to(torch.float32).contiguous()
        dt_bias = opts["dt_bias"].to(torch.float32).contiguous()
    beta_dtype = torch.float32 if info.beta_dtype == _capi.GDN_DTYPE_F32 else dtype
    g = g.to(torch.float32).contiguous()
    beta = beta.to(beta_dtype).contiguous()
    h0 = initial_state

    o = torch.empty(v.shape, dtype=dtype, device=device)
    ht = torch.empty((p["N"], p["HV"], HEAD_DIM, HEAD_DIM), dtype=torch.float32, device=device)
    ws = (torch.empty(info.workspace_bytes, dtype=torch.uint8, device=device)
          if info.workspace_bytes else None)
    t = _capi.Tensors(q.data_ptr(), k.data_ptr(), v.data_ptr(), g.data_ptr(),
                      beta.data_ptr(), h0.data_ptr() if h0 is not None else None,
                      o.data_ptr(), ht.data_ptr(),
                      a_log.data_ptr() if a_log is not None else None,
                      dt_bias.data_ptr() if dt_bias is not None else None)
    stream = torch.cuda.current_stream(device).cuda_stream
    lib = _capi.library()
    _capi.check(lib.gdn_run(plan, t, ws.data_ptr() if ws is not None else None,
                            info.workspace_bytes, stream, _capi.GDN_RUN_TRUSTED_POINTERS))
    if not output_final_state:
        return o, None
    return o, ht


_plans = {}
