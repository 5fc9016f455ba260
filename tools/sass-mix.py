#!/usr/bin/env python3
# ===- sass-mix.py - a kernel's SASS instruction mix, whole or one loop ----===#
#
# usage: sass-mix.py SASS [--kernel NAME] [--loop | --range LO:HI]
#                    [--list-loops] [--modifiers] [--top N]
#                    [--diff OTHER_SASS]
#        sass-mix.py --ptx PTX --kernel NAME [--arch sm_90a] [...]
#
# Counts the instructions of one kernel's SASS by opcode (the mnemonic
# before its first '.', or the whole opcode with --modifiers; a predicate
# such as @!P0 is not part of it):
#   - SASS: `cuobjdump -sass` text (one or more `Function : NAME` sections;
#     --kernel picks one, else the file must hold exactly one);
#   - --ptx PTX: compiled here first (ptxas -arch ARCH, $PTXAS or
#     /usr/local/cuda/bin/ptxas) and disassembled ($CUOBJDUMP or cuobjdump on
#     PATH; the CUDA toolkit here has none: `pip download
#     nvidia-cuda-cuobjdump` has one under nvidia/cu13/bin). No GPU needed.
# --loop counts only the body of the largest loop (the backward branch
# whose target lies furthest back, out-of-line blocks after the last EXIT
# left out: in the GDN chunk kernels the chunk loop, its partial-chunk
# paths included); --range LO:HI only the
# instructions at addresses LO <= a < HI (hex); --list-loops prints every
# loop found with its size. --diff OTHER_SASS prints both mixes side by side (the same
# kernel and selection; with --loop each file's own largest loop), as
# docs/perf-notes.md v35 compared the chunk step before and after a
# change. This is how that entry read the step's 968 instructions.
# ===----------------------------------------------------------------------===#
import argparse
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

INSTR = re.compile(r"^\s*/\*([0-9a-fA-F]+)\*/\s+([^;]*);")
FUNCTION = re.compile(r"^\s*Function\s*:\s*(\S+)")
BRANCH = re.compile(r"^(BRA|JMP)\b")
TARGET = re.compile(r"0x([0-9a-fA-F]+)\s*$")


def fail(message):
    sys.exit(f"sass-mix.py: {message}")


def parse(text):
    """{function: [(address, predicate-free instruction text, predicated)]}."""
    functions = collections.OrderedDict()
    current = None
    for line in text.splitlines():
        m = FUNCTION.match(line)
        if m:
            current = functions.setdefault(m.group(1), [])
            continue
        m = INSTR.match(line)
        if not m:
            continue
        if current is None:
            current = functions.setdefault("", [])
        words = m.group(2).split()
        predicated = bool(words) and words[0].startswith("@")
        if predicated:
            words = words[1:]
        if words:
            current.append((int(m.group(1), 16), " ".join(words), predicated))
    return functions


def pick(functions, kernel, source):
    if kernel is not None:
        if kernel not in functions:
            names = ", ".join(n for n in functions if n) or "none"
            fail(f"{source}: no function {kernel} (functions: {names})")
        instrs = functions[kernel]
    elif len(functions) == 1:
        instrs = next(iter(functions.values()))
    else:
        fail(f"{source} holds {len(functions)} functions; pick one with --kernel")
    if not instrs:
        fail(f"{source}: no SASS instructions")
    return instrs


def loops(instrs):
    """[(target, branch address)] of the backward branches, except those
    after the function's last unconditional EXIT: ptxas places rarely taken
    blocks there (an mbarrier wait's retry loop), which branch back into
    the code they came from but are no loop's back edge."""
    exits = [a for a, text, pred in instrs if text.split()[0] == "EXIT" and not pred]
    end = exits[-1] if exits else None
    out = []
    for address, text, _ in instrs:
        if end is not None and address > end:
            break
        if BRANCH.match(text):
            t = TARGET.search(text)
            if t and int(t.group(1), 16) <= address:
                out.append((int(t.group(1), 16), address))
    return out


def select(instrs, args, source):
    if args.range:
        lo, hi = args.range
        chosen = [i for i in instrs if lo <= i[0] < hi]
        label = f"range 0x{lo:x}-0x{hi:x}"
    elif args.loop:
        found = loops(instrs)
        if not found:
            fail(f"{source}: no loop (no backward branch)")
        lo, branch = max(found, key=lambda l: (l[1] - l[0], -l[0]))
        chosen = [i for i in instrs if lo <= i[0] <= branch]
        label = f"loop 0x{lo:x}-0x{branch:x}"
    else:
        chosen, label = instrs, "whole kernel"
    if not chosen:
        fail(f"{source}: no instruction in the {label}")
    return chosen, label


def mix(instrs, modifiers):
    counts = collections.Counter()
    for _, text, _ in instrs:
        op = text.split()[0]
        counts[op if modifiers else op.split(".")[0]] += 1
    return counts


def disassemble(ptx, kernel, arch):
    ptxas = os.environ.get("PTXAS", "/usr/local/cuda/bin/ptxas")
    cuobjdump = os.environ.get("CUOBJDUMP") or shutil.which("cuobjdump")
    if not os.access(ptxas, os.X_OK):
        fail(f"no ptxas at {ptxas} (set PTXAS)")
    if not cuobjdump or not os.access(cuobjdump, os.X_OK):
        fail(f"no cuobjdump{' at ' + cuobjdump if cuobjdump else ''} (set "
             "CUOBJDUMP; `pip download nvidia-cuda-cuobjdump` has one under "
             "nvidia/cu13/bin)")
    with tempfile.TemporaryDirectory() as tmp:
        cubin = os.path.join(tmp, "k.cubin")
        r = subprocess.run([ptxas, f"-arch={arch}", ptx, "-o", cubin],
                           capture_output=True, text=True)
        if r.returncode:
            fail(f"ptxas failed on {ptx}:\n{r.stderr.strip()}")
        r = subprocess.run([cuobjdump, "-sass", "-fun", kernel, cubin],
                           capture_output=True, text=True)
        if r.returncode:
            fail(f"cuobjdump failed:\n{r.stderr.strip()}")
        return r.stdout


def load(path, args):
    if args.ptx:
        return disassemble(path, args.kernel, args.arch)
    try:
        with open(path) as f:
            return f.read()
    except OSError as e:
        fail(f"cannot read {path}: {e.strerror}")


def hex_range(text):
    m = re.fullmatch(r"(?:0x)?([0-9a-fA-F]+):(?:0x)?([0-9a-fA-F]+)", text)
    if not m or int(m.group(1), 16) >= int(m.group(2), 16):
        raise argparse.ArgumentTypeError(f"expected LO:HI in hex with LO < HI, got {text!r}")
    return int(m.group(1), 16), int(m.group(2), 16)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("input", help="cuobjdump -sass text, or PTX with --ptx")
    p.add_argument("--ptx", action="store_true", help="INPUT is PTX: compile and disassemble it")
    p.add_argument("--arch", default="sm_90a")
    p.add_argument("--kernel")
    g = p.add_mutually_exclusive_group()
    g.add_argument("--loop", action="store_true")
    g.add_argument("--range", type=hex_range)
    p.add_argument("--modifiers", action="store_true")
    p.add_argument("--list-loops", action="store_true")
    p.add_argument("--top", type=int, default=30)
    p.add_argument("--diff")
    args = p.parse_args()
    if args.ptx and not args.kernel:
        fail("--ptx needs --kernel")
    if args.top <= 0:
        fail("--top must be positive")

    sources = [args.input] + ([args.diff] if args.diff else [])
    mixes = []
    for source in sources:
        instrs = pick(parse(load(source, args)), args.kernel, source)
        if args.list_loops:
            for target, branch in loops(instrs):
                print(f"{source}: loop 0x{target:x}-0x{branch:x} "
                      f"({sum(1 for a, _, _ in instrs if target <= a <= branch)} instructions)")
        chosen, label = select(instrs, args, source)
        print(f"{source}: {label}: {len(chosen)} instructions")
        mixes.append(mix(chosen, args.modifiers))

    if len(mixes) == 1:
        for op, n in mixes[0].most_common(args.top):
            print(f"{op} {n}")
        return
    a, b = mixes
    print(f"opcode {args.input} {args.diff} change")
    ops = sorted(set(a) | set(b), key=lambda o: (-max(a[o], b[o]), o))
    for op in ops[: args.top]:
        print(f"{op} {a[op]} {b[op]} {b[op] - a[op]:+d}")
    print(f"total {sum(a.values())} {sum(b.values())} {sum(b.values()) - sum(a.values()):+d}")


if __name__ == "__main__":
    main()
