"""CPU tests of the installed gdn package (no GPU; torch optional).

Run against an installed package (test/Python/package.test installs it into
a venv): import, FLA's signature, the bundled libgdn_runtime through ctypes
(a planning-only runtime), and every argument check of
chunk_gated_delta_rule through a torch-free tensor shim.
"""

import inspect
import os
import subprocess
import sys
import unittest

import gdn
from gdn import _api, _capi

try:
    import torch  # noqa: F401
    HAVE_TORCH = True
except ImportError:
    HAVE_TORCH = False


class Device:
    def __init__(self, type, index=None):
        self.type, self.index = type, index

    def __eq__(self, other):
        return (self.type, self.index) == (other.type, other.index)

    def __str__(self):
        return self.type if self.index is None else "%s:%d" % (self.type, self.index)


class DType:
    def __init__(self, name):
        self.name = name

    def __str__(self):
        return "torch." + self.name


class Tensor:
    """The attributes gdn's checks read of a torch.Tensor."""

    def __init__(self, shape, dtype="bfloat16", device=Device("cuda", 0), contiguous=True):
        self.shape, self.dtype, self.device = tuple(shape), DType(dtype), device
        self._contiguous = contiguous

    def is_contiguous(self):
        return self._contiguous

    def data_ptr(self):
        return 0x10000


def inputs(B=1, T=256, H=2, HV=4, dtype="bfloat16", **over):
    a = dict(q=Tensor((B, T, H, 128), dtype), k=Tensor((B, T, H, 128), dtype),
             v=Tensor((B, T, HV, 128), dtype), g=Tensor((B, T, HV), "float32"),
             beta=Tensor((B, T, HV), dtype))
    a.update(over)
    return a


class PackageTest(unittest.TestCase):
    def test_installed_not_source(self):
        self.assertIn("site-packages", gdn.__file__)
        self.assertEqual(gdn.__version__, "0.1.0")

    def test_import_needs_no_torch(self):
        code = ("import sys; sys.modules['torch'] = None; import gdn; "
                "assert callable(gdn.chunk_gated_delta_rule); print('ok')")
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertEqual(out.stdout.strip(), "ok")

    def test_signature_is_fla(self):
        sig = inspect.signature(gdn.chunk_gated_delta_rule)
        want = [("q", inspect.Parameter.empty), ("k", inspect.Parameter.empty),
                ("v", inspect.Parameter.empty), ("g", inspect.Parameter.empty),
                ("beta", inspect.Parameter.empty), ("scale", None),
                ("initial_state", None), ("output_final_state", False),
                ("use_qk_l2norm_in_kernel", False), ("use_beta_sigmoid_in_kernel", False),
                ("allow_neg_eigval", False), ("state_v_first", False),
                ("cu_seqlens", None), ("cu_seqlens_cpu", None)]
        params = list(sig.parameters.values())
        self.assertEqual([(p.name, p.default) for p in params[:-1]], want)
        for p in params[:-1]:
            self.assertEqual(p.kind, inspect.Parameter.POSITIONAL_OR_KEYWORD, p.name)
        self.assertEqual(params[-1].name, "kwargs")
        self.assertEqual(params[-1].kind, inspect.Parameter.VAR_KEYWORD)


class LibraryTest(unittest.TestCase):
    """The libgdn_runtime shipped in the wheel, with its embedded kernels."""

    def test_bundled_library(self):
        lib = _capi.library()
        self.assertTrue(os.path.dirname(lib._name).endswith(os.path.join("gdn", "_lib")))
        self.assertEqual(lib.gdn_runtime_version(), _capi.API_VERSION)

    def test_planning_runtime(self):
        rt = _capi.Runtime(_capi.GDN_DEVICE_NONE)
        plan, info = rt.plan(1, 32768, 16, 16, _capi.GDN_DTYPE_F16)
        self.assertGreater(info.workspace_bytes, 0)
        self.assertEqual(info.num_sequences, 1)
        self.assertEqual(info.g_dtype, _capi.GDN_DTYPE_F32)
        self.assertRegex(info.description.decode(), r"^(direct|cp) \(auto")
        again, _ = rt.plan(1, 32768, 16, 16, _capi.GDN_DTYPE_F16)
        self.assertEqual(plan.value, again.value)  # cached
        _, varlen = rt.plan(1, 5000, 2, 4, _capi.GDN_DTYPE_BF16, cu_seqlens=[0, 100, 5000])
        self.assertEqual(varlen.num_sequences, 2)
        with self.assertRaises(_capi.GdnError) as e:
            rt.plan(1, 4096, 3, 16, _capi.GDN_DTYPE_F16)
        self.assertEqual(e.exception.status, "GDN_ERROR_SHAPE")
        self.assertIn("H=3 HV=16", str(e.exception))
        with self.assertRaises(_capi.GdnError) as e:
            rt.plan(1, 4096, 16, 16, _capi.GDN_DTYPE_F16, cu_seqlens=[0, 10, 4000])
        self.assertIn("cu_seqlens", str(e.exception))


class ValidationTest(unittest.TestCase):
    """chunk_gated_delta_rule's checks, before torch or a GPU is touched."""

    def check(self, exc, needle, **over):
        kw = inputs(**{k: over.pop(k) for k in ("B", "T", "H", "HV", "dtype") if k in over})
        kw.update(over)
        with self.assertRaises(exc) as e:
            gdn.chunk_gated_delta_rule(**kw)
        self.assertIn(needle, str(e.exception))

    def test_valid_inputs_pass_validation(self):
        p = _api.validate(**inputs())
        self.assertEqual((p["B"], p["T"], p["H"], p["HV"], p["N"]), (1, 256, 2, 4, 1))
        self.assertAlmostEqual(p["scale"], 128 ** -0.5)
        p = _api.validate(**inputs(), cu_seqlens=Tensor((3,), "int64"), cu_seqlens_cpu=[0, 5, 256],
                          initial_state=Tensor((2, 4, 128, 128), "float32"))
        self.assertEqual(p["N"], 2)
        self.assertEqual(p["cu"], [0, 5, 256])

    def test_cpu_tensor(self):
        self.check(TypeError, "q is on device 'cpu'", q=Tensor((1, 256, 2, 128), device=Device("cpu")))

    def test_not_a_tensor(self):
        self.check(TypeError, "beta must be a torch.Tensor", beta=[1.0])

    def test_other_device(self):
        self.check(TypeError, "v is on cuda:1 but q is on cuda:0",
                   v=Tensor((1, 256, 4, 128), device=Device("cuda", 1)))

    def test_dtypes(self):
        self.check(TypeError, "q has dtype float32", dtype="float32")
        self.check(TypeError, "k has dtype float16 but q has bfloat16", k=Tensor((1, 256, 2, 128), "float16"))
        self.check(TypeError, "g has dtype int32", g=Tensor((1, 256, 4), "int32"))
        self.check(TypeError, "beta has dtype float64", beta=Tensor((1, 256, 4), "float64"))

    def test_shapes(self):
        self.check(ValueError, "q has shape (256, 2, 128)", q=Tensor((256, 2, 128)))
        self.check(NotImplementedError, "head dim K = 64", q=Tensor((1, 256, 2, 64)),
                   k=Tensor((1, 256, 2, 64)))
        self.check(ValueError, "k has shape", k=Tensor((1, 255, 2, 128)))
        self.check(ValueError, "multiple of the q/k heads H = 3", H=3, HV=4)
        self.check(ValueError, "g has shape (1, 256, 2)", g=Tensor((1, 256, 2), "float32"))
        self.check(ValueError, "beta has shape (1, 256)", beta=Tensor((1, 256)))
        self.check(NotImplementedError, "V = 64", v=Tensor((1, 256, 4, 64)))

    def test_contiguity(self):
        self.check(ValueError, "v (shape (1, 256, 4, 128)) is not contiguous",
                   v=Tensor((1, 256, 4, 128), contiguous=False))

    def test_keywords(self):
        self.check(TypeError, "unexpected keyword argument 'foo'", foo=1)
        self.check(NotImplementedError, "safe_gate", safe_gate=True)
        self.check(NotImplementedError, "chunk_size=32", chunk_size=32)
        self.check(NotImplementedError, "head_first", head_first=True)
        self.check(TypeError, "needs A_log", use_gate_in_kernel=True)
        self.check(TypeError, "use_gate_in_kernel is False", A_log=Tensor((4,), "float32"))
        self.check(TypeError, "dt_bias is on cuda:1 but q is on cuda:0", use_gate_in_kernel=True,
                   A_log=Tensor((4,), "float32"),
                   dt_bias=Tensor((4,), "float32", device=Device("cuda", 1)))
        self.check(ValueError, "dt_bias has shape (2,)", use_gate_in_kernel=True,
                   A_log=Tensor((4,), "float32"), dt_bias=Tensor((2,), "float32"))
        self.check(TypeError, "output_final_state must be a bool", output_final_state=1)

    def test_scale(self):
        self.check(ValueError, "scale must be a positive finite number", scale=-1.0)
        self.check(ValueError, "scale must be a positive finite number", scale=float("nan"))

    def test_varlen_and_state(self):
        cu = Tensor((3,), "int64")
        self.check(ValueError, "batch size must be 1", B=2, cu_seqlens=cu)
        self.check(TypeError, "cu_seqlens must be a 1-D int32 or int64", cu_seqlens=Tensor((3,), "float32"))
        self.check(ValueError, "cu_seqlens_cpu has 2 values", cu_seqlens=cu, cu_seqlens_cpu=[0, 256])
        self.check(TypeError, "cu_seqlens_cpu without cu_seqlens", cu_seqlens_cpu=[0, 256])
        self.check(TypeError, "initial_state has dtype bfloat16",
                   initial_state=Tensor((1, 4, 128, 128), "bfloat16"))
        self.check(ValueError, "initial_state has shape (1, 2, 128, 128)",
                   initial_state=Tensor((1, 2, 128, 128), "float32"))


@unittest.skipUnless(HAVE_TORCH, "torch is not installed")
class TorchCpuTest(unittest.TestCase):
    def test_cpu_tensors_refused(self):
        import torch
        q = torch.zeros(1, 64, 1, 128, dtype=torch.bfloat16)
        v = torch.zeros(1, 64, 1, 128, dtype=torch.bfloat16)
        g = torch.zeros(1, 64, 1)
        beta = torch.zeros(1, 64, 1, dtype=torch.bfloat16)
        with self.assertRaises(TypeError) as e:
            gdn.chunk_gated_delta_rule(q, q, v, g, beta)
        self.assertIn("q is on device 'cpu'", str(e.exception))


if __name__ == "__main__":
    unittest.main()
