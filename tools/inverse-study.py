#!/usr/bin/env python3
#===- inverse-study.py - accuracy of cheaper chunk inverses, on the CPU ----===#
#
# usage: inverse-study.py [--chunks N] [--seed S]
#
# A CPU study (numpy) of the prep's triangular inverse T = (I + L)^-1, L the
# strictly lower part of diag(beta) K K^T of one 64-token chunk, computed as
# the kernels do it: forward substitution in fp32 on the four 16x16
# diagonal blocks, then the size-16 and size-32 merges T21 = -T22 (L21 T11)
# on the tensor core, emulated with tf32 operands (round to nearest, 10
# mantissa bits) and fp32 sums. Three forms of the merges:
#   split  the kernels' split tf32 (hi hi + hi lo + lo hi: near fp32);
#   one    one tf32 product each (docs/perf-notes.md v35's "tf1", rounded);
#   ie     one tf32 product each on E = T - I only, the identity parts added
#          in fp32: Y = L21 + L21 E11, T21 = -(Y + E22 Y), so a product's
#          rounding scales with |E| (~|L|) instead of with |T| (~1).
# and two forms of the diagonal blocks' inverse, the merges split as the
# kernels do them:
#   pst    the product form (I + N)^-1 = (I - N)(I + N^2)(I + N^4)(I + N^8)
#          (N strictly lower 16x16, so N^16 = 0 and it is exact in exact
#          arithmetic), every product split tf32: five dependent products
#          instead of a 16-step substitution;
#   p16    the same with f16 operands and fp32 sums (mma.sync on 16-bit
#          operands, as TileOps forms T).
# For each input family it prints the mean relative Frobenius error of Ag =
# Gamma . T . beta^T against fp64 (keys and beta rounded to f16 first, as
# the inputs are), beside the error of Ag's own f16 rounding (what every
# form pays when Ag is stored), the largest |L| and |E| seen, and the
# largest row sum of |L| inside a diagonal block (||N||_inf, what bounds
# the product form's powers: ||N^m|| <= ||N||^m).
# docs/perf-notes.md v51 has the table and what it means for the prep.
#===----------------------------------------------------------------------===#
import argparse

import numpy as np

F32 = np.float32


def tf32(x):
    """x rounded to tf32 (10 mantissa bits), to nearest, ties away."""
    b = np.asarray(x, dtype=F32).view(np.uint32).astype(np.uint64)
    return ((b + 0x1000) & 0xFFFFE000).astype(np.uint32).view(F32)


def mm_split(a, b):
    ah, bh = tf32(a), tf32(b)
    al, bl = tf32(a - ah), tf32(b - bh)
    return (ah @ bh + (ah @ bl + al @ bh)).astype(F32)


def mm_one(a, b):
    return (tf32(a) @ tf32(b)).astype(F32)


def mm_f16(a, b):
    h = lambda x: np.asarray(x, F32).astype(np.float16).astype(F32)
    return (h(a) @ h(b)).astype(F32)


def diag_product(L, mm):
    """(I + L)^-1 of a unit lower 16x16 block as (I - N)(I + N^2)(I + N^4)
    (I + N^8), each product by mm."""
    eye = np.eye(L.shape[0], dtype=F32)
    n2 = mm(L, L)
    n4 = mm(n2, n2)
    n8 = mm(n4, n4)
    p1 = mm(eye - L, eye + n2)
    p2 = mm(eye + n4, eye + n8)
    return mm(p1, p2)


def diag_inverse(L):
    """(I + L)^-1 of a unit lower 16x16 block by forward substitution."""
    n = L.shape[0]
    T = np.eye(n, dtype=F32)
    for i in range(n):
        for j in range(i):
            s = F32(0)
            for k in range(j, i):
                s = F32(s + L[i, k] * T[k, j])
            T[i, j] = -s
    return T


def inverse(L, form):
    T = np.zeros((64, 64), F32)
    for b in range(0, 64, 16):
        blk = L[b:b + 16, b:b + 16]
        if form == "pst":
            T[b:b + 16, b:b + 16] = diag_product(blk, mm_split)
        elif form == "p16":
            T[b:b + 16, b:b + 16] = diag_product(blk, mm_f16)
        else:
            T[b:b + 16, b:b + 16] = diag_inverse(blk)
    if form in ("pst", "p16"):
        form = "split"
    for size in (16, 32):
        for b0 in range(0, 64, 2 * size):
            a, c = slice(b0, b0 + size), slice(b0 + size, b0 + 2 * size)
            T11, T22, L21 = T[a, a], T[c, c], L[c, a]
            if form == "split":
                T[c, a] = -mm_split(T22, mm_split(L21, T11))
            elif form == "one":
                T[c, a] = -mm_one(T22, mm_one(L21, T11))
            else:
                eye = np.eye(size, dtype=F32)
                Y = (L21 + mm_one(L21, T11 - eye)).astype(F32)
                T[c, a] = -(Y + mm_one(T22 - eye, Y)).astype(F32)
    return T


def chunk(rng, family):
    d = 128
    if family.startswith("collinear"):
        k = rng.standard_normal(d) + 0.05 * rng.standard_normal((64, d))
    else:
        k = rng.standard_normal((64, d))
    k /= np.linalg.norm(k, axis=1, keepdims=True)
    beta = 1 / (1 + np.exp(-rng.standard_normal(64)))
    if family in ("beta1", "collinear"):
        beta[:] = 1
    if family == "collinear-beta1.99":
        beta[:] = 1.99
    g = rng.uniform(-0.02, 0, 64)
    if family == "strong":
        g = np.log(1 / (1 + np.exp(-rng.standard_normal(64))))
    if family == "nodecay" or family.startswith("collinear"):
        g = np.zeros(64)
    f16 = lambda x: x.astype(np.float16).astype(np.float64)
    return f16(k), f16(beta), g


FAMILIES = {
    "weak": "normalized keys, beta = sigmoid(N(0,1)), g ~ U(-0.02, 0)",
    "nodecay": "as weak, g = 0",
    "strong": "as weak, g = logsigmoid(N(0,1))",
    "beta1": "as weak, beta = 1",
    "collinear": "k_t = u + 0.05 n_t normalized, beta = 1, g = 0",
    "collinear-beta1.99": "as collinear, beta = 1.99",
}


def main():
    np.seterr(over="ignore", invalid="ignore")  # p16 overflows f16
    ap = argparse.ArgumentParser(
        description="accuracy of cheaper chunk inverses (see the header)")
    ap.add_argument("--chunks", type=int, default=12)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = np.random.default_rng(args.seed)
    forms = ("split", "one", "ie", "pst", "p16")
    print("%-19s %9s %9s %9s %9s %9s %9s %6s %6s %6s" % (
        "family", *forms, "f16(Ag)", "max|L|", "max|E|", "|N|inf"))
    for family in FAMILIES:
        err = {f: [] for f in forms + ("f16",)}
        max_l = max_e = max_n = 0.0
        for _ in range(args.chunks):
            k, beta, g = chunk(rng, family)
            L = np.tril(beta[:, None] * (k @ k.T), -1)
            T = np.linalg.inv(np.eye(64) + L)
            gamma = np.cumsum(g)
            Gam = np.tril(np.exp(gamma[:, None] - gamma[None, :]))
            Ag = Gam * T * beta[None, :]
            norm = np.linalg.norm(Ag)
            for f in forms:
                Tf = inverse(L.astype(F32), f).astype(np.float64)
                err[f].append(np.linalg.norm(Gam * Tf * beta[None, :] - Ag) / norm)
            rounded = Ag.astype(np.float16).astype(np.float64)
            err["f16"].append(np.linalg.norm(rounded - Ag) / norm)
            max_l = max(max_l, np.abs(L).max())
            max_e = max(max_e, np.abs(np.tril(T, -1)).max())
            for b in range(0, 64, 16):
                blk = np.abs(L[b:b + 16, b:b + 16])
                max_n = max(max_n, blk.sum(axis=1).max())
        print("%-19s %s %6.2f %6.2f %6.2f" % (
            family, " ".join("%9.2e" % np.mean(err[f]) for f in forms + ("f16",)),
            max_l, max_e, max_n))


if __name__ == "__main__":
    main()
