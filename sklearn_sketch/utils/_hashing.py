"""k-wise independent hash families over the Mersenne prime field 2^61 - 1.

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
"""

import numpy as np

MERSENNE_PRIME = np.uint64((1 << 61) - 1)
_P = MERSENNE_PRIME
_LOW31 = np.uint64((1 << 31) - 1)
_LOW30 = np.uint64((1 << 30) - 1)
_U31 = np.uint64(31)
_U30 = np.uint64(30)
_U61 = np.uint64(61)
_U1 = np.uint64(1)


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
