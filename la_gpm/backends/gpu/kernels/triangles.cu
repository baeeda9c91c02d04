// Triangle counting on the degree-ordered DAG (vertices renamed by degree rank).
// A group of `group` lanes (a power of two <= 32) handles one DAG arc (u, v): its lanes
// stride over the shorter of N+(u), N+(v) and binary-search the longer one, so loads of
// the short list are coalesced. Each triangle is found once, at its lowest arc.
// Small groups keep lanes busy when out-lists are short (most arcs of a sparse graph).
#include "common.cuh"

extern "C" __global__ void tri_count_group_per_arc(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                                   const int* __restrict__ src, i64 narcs, int group,
                                                   u64* __restrict__ total, u64* __restrict__ per_vertex) {
    const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane_g = (int)(tid & (group - 1));
    const i64 g = tid / group;
    const i64 ngroups = ((i64)gridDim.x * blockDim.x) / group;
    u64 local = 0;
    for (i64 e = g; e < narcs; e += ngroups) {
        const int u = __ldg(src + e);
        const int v = __ldg(idx + e);
        i64 alo = __ldg(ptr + u), ahi = __ldg(ptr + u + 1), blo = __ldg(ptr + v), bhi = __ldg(ptr + v + 1);
        if (ahi - alo > bhi - blo) { i64 t = alo; alo = blo; blo = t; t = ahi; ahi = bhi; bhi = t; }
        u64 c = 0;
        for (i64 i = alo + lane_g; i < ahi; i += group) {
            const int w = __ldg(idx + i);
            if (binary_contains(idx, blo, bhi, w)) {
                ++c;
                if (per_vertex) atomicAdd(per_vertex + w, 1ULL);
            }
        }
        if (per_vertex && c) { atomicAdd(per_vertex + u, c); atomicAdd(per_vertex + v, c); }
        local += c;
    }
    local = warp_sum_u64(local);  // every lane of the warp reaches this point
    if ((threadIdx.x & 31) == 0 && local) atomicAdd(total, local);
}
