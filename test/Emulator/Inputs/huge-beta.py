#!/usr/bin/env python3
"""Puts a beta past 2^14 (1e32) into chunk 1 of a saved bf16 gdn-run problem.

Usage: huge-beta.py DIR

Rewrites DIR/g.npy (<f4, [B, T, HV]) and DIR/beta.npy (<u2 bfloat16 bits,
[B, T, HV]) in place, for the first sequence and value head: in chunk 1
(tokens 64..127) g is -1.2 on tokens 65..80 and 0 elsewhere (sum |g| =
19.2, inside the factored gate's bound of 20), and beta of token 84 (column
20, in the 16-column block from 16) is 1e32. The factored Ag map's column
factor then overflows above the diagonal in the chunk's first rows:
e^(gamma_i - gamma_16) e^(gamma_16 - gamma_20) beta_20 = e^19.2 1e32 for row
0, past the f32 range, so a map without the mask there would put
inf x 0 = NaN into those rows (docs: kernels/gdn_prefill/
gdn_prep_solve.mlir.inc, the Ag map). Pure Python (no NumPy).
"""
import ast
import struct
import sys


def read_npy(path):
    data = bytearray(open(path, "rb").read())
    if data[:6] != b"\x93NUMPY":
        sys.exit("%s: not a .npy file" % path)
    if data[6] == 1:
        hlen, start = struct.unpack("<H", data[8:10])[0], 10
    else:
        hlen, start = struct.unpack("<I", data[8:12])[0], 12
    header = ast.literal_eval(data[start:start + hlen].decode("latin1"))
    return data, header, start + hlen


def main():
    d = sys.argv[1]
    g, gh, goff = read_npy(d + "/g.npy")
    b, bh, boff = read_npy(d + "/beta.npy")
    if gh["descr"] != "<f4" or bh["descr"] not in ("<u2", "<i2"):
        sys.exit("huge-beta.py: expected g <f4 and beta bfloat16 bits, got "
                 "%s and %s" % (gh["descr"], bh["descr"]))
    _, t, hv = gh["shape"]
    if t < 128:
        sys.exit("huge-beta.py: needs T >= 128, got %d" % t)
    for tok in range(64, 128):
        value = -1.2 if 65 <= tok <= 80 else 0.0
        at = goff + 4 * (tok * hv)
        g[at:at + 4] = struct.pack("<f", value)
    at = boff + 2 * (84 * hv)
    b[at:at + 2] = struct.pack("<f", 1e32)[2:4]
    open(d + "/g.npy", "wb").write(g)
    open(d + "/beta.npy", "wb").write(b)


if __name__ == "__main__":
    main()
