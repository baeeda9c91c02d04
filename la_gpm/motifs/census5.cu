// The 5-vertex hybrid census on the GPU (la_gpm.census(G, 5, backend="gpu", method="hybrid")),
// the port of hybrid.hybrid5_noninduced / cpu.dense5_hits. See docs/gpu_census.md.
//
// Every kernel works on the degree-DESCENDING relabelling of G (vertex 0 has the largest degree,
// rows sorted), so "u is the smallest id" means "u has the highest degree".
//
// Orbit-sum part (per-vertex inputs of the 4-vertex orbit closed forms, as vertex_closed_forms):
//   c5_arc_tri  t_e = |N(u) ∩ N(v)| of every arc, one warp per edge (both arcs written)
//   c5_vertex   per vertex v: Σ_w C(codeg(v,w), 2) (4-cycles through v), Σ_w C(codeg(v,w), 3) (K2,3
//               with v on the 2-side), diamond-wing sum Σ_{triangles vaw, a<w} (t_aw - 1): the 2-paths
//               v - a - w counted in a dense per-group counter slice (incremental C(x,2), C(x,3) from
//               the atomics' old values), N(v) marked in a per-group bitmap; hubs take a whole block
//   c5_k4       4-cliques through every vertex: each 4-clique v < a < w < x once from its forward arc
//               (v, a), through the common list C = N(v) ∩ N(a) ∩ (a, n)
// Dense part (each non-induced copy of C5, K2,3 and the bowtie once, classified by the 5-vertex class
// table; per-class counters in shared memory, merged with __match_any_sync):
//   c5_c5       C5 u - a - b - c - d - u with u the smallest id and a < d; item = (forward arc (u, a),
//               a chunk of S positions of b in N(a)); N(u) in the warp's bitmap; the (c, d) pairs under
//               one b are spread over the lanes (warp_expand)
//   c5_k23_pairs / c5_k23  hub pairs u < v with >= 3 common neighbours (codegree counters), then every
//               triple of their common list; a pair with a long list is split by its first element
//   c5_k23_bulk the K2,3 copies of a pair with many common neighbours counted per class without listing
//               them: from the edges, 2-paths and triangles inside G[common list]
//   c5_tri_lists / c5_bowtie  the edges inside N(u) (from each triangle, oriented), then every pair of
//               vertex-disjoint ones; item = one edge of the list
//   c5_bowtie_rows / c5_bowtie_bulk  the bowties of a hub with many edges inside N(u) counted per class
//               without listing them: from the induced 4-vertex graphs of G[N(u)] with a perfect matching,
//               their non-induced counts read off a bit matrix of G[N(u)]
#include "common.cuh"

#define C5_MAX_CLASS 32

// ------------------------------------------------------------------------------- orbit-sum part

// te[a] = |N(u) ∩ N(v)| for both arcs of every edge u < v (forward arc e: source fsrc[e], position fwd[e])
extern "C" __global__ void c5_arc_tri(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                      const int* __restrict__ fsrc, const i64* __restrict__ fwd, i64 nfwd,
                                      int* __restrict__ te) {
    const int lane = threadIdx.x & 31;
    const i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    for (i64 e = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; e < nfwd; e += nwarps) {
        const int u = __ldg(fsrc + e);
        const i64 a = __ldg(fwd + e);
        const int v = __ldg(idx + a);
        const i64 ul = __ldg(ptr + u), uh = __ldg(ptr + u + 1), vl = __ldg(ptr + v), vh = __ldg(ptr + v + 1);
        const bool ushort = uh - ul <= vh - vl;
        const i64 sl = ushort ? ul : vl, sh_ = ushort ? uh : vh, ll = ushort ? vl : ul, lh = ushort ? vh : uh;
        int c = 0;
        for (i64 j = sl + lane; j < sh_; j += 32) c += binary_contains(idx, ll, lh, __ldg(idx + j));
        c = warp_sum(c);
        if (lane == 0) {
            te[a] = c;
            te[binary_find(idx, vl, vh, u)] = c;
        }
    }
}

// Per-vertex sums over the arcs (a warp per vertex), the rest of the orbit inputs (closed_forms.noninduced_orbits):
// phase 0: out[3v ..] = (t_v = Σ t_vu / 2, s1 = Σ (d_u - 1), Σ C(d_u - 1, 2));
// phase 1 (prev = phase 0's output): out[4v ..] = (Σ C(t_vu, 2), Σ t_vu (d_u - 2), Σ (t_u - t_vu), Σ s1_u).
// Every term is >= 0 and every sum < 2^62 (common.check_safe), so u64 holds them exactly.
extern "C" __global__ void c5_vertex_sums(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                          const int* __restrict__ te, int n, int phase, const u64* __restrict__ prev,
                                          u64* __restrict__ out) {
    const int lane = threadIdx.x & 31;
    const i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    for (i64 v = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; v < n; v += nwarps) {
        const i64 vl = __ldg(ptr + v), vh = __ldg(ptr + v + 1);
        u64 a = 0, b = 0, c = 0, d = 0;
        for (i64 j = vl + lane; j < vh; j += 32) {
            const int u = __ldg(idx + j);
            const u64 t = (u64)__ldg(te + j);
            const u64 du = (u64)(__ldg(ptr + u + 1) - __ldg(ptr + u));
            if (phase == 0) {
                a += t;
                b += du - 1;
                c += (du - 1) * (du - 2) / 2;
            } else {
                a += t * (t - 1) / 2;
                b += t * (du - 2);          // du = 1 leaves t = 0
                c += __ldg(prev + 3 * (i64)u) - t;
                d += __ldg(prev + 3 * (i64)u + 1);
            }
        }
        a = warp_sum(a);
        b = warp_sum(b);
        c = warp_sum(c);
        d = warp_sum(d);
        if (lane == 0) {
            if (phase == 0) {
                out[3 * v] = a / 2;
                out[3 * v + 1] = b;
                out[3 * v + 2] = c;
            } else {
                out[4 * v] = a;
                out[4 * v + 1] = b;
                out[4 * v + 2] = c;
                out[4 * v + 3] = d;
            }
        }
    }
}

// out[3v .. 3v+2] += (Σ_w C(codeg,2), Σ_w C(codeg,3), wing sum) of vertices ubeg .. uend-1 (from next).
// coop == 0: a warp per vertex; coop == 1: a block per vertex (hubs), sharing one counter slice
// (n uint32) and one bitmap slice (nwords uint32), both left all-zero after every vertex.
extern "C" __global__ void c5_vertex(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                     const int* __restrict__ te, int n, int ubeg, int uend, int coop,
                                     unsigned int* __restrict__ cnt_all, unsigned int* __restrict__ bits_all,
                                     i64 nwords, u64* __restrict__ next, u64* __restrict__ out) {
    __shared__ int s_v;
    const int lane = threadIdx.x & 31;
    const int gsize = coop ? (int)(blockDim.x >> 5) : 1;
    const int gw = coop ? (int)(threadIdx.x >> 5) : 0;
    const int gthreads = gsize * 32, gt = gw * 32 + lane;
    const i64 group = coop ? (i64)blockIdx.x : (((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    unsigned int* cnt = cnt_all + group * (i64)n;
    unsigned int* bits = bits_all + group * nwords;
    for (;;) {
        const u64 it = group_next_item(next, coop, &s_v, lane);
        if (it >= (u64)(uend - ubeg)) break;
        const int v = ubeg + (int)it;
        const i64 vl = __ldg(ptr + v), vh = __ldg(ptr + v + 1);
        for (i64 j = vl + gt; j < vh; j += gthreads) {
            const int w = __ldg(idx + j);
            set_bit_atomic(bits, w);
        }
        group_sync(coop);
        u64 c4 = 0, k23 = 0, wing = 0;
        for (i64 base = vl + gw * 32; base < vh; base += gthreads) {
            const i64 j = base + lane;
            int a = 0, len = 0;
            i64 alo = 0;
            if (j < vh) {
                a = __ldg(idx + j);
                alo = __ldg(ptr + a);
                len = (int)(__ldg(ptr + a + 1) - alo);
            }
            warp_expand(alo, len, lane, [&](bool ok, int s, i64 q) {
                const int as = __shfl_sync(LA_FULL_MASK, a, s);
                if (!ok) return;
                const int w = __ldg(idx + q);
                if (w != v) {
                    const u64 x = atomicAdd(cnt + w, 1u);
                    c4 += x;
                    k23 += x * (x - 1) / 2;
                }
                if (w > as && bit_is_set(bits, w)) wing += (u64)(__ldg(te + q) - 1);
            });
        }
        group_sync(coop);
        for (i64 base = vl + gw * 32; base < vh; base += gthreads) {
            const i64 j = base + lane;
            int len = 0;
            i64 alo = 0;
            if (j < vh) {
                const int a = __ldg(idx + j);
                alo = __ldg(ptr + a);
                len = (int)(__ldg(ptr + a + 1) - alo);
            }
            warp_expand(alo, len, lane, [&](bool ok, int, i64 q) {
                if (ok) cnt[__ldg(idx + q)] = 0u;
            });
        }
        for (i64 j = vl + gt; j < vh; j += gthreads) bits[__ldg(idx + j) >> 5] = 0u;
        add_warp_sum(out + 3 * (i64)v, c4, lane);
        add_warp_sum(out + 3 * (i64)v + 1, k23, lane);
        add_warp_sum(out + 3 * (i64)v + 2, wing, lane);
        group_sync(coop);
    }
}

// k4[x] += 4-cliques through x: each clique v < a < w < x once, from the forward arc (v, a), with
// C = N(v) ∩ N(a) ∩ (a, n) in the warp's scratch (cap entries >= max degree)
extern "C" __global__ void c5_k4(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                 const int* __restrict__ fsrc, const i64* __restrict__ fwd, i64 nfwd,
                                 int* __restrict__ scratch, i64 cap, u64* __restrict__ next, u64* __restrict__ k4) {
    const int lane = threadIdx.x & 31;
    const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int* C = scratch + warp * cap;
    for (;;) {
        const u64 e = warp_next_item(next, lane);
        if (e >= (u64)nfwd) break;
        const int v = __ldg(fsrc + e);
        const int a = __ldg(idx + __ldg(fwd + e));
        const i64 vl = __ldg(ptr + v), vh = __ldg(ptr + v + 1), al = __ldg(ptr + a), ah = __ldg(ptr + a + 1);
        const int c = warp_intersect(idx, binary_upper_bound(idx, al, ah, a), ah, idx, vl, vh, C, lane);
        if (c < 2) continue;
        u64 tot = 0;
        for (int i = lane; i < c; i += 32) {
            const int y = C[i];
            const i64 yl = __ldg(ptr + y), yh = __ldg(ptr + y + 1);
            u64 inc = 0;
            if (yh - yl < (i64)c) {
                for (i64 q = yl; q < yh; ++q) inc += buffer_contains(C, 0, c, __ldg(idx + q));  // C: this warp's
            } else {
                for (int z = 0; z < c; ++z) inc += binary_contains(idx, yl, yh, C[z]);
            }
            if (inc) atomicAdd(k4 + y, inc);
            tot += inc;
        }
        tot = warp_sum(tot) / 2;
        if (lane == 0 && tot) {
            atomicAdd(k4 + v, tot);
            atomicAdd(k4 + a, tot);
        }
        __syncwarp();
    }
}

// ------------------------------------------------------------------------------- dense part

// mark (on) or clear (!on) the vertices of row v in a warp's bitmap. Warp-collective.
__device__ __forceinline__ void stamp_row(const i64* __restrict__ ptr, const int* __restrict__ idx, int v,
                                          unsigned int* bits, int lane, bool on) {
    for (i64 j = __ldg(ptr + v) + lane; j < __ldg(ptr + v + 1); j += 32) {
        const int w = __ldg(idx + j);
        if (on) set_bit_atomic(bits, w); else bits[w >> 5] = 0u;
    }
    __syncwarp();
}

// C5 copies u - a - b - c - d - u, u the smallest id, a < d. Item i of forward arc e (offs[e] <= i <
// offs[e+1]) takes b at positions S*(i - offs[e]) .. +S-1 of N(a). Every pair the copy does not fix is
// read from one of the warp's three bitmaps instead of searched (the CPU hybrid's stamp arrays):
// U = N(u) of its last item (u ~ b, u ~ c, u ~ d; cleared on a change of u), A = N(a) (a ~ c, a ~ d;
// stamped per item: measured cheaper than searching even under hubs, docs/gpu_census.md), B = N(b)
// (b ~ d; stamped per b). All-zero at the end.
extern "C" __global__ void c5_c5(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                 const int* __restrict__ fsrc, const i64* __restrict__ fwd, i64 nfwd,
                                 const i64* __restrict__ offs, i64 nitems, int S, const short* __restrict__ table,
                                 int nclass, unsigned int* __restrict__ bits_all, i64 nwords,
                                 u64* __restrict__ next, u64* __restrict__ counts) {
    __shared__ unsigned long long sh[C5_MAX_CLASS];
    zero_class_counters(sh, nclass);
    const int lane = threadIdx.x & 31;
    const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    unsigned int* bits = bits_all + warp * 3 * nwords;
    unsigned int* abits = bits + nwords;
    unsigned int* bbits = abits + nwords;
    int cur = -1;
    for (;;) {
        const u64 item = warp_next_item(next, lane);
        if (item >= (u64)nitems) break;
        const i64 e = segment_of(offs, (i64)0, nfwd, (i64)item);
        const int u = __ldg(fsrc + e);
        const int a = __ldg(idx + __ldg(fwd + e));
        if (u != cur) {
            if (cur >= 0) stamp_row(ptr, idx, cur, bits, lane, false);
            stamp_row(ptr, idx, u, bits, lane, true);
            cur = u;
        }
        const i64 al = __ldg(ptr + a), ah = __ldg(ptr + a + 1);
        stamp_row(ptr, idx, a, abits, lane, true);
        const i64 b0 = al + (i64)S * ((i64)item - __ldg(offs + e));
        const i64 b1 = b0 + S < ah ? b0 + S : ah;
        for (i64 jb = b0; jb < b1; ++jb) {
            const int b = __ldg(idx + jb);
            if (b <= u) continue;
            const i64 bl = __ldg(ptr + b), bh = __ldg(ptr + b + 1);
            const int ub = bit_is_set(bits, b) ? 2 : 0;        // bit 1: u ~ b
            stamp_row(ptr, idx, b, bbits, lane, true);
            for (i64 cbase = bl; cbase < bh; cbase += 32) {
                const i64 jc = cbase + lane;
                int c = 0, len = 0, cb = 0;
                i64 dlo = 0;
                if (jc < bh) {
                    c = __ldg(idx + jc);
                    if (c > u && c != a) {
                        const i64 cl = __ldg(ptr + c), ch = __ldg(ptr + c + 1);
                        dlo = binary_upper_bound(idx, cl, ch, a);
                        len = (int)(ch - dlo);
                        cb = (bit_is_set(bits, c) ? 8 : 0) | (bit_is_set(abits, c) ? 16 : 0);   // u~c, a~c
                    }
                }
                warp_expand(dlo, len, lane, [&](bool ok, int s, i64 q) {
                    const int cbs = __shfl_sync(LA_FULL_MASK, cb, s);
                    int code = 0;
                    bool hit = false;
                    if (ok) {
                        const int d = __ldg(idx + q);          // d > a > u, d ~ c
                        if (d != b && bit_is_set(bits, d)) {
                            hit = true;
                            // vertices (u, a, b, c, d): bit tri(j) + i for pair (i, j)
                            code = 1 | ub | 4 | cbs | 32 | 64 | 512;
                            if (bit_is_set(abits, d)) code |= 128;   // a ~ d
                            if (bit_is_set(bbits, d)) code |= 256;   // b ~ d
                        }
                    }
                    count_class(hit, table, code, sh);
                });
            }
            stamp_row(ptr, idx, b, bbits, lane, false);
        }
        stamp_row(ptr, idx, a, abits, lane, false);
    }
    __syncwarp();
    if (cur >= 0) stamp_row(ptr, idx, cur, bits, lane, false);
    flush_class_counters(sh, nclass, counts);
}

// hub pairs u < v with codeg(u, v) >= 3, u in ubeg .. uend-1: (pu, pv, pc) appended at an atomic slot
// (written only below cap; *npairs ends as the number found). Counter slices as in c5_vertex.
extern "C" __global__ void c5_k23_pairs(const i64* __restrict__ ptr, const int* __restrict__ idx, int n,
                                        int ubeg, int uend, int coop, unsigned int* __restrict__ cnt_all,
                                        u64* __restrict__ next, int* __restrict__ pu, int* __restrict__ pv,
                                        int* __restrict__ pc, u64* __restrict__ npairs, i64 cap) {
    __shared__ int s_u;
    const int lane = threadIdx.x & 31;
    const int gsize = coop ? (int)(blockDim.x >> 5) : 1;
    const int gw = coop ? (int)(threadIdx.x >> 5) : 0;
    const int gthreads = gsize * 32;
    const i64 group = coop ? (i64)blockIdx.x : (((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    unsigned int* cnt = cnt_all + group * (i64)n;
    for (;;) {
        const u64 it = group_next_item(next, coop, &s_u, lane);
        if (it >= (u64)(uend - ubeg)) break;
        const int u = ubeg + (int)it;
        const i64 ul = __ldg(ptr + u), uh = __ldg(ptr + u + 1);
        for (int pass = 0; pass < 2; ++pass) {
            for (i64 base = ul + gw * 32; base < uh; base += gthreads) {
                const i64 j = base + lane;
                int len = 0;
                i64 alo = 0;
                if (j < uh) {
                    const int a = __ldg(idx + j);
                    const i64 ah = __ldg(ptr + a + 1);
                    alo = binary_upper_bound(idx, __ldg(ptr + a), ah, u);     // v > u
                    len = (int)(ah - alo);
                }
                warp_expand(alo, len, lane, [&](bool ok, int, i64 q) {
                    if (!ok) return;
                    const int v = __ldg(idx + q);
                    if (pass == 0) {
                        atomicAdd(cnt + v, 1u);
                    } else {
                        const unsigned x = atomicExch(cnt + v, 0u);
                        if (x >= 3u) {
                            const u64 slot = atomicAdd(npairs, 1ULL);
                            if ((i64)slot < cap) {
                                pu[slot] = u;
                                pv[slot] = v;
                                pc[slot] = (int)x;
                            }
                        }
                    }
                });
            }
            group_sync(coop);
        }
    }
}

// L = N(u) ∩ N(v) in increasing order (the shorter row searched in the longer), its size returned;
// *uv = [u ~ v]. Warp-collective.
__device__ __forceinline__ int k23_common_list(const i64* __restrict__ ptr, const int* __restrict__ idx, int u, int v,
                                               int* L, int lane, int* uv) {
    const i64 ul = __ldg(ptr + u), uh = __ldg(ptr + u + 1), vl = __ldg(ptr + v), vh = __ldg(ptr + v + 1);
    const bool ushort = uh - ul <= vh - vl;
    const i64 sl = ushort ? ul : vl, sh_ = ushort ? uh : vh, ll = ushort ? vl : ul, lh = ushort ? vh : uh;
    const int c = warp_intersect(idx, sl, sh_, idx, ll, lh, L, lane);
    *uv = binary_contains(idx, sl, sh_, ushort ? v : u) ? 1 : 0;
    return c;
}

// the K2,3 kernels' work loop: items from the atomic counter; item i of pair p (offs over npairs pairs)
// rebuilds the pair's common list in L and calls f(c = |L|, uv = [u ~ v], i - offs[p], items of p).
// Warp-collective.
template <class F>
__device__ __forceinline__ void k23_items(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                          const int* __restrict__ pu, const int* __restrict__ pv, i64 npairs,
                                          const i64* __restrict__ offs, i64 nitems, int* L, int lane,
                                          u64* next, F f) {
    for (;;) {
        const u64 item = warp_next_item(next, lane);
        if (item >= (u64)nitems) break;
        const i64 p = segment_of(offs, (i64)0, npairs, (i64)item);
        int uv;
        const int c = k23_common_list(ptr, idx, __ldg(pu + p), __ldg(pv + p), L, lane, &uv);
        f(c, uv, (i64)item - __ldg(offs + p), __ldg(offs + p + 1) - __ldg(offs + p));
        __syncwarp();
    }
}

// every K2,3 with hubs (pu[p], pv[p]) and three of their common neighbours. Item i of pair p
// (offs[p] <= i < offs[p+1]): the pair's whole list when it has one item, else the triples whose
// first element is at position i - offs[p]. The common list is rebuilt in the warp's scratch.
extern "C" __global__ void c5_k23(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                  const int* __restrict__ pu, const int* __restrict__ pv, i64 npairs,
                                  const i64* __restrict__ offs, i64 nitems, const short* __restrict__ table,
                                  int nclass, int* __restrict__ scratch, i64 cap, u64* __restrict__ next,
                                  u64* __restrict__ counts) {
    __shared__ unsigned long long sh[C5_MAX_CLASS];
    zero_class_counters(sh, nclass);
    const int lane = threadIdx.x & 31;
    const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int* L = scratch + warp * cap;
    k23_items(ptr, idx, pu, pv, npairs, offs, nitems, L, lane, next, [&](int c, int uv, i64 pos, i64 nit) {
        const int i0 = nit == 1 ? 0 : (int)pos;
        const int i1 = nit == 1 ? c - 2 : i0 + 1;
        // vertices (u, v, x, y, z): u, v ~ x, y, z
        const int base_code = uv | 2 | 4 | 8 | 16 | 64 | 128;
        for (int i = i0; i < i1; ++i) {
            const int x = L[i];
            const i64 xl = __ldg(ptr + x), xh = __ldg(ptr + x + 1);
            for (int y = i + 1; y < c - 1; ++y) {
                const int yv = L[y];
                const i64 yl = __ldg(ptr + yv), yh = __ldg(ptr + yv + 1);
                const int cxy = base_code | (binary_contains(idx, xl, xh, yv) ? 32 : 0);
                for (int zb = y + 1; zb < c; zb += 32) {
                    const int z = zb + lane;
                    int code = 0;
                    if (z < c) {
                        const int zv = L[z];
                        code = cxy | (binary_contains(idx, xl, xh, zv) ? 256 : 0)
                                   | (binary_contains(idx, yl, yh, zv) ? 512 : 0);
                    }
                    count_class(z < c, table, code, sh);
                }
            }
        }
    });
    flush_class_counters(sh, nclass, counts);
}

// K2,3 copies of hub pairs with many common neighbours, counted per class without listing them (the
// CPU hybrid's bulk rule, motif_kernels.dense5_hits): the class of {u, v, x, y, z} depends only on u ~ v
// and on the number of edges among x, y, z, so with e edges, P two-edge paths and t triangles inside
// G[L] (L the common list, c = |L|) the triples with 3 / 2 / 1 / 0 edges number
//     t,   P - 3t,   e(c - 2) - 2P + 3t,   C(c, 3) - e(c - 2) + P - t.
// Item i of pair p (offs[p] <= i < offs[p+1]) takes the x = L[j], j in [xc·(i - offs[p]), +xc): the edges
// from x to later positions of L, C(d_L(x), 2) and the triangles with x first; these terms are linear,
// so each item adds its own share and the pair's first item adds C(c, 3). u64 arithmetic is modulo
// 2^64: a share may be "negative", the totals are not. rows[4·[u ~ v] + edges] = the class (host table).
// Scratch per warp: 2·cap ints (L, then the forward neighbours of one x inside L).
extern "C" __global__ void c5_k23_bulk(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                       const int* __restrict__ pu, const int* __restrict__ pv, i64 npairs,
                                       const i64* __restrict__ offs, i64 nitems, int xc,
                                       const i64* __restrict__ rows, int* __restrict__ scratch, i64 cap,
                                       u64* __restrict__ next, u64* __restrict__ counts) {
    const int lane = threadIdx.x & 31;
    const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int* L = scratch + warp * 2 * cap;
    int* F = L + cap;
    const unsigned lower = lanes_below(lane);
    k23_items(ptr, idx, pu, pv, npairs, offs, nitems, L, lane, next, [&](int c, int uv, i64 pos, i64) {
        const i64 j0 = pos * xc;
        const i64 j1 = j0 + xc < (i64)c ? j0 + xc : (i64)c;
        u64 e = 0, P = 0, t = 0;                       // warp-uniform (sums of ballots)
        for (i64 j = j0; j < j1; ++j) {
            const int x = L[j];
            const i64 xl = __ldg(ptr + x), xh = __ldg(ptr + x + 1);
            u64 dx = 0;
            int nf = 0;
            for (int base = 0; base < c; base += 32) {
                const int q = base + lane;
                const bool ok = q < c && binary_contains(idx, xl, xh, L[q]);
                dx += __popc(__ballot_sync(LA_FULL_MASK, ok));
                const bool fw = ok && q > j;
                const unsigned bf = __ballot_sync(LA_FULL_MASK, fw);
                if (fw) F[nf + __popc(bf & lower)] = L[q];
                nf += __popc(bf);
            }
            __syncwarp();
            e += (u64)nf;
            P += dx * (dx - (dx > 0 ? 1 : 0)) / 2;
            for (int a = 0; a + 1 < nf; ++a) {
                const int y = F[a];
                const i64 yl = __ldg(ptr + y), yh = __ldg(ptr + y + 1);
                for (int b0 = a + 1; b0 < nf; b0 += 32) {
                    const int q = b0 + lane;
                    t += __popc(__ballot_sync(LA_FULL_MASK, q < nf && binary_contains(idx, yl, yh, F[q])));
                }
            }
            __syncwarp();
        }
        if (lane == 0) {
            const u64 cc = (u64)c, ec = e * (cc - 2);
            const u64 share[4] = {(j0 == 0 ? cc * (cc - 1) * (cc - 2) / 6 : 0ULL) - ec + P - t,
                                  ec - 2 * P + 3 * t, P - 3 * t, t};
            for (int k = 0; k < 4; ++k)
                if (share[k]) atomicAdd(counts + __ldg(rows + 4 * uv + k), share[k]);
        }
    });
}

// the edges inside N(x) of every vertex x in [u0, u1): list[toffs[x] - toffs[u0] + k] = (ea, eb), from each
// triangle x < y < z once (forward arc (x, y), z by binary search); fill[x] counts the entries written
// (an x with toffs[x + 1] == toffs[x] gets none)
extern "C" __global__ void c5_tri_lists(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                        const int* __restrict__ fsrc, const i64* __restrict__ fwd, i64 nfwd,
                                        const i64* __restrict__ toffs, int u0, int u1,
                                        unsigned long long* __restrict__ fill, int* __restrict__ ea,
                                        int* __restrict__ eb) {
    const int lane = threadIdx.x & 31;
    const i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    const i64 base0 = __ldg(toffs + u0);
    for (i64 e = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; e < nfwd; e += nwarps) {
        const int x = __ldg(fsrc + e);
        if (x >= u1) continue;           // warp-uniform; x < y < z, so every owner is >= x
        const int y = __ldg(idx + __ldg(fwd + e));
        const i64 xl = __ldg(ptr + x), xh = __ldg(ptr + x + 1), yh = __ldg(ptr + y + 1);
        for (i64 j = binary_upper_bound(idx, __ldg(ptr + y), yh, y) + lane; j < yh; j += 32) {
            const int z = __ldg(idx + j);
            if (!binary_contains(idx, xl, xh, z)) continue;
            const int own[3] = {x, y, z}, p[3] = {y, x, x}, q[3] = {z, z, y};
#pragma unroll
            for (int t = 0; t < 3; ++t) {
                // an owner whose list is given no room (a bowtie-bulk hub, counted by c5_bowtie_bulk) is skipped
                if (own[t] >= u0 && own[t] < u1 && __ldg(toffs + own[t] + 1) > __ldg(toffs + own[t])) {
                    const i64 at = __ldg(toffs + own[t]) - base0 + (i64)atomicAdd(fill + own[t], 1ULL);
                    ea[at] = p[t];
                    eb[at] = q[t];
                }
            }
        }
    }
}

// every pair of vertex-disjoint edges inside N(u), u in [u0, u1): item g = one list entry (a, b), paired
// with the entries after it in u's list
extern "C" __global__ void c5_bowtie(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                     const i64* __restrict__ toffs, int u0, int u1, const int* __restrict__ ea,
                                     const int* __restrict__ eb, const short* __restrict__ table, int nclass,
                                     u64* __restrict__ next, u64* __restrict__ counts) {
    __shared__ unsigned long long sh[C5_MAX_CLASS];
    zero_class_counters(sh, nclass);
    const int lane = threadIdx.x & 31;
    const i64 base0 = __ldg(toffs + u0);
    const i64 total = __ldg(toffs + u1) - base0;
    for (;;) {
        const u64 item = warp_next_item(next, lane);
        if (item >= (u64)total) break;
        const i64 g = (i64)item;
        const int u = segment_of(toffs, u0, u1, g + base0);  // the owner of entry g
        const i64 end = __ldg(toffs + u + 1) - base0;
        const int a = ea[g], b = eb[g];
        const i64 al = __ldg(ptr + a), ah = __ldg(ptr + a + 1), bl = __ldg(ptr + b), bh = __ldg(ptr + b + 1);
        for (i64 hb = g + 1; hb < end; hb += 32) {
            const i64 h = hb + lane;
            bool hit = false;
            int code = 0;
            if (h < end) {
                const int c = ea[h], d = eb[h];
                if (c != a && c != b && d != a && d != b) {
                    hit = true;
                    // vertices (u, a, b, c, d): u ~ all, a ~ b, c ~ d
                    code = 1 | 2 | 4 | 8 | 64 | 512;
                    if (binary_contains(idx, al, ah, c)) code |= 16;
                    if (binary_contains(idx, bl, bh, c)) code |= 32;
                    if (binary_contains(idx, al, ah, d)) code |= 128;
                    if (binary_contains(idx, bl, bh, d)) code |= 256;
                }
            }
            count_class(hit, table, code, sh);
        }
    }
    flush_class_counters(sh, nclass, counts);
}

// ---------------------------------------------------------------- bowtie copies in bulk (hub by hub)
//
// The bowties centred at a hub u are the pairs of disjoint edges of H = G[N(u)]; u + S (S a 4-set of N(u))
// is the cone over H[S] and holds one bowtie per perfect matching of H[S], so the hub's bowtie hits per
// class follow from the induced 2K2, P4, C4, paw, diamond and K4 of H (motif_kernels._bowtie_bulk; the
// inversion is on the host). Here H is a bit matrix over the local ids 0 .. d_u - 1 (positions in N(u)):
// hub h's row i at bits + boff[h] + i·W, W = ceil(d_u / 32). Rows are numbered over the batch of hubs:
// row r belongs to hub h with roffs[h] <= r < roffs[h+1], local id i = r - roffs[h].

// row r of a batch: its hub's index h (returned), the hub *u, the local id *i and the words per row *W
__device__ __forceinline__ i64 hub_row(const i64* __restrict__ ptr, const int* __restrict__ hubs, i64 nh,
                                       const i64* __restrict__ roffs, i64 r, int* u, i64* i, i64* W) {
    const i64 h = segment_of(roffs, (i64)0, nh, r);
    *u = __ldg(hubs + h);
    *i = r - __ldg(roffs + h);
    *W = (__ldg(ptr + *u + 1) - __ldg(ptr + *u) + 31) >> 5;
    return h;
}

// row r of every hub's bit matrix (bit j: N(u)[i] ~ N(u)[j]) and ldeg[r] = d_H(N(u)[i]). One warp per row,
// the shorter of N(x) and N(u) scanned and searched in the other; bits zeroed by the caller.
extern "C" __global__ void c5_bowtie_rows(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                          const int* __restrict__ hubs, i64 nh, const i64* __restrict__ roffs,
                                          i64 nrows, const i64* __restrict__ boff, unsigned int* __restrict__ bits,
                                          int* __restrict__ ldeg) {
    const int lane = threadIdx.x & 31;
    const i64 nwarps = ((i64)gridDim.x * blockDim.x) >> 5;
    for (i64 r = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5; r < nrows; r += nwarps) {
        int u;
        i64 i, W;
        const i64 h = hub_row(ptr, hubs, nh, roffs, r, &u, &i, &W);
        const i64 ul = __ldg(ptr + u), uh = __ldg(ptr + u + 1);
        const int x = __ldg(idx + ul + i);
        const i64 xl = __ldg(ptr + x), xh = __ldg(ptr + x + 1);
        unsigned int* row = bits + __ldg(boff + h) + i * W;
        int cnt = 0;
        if (xh - xl <= uh - ul) {
            for (i64 j = xl + lane; j < xh; j += 32) {
                const i64 k = binary_find(idx, ul, uh, __ldg(idx + j));
                if (k >= 0) {
                    set_bit_atomic(row, k - ul);
                    ++cnt;
                }
            }
        } else {
            for (i64 k = ul + lane; k < uh; k += 32)
                if (binary_contains(idx, xl, xh, __ldg(idx + k))) {
                    set_bit_atomic(row, k - ul);
                    ++cnt;
                }
        }
        cnt = (int)warp_sum((u64)cnt);
        if (lane == 0) ldeg[r] = cnt;
    }
}

// the bits of word `w` of a row above local id `after` (all of them for words past it)
__device__ __forceinline__ unsigned above(unsigned word, i64 w, i64 after) {
    const i64 first = after + 1;
    if (w != (first >> 5)) return word;
    return word & ~((1u << (first & 31)) - 1u);
}

__device__ __forceinline__ int and_popc(const unsigned int* __restrict__ x, const unsigned int* __restrict__ y, i64 W) {
    int c = 0;
    for (i64 w = 0; w < W; ++w) c += __popc(__ldg(x + w) & __ldg(y + w));
    return c;
}

// per row x of a hub's H, the non-induced ingredients of _bowtie_bulk, summed into acc (u64):
//   acc[0] Σ_x C(d_x, 2)           acc[1] Σ_{edges xy} (d_x - 1)(d_y - 1)    acc[2] Σ_{edges} C(t_xy, 2)
//   acc[3] Σ_{edges} t_xy          acc[4] Σ_{edges} t_xy (d_x + d_y - 4)      acc[5] 4-cliques of H
//   acc[6] Σ_{x<z} C(codeg(x, z), 2)
// (t_xy = common neighbours of an edge inside H: every edge xy, x < y, from row x; a 4-clique x < y < w < z
// from its edge xy). Rows are work items from an atomic counter; lanes split the later rows / edges.
extern "C" __global__ void c5_bowtie_bulk(const i64* __restrict__ ptr, const int* __restrict__ hubs, i64 nh,
                                          const i64* __restrict__ roffs, i64 nrows, const i64* __restrict__ boff,
                                          const unsigned int* __restrict__ bits, const int* __restrict__ ldeg,
                                          u64* __restrict__ next, u64* __restrict__ acc) {
    const int lane = threadIdx.x & 31;
    for (;;) {
        const u64 item = warp_next_item(next, lane);
        if (item >= (u64)nrows) break;
        int u;
        i64 i, W;
        const i64 h = hub_row(ptr, hubs, nh, roffs, (i64)item, &u, &i, &W);
        const i64 D = __ldg(ptr + u + 1) - __ldg(ptr + u);
        const unsigned int* B = bits + __ldg(boff + h);
        const unsigned int* X = B + i * W;
        const int* dg = ldeg + __ldg(roffs + h);
        const i64 dx = __ldg(dg + i);
        u64 s[7] = {0, 0, 0, 0, 0, 0, 0};
        if (lane == 0) s[0] = (u64)(dx * (dx - 1) / 2);
        if (dx >= 2)
            for (i64 z = i + 1 + lane; z < D; z += 32)
                if (__ldg(dg + z) >= 2) {
                    const i64 c = and_popc(X, B + z * W, W);
                    s[6] += (u64)(c * (c - 1) / 2);
                }
        for (i64 wi = (i + 1) >> 5; wi < W; ++wi) {          // edges x < y, one lane per y of a word
            const unsigned word = above(__ldg(X + wi), wi, i);
            if (!((word >> lane) & 1u)) continue;
            const i64 y = wi * 32 + lane;
            const unsigned int* Y = B + y * W;
            const i64 dy = __ldg(dg + y);
            const i64 t = and_popc(X, Y, W);
            s[1] += (u64)((dx - 1) * (dy - 1));
            s[2] += (u64)(t * (t - 1) / 2);
            s[3] += (u64)t;
            s[4] += (u64)(t * (dx + dy - 4));               // t > 0 makes dx, dy >= 2
            if (t < 2) continue;
            for (i64 wj = (y + 1) >> 5; wj < W; ++wj) {     // 4-cliques x < y < w < z
                unsigned m = above(__ldg(X + wj) & __ldg(Y + wj), wj, y);
                while (m) {
                    const i64 w = wj * 32 + __ffs(m) - 1;
                    m &= m - 1;
                    const unsigned int* Wr = B + w * W;
                    for (i64 wk = (w + 1) >> 5; wk < W; ++wk)
                        s[5] += __popc(above(__ldg(X + wk) & __ldg(Y + wk) & __ldg(Wr + wk), wk, w));
                }
            }
        }
#pragma unroll
        for (int k = 0; k < 7; ++k) add_warp_sum(acc + k, s[k], lane);
    }
}
