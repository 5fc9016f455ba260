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

tools = [
    ToolSubst("gdn-opt", unresolved="fatal"),
    ToolSubst("gdn-run", unresolved="fatal"),
]
llvm_config.add_tool_substitutions(tools, [config.gdn_tools_dir, config.llvm_tools_dir])

ptxas = shutil.which("ptxas", path=os.path.join(config.cuda_path, "bin")) or shutil.which("ptxas")
if ptxas:
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", ptxas))
