// Triangle counting on the degree-ordered DAG: one warp per DAG arc (u, v).
// Lanes stride over the shorter of N+(u), N+(v) and binary-search the longer one,
// so a warp's loads of the short list are coalesced. Each triangle u<v<w (in the
// orientation order) is found exactly once, at arc (u, v) with w in both lists.
#include "common.cuh"

extern "C" __global__ void tri_count_warp_per_arc(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                                  const int* __restrict__ src, i64 narcs,
                                                  u64* __restrict__ total, u64* __restrict__ per_vertex) {
    const int lane = threadIdx.x & 31;
    const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    u64 local = 0;
    for (i64 e = warp; e < narcs; e += nwarps) {
        const int u = src[e];
        const int v = idx[e];
        i64 alo = ptr[u], ahi = ptr[u + 1], blo = ptr[v], bhi = ptr[v + 1];
        if (ahi - alo > bhi - blo) { i64 t = alo; alo = blo; blo = t; t = ahi; ahi = bhi; bhi = t; }
        u64 c = 0;
        for (i64 i = alo + lane; i < ahi; i += 32) {
            const int w = __ldg(idx + i);
            if (binary_contains(idx, blo, bhi, w)) {
                ++c;
                if (per_vertex) atomicAdd(per_vertex + w, 1ULL);
            }
        }
        if (per_vertex) {
            u64 s = warp_sum_u64(c);
            if (lane == 0 && s) { atomicAdd(per_vertex + u, s); atomicAdd(per_vertex + v, s); }
        }
        local += c;
    }
    local = warp_sum_u64(local);
    if (lane == 0 && local) atomicAdd(total, local);
}
