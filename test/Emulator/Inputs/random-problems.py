#!/usr/bin/env python3
"""Random GDN prefill problems on the CPU emulator, each checked by gdn-run
against its fp64 recurrence: shapes and options drawn from a seed (odd and
tiny T, B > 1, GVA ratios, ragged varlen with empty and length-1 sequences,
initial states, both paths with random segment sizes, both forward
variants, both dtypes, every input family, the transform stages), so that
the kernels' masks and indexing meet cases no hand-written test lists.

usage: random-problems.py --gdn-run BIN --kernels DIR --count N [--seed S]
Prints one line per problem (its gdn-run options and PASS / FAIL) and a
last line "random problems: N passed, M failed"; exits 1 if any failed.
The environment must select the emulator (GDN_CUDA_LIBRARY,
GDN_EMU_KERNELS). A failing line is its own reproducer.
"""
import argparse
import glob
import os
import random
import subprocess
import sys

FAMILIES = ["weak", "nodecay", "strong", "fqstrong", "mixed", "beta0",
            "beta1", "unnorm", "bigkey"]


def problem(rng):
    dtype = rng.choice(["f16", "bf16"])
    h = rng.choice([1, 1, 2])
    hv = h * rng.choice([1, 2, 4])
    opts = ["--H", str(h), "--HV", str(hv), "--dtype", dtype,
            "--family", rng.choice(FAMILIES)]
    if rng.random() < 0.35:
        # Ragged varlen: 1..5 sequences, some empty or of length 1.
        n = rng.randint(1, 5)
        lens = [rng.choice([0, 1, rng.randint(2, 70), rng.randint(60, 260)])
                for _ in range(n)]
        if sum(lens) == 0:
            lens[-1] = rng.randint(1, 100)
        cu = [0]
        for ln in lens:
            cu.append(cu[-1] + ln)
        opts += ["--T", str(cu[-1]), "--cu-seqlens", ",".join(map(str, cu))]
    else:
        opts += ["--B", str(rng.choice([1, 1, 2, 3])),
                 "--T", str(rng.choice([1, 2, 63, 64, 65, 127, 128, 129,
                                        rng.randint(1, 400)]))]
    if rng.random() < 0.4:
        opts += ["--h0"]
        if rng.random() < 0.3:
            opts += ["--state-v-first"]
    if rng.random() < 0.4:
        opts += ["--cp", "on", "--cp-chunks", str(rng.randint(1, 4))]
    opts += ["--block-v", rng.choice(["16", "128"])]
    # The transform stages, where the family leaves them something to do
    # (gdn-run refuses the other combinations).
    family = opts[opts.index("--family") + 1]
    if rng.random() < 0.2 and family not in ("unnorm", "bigkey"):
        opts += ["--qk-l2norm"]
    if rng.random() < 0.2 and family in ("weak", "beta0", "beta1"):
        opts += ["--gate-in-kernel"]
    if rng.random() < 0.2 and family not in ("beta0", "beta1"):
        opts += ["--beta-sigmoid"]
    if rng.random() < 0.1:
        opts += ["--neg-eigval"]
    opts += ["--seed", str(rng.randint(1, 10**6))]
    return dtype, opts


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--gdn-run", required=True)
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--count", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    passed = failed = 0
    for i in range(args.count):
        dtype, opts = problem(rng)
        manifests = sorted(glob.glob(os.path.join(args.kernels,
                                                  "gdn_*_%s.manifest" % dtype)))
        cmd = [args.gdn_run, "--op", "gdn_prefill", "--iters", "0",
               "--determinism", "0"] + opts + manifests
        try:
            proc = subprocess.run(cmd, stdout=subprocess.PIPE,
                                  stderr=subprocess.STDOUT, timeout=600)
            rc, out = proc.returncode, proc.stdout.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            rc, out = -1, "timeout: no exit after 600 s"
        ok = rc == 0 and "1 passed, 0 failed" in out
        passed += ok
        failed += not ok
        print("%s %s" % ("PASS" if ok else "FAIL", " ".join(opts)))
        if not ok:
            print("  exit %d; output tail:" % rc)
            for line in out.splitlines()[-6:]:
                print("    " + line)
        sys.stdout.flush()
    print("random problems: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
