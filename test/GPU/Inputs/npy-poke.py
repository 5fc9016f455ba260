#!/usr/bin/env python3
"""npy-poke.py FILE INDEX VALUE: overwrites element INDEX (flat, C order) of
the .npy FILE with VALUE (nan, inf, -inf or a number), in place. Plain
python (no NumPy): handles <f2, <f4, <f8 and <u2/<i2 holding bfloat16 bits
(the dtypes gdn-run --save writes)."""
import ast
import struct
import sys

path, index, value = sys.argv[1], int(sys.argv[2]), float(sys.argv[3])
with open(path, "rb") as f:
    data = bytearray(f.read())
if data[:6] != b"\x93NUMPY":
    sys.exit("%s: not a .npy file" % path)
if data[6] == 1:
    header_len, start = struct.unpack("<H", data[8:10])[0], 10
else:
    header_len, start = struct.unpack("<I", data[8:12])[0], 12
header = ast.literal_eval(data[start:start + header_len].decode("latin1"))
offset = start + header_len
descr = header["descr"]
if descr == "<f2":
    raw = struct.pack("<e", value)
elif descr == "<f4":
    raw = struct.pack("<f", value)
elif descr == "<f8":
    raw = struct.pack("<d", value)
elif descr in ("<u2", "<i2"):  # bfloat16 bits: the top half of the f32
    raw = struct.pack("<f", value)[2:4]
else:
    sys.exit("%s: unsupported dtype %s" % (path, descr))
at = offset + index * len(raw)
if at + len(raw) > len(data):
    sys.exit("%s: index %d is out of range" % (path, index))
data[at:at + len(raw)] = raw
with open(path, "wb") as f:
    f.write(data)
