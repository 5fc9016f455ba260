#!/usr/bin/env python3
"""Mutation fuzzer of gdn-opt: parse -> verify -> gdn-lower-to-ptx -> export
(every fourth iteration: gdn-lower-to-cpu instead).

Seeds are the .mlir files of kernels/ and test/ (split at `// -----`; the
`.mlir.in` templates instantiated with f16 and the first forward variant).
Each iteration applies one to three token-level mutations to a seed (numbers
swapped for huge/zero/negative values, shapes and types changed, lines
duplicated/deleted/swapped, SSA names exchanged, names made hostile, ...)
and runs

    gdn-opt <input> --gdn-lower-to-ptx=output-dir=<tmp>/out -o /dev/null

with a timeout. A run fails the fuzzer when gdn-opt

  * dies of a signal or exits with anything but 0 or 1 (crash, abort);
  * prints "LLVM ERROR", "Assertion", "Stack dump", "PLEASE submit a bug
    report" or a sanitizer report (AddressSanitizer, "runtime error:");
  * runs past the timeout (a hang);
  * exits 0 but writes anything but `<identifier>.ptx` / `.manifest` files
    directly in output-dir, or a manifest line that is not `key = value`
    with a safe key and value (an injection).

Crashes inside upstream MLIR that gdn cannot fix (KNOWN_UPSTREAM, matched on
the stack trace, or by their inputs: the scf parser's use-after-free on the
forward reference it needs, the parse-error cleanup's on any unresolved
forward reference after an error, PARSE_ERROR_UAF) are listed with their
reproducers but do not fail the run.

Iteration i of seed S is a pure function of (S, i): a failure prints the
command that reproduces it (`--seed S --iter i`) and keeps the input under
--crash-dir. Exit status 1 if any run failed, 0 otherwise.

Usage (CI runs it from lit, test/fuzz/fuzz.test, for GDN_FUZZ_TIME seconds):
    python3 test/fuzz/gdn_fuzz.py --gdn-opt build/bin/gdn-opt \
        --corpus kernels --corpus test --time 60 --seed 1
    python3 test/fuzz/gdn_fuzz.py ... --seed 1 --iter 1234   # one iteration
"""

import argparse
import concurrent.futures
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

# The first variant of GDN_FORWARD_VARIANTS ("BV:NW:NWS:SFX:ENG").
DEFAULT_VARIANT = "16:4:4::mma.sync"

INTERESTING_INTS = [
    "0", "1", "-1", "2", "3", "7", "15", "16", "17", "31", "32", "33", "63",
    "64", "127", "128", "255", "256", "1023", "1024", "1025", "4096", "65536",
    "232448", "232449", "2147483647", "2147483648", "-2147483648",
    "4294967295", "4294967296", "1152921504606846976", "4611686018427387904",
    "9223372036854775807", "-9223372036854775808", "9223372036854775808",
    "18446744073709551616", "340282366920938463463374607431768211456",
]
DIMS = ["1", "2", "3", "8", "15", "16", "17", "24", "64", "100", "128", "256",
        "512", "1024", "2048", "65536", "4294967296", "4611686018427387904",
        "9223372036854775807", "0", "?"]
TYPES = ["f16", "bf16", "f32", "f64", "i1", "i8", "i16", "i32", "i64", "index",
         "f8E4M3FN", "i128", "i7"]
KEYWORDS = {
    "shared": ["global", "fragment"], "global": ["shared", "fragment"],
    "fragment": ["shared", "global"], "x": ["y", "z"], "y": ["x", "z"],
    "add": ["max", "min"], "max": ["add", "min"], "mma": ["blocked", "swizzle"],
    "blocked": ["mma", "swizzle"], "swizzle": ["mma", "blocked", "padded"],
    "padded": ["swizzle", "blocked"],
    "masked": ["transpose_a", "transpose_b", "indexed"],
    "transpose_a": ["transpose_b", "masked"],
    "transpose_b": ["transpose_a", "masked"],
    "ins": ["outs"], "outs": ["ins"], "to": ["step"], "step": ["to"],
    "stages": ["step"], "wgmma": ["mma.sync", "banana"],
    "sm_90a": ["sm_70", "sm_100a", "banana"],
}
HOSTILE_STRINGS = ['"a b"', '"../x"', '""', '"x\\0Ay = 1"', '"#"',
                   '"/etc/passwd"', '"$ok"', '"' + "A" * 300 + '"',
                   '"gemm\\0Ashared_bytes = 0"']
HOSTILE_ATTRS = [
    'tile.meta = {op = "a\\0Ab = c"}', "tile.num_warps = 1024 : i64",
    "tile.num_warps = 0 : i64", "tile.max_registers = 4096 : i64",
    'tile.mma_engine = "wgmma"', "tile.shared_memory_bytes = -1 : i64",
    "tile.kernel", "offset = 232440 : i64",
    "tile.meta = {k = [[1]]}", "pending = 9223372036854775807 : i64",
]
LAYOUTS = ["#tile.mma<warps = [4, 4]>", "#tile.mma<warps = [1, 1]>",
           "#tile.mma<warps = [1152921504606846976, 1]>",
           "#tile.mma<warps = [2, 2]>", "#tile.blocked<vector = 1024>",
           "#tile.blocked<vector = 4>", "#tile.swizzle<128>",
           "#tile.swizzle<64>", "#tile.swizzle<0>", "#tile.padded<4>",
           "#tile.padded<8>", "#tile.padded<3>",
           "#tile.padded<9223372036854775807>"]

INT_RE = re.compile(r"(?<![\w.%@#])-?\d+(?![\w.])")
DIM_RE = re.compile(r"(?<=[<x])(\d+|\?)(?=x)")
TYPE_RE = re.compile(r"\b(f16|bf16|f32|f64|i1|i8|i16|i32|i64|index)\b")
WORD_RE = re.compile(r"\b(" + "|".join(re.escape(k) for k in KEYWORDS) + r")\b")
SSA_RE = re.compile(r"%[A-Za-z_][\w$.]*|%\d+")
STR_RE = re.compile(r'"(?:[^"\\]|\\.)*"')
BUFTYPE_RE = re.compile(r"(!tile\.buffer<[^>]*?)(>)")

CRASH_MARKERS = ["LLVM ERROR", "Assertion", "Stack dump",
                 "PLEASE submit a bug report", "AddressSanitizer",
                 "LeakSanitizer", "UndefinedBehaviorSanitizer",
                 "runtime error:", "terminate called", "Segmentation fault"]
# Crashes in upstream code that gdn cannot fix (Debian's MLIR 19.1.7), by a
# regular expression on stderr. They are listed, with their reproducers,
# but do not fail the run; test/fuzz/upstream-*.mlir has their regression
# tests (XFAIL until LLVM is upgraded).
KNOWN_UPSTREAM = [
    # The scf.for/if/parallel/forall parsers resolve their operands before
    # parsing their regions: an operand named after a value the region
    # defines is a forward-reference placeholder that the definition frees
    # (a use-after-free). Fixed in LLVM 21 (llvm-project PR #127778).
    (re.compile(r"MLIR Parser: custom op parser 'scf\."),
     "MLIR 19 scf parser use-after-free (llvm-project#127778)"),
    # A DenseArrayAttr of i1 written with integer literals (array<i1: 0, 1>,
    # e.g. a mutated operandSegmentSizes) is parsed into storage of the
    # wrong size (the parser asserts a whole number of bytes per element;
    # release builds read past it later, typically when printing it in a
    # diagnostic: printDenseArrayAttr). Reported as llvm/circt#9374.
    (re.compile(r"printDenseArrayAttr|DenseArrayElementParser"),
     "MLIR 19 i1 dense array from integer literals (llvm/circt#9374)"),
]
# After a parse error, MLIR 19's parser frees the failed function's
# operations and then writes into one of them while it drops the
# references of unresolved forward references in nested regions
# (test/fuzz/upstream-parse-error-uaf.mlir): a nondeterministic
# "malloc(): ... corrupted" abort after the error. No stack trace names it:
# classified by its input and stderr (parse_error_forward_reference below).
PARSE_ERROR_UAF = ("MLIR 19 parse-error cleanup use-after-free "
                   "(test/fuzz/upstream-parse-error-uaf.mlir)")
# The same i1 array bug by its input (the crash site varies).
I1_INT_ARRAY_RE = re.compile(r"array<i1\s*:\s*[-+]?\d")
# The same upstream bug does not always crash inside the scf parser (the
# freed placeholder may be touched later, with no "MLIR Parser" frame on the
# stack), so an input whose scf op takes an operand defined only further
# down (the forward reference the bug needs) is classified by that too.
SCF_OP_RE = re.compile(r"^\s*(?:%[\w$.:#]+\s*=\s*)?scf\.(?:for|if|parallel|forall|while)\b(.*)$")
SSA_USE_RE = re.compile(r"%[A-Za-z_$.][\w$.]*|%\d+")
SSA_DEF_RE = re.compile(r"^\s*(%[A-Za-z_$.][\w$.]*|%\d+)(?:\s*,\s*%[\w$.]+)*\s*(?::\d+)?\s*=")


def first_definitions(lines):
    """The line on which each SSA name is first defined (`%x = ...`)."""
    first_def = {}
    for n, line in enumerate(lines):
        m = SSA_DEF_RE.match(line)
        if m:
            first_def.setdefault(m.group(1), n)
    return first_def


def scf_forward_reference(text):
    """True when an scf op uses a value first defined on a later line."""
    lines = text.split("\n")
    first_def = first_definitions(lines)
    for n, line in enumerate(lines):
        m = SCF_OP_RE.match(line)
        if not m:
            continue
        header = m.group(1).split("{")[0]
        for use in SSA_USE_RE.findall(header):
            if first_def.get(use, -1) > n:
                return True
    return False


def forward_reference(text):
    """True when some operation uses a value first defined on a later line
    (any op, not only scf ones: the parse-error use-after-free needs such a
    placeholder still unresolved when the parse fails)."""
    # Per function (and per -split-input-file piece): names repeat across
    # them, and a use of a function argument is not a forward reference.
    for chunk in re.split(r"(?m)^// -----.*$|^\s*(?:func\.)?func\b", text):
        lines = chunk.split("\n")
        first_def = first_definitions(lines)
        for n, line in enumerate(lines):
            code = line.split("//")[0]
            m = SSA_DEF_RE.match(code)
            uses = code[m.end():] if m else code
            for use in SSA_USE_RE.findall(uses):
                if first_def.get(use, -1) > n:
                    return True
    return False


# A diagnostic printed before glibc's heap-corruption abort (the parse
# failed first; the use-after-free corrupts the heap, it does not assert).
ERROR_BEFORE_CRASH_RE = re.compile(r"error: .*?(?:corrupted|double free|"
                                   r"free\(\): invalid|malloc\(\))", re.S)


def parse_error_forward_reference(text, err):
    """The parse-error use-after-free by its input (an unresolved forward
    reference) and its stderr (an error diagnostic, then the crash)."""
    return bool(ERROR_BEFORE_CRASH_RE.search(err)) and forward_reference(text)


MANIFEST_LINE_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_.]* = [^\x00-\x1f\x7f#]*$")
OUTPUT_NAME_RE = re.compile(r"^[A-Za-z_$][A-Za-z0-9_$]*\.(ptx|manifest)$")


def load_seeds(corpus_dirs, variant):
    bv, nw, nws, sfx, eng = (variant.split(":") + [""] * 5)[:5]
    subst = {"DT": "f16", "BV": bv, "NW": nw, "NWS": nws, "SFX": sfx,
             "ENG": eng or "mma.sync",
             "NVT": str(128 // int(bv)), "NVT2": str(256 // int(bv))}
    seeds = []
    for root_dir in corpus_dirs:
        for root, dirs, files in os.walk(root_dir):
            dirs[:] = sorted(d for d in dirs if d not in ("GPU", "Runner"))
            for name in sorted(files):
                if name.startswith("upstream-"):
                    continue  # known upstream crashes (KNOWN_UPSTREAM)
                path = os.path.join(root, name)
                if name.endswith(".mlir.in"):
                    text = open(path).read()
                    for k, v in subst.items():
                        text = text.replace("@%s@" % k, v)
                elif name.endswith(".mlir"):
                    text = open(path).read()
                else:
                    continue
                for i, chunk in enumerate(re.split(r"^// -----\s*$", text,
                                                   flags=re.M)):
                    lines = [l for l in chunk.splitlines()
                             if not l.lstrip().startswith("//")]
                    body = "\n".join(lines).strip()
                    if body:
                        seeds.append(("%s#%d" % (path, i), body + "\n"))
    return seeds


def replace_random_match(rng, text, regex, choose):
    matches = list(regex.finditer(text))
    if not matches:
        return None
    m = rng.choice(matches)
    return text[:m.start()] + choose(m.group(0)) + text[m.end():]


def mutate_once(rng, text):
    lines = text.split("\n")
    kind = rng.randrange(14)
    if kind == 0:
        return replace_random_match(rng, text, INT_RE,
                                    lambda _: rng.choice(INTERESTING_INTS))
    if kind == 1:
        return replace_random_match(rng, text, DIM_RE,
                                    lambda _: rng.choice(DIMS))
    if kind == 2:
        return replace_random_match(rng, text, TYPE_RE,
                                    lambda _: rng.choice(TYPES))
    if kind == 3:
        return replace_random_match(rng, text, WORD_RE,
                                    lambda w: rng.choice(KEYWORDS[w]))
    if kind == 4:
        names = sorted(set(SSA_RE.findall(text)))
        if not names:
            return None
        return replace_random_match(rng, text, SSA_RE,
                                    lambda _: rng.choice(names))
    if kind == 5:  # duplicate a line
        i = rng.randrange(len(lines))
        lines.insert(rng.randrange(len(lines) + 1), lines[i])
        return "\n".join(lines)
    if kind == 6:  # delete a line
        del lines[rng.randrange(len(lines))]
        return "\n".join(lines)
    if kind == 7:  # swap two lines
        i, j = rng.randrange(len(lines)), rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
        return "\n".join(lines)
    if kind == 8:
        return replace_random_match(rng, text, STR_RE,
                                    lambda _: rng.choice(HOSTILE_STRINGS))
    if kind == 9:  # add an attribute to an attribute dictionary
        idx = [m.end() for m in re.finditer(r"attributes \{|\{(?=offset)|"
                                            r"tile\.async_wait \{", text)]
        if not idx:
            return None
        at = rng.choice(idx)
        return text[:at] + rng.choice(HOSTILE_ATTRS) + ", " + text[at:]
    if kind == 10:  # give a buffer type a layout
        return replace_random_match(
            rng, text, BUFTYPE_RE,
            lambda t: re.sub(r"(, #tile\.[^>]*>)?>$", "", t) + ", " +
            rng.choice(LAYOUTS) + ">")
    if kind == 11:  # rename a symbol
        return replace_random_match(
            rng, text, re.compile(r"@[A-Za-z_][\w$]*"),
            lambda _: "@" + rng.choice(HOSTILE_STRINGS + ['"k"', '"k"']))
    if kind == 12:  # wrap the whole input in a module
        return "module @outer {\n" + text + "\n}\n"
    # byte-level: delete or insert a character
    if not text:
        return None
    pos = rng.randrange(len(text))
    if rng.random() < 0.5:
        return text[:pos] + text[pos + 1:]
    return text[:pos] + rng.choice("{}()[]<>,:=%@!#\"x0-?") + text[pos:]


def mutate(seed_index_rng, seeds):
    rng = seed_index_rng
    name, text = rng.choice(seeds)
    applied = 0
    for _ in range(rng.randint(1, 3)):
        for _attempt in range(5):
            out = mutate_once(rng, text)
            if out is not None and out != text:
                text = out
                applied += 1
                break
    return name, text


def check_outputs(workdir, outdir):
    """Problems with what an exit-0 run left on disk."""
    problems = []
    for entry in sorted(os.listdir(workdir)):
        if entry not in ("in.mlir", "out"):
            problems.append("wrote %r outside output-dir" % entry)
    for entry in sorted(os.listdir(outdir)):
        if not OUTPUT_NAME_RE.match(entry):
            problems.append("unexpected output file %r" % entry)
            continue
        if entry.endswith(".manifest"):
            with open(os.path.join(outdir, entry), "rb") as f:
                data = f.read().decode("utf-8", "replace")
            for line in data.split("\n")[:-1]:
                if line.startswith("# launch manifest"):
                    continue
                if not MANIFEST_LINE_RE.match(line):
                    problems.append("manifest %s: unsafe line %r" %
                                    (entry, line[:120]))
    return problems


def pipeline(it, outdir):
    """gdn-opt's options for iteration `it`: every fourth iteration the CPU
    lowering (gdn-lower-to-cpu), which must refuse what it
    cannot lower with a diagnostic, never crash; else gdn-lower-to-ptx."""
    if it % 4 == 3:
        return ["--gdn-lower-to-cpu"]
    return ["--gdn-lower-to-ptx=output-dir=" + outdir]


def run_one(args, seed, it, seeds):
    rng = random.Random("%d:%d" % (seed, it))
    name, text = mutate(rng, seeds)
    workdir = tempfile.mkdtemp(prefix="gdn-fuzz-")
    try:
        inp = os.path.join(workdir, "in.mlir")
        outdir = os.path.join(workdir, "out")
        os.mkdir(outdir)
        with open(inp, "w") as f:
            f.write(text)
        cmd = [args.gdn_opt, inp] + pipeline(it, outdir) + ["-o", os.devnull]
        start = time.time()
        try:
            proc = subprocess.run(cmd, stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE,
                                  timeout=args.timeout, cwd=workdir)
            rc, err = proc.returncode, proc.stderr.decode("utf-8", "replace")
        except subprocess.TimeoutExpired:
            rc, err = None, ""
        elapsed = time.time() - start
        problems = []
        known = None
        if rc is not None and (rc < 0 or rc not in (0, 1)):
            known = next((why for regex, why in KNOWN_UPSTREAM
                          if regex.search(err)), None)
            if known is None and scf_forward_reference(text):
                known = KNOWN_UPSTREAM[0][1]
            if known is None and I1_INT_ARRAY_RE.search(text):
                known = KNOWN_UPSTREAM[1][1]
            if known is None and parse_error_forward_reference(text, err):
                known = PARSE_ERROR_UAF
        if known:
            return it, name, text, rc, err, elapsed, [], known
        if rc is None:
            problems.append("hang: no exit after %gs" % args.timeout)
        else:
            if rc < 0 or rc not in (0, 1):
                problems.append("exit status %d" % rc)
            for marker in CRASH_MARKERS:
                if marker in err:
                    problems.append("output contains %r" % marker)
            if rc == 0 and it % 4 != 3:
                problems += check_outputs(workdir, outdir)
        return it, name, text, rc, err, elapsed, problems, None
    finally:
        shutil.rmtree(workdir, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--gdn-opt", required=True)
    ap.add_argument("--corpus", action="append", required=True,
                    help="directory of .mlir / .mlir.in seeds (repeatable)")
    ap.add_argument("--variant", default=DEFAULT_VARIANT)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--time", type=float,
                    default=float(os.environ.get("GDN_FUZZ_TIME", 60)),
                    help="seconds to fuzz (default $GDN_FUZZ_TIME or 60)")
    ap.add_argument("--max-iters", type=int, default=None)
    ap.add_argument("--iter", type=int, default=None,
                    help="run only this iteration (reproduce a failure)")
    ap.add_argument("--timeout", type=float, default=30.0,
                    help="seconds before a run counts as a hang")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--crash-dir", default=None)
    ap.add_argument("--print-input", action="store_true",
                    help="with --iter: print the mutated input and exit")
    args = ap.parse_args()

    # Runs happen in a scratch directory: resolve the binary first.
    gdn_opt = (os.path.abspath(args.gdn_opt) if os.sep in args.gdn_opt
               else shutil.which(args.gdn_opt))
    if not gdn_opt or not os.access(gdn_opt, os.X_OK):
        print("gdn-fuzz: cannot run %r" % args.gdn_opt, file=sys.stderr)
        return 2
    args.gdn_opt = gdn_opt
    seeds = load_seeds(args.corpus, args.variant)
    if not seeds:
        print("gdn-fuzz: no seeds found", file=sys.stderr)
        return 2
    if args.print_input and args.iter is not None:
        sys.stdout.write(mutate(random.Random("%d:%d" % (args.seed, args.iter)),
                                seeds)[1])
        return 0
    print("gdn-fuzz: %d seeds, seed %d, %s" %
          (len(seeds), args.seed,
           "iteration %d" % args.iter if args.iter is not None
           else "%gs" % args.time), flush=True)

    failures = []
    known_upstream = {}
    runs, rc_counts, slowest = 0, {}, 0.0
    deadline = time.time() + args.time
    iters = ([args.iter] if args.iter is not None else None)

    def report(result):
        nonlocal runs, slowest
        it, name, text, rc, err, elapsed, problems, known = result
        runs += 1
        rc_counts[rc] = rc_counts.get(rc, 0) + 1
        slowest = max(slowest, elapsed)
        if known:
            known_upstream.setdefault(known, []).append(it)
            print("gdn-fuzz: known upstream crash at iteration %d (%s); "
                  "reproduce with --seed %d --iter %d" %
                  (it, known, args.seed, it), flush=True)
            return
        if not problems:
            return
        failures.append(it)
        crash_dir = args.crash_dir or tempfile.mkdtemp(prefix="gdn-fuzz-crash-")
        os.makedirs(crash_dir, exist_ok=True)
        path = os.path.join(crash_dir, "crash-s%d-i%d.mlir" % (args.seed, it))
        with open(path, "w") as f:
            f.write(text)
        print("gdn-fuzz: FAILURE at iteration %d (mutated from %s): %s" %
              (it, name, "; ".join(problems)))
        print("  input kept at: %s" % path)
        print("  reproduce: %s %s --gdn-opt %s %s --seed %d --iter %d" %
              (sys.executable, os.path.abspath(__file__), args.gdn_opt,
               " ".join("--corpus " + c for c in args.corpus), args.seed, it))
        print("  or: %s %s %s -o /dev/null" %
              (args.gdn_opt, path, " ".join(pipeline(it, "<dir>"))))
        print("  stderr (tail):")
        for line in err.splitlines()[-15:]:
            print("    " + line)
        print("  input:")
        for line in text.splitlines()[:80]:
            print("    " + line)
        sys.stdout.flush()

    with concurrent.futures.ThreadPoolExecutor(max_workers=args.jobs) as pool:
        if iters is not None:
            for it in iters:
                report(run_one(args, args.seed, it, seeds))
        else:
            pending = set()
            it = 0
            while True:
                while (len(pending) < args.jobs and time.time() < deadline and
                       (args.max_iters is None or it < args.max_iters)):
                    pending.add(pool.submit(run_one, args, args.seed, it, seeds))
                    it += 1
                if not pending:
                    break
                done, pending = concurrent.futures.wait(
                    pending, return_when=concurrent.futures.FIRST_COMPLETED)
                for fut in done:
                    report(fut.result())

    summary = ", ".join("%s: %d" % ("timeout" if k is None else "exit %d" % k, v)
                        for k, v in sorted(rc_counts.items(),
                                           key=lambda kv: str(kv[0])))
    print("gdn-fuzz: %d runs (%s), slowest %.1fs, %d failures%s" %
          (runs, summary, slowest, len(failures),
           (" at iterations " + ", ".join(map(str, sorted(failures))))
           if failures else ""))
    for why, its in sorted(known_upstream.items()):
        print("gdn-fuzz: %d known upstream crashes (not counted): %s" %
              (len(its), why))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
