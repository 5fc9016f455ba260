#!/usr/bin/env python3
#===- gate-factor-study.py - the gate as column factors, CPU --------------===#
#
# usage: gate-factor-study.py [--chunks N] [--seed S]
#
# A CPU study (numpy) of docs/gdn-math.md §6.9: one 64-token chunk with a
# random state S (normalized q and k, beta = sigmoid(N(0,1)), g ~ U(-a, 0),
# V scaled by s), o = diag(e^gamma) Q S + P V_new with V_new = A_g W,
# W = V - diag(e^gamma) K S, A_g = Gamma o T diag(beta), T = (I + L)^-1,
# formed two ways with the forward's fp16 roundings (P and V_new as the
# products' operands):
#   today     A_g and W rounded to fp16 (the prep's and the step's roundings)
#   factored  T diag(beta) and c o W rounded to fp16, V_new = diag(r) (...)
#             with c_j = e^(gm - gamma_j), r_i = e^(gamma_i - gm), gm =
#             -sum_t |g_t| (the fused kernel's task on chunks with
#             sum |g| <= 2)
# and prints the mean relative L2 error of o against fp64 per (a, s).
#===----------------------------------------------------------------------===#
import argparse

import numpy as np


def f16(x):
    return np.asarray(x).astype(np.float16).astype(np.float64)


def chunk(rng, a, s, factored):
    n, d = 64, 128
    k = rng.standard_normal((n, d))
    k = f16(k / np.linalg.norm(k, axis=1, keepdims=True))
    q = rng.standard_normal((n, d))
    q = f16(q / np.linalg.norm(q, axis=1, keepdims=True))
    v = f16(rng.standard_normal((n, d)) * s)
    beta = f16(1 / (1 + np.exp(-rng.standard_normal(n))))
    g = -rng.uniform(0, a, n)
    gam = np.cumsum(g)
    s0 = rng.standard_normal((d, d)) * s * 0.5
    ell = np.tril((beta[:, None] * k) @ k.T, -1)
    t = np.linalg.inv(np.eye(n) + ell)
    gate = np.exp(gam[:, None] - gam[None, :])
    ag = np.tril(gate * t) * beta[None, :]
    w = v - (k @ s0) * np.exp(gam)[:, None]
    p = np.tril(gate * (q @ k.T))
    o = (q @ s0) * np.exp(gam)[:, None] + p @ (ag @ w)
    if factored:
        gm = -np.abs(g).sum()
        tb = f16(np.tril(t) * beta[None, :])
        vn = np.exp(gam - gm)[:, None] * (tb @ f16(w * np.exp(gm - gam)[:, None]))
    else:
        vn = f16(ag) @ f16(w)
    o16 = (q @ s0) * np.exp(gam)[:, None] + f16(p) @ f16(vn)
    return np.linalg.norm(o16 - o) / np.linalg.norm(o)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--chunks", type=int, default=10)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    print("| g ~ U(-a, 0) | s | today | factored |")
    print("|---|---|---|---|")
    for a in (0.02, 0.05, 0.1):
        for s in (1.0, 1e-2, 1e-3, 1e-4):
            row = []
            for factored in (False, True):
                rng = np.random.default_rng(args.seed)
                row.append(np.mean([chunk(rng, a, s, factored)
                                    for _ in range(args.chunks)]))
            print(f"| {a} | {s:g} | {row[0]:.2e} | {row[1]:.2e} |")


if __name__ == "__main__":
    main()
