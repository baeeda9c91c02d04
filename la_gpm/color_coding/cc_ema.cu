// Color coding on the GPU: the fused eMA
//     out[i, r] = sum_j (Ma[i, sa[r, j]] * ma) * (B[i, sp[r, j]] * mb)
// over row-major tables, written once per output, with the row maximum folded into an atomicMax
// (non-negative floats order like their bits).  ma, mb are powers of two that bring the inputs to
// at most 1, so no float32 product or sum overflows.  split is int2 (sa, sp) laid out [j][r] so the
// threads of a warp (consecutive r) read it coalesced.
#include "cc_common.cuh"

#define CC_RMAX 8

// R rows per block (R <= CC_RMAX), staged (scaled) in shared memory, so each split entry read is
// used for R rows and the gathers hit shared memory.
extern "C" __global__ void __launch_bounds__(256)
cc_ema_smem(const REAL* __restrict__ Ma, int Ca, const REAL* __restrict__ B, int Cb,
            const int2* __restrict__ split, int Cs, int ns, i64 rows, REAL ma, REAL mb, int R,
            REAL* __restrict__ out, MAXBITS* __restrict__ maxbits) {
    extern __shared__ __align__(16) unsigned char cc_smem_raw[];
    REAL* sA = reinterpret_cast<REAL*>(cc_smem_raw);
    REAL* sB = sA + R * Ca;
    const i64 r0 = blockIdx.x * (i64)R;
    const int nr = (int)min((i64)R, rows - r0);
    for (int t = threadIdx.x; t < R * Ca; t += blockDim.x)
        sA[t] = t < nr * Ca ? Ma[r0 * Ca + t] * ma : (REAL)0;
    for (int t = threadIdx.x; t < R * Cb; t += blockDim.x)
        sB[t] = t < nr * Cb ? B[r0 * Cb + t] * mb : (REAL)0;
    __syncthreads();
    REAL m = (REAL)0;
    for (int r = threadIdx.x; r < Cs; r += blockDim.x) {
        REAL acc[CC_RMAX];
#pragma unroll
        for (int q = 0; q < CC_RMAX; ++q) acc[q] = (REAL)0;
        for (int j = 0; j < ns; ++j) {
            const int2 s = __ldg(split + (i64)j * Cs + r);
#pragma unroll
            for (int q = 0; q < CC_RMAX; ++q)
                if (q < R) acc[q] += sA[q * Ca + s.x] * sB[q * Cb + s.y];
        }
#pragma unroll
        for (int q = 0; q < CC_RMAX; ++q) {
            if (q < nr) {
                out[(r0 + q) * Cs + r] = acc[q];
                m = acc[q] > m ? acc[q] : m;
            }
        }
    }
    cc_block_max(m, maxbits);
}

// Tables too wide for shared memory: one thread per (row, output column), inputs read from global.
extern "C" __global__ void __launch_bounds__(256)
cc_ema_global(const REAL* __restrict__ Ma, int Ca, const REAL* __restrict__ B, int Cb,
              const int2* __restrict__ split, int Cs, int ns, i64 rows, REAL ma, REAL mb,
              REAL* __restrict__ out, MAXBITS* __restrict__ maxbits) {
    REAL m = (REAL)0;
    const i64 total = rows * (i64)Cs;
    const i64 stride = (i64)gridDim.x * blockDim.x;
    const i64 start = blockIdx.x * (i64)blockDim.x + threadIdx.x;
    const i64 iters = (total + stride - 1) / stride;  // every thread runs the same count: full warps reduce
    for (i64 it = 0; it < iters; ++it) {
        const i64 t = start + it * stride;
        if (t < total) {
            const i64 i = t / Cs;
            const int r = (int)(t - i * Cs);
            const REAL* a = Ma + i * Ca;
            const REAL* b = B + i * Cb;
            REAL acc = (REAL)0;
            for (int j = 0; j < ns; ++j) {
                const int2 s = __ldg(split + (i64)j * Cs + r);
                acc += (__ldg(a + s.x) * ma) * (__ldg(b + s.y) * mb);
            }
            out[t] = acc;
            m = acc > m ? acc : m;
        }
    }
    cc_block_max(m, maxbits);
}

// Rows 0 .. R - 1 of a row-major table of C columns (rows >= nr read as zeros) staged column by column with a row
// stride of R + 1, scaled by m, and a column of zeros after them.  A row at least as wide as the block: row by row,
// the threads over its columns; a narrower one: all the block's threads walk the R x (C + 1) elements in row-major
// order (coalesced reads, consecutive banks), the row and column carried, not divided (measured both ways in
// docs/color_coding.md: each is the faster on its side).
__device__ __forceinline__ void cc_stage_columns(const REAL* __restrict__ T, int C, int nr, int R, REAL m,
                                                 REAL* __restrict__ s) {
    const int C1 = C + 1, S = R + 1;
    if (C1 >= (int)blockDim.x) {
        for (int x = threadIdx.x; x < C1; x += blockDim.x) {
            REAL* d = s + x * S;
            const REAL* t = T + x;
            for (int q = 0; q < R; ++q, t += C)
                d[q] = (q < nr && x < C) ? *t * m : (REAL)0;
        }
        return;
    }
    const int dq = blockDim.x / C1, dx = blockDim.x - dq * C1;
    int q = threadIdx.x / C1, x = threadIdx.x - q * C1;
    while (q < R) {
        s[x * S + q] = (q < nr && x < C) ? T[(i64)q * C + x] * m : (REAL)0;
        q += dq;
        x += dx;
        if (x >= C1) {
            x -= C1;
            ++q;
        }
    }
}

// One lane per row: R rows per block (R = 8, 16 or 32; lane l takes row l % R of output set group l / R), shared by
// the block's warps, each warp taking 32 / R output sets at a time (r = g, g + groups, ... over the block's groups).
// The rows are staged (scaled) column by column with a row stride of R + 1 (column x of row q at x * (R + 1) + q), so
// the R lanes reading one column of their rows hit R banks, and staging a row hits consecutive ones; a column of
// zeros follows each table.  The split entries of an output set are the same for its R lanes (a broadcast load):
// packed (sa | sp << 16) in [r][j] order, padded to a multiple of 4 with (Ca | Cb << 16), the zero columns, and
// read 4 at a time.  With P = 1 the sum runs over j in cc_ema_smem's order (then + 0 * 0 for the padding), so both
// give the same floats.  P > 1 (a power of two; products of few output sets and many splits, where Cs * R lanes
// would leave most of the block idle): P consecutive groups share an output set, each summing one contiguous P-th
// of its packed splits, and the first adds the P partial sums in order by shuffles (P * R <= 32: the P groups are
// in one warp; no shared memory beside the rows, which u15's widest products fill): a fixed order, so the floats
// do not change from run to run, but they may differ from cc_ema_smem's in the last bits.  Measured against
// cc_ema_smem in docs/color_coding.md.
extern "C" __global__ void __launch_bounds__(1024)
cc_ema_lanes(const REAL* __restrict__ Ma, int Ca, const REAL* __restrict__ B, int Cb,
             const unsigned* __restrict__ split, int Cs, int nsp, i64 rows, REAL ma, REAL mb, int R, int P,
             REAL* __restrict__ out, MAXBITS* __restrict__ maxbits) {
    extern __shared__ __align__(16) unsigned char cc_smem_raw[];
    const int S = R + 1;
    REAL* sA = reinterpret_cast<REAL*>(cc_smem_raw);
    REAL* sB = sA + (Ca + 1) * S;
    const i64 r0 = blockIdx.x * (i64)R;
    const int nr = (int)min((i64)R, rows - r0);
    cc_stage_columns(Ma + r0 * Ca, Ca, nr, R, ma, sA);
    cc_stage_columns(B + r0 * Cb, Cb, nr, R, mb, sB);
    __syncthreads();
    const int row = threadIdx.x & (R - 1);
    const int g = threadIdx.x / R;
    const int pp = g & (P - 1);
    const int sets = blockDim.x / R / P;  // output sets a round
    const int n4 = nsp >> 2, chunk = (n4 + P - 1) / P;
    const int j0 = min(n4, pp * chunk), j1 = min(n4, j0 + chunk);
    const REAL* a = sA + row;
    const REAL* b = sB + row;
    REAL m = (REAL)0;
    // every lane of the block runs the same number of rounds (the warp max and the barriers need all of them)
    const int rounds = (Cs + sets - 1) / sets;
    for (int t = 0; t < rounds; ++t) {
        const int r = g < sets * P ? t * sets + g / P : Cs;  // groups past the last whole set of P stay idle
        REAL acc = (REAL)0;
        if (r < Cs) {
            const uint4* s4 = reinterpret_cast<const uint4*>(split + (i64)r * nsp);
            for (int j = j0; j < j1; ++j) {
                const uint4 s = __ldg(s4 + j);
                acc += a[(s.x & 0xffffu) * S] * b[(s.x >> 16) * S];
                acc += a[(s.y & 0xffffu) * S] * b[(s.y >> 16) * S];
                acc += a[(s.z & 0xffffu) * S] * b[(s.z >> 16) * S];
                acc += a[(s.w & 0xffffu) * S] * b[(s.w >> 16) * S];
            }
        }
        if (P > 1) {  // the P groups of a set are in one warp: their partials by shuffles, in order
            REAL s = acc;
            for (int q = 1; q < P; ++q) s += __shfl_down_sync(LA_FULL_MASK, acc, q * R);
            acc = s;
        }
        if (pp == 0 && r < Cs && row < nr) {
            out[(r0 + row) * Cs + r] = acc;
            m = acc > m ? acc : m;
        }
    }
    cc_block_max(m, maxbits);
}
