// k-clique counting on the degree-ordered DAG (vertices renamed by degree rank), warp-centric
// DFS in the style of DuMato / G2Miner: one warp extends one DAG arc (u, v) at a time; level d of
// its stack holds S_d, the candidates for the (d+3)-th clique vertex, in global memory (coalesced
// warp writes compacted with ballot/popc). Warps fetch arcs from an atomic counter (dynamic load
// balancing: a warp that finishes early takes the next arc). The last level is counted, not listed.
#include "common.cuh"

#define LA_MAX_LEVELS 32

// |S ∩ idx[lo, hi)|, warp-cooperative; every lane returns the same value
__device__ __forceinline__ u64 warp_count_in(const int* S, int ns, const int* __restrict__ idx, i64 lo, i64 hi,
                                             int lane) {
    u64 c = 0;
    for (int base = 0; base < ns; base += 32) {
        const int i = base + lane;
        const bool hit = i < ns && binary_contains(idx, lo, hi, S[i]);
        c += __popc(__ballot_sync(LA_FULL_MASK, hit));
    }
    return c;
}

// out = S ∩ idx[lo, hi) in order; returns its size (same on every lane)
__device__ __forceinline__ int warp_intersect_to(const int* S, int ns, const int* __restrict__ idx, i64 lo, i64 hi,
                                                 int* out, int lane) {
    int cnt = 0;
    for (int base = 0; base < ns; base += 32) {
        const int i = base + lane;
        int x = 0;
        bool hit = false;
        if (i < ns) { x = S[i]; hit = binary_contains(idx, lo, hi, x); }
        const unsigned m = __ballot_sync(LA_FULL_MASK, hit);
        if (hit) out[cnt + __popc(m & ((1u << lane) - 1u))] = x;
        cnt += __popc(m);
    }
    __syncwarp();
    return cnt;
}

// acc += x, remembering a wrap-around of the 64-bit sum (counts are exact or the call raises)
__device__ __forceinline__ void add_checked(u64& acc, u64 x, bool& over) {
    const u64 r = acc + x;
    over |= r < acc;
    acc = r;
}

extern "C" __global__ void clique_count_warp(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                             const int* __restrict__ src, i64 narcs, int k, int maxdeg,
                                             int* __restrict__ buf, u64* __restrict__ next_arc,
                                             u64* __restrict__ total, u64* __restrict__ overflow) {
    const int lane = threadIdx.x & 31;
    const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int levels = k - 3 > 1 ? k - 3 : 1;
    int* stack = buf + warp * (i64)levels * maxdeg;
    int sz[LA_MAX_LEVELS];
    int it[LA_MAX_LEVELS];
    u64 local = 0;
    bool over = false;
    for (;;) {
        u64 e = 0;
        if (lane == 0) e = atomicAdd(next_arc, 1ULL);
        e = __shfl_sync(LA_FULL_MASK, e, 0);
        if (e >= (u64)narcs) break;
        const int u = __ldg(src + e);
        const int v = __ldg(idx + e);
        i64 alo = __ldg(ptr + u), ahi = __ldg(ptr + u + 1), blo = __ldg(ptr + v), bhi = __ldg(ptr + v + 1);
        if (ahi - alo > bhi - blo) { i64 t = alo; alo = blo; blo = t; t = ahi; ahi = bhi; bhi = t; }
        if (k == 3) { add_checked(local, warp_count_in(idx + alo, (int)(ahi - alo), idx, blo, bhi, lane), over); continue; }
        sz[0] = warp_intersect_to(idx + alo, (int)(ahi - alo), idx, blo, bhi, stack, lane);
        it[0] = 0;
        int d = 0;
        while (d >= 0) {
            // S_d picks the (d+3)-th vertex; k - (d+3) vertices remain after it
            const int rem = k - (d + 3);
            if (rem == 0) { add_checked(local, (u64)sz[d], over); --d; continue; }
            if (sz[d] - it[d] < rem + 1) { --d; continue; }  // exhausted, or too few left for a clique: prune
            const int* S = stack + (i64)d * maxdeg;
            const int w = S[it[d]];
            ++it[d];
            const i64 wlo = __ldg(ptr + w), whi = __ldg(ptr + w + 1);
            if (rem == 1) {
                add_checked(local, warp_count_in(S + it[d], sz[d] - it[d], idx, wlo, whi, lane), over);
            } else {
                int* out = stack + (i64)(d + 1) * maxdeg;
                sz[d + 1] = warp_intersect_to(S + it[d], sz[d] - it[d], idx, wlo, whi, out, lane);
                it[d + 1] = 0;
                ++d;
            }
        }
    }
    if (lane == 0 && local) {
        const u64 before = atomicAdd(total, local);
        over |= before + local < before;
    }
    if (lane == 0 && over) atomicExch(overflow, 1ULL);
}
