"""Compiled loop of :mod:`._counter_random`: the Philox words of chosen rows.

The Gaussian matrices of :mod:`._counter_random` draw the entries of feature
block ``b`` from the Philox-4x64-10 stream with key ``(key0, key1)`` and
counter ``(0, 0, 0, b)`` (Salmon et al. 2011), as NumPy's
``numpy.random.Philox`` produces it: word ``w`` of the stream is output
lane ``w % 4`` of the bijection applied to the counter ``(w // 4 + 1, 0,
0, b)`` (NumPy increments the counter before each group of four words).
Computing a word from its counter lets a transform generate the rows of
the features it touches only, instead of whole blocks of them.
"""

import numpy as np

from ._numba import intrinsic, ir, kernel, types

# Philox-4x64's multipliers and key increments (Random123's constants).
_M0 = np.uint64(0xD2E7470EE14C6C93)
_M1 = np.uint64(0xCA5A826395121157)
_W0 = np.uint64(0x9E3779B97F4A7C15)
_W1 = np.uint64(0xBB67AE8584CAA73B)
_ROUNDS = 10
_LOW32 = np.uint64(0xFFFFFFFF)
_U8 = np.uint64(8)
_U40 = np.uint64(40)
_F32_ONE = np.float32(1)
_F32_ULP = np.float32(2.0**-24)
_F32_ANGLE = np.float32(2 * np.pi * 2.0**-24)


@intrinsic
def _mulhilo(typingctx, a, b):
    """The high and low 64-bit halves of the 128-bit product ``a * b``.

    An LLVM intrinsic because numba has no 128-bit integers: one
    multiplication instruction on x86-64 and AArch64.
    """
    signature = types.UniTuple(types.uint64, 2)(types.uint64, types.uint64)

    def codegen(context, builder, sig, args):
        wide = ir.IntType(128)
        a, b = (builder.zext(arg, wide) for arg in args)
        product = builder.mul(a, b)
        low = builder.trunc(product, ir.IntType(64))
        high = builder.lshr(product, ir.Constant(wide, 64))
        high = builder.trunc(high, ir.IntType(64))
        return context.make_tuple(builder, sig.return_type, [high, low])

    return signature, codegen


@kernel(inline="always")
def _philox_pair(c, d, c3, key0, key1):
    """Philox-4x64-10 of the counters ``(c, 0, 0, c3)`` and ``(d, 0, 0, c3)``.

    The two are computed round by round together: each round waits for the
    products of the one before, and two independent chains keep the
    multiplier busy while one waits.
    """
    c0, c1, c2, e3 = c, np.uint64(0), np.uint64(0), c3
    d0, d1, d2, f3 = d, np.uint64(0), np.uint64(0), c3
    for _ in range(_ROUNDS):
        hi0, lo0 = _mulhilo(_M0, c0)
        hi1, lo1 = _mulhilo(_M1, c2)
        gi0, go0 = _mulhilo(_M0, d0)
        gi1, go1 = _mulhilo(_M1, d2)
        c0, c1, c2, e3 = hi1 ^ c1 ^ key0, lo1, hi0 ^ e3 ^ key1, lo0
        d0, d1, d2, f3 = gi1 ^ d1 ^ key0, go1, gi0 ^ f3 ^ key1, go0
        key0 += _W0
        key1 += _W1
    return c0, c1, c2, e3, d0, d1, d2, f3


@kernel
def _box_muller_inputs(key0, key1, blocks, first_words, destinations, radius, angle):
    """The uniforms of the Box-Muller transform from the Philox words of chosen rows.

    Feature ``i`` reads the ``k`` words ``first_words[i] ..`` of the stream of
    block ``blocks[i]`` (``k`` the width of ``radius`` and ``angle``). Word
    ``w``'s low 32 bits give the radius uniform ``(floor(low / 2**8) + 1)
    2**-24`` in ``(0, 1]`` (the log must stay finite) and its high 32 bits the
    angle ``floor(high / 2**8) 2 pi 2**-24`` in ``[0, 2 pi)``, written to
    row ``destinations[i]`` of ``radius`` and of ``angle``, in float32, as
    NumPy computes them from the same words. Rows that read the same words
    are best listed next to each other: the second one is a copy.
    """
    n_words = radius.shape[1]
    for i in range(blocks.size):
        if i and blocks[i] == blocks[i - 1] and first_words[i] == first_words[i - 1]:
            # The same words as the row before (a cosine row and its sine
            # row, listed next to each other): copied, not computed again.
            # (Value by value: an array assigned to a row compiles numba's
            # formatting of its shape error, seconds of first use.)
            source, destination = destinations[i - 1], destinations[i]
            for j in range(n_words):
                radius[destination, j] = radius[source, j]
                angle[destination, j] = angle[source, j]
        else:
            _write_row(
                key0, key1, np.uint64(blocks[i]), np.int64(first_words[i]),
                radius[destinations[i]], angle[destinations[i]],
            )


@kernel(inline="always")
def _write_row(key0, key1, block, first, radius_row, angle_row):
    """The uniforms of the words ``first ..`` of block ``block``'s stream."""
    n_words = radius_row.size
    # The counters whose groups of 4 words hold the row's words; the row's
    # word j is lane (first + j) % 4 of counter (first + j) // 4 + 1. Groups
    # by pairs (see _philox_pair); one more group than needed at most, its
    # words not stored.
    for group in range(first // 4, (first + n_words + 3) // 4, 2):
        words = _philox_pair(
            np.uint64(group + 1), np.uint64(group + 2), block, key0, key1
        )
        j = 4 * group - first
        if j >= 0 and j + 8 <= n_words:
            for lane in range(8):
                _store(radius_row, angle_row, j + lane, words[lane])
        else:  # the first or last groups of a row not aligned on 8 words
            for lane in range(8):
                if 0 <= j + lane < n_words:
                    _store(radius_row, angle_row, j + lane, words[lane])


@kernel(inline="always")
def _store(radius_row, angle_row, j, value):
    """The radius and angle uniforms of one word, at ``j``."""
    # Through int32 (the 24-bit integers fit): converting an unsigned 64-bit
    # integer to a float takes several instructions on x86-64.
    low = np.float32(np.int32((value & _LOW32) >> _U8))
    radius_row[j] = (low + _F32_ONE) * _F32_ULP
    angle_row[j] = np.float32(np.int32(value >> _U40)) * _F32_ANGLE
