"""Compiled hash primitives and their loops over a chunk's entries.

The one compiled home of the hash functions of ``utils._hashing`` (which
draws them, documents them and wraps these loops): MurmurHash3's ``fmix32``,
multiply-add-shift hashes, b-bit codes and the polynomial hash modulo
``P = 2**61 - 1``. Each primitive is an inlined scalar function; the
kernels apply them to whole arrays (a chunk's column indices, a table's
keys, the locations the hashers chose).

Choice of layout: a family's own kernels (one-permutation hashing and its
densification, the minima of ``k`` minwise hashes, in
``minwise._minwise_kernels``) never call these primitives. They consume the
arrays computed here (the hash values of a chunk's entries), because a
kernel calls jitted functions of its own module only: numba decides whether
a cached compile is stale from the caller's file alone. One exception: the
32-bit-word b-bit code of :func:`_code_row_32` is also written out in
``minwise._minwise_kernels._write_codes``, where one-permutation hashing writes
its output's columns in the same pass as the bin minima (no array computed
here can stand for a code that depends on the bin and on the location the
densification picks); the tests compare the two bit for bit.

All arithmetic is uint64 with ``np.uint64`` constants (a signed operand
would turn it into float64); products wrap modulo ``2**64`` as the hashes
require. Validation, dtypes and contiguity are the wrappers' business.
"""

import numpy as np

from ._numba import kernel

_P = np.uint64((1 << 61) - 1)
_LOW31 = np.uint64((1 << 31) - 1)
_LOW30 = np.uint64((1 << 30) - 1)
_LOW32 = np.uint64(0xFFFFFFFF)
_U1 = np.uint64(1)
_U13 = np.uint64(13)
_U16 = np.uint64(16)
_U30 = np.uint64(30)
_U31 = np.uint64(31)
_U32 = np.uint64(32)
_U61 = np.uint64(61)
_U64 = np.uint64(64)
_FMIX_C1 = np.uint64(0x85EBCA6B)
_FMIX_C2 = np.uint64(0xC2B2AE35)


@kernel(inline="always")
def _fmix32(key):
    """MurmurHash3's 32-bit finalizer of a key folded to 32 bits (uint64 in, out)."""
    h = (key & _LOW32) ^ (key >> _U32)
    h ^= h >> _U16
    h = (h * _FMIX_C1) & _LOW32
    h ^= h >> _U13
    h = (h * _FMIX_C2) & _LOW32
    return h ^ (h >> _U16)


@kernel(inline="always")
def _multiply_add_shift(a, b, key):
    """The high 32 bits of ``a * key + b mod 2**64`` (uint64)."""
    return (a * key + b) >> _U32


@kernel(inline="always")
def _fold(x):
    """Partly reduce ``x < 2**64`` modulo P: congruent and ``<= P``."""
    x = (x & _P) + (x >> _U61)
    return (x & _P) + (x >> _U61)


@kernel(inline="always")
def _mulmod(a, b):
    """``a * b`` modulo P, partly reduced, for ``a, b <= 2**61`` (31/30-bit halves)."""
    a_hi, a_lo = a >> _U31, a & _LOW31
    b_hi, b_lo = b >> _U31, b & _LOW31
    middle = a_hi * b_lo + a_lo * b_hi
    total = ((a_hi * b_hi) << _U1) + a_lo * b_lo
    total += middle >> _U30
    total += (middle & _LOW30) << _U31
    return _fold(total)


@kernel
def _fmix32_array(keys, out):
    """``out[i] = fmix32(keys[i])`` for non-negative integer keys."""
    for i in range(keys.size):
        out[i] = _fmix32(np.uint64(keys[i]))


@kernel
def _minwise_hashes(coefficients, indices, out):
    """``out[j, i]``: hash ``j`` of the ``fmix32`` key of ``indices[i]``, as uint32.

    ``coefficients`` holds the ``(a, b)`` of each multiply-add-shift hash.
    One hash at a time over all keys (mixing a key again is cheaper than
    a loop that does not vectorize).
    """
    for j in range(coefficients.shape[0]):
        a, b = coefficients[j, 0], coefficients[j, 1]
        row = out[j]
        for i in range(indices.size):
            row[i] = _multiply_add_shift(a, b, _fmix32(np.uint64(indices[i])))


@kernel
def _polynomial_hash(coefficients, keys, out):
    """Horner's rule modulo P at keys ``< P``, fully reduced.

    ``coefficients[:, 0]`` is the polynomial of every key, or, when it has
    a column per key, ``coefficients[:, i]`` that of key ``i``.
    """
    each = coefficients.shape[1] > 1
    for i in range(keys.size):
        column = i if each else 0
        key = np.uint64(keys[i])
        value = coefficients[0, column]
        for c in range(1, coefficients.shape[0]):
            value = _fold(_mulmod(value, key) + coefficients[c, column])
        out[i] = np.uint64(0) if value == _P else value


@kernel
def _bbit_codes_32(coefficients, locations, b_bits, offsets, out):
    """``out[r, j]``: code of ``locations[r, j]`` by hash ``j`` in a 32-bit
    word, plus ``offsets[j]``.

    One kernel per word (and per layout of the locations), so that a first
    use compiles the one it needs only.
    """
    for r in range(locations.shape[0]):
        _code_row_32(coefficients, locations[r], b_bits, offsets, out[r])


@kernel
def _bbit_codes_64(coefficients, locations, b_bits, fold, offsets, out):
    """:func:`_bbit_codes_32` in a 64-bit word (keys folded first where ``fold``)."""
    for r in range(locations.shape[0]):
        _code_row_64(coefficients, locations[r], b_bits, fold, offsets, out[r])


@kernel
def _bbit_codes_at_32(coefficients, values, positions, b_bits, offsets, out):
    """:func:`_bbit_codes_32` of the locations ``values[positions[r, j]]``.

    ``out`` may be ``positions``: a row's locations are gathered first.
    """
    row = np.empty(positions.shape[1], dtype=np.uint64)
    for r in range(positions.shape[0]):
        for j in range(row.size):
            row[j] = values[positions[r, j]]
        _code_row_32(coefficients, row, b_bits, offsets, out[r])


@kernel
def _bbit_codes_at_64(coefficients, values, positions, b_bits, fold, offsets, out):
    """:func:`_bbit_codes_64` of the locations ``values[positions[r, j]]`` (see
    :func:`_bbit_codes_at_32`)."""
    row = np.empty(positions.shape[1], dtype=np.uint64)
    for r in range(positions.shape[0]):
        for j in range(row.size):
            row[j] = values[positions[r, j]]
        _code_row_64(coefficients, row, b_bits, fold, offsets, out[r])


@kernel
def _locations_at(values, positions, offsets, out):
    """``out[r, j] = values[positions[r, j]] + offsets[j]``: the locations
    themselves (no code). ``out`` may be ``positions``."""
    for r in range(positions.shape[0]):
        for j in range(positions.shape[1]):
            out[r, j] = np.uint64(values[positions[r, j]]) + offsets[j]


@kernel(inline="always")
def _code_row_32(coefficients, locations, b_bits, offsets, out):
    """One row of :func:`_bbit_codes_32`, in a loop that vectorizes.

    The code of a location in a 32-bit word: the low halves of the hash's
    ``a, b`` hash the location's low 32 bits, ``(a * location + b) mod
    2**32``, whose top ``b_bits`` bits are the code.
    """
    shift = _U32 - np.uint64(b_bits)
    for j in range(out.size):
        a, b = coefficients[j, 0] & _LOW32, coefficients[j, 1] & _LOW32
        hashed = (a * (np.uint64(locations[j]) & _LOW32) + b) & _LOW32
        out[j] = (hashed >> shift) + offsets[j]


@kernel(inline="always")
def _code_row_64(coefficients, locations, b_bits, fold, offsets, out):
    """One row of :func:`_bbit_codes_64`.

    The code of a location in a 64-bit word: the location, ``fmix32``-folded
    to 32 bits first when ``fold`` is set or it has more than 32 bits, hashed
    as ``(a * location + b) mod 2**64``, whose top ``b_bits`` bits are the
    code.
    """
    shift = _U64 - np.uint64(b_bits)
    for j in range(out.size):
        location = np.uint64(locations[j])
        if fold or location > _LOW32:
            location = _fmix32(location)
        out[j] = ((coefficients[j, 0] * location + coefficients[j, 1]) >> shift) + offsets[j]
