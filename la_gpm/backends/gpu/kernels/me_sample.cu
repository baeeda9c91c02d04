// Motif-frequency estimation on the GPU: colorful rooted-treelet tables and uniform treelet sampling
// (Motivo), mirroring la_gpm/backends/cpu/motif_estimate_kernels.py operation for operation.
//
// Tables: row-major (n, WM) doubles M (all shapes side by side) and (n, WB) doubles B (A * M of the
// passive shapes).  Every sum runs in the CPU kernels' order and without fused multiply-adds
// (__dmul_rn / __dadd_rn), so the tables, and hence the samples of a seed, equal the CPU backend's.
// Random numbers: SplitMix64 of a counter (la_gpm/backends/cpu/rng.py).
#include "common.cuh"

__device__ __forceinline__ u64 me_mix(u64 x) { return la_splitmix64(x); }

// (state advanced, uniform double in [0, 1)), as the CPU's _uniform
__device__ __forceinline__ double me_uniform(u64& state) {
    state += 0x9E3779B97F4A7C15ULL;
    u64 z = me_mix(state);
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

// leaf table: M[v, off + colors[v]] = 1
extern "C" __global__ void me_leaf(const signed char* __restrict__ colors, double* __restrict__ M, i64 n, i64 W,
                                   i64 off) {
    i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (v < n) M[v * W + off + colors[v]] = 1.0;
}

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

// smallest i in [0, len) with cum[i] > x
__device__ __forceinline__ i64 me_upper(const double* __restrict__ cum, i64 len, double x) {
    i64 lo = 0, hi = len;
    while (lo < hi) {
        i64 mid = (lo + hi) >> 1;
        if (cum[mid] <= x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

#define ME_MAXK 8

// One thread per sample i (samples first .. first+count-1 of key): a uniform colorful k-treelet
// drawn by walking the tables backwards from a root (top shape, vertex) drawn from root_cum.
// Writes the k vertices to verts[i] and the adjacency bitmask of the induced graphlet to codes[i]
// (bit j(j-1)/2 + a for the pair of sample positions a < j).
// sample i's root: (shape, vertex) in proportion to the cumulative root weights
__device__ __forceinline__ void me_pick_root(const double* __restrict__ root_cum, i64 ncum,
                                             const i64* __restrict__ root_shape, i64 n, u64& state, int* st_s,
                                             int* st_v) {
    const double total = root_cum[ncum - 1];
    const double x = me_uniform(state);
    const i64 id = me_upper(root_cum, ncum - 1, x * total);
    const i64 t = id / n;
    st_s[0] = (int)root_shape[t];
    st_v[0] = (int)(id - t * n);
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

extern "C" __global__ void me_sample(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                     const double* __restrict__ M, i64 W, const double* __restrict__ B, i64 WB,
                                     const i64* __restrict__ offM, const i64* __restrict__ offB,
                                     const i64* __restrict__ size, const i64* __restrict__ act,
                                     const i64* __restrict__ pas, const i64* __restrict__ split_off,
                                     const i64* __restrict__ split_n, const i64* __restrict__ split_sa,
                                     const i64* __restrict__ split_sp, const double* __restrict__ root_cum,
                                     i64 ncum, const i64* __restrict__ root_shape, i64 n, u64 key, i64 first,
                                     i64 count, int k, int* __restrict__ verts, i64* __restrict__ codes) {
    i64 i = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) return;
    u64 state = me_mix(key ^ ((u64)(first + i) * 0xD1B54A32D192ED03ULL));
    int st_s[ME_MAXK], st_v[ME_MAXK], st_r[ME_MAXK], vs[ME_MAXK];
    me_pick_root(root_cum, ncum, root_shape, n, state, st_s, st_v);
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
        const i64 jj = me_pick_split(Mv, Bv, sa, sp, ns, state);
        int ra = (int)sa[jj], rp = (int)sp[jj];
        double acc;
        // the passive child's vertex, in proportion to its table entry
        const double* col = M + offM[p] + rp;
        x = __dmul_rn(me_uniform(state), Bv[rp]);
        acc = 0.0;
        int u = -1, last = -1;
        for (i64 e = ptr[v], e1 = ptr[v + 1]; e < e1; ++e) {
            int y = __ldg(idx + e);
            double w = __ldg(col + (i64)y * W);
            if (w > 0.0) {
                last = y;
                acc = __dadd_rn(acc, w);
                if (x < acc) {
                    u = y;
                    break;
                }
            }
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
    i64 code = 0;
    for (int j = 0; j < k; ++j) verts[i * k + j] = vs[j];
    for (int j = 1; j < k; ++j) {
        for (int a = 0; a < j; ++a) {
            int xa = vs[a], yb = vs[j];
            if (ptr[xa + 1] - ptr[xa] > ptr[yb + 1] - ptr[yb]) {
                int tmp = xa;
                xa = yb;
                yb = tmp;
            }
            if (binary_contains(idx, ptr[xa], ptr[xa + 1], yb)) code |= 1LL << (j * (j - 1) / 2 + a);
        }
    }
    codes[i] = code;
}

// The sampler with one warp per sample, for graphs with hubs: every lane follows the same walk
// (same random numbers), and the scan for the passive child's vertex reads 32 neighbours at a time
// (warp prefix sum, first lane whose running sum passes the target).  Equal to me_sample while the
// running sums are exact (below 2^53).
extern "C" __global__ void me_sample_warp(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                          const double* __restrict__ M, i64 W, const double* __restrict__ B,
                                          i64 WB, const i64* __restrict__ offM, const i64* __restrict__ offB,
                                          const i64* __restrict__ size, const i64* __restrict__ act,
                                          const i64* __restrict__ pas, const i64* __restrict__ split_off,
                                          const i64* __restrict__ split_n, const i64* __restrict__ split_sa,
                                          const i64* __restrict__ split_sp, const double* __restrict__ root_cum,
                                          i64 ncum, const i64* __restrict__ root_shape, i64 n, u64 key, i64 first,
                                          i64 count, int k, int* __restrict__ verts, i64* __restrict__ codes) {
    i64 i = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int lane = threadIdx.x & 31;
    if (i >= count) return;  // whole warps leave together
    u64 state = me_mix(key ^ ((u64)(first + i) * 0xD1B54A32D192ED03ULL));
    int st_s[ME_MAXK], st_v[ME_MAXK], st_r[ME_MAXK], vs[ME_MAXK];
    me_pick_root(root_cum, ncum, root_shape, n, state, st_s, st_v);
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
        const i64 jj = me_pick_split(Mv, Bv, sa, sp, ns, state);
        int ra = (int)sa[jj], rp = (int)sp[jj];
        double acc;
        const double* col = M + offM[p] + rp;
        x = __dmul_rn(me_uniform(state), Bv[rp]);
        acc = 0.0;
        int u = -1, last = -1;
        for (i64 base = ptr[v], e1 = ptr[v + 1]; base < e1; base += 32) {
            i64 e = base + lane;
            int y = e < e1 ? __ldg(idx + e) : -1;
            double w = e < e1 ? __ldg(col + (i64)y * W) : 0.0;
            double ps = w;
#pragma unroll
            for (int o = 1; o < 32; o <<= 1) {
                double q = __shfl_up_sync(LA_FULL_MASK, ps, o);
                if (lane >= o) ps = __dadd_rn(ps, q);
            }
            unsigned hit = __ballot_sync(LA_FULL_MASK, w > 0.0 && x < __dadd_rn(acc, ps));
            unsigned pos = __ballot_sync(LA_FULL_MASK, w > 0.0);
            if (hit) {
                u = __shfl_sync(LA_FULL_MASK, y, __ffs(hit) - 1);
                break;
            }
            if (pos) last = __shfl_sync(LA_FULL_MASK, y, 31 - __clz(pos));
            acc = __dadd_rn(acc, __shfl_sync(LA_FULL_MASK, ps, 31));
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
    if (lane != 0) return;
    i64 code = 0;
    for (int j = 0; j < k; ++j) verts[i * k + j] = vs[j];
    for (int j = 1; j < k; ++j) {
        for (int a = 0; a < j; ++a) {
            int xa = vs[a], yb = vs[j];
            if (ptr[xa + 1] - ptr[xa] > ptr[yb + 1] - ptr[yb]) {
                int tmp = xa;
                xa = yb;
                yb = tmp;
            }
            if (binary_contains(idx, ptr[xa], ptr[xa + 1], yb)) code |= 1LL << (j * (j - 1) / 2 + a);
        }
    }
    codes[i] = code;
}
