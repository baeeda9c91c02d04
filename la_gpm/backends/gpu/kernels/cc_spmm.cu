// Color coding on the GPU: colorings, leaf tables and the SpMM B = A · M over row-major tables.
//
// A table holds nb colorings of the graph stacked as nb disjoint copies: row g*n + v is vertex v of
// copy g, and a neighbour u of v in copy g is row g*n + u.  Row-major layout makes a neighbour's
// colour sets one contiguous run, so the threads of a row read whole coalesced rows (the gather
// that cuSPARSE's column-major SpMM does not do well: see docs/color_coding.md).
#include "cc_common.cuh"

// colors[g*n + v] = hi32(splitmix64(keys[g] + v)) * k >> 32
extern "C" __global__ void cc_colors(const u64* __restrict__ keys, i64 rows, int n, int k,
                                     signed char* __restrict__ out) {
    for (i64 r = blockIdx.x * (i64)blockDim.x + threadIdx.x; r < rows; r += (i64)gridDim.x * blockDim.x) {
        i64 g = r / n;
        i64 v = r - g * n;
        u64 h = cc_splitmix64(keys[g] + (u64)v);
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
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(LA_FULL_MASK, s, o);
    if ((threadIdx.x & 31) == 0) part[threadIdx.x >> 5] = s;
    __syncthreads();
    if (threadIdx.x < 32) {
        s = threadIdx.x < (blockDim.x >> 5) ? part[threadIdx.x] : 0.0;
#pragma unroll
        for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(LA_FULL_MASK, s, o);
        if (threadIdx.x == 0) out[g] = s;
    }
}
