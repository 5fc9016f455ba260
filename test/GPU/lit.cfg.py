# -*- Python -*-
# The GPU suite: runs compiled kernels through gdn-run on a real GPU.
#
# Without a usable CUDA device (gdn-run --probe fails) every test is
# UNSUPPORTED, so CI without a GPU skips them -- unless a GPU is requested
# with GDN_GPU=1 in the environment: then a missing, failing or crashing
# gdn-run is a configuration error (lit exits non-zero), never a silent skip.
#
# Works with LLVM 19's lit.py and with `pip install lit` (>= 23, which
# refuses the external shell): the tests use lit's internal shell.
# GDN_KERNEL_DIR (default: the build's kernels/) may be relative; it is
# resolved against the directory lit is started from.

import os
import shutil
import subprocess
import sys

import lit.formats

config.name = "GDN-GPU"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".test"]
config.excludes = ["Inputs"]
config.test_source_root = os.path.dirname(os.path.abspath(__file__))
config.test_exec_root = os.path.join(config.gdn_obj_root, "test", "GPU")

kernel_dir = os.path.abspath(os.environ.get("GDN_KERNEL_DIR", config.gdn_kernel_dir))
gdn_run = os.path.join(config.gdn_tools_dir, "gdn-run")
inputs = os.path.join(config.test_source_root, "Inputs")
lit_root = os.path.dirname(os.path.dirname(os.path.abspath(lit.__file__)))
config.substitutions.append(("%kernels", kernel_dir))
config.substitutions.append(("%gdn-run", gdn_run))
config.substitutions.append(("%gdn-example", os.path.join(config.gdn_tools_dir, "gdn-example")))
config.substitutions.append(("%gdn-replay", os.path.join(config.gdn_tools_dir, "gdn-replay")))
config.substitutions.append(("%python", sys.executable))
# %expect-exit N CMD...: runs CMD, passes its output through, succeeds iff
# it exits with status N (the internal shell has no $?).
config.substitutions.append(
    ("%expect-exit", '"%s" "%s"' % (sys.executable, os.path.join(inputs, "expect-exit.py"))))
# %lit: this lit, for the suite's self-test (lit-config.test).
config.substitutions.append(
    ("%lit", '"%s" "%s" "%s"' % (sys.executable, os.path.join(inputs, "run-lit.py"), lit_root)))
config.environment["PATH"] = config.gdn_tools_dir + os.pathsep + os.environ.get("PATH", "")
for var in ["CUDA_VISIBLE_DEVICES", "GDN_GPU", "HOME", "TMPDIR"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

gpu_requested = os.environ.get("GDN_GPU", "") not in ("", "0")


def probe():
    """(status, why): "ok", "absent" (no gdn-run, or exit 77: no device) or
    "broken" (any other failure, a crash included), and the details."""
    if not os.path.exists(gdn_run):
        return "absent", "gdn-run not found at %s" % gdn_run
    try:
        r = subprocess.run([gdn_run, "--probe"], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, timeout=120)
    except Exception as e:  # not executable, timeout, ...
        return "broken", "%s --probe could not run: %s" % (gdn_run, e)
    out = r.stdout.decode("utf-8", "replace").strip()
    if r.returncode == 0:
        return "ok", out
    if r.returncode < 0:
        return "broken", "%s --probe was killed by signal %d: %s" % (
            gdn_run, -r.returncode, out)
    return ("absent" if r.returncode == 77 else "broken",
            "%s --probe exited with %d: %s" % (gdn_run, r.returncode, out))


status, why = probe()
if status == "ok":
    config.available_features.add("gpu")
elif gpu_requested:
    lit_config.fatal("GDN_GPU=%s asks for the GPU suite, but %s"
                     % (os.environ["GDN_GPU"], why))
elif status == "broken":
    lit_config.warning("GPU tests unsupported: " + why)

if shutil.which("compute-sanitizer"):
    config.available_features.add("compute-sanitizer")

# The Python entry (lib/Bindings/Python, from the source tree) over this
# build's libgdn_runtime, on torch CUDA tensors: feature `torch` when this
# python imports torch and sees the GPU. PYTHONPATH passes through (FLA for
# the side-by-side test, e.g. the peers' site folder).
runtime_lib = os.path.join(config.gdn_obj_root, "lib", "libgdn_runtime.so")
python_src = os.path.join(config.gdn_src_root, "lib", "Bindings", "Python")
config.environment["PYTHONPATH"] = os.pathsep.join(
    p for p in [python_src, os.environ.get("PYTHONPATH", "")] if p)
config.substitutions.append(("%runtime-lib", runtime_lib))
config.substitutions.append(("%bindings-tests", os.path.join(python_src, "tests")))
if status == "ok" and os.path.exists(runtime_lib):
    try:
        r = subprocess.run(
            [sys.executable, "-c",
             "import sys, torch; sys.exit(0 if torch.cuda.is_available() else 1)"],
            env=dict(os.environ, PYTHONPATH=config.environment["PYTHONPATH"]),
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300)
        if r.returncode == 0:
            config.available_features.add("torch")
    except Exception:
        pass
