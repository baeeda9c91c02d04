// Breadth-first expansion of partial matches stored as a trie (cuTS, Xiang et al., SC 2021):
// level j holds, per partial match of j+1 vertices, only its last data vertex V_j[e] and the
// index P_j[e] of its parent in level j-1 (parent-pointer arrays), so a prefix shared by many
// matches is stored once. A lane group (a power of two <= 32) takes one entry of level lvl-1,
// rebuilds its match f[0..lvl-1] by walking the parent pointers, and tests the candidates of level
// lvl as the plan says (la_gpm/patterns/plan.py, tables T[field, level, slot] and C[field, level]
// compiled without reuse): intersect the parents' neighbour lists (iterating the shortest, binary
// search in the others), subtract the anti-parents' lists (induced), keep the symmetry window
// (vlo, vhi), injectivity, vertex / edge labels and the minimum degree.
//
// mode 0: counts[e - e0] = number of children of entry e (sizing pass)
// mode 1: write the children of entry e at offsets[e - e0] (outV = vertex, outP = e)
// mode 2: last level: add the number of children to *total (nothing stored)
#include "common.cuh"
#include "plan_fields.cuh"


#define TRIE_MAX_K 32
#define I64_MAX 0x7fffffffffffffffLL

// first position in a[lo, hi) holding a value >= x
template <typename T>
__device__ __forceinline__ i64 lower_bound_dev(const T* __restrict__ a, i64 lo, i64 hi, i64 x) {
    while (lo < hi) {
        const i64 mid = (lo + hi) >> 1;
        if ((i64)__ldg(a + mid) < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

extern "C" __global__ void trie_level(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                      const i64* __restrict__ nlab, const i64* __restrict__ elab,
                                      const int* __restrict__ deg, int vlabeled, int elabeled,
                                      const i64* __restrict__ T, const i64* __restrict__ C, int k, int lvl,
                                      const u64* __restrict__ Vs, const u64* __restrict__ Ps, i64 e0, i64 e1,
                                      int group, int mode, i64* __restrict__ counts,
                                      const i64* __restrict__ offsets, int* __restrict__ outV,
                                      i64* __restrict__ outP, u64* __restrict__ total) {
#define TT(f, l, s) T[((i64)(f) * k + (l)) * k + (s)]
#define CC(f, l) C[(i64)(f) * k + (l)]
    const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    const int lane_g = lane & (group - 1);
    const unsigned gmask = (group == 32 ? LA_FULL_MASK : ((1u << group) - 1u)) << (lane & ~(group - 1));
    const unsigned below = (1u << lane) - 1u;
    const i64 ngroups = ((i64)gridDim.x * blockDim.x) / group;
    const int npar = (int)CC(C_NPAR, lvl), nanti = (int)CC(C_NANTI, lvl), ninj = (int)CC(C_NINJ, lvl);
    const i64 lab = CC(C_VLAB, lvl), mindeg = CC(C_MINDEG, lvl);
    const bool use_lab = vlabeled && lab >= 0;
    u64 local = 0;
    i64 f[TRIE_MAX_K];
    i64 rlo[TRIE_MAX_K], rhi[TRIE_MAX_K];
    for (i64 e = e0 + tid / group; e < e1; e += ngroups) {
        // the partial match of entry e: walk the parent pointers up to the root
        i64 p = e;
        for (int j = lvl - 1; j >= 0; --j) {
            f[j] = ((const int*)Vs[j])[p];
            if (j > 0) p = ((const i64*)Ps[j])[p];
        }
        i64 vlo = -1, vhi = I64_MAX;
        for (int t = 0; t < (int)CC(C_NLOW, lvl); ++t) { const i64 x = f[TT(T_LOW, lvl, t)]; vlo = x > vlo ? x : vlo; }
        for (int t = 0; t < (int)CC(C_NUP, lvl); ++t) { const i64 x = f[TT(T_UP, lvl, t)]; vhi = x < vhi ? x : vhi; }
        // parents' rows, restricted to the level's label and the window; iterate the shortest
        int base = 0;
        i64 best = I64_MAX;
        for (int t = 0; t < npar; ++t) {
            const i64 v = f[TT(T_PAR, lvl, t)];
            i64 lo = ptr[v], hi = ptr[v + 1];
            if (use_lab) { lo = lower_bound_dev(nlab, lo, hi, lab); hi = lower_bound_dev(nlab, lo, hi, lab + 1); }
            lo = lower_bound_dev(idx, lo, hi, vlo + 1);
            hi = lower_bound_dev(idx, lo, hi, vhi);
            rlo[t] = lo; rhi[t] = hi;
            if (hi - lo < best) { best = hi - lo; base = t; }
        }
        u64 c = 0;
        const i64 start = offsets ? offsets[e - e0] : 0;
        for (i64 q0 = rlo[base]; q0 < rhi[base]; q0 += group) {
            const i64 q = q0 + lane_g;
            bool ok = q < rhi[base];
            i64 x = 0;
            if (ok) {
                x = idx[q];
                ok = deg[x] >= mindeg;
                if (ok && elabeled && TT(T_PAREL, lvl, base) >= 0) ok = elab[q] == TT(T_PAREL, lvl, base);
                for (int t = 0; ok && t < ninj; ++t) ok = f[TT(T_INJ, lvl, t)] != x;
                for (int t = 0; ok && t < npar; ++t) {
                    if (t == base) continue;
                    const i64 r = lower_bound_dev(idx, rlo[t], rhi[t], x);
                    ok = r < rhi[t] && idx[r] == x;
                    if (ok && elabeled && TT(T_PAREL, lvl, t) >= 0) ok = elab[r] == TT(T_PAREL, lvl, t);
                }
                for (int t = 0; ok && t < nanti; ++t) {
                    const i64 v = f[TT(T_ANTI, lvl, t)];
                    i64 lo = ptr[v], hi = ptr[v + 1];
                    if (use_lab) { lo = lower_bound_dev(nlab, lo, hi, lab); hi = lower_bound_dev(nlab, lo, hi, lab + 1); }
                    const i64 r = lower_bound_dev(idx, lo, hi, x);
                    ok = !(r < hi && idx[r] == x);
                }
            }
            const unsigned m = __ballot_sync(gmask, ok);
            if (mode == 1 && ok) {
                const i64 at = start + (i64)c + __popc(m & below);
                outV[at] = (int)x;
                outP[at] = e;
            }
            c += __popc(m);
        }
        if (mode == 2) { if (lane_g == 0) local += c; }
        else if (mode == 0 && lane_g == 0) counts[e - e0] = (i64)c;
    }
    if (mode == 2) {
        local = warp_sum_u64(local);
        if (lane == 0 && local) atomicAdd(total, local);
    }
#undef TT
#undef CC
}
