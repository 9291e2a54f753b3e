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
  :func:`draw_multiply_shift`, :func:`minwise_hashes`,
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

The evaluation loops are compiled (``_hash_kernels``, the one home of the
compiled primitives; this module's functions wrap them) in ``uint64``. The
product of two field elements needs 122 bits, so ``_hash_kernels._mulmod``
splits both factors into 31- and 30-bit halves and uses ``2**61 = 1 (mod P)``
to fold the partial products back below 2**64 without overflow.

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

import numpy as np

from ._validation import kernel_array

MERSENNE_PRIME = np.uint64((1 << 61) - 1)
_P = MERSENNE_PRIME
_U1 = np.uint64(1)
_U32 = np.uint64(32)

# Every product estimator of the polynomial kernel is quadratic in the random
# signs of each degree, so the second moment of a kernel estimate involves at
# most four signs per degree: 4-wise independent signs give exactly the
# variance of fully independent ones.
SIGN_HASH_INDEPENDENCE = 4
# Count Sketch buckets need only pairwise independence (Pham & Pagh 2013,
# Lemma 6).
BUCKET_HASH_INDEPENDENCE = 2


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
    coefficients : ndarray of shape (k,) or (k, ...), dtype uint64
        Coefficients in Horner order, as returned (row-wise) by
        :func:`draw_polynomial_hashes`. Trailing dimensions broadcast
        against ``keys``: each key is then hashed by its own polynomial.
    keys : array-like of non-negative integers, each below ``2**61 - 1``
        The keys (for example feature indices).

    Returns
    -------
    values : ndarray of the broadcast shape, dtype uint64
        Hash values, uniform on ``[0, 2**61 - 1)``.
    """
    from ._hash_kernels import _polynomial_hash

    coefficients = np.asarray(coefficients, dtype=np.uint64)
    keys = np.asarray(keys)
    shape = np.broadcast_shapes(coefficients.shape[1:], keys.shape)
    if coefficients.ndim == 1:
        table = coefficients[:, None]
    else:
        table = np.broadcast_to(coefficients, coefficients.shape[:1] + shape)
        table = table.reshape(coefficients.shape[0], -1)
    keys = np.broadcast_to(keys, shape).reshape(-1)
    values = np.empty(shape, dtype=np.uint64)
    if values.size:
        # One type of keys to compile for (the keys are below 2**61).
        table, keys = kernel_array(table, np.uint64), kernel_array(keys, np.uint64)
        _polynomial_hash(table, keys, values.reshape(-1))
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
        Keys above ``2**32 - 1`` are folded to 32 bits first (the XOR of
        their halves).

    Returns
    -------
    mixed : ndarray of uint64, values below ``2**32``
    """
    from ._hash_kernels import _fmix32_array

    keys = np.asarray(keys)
    mixed = np.empty(keys.shape, dtype=np.uint64)
    _fmix32_array(np.ascontiguousarray(keys).reshape(-1), mixed.reshape(-1))
    return mixed


def draw_multiply_shift(random_state, n_hashes):
    """Draw ``n_hashes`` multiply-add-shift hashes: uniform 64-bit ``(a, b)``.

    Returns
    -------
    coefficients : ndarray of shape (n_hashes, 2), dtype uint64
    """
    halves = random_state.randint(0, 2**32, size=(n_hashes, 2, 2), dtype=np.int64)
    halves = halves.astype(np.uint64)
    return (halves[..., 0] << _U32) | halves[..., 1]


def minwise_hashes(coefficients, indices, out=None):
    """32-bit multiply-add-shift hash values of the ``fmix32`` keys of ``indices``.

    Parameters
    ----------
    coefficients : ndarray of shape (n_hashes, 2), dtype uint64
        ``(a, b)`` of each hash, from :func:`draw_multiply_shift`.
    indices : ndarray of shape (n,) of non-negative integers
        The coordinates (for example a chunk's column indices).
    out : ndarray of shape (n_hashes, n), dtype uint32, default=None
        Where the values go (C-ordered); a new array if None.

    Returns
    -------
    values : ndarray of shape (n_hashes, n), dtype uint32
        ``values[j, i]``: the high 32 bits of ``a_j * fmix32(indices[i]) +
        b_j mod 2**64``.
    """
    from ._hash_kernels import _minwise_hashes

    values = out
    if values is None:
        values = np.empty((coefficients.shape[0], indices.size), dtype=np.uint32)
    coefficients = kernel_array(coefficients, np.uint64)
    _minwise_hashes(coefficients, np.ascontiguousarray(indices), values)
    return values


def bbit_word(b_bits, n_keys):
    """The word and folding of :func:`bbit_codes` for keys below ``n_keys``.

    Returns
    -------
    word : {32, 64}
        32 when the keys have few enough bits (see :func:`bbit_codes`).
    fold : bool
        Whether every key is ``fmix32``-folded to 32 bits first.
    """
    key_bits = 64 if n_keys is None else max(1, int(n_keys - 1).bit_length())
    word = 32 if b_bits is not None and key_bits + b_bits - 1 <= 32 else 64
    return word, n_keys is not None and key_bits > 32


def bbit_codes(
    hash_coefficients, locations, b_bits, dtype=np.int64, out=None, offsets=None,
    n_keys=None, positions=None,
):
    """b-bit code of each location, hash ``j`` for column ``j``.

    Multiply-add-shift ``((a_j * key + b_j) mod 2**w) >> (w - b)`` is
    strongly universal for keys below ``2**u`` when ``w >= u + b - 1``
    (Dietzfelbinger 1996): two different locations get the same code with
    probability exactly ``2**-b``. ``w = 64`` serves any 32-bit key; when
    the keys are known to be small enough, ``w = 32`` with the low halves
    of ``a_j, b_j`` (uniform too) does, in cheaper arithmetic. Keys of more
    than 32 bits (``n_keys > 2**32``) are all :func:`fmix32`-folded to 32
    bits first (with ``n_keys=None``, those above ``2**32 - 1``), so that a
    location's code never depends on the other locations hashed with it.

    Parameters
    ----------
    hash_coefficients : ndarray of shape (k, 2), dtype uint64
    locations : ndarray of shape (n_rows, k) of non-negative integers
        Or, with ``positions``, the one-dimensional array they index.
    b_bits : int, 1 to 32, or None
        None keeps the locations themselves (plus the offsets).
    dtype : integer dtype, default=np.int64
        Of the codes (ignored when ``out`` is given).
    out : ndarray of shape (n_rows, k), default=None
        Where to write the codes.
    offsets : ndarray of shape (k,), dtype uint64, default=None
        Added to the codes of column ``j`` (the start of block ``j``).
    n_keys : int, default=None
        An upper bound on the locations (exclusive), if known.
    positions : ndarray of shape (n_rows, k) of integers, default=None
        The locations are ``locations[positions]``. May be ``out`` itself:
        each row's locations are read before its codes are written.

    Returns
    -------
    codes : ndarray of shape (n_rows, k), in ``[0, 2**b_bits)`` plus offsets
    """
    from ._hash_kernels import (
        _bbit_codes_32, _bbit_codes_64, _bbit_codes_at_32, _bbit_codes_at_64, _locations_at,
    )

    shape = locations.shape if positions is None else positions.shape
    if out is None:
        out = np.empty(shape, dtype=dtype)
    if offsets is None:
        offsets = np.zeros(shape[1], dtype=np.uint64)
    word, fold = bbit_word(b_bits, n_keys)
    offsets = np.ascontiguousarray(offsets, dtype=np.uint64)
    if b_bits is None:  # the locations themselves, plus the offsets
        if positions is not None:
            _locations_at(locations, np.ascontiguousarray(positions), offsets, out)
        else:
            # (The sums index the output: they fit its dtype, as the offsets do.)
            out[...] = locations
            out += offsets.astype(out.dtype)
        return out
    # A kernel per word, and per layout of the locations.
    kernel = {
        (False, 32): _bbit_codes_32, (False, 64): _bbit_codes_64,
        (True, 32): _bbit_codes_at_32, (True, 64): _bbit_codes_at_64,
    }[positions is not None, word]
    arrays = [kernel_array(hash_coefficients, np.uint64)]
    if positions is None:
        arrays.append(np.ascontiguousarray(locations))
    else:
        arrays += [locations, np.ascontiguousarray(positions)]
    kernel(*arrays, b_bits, *(() if word == 32 else (fold,)), offsets, out)
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
