// Shared device helpers for la_gpm's CUDA kernels (set intersection, warp reductions).
// Compiled through CuPy (NVRTC) at run time and by nvcc for sm_90 in the test suite.
#pragma once

typedef long long i64;
typedef unsigned long long u64;

#define LA_FULL_MASK 0xffffffffu

// SplitMix64 finaliser of a counter: the one hash every random routine uses on CPU and GPU
// (la_gpm/backends/cpu/rng.py), so a seed gives the same draws on every backend.
__device__ __forceinline__ u64 la_splitmix64(u64 x) {
    x += 0x9E3779B97F4A7C15ULL;
    u64 z = x;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

__device__ __forceinline__ u64 warp_sum_u64(u64 v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(LA_FULL_MASK, v, o);
    return v;
}

// true when x occurs in the sorted range a[lo, hi)
__device__ __forceinline__ bool binary_contains(const int* __restrict__ a, i64 lo, i64 hi, int x) {
    while (lo < hi) {
        i64 mid = (lo + hi) >> 1;
        int y = __ldg(a + mid);
        if (y == x) return true;
        if (y < x) lo = mid + 1; else hi = mid;
    }
    return false;
}

// first position p in the sorted range a[lo, hi) with a[p] >= x (hi when none)
__device__ __forceinline__ i64 binary_lower_bound(const int* __restrict__ a, i64 lo, i64 hi, int x) {
    while (lo < hi) {
        i64 mid = (lo + hi) >> 1;
        if (__ldg(a + mid) < x) lo = mid + 1; else hi = mid;
    }
    return lo;
}

// index of x in the sorted range a[lo, hi), or -1
__device__ __forceinline__ i64 binary_find(const int* __restrict__ a, i64 lo, i64 hi, int x) {
    while (lo < hi) {
        i64 mid = (lo + hi) >> 1;
        int y = __ldg(a + mid);
        if (y == x) return mid;
        if (y < x) lo = mid + 1; else hi = mid;
    }
    return -1;
}

// every (s, q) with s a lane holding a range [lo_s, lo_s + len_s) and q in that range, spread over the
// lanes: f(ok, s, q) is called by all 32 lanes together (ok false past the end)
template <class F>
__device__ __forceinline__ void warp_expand(i64 lo, int len, int lane, F f) {
    int incl = len;
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
        const int y = __shfl_up_sync(LA_FULL_MASK, incl, o);
        if (lane >= o) incl += y;
    }
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
