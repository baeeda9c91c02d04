// Field indices of the plan tables T[field, level, slot] and C[field, level]
// (la_gpm/patterns/plan.py, Plan.tables()), shared by the plan-interpreting kernels (enum.cu, trie.cu).
// tests/test_gpu_enum.py checks them against plan.py's constants.
#pragma once

#define T_PAR 0
#define T_PAREL 1
#define T_ANTI 2
#define T_LOW 3
#define T_UP 4
#define T_INJ 5
#define C_NPAR 0
#define C_NANTI 1
#define C_NLOW 2
#define C_NUP 3
#define C_NINJ 4
#define C_REUSE 5
#define C_VLAB 6
#define C_MINDEG 7
#define C_CACHED 8
#define C_SAVED 9
