#!/usr/bin/env python3
"""Makes one 64-token chunk of a saved gdn-run problem nearly collinear.

Usage: alike-chunk.py DIR CHUNK

Rewrites DIR/k.npy (<f2, [B, T, H, 128]) and DIR/beta.npy (<f2 or <f4,
[B, T, HV]) in place: the keys of tokens [64 CHUNK, 64 CHUNK + 64) of the
first sequence become u + 0.05 n_t, L2-normalized (one direction u per key
head, as gdn-run's `collinear` family), and their beta 1, so the prep flags
that chunk alone (docs/gdn-math.md §6.8). Pure Python (no NumPy).
"""
import ast
import math
import random
import struct
import sys


def read_npy(path):
    data = open(path, "rb").read()
    if data[:6] != b"\x93NUMPY":
        sys.exit(f"{path}: not an .npy file")
    if data[6] == 1:
        hlen, start = struct.unpack("<H", data[8:10])[0], 10
    else:
        hlen, start = struct.unpack("<I", data[8:12])[0], 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    return data[:start + hlen], header, bytearray(data[start + hlen:])


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    d, chunk = sys.argv[1], int(sys.argv[2])
    head, hdr, k = read_npy(f"{d}/k.npy")
    if hdr["descr"] != "<f2" or len(hdr["shape"]) != 4:
        sys.exit("k.npy: expected <f2 [B, T, H, K]")
    _, T, H, K = hdr["shape"]
    first, last = 64 * chunk, min(64 * chunk + 64, T)
    if first >= T:
        sys.exit(f"chunk {chunk} is past T = {T}")
    rng = random.Random(chunk)
    for h in range(H):
        u = [rng.gauss(0, 1) for _ in range(K)]
        for t in range(first, last):
            x = [a + 0.05 * rng.gauss(0, 1) for a in u]
            s = 1 / math.sqrt(sum(a * a for a in x))
            off = ((t * H) + h) * K * 2
            k[off:off + 2 * K] = struct.pack(f"<{K}e", *[a * s for a in x])
    open(f"{d}/k.npy", "wb").write(head + k)
    bhead, bhdr, beta = read_npy(f"{d}/beta.npy")
    fmt, size = {"<f2": ("e", 2), "<f4": ("f", 4)}[bhdr["descr"]]
    HV = bhdr["shape"][2]
    for t in range(first, last):
        for h in range(HV):
            off = (t * HV + h) * size
            beta[off:off + size] = struct.pack("<" + fmt, 1.0)
    open(f"{d}/beta.npy", "wb").write(bhead + beta)


if __name__ == "__main__":
    main()
