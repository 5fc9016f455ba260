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
config.substitutions.append(("%gdn_build", config.gdn_obj_root))
# The forward variants that kernels/CMakeLists.txt builds (GDN_FORWARD_VARIANTS,
# "BV:NW:NWS:SFX;..."), for templates that use @BV@: %instantiate-bv<BV>
# pipes a template (after @DT@) through one.
for _variant in config.gdn_forward_variants.split(";"):
    _bv, _nw, _nws, _sfx = (_variant.split(":") + [""] * 4)[:4]
    _v = dict(BV=int(_bv), NW=_nw, NWS=_nws, SFX=_sfx,
              NVT=128 // int(_bv), NVT2=256 // int(_bv))
    _name = "bv%d" % _v["BV"]
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
