# -*- Python -*-
# lit configuration of the gdn test suite.

import os
import shutil

import lit.formats
import lit.util
from lit.llvm import llvm_config
from lit.llvm.subst import ToolSubst

config.name = "GDN"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.gdn_obj_root, "test")
# unit/ and GPU/ are separate suites with their own lit.site.cfg.py.
config.excludes = ["lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt", "unit", "GPU"]

# lit's internal shell turns a crash under `not` into success (`not` only
# inverts zero/non-zero), so `not gdn-opt ... 2>&1 | FileCheck` would pass
# when gdn-opt crashes after printing the expected error (say in a later
# -split-input-file chunk). Every FileCheck of this suite therefore rejects
# the crash banner and sanitizer reports in its input.
config.environment["FILECHECK_OPTS"] = (
    "--enable-var-scope --dump-input=fail "
    "--implicit-check-not=PLEASE --implicit-check-not=Sanitizer")
# Seconds the fuzzer runs in test/fuzz/fuzz.test (gdn_fuzz.py's default: 60).
if "GDN_FUZZ_TIME" in os.environ:
    config.environment["GDN_FUZZ_TIME"] = os.environ["GDN_FUZZ_TIME"]
# Sanitizer options for builds with GDN_SANITIZE (tools/sanitize-test.sh).
for _var in ["ASAN_OPTIONS", "UBSAN_OPTIONS", "LSAN_OPTIONS"]:
    if _var in os.environ:
        config.environment[_var] = os.environ[_var]

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.gdn_tools_dir, append_path=True)

config.substitutions.append(("%gdn_kernels", os.path.join(config.gdn_src_root, "kernels")))
config.substitutions.append(("%gdn_src", config.gdn_src_root))
config.substitutions.append(("%gdn_build", config.gdn_obj_root))
# %expand-includes IN OUT: a kernel template with its `// @include FILE`
# lines expanded, as kernels/CMakeLists.txt does before instantiating it.
config.substitutions.append(("%expand-includes", "%s -P %s" % (
    config.cmake_command,
    os.path.join(config.gdn_src_root, "cmake", "GdnExpandIncludes.cmake"))))
# The forward variants that kernels/CMakeLists.txt builds (GDN_FORWARD_VARIANTS,
# "BV:NW:NWS:SFX:ENG;..."), for templates that use @BV@: %instantiate-bv<BV>
# pipes a template (after @DT@) through one.
# Also the block_v 64 wgmma instance ("64:8:8:_bv64:wgmma": warpgroups
# splitting N), which the build no longer ships (the value-major
# gdn_forward_vm.mlir.in serves the wide variant, block_v 128) but the tests
# keep compiling.
_variants = config.gdn_forward_variants.split(";")
if not any(v.split(":")[0] == "64" for v in _variants):
    _variants.append("64:8:8:_bv64:wgmma")
for _variant in _variants:
    _bv, _nw, _nws, _sfx, _eng = (_variant.split(":") + [""] * 5)[:5]
    _v = dict(BV=int(_bv), NW=_nw, NWS=_nws, SFX=_sfx, ENG=_eng,
              NVT=128 // int(_bv), NVT2=256 // int(_bv))
    _name = "bv%d" % _v["BV"]
    _sed = " ".join("-e s/@%s@/%s/g" % (k, _v[k])
                    for k in ["NVT2", "NVT", "NWS", "NW", "BV", "SFX", "ENG"])
    config.substitutions.append(("%%instantiate-%s" % _name, "sed " + _sed))

tools = [
    ToolSubst("gdn-opt", unresolved="fatal"),
    ToolSubst("gdn-run", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, [config.gdn_tools_dir, config.llvm_tools_dir])

# valgrind finds use-after-free in the (uninstrumented) MLIR libraries that
# ASan cannot see (test/fuzz/upstream-*.mlir).
if shutil.which("valgrind"):
    config.available_features.add("valgrind")

ptxas = shutil.which("ptxas", path=os.path.join(config.cuda_path, "bin")) or shutil.which("ptxas")
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))

# Upstream mlir-opt and mlir-cpu-runner (mlir-19-tools): tests that run a
# piece of a kernel's index arithmetic on the CPU.
_mlir_opt = os.path.join(config.llvm_tools_dir, "mlir-opt")
_mlir_runner = os.path.join(config.llvm_tools_dir, "mlir-cpu-runner")
_mlir_utils = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib",
                           "libmlir_c_runner_utils.so")
if all(os.path.exists(f) for f in (_mlir_opt, _mlir_runner, _mlir_utils)):
    config.available_features.add("mlir-cpu-runner")
    config.substitutions.append(("%mlir_opt", _mlir_opt))
    config.substitutions.append(("%mlir_cpu_runner", _mlir_runner))
    config.substitutions.append(("%mlir_c_runner_utils", _mlir_utils))

# The CPU emulator (tools/gdn-emu, docs/gdn-run.md "Without a GPU"): gdn-run
# with libgdn-cuemu.so in place of libcuda.so.1 runs the kernels as written,
# lowered by convert-tile-to-loops, against the fp64 oracle.
_cuemu = os.path.join(config.gdn_obj_root, "lib", "libgdn-cuemu.so")
_kernels_cpu = os.path.join(config.gdn_obj_root, "kernels-cpu")
if os.path.exists(_cuemu) and os.path.isdir(_kernels_cpu):
    config.available_features.add("gdn-emu")
    config.substitutions.append(("%gdn_emu_kernels", _kernels_cpu))
    config.substitutions.append(("%gdn_emu_lib", _cuemu))
    config.substitutions.append(("%gdn_emu", "env GDN_CUDA_LIBRARY=%s GDN_EMU_KERNELS=%s" % (_cuemu, _kernels_cpu)))
# gdn-example links libcuda.so.1 (built where the toolkit has its stub).
if os.path.exists(os.path.join(config.gdn_obj_root, "bin", "gdn-example")):
    config.available_features.add("gdn-example")

# tools/sanitize-test.sh's ASan + UBSan build: an uninstrumented python3
# cannot load its libgdn_runtime (the ASan runtime must come first).
if os.environ.get("GDN_SANITIZED") == "1":
    config.available_features.add("asan")
