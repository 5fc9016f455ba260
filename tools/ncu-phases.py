#!/usr/bin/env python3
# ===- ncu-phases.py - a kernel's ncu source counters by phase and opcode -===#
#
# usage: ncu-phases.py SASS_CSV [--blocks N | --details DETAILS_CSV]
#                       [--steps N] [--top N]
#
# Reads the per-instruction table that
#   ncu -i REPORT --page source --csv --print-source sass
# writes for one kernel (SourceCounters section collected; a .gz file is
# read as such) and prints, scaled per unit of work (divided by --blocks
# and --steps, e.g. the grid's block count and the chunk steps per block;
# --details takes the block count from the "Grid Size" of the kernel's
# `ncu --page details --csv` table):
#   - totals: warp instructions, shared-memory wavefronts, the excessive
#     (bank-conflict) wavefronts, stall samples;
#   - the stall reasons, in % of the samples;
#   - phases: the instruction ranges between block barriers (BAR.SYNC),
#     with instructions, wavefronts, excess and % of the stall samples,
#     the phases that never ran left out;
#   - the --top opcodes by instructions executed.
# This is how docs/perf-notes.md v20 located the prep kernel's bank
# conflicts (the triangular inverse's operand loads) and the forward's
# wgmma waits.
# ===----------------------------------------------------------------------===#
import argparse
import collections
import csv
import gzip
import sys

COUNTERS = {
    "instr": "Instructions Executed",
    "wf": "L1 Wavefronts Shared",
    "excess": "L1 Wavefronts Shared Excessive",
    "stall": "Warp Stall Sampling (All Samples)",
}


def number(text):
    try:
        return float(text.replace(",", ""))
    except ValueError:
        return 0.0


def read_rows(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", newline="") as f:
        rows = list(csv.reader(f))
    # The first row names the kernel; the header is the row with "Source".
    for i, row in enumerate(rows):
        if "Source" in row and COUNTERS["instr"] in row:
            return rows[i], rows[i + 1:]
    sys.exit(f"ncu-phases.py: {path}: no source-counter header "
             f"(collect --section SourceCounters, export --page source)")


def grid_blocks(path):
    """The block count of the first kernel in an ncu details table."""
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    for i, row in enumerate(rows):
        if "Grid Size" in row and i + 1 < len(rows):
            dims = rows[i + 1][row.index("Grid Size")].strip("() ").split(",")
            try:
                count = 1.0
                for d in dims:
                    count *= float(d)
                return count
            except ValueError:
                break
    sys.exit(f"ncu-phases.py: {path}: no grid size")


def main():
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("csv")
    ap.add_argument("--blocks", type=float, default=1.0)
    ap.add_argument("--details")
    ap.add_argument("--steps", type=float, default=1.0)
    ap.add_argument("--top", type=int, default=20)
    args = ap.parse_args()
    if args.details:
        args.blocks = grid_blocks(args.details)
    if args.blocks <= 0 or args.steps <= 0:
        sys.exit("ncu-phases.py: --blocks and --steps must be positive")
    header, data = read_rows(args.csv)
    col = {name: i for i, name in enumerate(header)}
    missing = [c for c in COUNTERS.values() if c not in col]
    if missing:
        sys.exit(f"ncu-phases.py: {args.csv}: missing columns {missing}")
    stalls = [h for h in header
              if h.startswith("stall_") and "Not Issued" not in h]
    unit = args.blocks * args.steps

    records = []
    for row in data:
        if len(row) <= col["Source"]:
            continue
        source = row[col["Source"]].strip()
        values = {k: number(row[col[c]]) for k, c in COUNTERS.items()}
        reasons = {h: number(row[col[h]]) for h in stalls}
        records.append((source, values, reasons))
    if not records:
        sys.exit(f"ncu-phases.py: {args.csv}: no instructions")

    total = collections.Counter()
    reasons = collections.Counter()
    for _, v, r in records:
        total.update(v)
        reasons.update(r)
    print(f"per unit (blocks {args.blocks:g} x steps {args.steps:g}): "
          f"instructions {total['instr'] / unit:.1f}, "
          f"shared wavefronts {total['wf'] / unit:.1f}, "
          f"excess {total['excess'] / unit:.1f}; "
          f"stall samples {total['stall']:.0f}")
    samples = sum(reasons.values()) or 1.0
    print("stalls: " + "  ".join(
        f"{k[len('stall_'):]} {100 * v / samples:.1f}%"
        for k, v in reasons.most_common(8) if v))

    print("\nphase  SASS lines    instr      wf  excess  stall%")
    phase = collections.Counter()
    first = 0
    stall_total = total["stall"] or 1.0
    for i, (source, v, _) in enumerate(records):
        phase.update(v)
        last = i == len(records) - 1
        if "BAR.SYNC" in source or last:
            if phase["instr"] or phase["wf"]:
                print(f"{first:5d}-{i:5d}  {phase['instr'] / unit:9.1f} "
                      f"{phase['wf'] / unit:7.1f} {phase['excess'] / unit:7.1f}"
                      f"  {100 * phase['stall'] / stall_total:6.1f}")
            phase = collections.Counter()
            first = i + 1

    print("\nopcode          instr      wf  excess  stall%")
    ops = collections.defaultdict(collections.Counter)
    for source, v, _ in records:
        words = source.split()
        if not words:
            continue
        op = words[1] if words[0].startswith("@") and len(words) > 1 else words[0]
        ops[op.split(".")[0]].update(v)
    for op, v in sorted(ops.items(), key=lambda kv: -kv[1]["instr"])[:args.top]:
        print(f"{op:12s} {v['instr'] / unit:9.1f} {v['wf'] / unit:7.1f} "
              f"{v['excess'] / unit:7.1f}  {100 * v['stall'] / stall_total:6.1f}")


if __name__ == "__main__":
    main()
