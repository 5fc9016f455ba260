#!/usr/bin/env python3
#===- chunk-rounding-study.py - where a chunk's 16-bit roundings go, CPU --===#
#
# usage: chunk-rounding-study.py [--chunks N] [--seed S] [--dtype f16|bf16]
#                                [--noise X,...]
#
# A CPU study (numpy) of the chunk form's 16-bit intermediates on one
# 64-token chunk from a zero state without decay (g = 0), where the output is
# o = scale * tril(Q K^T) V_new with V_new = Ag V and Ag = (I + L)^-1 beta^T,
# L the strictly lower part of diag(beta) K K^T. It rounds one intermediate at
# a time to the kernels' 16-bit format (Ag as stored by the prep, V_new and P
# = tril(Q K^T) as the forward's gemm operands, o as stored; everything else
# exact) and prints the mean relative L2 error of o against the fp64 token
# recurrence on the same (16-bit rounded) inputs, per input family:
#   weak       normalized keys, beta = sigmoid(N(0,1))
#   collinear  k_t = u + 0.05 n_t normalized, beta = 1 (gdn-run --family
#              collinear): L is nearly all ones below the diagonal, so
#              V_new holds differences of consecutive values and P V_new
#              telescopes: each rounding of P or V_new is summed over up
#              to 64 terms whose total is one value's size. --noise X,...
#              adds rows for other noise levels (k_t = u + X n_t: the
#              cosine of two keys is about 1 / (1 + X^2)).
# Last, the state after the chunk (S = K^T V_new, V_new rounded: "S all")
# and a well-conditioned form of both: M = P Ag and U = Ag^T K formed
# exactly and rounded once, o = scale * M V and S = U^T V ("MU o", "MU S"),
# whose products no longer telescope; and what the kernels do on flagged
# chunks (the refined step, docs/gdn-math.md §6.8): Ag, V_new and P each as
# a 16-bit pair hi + lo, o = scale (V_hi P_hi + V_hi P_lo + V_lo P_hi) and
# S = K^T (V_hi + V_lo) ("split o", "split S"). "guard" is the prep's flag
# statistic, max_i sum_{d=1..8} |L_{i,i-d}| (flagged above 4). "c_K" is
# another candidate per-chunk guard,
# computable where Ag is formed: || |K|^T |Ag| ||_F / || K^T Ag ||_F, the
# cancellation in the state's product (and, keys driving P's rows, in o's):
# about 2 for random keys, growing with the keys' alikeness as the error
# does.
# docs/perf-notes.md v54 item 4 has the table and what it means.
#===----------------------------------------------------------------------===#
import argparse

import numpy as np


def rounder(dtype):
    if dtype == "f16":
        return lambda x: np.asarray(x).astype(np.float16).astype(np.float64)

    def bf16(x):
        b = np.asarray(x, np.float32).view(np.uint32).astype(np.uint64)
        b = (b + 0x7FFF + ((b >> 16) & 1)) & 0xFFFF0000
        return b.astype(np.uint32).view(np.float32).astype(np.float64)
    return bf16


def guard(ell):
    """The prep's alike-keys statistic: max_i sum_{d=1..8} |L_{i,i-d}|."""
    return max(np.abs(ell[i, max(i - 8, 0):i]).sum() for i in range(64))


def chunk_error(rng, family, rounded, r16, noise=0.05):
    d = 128
    if family == "collinear":
        k = rng.standard_normal(d) + noise * rng.standard_normal((64, d))
        beta = np.ones(64)
    else:
        k = rng.standard_normal((64, d))
        beta = 1 / (1 + np.exp(-rng.standard_normal(64)))
    k = r16(k / np.linalg.norm(k, axis=1, keepdims=True))
    beta = r16(beta)
    q = rng.standard_normal((64, d))
    q = r16(q / np.linalg.norm(q, axis=1, keepdims=True))
    v = r16(rng.standard_normal((64, d)))
    scale = d ** -0.5
    state = np.zeros((d, d))
    o = np.zeros((64, d))
    for t in range(64):
        u = beta[t] * (v[t] - k[t] @ state)
        state += np.outer(k[t], u)
        o[t] = scale * q[t] @ state
    ell = np.tril(beta[:, None] * (k @ k.T), -1)
    ag = np.linalg.inv(np.eye(64) + ell) * beta[None, :]
    keep = lambda name, x: r16(x) if name in rounded else x
    rel = lambda x, y: np.linalg.norm(x - y) / np.linalg.norm(y)
    p = np.tril(q @ k.T)
    c_k = np.linalg.norm(np.abs(k).T @ np.abs(ag)) / np.linalg.norm(k.T @ ag)
    if rounded == ("split",):
        agh = r16(ag)
        vn = (agh + r16(ag - agh)) @ v
        vh, ph = r16(vn), r16(p)
        vl, pl = r16(vn - vh), r16(p - ph)
        os_ = r16(scale * (ph @ vh + pl @ vh + ph @ vl))
        return rel(os_, o), rel(k.T @ (vh + vl), state), c_k, guard(ell)
    if rounded == ("MU",):
        om = r16(scale * (r16(p @ ag) @ v))
        return rel(om, o), rel(r16(ag.T @ k).T @ v, state), c_k, guard(ell)
    vn = keep("V_new", keep("Ag", ag) @ v)
    oc = keep("o", scale * (keep("P", p) @ vn))
    return rel(oc, o), rel(k.T @ vn, state), c_k, guard(ell)


def main():
    ap = argparse.ArgumentParser(
        description="where a chunk's 16-bit roundings go (see the header)")
    ap.add_argument("--chunks", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--dtype", choices=("f16", "bf16"), default="f16")
    ap.add_argument("--noise", default="0.05",
                    help="collinear noise levels, comma-separated")
    args = ap.parse_args()
    r16 = rounder(args.dtype)
    cases = ((), ("Ag",), ("V_new",), ("P",), ("o",), ("Ag", "V_new", "P", "o"),
             ("MU",), ("split",))
    names = ["exact", "Ag", "V_new", "P", "o", "all", "S all", "MU o", "MU S",
             "split o", "split S", "c_K", "guard"]
    print("%-10s %s" % ("family", " ".join("%10s" % n[:10] for n in names)))
    rows = [("weak", 0.0)] + [("collinear", float(x))
                              for x in args.noise.split(",")]
    for family, noise in rows:
        errs = []
        for c in cases:
            rng = np.random.default_rng(args.seed)
            e = np.mean([chunk_error(rng, family, c, r16, noise)
                         for _ in range(args.chunks)], axis=0)
            errs += [e[0], e[1]] if c in cases[-3:] else [e[0]]
        errs += [e[2], e[3]]
        name = family if family == "weak" else "col %g" % noise
        print("%-10s %s %10.1f %10.2f" % (
            name, " ".join("%10.2e" % e for e in errs[:-2]), errs[-2],
            errs[-1]))


if __name__ == "__main__":
    main()
