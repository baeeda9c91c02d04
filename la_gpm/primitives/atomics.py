"""An atomic fetch-and-add on an int64 array element, for numba's parallel loops (the CPU has no atomic in numba's
API: ``prange`` bodies that share a work queue need one).  Used by the dynamic search's splitting drive
(la_gpm/dynamic/cpu.py, SPLIT_EAGER's notes), whose threads take items from one counter: numba's OpenMP layer
schedules a ``prange`` statically (``numba.set_parallel_chunksize`` did not change that here), so a thread that
drew light items idled while another ran the heavy ones."""

from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def fetch_add(typingctx, arr, i, v):
    """``old = arr[i]; arr[i] += v; return old``, atomically (sequentially consistent; plain loads and stores are not
    moved across it); ``arr`` a 1-d int64 array (a view too), ``i`` in range (not checked)."""
    if not (isinstance(arr, types.Array) and arr.ndim == 1 and arr.dtype == types.int64):
        return None
    sig = types.int64(arr, types.intp, types.int64)

    def codegen(context, builder, signature, args):
        a, idx, val = args
        aty = signature.args[0]
        ary = context.make_array(aty)(context, builder, a)
        ptr = cgutils.get_item_pointer(context, builder, aty, ary, [idx], wraparound=False)
        return builder.atomic_rmw("add", ptr, val, "seq_cst")

    return sig, codegen
