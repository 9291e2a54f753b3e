"""Every hash family of the package: drawing hash functions and evaluating them.

One home for the families and the independence each application asks of
them; what a family is *used for* (Count Sketch rows, Hadamard block signs,
minwise positions and densification, counter-generated projection matrices)
lives with that algorithm and imports from here.

* Polynomial hashes over the Mersenne prime field ``P = 2**61 - 1``
  (k-wise independent; :func:`draw_polynomial_hashes`,
  :func:`polynomial_hash`, :func:`hash_to_buckets`, :func:`hash_to_signs`),
  and the independence the sketches draw them with
  (:data:`SIGN_HASH_INDEPENDENCE`, :data:`BUCKET_HASH_INDEPENDENCE`).
* Multiply-add-shift hashes of 32-bit keys (strongly universal;
  :func:`draw_multiply_shift`, :func:`multiply_add_shift_high`,
  :func:`bbit_codes`) and the key scrambler they are applied after,
  MurmurHash3's finalizer :func:`fmix32`.
* SplitMix64 (:func:`splitmix64`, :func:`mix64`): a hash of counters, whose
  output number ``n`` is a pure function of ``(seed, n)``. It is here, not
  in ``_counter_random``, because it is a hash family like the others (a
  fixed mixing bijection applied to a keyed counter); ``_counter_random``
  owns the matrices generated from it (and from NumPy's Philox).

Polynomial hashes
-----------------
A hash of this family is a random polynomial of degree ``k - 1`` with
coefficients drawn uniformly from ``[0, P)``, ``P = 2**61 - 1``::

    h(i) = (a_{k-1} i^{k-1} + ... + a_1 i + a_0) mod P

For distinct keys ``i_1, ..., i_k < P`` the values ``h(i_1), ..., h(i_k)`` are
independent and uniform on ``[0, P)`` (the Vandermonde system over a field
has a unique solution), so the family is k-wise independent.  Reducing a value
``mod R`` (a bucket) or taking its lowest bit (a sign) keeps that independence
up to a bias of order ``R / P`` (below ``2**-40`` for any practical ``R``).

The state of one hash is its ``k`` coefficients, whatever the number of keys:
hashing feature indices of a 2**40-dimensional input costs the same fitted
memory as hashing those of a 10-dimensional one.

Everything here is vectorized numpy on ``uint64``.  The product of two field
elements needs 122 bits, so :func:`_mulmod` splits both factors into 31- and
30-bit halves and uses ``2**61 = 1 (mod P)`` to fold the partial products back
below 2**64 without overflow.

Multiply-add-shift hashes
-------------------------
A coordinate ``i`` is first mapped by a fixed bijection of 32-bit integers
(MurmurHash3's finalizer ``fmix32``) to a key, then hashed by the
multiply-add-shift scheme ``h(i) = ((a * key + b) mod 2**64) >> 32`` with
``a, b`` uniform 64-bit integers. For distinct 32-bit keys that scheme is
strongly universal (pairwise independent, Dietzfelbinger 1996), and a fixed
bijection applied first keeps it so. The bijection matters in practice: a
linear hash of *consecutive* indices (pixels, term ids) orders them along a
lattice and its minimum is measurably not min-wise independent (its collision
rate departs from the resemblance on image pixels); scrambling the keys first
removes that structure. Coordinates above ``2**32 - 1`` are folded to 32 bits
before mixing, so for more than ``2**32`` features two coordinates can share
a key.
"""

import sys

import numpy as np

MERSENNE_PRIME = np.uint64((1 << 61) - 1)
_P = MERSENNE_PRIME
_LOW31 = np.uint64((1 << 31) - 1)
_LOW30 = np.uint64((1 << 30) - 1)
_U31 = np.uint64(31)
_U30 = np.uint64(30)
_U61 = np.uint64(61)
_U1 = np.uint64(1)
_LOW32 = np.uint64(0xFFFFFFFF)
_HIGH32 = np.uint64(0xFFFFFFFF00000000)
_U32 = np.uint64(32)

# Every product estimator of the polynomial kernel is quadratic in the random
# signs of each degree, so the second moment of a kernel estimate involves at
# most four signs per degree: 4-wise independent signs give exactly the
# variance of fully independent ones.
SIGN_HASH_INDEPENDENCE = 4
# Count Sketch buckets need only pairwise independence (Pham & Pagh 2013,
# Lemma 6).
BUCKET_HASH_INDEPENDENCE = 2


def _fold(x):
    """Partly reduce ``x < 2**64`` modulo P: the result is congruent and ``<= P``."""
    x = (x & _P) + (x >> _U61)  # < 2**61 + 8
    return (x & _P) + (x >> _U61)  # <= P


def _mulmod(a, b):
    """``a * b`` modulo P, partly reduced (``<= P``), for uint64 ``a, b <= 2**61``.

    Both factors are split into high and low halves: with
    ``a = a_hi 2**31 + a_lo`` and ``b = b_hi 2**31 + b_lo``::

        a b = a_hi b_hi 2**62 + (a_hi b_lo + a_lo b_hi) 2**31 + a_lo b_lo

    and ``2**62 = 2``, ``m 2**31 = (m >> 30) + (m & (2**30 - 1)) 2**31 (mod P)``.
    Every partial sum stays below ``2**63 + 2**32``, so nothing overflows.
    """
    a_hi, a_lo = a >> _U31, a & _LOW31  # a_hi <= 2**30, a_lo < 2**31
    b_hi, b_lo = b >> _U31, b & _LOW31
    middle = a_hi * b_lo + a_lo * b_hi  # <= 2**62
    total = ((a_hi * b_hi) << _U1) + a_lo * b_lo  # <= 2**61 + 2**62
    total += middle >> _U30  # <= 2**32
    total += (middle & _LOW30) << _U31  # < 2**61
    return _fold(total)


def _mulmod_small(a, b):
    """``a * b`` modulo P, partly reduced, for ``a <= 2**61`` and ``b < 2**31``.

    The same arithmetic as :func:`_mulmod` with ``b_hi = 0``, in about half
    the operations: feature indices below 2**31 are the common case.
    """
    high = (a >> _U31) * b  # < 2**61
    total = (a & _LOW31) * b  # < 2**62
    total += high >> _U30
    total += (high & _LOW30) << _U31
    return _fold(total)


def draw_polynomial_hashes(random_state, n_hashes, independence):
    """Draw the coefficients of ``n_hashes`` independent polynomial hashes.

    Parameters
    ----------
    random_state : numpy.random.RandomState
        Source of randomness (already checked).
    n_hashes : int
        Number of independent hash functions.
    independence : int
        The family's independence k: each hash is a polynomial of degree k - 1.

    Returns
    -------
    coefficients : ndarray of shape (n_hashes, independence), dtype uint64
        Row ``j`` holds ``a_{k-1}, ..., a_1, a_0`` of hash ``j`` (Horner order),
        each uniform on ``[0, P)``.
    """
    # randint's upper bound is exclusive and must fit int64: P = 2**61 - 1 does.
    coefficients = random_state.randint(
        0, int(MERSENNE_PRIME), size=(n_hashes, independence), dtype=np.int64
    )
    return coefficients.astype(np.uint64)


def polynomial_hash(coefficients, keys):
    """Evaluate one polynomial hash at integer keys.

    Parameters
    ----------
    coefficients : ndarray of shape (k,), dtype uint64
        Coefficients in Horner order, as returned (row-wise) by
        :func:`draw_polynomial_hashes`.
    keys : array-like of non-negative integers, each below ``2**61 - 1``
        The keys (for example feature indices).

    Returns
    -------
    values : ndarray of the shape of ``keys``, dtype uint64
        Hash values, uniform on ``[0, 2**61 - 1)``.
    """
    keys = np.asarray(keys).astype(np.uint64, copy=False)
    small_keys = keys.size == 0 or keys.max() <= _LOW31
    mulmod = _mulmod_small if small_keys else _mulmod
    values = np.full(keys.shape, coefficients[0], dtype=np.uint64)
    for coefficient in coefficients[1:]:
        values = mulmod(values, keys)
        values += coefficient  # <= 2P < 2**62: exact
        values = _fold(values)
    # Full reduction to [0, P): the partly reduced value may equal P.
    values[values == _P] = 0
    return values


def hash_to_buckets(values, n_buckets):
    """Map hash values on ``[0, P)`` to buckets ``0 .. n_buckets - 1`` (intp)."""
    return (values % np.uint64(n_buckets)).astype(np.intp)


def hash_to_signs(values, dtype):
    """Map hash values on ``[0, P)`` to signs -1/+1 of the given float dtype."""
    # Lowest bit -> +1 / -1 without a branch.
    return (1.0 - 2.0 * (values & _U1)).astype(dtype)


def fmix32(keys):
    """MurmurHash3's 32-bit finalizer, a bijection of ``[0, 2**32)``.

    Parameters
    ----------
    keys : ndarray of non-negative integers
        Keys above ``2**32 - 1`` are folded to 32 bits first.

    Returns
    -------
    mixed : ndarray of uint64, values below ``2**32``
    """
    return _fmix32_u32(keys).astype(np.uint64)


def _fmix32_u32(keys):
    """:func:`fmix32` in uint32 arithmetic (wrapping products), as uint32."""
    keys = np.asarray(keys)
    if keys.dtype.itemsize > 4:
        # Fold keys above 32 bits (only for more than 2**32 features).
        wide = keys.astype(np.uint64)
        h = ((wide & _LOW32) ^ (wide >> _U32)).astype(np.uint32)
    else:
        h = keys.astype(np.uint32)
    h ^= h >> np.uint32(16)
    h *= np.uint32(0x85EBCA6B)
    h ^= h >> np.uint32(13)
    h *= np.uint32(0xC2B2AE35)
    h ^= h >> np.uint32(16)
    return h


def draw_multiply_shift(random_state, n_hashes):
    """Draw ``n_hashes`` multiply-add-shift hashes: uniform 64-bit ``(a, b)``.

    Returns
    -------
    coefficients : ndarray of shape (n_hashes, 2), dtype uint64
    """
    halves = random_state.randint(0, 2**32, size=(n_hashes, 2, 2), dtype=np.int64)
    halves = halves.astype(np.uint64)
    return (halves[..., 0] << _U32) | halves[..., 1]


def multiply_add_shift_high(coefficients, mixed_keys):
    """32-bit multiply-add-shift hash values, in the high half of uint64 words.

    Parameters
    ----------
    coefficients : ndarray of shape (..., 2), dtype uint64
        ``(a, b)`` of one hash (shape ``(2,)``) or of several, from
        :func:`draw_multiply_shift`.
    mixed_keys : ndarray of uint64, values below ``2**32``
        Keys, usually :func:`fmix32` of the coordinates (one-dimensional
        when several hashes are given).

    Returns
    -------
    keys : ndarray of shape ``coefficients.shape[:-1] + mixed_keys.shape``
        The high 32 bits of ``a * key + b mod 2**64`` (the hash value), the
        low 32 bits zero (room for a tie-breaker, such as a position).
    """
    keys = mixed_keys * coefficients[..., 0, None]
    keys += coefficients[..., 1, None]
    keys &= _HIGH32
    return keys


def bbit_codes(
    hash_coefficients, locations, b_bits, dtype=np.int64, out=None, offsets=None, n_keys=None
):
    """b-bit code of each location, hash ``j`` for column ``j``.

    Multiply-add-shift ``((a_j * key + b_j) mod 2**w) >> (w - b)`` is
    strongly universal for keys below ``2**u`` when ``w >= u + b - 1``
    (Dietzfelbinger 1996): two different locations get the same code with
    probability exactly ``2**-b``. ``w = 64`` serves any 32-bit key; when
    the keys are known to be small enough, ``w = 32`` with the low halves of
    ``a_j, b_j`` (uniform too) does, in half the memory traffic.

    Parameters
    ----------
    hash_coefficients : ndarray of shape (k, 2), dtype uint64
    locations : ndarray of shape (n_rows, k) of non-negative integers
    b_bits : int, 1 to 32
    dtype : integer dtype, default=np.int64
        Of the codes (ignored when ``out`` is given).
    out : ndarray of shape (n_rows, k), default=None
        Where to write the codes.
    offsets : ndarray of shape (k,), dtype uint64, default=None
        Added to the codes of column ``j`` (the start of block ``j``).
    n_keys : int, default=None
        An upper bound on the locations (exclusive), if known.

    Returns
    -------
    codes : ndarray of shape (n_rows, k), in ``[0, 2**b_bits)`` plus offsets
    """
    locations = np.asarray(locations)
    if out is None:
        out = np.empty(locations.shape, dtype=dtype)
    key_bits = 64 if n_keys is None else max(1, int(n_keys - 1).bit_length())
    if key_bits + b_bits - 1 <= 32:
        low_coefficients = (hash_coefficients & _LOW32).astype(np.uint32)
        keys = np.multiply(
            locations, low_coefficients[:, 0], dtype=np.uint32, casting="unsafe"
        )
        keys += low_coefficients[:, 1]
        keys >>= np.uint32(32 - b_bits)
        if offsets is None:
            np.copyto(out, keys, casting="unsafe")
        elif out.dtype.itemsize == 4:
            # The codes plus offsets fit a 32-bit output (its caller sized it).
            np.add(keys, offsets.astype(np.uint32), out=out.view(np.uint32))
        else:
            np.add(keys, offsets, out=out, casting="unsafe")
        return out
    if locations.dtype.itemsize > 4 and locations.size and locations.max() > _LOW32:
        locations = fmix32(locations)  # fold locations beyond 32 bits
    # The product in uint64, cast on the fly (non-negative locations).
    keys = np.multiply(locations, hash_coefficients[:, 0], dtype=np.uint64, casting="unsafe")
    keys += hash_coefficients[:, 1]
    keys >>= np.uint64(64 - b_bits)
    if out.dtype.itemsize == 4:
        # The codes plus offsets fit a 32-bit output (its caller sized it):
        # add the offsets to the low halves of the keys straight into it,
        # one pass where adding in 64 bits and then casting takes two.
        low = keys.view(np.uint32)[..., 0 if sys.byteorder == "little" else 1 :: 2]
        if offsets is None:
            np.copyto(out.view(np.uint32), low)
        else:
            np.add(low, offsets.astype(np.uint32), out=out.view(np.uint32))
        return out
    if offsets is not None:
        keys += offsets
    np.copyto(out, keys, casting="unsafe")
    return out


# SplitMix64 (Steele, Lea and Flood 2014): output number n of the stream
# seeded by s is mix64(s + (n + 1) * golden_gamma), a hash of the counter.
_GOLDEN_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


def mix64(z):
    """SplitMix64's finalizer, a bijection of 64-bit integers (in place)."""
    z ^= z >> np.uint64(30)
    z *= _M1
    z ^= z >> np.uint64(27)
    z *= _M2
    z ^= z >> np.uint64(31)
    return z


def splitmix64(seed, counters):
    """SplitMix64 outputs ``counters - 1`` of the stream seeded by ``seed``.

    Parameters
    ----------
    seed : int
        Key of the stream (a 64-bit integer).
    counters : ndarray of uint64
        Counters ``n + 1`` of the outputs ``n`` wanted; overwritten with the
        outputs (in place).

    Returns
    -------
    outputs : ndarray of uint64, ``mix64(seed + counters * golden_gamma)``
    """
    counters *= _GOLDEN_GAMMA
    counters += np.uint64(seed)
    return mix64(counters)
