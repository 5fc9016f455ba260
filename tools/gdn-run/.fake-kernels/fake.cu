// Test-only naive GDN prefill for exercising gdn-run (not part of the repo).
#include <cuda_fp16.h>
#include <cuda_bf16.h>

__device__ float tof(__half x) { return __half2float(x); }
__device__ float tof(__nv_bfloat16 x) { return __bfloat162float(x); }
__device__ float tof(float x) { return x; }
template <typename T> __device__ T fromf(float x);
template <> __device__ __half fromf<__half>(float x) { return __float2half_rn(x); }
template <> __device__ __nv_bfloat16 fromf<__nv_bfloat16>(float x) { return __float2bfloat16_rn(x); }

// grid (N, HV): chunk-local cumsum of g into the workspace gamma.
extern "C" __global__ void fake_cumsum(const float *g, float *gamma,
                                       const int *cu, int T, int HV) {
  int n = blockIdx.x, hv = blockIdx.y;
  if (threadIdx.x != 0) return;
  int bos = cu[n], eos = cu[n + 1];
  float acc = 0;
  for (int t = bos; t < eos; ++t) {
    if ((t - bos) % 64 == 0) acc = 0;
    acc += g[(size_t)t * HV + hv];
    gamma[(size_t)t * HV + hv] = acc;
  }
}

// grid (N, HV), 128 threads: thread = state column.
template <typename T, typename TB>
__device__ void recur(const T *q, const T *k, const T *v, const float *gamma,
                      const TB *beta, const float *h0, float *ht, T *o,
                      const int *cu, float scale, int H, int HV, int has_h0) {
  int n = blockIdx.x, hv = blockIdx.y, col = threadIdx.x;
  int hq = hv / (HV / H);
  __shared__ float ks[128], qs[128];
  float S[128];
  size_t sbase = ((size_t)n * HV + hv) * 128 * 128;
#pragma unroll
  for (int i = 0; i < 128; ++i) S[i] = has_h0 ? h0[sbase + i * 128 + col] : 0.f;
  int bos = cu[n], eos = cu[n + 1];
  for (int t = bos; t < eos; ++t) {
    __syncthreads();
    ks[col] = tof(k[((size_t)t * H + hq) * 128 + col]);
    qs[col] = tof(q[((size_t)t * H + hq) * 128 + col]);
    __syncthreads();
    float gm = gamma[(size_t)t * HV + hv];
    float prev = ((t - bos) % 64 == 0) ? 0.f : gamma[(size_t)(t - 1) * HV + hv];
    float alpha = __expf(gm - prev);
    float b = tof(beta[(size_t)t * HV + hv]);
    float vv = tof(v[((size_t)t * HV + hv) * 128 + col]);
    float kv = 0;
#pragma unroll
    for (int i = 0; i < 128; ++i) { S[i] *= alpha; kv += S[i] * ks[i]; }
    float vp = b * (vv - kv);
    float oo = 0;
#pragma unroll
    for (int i = 0; i < 128; ++i) { S[i] += ks[i] * vp; oo += S[i] * qs[i]; }
    o[((size_t)t * HV + hv) * 128 + col] = fromf<T>(scale * oo);
  }
#pragma unroll
  for (int i = 0; i < 128; ++i) ht[sbase + i * 128 + col] = S[i];
}

extern "C" __global__ void fake_recur_f16(const __half *q, const __half *k,
    const __half *v, const float *gamma, const __half *beta, const float *h0,
    float *ht, __half *o, const int *cu, float scale, int H, int HV, int has_h0) {
  recur(q, k, v, gamma, beta, h0, ht, o, cu, scale, H, HV, has_h0);
}
extern "C" __global__ void fake_recur_bf16(const __nv_bfloat16 *q,
    const __nv_bfloat16 *k, const __nv_bfloat16 *v, const float *gamma,
    const float *beta, const float *h0, float *ht, __nv_bfloat16 *o,
    const int *cu, float scale, int H, int HV, int has_h0) {
  recur(q, k, v, gamma, beta, h0, ht, o, cu, scale, H, HV, has_h0);
}
