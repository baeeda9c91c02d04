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
