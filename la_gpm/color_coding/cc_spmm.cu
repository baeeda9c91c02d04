// Color coding on the GPU: colorings, leaf tables and the SpMM B = A · M over row-major tables.
//
// A table holds nb colorings of the graph stacked as nb disjoint copies: row g*n + v is vertex v of
// copy g, and a neighbour u of v in copy g is row g*n + u.  Row-major layout makes a neighbour's
// colour sets one contiguous run, so the threads of a row read whole coalesced rows (the gather
// that cuSPARSE's column-major SpMM does not do well: see docs/color_coding.md).
#include "cc_common.cuh"

// colors[g*n + v] = hi32(splitmix64(keys[g] + v)) * k >> 32 (the CPU kernels' hash:
// la_gpm/color_coding/cpu_kernels.py)
extern "C" __global__ void cc_colors(const u64* __restrict__ keys, i64 rows, int n, int k,
                                     signed char* __restrict__ out) {
    for (i64 r = blockIdx.x * (i64)blockDim.x + threadIdx.x; r < rows; r += (i64)gridDim.x * blockDim.x) {
        i64 g = r / n;
        i64 v = r - g * n;
        u64 h = la_splitmix64(keys[g] + (u64)v);
        out[r] = (signed char)(((h >> 32) * (u64)k) >> 32);
    }
}

// One-hot leaf table (rows x k), masked by the vertex-label match when mask is given.
extern "C" __global__ void cc_leaf(const signed char* __restrict__ colors, i64 rows, int n, int k,
                                   const unsigned char* __restrict__ mask, int use_mask, REAL* __restrict__ out) {
    for (i64 r = blockIdx.x * (i64)blockDim.x + threadIdx.x; r < rows; r += (i64)gridDim.x * blockDim.x) {
        REAL* o = out + r * k;
        for (int c = 0; c < k; ++c) o[c] = (REAL)0;
        if (!use_mask || mask[r % n]) o[colors[r]] = (REAL)1;
    }
}

// out[row, :] = sum over neighbours u of X[u, :].  tpr threads per row (a power of two, 32..256),
// each owning columns lane, lane + tpr, lane + 2 tpr, lane + 3 tpr of a pass of 4 tpr columns.
// Rows go heaviest first (order = vertices by decreasing degree) so hubs do not form the tail.
#define CC_NPT 4
extern "C" __global__ void __launch_bounds__(256)
cc_spmm_rows(const i64* __restrict__ ptr, const int* __restrict__ idx, const int* __restrict__ order,
             int n, i64 rows, const REAL* __restrict__ X, int C, REAL* __restrict__ out, int tpr) {
    const int rpb = blockDim.x / tpr;
    const int lane = threadIdx.x % tpr;
    const i64 slot = blockIdx.x * (i64)rpb + threadIdx.x / tpr;
    if (slot >= rows) return;
    const i64 g = slot / n;
    const int v = order[slot - g * n];
    const i64 off = g * n;
    const i64 row = off + v;
    const i64 e0 = ptr[v], e1 = ptr[v + 1];
    for (int c0 = 0; c0 < C; c0 += CC_NPT * tpr) {
        REAL acc[CC_NPT];
#pragma unroll
        for (int q = 0; q < CC_NPT; ++q) acc[q] = (REAL)0;
        i64 e = e0;
        for (; e + 4 <= e1; e += 4) {  // four neighbours' loads in flight
            const REAL* b0 = X + ((i64)__ldg(idx + e) + off) * C;
            const REAL* b1 = X + ((i64)__ldg(idx + e + 1) + off) * C;
            const REAL* b2 = X + ((i64)__ldg(idx + e + 2) + off) * C;
            const REAL* b3 = X + ((i64)__ldg(idx + e + 3) + off) * C;
#pragma unroll
            for (int q = 0; q < CC_NPT; ++q) {
                int c = c0 + lane + q * tpr;
                if (c < C) acc[q] += (__ldg(b0 + c) + __ldg(b1 + c)) + (__ldg(b2 + c) + __ldg(b3 + c));
            }
        }
        for (; e < e1; ++e) {
            const REAL* b0 = X + ((i64)__ldg(idx + e) + off) * C;
#pragma unroll
            for (int q = 0; q < CC_NPT; ++q) {
                int c = c0 + lane + q * tpr;
                if (c < C) acc[q] += __ldg(b0 + c);
            }
        }
#pragma unroll
        for (int q = 0; q < CC_NPT; ++q) {
            int c = c0 + lane + q * tpr;
            if (c < C) out[row * C + c] = acc[q];
        }
    }
}

// Per-copy sums of a one-column table in double: out[g] = sum_v col[g*n + v] (one block per copy).
extern "C" __global__ void cc_block_sums(const REAL* __restrict__ col, int n, double* __restrict__ out) {
    __shared__ double part[32];
    const i64 g = blockIdx.x;
    double s = 0.0;
    for (int v = threadIdx.x; v < n; v += blockDim.x) s += (double)col[g * n + v];
    s = warp_sum(s);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = warp_sum(threadIdx.x < (blockDim.x >> 5) ? part[threadIdx.x] : 0.0);
        if (threadIdx.x == 0) out[g] = s;
    }
}

// ---------------------------------------------------------------------------------------------
// SpMM over rooted tables (layout "rooted"): Mp keeps, per row j, the Wp = C(k-1, p-1) colour sets
// that contain j's colour; the product keeps, per row i, the W = C(k-1, p) p-sets avoiding i's
// colour.  Q[(ci*k + cj)*W + u] is the column of a colour-cj neighbour holding the set of column u
// of a colour-ci row, or -1.  Only nnz·C(k-1, p-1) floats are gathered (p/k of the dense SpMM).
//
// Work items balance the hubs: item it covers arcs [lo, hi) of vertex v; dst >= 0 writes output
// row dst of the copy, dst < 0 writes partial row -1-dst, and cc_spmm_reduce adds a hub's partial
// rows in a fixed order (deterministic, no atomics).

// Work item `slot` of a rooted product, one per (copy, item): the copy g, the item it, the copy's first
// row off = g*n, the colour ci of the item's vertex, and dest, the row it writes (output row dst =
// item_dst[it] of the copy, or partial row -1 - dst when dst < 0).
struct CcItem {
    i64 g, it, off;
    int ci;
    REAL* dest;
};

__device__ __forceinline__ CcItem cc_item(i64 slot, i64 nitems, int n, const int* __restrict__ item_v,
                                          const int* __restrict__ item_dst, const signed char* __restrict__ colors,
                                          REAL* __restrict__ out, REAL* __restrict__ partial, int nchunks, int W) {
    CcItem I;
    I.g = slot / nitems;
    I.it = slot - I.g * nitems;
    I.off = I.g * n;
    I.ci = colors[I.off + item_v[I.it]];
    const int dst = item_dst[I.it];
    I.dest = dst >= 0 ? out + (I.off + dst) * (i64)W : partial + (I.g * nchunks + (i64)(-1 - dst)) * (i64)W;
    return I;
}

extern "C" __global__ void
cc_spmm_rooted(const int* __restrict__ idx, const int* __restrict__ item_v, const i64* __restrict__ item_lo,
               const i64* __restrict__ item_hi, const int* __restrict__ item_dst, i64 nitems, int nchunks,
               int n, i64 nbt, const signed char* __restrict__ colors, const int* __restrict__ Q, int k,
               const REAL* __restrict__ Mp, int Wp, REAL* __restrict__ out, REAL* __restrict__ partial, int W,
               int tpr) {
    const int rpb = blockDim.x / tpr;
    const int lane = threadIdx.x % tpr;
    const i64 slot = blockIdx.x * (i64)rpb + threadIdx.x / tpr;
    if (slot >= nbt * nitems) return;
    const CcItem I = cc_item(slot, nitems, n, item_v, item_dst, colors, out, partial, nchunks, W);
    const i64 off = I.off;
    REAL* dest = I.dest;
    const i64 e0 = item_lo[I.it], e1 = item_hi[I.it];
    const int* Qc = Q + (i64)I.ci * k * W;
    for (int c0 = 0; c0 < W; c0 += CC_NPT * tpr) {
        REAL acc[CC_NPT];
#pragma unroll
        for (int q = 0; q < CC_NPT; ++q) acc[q] = (REAL)0;
        i64 e = e0;
        for (; e + 4 <= e1; e += 4) {  // four neighbours' index, colour and gather chains in flight
            const i64 j0 = (i64)__ldg(idx + e) + off, j1 = (i64)__ldg(idx + e + 1) + off;
            const i64 j2 = (i64)__ldg(idx + e + 2) + off, j3 = (i64)__ldg(idx + e + 3) + off;
            const int* q0 = Qc + (i64)colors[j0] * W;
            const int* q1 = Qc + (i64)colors[j1] * W;
            const int* q2 = Qc + (i64)colors[j2] * W;
            const int* q3 = Qc + (i64)colors[j3] * W;
            const REAL* m0 = Mp + j0 * Wp;
            const REAL* m1 = Mp + j1 * Wp;
            const REAL* m2 = Mp + j2 * Wp;
            const REAL* m3 = Mp + j3 * Wp;
#pragma unroll
            for (int q = 0; q < CC_NPT; ++q) {
                const int u = c0 + lane + q * tpr;
                if (u < W) {
                    const int x0 = __ldg(q0 + u), x1 = __ldg(q1 + u), x2 = __ldg(q2 + u), x3 = __ldg(q3 + u);
                    const REAL a0 = x0 >= 0 ? __ldg(m0 + x0) : (REAL)0;
                    const REAL a1 = x1 >= 0 ? __ldg(m1 + x1) : (REAL)0;
                    const REAL a2 = x2 >= 0 ? __ldg(m2 + x2) : (REAL)0;
                    const REAL a3 = x3 >= 0 ? __ldg(m3 + x3) : (REAL)0;
                    acc[q] += (a0 + a1) + (a2 + a3);
                }
            }
        }
        for (; e < e1; ++e) {
            const i64 j0 = (i64)__ldg(idx + e) + off;
            const int* q0 = Qc + (i64)colors[j0] * W;
            const REAL* m0 = Mp + j0 * Wp;
#pragma unroll
            for (int q = 0; q < CC_NPT; ++q) {
                const int u = c0 + lane + q * tpr;
                if (u < W) {
                    const int x0 = __ldg(q0 + u);
                    if (x0 >= 0) acc[q] += __ldg(m0 + x0);
                }
            }
        }
#pragma unroll
        for (int q = 0; q < CC_NPT; ++q) {
            const int u = c0 + lane + q * tpr;
            if (u < W) dest[u] = acc[q];
        }
    }
}

// out row of hub h (in every copy) = sum of its partial rows hstart[h] .. hstart[h+1]-1, in order.
extern "C" __global__ void cc_spmm_reduce(const int* __restrict__ heavy_v, const int* __restrict__ hstart, int nheavy,
                                          int nchunks, int n, i64 nbt, const REAL* __restrict__ partial, int W,
                                          REAL* __restrict__ out) {
    const i64 total = nbt * nheavy * (i64)W;
    for (i64 t = blockIdx.x * (i64)blockDim.x + threadIdx.x; t < total; t += (i64)gridDim.x * blockDim.x) {
        const i64 gh = t / W;
        const int u = (int)(t - gh * W);
        const i64 g = gh / nheavy;
        const int h = (int)(gh - g * nheavy);
        REAL s = (REAL)0;
        for (int c = hstart[h]; c < hstart[h + 1]; ++c) s += partial[(g * nchunks + c) * (i64)W + u];
        out[(g * n + heavy_v[h]) * (i64)W + u] = s;
    }
}

// ---------------------------------------------------------------------------------------------
// Tiled SpMM over rooted tables: no Q lookup per arc.  A group of Gs = L*S threads owns one work
// item; its S slices take every S-th arc, the L lanes of a slice own the columns x = l, l + L, ...
// of the neighbour's row.  Each slice adds the neighbour's whole (contiguous, coalesced) row into
// the shared-memory tile T[s][cj][:] of the neighbour's colour cj: a thread always owns the same
// columns, so there are no races and no atomics.  Arcs with cj = ci add nothing (the output sets
// avoid ci) and are skipped.  After a group barrier, output column u of the row (a p-set avoiding
// ci) is the sum over its p colours c_m of T[c_m][x_m], x_m = column of the set minus c_m:
// R[(ci*p + m)*W + u] = c_m*Wp + x_m, summed in the fixed order (m, s), so results are
// deterministic.  The gathered rows are read whole, and the Q traffic of cc_spmm_rooted (one int
// per output column per arc) becomes p shorts per output column per row.
//
// Shared memory per block: (blockDim / Gs) groups x S x k x Wp REAL.  Group barriers are named
// barriers 1..8 (Gs >= 32, blockDim <= 256).
// (Measured against a variant with 4 x 4 loads in flight, no zeroing and per-slice colour masks:
// that one was 10-25% slower on Graph500 scale 20; docs/color_coding.md.)
__device__ __forceinline__ void cc_group_sync(int id, int count) {
    asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(count) : "memory");
}

// the dynamic shared memory of the tiled and sorted kernels (one declaration: they share it)
extern __shared__ __align__(16) unsigned char cc_tile_raw[];

#define CC_TARCS 4
extern "C" __global__ void __launch_bounds__(256)
cc_spmm_tiled(const int* __restrict__ idx, const int* __restrict__ item_v, const i64* __restrict__ item_lo,
              const i64* __restrict__ item_hi, const int* __restrict__ item_dst, i64 nitems, int nchunks, int n,
              i64 nbt, const signed char* __restrict__ colors, const unsigned short* __restrict__ R, int k, int p,
              const REAL* __restrict__ Mp, int Wp, REAL* __restrict__ out, REAL* __restrict__ partial, int W,
              int L, int S) {
    const int Gs = L * S;
    const int gpb = blockDim.x / Gs;
    const int grp = threadIdx.x / Gs;
    const int t = threadIdx.x - grp * Gs;
    const int s = t / L;
    const int l = t - s * L;
    const i64 slot = blockIdx.x * (i64)gpb + grp;
    if (slot >= nbt * nitems) return;  // the whole group leaves: its barrier is its own
    const int tile = S * k * Wp;
    REAL* Tg = reinterpret_cast<REAL*>(cc_tile_raw) + (i64)grp * tile;
    REAL* Ts = Tg + s * k * Wp;
    const CcItem I = cc_item(slot, nitems, n, item_v, item_dst, colors, out, partial, nchunks, W);
    const i64 off = I.off;
    const int ci = I.ci;
    REAL* dest = I.dest;
    const i64 e0 = item_lo[I.it], e1 = item_hi[I.it];
    if (e0 == e1) {
        for (int u = t; u < W; u += Gs) dest[u] = (REAL)0;
        return;
    }
    for (int z = t; z < tile; z += Gs) Tg[z] = (REAL)0;
    cc_group_sync(grp + 1, Gs);
    for (i64 e = e0 + s; e < e1; e += (i64)CC_TARCS * S) {
        int c[CC_TARCS];
        const REAL* m[CC_TARCS];
#pragma unroll
        for (int a = 0; a < CC_TARCS; ++a) {
            const i64 ea = e + (i64)a * S;
            c[a] = -1;
            m[a] = Mp;
            if (ea < e1) {
                const i64 j = (i64)__ldg(idx + ea) + off;
                const int cj = colors[j];
                if (cj != ci) {
                    c[a] = cj;
                    m[a] = Mp + j * Wp;
                }
            }
        }
#pragma unroll 2
        for (int x = l; x < Wp; x += L) {
            REAL val[CC_TARCS];
#pragma unroll
            for (int a = 0; a < CC_TARCS; ++a) val[a] = c[a] >= 0 ? __ldg(m[a] + x) : (REAL)0;
#pragma unroll
            for (int a = 0; a < CC_TARCS; ++a)
                if (c[a] >= 0) Ts[c[a] * Wp + x] += val[a];
        }
    }
    cc_group_sync(grp + 1, Gs);
    const unsigned short* Rc = R + (i64)ci * p * W;
    for (int u = t; u < W; u += Gs) {
        REAL acc = (REAL)0;
        for (int mm = 0; mm < p; ++mm) {
            const int f = Rc[mm * W + u];
            for (int ss = 0; ss < S; ++ss) acc += Tg[ss * k * Wp + f];
        }
        dest[u] = acc;
    }
}

// ---------------------------------------------------------------------------------------------
// Colour-sorted arcs (once per coloring, shared by every product of that coloring).
//
// cc_sort_arcs: one warp per (copy g, work item): a stable counting sort of the item's arcs by the
// neighbour's colour, dropping the arcs whose two colours are equal (they add to no output set of
// any rooted product).  sarc[g*nnz + lo + r] = (neighbour << 5) | colour of the r-th kept arc
// (r < kept[g*nitems + it]; n < 2^26, k <= 20 < 32); the rest of the item's range is left unwritten.
// Ranks come from warp ballots (lanes in arc order), so the order inside a colour is the CSR order:
// deterministic.
extern "C" __global__ void __launch_bounds__(256)
cc_sort_arcs(const int* __restrict__ idx, const int* __restrict__ item_v, const i64* __restrict__ item_lo,
             const i64* __restrict__ item_hi, i64 nitems, int n, i64 nnz, i64 nbt,
             const signed char* __restrict__ colors, int k, int* __restrict__ sarc, int* __restrict__ kept) {
    const int lane = threadIdx.x & 31;
    const i64 slot = (blockIdx.x * (i64)blockDim.x + threadIdx.x) >> 5;  // one per warp (blockDim % 32 == 0)
    if (slot >= nbt * nitems) return;
    const i64 g = slot / nitems;
    const i64 it = slot - g * nitems;
    const i64 off = g * n;
    const int ci = colors[off + item_v[it]];
    const i64 lo = item_lo[it], hi = item_hi[it];
    const unsigned lt = lanes_below(lane);
    int cnt = 0;  // lane c < k: kept arcs of colour c
    for (i64 e0 = lo; e0 < hi; e0 += 32) {
        const i64 e = e0 + lane;
        int c = -1;
        if (e < hi) {
            c = colors[off + __ldg(idx + e)];
            if (c == ci) c = -1;
        }
        for (int cc = 0; cc < k; ++cc) {
            const unsigned b = __ballot_sync(LA_FULL_MASK, c == cc);
            if (lane == cc) cnt += __popc(b);
        }
    }
    const int incl = warp_inclusive_sum(cnt, lane);
    int base = incl - cnt;  // lane c: first rank of colour c
    if (lane == 31) kept[slot] = incl;
    int* so = sarc + g * nnz + lo;
    for (i64 e0 = lo; e0 < hi; e0 += 32) {
        const i64 e = e0 + lane;
        int c = -1, j = 0;
        if (e < hi) {
            j = __ldg(idx + e);
            c = colors[off + j];
            if (c == ci) c = -1;
        }
        int pos = -1;
        for (int cc = 0; cc < k; ++cc) {
            const unsigned b = __ballot_sync(LA_FULL_MASK, c == cc);
            if (b) {
                const int bc = __shfl_sync(LA_FULL_MASK, base, cc);
                if (c == cc) pos = bc + __popc(b & lt);
                if (lane == cc) base += __popc(b);
            }
        }
        if (pos >= 0) so[pos] = (j << 5) | c;
    }
}

__device__ __forceinline__ void cc_cp_async16(void* smem, const void* gmem) {
    const unsigned s = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(s), "l"(gmem) : "memory");
}
__device__ __forceinline__ void cc_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::: "memory"); }
__device__ __forceinline__ void cc_cp_async_wait() { asm volatile("cp.async.wait_group 0;\n" ::: "memory"); }

#ifdef CC_DOUBLE
typedef double2 REAL2;
#else
typedef float2 REAL2;
#endif

// Sorted tiled SpMM over rooted tables (needs cc_sort_arcs of the same coloring).  A group of L
// lanes owns one work item; lane l owns the columns x = xb + V*(l + q*L) + v (q < NX, v < V) of every
// neighbour row (V = 2: one 8-byte vector load per q; needs Wp even).  The kept arcs come colour by
// colour, so a colour's rows are summed in registers (A arcs' loads in flight, full batches without
// bounds checks) and written once into the shared tile T[c][:] when the colour changes: no tile
// zeroing, no read-modify-write per arc, one packed (neighbour, colour) load per arc.  Colours
// without arcs are left out of the combine through a bit mask.  With RP > 0 the row's combine table
// R[ci] (p*W shorts, padded to RP) is staged in shared memory by cp.async while the arcs are
// gathered (RP = 0: read from global memory, where it does not fit).  Output u = sum over m < p
// (fixed order) of T[f], f = R[ci][m*W + u] = c_m*Wp + x_m, c_m = f / Wp through the multiplier
// magic = ceil(2^32 / Wp) (exact: f < 2^16).
// Shared memory per group: GB bytes = roundup16(k*Wp*sizeof(REAL)) + 2*RP.
template <int NX, int A, int V>
__device__ __forceinline__ void cc_spmm_sorted_impl(
    const int* __restrict__ sarc, const int* __restrict__ kept, const int* __restrict__ item_v,
    const i64* __restrict__ item_lo, const int* __restrict__ item_dst, i64 nitems, int nchunks, int n, i64 nnz,
    i64 nbt, const signed char* __restrict__ colors, const unsigned short* __restrict__ Rp, int RPg, int RP, int k,
    int p, u64 magic, const REAL* __restrict__ Mp, int Wp, REAL* __restrict__ out, REAL* __restrict__ partial, int W,
    int L, int GB) {
    const int gpb = blockDim.x / L;
    const int grp = threadIdx.x / L;
    const int l = threadIdx.x - grp * L;
    const i64 slot = blockIdx.x * (i64)gpb + grp;
    if (slot >= nbt * nitems) return;  // the whole group leaves: its barrier is its own
    unsigned char* gbase = cc_tile_raw + (i64)grp * GB;
    REAL* T = reinterpret_cast<REAL*>(gbase);
    const CcItem I = cc_item(slot, nitems, n, item_v, item_dst, colors, out, partial, nchunks, W);
    REAL* dest = I.dest;
    const int cnt = kept[slot];
    if (cnt == 0) {
        for (int u = l; u < W; u += L) dest[u] = (REAL)0;
        return;
    }
    const unsigned short* Rc = Rp + (i64)I.ci * RPg;
    if (RP > 0) {
        unsigned short* Rs = reinterpret_cast<unsigned short*>(gbase + (GB - 2 * RP));
        const uint4* src = reinterpret_cast<const uint4*>(Rc);
        uint4* dstR = reinterpret_cast<uint4*>(Rs);
        for (int z = l; z < RP / 8; z += L) cc_cp_async16(dstR + z, src + z);
        cc_cp_async_commit();
        Rc = Rs;
    }
    const int* ix = sarc + I.g * nnz + item_lo[I.it];
    const REAL* Mg = Mp + I.off * (i64)Wp;
    unsigned mask = 0;
    for (int xb = 0; xb < Wp; xb += NX * V * L) {
        unsigned xok = 0;  // bit q: columns xb + V*(l + q*L) .. + V-1 exist
#pragma unroll
        for (int q = 0; q < NX; ++q) xok |= (unsigned)(xb + V * (l + q * L) < Wp) << q;
        const REAL* Mx = Mg + xb + V * l;
        REAL* Tx = T + xb + V * l;
        REAL acc[NX][V];
#pragma unroll
        for (int q = 0; q < NX; ++q)
#pragma unroll
            for (int v = 0; v < V; ++v) acc[q][v] = (REAL)0;
        int cur = -1;
        auto batch = [&](int e, bool full) {
            int c[A];
            REAL val[A][NX][V];
#pragma unroll
            for (int a = 0; a < A; ++a) {
                const bool ok = full || e + a < cnt;
                const int w = ok ? __ldg(ix + e + a) : -1;
                c[a] = w < 0 ? -1 : (w & 31);
                const REAL* m = Mx + (i64)(w >> 5) * Wp;
#pragma unroll
                for (int q = 0; q < NX; ++q) {
                    const bool ld = ok && ((xok >> q) & 1u);
                    if constexpr (V == 2) {
                        REAL2 t;
                        t.x = (REAL)0;
                        t.y = (REAL)0;
                        if (ld) t = __ldg(reinterpret_cast<const REAL2*>(m + q * 2 * L));
                        val[a][q][0] = t.x;
                        val[a][q][1] = t.y;
                    } else {
                        val[a][q][0] = ld ? __ldg(m + q * L) : (REAL)0;
                    }
                }
            }
#pragma unroll
            for (int a = 0; a < A; ++a) {
                if (full || c[a] >= 0) {  // uniform over the group: every lane sees the same arcs
                    if (c[a] != cur) {
                        if (cur >= 0) {
#pragma unroll
                            for (int q = 0; q < NX; ++q) {
                                if ((xok >> q) & 1u) {
                                    REAL* t = Tx + cur * Wp + q * V * L;
                                    if constexpr (V == 2) {
                                        REAL2 z;
                                        z.x = acc[q][0];
                                        z.y = acc[q][1];
                                        *reinterpret_cast<REAL2*>(t) = z;
                                    } else {
                                        t[0] = acc[q][0];
                                    }
                                }
#pragma unroll
                                for (int v = 0; v < V; ++v) acc[q][v] = (REAL)0;
                            }
                        }
                        cur = c[a];
                        mask |= 1u << cur;
                    }
#pragma unroll
                    for (int q = 0; q < NX; ++q)
#pragma unroll
                        for (int v = 0; v < V; ++v) acc[q][v] += val[a][q][v];
                }
            }
        };
        int e = 0;
        for (; e + A <= cnt; e += A) batch(e, true);
        if (e < cnt) batch(e, false);
#pragma unroll
        for (int q = 0; q < NX; ++q) {
            if ((xok >> q) & 1u) {
                REAL* t = Tx + cur * Wp + q * V * L;
#pragma unroll
                for (int v = 0; v < V; ++v) t[v] = acc[q][v];
            }
        }
    }
    if (RP > 0) cc_cp_async_wait();
    cc_group_sync(grp + 1, L);
    for (int u = l; u < W; u += L) {
        REAL s = (REAL)0;
        for (int mm = 0; mm < p; ++mm) {
            const unsigned f = RP > 0 ? Rc[mm * W + u] : __ldg(Rc + mm * W + u);
            const unsigned cm = (unsigned)(((u64)f * magic) >> 32);
            if ((mask >> cm) & 1u) s += T[f];
        }
        dest[u] = s;
    }
}

#define CC_SORTED_KERNEL_MINB(NAME, NX, A, V, MINB)                                                                 \
    extern "C" __global__ void __launch_bounds__(256, MINB) NAME(                                                \
        const int* __restrict__ sarc, const int* __restrict__ kept, const int* __restrict__ item_v,              \
        const i64* __restrict__ item_lo, const int* __restrict__ item_dst, i64 nitems, int nchunks, int n,       \
        i64 nnz, i64 nbt, const signed char* __restrict__ colors, const unsigned short* __restrict__ Rp, int RPg, \
        int RP, int k, int p, u64 magic, const REAL* __restrict__ Mp, int Wp, REAL* __restrict__ out,            \
        REAL* __restrict__ partial, int W, int L, int GB) {                                                      \
        cc_spmm_sorted_impl<NX, A, V>(sarc, kept, item_v, item_lo, item_dst, nitems, nchunks, n, nnz, nbt,      \
                                      colors, Rp, RPg, RP, k, p, magic, Mp, Wp, out, partial, W, L, GB);         \
    }
// cc_spmm_sorted_<NX>x<A>[v2]; minimum blocks per SM (float, double): caps the registers without spills
#ifdef CC_DOUBLE
#define CC_SORTED_KERNEL(NAME, NX, A, V, MINB_F, MINB_D) CC_SORTED_KERNEL_MINB(NAME, NX, A, V, MINB_D)
#else
#define CC_SORTED_KERNEL(NAME, NX, A, V, MINB_F, MINB_D) CC_SORTED_KERNEL_MINB(NAME, NX, A, V, MINB_F)
#endif
CC_SORTED_KERNEL(cc_spmm_sorted_4x4, 4, 4, 1, 4, 2)
CC_SORTED_KERNEL(cc_spmm_sorted_2x8, 2, 8, 1, 3, 2)
CC_SORTED_KERNEL(cc_spmm_sorted_2x4v2, 2, 4, 2, 4, 2)
CC_SORTED_KERNEL(cc_spmm_sorted_4x2v2, 4, 2, 2, 4, 2)
CC_SORTED_KERNEL(cc_spmm_sorted_3x4v2, 3, 4, 2, 3, 2)
// (session 38) more columns a lane: the per-arc work (the packed arc's load, its colour, the row address) is
// shared by more loads; the kernel is bound by issued instructions, not bytes (ncu, u12 on Graph500 20)
CC_SORTED_KERNEL(cc_spmm_sorted_6x4, 6, 4, 1, 2, 2)
CC_SORTED_KERNEL(cc_spmm_sorted_8x2, 8, 2, 1, 3, 2)
CC_SORTED_KERNEL(cc_spmm_sorted_4x4v2, 4, 4, 2, 2, 1)
CC_SORTED_KERNEL(cc_spmm_sorted_6x2v2, 6, 2, 2, 3, 2)
