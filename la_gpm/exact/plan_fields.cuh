// What the plan-interpreting kernels (dumato.cu, cuts.cu) share: the field indices of the plan tables
// T[field, level, slot] and C[field, level] (la_gpm/patterns/plan.py, Plan.tables(); row-major int64,
// k slots per level), the view they read the tables through, and the view of the data graph.
// tests/test_gpu_enum.py checks the field indices against plan.py's constants.
#pragma once
#include "common.cuh"

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

// A compiled plan of k levels: T holds per level lists (parents, anti-parents, bounds, injectivity;
// T_* fields), C one value per level (the lists' lengths, reuse, label, ...; C_* fields). Load: how the
// tables are read (LdgLoad: through the read-only cache; PlainLoad where T and C are const __restrict__
// kernel parameters, which the compiler reads through that cache by itself).
template <class Load = LdgLoad>
struct PlanTables {
    const i64* T;
    const i64* C;
    int k;

    // T[field, level, slot]
    __device__ __forceinline__ i64 list(int field, int level, int slot) const {
        return Load::at(T + ((i64)field * k + level) * k + slot);
    }
    // C[field, level]
    __device__ __forceinline__ i64 value(int field, int level) const { return Load::at(C + (i64)field * k + level); }
};

// The data graph: CSR rows sorted by (vertex label, id) when vertex-labeled, vertex labels nlab per arc
// (the label of the arc's head), edge labels elab per arc, degrees.
struct PlanGraph {
    const i64* ptr;
    const int* idx;
    const i64* nlab;
    const i64* elab;
    const int* deg;
    int vlabeled;
    int elabeled;
};

// the neighbours of v carrying label lab: [lo, hi) (the whole row when unlabeled or lab < 0). With
// kWarpSearch the label range is searched by the whole warp (warp_lower_bound: every lane passes the same
// v and lab), else by each lane.
template <bool kWarpSearch = false>
__device__ __forceinline__ void label_row(const PlanGraph& g, int v, i64 lab, i64& lo, i64& hi, int lane = 0) {
    lo = __ldg(g.ptr + v);
    hi = __ldg(g.ptr + v + 1);
    if (g.vlabeled && lab >= 0) {
        const i64 a = kWarpSearch ? warp_lower_bound(g.nlab, lo, hi, lab, lane)
                                  : binary_lower_bound(g.nlab, lo, hi, lab);
        hi = kWarpSearch ? warp_lower_bound(g.nlab, a, hi, lab + 1, lane) : binary_lower_bound(g.nlab, a, hi, lab + 1);
        lo = a;
    }
}
