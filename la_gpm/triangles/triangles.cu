// Triangle counting on the degree-ordered DAG (vertices renamed by degree rank), written as the
// masked product C<U> = U·U with one row-pair (arc) per lane group: for the DAG arc e = (u, v) at
// position e of u's sorted out-list, the closing vertices are N+(u)[e+1 ..) ∩ N+(v) -- every
// w in N+(v) ranks above v, so the part of N+(u) up to v can never close a triangle (this halves
// the u side on average). A group of `group` lanes (a power of two <= 32) strides over the shorter
// of the two lists and binary-searches the longer one, so loads of the short list are coalesced.
// Each triangle is found once, at its lowest arc.
//
// With `pivots`, each group first loads `group` evenly spaced keys of the longer list into shared
// memory (the top log2(group) levels of every lane's binary search), so a search touches global
// memory only inside one bucket of len/group keys.
//
// `arcs` (optional) lists the arcs to visit: the host buckets arcs by work so that each bucket runs
// with a group width that fits it and arcs with no possible triangle are never visited.
#include "common.cuh"

#define TRI_MAX_BLOCK 1024

__device__ __forceinline__ bool search_with_pivots(const int* __restrict__ idx, i64 lo, i64 hi, int x,
                                                   const int* piv, int group) {
    // bucket j = [lo + j*len/group, lo + (j+1)*len/group); piv[j] = its last key
    const i64 len = hi - lo;
    int a = 0, b = group;  // first j with piv[j] >= x
    while (a < b) {
        const int m = (a + b) >> 1;
        if (piv[m] < x) a = m + 1; else b = m;
    }
    if (a == group) return false;
    const i64 blo = lo + (len * a) / group;
    const i64 bhi = lo + (len * (a + 1)) / group;
    return binary_contains(idx, blo, bhi, x);
}

template <typename ArcT>
__device__ __forceinline__ void tri_arcs_body(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                              const int* __restrict__ src, const ArcT* __restrict__ arcs,
                                              i64 narcs, int group, int pivots, u64* __restrict__ total,
                                              u64* __restrict__ per_vertex) {
    extern __shared__ int piv_all[];  // blockDim.x ints when pivots != 0
    const i64 tid = (i64)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane_g = (int)(tid & (group - 1));
    const i64 g = tid / group;
    const i64 ngroups = ((i64)gridDim.x * blockDim.x) / group;
    const int lane = threadIdx.x & 31;
    const unsigned gmask = group_lane_mask(group, lane);
    int* piv = piv_all + (threadIdx.x & ~(group - 1));
    u64 local = 0;
    for (i64 t = g; t < narcs; t += ngroups) {
        const i64 e = arcs ? (i64)arcs[t] : t;
        const int u = __ldg(src + e);
        const int v = __ldg(idx + e);
        i64 alo = e + 1, ahi = __ldg(ptr + u + 1), blo = __ldg(ptr + v), bhi = __ldg(ptr + v + 1);
        if (ahi - alo > bhi - blo) { i64 s = alo; alo = blo; blo = s; s = ahi; ahi = bhi; bhi = s; }
        const bool use_piv = pivots && (bhi - blo) >= 4 * (i64)group;  // same on every lane of the group
        if (use_piv) {
            piv[lane_g] = __ldg(idx + blo + ((bhi - blo) * (lane_g + 1)) / group - 1);
            __syncwarp(gmask);
        }
        u64 c = 0;
        for (i64 i = alo + lane_g; i < ahi; i += group) {
            const int w = __ldg(idx + i);
            const bool hit = use_piv ? search_with_pivots(idx, blo, bhi, w, piv, group)
                                     : binary_contains(idx, blo, bhi, w);
            if (hit) {
                ++c;
                if (per_vertex) atomicAdd(per_vertex + w, 1ULL);
            }
        }
        if (use_piv) __syncwarp(gmask);  // pivots are overwritten by the group's next arc
        if (per_vertex && c) { atomicAdd(per_vertex + u, c); atomicAdd(per_vertex + v, c); }
        local += c;
    }
    add_warp_sum(total, local, lane);  // every lane of the warp reaches this point
}

// arcs listed as int32 (fewer bytes; fine below 2^31 arcs), as int64, or all arcs (arcs == NULL)
extern "C" __global__ void __launch_bounds__(TRI_MAX_BLOCK)
tri_count_arcs(const i64* __restrict__ ptr, const int* __restrict__ idx, const int* __restrict__ src,
               const int* __restrict__ arcs, i64 narcs, int group, int pivots, u64* __restrict__ total,
               u64* __restrict__ per_vertex) {
    tri_arcs_body<int>(ptr, idx, src, arcs, narcs, group, pivots, total, per_vertex);
}

extern "C" __global__ void __launch_bounds__(TRI_MAX_BLOCK)
tri_count_arcs64(const i64* __restrict__ ptr, const int* __restrict__ idx, const int* __restrict__ src,
                 const i64* __restrict__ arcs, i64 narcs, int group, int pivots, u64* __restrict__ total,
                 u64* __restrict__ per_vertex) {
    tri_arcs_body<i64>(ptr, idx, src, arcs, narcs, group, pivots, total, per_vertex);
}

// Hub rows (DAG out-degree >= the host's threshold): one block per hub u keeps N+(u) in a shared-memory
// hash table (open addressing, load <= 1/2, capacity 2^logcap chosen per hub) and takes the arcs (u, v)
// one warp each. A w in N+(v) ranks above v, so w in N+(u) lies in u's list after v: probing every w of
// N+(v) in the table counts exactly N+(u)[e+1 ..) ∩ N+(v), with coalesced loads of N+(v) and no
// search in global memory. Where N+(v) is much longer than u's tail (> kfactor times), the warp
// binary-searches the tail's keys in N+(v) instead. Hubs come sorted by work, heaviest first.
#define TRI_HUB_EMPTY (-1)

__device__ __forceinline__ unsigned tri_hash(int w, int logcap) {
    return ((unsigned)w * 2654435761u) >> (32 - logcap);
}

extern "C" __global__ void __launch_bounds__(TRI_MAX_BLOCK)
tri_count_hubs(const i64* __restrict__ ptr, const int* __restrict__ idx, const int* __restrict__ hubs,
               int nhubs, int kfactor, u64* __restrict__ total, u64* __restrict__ per_vertex) {
    extern __shared__ int tab[];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    u64 local = 0;
    for (int h = blockIdx.x; h < nhubs; h += gridDim.x) {
        const int u = hubs[h];
        const i64 ulo = __ldg(ptr + u), uhi = __ldg(ptr + u + 1);
        const int deg = (int)(uhi - ulo);
        int logcap = 6;
        while ((1 << logcap) < 2 * deg) ++logcap;
        const int cap = 1 << logcap, mask = cap - 1;
        for (int i = threadIdx.x; i < cap; i += blockDim.x) tab[i] = TRI_HUB_EMPTY;
        __syncthreads();
        for (int i = threadIdx.x; i < deg; i += blockDim.x) {
            const int w = __ldg(idx + ulo + i);
            unsigned s = tri_hash(w, logcap);
            while (atomicCAS(tab + s, TRI_HUB_EMPTY, w) != TRI_HUB_EMPTY) s = (s + 1) & mask;
        }
        __syncthreads();
        for (int j = warp; j < deg; j += nwarps) {
            const int v = __ldg(idx + ulo + j);
            const i64 vlo = __ldg(ptr + v), vhi = __ldg(ptr + v + 1);
            const i64 tail = deg - (j + 1);
            u64 c = 0;
            if (vhi - vlo <= (i64)kfactor * tail) {
                for (i64 i = vlo + lane; i < vhi; i += 32) {
                    const int w = __ldg(idx + i);
                    unsigned s = tri_hash(w, logcap);
                    int y;
                    while ((y = tab[s]) != TRI_HUB_EMPTY) {
                        if (y == w) {
                            ++c;
                            if (per_vertex) atomicAdd(per_vertex + w, 1ULL);
                            break;
                        }
                        s = (s + 1) & mask;
                    }
                }
            } else {
                for (i64 i = ulo + j + 1 + lane; i < uhi; i += 32) {
                    const int w = __ldg(idx + i);
                    if (binary_contains(idx, vlo, vhi, w)) {
                        ++c;
                        if (per_vertex) atomicAdd(per_vertex + w, 1ULL);
                    }
                }
            }
            if (per_vertex && c) { atomicAdd(per_vertex + u, c); atomicAdd(per_vertex + v, c); }
            local += c;
        }
        __syncthreads();  // the next hub overwrites the table
    }
    add_warp_sum(total, local, lane);
}

// Work of every arc: the length of the shorter list (0 = no triangle can close at this arc).
extern "C" __global__ void tri_arc_work(const i64* __restrict__ ptr, const int* __restrict__ idx,
                                        const int* __restrict__ src, i64 narcs, int* __restrict__ work) {
    for (i64 e = (i64)blockIdx.x * blockDim.x + threadIdx.x; e < narcs; e += (i64)gridDim.x * blockDim.x) {
        const int u = src[e], v = idx[e];
        const i64 a = ptr[u + 1] - (e + 1), b = ptr[v + 1] - ptr[v];
        const i64 w = a < b ? a : b;
        work[e] = (int)(w < 0x7fffffff ? w : 0x7fffffff);
    }
}
