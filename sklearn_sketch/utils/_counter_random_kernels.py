"""Compiled generation of counter-based random matrices, and products with them.

The loops behind ``utils._counter_random`` (which defines the matrices and
wraps these kernels) and ``minwise._projection`` (``X @ R``): counters are
mixed into random words, words into uniforms, uniforms into Gaussian or
Rademacher entries, and, for a product, the entries of each generated block
of rows of ``R`` are multiplied by the stored entries of a CSR chunk that
fall in it. Every kernel works on a slice of the columns of ``R``, so that
the package's threads (``n_jobs``) can share one product by columns, each
generating and multiplying its own columns without the GIL.

This module holds its own copies of the mixers (SplitMix64's finalizer, as
``utils._hashing.mix64``, and the Philox-4x64-10 bijection NumPy's
``np.random.Philox`` computes): a kernel calls compiled functions of its own
module only. Tests pin both copies to those references.

All hash arithmetic is uint64 with ``np.uint64`` constants (a signed operand
would turn it into float64); products wrap modulo ``2**64``. The
transcendental functions of Box-Muller are the C library's float32 ``logf``,
``cosf`` and ``sinf`` (within an ulp of the exact values), and ``sqrt`` is
correctly rounded.
"""

import math

import numpy as np

from ._numba import kernel

_U8 = np.uint64(8)
_U27 = np.uint64(27)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_U0 = np.uint64(0)
_U1 = np.uint64(1)
_U2 = np.uint64(2)
_U3 = np.uint64(3)
_LOW32 = np.uint64(0xFFFFFFFF)
# No Philox call (a counter no block reaches).
_NO_CALL = np.uint64(2**64 - 1)
_MIX_M1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_M2 = np.uint64(0x94D049BB133111EB)
_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
# Philox-4x64 multipliers and key increments (Salmon et al. 2011, Random123).
_PHILOX_M0 = np.uint64(0xD2E7470EE14C6C93)
_PHILOX_M1 = np.uint64(0xCA5A826395121157)
_PHILOX_W0 = np.uint64(0x9E3779B97F4A7C15)
_PHILOX_W1 = np.uint64(0xBB67AE8584CAA73B)
_TWO_TO_MINUS_24 = np.float32(2.0**-24)
_ANGLE_STEP = np.float32(2 * np.pi * 2.0**-24)
# Features per block of generated rows (utils._counter_random.FEATURE_BLOCK)
# and Gaussian pairs per feature pair of a block (half the block's rows).
_BLOCK = 256
_HALF_BLOCK = 128


@kernel(inline="always")
def _mix(z):
    """SplitMix64's finalizer (``utils._hashing.mix64``), a uint64 bijection."""
    z = (z ^ (z >> _U30)) * _MIX_M1
    z = (z ^ (z >> _U27)) * _MIX_M2
    return z ^ (z >> _U31)


@kernel(inline="always")
def _splitmix(seed, counter):
    """SplitMix64 output ``counter - 1`` of the stream seeded by ``seed``."""
    return _mix(seed + counter * _GOLDEN_GAMMA)


@kernel(inline="always")
def _mulhi(a, b):
    """The high 64 bits of the 128-bit product ``a * b`` (uint64)."""
    a_low, a_high = a & _LOW32, a >> _U32
    b_low, b_high = b & _LOW32, b >> _U32
    cross_low, cross_high = a_low * b_high, a_high * b_low
    middle = ((a_low * b_low) >> _U32) + (cross_low & _LOW32) + (cross_high & _LOW32)
    return a_high * b_high + (cross_low >> _U32) + (cross_high >> _U32) + (middle >> _U32)


@kernel
def _philox(x0, x1, x2, x3, k0, k1, words):
    """Philox-4x64-10 of counter ``(x0, x1, x2, x3)`` under key ``(k0, k1)``.

    Writes the four output words to ``words`` (NumPy's ``Philox`` gives them
    in this order).
    """
    for _ in range(10):
        high0, low0 = _mulhi(_PHILOX_M0, x0), _PHILOX_M0 * x0
        high1, low1 = _mulhi(_PHILOX_M1, x2), _PHILOX_M1 * x2
        x0, x1, x2, x3 = high1 ^ x1 ^ k0, low1, high0 ^ x3 ^ k1, low0
        k0 += _PHILOX_W0
        k1 += _PHILOX_W1
    words[0], words[1], words[2], words[3] = x0, x1, x2, x3


@kernel(inline="always")
def _box_muller(word):
    """Two N(0, 1) float32 values from the two 24-bit uniforms of a word.

    The top 24 bits of the low half give the radius uniform, in ``(0, 1]``
    (the logarithm stays finite); those of the high half the angle, in
    ``[0, 2 pi)``.
    """
    radius = (np.float32((word & _LOW32) >> _U8) + np.float32(1)) * _TWO_TO_MINUS_24
    radius = math.sqrt(np.float32(-2) * math.log(radius))
    angle = np.float32(word >> np.uint64(40)) * _ANGLE_STEP
    return math.cos(angle) * radius, math.sin(angle) * radius


@kernel
def _gaussian_rows(k0, k1, blocks, slots, n_columns, start, stop, words, out):
    """Columns ``start:stop`` of the Gaussian rows of feature ``blocks``.

    Block ``blocks[i]`` goes to rows ``slots[i] * 256`` onwards of ``out``
    (skipped where ``slots[i] < 0``). Its ``256 x n_columns`` row-major
    entries are the Box-Muller pairs of Philox words ``0, 1, ...`` of
    counter ``(0, 0, 0, block)``: pair ``p`` gives the cosine part of entry
    ``p`` and the sine part of entry ``p + 128 * n_columns``. ``words`` is
    scratch of four uint64.
    """
    for i in range(blocks.shape[0]):
        if slots[i] < 0:
            continue
        block = np.uint64(blocks[i])
        first = slots[i] * _BLOCK
        for row in range(_HALF_BLOCK):
            loaded = _NO_CALL
            for column in range(start, stop):
                pair = np.uint64(row * n_columns + column)
                call = pair >> _U2
                if call != loaded:
                    # NumPy's Philox adds 1 to the counter before each call.
                    _philox(call + _U1, np.uint64(0), np.uint64(0), block, k0, k1, words)
                    loaded = call
                cosine, sine = _box_muller(words[pair & _U3])
                out[first + row, column - start] = cosine
                out[first + _HALF_BLOCK + row, column - start] = sine


@kernel
def _rademacher_rows(seed, blocks, slots, n_words, start, stop, out):
    """Columns ``start:stop`` of the random signs of feature ``blocks``.

    As :func:`_gaussian_rows`; entry ``(i, j)`` is ``1 - 2 b`` with ``b``
    bit ``j % 64`` of SplitMix64 output ``i * n_words + j // 64``.
    """
    for i in range(blocks.shape[0]):
        if slots[i] < 0:
            continue
        for row in range(_BLOCK):
            feature = np.uint64(blocks[i] * _BLOCK + row)
            base = feature * np.uint64(n_words) + _U1
            word = np.uint64(0)
            for column in range(start, stop):
                if column == start or column & 63 == 0:
                    word = _splitmix(seed, base + np.uint64(column >> 6))
                bit = (word >> np.uint64(column & 63)) & _U1
                out[slots[i] * _BLOCK + row, column - start] = np.float32(1) - np.float32(
                    2
                ) * np.float32(bit)


@kernel
def _signed_buckets(seed, features, group, n_groups, bucket_bits, buckets, signs):
    """Count Sketch ``group`` of ``n_groups``: bucket and sign of each feature."""
    for i in range(features.shape[0]):
        word = _splitmix(seed, np.uint64(features[i]) * np.uint64(n_groups)
                         + np.uint64(group) + _U1)
        # (A shift by 64 is undefined: one bucket is bucket 0.)
        buckets[i] = word >> np.uint64(64 - bucket_bits) if bucket_bits else _U0
        signs[i] = np.float32(1) - np.float32(2) * np.float32(word & _U1)


@kernel
def _project_generated(indptr, indices, data, gaussian, k0, k1, n_columns, groups, span,
                       start, stop, cursor, slots, blocks, words, rows, partial, out):
    """Columns ``start:stop`` of ``X @ R``, R generated by groups of ``span`` features.

    For each group of ``groups`` (increasing), the blocks of R its entries
    touch are generated (Gaussian under Philox key ``(k0, k1)``, else
    Rademacher under SplitMix64 seed ``k0``) into ``rows``, and each row's
    entries in the group are summed in their order into ``partial``, which
    is then added to the row of ``out`` (zeros at first). The groups depend
    on n_features only, so every row is summed in the same order however
    the rows are chunked or the columns shared. ``cursor`` (one per row),
    ``slots`` and ``blocks`` (one per block of a group) are scratch.
    """
    n_rows = indptr.shape[0] - 1
    n_blocks = span // _BLOCK
    width = stop - start
    for row in range(n_rows):
        cursor[row] = indptr[row]
    for group in groups:
        end = (group + 1) * span
        n_touched = _touched_blocks(indptr, indices, cursor, group * span, end, slots)
        if n_touched == 0:
            continue
        for block in range(n_blocks):
            blocks[block] = group * n_blocks + block
        if gaussian:
            _gaussian_rows(k0, k1, blocks, slots, n_columns, start, stop, words, rows)
        else:
            n_words = (n_columns + 63) // 64
            _rademacher_rows(k0, blocks, slots, n_words, start, stop, rows)
        for row in range(n_rows):
            position, last = cursor[row], indptr[row + 1]
            if position == last or indices[position] >= end:
                continue
            partial[:width] = 0
            while position < last and indices[position] < end:
                local = indices[position] - group * span
                source = slots[local // _BLOCK] * _BLOCK + local % _BLOCK
                value = data[position]
                for column in range(width):
                    partial[column] += value * rows[source, column]
                position += 1
            for column in range(width):
                out[row, start + column] += partial[column]
            cursor[row] = position


@kernel(inline="always")
def _touched_blocks(indptr, indices, cursor, first, end, slots):
    """Number the blocks of features ``first:end`` that the rows touch from ``cursor``.

    ``slots[b]`` becomes the rank of local block ``b`` among the touched
    ones (in order of first touch), -1 for the others.
    """
    slots[:] = -1
    n_touched = 0
    for row in range(indptr.shape[0] - 1):
        position, last = cursor[row], indptr[row + 1]
        while position < last and indices[position] < end:
            block = (indices[position] - first) // _BLOCK
            if slots[block] < 0:
                slots[block] = n_touched
                n_touched += 1
            position += 1
    return n_touched


@kernel
def _project_hashed(indptr, indices, data, seed, n_columns, group_columns, bucket_bits,
                    start, stop, blocks, slots, words, rows, partial, out):
    """Columns ``start:stop`` of ``X @ R`` for "hashed_gaussian".

    Column group ``g`` (``group_columns`` columns) is the product of Count
    Sketch ``g`` of the features (:func:`_signed_buckets`: bucket ``h`` and
    sign ``s`` per feature) with the Gaussian matrix of blocks ``g *
    len(blocks)`` onwards: each row sums ``(s x) G_g[h]`` over its entries,
    in their order. ``slots`` (``0, 1, ...``), ``blocks`` and ``words`` are
    scratch.
    """
    n_groups = (n_columns + group_columns - 1) // group_columns
    n_blocks = blocks.shape[0]
    for group in range(start // group_columns, (stop - 1) // group_columns + 1):
        first = group * group_columns
        group_width = min(group_columns, n_columns - first)
        low, high = max(start, first) - first, min(stop, first + group_width) - first
        for block in range(n_blocks):
            blocks[block] = group * n_blocks + block
        _gaussian_rows(seed, np.uint64(0), blocks, slots, group_width, low, high, words, rows)
        for row in range(indptr.shape[0] - 1):
            partial[: high - low] = 0
            for position in range(indptr[row], indptr[row + 1]):
                counter = np.uint64(indices[position]) * np.uint64(n_groups) + np.uint64(group)
                word = _splitmix(seed, counter + _U1)
                bucket = word >> np.uint64(64 - bucket_bits) if bucket_bits else _U0
                value = data[position]
                if word & _U1:
                    value = -value
                for column in range(high - low):
                    partial[column] += value * rows[bucket, column]
            for column in range(high - low):
                out[row, first + low + column] = partial[column]
