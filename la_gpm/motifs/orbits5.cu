// 5-vertex graphlet orbits on the GPU (la_gpm.orbits(G, 5, backend="gpu")): the port of
// orbits5_cpu.triangle_lists / orbit5_features / back_substitute. See la_gpm/motifs/orbits5.py (what the 58
// feature sums are) and docs/census.md.
//
// Every kernel works on the degree-DESCENDING relabelling of G (motifs/gpu.py _device_desc: vertex 0 has the
// largest degree, rows sorted); the features of a vertex do not depend on the ids, the host permutes the rows back.
//
//   o5_tri_lists  per arc q = u -> v the sorted common neighbours w (tl_w[tl_ptr[q] .. tl_ptr[q+1])) and the arc
//                 index of v -> w (tl_arc); one warp per edge (forward arc), both arcs' lists written (the same
//                 sorted list: only tl_arc differs)
//   o5_tri_k4     tl_k4[p] = |L(u,v) ∩ L(v,w)| = |N(u) ∩ N(v) ∩ N(w)| for every list entry; one warp per edge
//   o5_features   the 58 feature sums of every vertex x: one GROUP per vertex (a warp, or a whole block for the
//                 hubs: motifs/gpu.py _per_vertex), grid-striding over the vertices through a work counter; each
//                 group owns one scratch slice in global memory (the CPU's per-chunk arrays posx, cx, posa, kc,
//                 touched, cxa, m, int32) and one row of 58 counters in shared memory
//   o5_solve      back-substitution of the triangular system (orbits5.solve_orbits5), one thread per vertex
//
// o5_features mirrors orbits5_cpu._vertex_features block by block (the R-names and the feature numbers f_15 ..
// f_72 are the CPU's). The CPU's sequential loops become, inside the group:
//   * a loop over one range (posx / posa stamps, the per-x / per-a sums): group-strided, gt = 0, gthreads, ...;
//   * a double loop "for j in [lo, hi): for q in range(j)": group_pairs (below): the group's warps take 32 outer
//     items at a time and warp_expand spreads the (j, q) pairs over the lanes;
//   * the neighbour a of x stays sequential (the group works on one a at a time; posa, cxa, kc are per a).
// Every CPU product "count × per-item weight" (n4·(d_b - 2), tot4·(d_x - 1), nc·(d_x - 3), ...) is a sum over
// the pairs that make the count, so each thread adds its pairs' weights to a few private int64 accumulators; a
// phase ends with one warp sum and one shared-memory atomic per feature (flush). The group writes its vertex's
// row of F once, after a barrier: no other group touches it.
// Counts in the scratch are int32 (each is at most the max degree < 38,000, orbits5.check_orbit5_safe), every
// sum and product int64 (at most 4·dmax^4 per vertex); the shared counters are u64 (two's complement sums of
// the int64 terms: exact).
#include "common.cuh"

#define O5_NFEAT 58     // features f_15 .. f_72: column j targets orbit 15 + j
#define O5_NLOW 16      // the feature matrix's low columns: the singleton, then orbits 0 .. 14
#define O5_MAX_WARPS 16 // warps per block at most (gpu.HUB_WARPS)
#define FO(o) ((o) - 15) // column of feature f_o

// ------------------------------------------------------------------------------------------------ lists

// Per edge u < v (forward arc e: source fsrc[e], arc q = fwd[e]) and its reverse arc rq = v -> u: the sorted
// common neighbours into tl_w for both arcs (offsets tl_ptr: the per-arc triangle counts' prefix sums), tl_arc
// = the arc v -> w for q and u -> w for rq. The shorter row is scanned, the longer searched.
extern "C" __global__ void o5_tri_lists(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                        const int* __restrict__ fsrc, const i64* __restrict__ fwd, i64 nfwd,
                                        const i64* __restrict__ tl_ptr, int* tl_w, i64* __restrict__ tl_arc) {
    const int lane = threadIdx.x & 31;
    const i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    for (i64 e = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; e < nfwd; e += nwarps) {
        const int u = __ldg(fsrc + e);
        const i64 q = __ldg(fwd + e);
        const int v = __ldg(idx + q);
        const i64 base = __ldg(tl_ptr + q);
        if (__ldg(tl_ptr + q + 1) == base) continue;  // no triangle on this edge (warp-uniform)
        const i64 ul = __ldg(ptr + u), uh = __ldg(ptr + u + 1), vl = __ldg(ptr + v), vh = __ldg(ptr + v + 1);
        const i64 rq = binary_find(idx, vl, vh, u);
        const i64 rbase = __ldg(tl_ptr + rq);
        const int c = (uh - ul <= vh - vl) ? warp_intersect(idx, ul, uh, idx, vl, vh, tl_w + base, lane)
                                           : warp_intersect(idx, vl, vh, idx, ul, uh, tl_w + base, lane);
        for (int i = lane; i < c; i += 32) {
            const int w = tl_w[base + i];  // written by this warp (warp_filter ends with __syncwarp)
            tl_w[rbase + i] = w;
            tl_arc[base + i] = binary_find(idx, vl, vh, w);   // v -> w
            tl_arc[rbase + i] = binary_find(idx, ul, uh, w);  // u -> w
        }
    }
}

// tl_k4 of both arcs of every edge u < v: entry i of the list of u -> v (and of v -> u, the same list) for w
// is |L(u -> v) ∩ L(v -> w)| (orbits5_cpu._triangle_lists_body), the shorter list searched in the longer.
extern "C" __global__ void o5_tri_k4(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                     const int* __restrict__ fsrc, const i64* __restrict__ fwd, i64 nfwd,
                                     const i64* __restrict__ tl_ptr, const int* __restrict__ tl_w,
                                     const i64* __restrict__ tl_arc, int* __restrict__ tl_k4) {
    const int lane = threadIdx.x & 31;
    const i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    for (i64 e = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; e < nfwd; e += nwarps) {
        const int u = __ldg(fsrc + e);
        const i64 q = __ldg(fwd + e);
        const i64 lo = __ldg(tl_ptr + q), hi = __ldg(tl_ptr + q + 1);
        if (hi == lo) continue;
        const int v = __ldg(idx + q);
        const i64 rq = binary_find(idx, __ldg(ptr + v), __ldg(ptr + v + 1), u);
        const i64 rbase = __ldg(tl_ptr + rq);
        for (i64 p = lo + lane; p < hi; p += 32) {
            const i64 s = __ldg(tl_arc + p);
            const i64 slo = __ldg(tl_ptr + s), shi = __ldg(tl_ptr + s + 1);
            const bool mine = hi - lo <= shi - slo;
            const i64 al = mine ? lo : slo, ah = mine ? hi : shi, bl = mine ? slo : lo, bh = mine ? shi : hi;
            int k = 0;
            for (i64 i = al; i < ah; ++i) k += binary_contains(tl_w, bl, bh, __ldg(tl_w + i));
            tl_k4[p] = k;
            tl_k4[rbase + (p - lo)] = k;
        }
    }
}

// ------------------------------------------------------------------------------------------------ features

// Every pair (j, q) with j in [lo, hi) and q in the range rng(j, qlo, qlen) of j (qlen 0: none): the group's
// warps take 32 consecutive j at a time (lane l holds base + l), warp_expand spreads their pairs over the lanes
// and f(ok, j, q) is called by all 32 lanes of the warp together (ok false past the end: return at once).
// Warp-collective within each warp of the group (the loop bounds are the same on every lane of a warp).
template <class R, class Fn>
__device__ __forceinline__ void group_pairs(i64 lo, i64 hi, int gw, int gthreads, int lane, R rng, Fn f) {
    for (i64 base = lo + (i64)gw * 32; base < hi; base += gthreads) {
        const i64 j = base + lane;
        i64 qlo = 0;
        int qlen = 0;
        if (j < hi) rng(j, qlo, qlen);
        warp_expand(qlo, qlen, lane, [&](bool ok, int s, i64 q) { f(ok, base + s, q); });
    }
}

// the sum of v over the group (every thread of it gets the sum): a warp sum, and across the block's warps
// (coop) through part[] between two barriers. Every thread of the group must call.
__device__ __forceinline__ i64 group_sum(i64 v, bool coop, int gw, int gsize, int lane, i64* part) {
    v = warp_sum(v);
    v = __shfl_sync(LA_FULL_MASK, v, 0);
    if (!coop) return v;
    if (lane == 0) part[gw] = v;
    __syncthreads();
    i64 t = 0;
    for (int w = 0; w < gsize; ++w) t += part[w];
    __syncthreads();
    return t;
}

// Feature sums f[x, 0 .. 58) (out, n × 58 int64, zeroed by the host) of the vertices ubeg .. uend-1, taken from
// the work counter *next. coop == 0: a warp per vertex (blocks of at most O5_MAX_WARPS warps); coop == 1: a
// block per vertex (hubs). Scratch slice of group g: scratch + g·stride, stride = 6n + nnz int32:
// posx, cx, posa, kc, touched, cxa (n each), m (nnz); all zero on entry and left zero after every vertex.
//   posx[v] = position of v in N(x) + 1 (0: v !~ x)     cx[v] = |N(x) ∩ N(v)| (v != x)
//   posa[v] = position of v in N(a) + 1                  cxa[v] = |N(x) ∩ N(a) ∩ N(v)|
//   kc[v], touched[0 .. nt): R4/R8 ends of the current a  m[arc c -> d] = |N(x) ∩ N(c) ∩ N(d)|
extern "C" __global__ void __launch_bounds__(O5_MAX_WARPS * 32)
o5_features(const i64* __restrict__ ptr, const int* __restrict__ idx, const int* __restrict__ tri,
            const i64* __restrict__ tl_ptr, const int* __restrict__ tl_w, const i64* __restrict__ tl_arc,
            const int* __restrict__ tl_k4, int n, int ubeg, int uend, int coop, int* scratch, i64 stride,
            u64* __restrict__ next, i64* __restrict__ out) {
    __shared__ u64 s_f[O5_MAX_WARPS][O5_NFEAT];  // one row per group (coop: row 0)
    __shared__ int s_nt[O5_MAX_WARPS];           // entries of touched (R4/R8 ends of the current a)
    __shared__ i64 s_part[O5_MAX_WARPS];         // group_sum
    __shared__ int s_v;                          // group_next_item
    for (int i = threadIdx.x; i < O5_MAX_WARPS * O5_NFEAT; i += blockDim.x) (&s_f[0][0])[i] = 0;
    for (int i = threadIdx.x; i < O5_MAX_WARPS; i += blockDim.x) s_nt[i] = 0;
    __syncthreads();

    const bool cp = coop != 0;
    const int lane = threadIdx.x & 31;
    const int gsize = cp ? (int)(blockDim.x >> 5) : 1;
    const int gw = cp ? (int)(threadIdx.x >> 5) : 0;
    const int gthreads = gsize * 32, gt = gw * 32 + lane;
    const int slot = cp ? 0 : (int)(threadIdx.x >> 5);
    const i64 group = cp ? (i64)blockIdx.x : (((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    int* posx = scratch + group * stride;
    int* cx = posx + n;
    int* posa = cx + n;
    int* kc = posa + n;
    int* touched = kc + n;
    int* cxa = touched + n;
    int* m = cxa + n;
    u64* f = s_f[slot];
    int* nt = s_nt + slot;
    // f[j] += the warp's sum of v (lane 0: one shared atomic; nothing where every lane holds 0). Warp-collective.
    auto flush = [&](int j, i64 v) {
        if (!__any_sync(LA_FULL_MASK, v != 0)) return;
        v = warp_sum(v);
        if (lane == 0 && v) atomicAdd(f + j, (u64)v);
    };
    auto deg = [&](int v) -> i64 { return __ldg(ptr + v + 1) - __ldg(ptr + v); };

    for (;;) {
        const u64 it = group_next_item(next, cp, &s_v, lane);
        if (it >= (u64)(uend - ubeg)) break;
        const int x = ubeg + (int)it;
        const i64 x0 = __ldg(ptr + x), x1 = __ldg(ptr + x + 1);
        const i64 dx = x1 - x0;
        if (dx == 0) continue;  // an isolated vertex: its row stays zero (group-uniform)

        // --- per x: posx; cx (paths x - a - v) and m (every u ∈ N(x), arc u -> v, w ∈ L(u -> v): m[v -> w] += 1)
        for (i64 q = x0 + gt; q < x1; q += gthreads) posx[__ldg(idx + q)] = (int)(q - x0) + 1;
        group_pairs(x0, x1, gw, gthreads, lane,
                    [&](i64 q, i64& lo, int& len) {
                        const int u = __ldg(idx + q);
                        lo = __ldg(ptr + u);
                        len = (int)(__ldg(ptr + u + 1) - lo);
                    },
                    [&](bool ok, i64, i64 e) {
                        if (!ok) return;
                        const int v = __ldg(idx + e);
                        if (v != x) atomicAdd(cx + v, 1);
                        for (i64 p = __ldg(tl_ptr + e); p < __ldg(tl_ptr + e + 1); ++p) atomicAdd(m + __ldg(tl_arc + p), 1);
                    });
        group_sync(cp);
        i64 sdeg = 0, scx = 0;  // Σ_{c ∈ N(x)} deg c, Σ_{c ∈ N(x)} cx[c]
        for (i64 q = x0 + gt; q < x1; q += gthreads) {
            const int c = __ldg(idx + q);
            sdeg += deg(c);
            scx += cx[c];
        }
        sdeg = group_sum(sdeg, cp, gw, gsize, lane, s_part);
        scx = group_sum(scx, cp, gw, gsize, lane, s_part);
        const i64 s1 = sdeg - dx;  // Σ_{b ∈ N(x)} (deg b - 1)
        // R7 (non-induced 3-star at x) + w ~ x: target 23
        if (gt == 0) atomicAdd(f + FO(23), (u64)(dx * (dx - 1) * (dx - 2) / 6 * (dx - 3)));

        for (i64 qa = x0; qa < x1; ++qa) {  // the neighbour a of x: one at a time, the whole group on it
            const int a = __ldg(idx + qa);
            const i64 a0 = __ldg(ptr + a), a1 = __ldg(ptr + a + 1);
            const i64 da = a1 - a0;
            const i64 t0 = __ldg(tl_ptr + qa), t1 = __ldg(tl_ptr + qa + 1);  // L(x -> a) = N(x) ∩ N(a)
            const i64 txa = __ldg(tri + qa);
            for (i64 r = a0 + gt; r < a1; r += gthreads) posa[__ldg(idx + r)] = (int)(r - a0) + 1;
            group_pairs(t0, t1, gw, gthreads, lane,
                        [&](i64 p, i64& lo, int& len) {
                            const int u = __ldg(tl_w + p);
                            lo = __ldg(ptr + u);
                            len = (int)(__ldg(ptr + u + 1) - lo);
                        },
                        [&](bool ok, i64, i64 s) {
                            if (ok) atomicAdd(cxa + __ldg(idx + s), 1);
                        });
            // Σ over N(x) ∩ N(a) of deg and of cx (sb of R5 and the first half of R11's excluded set)
            i64 edeg_a = 0, ecx_a = 0;
            for (i64 p = t0 + gt; p < t1; p += gthreads) {
                const int c = __ldg(tl_w + p);
                edeg_a += deg(c);
                ecx_a += cx[c];
            }
            edeg_a = group_sum(edeg_a, cp, gw, gsize, lane, s_part);
            ecx_a = group_sum(ecx_a, cp, gw, gsize, lane, s_part);
            group_sync(cp);  // posa, cxa complete

            if (gt == 0) {
                // R6 (non-induced: x - a, two more neighbours of a) + w ~ a: target 22
                atomicAdd(f + FO(22), (u64)((da - 1) * (da - 2) / 2 * (da - 3)));
                // R5 (non-induced path b - x - a - c) + w ~ b / a / x: targets 17, 20, 21
                const i64 npair = (dx - 1) * (da - 1) - txa;
                const i64 sb = edeg_a - txa;  // Σ_{b ∈ N(x) ∩ N(a)} (deg b - 1)
                atomicAdd(f + FO(17), (u64)((da - 1) * (s1 - (da - 1)) - sb));
                atomicAdd(f + FO(20), (u64)(npair * (da - 2)));
                atomicAdd(f + FO(21), (u64)(npair * (dx - 2)));
            }

            // R4 (induced path x - a - b - c) and R8 (induced 4-cycle x - a - b - c - x, c > a): the walks
            // a - b - c over b ∈ N(a) \ N[x]; kc[c] counts the b's of c, each c listed once in touched
            {
                i64 tot4 = 0, tot8 = 0, s18 = 0, s24 = 0, s27 = 0, s36 = 0, s50 = 0;
                group_pairs(a0, a1, gw, gthreads, lane,
                            [&](i64 rb, i64& lo, int& len) {
                                const int b = __ldg(idx + rb);
                                if (b == x || posx[b]) return;
                                lo = __ldg(ptr + b);
                                len = (int)(__ldg(ptr + b + 1) - lo);
                            },
                            [&](bool ok, i64 rb, i64 rc) {
                                if (!ok) return;
                                const int c = __ldg(idx + rc);
                                if (c == a || posa[c]) return;
                                const int b = __ldg(idx + rb);
                                if (posx[c]) {
                                    if (c > a) {  // R8: the 4-cycle x - a - b - c - x (b opposite to x)
                                        if (atomicAdd(kc + c, 1) == 0) touched[atomicAdd(nt, 1)] = c;
                                        s36 += deg(b) - 2;
                                        s50 += cx[b] - 2;
                                        ++tot8;
                                    }
                                    return;
                                }
                                if (c == x) return;
                                if (atomicAdd(kc + c, 1) == 0) touched[atomicAdd(nt, 1)] = c;  // R4
                                s18 += deg(b) - 2;
                                s24 += __ldg(tri + rb);
                                s27 += __ldg(tri + rc);
                                ++tot4;
                            });
                flush(FO(18), s18);
                flush(FO(24), s24);
                flush(FO(36), s36);
                flush(FO(50), s50);
                flush(FO(16), tot4 * (dx - 1));
                flush(FO(19), tot4 * (da - 2));
                flush(FO(27), s27);
                flush(FO(29), tot4 * txa);
                flush(FO(37), tot8 * (da - 2));
                flush(FO(38), tot8 * (dx - 2));
                flush(FO(53), tot8 * txa);
            }
            group_sync(cp);  // kc, touched, *nt complete
            {
                // per c touched: R4 ends c !~ x, R8 other neighbours c of x (the CPU's loop over touched)
                const int ntc = *nt;
                i64 s15 = 0, s34 = 0, s35 = 0, s37 = 0, s49 = 0, s52 = 0, s53 = 0, s64 = 0;
                for (int i = gt; i < ntc; i += gthreads) {
                    const int c = touched[i];
                    const i64 k = kc[c];
                    kc[c] = 0;
                    const i64 ca = cxa[c];
                    const int pc = posx[c];
                    if (pc) {
                        s37 += k * (deg(c) - 2);
                        s49 += k * (k + ca - 1);
                        s53 += k * __ldg(tri + x0 + pc - 1);
                        s64 += k * ca;
                    } else {
                        s15 += k * (deg(c) - 1);
                        s34 += k * cx[c];
                        s52 += k * ca;
                        s35 += k * (k + ca - 1);
                    }
                }
                flush(FO(15), s15);
                flush(FO(34), s34);
                flush(FO(35), s35);
                flush(FO(37), s37);
                flush(FO(49), s49);
                flush(FO(52), s52);
                flush(FO(53), s53);
                flush(FO(64), s64);
            }

            // R9: induced paw, x pendant at a, triangle a, b, c (b < c): b ∈ N(a) \ N[x], c ∈ L(a -> b)
            {
                i64 n9 = 0, s39 = 0, s45 = 0, s51 = 0, s56 = 0, s59 = 0, s62 = 0;
                group_pairs(a0, a1, gw, gthreads, lane,
                            [&](i64 rb, i64& lo, int& len) {
                                const int b = __ldg(idx + rb);
                                if (b == x || posx[b]) return;
                                lo = __ldg(tl_ptr + rb);
                                len = (int)(__ldg(tl_ptr + rb + 1) - lo);
                            },
                            [&](bool ok, i64 rb, i64 p) {
                                if (!ok) return;
                                const int b = __ldg(idx + rb);
                                const int c = __ldg(tl_w + p);
                                if (c <= b || c == x || posx[c]) return;
                                const i64 bc = __ldg(tl_arc + p);
                                ++n9;
                                s39 += (__ldg(tri + rb) - 1) + (__ldg(tri + a0 + posa[c] - 1) - 1);
                                s45 += __ldg(tri + bc) - 1;
                                s51 += (cx[b] - 1) + (cx[c] - 1);
                                s56 += __ldg(tl_k4 + p);
                                s59 += cxa[b] + cxa[c];
                                s62 += m[bc] - 1;
                            });
                flush(FO(28), n9 * (dx - 1));
                flush(FO(31), n9 * (da - 3));
                flush(FO(39), s39);
                flush(FO(43), n9 * txa);
                flush(FO(45), s45);
                flush(FO(51), s51);
                flush(FO(56), s56);
                flush(FO(59), s59);
                flush(FO(62), s62);
            }

            // R10: induced paw, x in the triangle x, a, b; pendant c at a (counted, not listed):
            // nc = da - txa - t_ab + cxa[b] per b ∈ L(x -> a)
            {
                i64 snc = 0, s25 = 0;
                for (i64 p = t0 + gt; p < t1; p += gthreads) {
                    const int b = __ldg(tl_w + p);
                    const i64 nc = da - txa - __ldg(tri + __ldg(tl_arc + p)) + cxa[b];
                    snc += nc;
                    s25 += nc * (deg(b) - 2);
                }
                flush(FO(25), s25);
                flush(FO(26), snc * (dx - 2));
                flush(FO(32), snc * (da - 3));
            }

            // R11: induced paw with x at the centre: edge a < b in N(x), c ∈ N(x) adjacent to neither. The
            // excluded c of b: L(x -> a) (every b the same: txa vertices, edeg_a, ecx_a) and L(x -> b) \ N(a)
            // (summed per pair (b, c) here); nc = dx - ne. The CPU's "nc == 0: skip" changes nothing (nc = 0
            // leaves the three terms zero), so each feature is linear in the pair sums:
            // f30 += Σ_b (sdeg - edeg - nc), f33 += Σ_b nc·(dx - 3), f44 += Σ_b (scx - ecx)
            {
                i64 nb = 0, ene = 0, edeg = 0, ecx = 0;
                group_pairs(t0, t1, gw, gthreads, lane,
                            [&](i64 p, i64& lo, int& len) {
                                const int b = __ldg(tl_w + p);
                                if (b <= a) return;
                                ++nb;
                                const i64 qb = x0 + posx[b] - 1;
                                lo = __ldg(tl_ptr + qb);
                                len = (int)(__ldg(tl_ptr + qb + 1) - lo);
                            },
                            [&](bool ok, i64, i64 p2) {
                                if (!ok) return;
                                const int c = __ldg(tl_w + p2);
                                if (posa[c]) return;
                                ++ene;
                                edeg += deg(c);
                                ecx += cx[c];
                            });
                flush(FO(30), nb * (sdeg - edeg_a - dx + txa) - edeg + ene);
                flush(FO(33), (nb * (dx - txa) - ene) * (dx - 3));
                flush(FO(44), nb * (scx - ecx_a) - ecx);
            }

            // R12: induced diamond, x of degree 2: x ~ a, b; a ~ b; c ~ a, b; c !~ x (a < b)
            {
                i64 n12 = 0, s40 = 0, s46 = 0, s54 = 0, s60 = 0, s63 = 0, s65 = 0, s66 = 0, s68 = 0;
                group_pairs(t0, t1, gw, gthreads, lane,
                            [&](i64 p, i64& lo, int& len) {
                                const int b = __ldg(tl_w + p);
                                if (b <= a) return;
                                const i64 ab = __ldg(tl_arc + p);
                                lo = __ldg(tl_ptr + ab);
                                len = (int)(__ldg(tl_ptr + ab + 1) - lo);
                            },
                            [&](bool ok, i64 p, i64 p2) {
                                if (!ok) return;
                                const int c = __ldg(tl_w + p2);
                                if (c == x || posx[c]) return;
                                const int b = __ldg(tl_w + p);
                                const i64 ab = __ldg(tl_arc + p);
                                const i64 bc = __ldg(tl_arc + p2);
                                ++n12;
                                s40 += deg(b) - 3;                                 // + (da - 3) per pair
                                s46 += deg(c) - 2;
                                s54 += __ldg(tri + ab) - 2;
                                s60 += __ldg(tri + x0 + posx[b] - 1) - 1;          // tb - 1; + (txa - 1)
                                s63 += cx[c] - 2;
                                s65 += __ldg(tl_k4 + p2);
                                s66 += cxa[b];
                                s68 += (cxa[c] - 1) + (m[bc] - 1);
                            });
                flush(FO(40), n12 * (da - 3) + s40);
                flush(FO(46), s46);
                flush(FO(47), n12 * (dx - 2));
                flush(FO(54), s54);
                flush(FO(60), n12 * (txa - 1) + s60);
                flush(FO(63), s63);
                flush(FO(65), s65);
                flush(FO(66), s66);
                flush(FO(68), s68);
            }

            // R13: induced diamond, x of degree 3; a a degree-2 vertex, y (∈ L(x -> a)) the other degree-3
            // vertex, z (∈ L(x -> y)) the other degree-2 vertex (a < z, z !~ a)
            {
                i64 n13 = 0, s41 = 0, s48 = 0, s55 = 0, s61 = 0, s67 = 0, s69 = 0;
                group_pairs(t0, t1, gw, gthreads, lane,
                            [&](i64 p, i64& lo, int& len) {
                                const int y = __ldg(tl_w + p);
                                const i64 qy = x0 + posx[y] - 1;
                                lo = __ldg(tl_ptr + qy);
                                len = (int)(__ldg(tl_ptr + qy + 1) - lo);
                            },
                            [&](bool ok, i64 p, i64 p2) {
                                if (!ok) return;
                                const int z = __ldg(tl_w + p2);
                                if (z <= a || posa[z]) return;
                                const int y = __ldg(tl_w + p);
                                const i64 yz = __ldg(tl_arc + p2);
                                ++n13;
                                s41 += deg(y) - 3;
                                s48 += deg(z) - 2;                                 // + (da - 2) per pair
                                s55 += __ldg(tri + x0 + posx[y] - 1) - 2;          // ty - 2
                                s61 += __ldg(tri + x0 + posx[z] - 1) - 1;          // + (txa - 1) per pair
                                s67 += cxa[y] + m[yz];
                                s69 += cxa[z] - 1;
                            });
                flush(FO(41), s41);
                flush(FO(42), n13 * (dx - 3));
                flush(FO(48), n13 * (da - 2) + s48);
                flush(FO(55), s55);
                flush(FO(61), n13 * (txa - 1) + s61);
                flush(FO(67), s67);
                flush(FO(69), s69);
            }

            // R14: 4-clique x, a, b, c (a < b < c): b ∈ L(x -> a), c ∈ L(a -> b) ∩ N(x); the 5-cliques through
            // it: d ∈ L(b -> c) ∩ N(x) ∩ N(a), counted by the pair's thread
            {
                i64 n14 = 0, s57 = 0, s70 = 0, s71 = 0, s72 = 0;
                group_pairs(t0, t1, gw, gthreads, lane,
                            [&](i64 p, i64& lo, int& len) {
                                const int b = __ldg(tl_w + p);
                                if (b <= a) return;
                                const i64 ab = __ldg(tl_arc + p);
                                lo = __ldg(tl_ptr + ab);
                                len = (int)(__ldg(tl_ptr + ab + 1) - lo);
                            },
                            [&](bool ok, i64 p, i64 p2) {
                                if (!ok) return;
                                const int b = __ldg(tl_w + p);
                                const int c = __ldg(tl_w + p2);
                                if (c <= b || posx[c] == 0) return;
                                const i64 bc = __ldg(tl_arc + p2);
                                ++n14;
                                s57 += (deg(b) - 3) + (deg(c) - 3);               // + (da - 3) per pair
                                s70 += __ldg(tl_k4 + p2) - 1;
                                s71 += (cxa[b] - 1) + (cxa[c] - 1) + (m[bc] - 1);
                                i64 k5 = 0;
                                for (i64 p3 = __ldg(tl_ptr + bc); p3 < __ldg(tl_ptr + bc + 1); ++p3) {
                                    const int d = __ldg(tl_w + p3);
                                    if (posx[d] && posa[d]) ++k5;
                                }
                                s72 += k5;
                            });
                flush(FO(57), n14 * (da - 3) + s57);
                flush(FO(58), n14 * (dx - 3));
                flush(FO(70), s70);
                flush(FO(71), s71);
                flush(FO(72), s72);
            }

            group_sync(cp);  // every read of posa, cxa, *nt for this a is done
            // reset the per-a scratch
            group_pairs(t0, t1, gw, gthreads, lane,
                        [&](i64 p, i64& lo, int& len) {
                            const int u = __ldg(tl_w + p);
                            lo = __ldg(ptr + u);
                            len = (int)(__ldg(ptr + u + 1) - lo);
                        },
                        [&](bool ok, i64, i64 s) {
                            if (ok) cxa[__ldg(idx + s)] = 0;
                        });
            for (i64 r = a0 + gt; r < a1; r += gthreads) posa[__ldg(idx + r)] = 0;
            if (gt == 0) *nt = 0;
            group_sync(cp);
        }

        // reset the per-x scratch (every read of it is behind the last barrier) and write the row of x
        group_pairs(x0, x1, gw, gthreads, lane,
                    [&](i64 q, i64& lo, int& len) {
                        const int u = __ldg(idx + q);
                        lo = __ldg(ptr + u);
                        len = (int)(__ldg(ptr + u + 1) - lo);
                    },
                    [&](bool ok, i64, i64 e) {
                        if (!ok) return;
                        cx[__ldg(idx + e)] = 0;
                        for (i64 p = __ldg(tl_ptr + e); p < __ldg(tl_ptr + e + 1); ++p) m[__ldg(tl_arc + p)] = 0;
                    });
        for (i64 q = x0 + gt; q < x1; q += gthreads) posx[__ldg(idx + q)] = 0;
        for (int j = gt; j < O5_NFEAT; j += gthreads) {
            out[(i64)x * O5_NFEAT + j] = (i64)f[j];
            f[j] = 0;
        }
        group_sync(cp);
    }
}

// ------------------------------------------------------------------------------------------------ solve

// The orbits 15 .. 72 of every vertex v (out[v, j], n × 58) from its features feat[v, :] and its orbits 0 .. 14
// (low[v, :], n × 15): orbits5_cpu.back_substitute, one thread per vertex. Row j = order[t] in turn:
// s = feat[v, j] - glow[j, 0] - Σ_o glow[j, 1 + o] low[v, o] - Σ_e oval[e] out[v, ocol[e]] (e in optr[j] ..
// optr[j+1]: orbits solved earlier in the order), out[v, j] = s / diag[j]; *bad += the inexact divisions.
extern "C" __global__ void o5_solve(const i64* __restrict__ feat, const i64* __restrict__ low, int n,
                                    const i64* __restrict__ glow, const i64* __restrict__ diag,
                                    const i64* __restrict__ optr, const i64* __restrict__ ocol,
                                    const i64* __restrict__ oval, const i64* __restrict__ order, i64* out,
                                    u64* __restrict__ bad) {
    const i64 nthreads = (i64)gridDim.x * blockDim.x;
    for (i64 v = (i64)blockIdx.x * blockDim.x + threadIdx.x; v < n; v += nthreads) {
        const i64* Fv = feat + v * O5_NFEAT;
        const i64* lv = low + v * (O5_NLOW - 1);
        i64* ov = out + v * O5_NFEAT;
        u64 nbad = 0;
        for (int t = 0; t < O5_NFEAT; ++t) {
            const int j = (int)__ldg(order + t);
            const i64* g = glow + (i64)j * O5_NLOW;
            i64 s = __ldg(Fv + j) - __ldg(g);
            for (int o = 0; o < O5_NLOW - 1; ++o) s -= __ldg(g + 1 + o) * __ldg(lv + o);
            for (i64 e = __ldg(optr + j); e < __ldg(optr + j + 1); ++e) s -= __ldg(oval + e) * ov[__ldg(ocol + e)];
            const i64 d = __ldg(diag + j);
            const i64 qt = s / d;
            if (qt * d != s) ++nbad;
            ov[j] = qt;
        }
        if (nbad) atomicAdd(bad, nbad);
    }
}
