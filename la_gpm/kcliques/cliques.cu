// k-clique counting on the degree-ordered DAG (vertices renamed by degree rank), warp-centric
// DFS in the style of DuMato / G2Miner: one warp extends one DAG arc (u, v) at a time. Warps fetch
// arcs from an atomic counter (dynamic load balancing: a warp that finishes early takes the next
// arc). The last level is counted, not listed. Two kernels share that frame:
//
// * clique_count_warp ("stack"): level d of the warp's stack holds S_d, the candidates for the
//   (d+3)-th clique vertex, in global memory (coalesced warp writes compacted with ballot/popc);
//   every level is a warp-cooperative sorted-list intersection.
// * clique_count_bitmap ("bitmap", binary encoding after Almasri et al., ICS 2022): the candidates
//   C = N+(u) ∩ N+(v) are intersected once; the warp then writes the DAG adjacency *inside* C as
//   bit rows (row i = the j > i with C[j] ∈ N+(C[i]); one ballot fills a 32-bit word), and every
//   deeper level is a word-wise AND of a candidate bitmap with a row: lane l holds word l of the
//   current level (|C| <= cap <= CQ_CAP = 32 × 32), the next vertex is the lowest set bit (ballot +
//   ffs), the last level is a popcount. Arcs whose C exceeds cap take the stack path in the same warp.
//   Work items may be whole arcs or (arc, range of the first vertex chosen in C): the host splits
//   arcs with large C into ranges and hands the heaviest items out first (static DuMato-style
//   donation of subtrees; see cliques.py), since one arc's subtree can outlast every other warp.
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

// out = S ∩ idx[lo, hi) in order (S[0, ns) read with plain loads: it may be the warp's stack); returns its
// size (same on every lane)
__device__ __forceinline__ int warp_intersect_to(const int* S, int ns, const int* __restrict__ idx, i64 lo, i64 hi,
                                                 int* out, int lane) {
    return warp_intersect<PlainLoad>(S, 0, ns, idx, lo, hi, out, lane);
}

// the out-lists [alo, ahi) and [blo, bhi) of DAG arc e = (u, v), the shorter first
__device__ __forceinline__ void arc_lists(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                          const int* __restrict__ src, i64 e, i64& alo, i64& ahi, i64& blo,
                                          i64& bhi) {
    const int u = __ldg(src + e), v = __ldg(idx + e);
    alo = __ldg(ptr + u); ahi = __ldg(ptr + u + 1); blo = __ldg(ptr + v); bhi = __ldg(ptr + v + 1);
    if (ahi - alo > bhi - blo) { i64 t = alo; alo = blo; blo = t; t = ahi; ahi = bhi; bhi = t; }
}

// acc += x, remembering a wrap-around of the 64-bit sum (counts are exact or the call raises)
__device__ __forceinline__ void add_checked(u64& acc, u64 x, bool& over) {
    const u64 r = acc + x;
    over |= r < acc;
    acc = r;
}

// lane 0: *total += acc, and *overflow = 1 when that or an earlier sum wrapped around (over)
__device__ __forceinline__ void flush_checked(u64* total, u64* overflow, u64 acc, bool over, int lane) {
    if (lane == 0 && acc) {
        const u64 before = atomicAdd(total, acc);
        over |= before + acc < before;
    }
    if (lane == 0 && over) atomicExch(overflow, 1ULL);
}

// k = 4: the pairs (i < j) of S[0, s) with S[j] in N+(S[i]), the warp's lanes over the pairs in row-major order
// (pair p is (i, j) with p = i (2s - i - 1) / 2 + j - i - 1): 32 pairs a step, where stack_dfs takes one step per i
// (each with s - i - 1 lanes busy). Every lane returns the same value.
__device__ __forceinline__ u64 warp_count_pairs(const i64* __restrict__ ptr, const int* __restrict__ idx, const int* S,
                                                int s, int lane) {
    const i64 np = (i64)s * (s - 1) / 2;
    u64 c = 0;
    for (i64 base = 0; base < np; base += 32) {
        const i64 p = base + lane;
        bool hit = false;
        if (p < np) {
            const double b = 2.0 * s - 1.0;
            int i = (int)((b - sqrt(b * b - 8.0 * (double)p)) * 0.5);     // the row, then exact in integers
            while (i > 0 && (i64)i * (2 * s - i - 1) / 2 > p) --i;
            while ((i64)(i + 1) * (2 * s - i - 2) / 2 <= p) ++i;
            const int j = (int)(p - (i64)i * (2 * s - i - 1) / 2) + i + 1;
            const int w = S[i];
            hit = binary_contains(idx, __ldg(ptr + w), __ldg(ptr + w + 1), S[j]);
        }
        c += __popc(__ballot_sync(LA_FULL_MASK, hit));
    }
    return c;
}

// Depth-first extension of S_0 (stack level 0, size s0) to k-cliques; adds their number to acc.
__device__ __forceinline__ void stack_dfs(const i64* __restrict__ ptr, const int* __restrict__ idx, int k, int maxdeg,
                                          int* stack, int s0, int lane, u64& acc, bool& over) {
    int sz[LA_MAX_LEVELS];
    int it[LA_MAX_LEVELS];
    sz[0] = s0;
    it[0] = 0;
    int d = 0;
    while (d >= 0) {
        // S_d picks the (d+3)-th vertex; k - (d+3) vertices remain after it
        const int rem = k - (d + 3);
        if (rem == 0) { add_checked(acc, (u64)sz[d], over); --d; continue; }
        if (sz[d] - it[d] < rem + 1) { --d; continue; }  // exhausted, or too few left for a clique: prune
        const int* S = stack + (i64)d * maxdeg;
        const int w = S[it[d]];
        ++it[d];
        const i64 wlo = __ldg(ptr + w), whi = __ldg(ptr + w + 1);
        if (rem == 1) {
            add_checked(acc, warp_count_in(S + it[d], sz[d] - it[d], idx, wlo, whi, lane), over);
        } else {
            int* out = stack + (i64)(d + 1) * maxdeg;
            sz[d + 1] = warp_intersect_to(S + it[d], sz[d] - it[d], idx, wlo, whi, out, lane);
            it[d + 1] = 0;
            ++d;
        }
    }
}

extern "C" __global__ void clique_count_warp(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                             const int* __restrict__ src, i64 narcs, int k, int maxdeg,
                                             int* __restrict__ buf, u64* __restrict__ next_arc,
                                             u64* __restrict__ total, u64* __restrict__ overflow) {
    const int lane = threadIdx.x & 31;
    const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int levels = k - 3 > 1 ? k - 3 : 1;
    int* stack = buf + warp * (i64)levels * maxdeg;
    u64 local = 0;
    bool over = false;
    for (;;) {
        const u64 e = warp_next_item(next_arc, lane);
        if (e >= (u64)narcs) break;
        i64 alo, ahi, blo, bhi;
        arc_lists(ptr, idx, src, (i64)e, alo, ahi, blo, bhi);
        if (k == 3) { add_checked(local, warp_count_in(idx + alo, (int)(ahi - alo), idx, blo, bhi, lane), over); continue; }
        const int s0 = warp_intersect_to(idx + alo, (int)(ahi - alo), idx, blo, bhi, stack, lane);
        if (k == 4) { add_checked(local, warp_count_pairs(ptr, idx, stack, s0, lane), over); continue; }
        stack_dfs(ptr, idx, k, maxdeg, stack, s0, lane, local, over);
    }
    flush_checked(total, overflow, local, over, lane);
}

#define CQ_CAP 1024  // largest |C| kept as bitmaps: 32 words, one per lane

// Rows of the DAG adjacency inside C (c = |C| <= CQ_CAP, W = ceil(c / 32) words per row): bit j of
// row i is set when j > i and C[j] ∈ N+(C[i]). Words below row i's own word are never read (the
// candidate bitmaps they meet are zero there), so they are not written.
__device__ __forceinline__ void build_rows(const i64* __restrict__ ptr, const int* __restrict__ idx, const int* C,
                                           int c, int W, int from, unsigned* rows, int lane) {
    for (int i = from; i < c - 1; ++i) {  // rows of i >= from: the only vertices a search from `from` picks
        const int w = C[i];
        const i64 wlo = __ldg(ptr + w), whi = __ldg(ptr + w + 1);
        for (int wd = (i + 1) >> 5; wd < W; ++wd) {
            const int j = (wd << 5) + lane;
            const bool hit = j > i && j < c && whi > wlo && binary_contains(idx, wlo, whi, C[j]);
            const unsigned m = __ballot_sync(LA_FULL_MASK, hit);
            if (lane == 0) rows[(i64)i * W + wd] = m;
        }
    }
    __syncwarp();
}

// bits of positions below n in this lane's word of a bitmap
__device__ __forceinline__ unsigned bits_below(int n, int lane) {
    const int t = n - (lane << 5);
    return t <= 0 ? 0u : (t >= 32 ? LA_FULL_MASK : (1u << t) - 1u);
}

// Cliques of k - 2 vertices inside C whose first (lowest) vertex lies in [i0, i1), counted from the
// bit rows: L = k - 3 vertices are chosen depth-first in increasing order, the last one is a
// popcount. Lane l holds word l of each level.
__device__ __forceinline__ void bitmap_dfs(const unsigned* rows, int c, int W, int i0, int i1, int L, int lane,
                                           u64& acc, bool& over) {
    unsigned X[LA_MAX_LEVELS];
    X[0] = lane < W ? bits_below(min(i1, c), lane) & ~bits_below(i0, lane) : 0u;
    int d = 0;
    while (d >= 0) {
        unsigned x = X[d];
        const unsigned nz = __ballot_sync(LA_FULL_MASK, x != 0u);
        if (nz == 0u) { --d; continue; }
        const int f = __ffs(nz) - 1;
        const int i = (f << 5) + __ffs(__shfl_sync(LA_FULL_MASK, x, f)) - 1;
        // choosing i needs L - d more vertices after it (plus i): at level 0 any of C after i
        // (the level may hold only a range of C), deeper only the level's own candidates
        const int left = d == 0 ? c - i : (int)__reduce_add_sync(LA_FULL_MASK, __popc(x));
        if (left < L - d + 1) { --d; continue; }
        if (lane == f) x &= x - 1u;  // i leaves the level's candidates
        X[d] = x;
        unsigned y;
        if (d == 0)  // every vertex of C after i (row i holds no others; words below i's are unwritten)
            y = lane < W && lane >= ((i + 1) >> 5) ? rows[(i64)i * W + lane] & ~bits_below(i + 1, lane) : 0u;
        else
            y = lane < W && x ? x & rows[(i64)i * W + lane] : 0u;
        if (d + 1 == L) {
            add_checked(acc, (u64)__reduce_add_sync(LA_FULL_MASK, __popc(y)), over);
        } else {
            X[d + 1] = y;
            ++d;
        }
    }
}

// k >= 4. Per warp: (k-3) × maxdeg ints of stack (level 0 = C; deeper levels for arcs with
// |C| > cap) then cap × ceil(cap / 32) words of rows; cap <= min(maxdeg, CQ_CAP) (the host passes
// less only to test the stack path).
// Work items: t = next_arc's values below narcs; item t is arc items[t] with first vertex in
// [first_lo[t], first_hi[t]) (or arc t, whole, when items is NULL). Split items have |C| <= cap.
extern "C" __global__ void clique_count_bitmap(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                               const int* __restrict__ src, i64 narcs, int k, int maxdeg, int cap,
                                               const int* __restrict__ items, const int* __restrict__ first_lo,
                                               const int* __restrict__ first_hi,
                                               int* __restrict__ buf, u64* __restrict__ next_arc,
                                               u64* __restrict__ total, u64* __restrict__ overflow) {
    const int lane = threadIdx.x & 31;
    const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    const int levels = k - 3;
    const int rcap = min(cap, min(maxdeg, CQ_CAP));
    const i64 per_warp = (i64)levels * maxdeg + (i64)rcap * ((rcap + 31) >> 5);
    int* stack = buf + warp * per_warp;
    unsigned* rows = (unsigned*)(stack + (i64)levels * maxdeg);
    u64 local = 0;
    bool over = false;
    for (;;) {
        const u64 t = warp_next_item(next_arc, lane);
        if (t >= (u64)narcs) break;
        const int i0 = first_lo ? __ldg(first_lo + t) : 0;
        const int i1 = first_hi ? __ldg(first_hi + t) : 0x7fffffff;
        i64 alo, ahi, blo, bhi;
        arc_lists(ptr, idx, src, items ? (i64)__ldg(items + t) : (i64)t, alo, ahi, blo, bhi);
        if (ahi - alo < k - 2) continue;  // fewer candidates than the clique's other vertices
        const int c = warp_intersect_to(idx + alo, (int)(ahi - alo), idx, blo, bhi, stack, lane);
        if (c < k - 2) continue;
        if (c > rcap) { if (i0 == 0) stack_dfs(ptr, idx, k, maxdeg, stack, c, lane, local, over); continue; }
        const int W = (c + 31) >> 5;
        build_rows(ptr, idx, stack, c, W, i0, rows, lane);
        bitmap_dfs(rows, c, W, i0, i1, k - 3, lane, local, over);
        __syncwarp();  // rows are rewritten for the next arc
    }
    flush_checked(total, overflow, local, over, lane);
}

// |N+(u) ∩ N+(v)| of every DAG arc (u, v): the candidate-set sizes the host splits work by
extern "C" __global__ void clique_arc_sizes(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                            const int* __restrict__ src, i64 narcs, int* __restrict__ sizes) {
    const int lane = threadIdx.x & 31;
    const i64 nw = ((i64)gridDim.x * blockDim.x) >> 5;
    for (i64 e = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; e < narcs; e += nw) {
        i64 alo, ahi, blo, bhi;
        arc_lists(ptr, idx, src, e, alo, ahi, blo, bhi);
        const u64 c = warp_count_in(idx + alo, (int)(ahi - alo), idx, blo, bhi, lane);
        if (lane == 0) sizes[e] = (int)c;
    }
}
