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

config.environment["FILECHECK_OPTS"] = "--enable-var-scope --dump-input=fail"

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.gdn_tools_dir, append_path=True)

config.substitutions.append(("%gdn_kernels", os.path.join(config.gdn_src_root, "kernels")))
config.substitutions.append(("%gdn_src", config.gdn_src_root))
# The forward variants of kernels/CMakeLists.txt (GDN_FORWARD_VARIANTS) for
# templates that use @BV@; pipe a template (after @DT@) through one.
_variants = {"bv16": dict(BV=16, NW=4, NWS=4, SFX=""),
             "bv64": dict(BV=64, NW=8, NWS=4, SFX="_bv64")}
for _name, _v in _variants.items():
    _v = dict(_v, NVT=128 // _v["BV"], NVT2=256 // _v["BV"])
    _sed = " ".join("-e s/@%s@/%s/g" % (k, _v[k])
                    for k in ["NVT2", "NVT", "NWS", "NW", "BV", "SFX"])
    config.substitutions.append(("%%instantiate-%s" % _name, "sed " + _sed))

tools = [
    ToolSubst("gdn-opt", unresolved="fatal"),
    ToolSubst("gdn-run", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, [config.gdn_tools_dir, config.llvm_tools_dir])

ptxas = shutil.which("ptxas", path=os.path.join(config.cuda_path, "bin")) or shutil.which("ptxas")
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
