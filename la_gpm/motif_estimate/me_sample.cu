// Motif-frequency estimation on the GPU: colorful rooted-treelet tables and uniform treelet sampling
// (Motivo), mirroring la_gpm/motif_estimate/cpu.py operation for operation.
//
// Tables: row-major (n, WM) doubles M (all shapes side by side) and (n, WB) doubles B (A * M of the
// passive shapes).  Every sum runs in the CPU kernels' order and without fused multiply-adds
// (__dmul_rn / __dadd_rn), so the tables, and hence the samples of a seed, equal the CPU backend's.
// Random numbers: SplitMix64 of a counter (la_gpm/primitives/rng.py).
#include "common.cuh"

// (state advanced, uniform double in [0, 1)), as the CPU's _uniform
__device__ __forceinline__ double me_uniform(u64& state) {
    state += 0x9E3779B97F4A7C15ULL;
    u64 z = la_splitmix64(state);
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

// leaf table: M[v, off + c] = (c == colors[v]) for c < k (every column written: the tables are
// allocated uninitialised)
extern "C" __global__ void me_leaf(const signed char* __restrict__ colors, double* __restrict__ M, i64 n, i64 W,
                                   i64 off, int k) {
    i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (v >= n) return;
    const int c = colors[v];
    for (int q = 0; q < k; ++q) M[v * W + off + q] = q == c ? 1.0 : 0.0;
}

// ---------------------------------------------------------------------------------------------------------
// Level-wise table build (the default).  All shapes of one size h are contiguous in M (shapes sorted by
// size) and, being passive children, in B; a level is one eMA launch over all its shapes' columns
// (me_ema_level) and then one SpMM launch per window of <= 32*NC of its columns (me_spmm_tasks), so each
// neighbour's row slice (up to 189 doubles at k = 7) is read once per level instead of once per shape.
//
// SpMM work items ("tasks"): chunk c of vertex v = neighbours ptr[v] + c*CH .. min(+CH, ptr[v+1]); a vertex
// of degree <= CH is one task (degree 0 too: it writes zeros), a hub (degree > CH) is split over several
// warps whose partial sums go to P[hub_slot[v] + c, :] (kept: the sampler skips whole chunks with them)
// and are added in chunk order by me_spmm_hub_sum.  One warp per task, lanes over the window's columns,
// neighbour ids loaded 32 at a time and broadcast, NC loads per neighbour and 4 neighbours in flight;
// each column's sum runs over the neighbours in CSR order (the CPU's order) within a chunk.
template <int NC>
__device__ __forceinline__ void me_spmm_tasks_impl(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                                   const double* __restrict__ M, i64 W, i64 offM,
                                                   double* __restrict__ B, i64 WB, i64 offB, int C,
                                                   const int* __restrict__ task_v, const int* __restrict__ task_c,
                                                   i64 ntask, const int* __restrict__ hub_slot, int CH,
                                                   double* __restrict__ P, i64 row0) {
    const i64 t = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int lane = threadIdx.x & 31;
    if (t >= ntask) return;  // whole warps leave together
    const int v = task_v[t], c = task_c[t];
    const i64 e0 = ptr[v] + (i64)c * CH;
    const i64 e1 = min(e0 + (i64)CH, ptr[v + 1]);
    double acc[NC];
    bool on[NC];
#pragma unroll
    for (int q = 0; q < NC; ++q) {
        acc[q] = 0.0;
        on[q] = lane + 32 * q < C;
    }
    const double* Mo = M + offM + lane;
    for (i64 base = e0; base < e1; base += 32) {
        const int cnt = (int)min((i64)32, e1 - base);
        const int y = lane < cnt ? __ldg(idx + base + lane) : 0;
        int j = 0;
        for (; j + 4 <= cnt; j += 4) {
            const i64 u0 = __shfl_sync(LA_FULL_MASK, y, j), u1 = __shfl_sync(LA_FULL_MASK, y, j + 1);
            const i64 u2 = __shfl_sync(LA_FULL_MASK, y, j + 2), u3 = __shfl_sync(LA_FULL_MASK, y, j + 3);
            double x0[NC], x1[NC], x2[NC], x3[NC];
#pragma unroll
            for (int q = 0; q < NC; ++q) {
                x0[q] = on[q] ? __ldg(Mo + u0 * W + 32 * q) : 0.0;
                x1[q] = on[q] ? __ldg(Mo + u1 * W + 32 * q) : 0.0;
                x2[q] = on[q] ? __ldg(Mo + u2 * W + 32 * q) : 0.0;
                x3[q] = on[q] ? __ldg(Mo + u3 * W + 32 * q) : 0.0;
            }
#pragma unroll
            for (int q = 0; q < NC; ++q)
                acc[q] = __dadd_rn(__dadd_rn(__dadd_rn(__dadd_rn(acc[q], x0[q]), x1[q]), x2[q]), x3[q]);
        }
        for (; j < cnt; ++j) {
            const i64 u = __shfl_sync(LA_FULL_MASK, y, j);
#pragma unroll
            for (int q = 0; q < NC; ++q)
                if (on[q]) acc[q] = __dadd_rn(acc[q], __ldg(Mo + u * W + 32 * q));
        }
    }
    const int hs = hub_slot[v];
    double* dst = hs < 0 ? B + ((i64)v - row0) * WB + offB : P + (i64)(hs + c) * WB + offB;
#pragma unroll
    for (int q = 0; q < NC; ++q)
        if (on[q]) dst[lane + 32 * q] = acc[q];
}

#define ME_SPMM_TASKS(NC)                                                                                       \
    extern "C" __global__ void __launch_bounds__(256) me_spmm_tasks##NC(                                       \
        const i64* __restrict__ ptr, const int* __restrict__ idx, const double* __restrict__ M, i64 W, i64 offM, \
        double* __restrict__ B, i64 WB, i64 offB, int C, const int* __restrict__ task_v,                        \
        const int* __restrict__ task_c, i64 ntask, const int* __restrict__ hub_slot, int CH,                    \
        double* __restrict__ P) {                                                                               \
        me_spmm_tasks_impl<NC>(ptr, idx, M, W, offM, B, WB, offB, C, task_v, task_c, ntask, hub_slot, CH, P, 0); \
    }                                                                                                           \
    extern "C" __global__ void __launch_bounds__(256) me_spmm_rows##NC(                                        \
        const i64* __restrict__ ptr, const int* __restrict__ idx, const double* __restrict__ M, i64 W, i64 offM, \
        double* __restrict__ B, i64 WB, i64 offB, int C, const int* __restrict__ task_v,                        \
        const int* __restrict__ task_c, i64 ntask, const int* __restrict__ hub_slot, int CH,                    \
        double* __restrict__ P, i64 row0) {                                                                     \
        me_spmm_tasks_impl<NC>(ptr, idx, M, W, offM, B, WB, offB, C, task_v, task_c, ntask, hub_slot, CH, P,    \
                               row0);                                                                           \
    }
ME_SPMM_TASKS(1)
ME_SPMM_TASKS(2)
ME_SPMM_TASKS(3)
ME_SPMM_TASKS(4)
ME_SPMM_TASKS(5)
ME_SPMM_TASKS(6)

// B[hub_v[h], offB + r] = sum over the hub's chunks s (in order) of P[hub_s0[h] + s, offB + r]:
// one thread per (hub, column)
extern "C" __global__ void me_spmm_hub_sum(const double* __restrict__ P, double* __restrict__ B, i64 WB, i64 offB,
                                           int C, const int* __restrict__ hub_v, const int* __restrict__ hub_s0,
                                           const int* __restrict__ hub_ns, i64 nhub) {
    const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nhub * C) return;
    const i64 h = t / C;
    const int r = (int)(t - h * C);
    const double* Ph = P + (i64)hub_s0[h] * WB + offB + r;
    double s = 0.0;
    for (int q = 0, nq = hub_ns[h]; q < nq; ++q) s = __dadd_rn(s, Ph[(i64)q * WB]);
    B[(i64)hub_v[h] * WB + offB + r] = s;
}

// me_spmm_hub_sum into a chunk buffer of B: the row of hub v is v - row0 (chunked layout)
extern "C" __global__ void me_spmm_hub_sum_rows(const double* __restrict__ P, double* __restrict__ B, i64 WB,
                                                i64 offB, int C, const int* __restrict__ hub_v,
                                                const int* __restrict__ hub_s0, const int* __restrict__ hub_ns,
                                                i64 nhub, i64 row0) {
    const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nhub * C) return;
    const i64 h = t / C;
    const int r = (int)(t - h * C);
    const double* Ph = P + (i64)hub_s0[h] * WB + offB + r;
    double s = 0.0;
    for (int q = 0, nq = hub_ns[h]; q < nq; ++q) s = __dadd_rn(s, Ph[(i64)q * WB]);
    B[((i64)hub_v[h] - row0) * WB + offB + r] = s;
}

// One level's eMA: M[v, e_dst[e]] = sum_j M[v, e_offA[e] + sa[e_s0[e] + j]] * B[v, e_offB[e] + sp[e_s0[e] + j]],
// j < e_ns[e], for the level's E output columns e (all its shapes' colour sets): one thread per (v, e),
// v-major, so a warp reads one or two vertices' rows; the CPU's order, no fused multiply-add
extern "C" __global__ void me_ema_level(double* M, i64 W, const double* __restrict__ B, i64 WB,
                                        const int* __restrict__ e_dst, const int* __restrict__ e_offA,
                                        const int* __restrict__ e_offB, const int* __restrict__ e_s0,
                                        const int* __restrict__ e_ns, const int* __restrict__ sa,
                                        const int* __restrict__ sp, int E, i64 n) {
    const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n * E) return;
    const i64 v = t / E;
    const int e = (int)(t - v * E);
    const double* Ma = M + v * W + e_offA[e];
    const double* Bv = B + v * WB + e_offB[e];
    const int* a = sa + e_s0[e];
    const int* b = sp + e_s0[e];
    double acc = 0.0;
    for (int j = 0, nj = e_ns[e]; j < nj; ++j) {
        const double x = Ma[__ldg(a + j)];
        if (x != 0.0) acc = __dadd_rn(acc, __dmul_rn(x, Bv[__ldg(b + j)]));
    }
    M[v * W + e_dst[e]] = acc;
}

// me_ema_level on the rows v0 .. v0 + nrows - 1 only, reading B from a chunk buffer (row v - v0): the
// chunked layout's build (same sums, same order)
extern "C" __global__ void me_ema_level_rows(double* M, i64 W, const double* __restrict__ B, i64 WB,
                                             const int* __restrict__ e_dst, const int* __restrict__ e_offA,
                                             const int* __restrict__ e_offB, const int* __restrict__ e_s0,
                                             const int* __restrict__ e_ns, const int* __restrict__ sa,
                                             const int* __restrict__ sp, int E, i64 v0, i64 nrows) {
    const i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= nrows * E) return;
    const i64 i = t / E;
    const i64 v = v0 + i;
    const int e = (int)(t - i * E);
    const double* Ma = M + v * W + e_offA[e];
    const double* Bv = B + i * WB + e_offB[e];
    const int* a = sa + e_s0[e];
    const int* b = sp + e_s0[e];
    double acc = 0.0;
    for (int j = 0, nj = e_ns[e]; j < nj; ++j) {
        const double x = Ma[__ldg(a + j)];
        if (x != 0.0) acc = __dadd_rn(acc, __dmul_rn(x, Bv[__ldg(b + j)]));
    }
    M[v * W + e_dst[e]] = acc;
}

// ---------------------------------------------------------------------------------------------------------
// Per-shape build (before the level-wise build; kept for the benchmark's before/after)
// B[v, offB + r] = sum over neighbours u of M[u, offM + r], r < C: one warp per vertex, lanes over r,
// neighbours in CSR order (the CPU's summation order)
extern "C" __global__ void me_spmm(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                   const double* __restrict__ M, i64 W, i64 offM, double* __restrict__ B, i64 WB,
                                   i64 offB, int C, i64 n) {
    i64 v = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (v >= n) return;
    i64 e0 = ptr[v], e1 = ptr[v + 1];
    for (int r = lane; r < C; r += 32) {
        double acc = 0.0;
        for (i64 e = e0; e < e1; ++e) acc = __dadd_rn(acc, __ldg(M + (i64)__ldg(idx + e) * W + offM + r));
        B[v * WB + offB + r] = acc;
    }
}

// The same product for C <= 16 columns: one warp per vertex split into G = 32 / C groups of C lanes;
// group g sums neighbours g, g + G, ... and the partial sums are added in group order (the order
// differs from the CPU's, so results equal it only while the sums are exact, i.e. below 2^53)
extern "C" __global__ void me_spmm_groups(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                          const double* __restrict__ M, i64 W, i64 offM, double* __restrict__ B,
                                          i64 WB, i64 offB, int C, i64 n) {
    __shared__ double part[256];
    i64 v = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    int G = 32 / C;
    int g = lane / C, r = lane - g * C;
    double acc = 0.0;
    if (v < n && g < G) {
        for (i64 e = ptr[v] + g, e1 = ptr[v + 1]; e < e1; e += G)
            acc = __dadd_rn(acc, __ldg(M + (i64)__ldg(idx + e) * W + offM + r));
    }
    part[threadIdx.x] = acc;
    __syncwarp();
    if (v < n && lane < C) {
        double s = 0.0;
        int base = threadIdx.x & ~31;
        for (int q = 0; q < G; ++q) s = __dadd_rn(s, part[base + q * C + lane]);
        B[v * WB + offB + lane] = s;
    }
}

// M[v, offS + r] = sum_j M[v, offA + sa[r, j]] * B[v, offB + sp[r, j]]: one thread per (v, r)
extern "C" __global__ void me_ema(double* __restrict__ M, i64 W, i64 offA, const double* __restrict__ B, i64 WB,
                                  i64 offB, i64 offS, const i64* __restrict__ sa, const i64* __restrict__ sp,
                                  int Cs, int ns, i64 n) {
    i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= n * Cs) return;
    i64 v = t / Cs;
    int r = (int)(t - v * Cs);
    const double* Mv = M + v * W;
    const double* Bv = B + v * WB + offB;
    double acc = 0.0;
    for (int j = 0; j < ns; ++j) {
        double x = Mv[offA + sa[(i64)r * ns + j]];
        if (x != 0.0) acc = __dadd_rn(acc, __dmul_rn(x, Bv[sp[(i64)r * ns + j]]));
    }
    M[v * W + offS + r] = acc;
}

#define ME_MAXK 8
#define ME_MAXNS 70          // most colour splits of one node (k = 8); checked on the host
#define ME_SAMPLE_BLOCK 128  // threads per block of the samplers (the warp sampler's shared buffers)

// B[v, colB] of the full layout, recomputed as the level-wise build summed it (chunked layout): a hub
// (hs >= 0) adds its chunk sums P in chunk order (me_spmm_hub_sum), another vertex its neighbours'
// M[u, colM] in CSR order (me_spmm_tasks), both from 0.0 without fused operations: the same double
__device__ __forceinline__ double me_b_entry(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                             const double* __restrict__ M, i64 W, i64 colM,
                                             const double* __restrict__ P, i64 WB, i64 colB, int hs, int v,
                                             int CH) {
    const i64 e0 = ptr[v], e1 = ptr[v + 1];
    double s = 0.0;
    if (hs >= 0) {
        const i64 nq = (e1 - e0 + CH - 1) / CH;
        for (i64 q = 0; q < nq; ++q) s = __dadd_rn(s, P[((i64)hs + q) * WB + colB]);
        return s;
    }
    for (i64 e = e0; e < e1; ++e) s = __dadd_rn(s, __ldg(M + (i64)__ldg(idx + e) * W + colM));
    return s;
}

// sample i's root: (shape, vertex) in proportion to the cumulative root weights; the weights are laid out
// by the graph's own vertex ids, and with ``mapped`` the tables and the CSR by vmap's (the chunked and spill layouts'
// degree order): the root's vertex is then vmap[v]
__device__ __forceinline__ void me_pick_root(const double* __restrict__ root_cum, i64 ncum,
                                             const i64* __restrict__ root_shape, i64 n, u64& state, int* st_s,
                                             int* st_v, const int* __restrict__ vmap, int mapped) {
    const double total = __ldg(root_cum + ncum - 1);
    const double x = me_uniform(state);
    const i64 id = binary_upper_bound(root_cum, (i64)0, ncum - 1, x * total);
    const i64 t = id / n;
    st_s[0] = (int)root_shape[t];
    const int v = (int)(id - t * n);
    st_v[0] = mapped ? __ldg(vmap + v) : v;
}

// a colour split (active set, passive set) of a node in proportion to M_active * B_passive (fixed
// summation order, no fused multiply-add: the same choice as the CPU sampler)
__device__ __forceinline__ i64 me_pick_split(const double* Mv, const double* Bv, const i64* sa, const i64* sp, i64 ns,
                                             u64& state) {
    double tot = 0.0;
    for (i64 j = 0; j < ns; ++j) tot = __dadd_rn(tot, __dmul_rn(Mv[sa[j]], Bv[sp[j]]));
    const double x = __dmul_rn(me_uniform(state), tot);
    double acc = 0.0;
    for (i64 j = 0; j < ns; ++j) {
        const double w = __dmul_rn(Mv[sa[j]], Bv[sp[j]]);
        acc = __dadd_rn(acc, w);
        if (x < acc && w > 0.0) return j;
    }
    return ns - 1;
}

// me_pick_split with the passive entries given (bv[j] = B_passive[sp[j]], recomputed): the same doubles
__device__ __forceinline__ i64 me_pick_split_b(const double* Mv, const double* bv, const i64* sa, i64 ns,
                                               u64& state) {
    double tot = 0.0;
    for (i64 j = 0; j < ns; ++j) tot = __dadd_rn(tot, __dmul_rn(Mv[sa[j]], bv[j]));
    const double x = __dmul_rn(me_uniform(state), tot);
    double acc = 0.0;
    for (i64 j = 0; j < ns; ++j) {
        const double w = __dmul_rn(Mv[sa[j]], bv[j]);
        acc = __dadd_rn(acc, w);
        if (x < acc && w > 0.0) return j;
    }
    return ns - 1;
}

// The samplers' draw from weights in list order (a sum with __dadd_rn, as the CPU sampler): the first i in
// [lo, hi) with a positive weight w(i) at which the running sum acc + (the positive weights up to i) passes
// x, else the last i with a positive weight (-1 when none is). acc: in, the sum before lo; out, the
// running sum before the pick (unchanged when there is none).
template <class Weight>
__device__ __forceinline__ i64 me_pick_weighted(i64 lo, i64 hi, double x, double& acc, Weight w) {
    i64 pick = -1;
    double before = acc;
    for (i64 i = lo; i < hi; ++i) {
        const double wi = w(i);
        if (wi > 0.0) {
            pick = i;
            before = acc;
            acc = __dadd_rn(acc, wi);
            if (x < acc) break;
        }
    }
    acc = before;
    return pick;
}

// Hub chunk skipping for the samplers: a vertex v with hub_slot[v] >= 0 has its neighbours in chunks of CH,
// and Pc[q * WB] (q < chunks) is chunk q's sum of the passive column being sampled (the SpMM's partial
// sums).  Narrows [e, e1) to the first chunk whose running sum passes x (else the last chunk with a
// positive sum, as the plain scan falls back to the last positive neighbour) and sets acc to the sum of
// the chunks before it; the scan inside the chunk then picks the same neighbour as a scan of the whole
// list while the sums are exact (below 2^53).
__device__ __forceinline__ void me_skip_chunks_thread(const double* __restrict__ Pc, i64 WB, int CH, double x,
                                                      i64& e, i64& e1, double& acc) {
    const int nq = (int)((e1 - e + CH - 1) / CH);
    double before = 0.0;
    const i64 pick = me_pick_weighted(0, nq, x, before, [=](i64 q) { return Pc[q * WB]; });
    if (pick < 0) return;
    e += pick * CH;
    e1 = min(e + (i64)CH, e1);
    acc = before;
}

// the same with a warp: 32 chunk sums per step, warp prefix sums (all lanes get the same result)
__device__ __forceinline__ void me_skip_chunks_warp(const double* __restrict__ Pc, i64 WB, int CH, double x,
                                                    i64& e, i64& e1, double& acc, int lane) {
    const i64 nq = (e1 - e + CH - 1) / CH;
    i64 pick = -1, lastq = -1;
    double a = 0.0, before = 0.0;
    for (i64 qb = 0; qb < nq; qb += 32) {
        const i64 q = qb + lane;
        const double w = q < nq ? Pc[q * WB] : 0.0;
        const double ps = warp_inclusive_sum(w, lane);
        double ex = __shfl_up_sync(LA_FULL_MASK, ps, 1);
        if (lane == 0) ex = 0.0;
        const double start = __dadd_rn(a, ex);
        const unsigned hit = __ballot_sync(LA_FULL_MASK, w > 0.0 && x < __dadd_rn(a, ps));
        const unsigned pos = __ballot_sync(LA_FULL_MASK, w > 0.0);
        if (hit) {
            const int L = __ffs(hit) - 1;
            pick = qb + L;
            before = __shfl_sync(LA_FULL_MASK, start, L);
            break;
        }
        if (pos) {
            const int L = 31 - __clz(pos);
            lastq = qb + L;
            before = __shfl_sync(LA_FULL_MASK, start, L);
        }
        a = __dadd_rn(a, __shfl_sync(LA_FULL_MASK, ps, 31));
    }
    if (pick < 0) pick = lastq;
    if (pick < 0) return;
    e += pick * CH;
    e1 = min(e + (i64)CH, e1);
    acc = before;
}

// the samplers' parameters and the arguments that pass them on; mapped (the chunked and spill layouts): ptr, idx,
// M, P and hub_slot are laid out by the vertices' slots (vmap: vertex -> slot, vperm: slot -> vertex), root_cum, verts
// and the graph (optr, oidx) by the vertices' own ids
#define ME_SAMPLE_PARAMS                                                                                     \
    const i64* __restrict__ ptr, const int* __restrict__ idx, const double* __restrict__ M, i64 W,           \
        const double* __restrict__ B, i64 WB, const i64* __restrict__ offM, const i64* __restrict__ offB,    \
        const i64* __restrict__ size, const i64* __restrict__ act, const i64* __restrict__ pas,              \
        const i64* __restrict__ split_off, const i64* __restrict__ split_n, const i64* __restrict__ split_sa, \
        const i64* __restrict__ split_sp, const double* __restrict__ root_cum, i64 ncum,                     \
        const i64* __restrict__ root_shape, i64 n, u64 key, i64 first, i64 count, int k,                     \
        int* __restrict__ verts, i64* __restrict__ codes, const double* __restrict__ P,                      \
        const int* __restrict__ hub_slot, int CH, const int* __restrict__ vmap, const int* __restrict__ vperm, \
        const i64* __restrict__ optr, const int* __restrict__ oidx, int mapped
#define ME_SAMPLE_ARGS                                                                                        \
    ptr, idx, M, W, B, WB, offM, offB, size, act, pas, split_off, split_n, split_sa, split_sp, root_cum, ncum, \
        root_shape, n, key, first, count, k, verts, codes, P, hub_slot, CH, vmap, vperm, optr, oidx, mapped

// Sample i (samples first .. first+count-1 of key): a uniform colorful k-treelet drawn by walking
// the tables backwards from a root (top shape, vertex) drawn from root_cum. Writes the k vertices
// to verts[i] and the adjacency bitmask of the induced graphlet to codes[i] (bit j(j-1)/2 + a for
// the pair of sample positions a < j). WARP: one warp per sample, every lane following the same walk
// (same random numbers), the scan for the passive child's vertex reading 32 neighbours at a time
// (warp prefix sum, first lane whose running sum passes the target), for graphs with hubs; equal to
// the one-thread walk while the running sums are exact (below 2^53).
// BFREE (chunked layout): B is not stored; the entries a split reads are recomputed (me_b_entry) into bv
// (a thread's own array; a warp's shared row, its lanes over the splits), the same doubles as B's.
template <bool WARP, bool BFREE>
__device__ __forceinline__ void me_sample_one(i64 i, int lane, double* bv, ME_SAMPLE_PARAMS) {
    u64 state = la_splitmix64(key ^ ((u64)(first + i) * 0xD1B54A32D192ED03ULL));
    int st_s[ME_MAXK], st_v[ME_MAXK], st_r[ME_MAXK], vs[ME_MAXK];
    me_pick_root(root_cum, ncum, root_shape, n, state, st_s, st_v, vmap, mapped);
    st_r[0] = 0;
    double x;
    int top = 1, nv = 0;
    while (top > 0) {
        --top;
        int s = st_s[top], v = st_v[top], r = st_r[top];
        if (size[s] == 1) {
            vs[nv++] = v;
            continue;
        }
        int a = (int)act[s], p = (int)pas[s];
        i64 so = split_off[s], ns = split_n[s];
        const double* Mv = M + (i64)v * W + offM[a];
        const double* Bv = B + (i64)v * WB + offB[p];
        const i64* sa = split_sa + so + r * ns;
        const i64* sp = split_sp + so + r * ns;
        const int hs = hub_slot[v];
        i64 jj;
        if (BFREE) {
            if (WARP) __syncwarp();  // every lane is done with the previous node's entries
            for (i64 j = WARP ? lane : 0; j < ns; j += WARP ? 32 : 1)
                bv[j] = me_b_entry(ptr, idx, M, W, offM[p] + sp[j], P, WB, offB[p] + sp[j], hs, v, CH);
            if (WARP) __syncwarp();
            jj = me_pick_split_b(Mv, bv, sa, ns, state);
        } else {
            jj = me_pick_split(Mv, Bv, sa, sp, ns, state);
        }
        int ra = (int)sa[jj], rp = (int)sp[jj];
        double acc;
        // the passive child's vertex, in proportion to its table entry
        const double* col = M + offM[p] + rp;
        x = __dmul_rn(me_uniform(state), BFREE ? bv[jj] : Bv[rp]);
        acc = 0.0;
        i64 e0 = ptr[v], e1 = ptr[v + 1];
        int u = -1, last = -1;
        if (WARP) {
            if (hs >= 0) me_skip_chunks_warp(P + (i64)hs * WB + offB[p] + rp, WB, CH, x, e0, e1, acc, lane);
            for (i64 base = e0; base < e1; base += 32) {
                i64 e = base + lane;
                int y = e < e1 ? __ldg(idx + e) : -1;
                double w = e < e1 ? __ldg(col + (i64)y * W) : 0.0;
                const double ps = warp_inclusive_sum(w, lane);
                unsigned hit = __ballot_sync(LA_FULL_MASK, w > 0.0 && x < __dadd_rn(acc, ps));
                unsigned pos = __ballot_sync(LA_FULL_MASK, w > 0.0);
                if (hit) {
                    u = __shfl_sync(LA_FULL_MASK, y, __ffs(hit) - 1);
                    break;
                }
                if (pos) last = __shfl_sync(LA_FULL_MASK, y, 31 - __clz(pos));
                acc = __dadd_rn(acc, __shfl_sync(LA_FULL_MASK, ps, 31));
            }
        } else {
            if (hs >= 0) me_skip_chunks_thread(P + (i64)hs * WB + offB[p] + rp, WB, CH, x, e0, e1, acc);
            const i64 e = me_pick_weighted(e0, e1, x, acc, [=](i64 q) { return __ldg(col + (i64)__ldg(idx + q) * W); });
            if (e >= 0) u = __ldg(idx + e);
        }
        if (u < 0) u = last;
        st_s[top] = a;
        st_v[top] = v;
        st_r[top] = ra;
        ++top;
        st_s[top] = p;
        st_v[top] = u;
        st_r[top] = rp;
        ++top;
    }
    if (WARP && lane != 0) return;
    i64 code = 0;
    // mapped: back to the graph's own ids, whose CSR (optr, oidx) has the sorted lists csr_adjacent searches
    for (int j = 0; j < k; ++j) {
        if (mapped) vs[j] = __ldg(vperm + vs[j]);
        verts[i * k + j] = vs[j];
    }
    for (int j = 1; j < k; ++j) {
        for (int a = 0; a < j; ++a) {
            if (csr_adjacent(optr, oidx, vs[a], vs[j])) code |= 1LL << (j * (j - 1) / 2 + a);
        }
    }
    codes[i] = code;
}

// one thread per sample
extern "C" __global__ void me_sample(ME_SAMPLE_PARAMS) {
    const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    me_sample_one<false, false>(i, 0, nullptr, ME_SAMPLE_ARGS);
}

// one warp per sample (graphs with hubs)
extern "C" __global__ void me_sample_warp(ME_SAMPLE_PARAMS) {
    const i64 i = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (i >= count) return;  // whole warps leave together
    me_sample_one<true, false>(i, threadIdx.x & 31, nullptr, ME_SAMPLE_ARGS);
}

// the chunked layout's samplers (B recomputed where read; B is not passed: M stands in for it, unread)
extern "C" __global__ void me_sample_rows(ME_SAMPLE_PARAMS) {
    const i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    double bv[ME_MAXNS];
    me_sample_one<false, true>(i, 0, bv, ME_SAMPLE_ARGS);
}

extern "C" __global__ void __launch_bounds__(ME_SAMPLE_BLOCK) me_sample_warp_rows(ME_SAMPLE_PARAMS) {
    __shared__ double bsh[ME_SAMPLE_BLOCK / 32][ME_MAXNS];
    const i64 i = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    if (i >= count) return;  // whole warps leave together
    me_sample_one<true, true>(i, threadIdx.x & 31, bsh[threadIdx.x >> 5], ME_SAMPLE_ARGS);
}

// ---------------------------------------------------------------------------------------------------------
// k = 8 class-cache keys on the device: each sampled 8-vertex graph's adjacency bitmask with its vertices in the
// order of canonical_codes' invariant (degree, sum of neighbour degrees, triangles), ties by vertex id --
// la_gpm.patterns.classes.ordered_codes at k = 8, bit for bit (one thread a code).  Bit p(a, j) = j (j - 1) / 2 + a
// (a < j) of a bitmask is the pair (a, j).  With the vertices ranked by their distinct keys (rank = how many keys
// are smaller: the insertion sort's order), an input pair (u, v) is the output pair (rank u, rank v); every loop
// has constant bounds, so the arrays stay in registers.
extern "C" __global__ void me_ordered_codes8(const i64* __restrict__ codes, i64 m, i64* __restrict__ out) {
    for (i64 t = (i64)blockIdx.x * blockDim.x + threadIdx.x; t < m; t += (i64)gridDim.x * blockDim.x) {
        const unsigned long long c = (unsigned long long)codes[t];
        unsigned adj[8];
#pragma unroll
        for (int v = 0; v < 8; ++v) adj[v] = 0u;
#pragma unroll
        for (int j = 1; j < 8; ++j) {
#pragma unroll
            for (int a = 0; a < j; ++a) {
                const unsigned b = (unsigned)(c >> (j * (j - 1) / 2 + a)) & 1u;
                adj[a] |= b << j;
                adj[j] |= b << a;
            }
        }
        long long deg[8], key[8];
#pragma unroll
        for (int v = 0; v < 8; ++v) deg[v] = __popc(adj[v]);
#pragma unroll
        for (int v = 0; v < 8; ++v) {
            long long s = 0, tri = 0;
#pragma unroll
            for (int u = 0; u < 8; ++u) {
                const long long b = (adj[v] >> u) & 1u;
                s += b * deg[u];
                tri += b * __popc(adj[v] & adj[u]);
            }
            key[v] = ((deg[v] * 4096 + s) * 4096 + tri) * 64 + v;
        }
        int rank[8];
#pragma unroll
        for (int v = 0; v < 8; ++v) {
            int r = 0;
#pragma unroll
            for (int u = 0; u < 8; ++u) r += key[u] < key[v];
            rank[v] = r;
        }
        unsigned long long code = 0ull;
#pragma unroll
        for (int j = 1; j < 8; ++j) {
#pragma unroll
            for (int a = 0; a < j; ++a) {
                const unsigned long long b = (c >> (j * (j - 1) / 2 + a)) & 1ull;
                const int lo = min(rank[a], rank[j]), hi = max(rank[a], rank[j]);
                code |= b << (hi * (hi - 1) / 2 + lo);
            }
        }
        out[t] = (i64)code;
    }
}
