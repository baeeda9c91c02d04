// Shared helpers of the color-coding kernels (cc_spmm.cu, cc_ema.cu).
// REAL is float unless the module is compiled with -DCC_DOUBLE.
#pragma once
#include "common.cuh"

#ifdef CC_DOUBLE
typedef double REAL;
typedef unsigned long long MAXBITS;
__device__ __forceinline__ MAXBITS real_bits(double x) { return (MAXBITS)__double_as_longlong(x); }
#else
typedef float REAL;
typedef unsigned int MAXBITS;
__device__ __forceinline__ MAXBITS real_bits(float x) { return (MAXBITS)__float_as_uint(x); }
#endif

// Non-negative values order like their bit patterns: a max is an integer atomicMax.
__device__ __forceinline__ void cc_block_max(REAL v, MAXBITS* out) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
        REAL w = __shfl_xor_sync(LA_FULL_MASK, v, o);
        v = w > v ? w : v;
    }
    if ((threadIdx.x & 31) == 0 && v > (REAL)0) atomicMax(out, real_bits(v));
}
