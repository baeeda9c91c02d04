// Motif census on the GPU (la_gpm.census(G, k, backend="gpu")).
//
// All kernels work on the degree-DESCENDING relabelling of G (vertex 0 has the largest degree,
// rows sorted), the same CSR as the CPU census, so the smallest id of a subgraph is its
// highest-degree vertex.
//
// census_esu: every connected induced k-vertex subgraph (k = 3..7; k = 8: census_esu8) exactly once, by ESU
//   (Wernicke 2006) rooted at its smallest vertex r. A work item is a forward arc (r, v1),
//   v1 > r: it fixes the first two vertices, and the rest of r's row after v1 is the rest of
//   ESU's first extension set, so level 0 is read straight from the CSR. Level p (1 <= p <= k-3)
//   holds ext_p as (vertex, adjacency mask to the chosen positions) pairs in the warp's slice of a
//   global buffer: ext_p = (rest of ext_{p-1}, masks updated with one binary search in N(x)) ++
//   (exclusive neighbours u > r of the new vertex x: not adjacent to any earlier position).
//   Warp-centric: the 32 lanes of a warp scan a candidate list together, compact with
//   ballot/popc (DuMato style, coalesced writes). The last vertex is never pushed: for the
//   vertex x at position k-2 each remaining candidate's class is table[code | mask << (k-1)(k-2)/2]
//   (class dictionary resident on the GPU, int16, 2^(k(k-1)/2) entries), and every exclusive
//   neighbour of x falls in one class, so it is only counted. Per-class counters live in shared
//   memory (lanes with the same class merged with __match_any_sync), flushed atomically at the end.
//   Work items come from an atomic counter (warps that finish early take the next arc).
//
// census_esu_directed: the same enumeration over the underlying undirected graph U of a directed graph
//   (la_gpm.motifs.directed.underlying: the same degree-descending relabelling, rows sorted), k = 3, 4.
//   dirs[j] (uint8, aligned with U's CSR) holds the directions of the arc w -> idx[j] of row w: bit 0 when
//   w -> idx[j] is an arc of the digraph, bit 1 when idx[j] -> w is (3: reciprocal). The kernel is the
//   undirected one instantiated with DIR = true (a compile-time switch, so census_esu is unchanged): masks
//   and codes carry two bits per position instead of one (bit 2i: position i -> the candidate, bit 2i+1: back),
//   read where the undirected kernel tests adjacency (binary_find gives the position in the row of the
//   earlier vertex, dirs[] there the two bits), and the code of a subset is the CPU's directed code
//   (la_gpm.motifs.directed: pair t = j(j-1)/2 + i at bits 2t, 2t+1), classified by the directed class
//   table (64 / 4096 entries). The exclusive neighbours of the last prefix vertex fall in three classes
//   (one per direction), counted with two ballots.
//
// census_esu8: census_esu at k = 8 (L2 = true), where one table over every 28-bit code would take 2^28 entries:
//   a leaf's class comes from the CPU's two-level lookup (la_gpm.motifs.census8): the 7-vertex prefix code c
//   gives its 7-vertex class cls7[c] and a relabelling perm7[c] onto that class's representative, and the leaf's
//   7-bit row q (its adjacency to positions 0..6) relabelled by it, qperm[perm7[c]][q], picks the 8-vertex
//   class cls8[cls7[c] * 128 + row]. c and the relabelling are read once per prefix (per esu_leaves call), one
//   byte and one int per leaf. 11,117 classes: the block's counters are u32 (44 KB of shared memory; as u64, 89
//   KB, two blocks an SM and 32 warps where the registers allow 48), each add that carries a counter past 2^31
//   moves 2^31 to the class's global u64 counter (add32: exactly one add crosses, so none is lost or counted
//   twice, and a counter stays below 2^32).
//
// census4_closed: the inputs of the k = 4 closed form (see closed_forms.closed_form_noninduced), one
//   warp per vertex u from an atomic counter, u's edges to larger ids v in turn, the lanes over
//   N(v): t_uv by binary search in N(u) (diamonds Σ C(t_e, 2)), triangles u < v < w with the sum of
//   their degrees, P4 base (d_u - 1)(d_v - 1), and the wedges u - v - w (w > u) counted in the
//   warp's slice of a dense counter array; a second pass reads-and-clears the counters and adds
//   C(c, 2) (4-cycles with u the smallest id, Chiba & Nishizeki).
#include "common.cuh"

#define CENSUS_MAX_K 8

__device__ __forceinline__ int tri_off(int j) { return j * (j - 1) / 2; }

// census_esu8's two-level class lookup (see the notes at the top); unused (null) by the other kernels
struct Lookup2 {
    const short* cls7;
    const short* perm7;
    const unsigned char* qperm;  // [5040][128]
    const int* cls8;             // [classes7][128]
};

// a (< 2^31) more hits of class cls on the block's u32 counter; the add that carries it past 2^31 moves 2^31 to
// the global u64 counter (census_esu8, see the notes at the top)
__device__ __forceinline__ void add32(unsigned int* sh32, u64* __restrict__ counts, int cls, unsigned int a) {
    const unsigned int old = atomicAdd(sh32 + cls, a);
    if (old < 0x80000000u && old + a >= 0x80000000u) {
        atomicAdd(counts + cls, (u64)0x80000000u);
        atomicSub(sh32 + cls, 0x80000000u);
    }
}

// one hit per lane with ok, of the class cls: lanes with the same class merged, one add32 per class
// (warp-collective; census_esu8's count_class, the class already looked up)
__device__ __forceinline__ void count_class_id32(bool ok, int cls, unsigned int* sh32, u64* __restrict__ counts) {
    const unsigned act = __ballot_sync(LA_FULL_MASK, ok);
    if (ok) {
        const unsigned same = __match_any_sync(act, cls);
        if ((same & lanes_below(threadIdx.x & 31)) == 0) add32(sh32, counts, cls, (unsigned int)__popc(same));
    }
}

// true when u is adjacent to none of the vertices whose rows are [slo[i], shi[i]), i < npos
__device__ __forceinline__ bool exclusive_of(const int* __restrict__ idx, const i64* slo, const i64* shi, int npos,
                                             int u) {
    for (int i = 0; i < npos; ++i)
        if (binary_contains(idx, slo[i], shi[i], u)) return false;
    return true;
}

// ext_pos = R (masks |= adjacency to x << pos) ++ exclusive neighbours u > r of x; returns its size.
// DIR (directed, census_esu_directed): two bits per position, the directions dirs[j] of the arc (x, u) found at
// position j of x's row; Rm == nullptr (level 0) takes the masks from Rd (the directions of r's row) instead of 1.
template <bool DIR>
__device__ __forceinline__ int esu_extend(const int* __restrict__ idx, const unsigned char* __restrict__ dirs,
                                          const int* Rv, const unsigned char* Rm, const unsigned char* __restrict__ Rd,
                                          int nR, i64 xlo, i64 xhi, int r, int pos, const i64* slo, const i64* shi,
                                          int* outv, unsigned char* outm, int lane) {
    const unsigned char bit = (unsigned char)(1u << pos);
    const int shift = 2 * pos;  // DIR: the bits of position pos
    const unsigned lower = lanes_below(lane);
    int cnt = 0;
    for (int base = 0; base < nR; base += 32) {
        const int i = base + lane;
        const bool ok = i < nR;
        int u = 0;
        unsigned char m = 1;
        if (ok) {
            u = Rv[i];
            if constexpr (DIR) {
                m = Rm ? Rm[i] : __ldg(Rd + i);
                const i64 j = binary_find(idx, xlo, xhi, u);
                if (j >= 0) m |= (unsigned char)(__ldg(dirs + j) << shift);
            } else {
                if (Rm) m = Rm[i];
                if (binary_contains(idx, xlo, xhi, u)) m |= bit;
            }
        }
        const unsigned b = __ballot_sync(LA_FULL_MASK, ok);
        if (ok) {
            const int at = cnt + __popc(b & lower);
            outv[at] = u;
            outm[at] = m;
        }
        cnt += __popc(b);
    }
    const i64 start = binary_upper_bound(idx, xlo, xhi, r);
    for (i64 base = start; base < xhi; base += 32) {
        const i64 j = base + lane;
        bool ok = false;
        int u = 0;
        if (j < xhi) {
            u = __ldg(idx + j);
            ok = exclusive_of(idx, slo, shi, pos, u);
        }
        const unsigned b = __ballot_sync(LA_FULL_MASK, ok);
        if (ok) {
            const int at = cnt + __popc(b & lower);
            outv[at] = u;
            if constexpr (DIR) outm[at] = (unsigned char)(__ldg(dirs + j) << shift);
            else outm[at] = bit;
        }
        cnt += __popc(b);
    }
    __syncwarp();
    return cnt;
}

// the leaves under positions 0..pos (pos = k-2, x at pos): every candidate of R and every exclusive
// neighbour u > r of x completes one connected induced k-subgraph. DIR: as esu_extend; the exclusive
// neighbours fall in three classes by the direction d = dirs[j] of (x, u): two ballots (bit 0, bit 1)
// count each d.
template <bool DIR, bool L2>
__device__ __forceinline__ void esu_leaves(const int* __restrict__ idx, const unsigned char* __restrict__ dirs,
                                           const short* __restrict__ table, const Lookup2 lk, const int* Rv,
                                           const unsigned char* Rm, const unsigned char* __restrict__ Rd, int nR,
                                           i64 xlo, i64 xhi, int r, int pos, int code, const i64* slo,
                                           const i64* shi, unsigned long long* sh, u64* __restrict__ counts,
                                           int lane) {
    constexpr int B = DIR ? 2 : 1;  // code bits per vertex pair
    const int off = B * tri_off(pos + 1);
    unsigned int* sh32 = reinterpret_cast<unsigned int*>(sh);  // L2: u32 counters (see the notes at the top)
    // L2 (k = 8): the prefix's 8-vertex class row block and its relabelling of a leaf's row, once per prefix
    const unsigned char* qp = nullptr;
    const int* c8 = nullptr;
    if constexpr (L2) {
        qp = lk.qperm + (i64)__ldg(lk.perm7 + code) * 128;
        c8 = lk.cls8 + (i64)__ldg(lk.cls7 + code) * 128;
    }
    for (int base = 0; base < nR; base += 32) {
        const int i = base + lane;
        const bool ok = i < nR;
        int m = 0;
        if (ok) {
            const int u = Rv[i];
            if constexpr (DIR) {
                m = Rm ? Rm[i] : __ldg(Rd + i);
                const i64 j = binary_find(idx, xlo, xhi, u);
                if (j >= 0) m |= (int)__ldg(dirs + j) << (2 * pos);
            } else {
                m = Rm ? Rm[i] : 1;
                if (binary_contains(idx, xlo, xhi, u)) m |= 1 << pos;
            }
        }
        if constexpr (L2) count_class_id32(ok, ok ? __ldg(c8 + __ldg(qp + m)) : 0, sh32, counts);
        else count_class(ok, table, code | (m << off), sh);
    }
    const i64 start = binary_upper_bound(idx, xlo, xhi, r);
    if constexpr (DIR) {
        unsigned long long ex[3] = {0, 0, 0};  // exclusive neighbours with d = 1 (x -> u), 2 (u -> x), 3 (both)
        for (i64 base = start; base < xhi; base += 32) {
            const i64 j = base + lane;
            int d = 0;
            if (j < xhi && exclusive_of(idx, slo, shi, pos, __ldg(idx + j))) d = __ldg(dirs + j);
            const unsigned b0 = __ballot_sync(LA_FULL_MASK, d & 1);
            const unsigned b1 = __ballot_sync(LA_FULL_MASK, d & 2);
            ex[0] += __popc(b0 & ~b1);
            ex[1] += __popc(b1 & ~b0);
            ex[2] += __popc(b0 & b1);
        }
        if (lane == 0)
            for (int d = 1; d <= 3; ++d)
                if (ex[d - 1]) atomicAdd(sh + __ldg(table + (code | ((d << (2 * pos)) << off))), ex[d - 1]);
    } else {
        unsigned long long ex = 0;
        for (i64 base = start; base < xhi; base += 32) {
            const i64 j = base + lane;
            const bool ok = j < xhi && exclusive_of(idx, slo, shi, pos, __ldg(idx + j));
            ex += __popc(__ballot_sync(LA_FULL_MASK, ok));
        }
        if (lane == 0 && ex) {
            if constexpr (L2) add32(sh32, counts, __ldg(c8 + __ldg(qp + (1 << pos))), (unsigned int)ex);
            else atomicAdd(sh + __ldg(table + (code | ((1 << pos) << off))), ex);
        }
    }
    __syncwarp();
}

// upper bound on |ext_1| of each forward arc (r, v1): the rest of N(r) after v1 plus N(v1) above r;
// items[e] = ceil(bound / S) work items for split = S (see census_esu)
extern "C" __global__ void esu_item_counts(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                           const int* __restrict__ wsrc, const i64* __restrict__ warc, i64 nwork,
                                           int S, i64* __restrict__ items) {
    for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < nwork; e += (i64)gridDim.x * blockDim.x) {
        const int r = __ldg(wsrc + e);
        const i64 a = __ldg(warc + e);
        const int v1 = __ldg(idx + a);
        const i64 vhi = __ldg(ptr + v1 + 1);
        const i64 b = (__ldg(ptr + r + 1) - a - 1) + (vhi - binary_upper_bound(idx, __ldg(ptr + v1), vhi, r));
        items[e] = (b + S - 1) / S;
    }
}

// Work items: split == 0: item e is forward arc e. split = S > 0 (k >= 5): forward arc e has
// offs[e+1] - offs[e] items, item c of it takes the choices c*S .. c*S+S-1 of ext_1 for position 2
// (ext_1 is rebuilt by each item: O(|ext_1|), against a subtree of O(|ext_1|^2) or more), so
// that the subtrees under two hubs spread over many warps instead of holding one to the end.
// DIR: the directed census (census_esu_directed, dirs aligned with idx; see the notes at the top).
template <bool DIR, bool L2>
__device__ __forceinline__ void census_esu_body(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                                const unsigned char* __restrict__ dirs,
                                                const int* __restrict__ wsrc, const i64* __restrict__ warc, i64 nwork,
                                                const i64* __restrict__ offs, i64 nitems, int split, int k,
                                                int n, int maxd, const short* __restrict__ table, const Lookup2 lk,
                                                int nclass,
                                                int* __restrict__ vbuf, unsigned char* __restrict__ mbuf,
                                                u64* __restrict__ next, u64* __restrict__ counts) {
    constexpr int B = DIR ? 2 : 1;  // code bits per vertex pair
    extern __shared__ unsigned long long sh[];
    unsigned int* sh32 = reinterpret_cast<unsigned int*>(sh);   // L2: u32 counters
    if constexpr (L2) zero_class_counters(sh32, nclass);
    else zero_class_counters(sh, nclass);
    const int lane = threadIdx.x & 31;
    const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    // level p (1..k-3) holds at most min((p+1) maxd, n) candidates
    i64 loff[CENSUS_MAX_K];
    i64 per_warp = 0;
    for (int p = 1; p <= k - 3; ++p) {
        loff[p] = per_warp;
        const i64 cap = (i64)(p + 1) * maxd;
        per_warp += cap < n ? cap : n;
    }
    int* wv = vbuf + warp * per_warp;
    unsigned char* wm = mbuf + warp * per_warp;
    i64 slo[CENSUS_MAX_K], shi[CENSUS_MAX_K];
    int sz[CENSUS_MAX_K], it[CENSUS_MAX_K], code[CENSUS_MAX_K];
    for (;;) {
        const u64 item = warp_next_item(next, lane);
        if (item >= (u64)nitems) break;
        i64 e = (i64)item;
        int first = 0, stop = 0x7fffffff;
        if (split) {
            e = segment_of(offs, (i64)0, nwork, (i64)item);  // the arc of this item
            first = (int)((i64)item - __ldg(offs + e)) * split;
            stop = first + split;
        }
        const int r = __ldg(wsrc + e);
        const i64 a = __ldg(warc + e);
        const int v1 = __ldg(idx + a);
        slo[0] = __ldg(ptr + r);
        shi[0] = __ldg(ptr + r + 1);
        slo[1] = __ldg(ptr + v1);
        shi[1] = __ldg(ptr + v1 + 1);
        const int* R0 = idx + a + 1;
        const int nR0 = (int)(shi[0] - a - 1);
        // level 0's masks (adjacency to r) and the code of the pair (r, v1): 1, or DIR their directions
        const unsigned char* R0d = DIR ? dirs + a + 1 : nullptr;
        const int code1 = DIR ? (int)__ldg(dirs + a) : 1;
        if (k == 3) {
            esu_leaves<DIR, L2>(idx, dirs, table, lk, R0, nullptr, R0d, nR0, slo[1], shi[1], r, 1, code1, slo, shi, sh,
                                counts, lane);
            continue;
        }
        code[1] = code1;
        sz[1] = esu_extend<DIR>(idx, dirs, R0, nullptr, R0d, nR0, slo[1], shi[1], r, 1, slo, shi, wv + loff[1],
                                wm + loff[1], lane);
        it[1] = first;
        const int lim1 = sz[1] < stop ? sz[1] : stop;
        int d = 1;
        while (d >= 1) {
            if (it[d] >= (d == 1 ? lim1 : sz[d])) { --d; continue; }
            const int* V = wv + loff[d];
            const unsigned char* M = wm + loff[d];
            const int x = V[it[d]];
            const int mx = M[it[d]];
            ++it[d];
            const int pos = d + 1;
            const int cx = code[d] | (mx << (B * tri_off(pos)));
            slo[pos] = __ldg(ptr + x);
            shi[pos] = __ldg(ptr + x + 1);
            const int nR = sz[d] - it[d];
            if (pos == k - 2) {
                esu_leaves<DIR, L2>(idx, dirs, table, lk, V + it[d], M + it[d], nullptr, nR, slo[pos], shi[pos], r,
                                    pos, cx, slo, shi, sh, counts, lane);
            } else {
                sz[d + 1] = esu_extend<DIR>(idx, dirs, V + it[d], M + it[d], nullptr, nR, slo[pos], shi[pos], r, pos,
                                            slo, shi, wv + loff[d + 1], wm + loff[d + 1], lane);
                code[d + 1] = cx;
                it[d + 1] = 0;
                ++d;
            }
        }
    }
    if constexpr (L2) flush_class_counters(sh32, nclass, counts);
    else flush_class_counters(sh, nclass, counts);
}

extern "C" __global__ void census_esu(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                      const int* __restrict__ wsrc, const i64* __restrict__ warc, i64 nwork,
                                      const i64* __restrict__ offs, i64 nitems, int split, int k,
                                      int n, int maxd, const short* __restrict__ table, int nclass,
                                      int* __restrict__ vbuf, unsigned char* __restrict__ mbuf,
                                      u64* __restrict__ next, u64* __restrict__ counts) {
    census_esu_body<false, false>(ptr, idx, nullptr, wsrc, warc, nwork, offs, nitems, split, k, n, maxd, table,
                                  Lookup2{nullptr, nullptr, nullptr, nullptr}, nclass, vbuf, mbuf, next, counts);
}

// k = 8: the two-level lookup (see the notes at the top) in place of the one-level table
extern "C" __global__ void census_esu8(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                       const int* __restrict__ wsrc, const i64* __restrict__ warc, i64 nwork,
                                       const i64* __restrict__ offs, i64 nitems, int split, int n, int maxd,
                                       const short* __restrict__ cls7, const short* __restrict__ perm7,
                                       const unsigned char* __restrict__ qperm, const int* __restrict__ cls8,
                                       int nclass, int* __restrict__ vbuf, unsigned char* __restrict__ mbuf,
                                       u64* __restrict__ next, u64* __restrict__ counts) {
    census_esu_body<false, true>(ptr, idx, nullptr, wsrc, warc, nwork, offs, nitems, split, 8, n, maxd, nullptr,
                                 Lookup2{cls7, perm7, qperm, cls8}, nclass, vbuf, mbuf, next, counts);
}

// The directed census (k = 3, 4) over the underlying graph U: one work item per forward arc of U (no split),
// dirs[j] the directions of U's arc j, table the directed class table (la_gpm.motifs.directed.directed_classes).
extern "C" __global__ void census_esu_directed(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                               const unsigned char* __restrict__ dirs,
                                               const int* __restrict__ wsrc, const i64* __restrict__ warc, i64 nwork,
                                               int k, int n, int maxd, const short* __restrict__ table, int nclass,
                                               int* __restrict__ vbuf, unsigned char* __restrict__ mbuf,
                                               u64* __restrict__ next, u64* __restrict__ counts) {
    census_esu_body<true, false>(ptr, idx, dirs, wsrc, warc, nwork, nullptr, nwork, 0, k, n, maxd, table,
                                 Lookup2{nullptr, nullptr, nullptr, nullptr}, nclass, vbuf, mbuf, next, counts);
}

// One forward edge (u, v) of the k = 4 closed forms, the lanes over N(v) (warp-collective): every w ~ u
// (in_nu(w)) closes the triangle u - v - w, counted in tri when w > v, and with `four` also its degree
// sum (tdeg) and on_tri(w); with `four` every w > u is one more wedge u - v - w in cnt[w].
// Returns t_uv = |N(u) ∩ N(v)|.
template <class InNu, class OnTri>
__device__ __forceinline__ u64 closed4_edge(const i64* __restrict__ ptr, const int* __restrict__ idx, int u, int v,
                                            i64 vlo, i64 vhi, i64 du, bool four, unsigned int* cnt, u64& tri,
                                            u64& tdeg, int lane, InNu in_nu, OnTri on_tri) {
    const i64 dv = vhi - vlo;
    u64 s = 0;
    for (i64 base = vlo; base < vhi; base += 32) {
        const i64 j = base + lane;
        bool hit = false;
        if (j < vhi) {
            const int w = __ldg(idx + j);
            hit = in_nu(w);
            if (hit && w > v) {
                ++tri;
                if (four) {
                    tdeg += (u64)(du + dv + (__ldg(ptr + w + 1) - __ldg(ptr + w)));
                    on_tri(w);
                }
            }
            if (four && w > u) atomicAdd(cnt + w, 1u);
        }
        s += __popc(__ballot_sync(LA_FULL_MASK, hit));
    }
    return s;
}

// The second pass of the k = 4 closed forms (warp-collective): u's forward neighbours idx[from], idx[from +
// step], ... below uhi, the lanes over their rows; every wedge counter cnt[w], w > u, is read and cleared.
// Returns this lane's share of Σ C(cnt[w], 2) (the 4-cycles with u the smallest id).
__device__ __forceinline__ u64 closed4_cycles(const i64* __restrict__ ptr, const int* __restrict__ idx, int u,
                                              i64 from, i64 uhi, int step, unsigned int* cnt, int lane) {
    u64 c4 = 0;
    for (i64 jj = from; jj < uhi; jj += step) {
        const int v = __ldg(idx + jj);
        const i64 vlo = __ldg(ptr + v), vhi = __ldg(ptr + v + 1);
        for (i64 j = vlo + lane; j < vhi; j += 32) {
            const int w = __ldg(idx + j);
            if (w > u) {
                const u64 x = atomicExch(cnt + w, 0u);
                c4 += x * (x - 1) / 2;
            }
        }
    }
    return c4;
}

// acc: [diamonds Σ C(t_e,2), 4-cycles, triangles, P4 base, Σ over triangles of vertex degrees]
// Vertices ubeg .. uend-1 from the counter next. coop == 0: each warp takes one vertex; coop == 1:
// the whole block takes one vertex (hubs: its warps split the vertex's edges; the block shares one
// wedge-counter slice), with the same two passes separated by block barriers.
extern "C" __global__ void census4_closed(const i64* __restrict__ ptr, const int* __restrict__ idx, int n,
                                          int ubeg, int uend, int coop, unsigned int* __restrict__ wedge,
                                          u64* __restrict__ next, u64* __restrict__ acc) {
    __shared__ int s_u;
    const int lane = threadIdx.x & 31;
    const int gsize = coop ? (int)(blockDim.x >> 5) : 1;              // warps per vertex
    const int gw = coop ? (int)(threadIdx.x >> 5) : 0;               // this warp's rank in its group
    const i64 group = coop ? (i64)blockIdx.x : (((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    unsigned int* cnt = wedge + group * (i64)n;
    u64 dia = 0, c4 = 0, tri = 0, p4 = 0, tdeg = 0;
    for (;;) {
        const u64 e = group_next_item(next, coop, &s_u, lane);
        if (e >= (u64)(uend - ubeg)) break;
        const int u = ubeg + (int)e;
        const i64 ulo = __ldg(ptr + u), uhi = __ldg(ptr + u + 1);
        const i64 du = uhi - ulo;
        const i64 first = binary_upper_bound(idx, ulo, uhi, u);
        for (i64 jj = first + gw; jj < uhi; jj += gsize) {
            const int v = __ldg(idx + jj);
            const i64 vlo = __ldg(ptr + v), vhi = __ldg(ptr + v + 1);
            if (lane == 0) p4 += (u64)((du - 1) * (vhi - vlo - 1));
            const u64 s = closed4_edge(ptr, idx, u, v, vlo, vhi, du, true, cnt, tri, tdeg, lane,
                                       [=](int w) { return binary_contains(idx, ulo, uhi, w); }, [](int) {});
            if (lane == 0) dia += s * (s - 1) / 2;
        }
        group_sync(coop);
        c4 += closed4_cycles(ptr, idx, u, first + gw, uhi, gsize, cnt, lane);
        group_sync(coop);
    }
    add_warp_sum(acc + 0, dia, lane);
    add_warp_sum(acc + 1, c4, lane);
    add_warp_sum(acc + 2, tri, lane);
    add_warp_sum(acc + 3, p4, lane);
    add_warp_sum(acc + 4, tdeg, lane);
}

// census_small: the k = 3 / 4 closed-form inputs of a SMALL graph in one launch, every counter in shared
//   memory, one block per vertex u (degree-descending ids, from the counter scratch[0]):
//   * a bitmap of N(u) in shared memory makes "w ~ u" one shared load (no binary search);
//   * u's forward edges (u, v), v > u, go to the block's warps in turn, the lanes over N(v): t_uv
//     (diamonds Σ C(t_e, 2)), triangles u < v < w with the sum of their degrees, P4 base
//     (d_u - 1)(d_v - 1), and the wedges u - v - w (w > u) counted in ONE shared counter array per
//     block (n words), read and cleared by a second pass: 4-cycles with u the smallest id;
//   * 4-cliques u < v < w < x: the warp's shared bitmap S of the triangle vertices w > v of (u, v), then
//     the rows of S's members above themselves are expanded over the 32 lanes (prefix sums by shuffles)
//     and each x tested in S: Σ_{w ∈ S} |N(w) ∩ S ∩ (w, n)|.
//   mode 3 computes the triangles only (no wedge counters, no S: the k = 3 census).
//   The block totals go to scratch[2..7] by atomics; the last block to finish (ticket scratch[1])
//   moves them to out[0..5] (diamonds, 4-cycles, triangles, P4 base, triangle degree sums, 4-cliques)
//   and leaves scratch all zero again, so the caller keeps one zeroed scratch per stream and a census
//   costs one launch and one 48-byte copy back.
//   Shared memory (dynamic): nwords words of N(u) bitmap, then (mode 4) warps × nwords of S bitmaps
//   and n wedge counters.
extern "C" __global__ void census_small(const i64* __restrict__ ptr, const int* __restrict__ idx, int n, int nwords,
                                        int mode, u64* __restrict__ scratch, u64* __restrict__ out) {
    extern __shared__ unsigned int smem[];
    __shared__ u64 s_acc[6];
    __shared__ int s_u;
    const int lane = threadIdx.x & 31;
    const int warp = threadIdx.x >> 5;
    const int nwarps = blockDim.x >> 5;
    const bool four = mode == 4;
    unsigned int* nu = smem;
    unsigned int* S = smem + nwords + warp * nwords;
    unsigned int* cnt = smem + nwords + nwarps * nwords;
    const int words = four ? nwords * (1 + nwarps) + n : nwords;
    for (int i = threadIdx.x; i < words; i += blockDim.x) smem[i] = 0u;
    if (threadIdx.x < 6) s_acc[threadIdx.x] = 0ULL;
    u64 dia = 0, c4 = 0, tri = 0, p4 = 0, tdeg = 0, k4 = 0;
    for (;;) {
        __syncthreads();                  // the previous vertex (or the zeroing) is done by every warp
        if (threadIdx.x == 0) s_u = (int)atomicAdd(scratch, 1ULL);
        __syncthreads();
        const int u = s_u;
        if (u >= n) break;
        const i64 ulo = __ldg(ptr + u), uhi = __ldg(ptr + u + 1);
        const i64 first = binary_upper_bound(idx, ulo, uhi, u);
        if (first == uhi) continue;       // no forward edge (block-uniform)
        const i64 du = uhi - ulo;
        for (i64 j = ulo + threadIdx.x; j < uhi; j += blockDim.x) {
            const int w = __ldg(idx + j);
            set_bit_atomic(nu, w);
        }
        __syncthreads();
        for (i64 jj = first + warp; jj < uhi; jj += nwarps) {
            const int v = __ldg(idx + jj);
            const i64 vlo = __ldg(ptr + v), vhi = __ldg(ptr + v + 1);
            if (lane == 0) p4 += (u64)((du - 1) * (vhi - vlo - 1));
            const u64 s = closed4_edge(ptr, idx, u, v, vlo, vhi, du, four, cnt, tri, tdeg, lane,
                                       [=](int w) { return bit_is_set(nu, w); }, [=](int w) { set_bit_atomic(S, w); });
            if (!four) continue;
            if (lane == 0) dia += s * (s - 1) / 2;
            __syncwarp();
            // 4-cliques: expand the rows of S's members above themselves over the lanes
            for (i64 base = vlo; base < vhi; base += 32) {
                const i64 j = base + lane;
                i64 lo = 0;
                int len = 0;
                if (j < vhi) {
                    const int w = __ldg(idx + j);
                    if (w > v && bit_is_set(S, w)) {
                        const i64 hi = __ldg(ptr + w + 1);
                        lo = binary_upper_bound(idx, __ldg(ptr + w), hi, w);
                        len = (int)(hi - lo);
                    }
                }
                warp_expand(lo, len, lane, [&](bool ok, int, i64 q) {
                    if (ok && bit_is_set(S, __ldg(idx + q))) ++k4;
                });
            }
            __syncwarp();
            for (i64 j = vlo + lane; j < vhi; j += 32) {
                const int w = __ldg(idx + j);
                if (w > v) S[w >> 5] = 0u;            // S holds members of N(v) above v only
            }
            __syncwarp();
        }
        __syncthreads();                  // pass 1 done: N(u) bitmap and counters complete
        for (i64 j = ulo + threadIdx.x; j < uhi; j += blockDim.x) nu[__ldg(idx + j) >> 5] = 0u;
        if (four) c4 += closed4_cycles(ptr, idx, u, first + warp, uhi, nwarps, cnt, lane);
    }
    add_warp_sum(s_acc + 0, dia, lane);
    add_warp_sum(s_acc + 1, c4, lane);
    add_warp_sum(s_acc + 2, tri, lane);
    add_warp_sum(s_acc + 3, p4, lane);
    add_warp_sum(s_acc + 4, tdeg, lane);
    add_warp_sum(s_acc + 5, k4, lane);
    __syncthreads();
    if (threadIdx.x == 0) {
        for (int i = 0; i < 6; ++i)
            if (s_acc[i]) atomicAdd(scratch + 2 + i, s_acc[i]);
        __threadfence();
        const u64 ticket = atomicAdd(scratch + 1, 1ULL);
        if (ticket == (u64)gridDim.x - 1) {   // the last block: every other block's sums are in
            __threadfence();
            for (int i = 0; i < 6; ++i) out[i] = atomicExch(scratch + 2 + i, 0ULL);
            atomicExch(scratch, 0ULL);
            atomicExch(scratch + 1, 0ULL);
        }
    }
}
