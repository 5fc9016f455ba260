"""GPU tests of gdn.chunk_gated_delta_rule on torch CUDA tensors.

Skipped without torch or a CUDA device (the CPU suite, test/Python/
package.test, discovers this file too). On the GPU machine
test/GPU/python.test runs it: every result against an fp64 token
recurrence applied to the same (transformed) inputs, FLA's in-kernel
transforms (L2 norm of q/k, beta sigmoid, allow_neg_eigval and the gate
from A_log/dt_bias, done inside the prep kernels) and the
value-first state layout (a torch transpose), varlen with empty and
length-1 sequences, GVA, h0, both dtypes; FLA 0.6.0 on the same inputs when
it is importable (also with use_qk_l2norm_in_kernel on raw q/k); CUDA-graph
capture and a side stream (bit-identical to eager calls).
"""

import os
import unittest

import gdn

try:
    import torch
    import torch.nn.functional as F
    HAVE_CUDA = torch.cuda.is_available()
except ImportError:
    HAVE_CUDA = False

try:
    from fla.ops.gated_delta_rule import chunk_gated_delta_rule as fla_chunk
except Exception:  # not installed, or no Triton for this GPU
    fla_chunk = None

K = V = 128
TOL = {"float16": 2e-3, "bfloat16": 8e-3}


def reference(q, k, v, g, beta, scale, h0, cu):
    """fp64 token recurrence (CPU): per sequence and value head,
    S <- exp(g_t) S; S <- S + k_t beta_t (v_t - k_t^T S)^T; o_t = scale q_t^T S.
    q, k [T, H, K], v [T, HV, V], g/beta [T, HV] (already transformed), h0
    [N, HV, K, V] or None, cu the sequence bounds. Returns o [T, HV, V] and
    the final states [N, HV, K, V]."""
    q, k, v, g, beta = (x.double().cpu() for x in (q, k, v, g, beta))
    HV, H = v.shape[1], q.shape[1]
    rep = HV // H
    o = torch.zeros(v.shape, dtype=torch.float64)
    hts = []
    for n in range(len(cu) - 1):
        S = (h0[n].double().cpu().clone() if h0 is not None
             else torch.zeros(HV, K, V, dtype=torch.float64))
        for t in range(cu[n], cu[n + 1]):
            kt = k[t].repeat_interleave(rep, 0)          # [HV, K]
            qt = q[t].repeat_interleave(rep, 0)
            S = S * torch.exp(g[t])[:, None, None]
            kv = torch.einsum("hk,hkv->hv", kt, S)
            u = beta[t][:, None] * (v[t] - kv)
            S = S + kt[:, :, None] * u[:, None, :]
            o[t] = scale * torch.einsum("hk,hkv->hv", qt, S)
        hts.append(S)
    return o, torch.stack(hts)


def rel_l2(x, ref):
    x = x.double().cpu()
    return float((x - ref).norm() / ref.norm().clamp_min(1e-30))


@unittest.skipUnless(HAVE_CUDA, "needs torch with a CUDA device")
class GpuTest(unittest.TestCase):
    report = []

    @classmethod
    def tearDownClass(cls):
        for line in cls.report:
            print(line)

    def inputs(self, T, H, HV, dtype, B=1, normalized=True, seed=0, gate=(-0.02, 0.0)):
        gen = torch.Generator().manual_seed(seed)
        q = torch.randn(B, T, H, K, generator=gen)
        k = torch.randn(B, T, H, K, generator=gen)
        if normalized:
            q, k = F.normalize(q, dim=-1), F.normalize(k, dim=-1)
        v = torch.randn(B, T, HV, V, generator=gen)
        g = torch.empty(B, T, HV).uniform_(*gate, generator=gen)
        beta = torch.sigmoid(torch.randn(B, T, HV, generator=gen))
        dt = getattr(torch, dtype)
        return [x.to(dt).cuda() for x in (q, k, v)] + [g.cuda(), beta.to(dt).cuda()]

    def check(self, o, ht, ref_o, ref_ht, dtype, what):
        eo, eh = rel_l2(o, ref_o), rel_l2(ht, ref_ht)
        self.assertTrue(torch.isfinite(o).all() and torch.isfinite(ht).all(), what)
        self.assertLessEqual(eo, TOL[dtype], "%s: o rel L2 %.3g" % (what, eo))
        self.assertLessEqual(eh, TOL[dtype], "%s: final state rel L2 %.3g" % (what, eh))

    def test_batched_gva_h0(self):
        for dtype in ("float16", "bfloat16"):
            B, T, H, HV = 2, 300, 2, 4
            q, k, v, g, beta = self.inputs(T, H, HV, dtype, B=B, seed=1)
            h0 = torch.randn(B, HV, K, V, device="cuda") * 0.1
            o, ht = gdn.chunk_gated_delta_rule(q, k, v, g, beta, initial_state=h0,
                                               output_final_state=True)
            self.assertEqual(o.shape, v.shape)
            self.assertEqual(tuple(ht.shape), (B, HV, K, V))
            cu = [0, T, 2 * T]
            ro, rh = reference(q.flatten(0, 1), k.flatten(0, 1), v.flatten(0, 1),
                               g.flatten(0, 1), beta.flatten(0, 1), K ** -0.5, h0, cu)
            self.check(o.flatten(0, 1), ht, ro, rh, dtype, "batched %s" % dtype)

    def test_varlen_empty_and_single(self):
        cu = [0, 1, 65, 65, 200, 331]  # a length-1 and an empty sequence
        T = cu[-1]
        q, k, v, g, beta = self.inputs(T, 1, 2, "bfloat16", seed=2, gate=(-0.5, 0.0))
        cut = torch.tensor(cu, dtype=torch.int32, device="cuda")
        o, ht = gdn.chunk_gated_delta_rule(q, k, v, g, beta, output_final_state=True,
                                           cu_seqlens=cut, cu_seqlens_cpu=cu)
        ro, rh = reference(q[0], k[0], v[0], g[0], beta[0], K ** -0.5, None, cu)
        self.check(o[0], ht, ro, rh, "bfloat16", "varlen")
        self.assertEqual(float(ht[2].abs().max()), 0.0, "empty sequence: zero state")

    def test_in_kernel_transforms(self):
        T, H, HV = 200, 2, 2
        q, k, v, g, beta = self.inputs(T, H, HV, "float16", normalized=False, seed=3)
        q, k = q * 3, k * 3  # unnormalized
        logits = torch.randn(1, T, HV, device="cuda").half()
        h0 = torch.randn(1, HV, V, K, device="cuda") * 0.1  # value-first
        o, ht = gdn.chunk_gated_delta_rule(
            q, k, v, g, logits, scale=0.05, initial_state=h0, output_final_state=True,
            use_qk_l2norm_in_kernel=True, use_beta_sigmoid_in_kernel=True,
            allow_neg_eigval=True, state_v_first=True)
        # FLA's l2norm: x / sqrt(sum x^2 + 1e-6).
        qn = (q.float() * torch.rsqrt(q.float().square().sum(-1, keepdim=True) + 1e-6)).half()
        kn = (k.float() * torch.rsqrt(k.float().square().sum(-1, keepdim=True) + 1e-6)).half()
        b = (torch.sigmoid(logits.float()) * 2).half()
        ro, rh = reference(qn[0], kn[0], v[0], g[0], b[0], 0.05,
                           h0.transpose(-1, -2), [0, T])
        self.check(o[0], ht.transpose(-1, -2), ro, rh, "float16", "transforms")

    def test_gate_in_kernel(self):
        T, H, HV = 130, 1, 2
        q, k, v, _, beta = self.inputs(T, H, HV, "float16", seed=4)
        raw = torch.randn(1, T, HV, device="cuda")
        A_log = torch.tensor([0.1, -2.0], device="cuda")
        dt_bias = torch.tensor([0.5, -1.0], device="cuda")
        o, ht = gdn.chunk_gated_delta_rule(q, k, v, raw, beta, output_final_state=True,
                                           use_gate_in_kernel=True, A_log=A_log,
                                           dt_bias=dt_bias)
        g = -torch.exp(A_log) * F.softplus(raw + dt_bias)
        ro, rh = reference(q[0], k[0], v[0], g[0], beta[0], K ** -0.5, None, [0, T])
        self.check(o[0], ht, ro, rh, "float16", "gate in kernel")

    @unittest.skipIf(fla_chunk is None, "FLA is not importable")
    def test_matches_fla(self):
        B, T, H, HV = 2, 1000, 2, 4
        q, k, v, g, beta = self.inputs(T, H, HV, "float16", B=B, seed=5)
        h0 = torch.randn(B, HV, K, V, device="cuda") * 0.1
        o, ht = gdn.chunk_gated_delta_rule(q, k, v, g, beta, initial_state=h0,
                                           output_final_state=True)
        fo, fht = fla_chunk(q, k, v, g, beta, initial_state=h0, output_final_state=True)
        ro, rh = reference(q.flatten(0, 1), k.flatten(0, 1), v.flatten(0, 1),
                           g.flatten(0, 1), beta.flatten(0, 1), K ** -0.5, h0,
                           [0, T, 2 * T])
        ours, theirs = rel_l2(o.flatten(0, 1), ro), rel_l2(fo.flatten(0, 1), ro)
        # Printed after the test lines (tearDownClass), not inside them.
        GpuTest.report.append(
            "FLA side by side (2x1000 H2 HV4 f16): rel L2 vs fp64 gdn %.3g FLA %.3g, "
            "gdn vs FLA %.3g; final state gdn %.3g FLA %.3g"
            % (ours, theirs, rel_l2(o, fo.double().cpu()), rel_l2(ht, rh),
               rel_l2(fht, rh)))
        self.assertLessEqual(ours, TOL["float16"])
        self.assertLessEqual(rel_l2(o, fo.double().cpu()), 2 * TOL["float16"])
        # vLLM's Qwen3-Next call: raw q/k, L2-normalized in the kernels.
        q3, k3 = q * 3, k * 3
        o, _ = gdn.chunk_gated_delta_rule(q3, k3, v, g, beta, initial_state=h0,
                                          use_qk_l2norm_in_kernel=True)
        fo, _ = fla_chunk(q3, k3, v, g, beta, initial_state=h0, use_qk_l2norm_in_kernel=True)
        GpuTest.report.append("FLA side by side, use_qk_l2norm_in_kernel: gdn vs FLA %.3g"
                              % rel_l2(o, fo.double().cpu()))
        self.assertLessEqual(rel_l2(o, fo.double().cpu()), 2 * TOL["float16"])

    def test_cuda_graph_and_stream(self):
        T, H, HV = 4096, 4, 4
        args = self.inputs(T, H, HV, "bfloat16", seed=6)
        eager, eager_ht = gdn.chunk_gated_delta_rule(*args, output_final_state=True)
        # A side stream gives the same bits.
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            o2, _ = gdn.chunk_gated_delta_rule(*args, output_final_state=True)
        torch.cuda.current_stream().wait_stream(side)
        self.assertTrue(torch.equal(o2, eager), "side stream")
        # Captured once, replayed on the inputs it was captured with and on
        # new ones copied into the same tensors.
        static = [a.clone() for a in args]
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            go, ght = gdn.chunk_gated_delta_rule(*static, output_final_state=True)
        graph.replay()
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(go, eager) and torch.equal(ght, eager_ht), "replay")
        fresh = self.inputs(T, H, HV, "bfloat16", seed=7)
        for s, f in zip(static, fresh):
            s.copy_(f)
        graph.replay()
        want, _ = gdn.chunk_gated_delta_rule(*fresh, output_final_state=True)
        torch.cuda.synchronize()
        self.assertTrue(torch.equal(go, want), "replay on new inputs")


if __name__ == "__main__":
    unittest.main()
