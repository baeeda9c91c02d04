// Shared device helpers for la_gpm's CUDA kernels: searches in sorted lists, warp reductions and scans,
// warp work counters, warp stream compaction, bitmaps and per-class counters in shared memory.
// Compiled through CuPy (NVRTC) at run time and by nvcc for sm_90 in the test suite.
#pragma once

typedef long long i64;
typedef unsigned long long u64;

#define LA_FULL_MASK 0xffffffffu

// SplitMix64 finaliser of a counter: the one hash every random routine uses on CPU and GPU
// (la_gpm/primitives/rng.py), so a seed gives the same draws on every backend.
__device__ __forceinline__ u64 la_splitmix64(u64 x) {
    x += 0x9E3779B97F4A7C15ULL;
    u64 z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

// ------------------------------------------------------------------------------------------------
// Warps: lane masks, reductions, scans, work counters

// the lanes below `lane` as a ballot mask: a lane's rank among the lanes of a ballot m is __popc(m & lanes_below(lane))
__device__ __forceinline__ unsigned lanes_below(int lane) { return (1u << lane) - 1u; }

// the ballot mask of the `group` lanes (a power of two <= 32) of the aligned lane group that holds `lane`
__device__ __forceinline__ unsigned group_lane_mask(int group, int lane) {
    return (group == 32 ? LA_FULL_MASK : ((1u << group) - 1u)) << (lane & ~(group - 1));
}

// sum of v over the warp's 32 lanes, in lane 0 (the other lanes hold partial sums)
template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(LA_FULL_MASK, v, o);
    return v;
}

// lane 0 adds the warp's sum of v to *dst (one atomic, none when the sum is zero); warp-collective
__device__ __forceinline__ void add_warp_sum(u64* dst, u64 v, int lane) {
    v = warp_sum(v);
    if (lane == 0 && v) atomicAdd(dst, v);
}

// inclusive prefix sum over the lanes: lane l gets v_0 + ... + v_l (floating-point values are only added,
// never multiplied, so there is nothing to fuse: each step is one correctly rounded addition)
template <typename T>
__device__ __forceinline__ T warp_inclusive_sum(T v, int lane) {
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const T y = __shfl_up_sync(LA_FULL_MASK, v, o);
        if (lane >= o) v += y;
    }
    return v;
}

// the warp's next work item from the counter *next (lane 0 draws it, every lane gets it)
__device__ __forceinline__ u64 warp_next_item(u64* next, int lane) {
    u64 it = 0;
    if (lane == 0) it = atomicAdd(next, 1ULL);
    return __shfl_sync(LA_FULL_MASK, it, 0);
}

// The next work item of a thread group: the warp's (coop false), or the whole block's (coop true: thread 0
// draws it into *slot, an int in shared memory, between two block barriers; every thread must call).
__device__ __forceinline__ u64 group_next_item(u64* next, bool coop, int* slot, int lane) {
    if (coop) {
        if (threadIdx.x == 0) *slot = (int)atomicAdd(next, 1ULL);
        __syncthreads();
        const u64 it = (u64)*slot;
        __syncthreads();
        return it;
    }
    return warp_next_item(next, lane);
}

// the barrier of such a group: the block's (coop) or the warp's
__device__ __forceinline__ void group_sync(bool coop) {
    if (coop) __syncthreads(); else __syncwarp();
}

// the segment of `item` in a prefix-sum array of segment starts: the largest e in [lo, hi) with
// offs[e] <= item (lo when none)
template <typename I>
__device__ __forceinline__ I segment_of(const i64* __restrict__ offs, I lo, I hi, i64 item) {
    hi -= 1;
    while (lo < hi) {
        const I mid = (lo + hi + 1) >> 1;
        if (__ldg(offs + mid) <= item) lo = mid; else hi = mid - 1;
    }
    return lo;
}

// ------------------------------------------------------------------------------------------------
// Binary searches in a sorted range a[lo, hi), for any element type T, index type I and key type K.
// binary_*: arrays that no thread writes during the launch (the CSR, tables), read through the read-only
// data cache (const __restrict__ pointers, __ldg). buffer_*: a list the kernel itself writes (a warp's
// buffer), read with plain loads through a plain pointer.

// how a search reads its array: the pointer type and the load
struct LdgLoad {
    template <typename T>
    using ptr = const T* __restrict__;
    template <typename T>
    __device__ __forceinline__ static T at(const T* p) { return __ldg(p); }
};
struct PlainLoad {
    template <typename T>
    using ptr = const T*;
    template <typename T>
    __device__ __forceinline__ static T at(const T* p) { return *p; }
};

// the loops behind them, for either kind of load (T given explicitly)
template <typename Load, typename T, typename I, typename K, typename R, class Found>
__device__ __forceinline__ R search_eq(typename Load::template ptr<T> a, I lo, I hi, K x, R none, Found found) {
    while (lo < hi) {  // three-way: found(mid) for a mid with a[mid] == x, else none
        const I mid = (lo + hi) >> 1;
        const T y = Load::at(a + mid);
        if (y == x) return found(mid);
        if (y < x) lo = mid + 1; else hi = mid;
    }
    return none;
}
template <typename Load, typename T, typename I, typename K>
__device__ __forceinline__ I search_lower_bound(typename Load::template ptr<T> a, I lo, I hi, K x) {
    while (lo < hi) {
        const I mid = (lo + hi) >> 1;
        if (Load::at(a + mid) < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// index of x in the sorted range a[lo, hi), or -1
template <typename T, typename I, typename K>
__device__ __forceinline__ I binary_find(const T* __restrict__ a, I lo, I hi, K x) {
    return search_eq<LdgLoad, T>(a, lo, hi, x, (I)-1, [](I mid) { return mid; });
}

// true when x occurs in the sorted range a[lo, hi)
template <typename T, typename I, typename K>
__device__ __forceinline__ bool binary_contains(const T* __restrict__ a, I lo, I hi, K x) {
    return search_eq<LdgLoad, T>(a, lo, hi, x, false, [](I) { return true; });
}
template <typename T, typename I, typename K>
__device__ __forceinline__ bool buffer_contains(const T* a, I lo, I hi, K x) {
    return search_eq<PlainLoad, T>(a, lo, hi, x, false, [](I) { return true; });
}

// first position p in the sorted range a[lo, hi) with a[p] >= x (hi when none)
template <typename T, typename I, typename K>
__device__ __forceinline__ I binary_lower_bound(const T* __restrict__ a, I lo, I hi, K x) {
    return search_lower_bound<LdgLoad, T>(a, lo, hi, x);
}
template <typename T, typename I, typename K>
__device__ __forceinline__ I buffer_lower_bound(const T* a, I lo, I hi, K x) {
    return search_lower_bound<PlainLoad, T>(a, lo, hi, x);
}

// first position p in the sorted range a[lo, hi) with a[p] > x (hi when none)
template <typename T, typename I, typename K>
__device__ __forceinline__ I binary_upper_bound(const T* __restrict__ a, I lo, I hi, K x) {
    while (lo < hi) {
        const I mid = (lo + hi) >> 1;
        if (__ldg(a + mid) <= x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// A lower bound that the whole warp searches together (every lane passes the same arguments and gets the
// result): 32 probes per step cut the range 33-fold, so a search over a row of a few hundred elements takes
// two dependent loads instead of eight. Plain loads (a may be a buffer the kernel writes).
template <typename T>
__device__ __forceinline__ i64 warp_lower_bound(const T* a, i64 lo, i64 hi, i64 x, int lane) {
    while (hi - lo > 32) {
        const i64 n = hi - lo;
        const i64 p = lo + n * (lane + 1) / 33;  // strictly increasing in lane since n >= 33
        const unsigned m = __ballot_sync(LA_FULL_MASK, (i64)a[p] < x);
        const int c = __popc(m);  // probes below x (a prefix of the lanes: a is sorted)
        const i64 nlo = c ? lo + n * c / 33 + 1 : lo;
        const i64 nhi = c < 32 ? lo + n * (c + 1) / 33 : hi;
        lo = nlo;
        hi = nhi;
    }
    const i64 p = lo + lane;
    return lo + __popc(__ballot_sync(LA_FULL_MASK, p < hi && (i64)a[p] < x));
}

// u ~ v in a CSR graph with sorted rows: the other vertex searched in the shorter row (u's on a tie)
__device__ __forceinline__ bool csr_adjacent(const i64* __restrict__ ptr, const int* __restrict__ idx, int u, int v) {
    if (ptr[u + 1] - ptr[u] > ptr[v + 1] - ptr[v]) {
        const int t = u;
        u = v;
        v = t;
    }
    return binary_contains(idx, ptr[u], ptr[u + 1], v);
}

// ------------------------------------------------------------------------------------------------
// Warp-collective loops over a range

// Stream compaction over the positions i in [lo, hi), 32 at a time (lane l takes base + l): x = get(i) is
// kept when keep(x), and the kept values are written to out[0..) in order (ranked by a ballot). A round
// writes only below the end of what it read, so out may be the input itself (starting at position 0).
// Returns how many were kept (the same on every lane).
template <typename I, class Get, class Keep>
__device__ __forceinline__ int warp_filter(I lo, I hi, int* out, int lane, Get get, Keep keep) {
    int cnt = 0;
    for (I base = lo; base < hi; base += 32) {
        const I i = base + lane;
        int x = 0;
        bool ok = false;
        if (i < hi) {
            x = get(i);
            ok = keep(x);
        }
        const unsigned m = __ballot_sync(LA_FULL_MASK, ok);
        if (ok) out[cnt + __popc(m & lanes_below(lane))] = x;
        cnt += __popc(m);
    }
    __syncwarp();
    return cnt;
}

// out[0..) = the elements of the sorted list a[lo, hi) that the sorted row idx[rlo, rhi) also holds, in order
// (one binary search per lane, compacted by ballot); returns how many (the same on every lane). a is read
// through Load (PlainLoad where it may be a buffer of the kernel's own).
template <typename Load = LdgLoad, typename I>
__device__ __forceinline__ int warp_intersect(const int* a, I lo, I hi, const int* __restrict__ idx, i64 rlo, i64 rhi,
                                              int* out, int lane) {
    return warp_filter(lo, hi, out, lane, [=](I i) { return Load::at(a + i); },
                       [=](int x) { return binary_contains(idx, rlo, rhi, x); });
}

// every (s, q) with s a lane holding a range [lo_s, lo_s + len_s) and q in that range, spread over the
// lanes: f(ok, s, q) is called by all 32 lanes together (ok false past the end)
template <class F>
__device__ __forceinline__ void warp_expand(i64 lo, int len, int lane, F f) {
    const int incl = warp_inclusive_sum(len, lane);
    const int total = __shfl_sync(LA_FULL_MASK, incl, 31);
    const int excl = incl - len;
    for (int base = 0; base < total; base += 32) {
        const int t = base + lane;
        int s = 0;
#pragma unroll
        for (int step = 16; step > 0; step >>= 1) {
            const int e = __shfl_sync(LA_FULL_MASK, excl, s + step);
            if (e <= t) s += step;
        }
        const i64 lo_s = __shfl_sync(LA_FULL_MASK, lo, s);
        const int ex_s = __shfl_sync(LA_FULL_MASK, excl, s);
        f(t < total, s, lo_s + (t - ex_s));
    }
}

// ------------------------------------------------------------------------------------------------
// Bitmaps of vertices (bit x of word x >> 5)

__device__ __forceinline__ bool bit_is_set(const unsigned* bits, int x) { return (bits[x >> 5] >> (x & 31)) & 1u; }

template <typename I>
__device__ __forceinline__ void set_bit_atomic(unsigned* bits, I x) {
    atomicOr(bits + (x >> 5), 1u << (x & 31));
}

// ------------------------------------------------------------------------------------------------
// Per-class counters in shared memory (the census kernels): sh[0 .. nclass) zeroed by the block at the
// start, lanes' hits merged per class, added to the global counts once per class at the end.

// (C: unsigned long long, or unsigned int where the block's counters would not fit shared memory as u64 --
// census_esu8, which moves 2^31 to the global counter as a u32 one passes it)
template <typename C>
__device__ __forceinline__ void zero_class_counters(C* sh, int nclass) {
    for (int c = threadIdx.x; c < nclass; c += blockDim.x) sh[c] = 0;
    __syncthreads();
}

template <typename C>
__device__ __forceinline__ void flush_class_counters(const C* sh, int nclass, u64* counts) {
    __syncthreads();
    for (int c = threadIdx.x; c < nclass; c += blockDim.x)
        if (sh[c]) atomicAdd(counts + c, (u64)sh[c]);
}

// one hit per lane with ok, of the class table[code]: lanes with the same class merged, one shared atomic
// per class (warp-collective)
__device__ __forceinline__ void count_class(bool ok, const short* __restrict__ table, int code,
                                            unsigned long long* sh) {
    const unsigned act = __ballot_sync(LA_FULL_MASK, ok);
    if (ok) {
        const int cls = __ldg(table + code);
        const unsigned same = __match_any_sync(act, cls);
        if ((same & lanes_below(threadIdx.x & 31)) == 0) atomicAdd(sh + cls, (unsigned long long)__popc(same));
    }
}
