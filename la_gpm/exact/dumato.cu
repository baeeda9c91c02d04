// Exact counting and listing of any connected pattern by interpreting a matching Plan
// (la_gpm/patterns/plan.py, Plan.tables()) on the GPU, with the semantics of the CPU engine
// (la_gpm/exact/cpu_kernels.py): symmetry bounds, anti-parents (induced), injectivity
// checks, RPS reuse of cached sets, vertex labels (label-sorted rows) and edge labels; the last
// level is counted, not enumerated.
//
// Warp-centric DFS (DuMato, G2Miner): one warp extends one work item, a partial match f[0..d-1] of
// depth d (a row of ``items``): a level-1 arc (f0, f1) that already passed level 1's label /
// edge-label / bound / degree filters (d = 2, built on the host), so hub roots are split over many
// warps, or, when level 1 has too few arcs to keep the GPU busy, a deeper prefix written by
// enum_expand_warp (one level per launch, breadth-first: the cuTS/DuMato hybrid). A warp starting
// at depth d first rebuilds the cached sets of levels 2..d-1 when a later level reuses one of them
// (RPS), without counting those rebuilds in the statistics, so the statistics stay the CPU engine's.
// Levels 2..k-1 of the warp's stack are candidate buffers of maxd int32 each in global memory;
// every set operation is warp-cooperative: each lane takes an element of the iterated list and
// binary-searches it in the other, hits are compacted in order with ballot/popc (writes never
// overtake reads, so in-place updates are safe). Every lane keeps an identical copy of the scalar
// DFS state. Warps take items from an atomic counter.
#include "common.cuh"
#include "plan_fields.cuh"

#define EN_MAXK 32
#define EN_I64_MAX 0x7fffffffffffffffLL

// counters[]: next item, total, overflow flag, reuse hits, set ops, set ops saved, tree nodes
#define CN_NEXT 0
#define CN_TOTAL 1
#define CN_OVER 2
#define CN_REUSE 3
#define CN_OPS 4
#define CN_SAVED 5
#define CN_NODES 6

struct EnState {
    int f[EN_MAXK];
    int skind[EN_MAXK];  // -1: a range of idx; r >= 2: a range of buffer r
    i64 slo[EN_MAXK];
    i64 shi[EN_MAXK];
    i64 pos[EN_MAXK];
    i64 end[EN_MAXK];
    u64 reuse, ops, saved, nodes;
};

// x in the sorted set a[lo, hi) (a lower bound, then one compare: a may be a stack buffer, plain loads)
__device__ __forceinline__ bool en_contains(const int* a, i64 lo, i64 hi, int x) {
    const i64 p = buffer_lower_bound(a, lo, hi, (i64)x);
    return p < hi && a[p] == x;
}

// The uniform searches (every lane passes the same arguments: label ranges of rows, symmetry windows) are
// warp-cooperative (warp_lower_bound) when the module is compiled with -DEN_WARP_SEARCH (the batch kernel;
// see dumato.py), else each lane's own.
#ifdef EN_WARP_SEARCH
constexpr bool kEnWarpSearch = true;
#else
constexpr bool kEnWarpSearch = false;
#endif

__device__ __forceinline__ i64 en_uniform_lb(const int* a, i64 lo, i64 hi, i64 x, int lane) {
    return kEnWarpSearch ? warp_lower_bound(a, lo, hi, x, lane) : buffer_lower_bound(a, lo, hi, x);
}

__device__ __forceinline__ const int* en_set(const PlanGraph& g, int* stack, i64 maxd, int kind) {
    return kind < 0 ? g.idx : stack + (i64)(kind - 2) * maxd;
}

// out = a[alo, ahi) ∩ b[blo, bhi) in order; the shorter list is iterated unless ``inplace`` (out is a)
__device__ __forceinline__ int en_intersect(const int* a, i64 alo, i64 ahi, const int* b, i64 blo, i64 bhi, int* out,
                            bool inplace, int lane) {
    if (ahi <= alo || bhi <= blo) return 0;
    if (!inplace && bhi - blo < ahi - alo) {
        const int* t = a; a = b; b = t;
        i64 x = alo; alo = blo; blo = x;
        x = ahi; ahi = bhi; bhi = x;
    }
    return warp_filter(alo, ahi, out, lane, [=](i64 i) { return a[i]; },
                       [=](int x) { return en_contains(b, blo, bhi, x); });
}

// out = a[alo, ahi) minus b[blo, bhi)
__device__ __forceinline__ int en_difference(const int* a, i64 alo, i64 ahi, const int* b, i64 blo, i64 bhi, int* out,
                             int lane) {
    return warp_filter(alo, ahi, out, lane, [=](i64 i) { return a[i]; },
                       [=](int x) { return !en_contains(b, blo, bhi, x); });
}

__device__ __forceinline__ void en_bounds(const PlanTables<>& P, const EnState& s, int i, i64& vlo, i64& vhi) {
    vlo = -1;
    vhi = EN_I64_MAX;
    const int nl = (int)P.value(C_NLOW, i), nu = (int)P.value(C_NUP, i);
    for (int t = 0; t < nl; ++t) {
        const i64 x = s.f[P.list(T_LOW, i, t)];
        if (x > vlo) vlo = x;
    }
    for (int t = 0; t < nu; ++t) {
        const i64 x = s.f[P.list(T_UP, i, t)];
        if (x < vhi) vhi = x;
    }
}

// The candidate set of level i for the prefix f[0:i] (mirror of the CPU _build).
// With ``defer`` (the last level, counted): when the set's last operation is an intersection with a
// parent row (no anti-parents, no edge-label filter after it), that row is not intersected but returned
// in (dlo, dhi) with ``deferred`` set; the stored set is the one before that operation (counted by
// en_count_last without being written).
__device__ __forceinline__ void en_build(const PlanGraph& g, const PlanTables<>& P, EnState& s, int* stack, i64 maxd,
                                         int i, i64 vlo, i64 vhi, bool windowed, bool defer, bool& deferred,
                                         i64& dlo, i64& dhi, int lane) {
    deferred = false;
    const i64 lab = P.value(C_VLAB, i);
    const int j = (int)P.value(C_REUSE, i);
    const int npar = (int)P.value(C_NPAR, i);
    int chosen = -1;
    int kind;
    i64 lo, hi;
    if (j >= 0) {
        kind = s.skind[j];
        lo = s.slo[j];
        hi = s.shi[j];
        s.reuse += 1;
        s.saved += (u64)P.value(C_SAVED, i);
    } else {
        kind = -1;
        lo = 0;
        hi = 0;
        i64 best = -1;
        for (int t = 0; t < npar; ++t) {
            i64 rlo, rhi;
            label_row<kEnWarpSearch>(g, s.f[P.list(T_PAR, i, t)], lab, rlo, rhi, lane);
            if (best < 0 || rhi - rlo < best) { best = rhi - rlo; chosen = t; lo = rlo; hi = rhi; }
        }
    }
    if (windowed) {
        const int* src = en_set(g, stack, maxd, kind);
        lo = en_uniform_lb(src, lo, hi, vlo + 1, lane);
        hi = en_uniform_lb(src, lo, hi, vhi, lane);
    }
    int* out = stack + (i64)(i - 2) * maxd;
    const int nanti = (int)P.value(C_NANTI, i);
    int lastt = -1;  // the last parent intersected, when it may be deferred
    if (defer && windowed && nanti == 0) {
        bool elab_filter = false;
        if (g.elabeled)
            for (int t = 0; t < npar; ++t)
                if (P.list(T_PAREL, i, t) >= 0) elab_filter = true;
        if (!elab_filter)
            for (int t = npar - 1; t >= 0; --t)
                if (t != chosen) { lastt = t; break; }
    }
    for (int t = 0; t < npar; ++t) {
        if (t == chosen) continue;
        i64 rlo, rhi;
        label_row<kEnWarpSearch>(g, s.f[P.list(T_PAR, i, t)], lab, rlo, rhi, lane);
        if (windowed) {
            rlo = en_uniform_lb(g.idx, rlo, rhi, vlo + 1, lane);
            rhi = en_uniform_lb(g.idx, rlo, rhi, vhi, lane);
        }
        if (t == lastt) {
            deferred = true;
            dlo = rlo;
            dhi = rhi;
            s.ops += 1;
            break;
        }
        const int w = en_intersect(en_set(g, stack, maxd, kind), lo, hi, g.idx, rlo, rhi, out, kind == i, lane);
        kind = i;
        lo = 0;
        hi = w;
        s.ops += 1;
        if (w == 0) break;
    }
    for (int t = 0; t < nanti; ++t) {
        if (hi == lo) break;
        i64 rlo, rhi;
        label_row<kEnWarpSearch>(g, s.f[P.list(T_ANTI, i, t)], lab, rlo, rhi, lane);
        const int w = en_difference(en_set(g, stack, maxd, kind), lo, hi, g.idx, rlo, rhi, out, lane);
        kind = i;
        lo = 0;
        hi = w;
        s.ops += 1;
    }
    if (g.elabeled && hi > lo) {
        bool need = false;
        for (int t = 0; t < npar; ++t)
            if (P.list(T_PAREL, i, t) >= 0) need = true;
        if (need) {
            const int* src = en_set(g, stack, maxd, kind);
            const int cnt = warp_filter(lo, hi, out, lane, [=](i64 p) { return src[p]; }, [&](int x) {
                bool ok = true;
                for (int t = 0; t < npar && ok; ++t) {
                    const i64 e = P.list(T_PAREL, i, t);
                    if (e < 0) continue;
                    i64 rlo, rhi;
                    label_row(g, s.f[P.list(T_PAR, i, t)], lab, rlo, rhi);
                    const i64 q = buffer_lower_bound(g.idx, rlo, rhi, (i64)x);
                    ok = q < rhi && __ldg(g.idx + q) == x && __ldg(g.elab + q) == e;
                }
                return ok;
            });
            kind = i;
            lo = 0;
            hi = cnt;
        }
    }
    s.skind[i] = kind;
    s.slo[i] = lo;
    s.shi[i] = hi;
}

// Build level i (or find it cached) and cut it to the symmetry window; returns the set's base pointer.
__device__ __forceinline__ const int* en_window(const PlanGraph& g, const PlanTables<>& P, EnState& s, int* stack,
                                                i64 maxd, int i, i64& lo, i64& hi, i64& vlo, i64& vhi,
                                                int lane) {
    en_bounds(P, s, i, vlo, vhi);
    bool deferred;
    i64 dlo, dhi;
    en_build(g, P, s, stack, maxd, i, vlo, vhi, P.value(C_CACHED, i) == 0, false, deferred, dlo, dhi, lane);
    const int* src = en_set(g, stack, maxd, s.skind[i]);
    lo = en_uniform_lb(src, s.slo[i], s.shi[i], vlo + 1, lane);
    hi = en_uniform_lb(src, lo, s.shi[i], vhi, lane);
    return src;
}

// |a[alo, ahi) ∩ b[blo, bhi)|, nothing written; every lane returns the same value
__device__ __forceinline__ i64 en_count_inter(const int* a, i64 alo, i64 ahi, const int* b, i64 blo, i64 bhi,
                                              int lane) {
    if (ahi <= alo || bhi <= blo) return 0;
    if (bhi - blo < ahi - alo) {
        const int* t = a; a = b; b = t;
        i64 x = alo; alo = blo; blo = x;
        x = ahi; ahi = bhi; bhi = x;
    }
    i64 c = 0;
    for (i64 base = alo; base < ahi; base += 32) {
        const i64 i = base + lane;
        const bool hit = i < ahi && en_contains(b, blo, bhi, a[i]);
        c += __popc(__ballot_sync(LA_FULL_MASK, hit));
    }
    return c;
}

// c -= the earlier images f[T_INJ] of level i inside the window (vlo, vhi) that in_set holds (the candidates
// injectivity removes from a set counted without them)
template <class InSet>
__device__ __forceinline__ void en_drop_injective(const PlanTables<>& P, const EnState& s, int i, i64 vlo, i64 vhi,
                                                  i64& c, InSet in_set) {
    const int ninj = (int)P.value(C_NINJ, i);
    for (int t = 0; t < ninj; ++t) {
        const i64 x = s.f[P.list(T_INJ, i, t)];
        if (x <= vlo || x >= vhi) continue;
        if (in_set((int)x)) c -= 1;
    }
}

// |candidates of the last level i inside the bounds| minus the earlier images in that set
__device__ __forceinline__ u64 en_count_last(const PlanGraph& g, const PlanTables<>& P, EnState& s, int* stack,
                                              i64 maxd, int i, bool fast, int lane) {
    i64 lo, hi, vlo, vhi;
    const int* src;
    if (fast) {  // the final intersection is counted, not written (the set is already inside the window)
        en_bounds(P, s, i, vlo, vhi);
        bool deferred;
        i64 dlo, dhi;
        en_build(g, P, s, stack, maxd, i, vlo, vhi, P.value(C_CACHED, i) == 0, true, deferred, dlo, dhi, lane);
        src = en_set(g, stack, maxd, s.skind[i]);
        if (deferred) {
            lo = s.slo[i];
            hi = s.shi[i];
            i64 c = en_count_inter(src, lo, hi, g.idx, dlo, dhi, lane);
            en_drop_injective(P, s, i, vlo, vhi, c,
                              [&](int x) { return en_contains(src, lo, hi, x) && en_contains(g.idx, dlo, dhi, x); });
            return (u64)c;
        }
        lo = en_uniform_lb(src, s.slo[i], s.shi[i], vlo + 1, lane);
        hi = en_uniform_lb(src, lo, s.shi[i], vhi, lane);
    } else {
        src = en_window(g, P, s, stack, maxd, i, lo, hi, vlo, vhi, lane);
    }
    i64 c = hi - lo;
    en_drop_injective(P, s, i, vlo, vhi, c, [&](int x) { return en_contains(src, lo, hi, x); });
    return (u64)c;
}

__device__ __forceinline__ void en_start(const PlanGraph& g, const PlanTables<>& P, EnState& s, int* stack, i64 maxd,
                                         int i, int lane) {
    i64 lo, hi, vlo, vhi;
    en_window(g, P, s, stack, maxd, i, lo, hi, vlo, vhi, lane);
    s.pos[i] = lo;
    s.end[i] = hi;
}

__device__ __forceinline__ bool en_accept(const PlanGraph& g, const PlanTables<>& P, const EnState& s, int i, int c) {
    if ((i64)__ldg(g.deg + c) < P.value(C_MINDEG, i)) return false;
    const int ninj = (int)P.value(C_NINJ, i);
    for (int t = 0; t < ninj; ++t)
        if (s.f[P.list(T_INJ, i, t)] == c) return false;
    return true;
}

// Load item e (a prefix of depth d) into s.f; with ``rebuild``, rebuild the sets of levels 2..d-1
// exactly as the DFS built them (a later level reuses one), not counted in the statistics.
__device__ __forceinline__ void en_load(const PlanGraph& g, const PlanTables<>& P, EnState& s, int* stack, i64 maxd,
                                        const int* __restrict__ items, u64 e, int d, int rebuild, int lane) {
    for (int q = 0; q < d; ++q) s.f[q] = __ldg(items + (i64)e * d + q);
    if (rebuild) {
        const u64 r = s.reuse, o = s.ops, sv = s.saved;
        for (int j = 2; j < d; ++j) {
            i64 lo, hi, vlo, vhi;
            en_window(g, P, s, stack, maxd, j, lo, hi, vlo, vhi, lane);
        }
        s.reuse = r;
        s.ops = o;
        s.saved = sv;
    }
}

// Level d's accepted candidates of the window src[lo, hi), 32 at a time: one atomicAdd per warp on
// `counter` reserves a run of slots for the accepted lanes, in lane order; emit(ok, c, slot, n) is
// then called by every lane (ok: this lane's candidate c was accepted and owns `slot`; n: how many of
// the 32 were). Used by the breadth-first kernels (enum_expand_warp, enum_batch_level) to append rows.
template <class Emit>
__device__ __forceinline__ void en_append_accepted(const PlanGraph& g, const PlanTables<>& P, const EnState& s, int d,
                                                   const int* src, i64 lo, i64 hi, u64* counter, int lane,
                                                   Emit&& emit) {
    for (i64 base = lo; base < hi; base += 32) {
        const i64 p = base + lane;
        int c = 0;
        bool ok = false;
        if (p < hi) {
            c = src[p];
            ok = en_accept(g, P, s, d, c);
        }
        const unsigned m = __ballot_sync(LA_FULL_MASK, ok);
        const int n = __popc(m);
        if (n == 0) continue;
        u64 slot0 = 0;
        if (lane == 0) slot0 = atomicAdd(counter, (u64)n);
        slot0 = __shfl_sync(LA_FULL_MASK, slot0, 0);
        emit(ok, c, slot0 + __popc(m & lanes_below(lane)), n);
    }
}

// The graph and plan parameters every warp-per-item kernel takes, and the set-up it starts with:
// the graph and plan views, the lane, this warp's stack (k - 2 levels of maxd ints in buf) and
// zeroed statistics.
#define EN_KERNEL_PARAMS                                                                               \
    const i64* __restrict__ ptr, const int* __restrict__ idx, const i64* __restrict__ nlab,            \
        const i64* __restrict__ elab, const int* __restrict__ deg, int vlabeled, int elabeled,         \
        const i64* __restrict__ T, const i64* __restrict__ C, int k
#define EN_WARP_BEGIN                                                                                  \
    const PlanGraph g{ptr, idx, nlab, elab, deg, vlabeled, elabeled};                                  \
    const PlanTables<> P{T, C, k};                                                                     \
    const int lane = threadIdx.x & 31;                                                                 \
    const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;                                \
    int* stack = buf + warp * (i64)(k - 2) * maxd;                                                     \
    EnState s;                                                                                         \
    s.reuse = s.ops = s.saved = s.nodes = 0;

// local += item, setting over when the item or the sum passes 2^63 - 1 (the host's counts are int64)
__device__ __forceinline__ void en_add_count(u64& local, u64 item, bool& over) {
    if (item > (u64)EN_I64_MAX) over = true;
    local += item;
    if (local < item || local > (u64)EN_I64_MAX) over = true;
}

// (lane 0) *total += local; *flag |= 1 when that sum passes 2^63 - 1 or over is set
__device__ __forceinline__ void en_flush_count(u64* total, u64* flag, u64 local, bool over) {
    if (local) {
        const u64 old = atomicAdd(total, local);
        if (old + local < old || old + local > (u64)EN_I64_MAX) over = true;
    }
    if (over) atomicOr(flag, 1ULL);
}

// (lane 0) the warp's statistics added to counters[]
__device__ __forceinline__ void en_flush_stats(u64* counters, const EnState& s) {
    if (s.reuse) atomicAdd(counters + CN_REUSE, s.reuse);
    if (s.ops) atomicAdd(counters + CN_OPS, s.ops);
    if (s.saved) atomicAdd(counters + CN_SAVED, s.saved);
    if (s.nodes) atomicAdd(counters + CN_NODES, s.nodes);
}

// The DFS below a prefix f[0..start-1] whose sets of levels < start are built; returns its count.
// kNodes: also count the search-tree nodes below the prefix in s.nodes (the count kernel's statistics).
template <bool kNodes>
__device__ __forceinline__ u64 en_dfs(const PlanGraph& g, const PlanTables<>& P, EnState& s, int* stack, i64 maxd,
                                      int start, bool fast_last, int lane) {
    const int k = P.k;
    if (start == k - 1) return en_count_last(g, P, s, stack, maxd, start, fast_last, lane);
    u64 item = 0;
    en_start(g, P, s, stack, maxd, start, lane);
    int lvl = start;
    while (lvl >= start) {
        if (s.pos[lvl] >= s.end[lvl]) { --lvl; continue; }
        const i64 p = s.pos[lvl]++;
        const int c = en_set(g, stack, maxd, s.skind[lvl])[p];
        if (!en_accept(g, P, s, lvl, c)) continue;
        s.f[lvl] = c;
        if (kNodes) s.nodes += 1;
        const int nx = lvl + 1;
        if (nx == k - 1) {
            item += en_count_last(g, P, s, stack, maxd, nx, fast_last, lane);
        } else {
            en_start(g, P, s, stack, maxd, nx, lane);
            lvl = nx;
        }
    }
    return item;
}

// Count the matches of every item (the prefix items[e * d .. e * d + d - 1], 2 <= d <= k - 1). With
// store_counts the count of each item is also stored (the listing's first pass).
extern "C" __global__ void __launch_bounds__(256, 2)
enum_count_warp(EN_KERNEL_PARAMS, const int* __restrict__ items,
                int d, int rebuild, i64 nitems, int* __restrict__ buf, i64 maxd,
                u64* __restrict__ counters, u64* __restrict__ item_counts, int store_counts, int fast_last) {
    EN_WARP_BEGIN
    u64 local = 0;
    bool over = false;
    for (;;) {
        const u64 e = warp_next_item(counters + CN_NEXT, lane);
        if (e >= (u64)nitems) break;
        en_load(g, P, s, stack, maxd, items, e, d, rebuild, lane);
        const u64 item = en_dfs<true>(g, P, s, stack, maxd, d, fast_last != 0, lane);
        en_add_count(local, item, over);
        if (store_counts && lane == 0) item_counts[e] = item;
    }
    if (lane == 0) {
        en_flush_count(counters + CN_TOTAL, counters + CN_OVER, local, over);
        en_flush_stats(counters, s);
    }
}

// List the last level of the current prefix: rows numbered from r on; those in [r0, r1) are written
// to out[(row - r0) * k + order[q]]. Returns the next row number.
__device__ __forceinline__ i64 en_list_last(const PlanGraph& g, const PlanTables<>& P, EnState& s, int* stack,
                                            i64 maxd, int i, const int* __restrict__ order, i64 r, i64 r0, i64 r1,
                                            int* __restrict__ out, int lane) {
    i64 lo, hi, vlo, vhi;
    const int* src = en_window(g, P, s, stack, maxd, i, lo, hi, vlo, vhi, lane);
    const int ninj = (int)P.value(C_NINJ, i);
    for (i64 base = lo; base < hi && r < r1; base += 32) {
        const i64 p = base + lane;
        int x = 0;
        bool ok = false;
        if (p < hi) {
            x = src[p];
            ok = true;
            for (int t = 0; t < ninj; ++t)
                if (s.f[P.list(T_INJ, i, t)] == x) ok = false;
        }
        const unsigned m = __ballot_sync(LA_FULL_MASK, ok);
        const i64 row = r + __popc(m & lanes_below(lane));
        if (ok && row >= r0 && row < r1) {
            int* o = out + (row - r0) * P.k;
            for (int q = 0; q < i; ++q) o[__ldg(order + q)] = s.f[q];
            o[__ldg(order + i)] = x;
        }
        r += __popc(m);
    }
    __syncwarp();
    return r;
}

// Listing pass: items (prefixes of depth d) [0, nitems) start at row item_start[e]; rows in [r0, r1)
// are written.
extern "C" __global__ void __launch_bounds__(256, 2)
enum_list_warp(EN_KERNEL_PARAMS, const int* __restrict__ items,
               int d, int rebuild, const i64* __restrict__ item_start, i64 nitems,
               int* __restrict__ buf, i64 maxd, const int* __restrict__ order, i64 r0, i64 r1,
               int* __restrict__ out, u64* __restrict__ counters) {
    EN_WARP_BEGIN
    for (;;) {
        const u64 e = warp_next_item(counters + CN_NEXT, lane);
        if (e >= (u64)nitems) break;
        i64 r = __ldg(item_start + e);
        if (r >= r1) continue;
        en_load(g, P, s, stack, maxd, items, e, d, rebuild, lane);
        if (d == k - 1) {
            en_list_last(g, P, s, stack, maxd, d, order, r, r0, r1, out, lane);
            continue;
        }
        en_start(g, P, s, stack, maxd, d, lane);
        int lvl = d;
        while (lvl >= d && r < r1) {
            if (s.pos[lvl] >= s.end[lvl]) { --lvl; continue; }
            const i64 p = s.pos[lvl]++;
            const int c = en_set(g, stack, maxd, s.skind[lvl])[p];
            if (!en_accept(g, P, s, lvl, c)) continue;
            s.f[lvl] = c;
            const int nx = lvl + 1;
            if (nx == k - 1) {
                r = en_list_last(g, P, s, stack, maxd, nx, order, r, r0, r1, out, lane);
            } else {
                en_start(g, P, s, stack, maxd, nx, lane);
                lvl = nx;
            }
        }
    }
}

// One breadth-first level: every item (a prefix of depth d < k - 1) is extended by the accepted
// candidates of level d (window, injectivity, minimum degree: the DFS's test), each written as a row
// of depth d + 1 at a slot taken from an atomic counter (counters[CN_TOTAL]); slots >= cap are
// counted but not written (the host then keeps the depth-d items). Statistics: the builds of level d
// and the tree nodes of level d, as the DFS would count them. Row order is not deterministic; the
// count and listing passes use the same array, so listings stay exact.
extern "C" __global__ void __launch_bounds__(256, 2)
enum_expand_warp(EN_KERNEL_PARAMS, const int* __restrict__ items,
                 int d, int rebuild, i64 nitems, int* __restrict__ buf, i64 maxd, int* __restrict__ out, i64 cap,
                 u64* __restrict__ counters) {
    EN_WARP_BEGIN
    for (;;) {
        const u64 e = warp_next_item(counters + CN_NEXT, lane);
        if (e >= (u64)nitems) break;
        en_load(g, P, s, stack, maxd, items, e, d, rebuild, lane);
        i64 lo, hi, vlo, vhi;
        const int* src = en_window(g, P, s, stack, maxd, d, lo, hi, vlo, vhi, lane);
        en_append_accepted(g, P, s, d, src, lo, hi, counters + CN_TOTAL, lane,
                           [&](bool ok, int c, u64 slot, int n) {
                               if (ok && slot < (u64)cap) {
                                   int* o = out + (i64)slot * (d + 1);
                                   for (int q = 0; q < d; ++q) o[q] = s.f[q];
                                   o[d] = c;
                               }
                               s.nodes += (u64)n;
                           });
        __syncwarp();
    }
    if (lane == 0) en_flush_stats(counters, s);
}

// ------------------------------------------------------------------------------------------------
// Batched multi-query counting (la_gpm.algorithms.batch.count_many): many plans in one pass.
//
// Every plan's tables are packed into Tall / Call; qtab[3q..3q+2] = (offset of T_q in Tall, offset
// of C_q in Call, k_q). A work item of depth d is a row of d + 1 int32: [q, f0, ..., f_{d-1}], so the
// items of all queries share one array and one launch. The host launches enum_batch_level once per
// depth d = 1, 2, ... (the first input being the (query, root) pairs); no launch needs a read-back:
// the number of input items is read on the device from the previous level's counter (clamped to the
// capacity of the array it wrote). Per item of query q at depth d:
//   * d == k_q - 1: its last level is counted (en_count_last);
//   * otherwise, when the level has fewer than ``threshold`` items (breadth-first mode): level d's
//     candidates are built as in the DFS and every accepted one becomes an item of depth d + 1 at a
//     slot taken from an atomic counter; a candidate whose slot is beyond ``cap`` is searched
//     depth-first right there by the same warp (nothing is lost, nothing needs a retry);
//   * otherwise (depth-first mode, the level is wide enough to fill the GPU): the item's subtree is
//     counted depth-first (the count kernel's loop), and nothing is written.
// Counts go to counts[q] (uint64; a sum above 2^63 - 1 sets flags[0]). A warp's stack holds levels
// 1..kmax-1 (level 1 too: its edge-label filter writes a buffer); items starting at depth d rebuild
// only the cached sets of levels 2..d-1 that a level >= d reuses (directly or through a chain).

// the DFS below a prefix f[0..start-1] whose sets of levels < start are built; returns its count
__device__ __noinline__ u64 en_dfs_from(const PlanGraph& g, const PlanTables<>& P, EnState& s, int* stack, i64 maxd,
                                           int start, bool fast_last, int lane) {
    return en_dfs<false>(g, P, s, stack, maxd, start, fast_last, lane);
}

// rebuild the cached sets of levels 2..d-1 that some level >= d reads (reuse chains followed)
__device__ __forceinline__ void en_rebuild_needed(const PlanGraph& g, const PlanTables<>& P, EnState& s, int* stack,
                                                  i64 maxd, int d, int lane) {
    unsigned need = 0;
    for (int i = d; i < P.k; ++i) {
        const int r = (int)P.value(C_REUSE, i);
        if (r >= 2 && r < d) need |= 1u << r;
    }
    if (!need) return;
    for (int j = d - 1; j >= 2; --j)
        if (need >> j & 1u) {
            const int r = (int)P.value(C_REUSE, j);
            if (r >= 2) need |= 1u << r;
        }
    for (int j = 2; j < d; ++j)
        if (need >> j & 1u) {
            i64 lo, hi, vlo, vhi;
            en_window(g, P, s, stack, maxd, j, lo, hi, vlo, vhi, lane);
        }
}

// (every lane) query q's count into counts[q] (nothing for q < 0: no query yet)
__device__ __forceinline__ void en_flush(u64* counts, u64* flags, int q, u64 local, bool over, int lane) {
    if (lane == 0 && q >= 0) en_flush_count(counts + q, flags, local, over);
}

extern "C" __global__ void __launch_bounds__(256, 2)
enum_batch_level(const i64* __restrict__ ptr, const int* __restrict__ idx, const i64* __restrict__ nlab,
                 const i64* __restrict__ elab, const int* __restrict__ deg, int vlabeled, int elabeled,
                 const i64* __restrict__ Tall, const i64* __restrict__ Call, const i64* __restrict__ qtab,
                 const int* __restrict__ items, int d, const u64* __restrict__ nin_ptr, i64 cap_in,
                 int* __restrict__ out, i64 cap, u64* __restrict__ lc, u64* __restrict__ counts,
                 u64* __restrict__ flags, int* __restrict__ buf, i64 maxd, int stack_levels, i64 threshold,
                 int fast_last) {
    const PlanGraph g{ptr, idx, nlab, elab, deg, vlabeled, elabeled};
    const int lane = threadIdx.x & 31;
    const i64 warp = ((i64)blockIdx.x * blockDim.x + threadIdx.x) >> 5;
    int* stack = buf + warp * (i64)stack_levels * maxd + maxd;  // level i's buffer: (i - 1) * maxd into the warp's area
    EnState s;
    s.reuse = s.ops = s.saved = s.nodes = 0;
    const u64 nraw = *nin_ptr;
    const i64 nin = nraw < (u64)cap_in ? (i64)nraw : cap_in;
    if (warp >= nin) return;  // the warps below nin take every item (each fetches until the counter passes nin)
    const bool dfs = nin >= threshold;
    const bool fast = fast_last != 0;
    int curq = -1;
    u64 local = 0;
    bool over = false;
    for (;;) {
        const u64 e = warp_next_item(lc, lane);
        if (e >= (u64)nin) break;
        const int* row = items + (i64)e * (d + 1);
        const int q = __ldg(row);
        if (q != curq) {
            en_flush(counts, flags, curq, local, over, lane);
            curq = q;
            local = 0;
            over = false;
        }
        const PlanTables<> P{Tall + __ldg(qtab + 3 * q), Call + __ldg(qtab + 3 * q + 1), (int)__ldg(qtab + 3 * q + 2)};
        for (int t = 0; t < d; ++t) s.f[t] = __ldg(row + 1 + t);
        en_rebuild_needed(g, P, s, stack, maxd, d, lane);
        u64 item = 0;
        if (d == P.k - 1 || dfs) {
            item = en_dfs_from(g, P, s, stack, maxd, d, fast, lane);
        } else {
            i64 lo, hi, vlo, vhi;
            const int* src = en_window(g, P, s, stack, maxd, d, lo, hi, vlo, vhi, lane);
            en_append_accepted(g, P, s, d, src, lo, hi, lc + 1, lane, [&](bool ok, int c, u64 slot, int) {
                if (ok && slot < (u64)cap) {
                    int* o = out + (i64)slot * (d + 2);
                    o[0] = q;
                    for (int t = 0; t < d; ++t) o[1 + t] = s.f[t];
                    o[1 + d] = c;
                }
                unsigned spill = __ballot_sync(LA_FULL_MASK, ok && slot >= (u64)cap);
                while (spill) {  // no room in the next level: search these candidates here, depth first
                    const int b = __ffs(spill) - 1;
                    spill &= spill - 1;
                    s.f[d] = __shfl_sync(LA_FULL_MASK, c, b);
                    const u64 sub = en_dfs_from(g, P, s, stack, maxd, d + 1, fast, lane);
                    item += sub;
                    if (item < sub) over = true;
                }
            });
            __syncwarp();
        }
        en_add_count(local, item, over);
    }
    en_flush(counts, flags, curq, local, over, lane);
}
