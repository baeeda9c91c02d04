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

extern "C" __global__ void trie_level(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                      const i64* __restrict__ nlab, const i64* __restrict__ elab,
                                      const int* __restrict__ deg, int vlabeled, int elabeled,
                                      const i64* __restrict__ T, const i64* __restrict__ C, int k, int lvl,
                                      const u64* __restrict__ Vs, const u64* __restrict__ Ps, i64 e0, i64 e1,
                                      int group, int mode, i64* __restrict__ counts,
                                      const i64* __restrict__ offsets, int* __restrict__ outV,
                                      i64* __restrict__ outP, u64* __restrict__ total) {
    const PlanGraph g{ptr, idx, nlab, elab, deg, vlabeled, elabeled};
    const PlanTables<PlainLoad> P{T, C, k};
    const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = threadIdx.x & 31;
    const int lane_g = lane & (group - 1);
    const unsigned gmask = group_lane_mask(group, lane);
    const unsigned below = lanes_below(lane);
    const i64 ngroups = ((i64)gridDim.x * blockDim.x) / group;
    const int npar = (int)P.value(C_NPAR, lvl), nanti = (int)P.value(C_NANTI, lvl), ninj = (int)P.value(C_NINJ, lvl);
    const i64 lab = P.value(C_VLAB, lvl), mindeg = P.value(C_MINDEG, lvl);
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
        for (int t = 0; t < (int)P.value(C_NLOW, lvl); ++t) {
            const i64 x = f[P.list(T_LOW, lvl, t)];
            vlo = x > vlo ? x : vlo;
        }
        for (int t = 0; t < (int)P.value(C_NUP, lvl); ++t) {
            const i64 x = f[P.list(T_UP, lvl, t)];
            vhi = x < vhi ? x : vhi;
        }
        // parents' rows, restricted to the level's label and the window; iterate the shortest
        int base = 0;
        i64 best = I64_MAX;
        for (int t = 0; t < npar; ++t) {
            i64 lo, hi;
            label_row(g, (int)f[P.list(T_PAR, lvl, t)], lab, lo, hi);
            lo = binary_lower_bound(idx, lo, hi, vlo + 1);
            hi = binary_lower_bound(idx, lo, hi, vhi);
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
                if (ok && elabeled && P.list(T_PAREL, lvl, base) >= 0) ok = elab[q] == P.list(T_PAREL, lvl, base);
                for (int t = 0; ok && t < ninj; ++t) ok = f[P.list(T_INJ, lvl, t)] != x;
                for (int t = 0; ok && t < npar; ++t) {
                    if (t == base) continue;
                    const i64 r = binary_lower_bound(idx, rlo[t], rhi[t], x);
                    ok = r < rhi[t] && idx[r] == x;
                    if (ok && elabeled && P.list(T_PAREL, lvl, t) >= 0) ok = elab[r] == P.list(T_PAREL, lvl, t);
                }
                for (int t = 0; ok && t < nanti; ++t) {
                    i64 lo, hi;
                    label_row(g, (int)f[P.list(T_ANTI, lvl, t)], lab, lo, hi);
                    const i64 r = binary_lower_bound(idx, lo, hi, x);
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
        add_warp_sum(total, local, lane);
    }
}
