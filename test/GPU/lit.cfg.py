# -*- Python -*-
# The GPU suite: runs compiled kernels through gdn-run on a real GPU.
# Without a usable CUDA device (gdn-run --probe exits 77) every test is
# UNSUPPORTED, so CI without a GPU skips them.

import os
import shutil
import subprocess

import lit.formats

config.name = "GDN-GPU"
config.test_format = lit.formats.ShTest(True)
config.suffixes = [".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.gdn_obj_root, "test", "GPU")

kernel_dir = os.environ.get("GDN_KERNEL_DIR", config.gdn_kernel_dir)
gdn_run = os.path.join(config.gdn_tools_dir, "gdn-run")
config.substitutions.append(("%kernels", kernel_dir))
config.substitutions.append(("%gdn-run", gdn_run))
config.environment["PATH"] = config.gdn_tools_dir + os.pathsep + os.environ.get("PATH", "")
for var in ["CUDA_VISIBLE_DEVICES", "GDN_GPU"]:
    if var in os.environ:
        config.environment[var] = os.environ[var]

def probe():
    if not os.path.exists(gdn_run):
        return False
    try:
        return subprocess.run([gdn_run, "--probe"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=120).returncode == 0
    except Exception:
        return False

if probe():
    config.available_features.add("gpu")

if shutil.which("compute-sanitizer"):
    config.available_features.add("compute-sanitizer")
