#!/usr/bin/env python3
#===- l2norm-factor-study.py - the q/k L2 norm as factors, CPU study -----===#
#
# usage: l2norm-factor-study.py [--chunks N] [--seeds S] [--dtype f16|bf16]
#
# A CPU study (numpy) of two ways to run a problem with FLA's
# use_qk_l2norm_in_kernel (q_t and k_t divided by their L2 norms before the
# recurrence) through the chunk step of the value-major forward
# (kernels/gdn_prefill/gdn_forward_vm.mlir.in, @gdn_chunk_step_vm):
#
#   copies   today's: q_l2 = rnd(q / |q|), k_l2 = rnd(k / |k|) written as
#            16-bit copies (the prep or the gdn_qk_l2norm stage), and every
#            later kernel reads them: 2 x 16-bit bytes of q and k written
#            and read again (537 MB each at 128K·H16).
#   factors  no copies: the step reads the raw 16-bit q and k and applies
#            r_q(i) = 1 / |q_i| and r_k(j) = 1 / |k_j| (f32) where the
#            step already has a per-token factor: every term of o_i is
#            linear in q_i, so r_q(i) joins scale e^gamma_i (o = S^T q) and
#            P's rows; k_j enters K S (W's row factor e^gamma_j), P's
#            columns (e^-gamma_j) and the state update (V'_j's factor
#            e^(gamma_L - gamma_j)), each a multiply by r_k(j) more (or,
#            free, a shift of the gate's exponent by log2 r: the maps
#            already take exp2 of a per-token value). The prep's Gram is
#            the raw keys' (f32 sums), scaled by r_k(i) r_k(j), where today
#            it is the Gram of K normalized and rounded to 16 bits.
#
# Both with the forward's roundings (S, P, W, V_new, V' and o to 16 bits;
# f32 sums), against the fp64 token recurrence on the normalized raw
# inputs. Input families: q, k ~ N(0, s^2) for several scales s (the raw
# norms FLA's callers pass are whatever the projections give), g weak
# (-U(0, 0.05)) or 0 (nodecay), beta = sigmoid(N(0, 1)), v ~ N(0, 1); and
# collinear (gdn-run --family collinear's keys, unnormalized: k_t = s (u +
# 0.05 n_t), beta = 1, g = 0), where the 16-bit rounding of the
# normalized keys alone moves the answer (docs/gdn-math.md, family 13;
# the refined step of §6.8 is not modelled here). Prints o's and the final
# state's relative L2 error per form and scale (mean over the seeds).
#===----------------------------------------------------------------------===#
import argparse
import importlib.util
import os

import numpy as np

# The 16-bit roundings (f16, bf16 round-to-nearest-even) of
# chunk-rounding-study.py, beside this file.
_spec = importlib.util.spec_from_file_location(
    "chunk_rounding_study",
    os.path.join(os.path.dirname(os.path.abspath(__file__)),
                 "chunk-rounding-study.py"))
_crs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_crs)
rounder = _crs.rounder


def f32(x):
    return np.asarray(x, np.float32).astype(np.float64)


def oracle(q, k, v, g, beta, scale):
    """fp64 token recurrence on the normalized inputs."""
    qn = q / np.linalg.norm(q, axis=1, keepdims=True)
    kn = k / np.linalg.norm(k, axis=1, keepdims=True)
    d, dv = q.shape[1], v.shape[1]
    s = np.zeros((d, dv))
    o = np.zeros_like(v)
    for t in range(q.shape[0]):
        s *= np.exp(g[t])
        u = beta[t] * (v[t] - kn[t] @ s)
        s += np.outer(kn[t], u)
        o[t] = scale * qn[t] @ s
    return o, s


def chunked(q, k, v, g, beta, scale, r16, form):
    """The forward's chunk step with its roundings (f32 sums modelled as
    fp64 sums rounded to f32 at the points the kernel holds them)."""
    n, d = q.shape
    dv = v.shape[1]
    # r_q, r_k in f32 from the raw 16-bit inputs.
    rq = f32(1 / np.sqrt(f32((q * q).sum(1))))
    rk = f32(1 / np.sqrt(f32((k * k).sum(1))))
    if form == "copies":
        # The prep's normalized K (shared, 16-bit) for its Gram; the copies.
        kn = r16(f32(k * rk[:, None]))
        qa, ka = r16(f32(q * rq[:, None])), kn
        fq, fk = np.ones(n), np.ones(n)
    else:
        qa, ka, fq, fk = q, k, rq, rk
    s = np.zeros((d, dv))
    o = np.zeros_like(v)
    for c0 in range(0, n, 64):
        sl = slice(c0, c0 + 64)
        gam = f32(np.cumsum(g[sl]))
        b = beta[sl]
        # Ag from the prep: (I + strictly lower beta Kn Kn^T)^-1 diag(beta)
        # with the gate, exact then rounded to 16 bits.
        if form == "copies":
            gram = f32(kn[sl] @ kn[sl].T)
        else:
            # The Gram of the raw keys, scaled by r_k(i) r_k(j) in f32.
            gram = f32(rk[sl][:, None] * f32(k[sl] @ k[sl].T) *
                       rk[sl][None, :])
        ell = np.tril(b[:, None] * gram * np.exp(gam[:, None] - gam[None, :]),
                      -1)
        ag = r16(np.linalg.solve(np.eye(64) + ell, np.diag(b)))
        s16 = r16(s)
        mask = np.tril(np.ones((64, 64)))
        ex = np.exp(np.minimum(gam[:, None] - gam[None, :], 0)) * mask
        p = r16(f32(scale * fq[sl][:, None] * fk[sl][None, :] * ex *
                    f32(qa[sl] @ ka[sl].T)))
        ks = f32(ka[sl] @ s16)
        w = r16(f32(v[sl] - (np.exp(gam) * fk[sl])[:, None] * ks))
        o1 = f32(scale * (np.exp(gam) * fq[sl])[:, None] * f32(qa[sl] @ s16))
        vn = f32(ag @ w)
        vp = r16(f32((np.exp(gam[-1] - gam) * fk[sl])[:, None] * vn))
        o[sl] = r16(f32(o1 + p @ r16(vn)))
        s = f32(np.exp(gam[-1]) * s + ka[sl].T @ vp)
    return o, s


def rel(a, b):
    return np.linalg.norm(a - b) / np.linalg.norm(b)


def main():
    ap = argparse.ArgumentParser(
        description="the q/k L2 norm as factors (CPU study)")
    ap.add_argument("--chunks", type=int, default=4)
    ap.add_argument("--seeds", type=int, default=3)
    ap.add_argument("--dtype", default="f16", choices=["f16", "bf16"])
    args = ap.parse_args()
    r16 = rounder(args.dtype)
    n, d = 64 * args.chunks, 128
    scale = d ** -0.5
    print(f"{args.dtype}, T = {n}, {args.seeds} seeds: "
          "mean rel L2 of o / state")
    print("| gate | q, k scale | copies: o | copies: state | factors: o |"
          " factors: state |")
    print("|---|---|---|---|---|---|")
    for gate in ("weak", "nodecay", "collinear"):
        for sc in (1e-2, 1.0, 30.0):
            acc = np.zeros(4)
            for seed in range(args.seeds):
                rng = np.random.default_rng(seed)
                q = r16(sc * rng.standard_normal((n, d)))
                if gate == "collinear":
                    # gdn-run --family collinear's keys, left unnormalized:
                    # one direction u, k_t = u + 0.05 n_t; beta = 1, g = 0.
                    u = rng.standard_normal(d)
                    k = r16(sc * (u + 0.05 * rng.standard_normal((n, d))))
                else:
                    k = r16(sc * rng.standard_normal((n, d)))
                v = r16(rng.standard_normal((n, d)))
                beta = r16(1 / (1 + np.exp(-rng.standard_normal(n))))
                if gate == "collinear":
                    beta = np.ones(n)
                g = (f32(-rng.uniform(0, 0.05, n)) if gate == "weak"
                     else np.zeros(n))
                ro, rs = oracle(q, k, v, g, beta, scale)
                co, cs = chunked(q, k, v, g, beta, scale, r16, "copies")
                fo, fs = chunked(q, k, v, g, beta, scale, r16, "factors")
                acc += [rel(co, ro), rel(cs, rs), rel(fo, ro), rel(fs, rs)]
            acc /= args.seeds
            print(f"| {gate} | {sc:g} | " +
                  " | ".join(f"{x:.2e}" for x in acc) + " |")


if __name__ == "__main__":
    main()
