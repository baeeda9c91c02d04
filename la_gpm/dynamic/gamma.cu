// Batch-dynamic subgraph matching (GAMMA, Qiu et al. 2024): one warp per work item.
//
// A work item (j, p, base, lo, hi, side) maps start pair p of the plan onto update j and searches the rest of
// the query depth first (la_gpm/dynamic/cpu.py is the same search, serial per item; both read the same
// tables, documented in la_gpm/dynamic/query.py).  Warps are persistent: each takes the next item from a
// global counter, so a warp that finishes early takes more (heavy items come first: the host sorts them).
// Candidate generation is warp-cooperative: the 32 lanes read 32 consecutive arcs of the base row
// (coalesced), each lane checks its candidate (arc state and order id, edge label, candidate-table bit,
// injectivity, the other parents by binary search, the anti-parents for induced matching), and a ballot
// compacts the survivors into the level's buffer.  The last level is counted with popc, not stored,
// unless the matches are listed.
//
// Exactly once (notes/001_gamma.md §1): working on update i, an arc may serve a query edge only if it
// is kept (state 0) or has the searched side's state `nw` with order id > i; a query non-edge (induced)
// may land on a pair only if it is no arc or an arc of the other side's state `od_s` with order id > i.
//
// Hand-ons (counting): a warp whose piece has run past `budget_ns` while the item counter is spent (other warps
// are idle or soon will be) stops and writes everything it has not searched as pieces for the next launch:
// at each level l from its piece's first to last - 2, the candidates after its current one (at its current
// level, that one too), each a piece (item, l + 1, the path's vertices of levels 2 .. l).  A piece searches from
// its first level down like an item, its vertices of the levels above fixed (the symmetry bounds, the order ids
// and the anti-parents read them as the item would have).  Nothing is searched twice; the host launches the
// pieces (la_gpm/dynamic/gpu.py) until none is left.
//
// Twin levels (counting; F_TWIN's first level, la_gpm/dynamic/query.py): a tail of three or more query vertices of
// one label with the same parents, chained by their bounds, has the r-subsets of the first one's set as images:
// C(c, r), counted as cpu._twins does, not enumerated.

#include "common.cuh"

#define MAXK 32

struct Tables {
    const int* order; const int* npar; const int* par; const int* parel;
    const int* nanti; const int* anti; const int* ninj; const int* inj;
    const int* nlow; const int* low; const int* nup; const int* up; const int* indep; int k;
};

struct Union {
    const long long* rows; const int* idx;  // rows[2v], rows[2v+1]: begin and end of v's arcs in idx
    const signed char* st; const int* od; const long long* el; int el_on;
    const unsigned* ct; const long long* cptr; const int* cidx;  // candidate table; candidate lists per query vertex
};

// scan the candidate list (a binary search per parent per candidate) rather than the shortest parent row
// (one look-up per arc)?  The same rule as la_gpm/dynamic/cpu.py:list_cheaper.
__device__ __forceinline__ bool list_cheaper(long long nc, int npar, long long row) {
    int lg = 1;
    while ((1ll << lg) < row) ++lg;
    return nc * npar * lg < row;
}

__device__ __forceinline__ bool edge_ok(const Union& U, long long q, int nw, long long i) {
    int s = U.st[q];
    return s == 0 || (s == nw && U.od[q] > i);
}

// Candidates of level l (all lanes return the count; with `store` they are written to buf[l]).
// base >= 0: scan that parent's row ([lo_off, hi_off) of it when hi_off >= 0); -2: scan the query vertex's
// candidate list ([lo_off, hi_off)), every parent checked by binary search; -1: choose here.
// With `emit`, each lane with a candidate writes a whole match row at out[(at + rank) * k + ...].
__device__ long long gen(int l, int p, const long long* M, long long i, int nw, int ods, int base, long long lo_off,
                         long long hi_off, const Tables& T, const Union& U, int* buf, bool store, bool emit,
                         long long* out, long long at) {
    const int lane = threadIdx.x & 31;
    const int k = T.k;
    const int tb = (p * k + l) * k;
    const int npl = T.npar[p * k + l];
    const int qv = T.order[p * k + l];
    const long long nc = U.cptr[qv + 1] - U.cptr[qv];
    if (base == -1) {  // the shortest parent row, or the candidate list where cheaper
        base = 0;
        long long w0 = M[T.par[tb]];
        long long best = U.rows[2 * w0 + 1] - U.rows[2 * w0];
        for (int s = 1; s < npl; ++s) {
            long long w = M[T.par[tb + s]];
            long long d = U.rows[2 * w + 1] - U.rows[2 * w];
            if (d < best) { best = d; base = s; }
        }
        if (list_cheaper(nc, npl, best)) base = -2;
    }
    const bool by_list = base == -2;
    const int* src = by_list ? U.cidx : U.idx;
    long long lo, hi;
    if (by_list) {
        lo = U.cptr[qv]; hi = U.cptr[qv + 1];
    } else {
        const long long bv = M[T.par[tb + base]];
        lo = U.rows[2 * bv]; hi = U.rows[2 * bv + 1];
    }
    if (hi_off >= 0) { hi = lo + hi_off; lo = lo + lo_off; }
    // symmetry bounds: rows are sorted, so c > M[low] and c < M[up] are a window of the base row
    // (a level left out of the search, M = -1, bounds nothing: the pair count of gamma_items)
    for (int t = 0; t < T.nlow[p * k + l]; ++t) {
        const long long m = M[T.low[tb + t]];
        if (m < 0) continue;
        const long long b = binary_lower_bound(src, lo, hi, (int)m + 1);
        lo = b > lo ? b : lo;
    }
    for (int t = 0; t < T.nup[p * k + l]; ++t) {
        const long long m = M[T.up[tb + t]];
        if (m < 0) continue;
        const long long b = binary_lower_bound(src, lo, hi, (int)m);
        hi = b < hi ? b : hi;
    }
    const int bel = by_list ? -1 : T.parel[tb + base];
    const unsigned qbit = 1u << qv;
    const int ninj = T.ninj[p * k + l], nanti = T.nanti[p * k + l];
    long long cnt = 0;
    for (long long q0 = lo; q0 < hi; q0 += 32) {
        const long long q = q0 + lane;
        bool ok = q < hi;
        int c = 0;
        if (ok && by_list) {
            c = U.cidx[q];
        } else if (ok) {
            ok = edge_ok(U, q, nw, i) && !(U.el_on && bel >= 0 && U.el[q] != bel);
            if (ok) { c = U.idx[q]; ok = (U.ct[c] & qbit) != 0; }
        }
        if (ok) {
            for (int t = 0; ok && t < ninj; ++t) ok = M[T.inj[tb + t]] != c;
            for (int t = 0; ok && t < npl; ++t) {
                if (t == base) continue;  // (never skips in list mode: base is -2)
                const long long w = M[T.par[tb + t]];
                const long long pos = binary_find(U.idx, U.rows[2 * w], U.rows[2 * w + 1], c);
                ok = pos >= 0 && edge_ok(U, pos, nw, i) &&
                     !(U.el_on && T.parel[tb + t] >= 0 && U.el[pos] != T.parel[tb + t]);
            }
            for (int t = 0; ok && t < nanti; ++t) {
                const long long w = M[T.anti[tb + t]];
                const long long pos = binary_find(U.idx, U.rows[2 * w], U.rows[2 * w + 1], c);
                if (pos >= 0) ok = U.st[pos] == ods && U.od[pos] > i;
            }
        }
        const unsigned bal = __ballot_sync(LA_FULL_MASK, ok);
        const long long rank = cnt + __popc(bal & lanes_below(lane));
        if (ok && store) buf[rank] = c;
        if (ok && emit) {
            long long* row = out + (at + rank) * k;
            for (int lv = 0; lv < l; ++lv) row[T.order[p * k + lv]] = M[lv];
            row[T.order[p * k + l]] = c;
        }
        cnt += __popc(bal);
    }
    return cnt;
}

// Pairs (x in a[:na], y in b[:nb]), x != y, of two ascending lists: all (rel 1), y > x (rel 2), y < x (rel 3).
// Each lane takes every 32nd y and binary-searches it in a; a warp sum gives the total (all lanes).
__device__ long long warp_pairs(const int* a, long long na, const int* b, long long nb, int rel) {
    const int lane = threadIdx.x & 31;
    long long s = 0;
    for (long long t = lane; t < nb; t += 32) {
        const int y = b[t];
        // a is this warp's own buffer, written in this launch: plain loads, no __ldg
        const long long lb = buffer_lower_bound(a, 0LL, na, y);
        const bool eq = lb < na && a[lb] == y;
        s += rel == 1 ? (eq ? 1 : 0) : rel == 2 ? lb : na - lb - (eq ? 1 : 0);
    }
    s = (long long)__shfl_sync(LA_FULL_MASK, warp_sum((unsigned long long)s), 0);
    return rel == 1 ? na * nb - s : s;
}

__device__ __forceinline__ long long now_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return (long long)t;
}

// The images of r twin levels drawn from a set of c candidates, C(c, r), or -1 past 2^62 (then they are enumerated):
// every twin level's candidates are the first one's bounded by the twin before it (la_gpm/dynamic/query.py, F_TWIN)
__device__ __forceinline__ long long twins(long long c, int r) {
    const long long lim = 1ll << 62;
    if (c < r) return 0;
    long long v = 1;
    for (int t = 0; t < r; ++t) {
        const long long f = c - t;
        if (v > lim / f) return -1;
        v = v * f / (t + 1);   // a product of t + 1 consecutive integers: divisible by (t + 1)!
    }
    return v;
}

// The hand-on of a warp at level lv (candidate pos[lv] not yet searched): the candidates after the current one
// at levels d .. min(lv, last - 2), and at lv (<= last - 2) the current one too, written as pieces at the
// round's tail (hcur).  False (nothing written) when they do not fit in hcap.  All lanes return the same.
__device__ bool hand_on(int d, int lv, int last, const long long* M, const long long* cnt, const long long* pos,
                        const int* buf, long long maxdeg, long long iu, int pw, unsigned long long* hcur,
                        long long hcap, long long* hitem, int* hdepth, int* hpre) {
    const int lane = threadIdx.x & 31;
    const int top = lv < last - 2 ? lv : last - 2;
    long long need = 0;
    for (int l = d; l <= top; ++l) need += cnt[l] - pos[l] - (l < lv ? 1 : 0);
    if (need <= 0) return false;
    unsigned long long at = 0;
    int ok = 0;
    if (lane == 0) {
        unsigned long long cur = *(volatile unsigned long long*)hcur;
        while (cur + (unsigned long long)need <= (unsigned long long)hcap) {
            const unsigned long long was = atomicCAS(hcur, cur, cur + (unsigned long long)need);
            if (was == cur) { ok = 1; at = cur; break; }
            cur = was;
        }
    }
    ok = __shfl_sync(LA_FULL_MASK, ok, 0);
    if (!ok) return false;
    at = __shfl_sync(LA_FULL_MASK, at, 0);
    for (int l = d; l <= top; ++l) {
        const long long from = pos[l] + (l < lv ? 1 : 0);
        const long long n = cnt[l] - from;
        for (long long t = lane; t < n; t += 32) {
            const long long r = (long long)at + t;
            hitem[r] = iu;
            hdepth[r] = l + 1;
            int* row = hpre + r * pw;
            for (int x = 2; x < l; ++x) row[x - 2] = (int)M[x];
            row[l - 2] = buf[l * maxdeg + from + t];
        }
        at += (unsigned long long)n;
    }
    return true;
}

// One launch of the search: the items (pieces == 0: work unit t is item t, from level 2) or the pieces
// (pitem: the item, pdepth: the first level searched, ppre: the path's vertices of levels 2 .. pdepth - 1, pw a
// row).  Each unit's matches are added to its item's count (counts[item], its carries at counts[nall + item]: nall
// items; a unit's own count stays below 2^62, the sum of an item's pieces need not).  budget_ns > 0 (counting): hand-ons (above) to the
// next launch's pieces hitem / hdepth / hpre, hcap of them at most, hcur their count.
extern "C" __global__ void gamma_items(const long long* __restrict__ items, long long nitems,
                                       const long long* __restrict__ upd,
                                       const int* order, const int* npar, const int* par, const int* parel,
                                       const int* nanti, const int* anti, const int* ninj, const int* inj,
                                       const int* nlow, const int* low, const int* nup, const int* up,
                                       const int* indep, const int* twin, int k,
                                       const long long* urows, const int* uidx, const signed char* ust,
                                       const int* uod, const long long* uel, int el_on, const unsigned* ct,
                                       const long long* cptr, const int* cidx,
                                       int* bufs, long long maxdeg, unsigned long long* next,
                                       unsigned long long* counts, const long long* offsets, long long* out,
                                       int listing, long long nall, int pieces, const long long* pitem,
                                       const int* pdepth,
                                       const int* ppre, int pw, long long budget_ns, unsigned long long* hcur,
                                       long long hcap, long long* hitem, int* hdepth, int* hpre) {
    __shared__ long long sM[(1024 / 32) * MAXK];
    __shared__ long long sCnt[(1024 / 32) * MAXK];
    __shared__ long long sPos[(1024 / 32) * MAXK];
    const int lane = threadIdx.x & 31;
    const int wib = threadIdx.x >> 5;
    long long* M = sM + wib * MAXK;
    long long* cnt = sCnt + wib * MAXK;
    long long* pos = sPos + wib * MAXK;
    const long long gw = (long long)blockIdx.x * (blockDim.x >> 5) + wib;
    int* buf = bufs + gw * (long long)k * maxdeg;
    const Tables T{order, npar, par, parel, nanti, anti, ninj, inj, nlow, low, nup, up, indep, k};
    const Union U{urows, uidx, ust, uod, uel, el_on, ct, cptr, cidx};
    const bool list = listing != 0;
    const int last = k - 1;
    while (true) {
        const unsigned long long it = warp_next_item(next, lane);
        if (it >= (unsigned long long)nitems) break;
        const long long iu = pieces ? pitem[it] : (long long)it;   // the item
        const int d = pieces ? pdepth[it] : 2;                      // the first level searched
        const long long* item = items + iu * 6;
        const long long j = item[0];
        const int p = (int)item[1];
        const int nw = (int)item[5];  // the side searched: 1 inserted (positive), 2 deleted (negative)
        const int ods = 3 - nw;
        const long long at = list ? offsets[iu] : 0;
        if (lane == 0) {
            M[0] = upd[2 * j];
            M[1] = upd[2 * j + 1];
            for (int l = 2; l < d; ++l) M[l] = ppre[(long long)it * pw + l - 2];
        }
        __syncwarp();
        long long total = 0;
        if (k == 2) {
            if (list && lane == 0) {
                out[at * k + order[p * k]] = M[0];
                out[at * k + order[p * k + 1]] = M[1];
            }
            total = 1;
        } else {
            const bool deeper = last > d;
            const long long c2 = gen(d, p, M, j, nw, ods, d == 2 ? (int)item[2] : -1, d == 2 ? item[3] : 0,
                                     d == 2 ? item[4] : -1, T, U, buf + d * maxdeg, deeper, list && !deeper, out,
                                     at);
            // counting with an independent last level (indep > 0): the last two levels are one pair count
            const int rel = list ? 0 : indep[p];
            // twin levels tw .. last (counting): their images counted from one level's set, C(c, r), where three or
            // more of them are left (an item's level 2 only when its range is the whole row or list)
            const int tw = list ? 0 : twin[p];
            long long tv = -1;
            if (tw > 0 && d >= tw && last - d >= 2) {
                bool whole = d > 2 || item[3] == 0;
                if (d == 2 && whole) {
                    long long n2;
                    if (item[2] == -2) {
                        const int q2 = order[p * k + 2];
                        n2 = cptr[q2 + 1] - cptr[q2];
                    } else {
                        const long long w2 = M[par[(p * k + 2) * k + item[2]]];
                        n2 = urows[2 * w2 + 1] - urows[2 * w2];
                    }
                    whole = item[4] >= n2;
                }
                if (whole) tv = twins(c2, last - d + 1);
            }
            if (tv >= 0) {
                total = tv;
            } else if (!deeper) {
                total = c2;
            } else if (rel > 0 && last == d + 1) {
                if (c2 > 0) {
                    __syncwarp();
                    if (lane == 0) M[d] = -1;
                    __syncwarp();
                    const long long c3 = gen(last, p, M, j, nw, ods, -1, 0, -1, T, U, buf + last * maxdeg, true,
                                             false, out, 0);
                    __syncwarp();
                    total = warp_pairs(buf + d * maxdeg, c2, buf + last * maxdeg, c3, rel);
                }
            } else {
                if (lane == 0) { cnt[d] = c2; pos[d] = 0; }
                __syncwarp();
                // hand-ons: looked at every 16th step (every step with a budget of 1 us or less: tests), once the
                // piece is past its budget and the counter spent
                bool watch = budget_ns > 0 && d < last - 1;
                const long long t0 = watch ? now_ns() : 0;
                const int every = budget_ns > 1000 ? 15 : 0;
                int steps = 0;
                int lv = d;
                while (true) {
                    if (pos[lv] >= cnt[lv]) {
                        if (lv == d) break;
                        __syncwarp();
                        if (lane == 0) pos[lv - 1] += 1;
                        lv -= 1;
                        __syncwarp();
                        continue;
                    }
                    if (watch && (++steps & every) == 0) {
                        int go = 0;
                        if (lane == 0)
                            go = now_ns() - t0 > budget_ns && *(volatile unsigned long long*)next >=
                                 (unsigned long long)nitems;
                        go = __shfl_sync(LA_FULL_MASK, go, 0);
                        if (go) {
                            watch = false;
                            if (hand_on(d, lv, last, M, cnt, pos, buf, maxdeg, iu, pw, hcur, hcap, hitem, hdepth,
                                        hpre)) {
                                if (lv <= last - 2) break;   // all that was left is handed on
                                // lv == last - 1: this warp ends its level; the levels above have nothing left
                                __syncwarp();
                                if (lane == 0)
                                    for (int l = d; l < lv; ++l) cnt[l] = pos[l] + 1;
                                __syncwarp();
                            }
                        }
                    }
                    __syncwarp();
                    if (lane == 0) M[lv] = buf[lv * maxdeg + pos[lv]];
                    __syncwarp();
                    if (lv + 1 == last) {
                        total += gen(last, p, M, j, nw, ods, -1, 0, -1, T, U, buf + last * maxdeg, false, list,
                                     out, at + total);
                        __syncwarp();
                        if (lane == 0) pos[lv] += 1;
                        __syncwarp();
                    } else if (tw > 0 && lv + 1 >= tw && last - lv >= 3 &&
                               (tv = twins(gen(lv + 1, p, M, j, nw, ods, -1, 0, -1, T, U, buf + (lv + 1) * maxdeg,
                                               false, false, out, 0), last - lv)) >= 0 &&
                               total <= (1ll << 62) - tv) {
                        // levels lv + 1 .. last are twins: their images from level lv + 1's set, counted
                        total += tv;
                        __syncwarp();
                        if (lane == 0) pos[lv] += 1;
                        __syncwarp();
                    } else if (rel > 0 && lv + 2 == last) {
                        const long long a = gen(lv + 1, p, M, j, nw, ods, -1, 0, -1, T, U, buf + (lv + 1) * maxdeg,
                                                true, false, out, 0);
                        __syncwarp();
                        if (a > 0) {
                            if (lane == 0) M[lv + 1] = -1;
                            __syncwarp();
                            const long long b = gen(last, p, M, j, nw, ods, -1, 0, -1, T, U, buf + last * maxdeg,
                                                    true, false, out, 0);
                            __syncwarp();
                            total += warp_pairs(buf + (lv + 1) * maxdeg, a, buf + last * maxdeg, b, rel);
                        }
                        __syncwarp();
                        if (lane == 0) pos[lv] += 1;
                        __syncwarp();
                    } else {
                        const long long c = gen(lv + 1, p, M, j, nw, ods, -1, 0, -1, T, U, buf + (lv + 1) * maxdeg,
                                                true, false, out, 0);
                        __syncwarp();
                        if (lane == 0) { cnt[lv + 1] = c; pos[lv + 1] = 0; }
                        lv += 1;
                        __syncwarp();
                    }
                }
            }
        }
        if (lane == 0 && total != 0) {   // counts[iu] + 2^64 counts[nall + iu]: an item's sum of pieces, exact
            const unsigned long long was = atomicAdd(counts + iu, (unsigned long long)total);
            if (was + (unsigned long long)total < was) atomicAdd(counts + nall + iu, 1ull);
        }
        __syncwarp();
    }
}
