"""Scratch memory a map reuses across its transform calls.

A transform's temporaries that are fresh memory at every call cost the page
faults of that memory at every call: glibc returns large freed blocks to
the system (``munmap``, or trimming the top of the heap) and faults them in
again at the next call, so the time of a transform depended on the
allocator's state. A map keeps a :class:`ScratchPool` (in its ``prepared``
state: not pickled) and takes its large temporaries from it: a task (a
chunk, or a group of features in one of the ``n_jobs`` threads) holds one
set of named buffers while it runs, and the sets are reused by the next
tasks and calls, whichever threads run them. The output is then the only
fresh memory of a call.

A set keeps at most ``SCRATCH_MIB`` of buffers (see ``utils._chunking``):
a buffer beyond that (a huge chunk) is allocated for its task only.
"""

import threading
from contextlib import contextmanager

import numpy as np

from ._chunking import SCRATCH_MIB


class ScratchBuffers:
    """Named buffers of one task: :meth:`empty` returns the same memory at every call."""

    def __init__(self):
        self._buffers = {}

    def empty(self, name, shape, dtype):
        """An uninitialized array of ``shape`` and ``dtype`` on buffer ``name``.

        The array of the previous call with ``name`` (in this set) is
        overwritten: a task uses each name for one live array at a time.
        """
        dtype = np.dtype(dtype)
        shape = tuple(int(n) for n in np.atleast_1d(shape))
        n_bytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        buffer = self._buffers.get(name)
        if buffer is None or buffer.nbytes < n_bytes:
            kept = sum(b.nbytes for key, b in self._buffers.items() if key != name)
            buffer = np.empty(max(n_bytes, 1), dtype=np.uint8)
            if kept + buffer.nbytes <= SCRATCH_MIB * 2**20:
                self._buffers[name] = buffer
            else:
                self._buffers.pop(name, None)
        return buffer[:n_bytes].view(dtype).reshape(shape)

    def zeros(self, name, shape, dtype):
        """:meth:`empty`, filled with zeros."""
        array = self.empty(name, shape, dtype)
        array.fill(0)
        return array


class ScratchPool:
    """Sets of scratch buffers, one per task running at once (see the module docstring)."""

    def __init__(self):
        self._free = []
        self._lock = threading.Lock()

    @contextmanager
    def buffers(self):
        """A set of buffers of its own for the calling task, returned to the pool after."""
        with self._lock:
            buffers = self._free.pop() if self._free else ScratchBuffers()
        try:
            yield buffers
        finally:
            with self._lock:
                self._free.append(buffers)


@contextmanager
def task_buffers(pool):
    """``pool.buffers()``, or None where there is no pool (fresh memory)."""
    if pool is None:
        yield None
    else:
        with pool.buffers() as buffers:
            yield buffers


def empty(scratch, name, shape, dtype):
    """``scratch.empty(name, shape, dtype)``, or a fresh array where ``scratch`` is None."""
    if scratch is None:
        return np.empty(shape, dtype=dtype)
    return scratch.empty(name, shape, dtype)


def zeros(scratch, name, shape, dtype):
    """``scratch.zeros(name, shape, dtype)``, or a fresh array where ``scratch`` is None."""
    if scratch is None:
        return np.zeros(shape, dtype=dtype)
    return scratch.zeros(name, shape, dtype)
