"""Complex-to-real (CtR) products of complex random projections (Wacker et al., 2023).

:class:`ComplexProjectionMap` draws, per degree, a complex projection
``W_j`` of the augmented input (i.i.d. complex Rademacher entries, or a
subsampled randomized Hadamard transform with complex signs), multiplies
the projections of a row and writes the real and imaginary parts of the
product: ComplexToRealSketch's map.
"""

import functools

import numpy as np
import scipy.sparse as sp

from ..utils._count_sketch import draw_hash_down, has_scatter_add
from ..utils._hadamard import fwht
from ..utils._hashing import (
    MERSENNE_PRIME,
    SIGN_HASH_INDEPENDENCE,
    draw_polynomial_hashes,
    polynomial_hash,
)
from ..utils._sparse import dense_to_csr
from ._hadamard_blocks import (
    UNIT_IMAG,
    UNIT_REAL,
    block_coordinates,
    block_signs,
    n_augmented_features,
    sampled_hadamard_array,
    srht_array_tables,
    srht_inputs,
    srht_inputs_array,
    srht_width,
)
from ._polynomial_map import PolynomialMap
from ._sizing import rademacher_model, srht_model


# projection="rademacher" on a device holds its dense projections (float32:
# 4 bytes an entry, float64 twice that): at most this many GiB of them.
MAX_DEVICE_TABLE_GIB = 1


def complex_dtype(dtype):
    """complex64 for float32, complex128 for float64."""
    return np.result_type(dtype, np.complex64)


def complex_to_real(Z, out, scale):
    """Write ``scale * [Re Z, Im Z]`` into ``out`` truncated to its width.

    With ``m = Z.shape[1]`` complex features and ``out.shape[1]`` either
    ``2 m`` or ``2 m - 1``: for an odd output width the imaginary part of
    the last complex feature is dropped. That keeps the estimate unbiased
    (for products of complex Rademacher-type factors ``E[Re a Re b] =
    Re E[a conj(b)] / 2``, because ``E[a b] = 0``), so an odd
    ``n_components`` wastes nothing.
    """
    m = Z.shape[1]
    np.multiply(Z.real, scale, out=out[:, :m])
    n_imag = out.shape[1] - m
    np.multiply(Z.imag[:, :n_imag], scale, out=out[:, m:])
    return out


def multiply_complex(product, factor):
    """``product *= factor``, each value rounded alike whatever the array's size.

    NumPy's complex multiply rounds a lone value (an array of size 1) apart
    from the vectorized loop that longer arrays take, so with one complex
    feature per row (``n_components <= 2``) a row's product would depend on
    whether its chunk has other rows. There, four real products and two sums,
    each rounded once, give the same bits everywhere; with two or more
    features per row every call takes the vectorized loop, and NumPy's own
    product, one vectorized pass, is kept.
    """
    if product.shape[-1] > 1:
        product *= factor
        return product
    real = product.real * factor.real - product.imag * factor.imag
    product.imag = product.real * factor.imag + product.imag * factor.real
    product.real = real
    return product


def unit_entries(coefficients, columns, row_keys, real_values, imag_values, out):
    """``[Re W | Im W]`` at the given columns of a hashed unit-complex projection ``W``.

    Entry (row ``k``, column ``i``) of ``W`` is the unit complex number whose
    code is the two low bits of the polynomial hash of its key
    ``row_keys[k] + i``: ``out[c, k] = real_values[code]`` and
    ``out[c, m + k] = imag_values[code]``, ``m = row_keys.size``.
    """
    m = row_keys.size
    keys = np.asarray(columns, dtype=np.uint64)[:, None] + row_keys
    codes = (polynomial_hash(coefficients, keys) & np.uint64(3)).astype(np.intp)
    np.take(real_values, codes, out=out[:, :m])
    np.take(imag_values, codes, out=out[:, m:])
    return out


class ComplexProjectionMap(PolynomialMap):
    """``[Re Phi_C(x), Im Phi_C(x)]`` of ``x' = [sqrt(gamma) x, sqrt(coef0)]``.

    Takes the option ``projection`` ("srht" or "rademacher") besides the
    sizes. Fitted attributes, as documented by ComplexToRealSketch:
    ``entry_hashes_``, ``coordinates_``, ``hadamard_size_`` and
    ``hash_down_``.
    """

    fitted_names = ("entry_hashes_", "coordinates_", "hadamard_size_", "hash_down_")

    def __init__(self, n_components, degree, n_features, gamma=1.0, coef0=0.0,
                 projection="srht"):
        super().__init__(n_components, degree, n_features, gamma, coef0)
        self.projection = projection
        self.n_complex = -(-n_components // 2)
        self.hadamard_size_ = None
        self.hashed = False
        if projection == "srht":
            self.hadamard_size_, self.hashed = srht_width(
                n_augmented_features(n_features, coef0), self.n_complex
            )
            self.n_blocks = -(-self.n_complex // self.hadamard_size_)
            self.array_api_support = True
        # Entry keys k * (n_features + 1) + i must stay below the prime.
        elif self.n_complex * (n_features + 1) >= int(MERSENNE_PRIME):
            raise ValueError(
                f"projection='rademacher' hashes one key per entry of its "
                f"{self.n_complex} x {n_features + 1} projections, more than "
                "the hash family's 2**61 - 1 keys. Use projection='srht'."
            )
        else:
            # On a device, a product with the dense [Re W_j | Im W_j] of every
            # degree, held there: refused where they would be too large.
            table_gib = 4 * degree * (n_features + 1) * 2 * self.n_complex / 2**30
            self.array_api_support = table_gib <= MAX_DEVICE_TABLE_GIB
            if not self.array_api_support:
                self.array_api_refusal = (
                    f"projection='rademacher' on {n_features} features: its dense "
                    f"projections would take {table_gib:.1f} GiB on the device, more than "
                    f"{MAX_DEVICE_TABLE_GIB} GiB; projection='srht' hashes wide input down"
                )

    def state_bytes(self, dtype):
        m = self.n_complex
        if self.projection == "rademacher":
            # The hash keys, values and entries of one column, times degree.
            return 48 * m * self.degree
        # Coordinates and their sampling temporaries, complex block signs
        # and the temporaries of hashing them.
        n_total = self.n_blocks * self.hadamard_size_
        return 16 * self.degree * m + (48 + 2 * self.degree * np.dtype(dtype).itemsize) * n_total

    def draw(self, random_state, X=None):
        """Draw the hashes (and coordinates); only the number of features is read."""
        self.entry_hashes_ = draw_polynomial_hashes(
            random_state, self.degree, SIGN_HASH_INDEPENDENCE
        )
        self.coordinates_ = self.hash_down_ = None
        if self.projection == "srht":
            self.coordinates_ = block_coordinates(
                random_state, self.n_complex, self.hadamard_size_, self.degree
            )
            if self.hashed:
                self.hash_down_ = draw_hash_down(random_state, self.degree)

    def sizing_model(self, sample, build, random_state):
        if self.projection == "srht":
            return srht_model(self, sample, complex_signs=True)
        return rademacher_model(self, sample)

    def bytes_per_row(self, dtype):
        itemsize = np.dtype(dtype).itemsize
        m = self.n_complex
        if self.projection == "srht":
            # Augmented row, complex transformed blocks, complex product.
            d = self.hadamard_size_
            return (d + 2 * d * self.n_blocks + 4 * m) * itemsize
        # Real and imaginary projections (2 m) and the complex product (2 m).
        return 6 * m * itemsize

    def prepare(self, X, n_jobs=1, n_chunks=1):
        if self.projection == "rademacher":
            return None
        dtype = np.dtype(X.dtype)
        return self.prepared(("signs", dtype), lambda: self._block_signs(dtype))

    def _block_signs(self, dtype):
        """The complex block signs of every degree ("srht")."""
        n_keys = self.hadamard_size_  # a hashed-down input fills its width
        if self.hash_down_ is None:
            n_keys = n_augmented_features(self.n_features, self.coef0)
        return [
            block_signs(
                self.entry_hashes_[j],
                self.n_blocks,
                self.hadamard_size_,
                n_keys,
                dtype,
                complex_signs=True,
            )
            for j in range(self.degree)
        ]

    def transform_chunk(self, X_chunk, out, signs):
        if self.projection == "srht":
            product = self._srht_product(X_chunk, out.dtype, signs)
        else:
            product = self._rademacher_product(X_chunk, out.dtype)
        return complex_to_real(product, out, out.dtype.type(np.sqrt(2.0 / self.n_components)))

    def _srht_product(self, X_chunk, dtype, signs):
        n_rows = X_chunk.shape[0]
        inputs = srht_inputs(
            X_chunk, self.gamma, self.coef0, self.hadamard_size_, self.hash_down_,
            self.degree, dtype,
        )
        product = None
        for j, U in enumerate(inputs):
            # H (D_j x) = H (Re D_j x) + i H (Im D_j x): two real transforms
            # in one call, cheaper than a complex one (H is real).
            parts = np.stack([signs[j].real, signs[j].imag])  # (2, blocks, d)
            blocks = fwht(U[:, None, None, :] * parts).reshape(n_rows, 2, -1)
            coordinates = self.coordinates_[j]
            sampled = blocks[:, 0, coordinates] + 1j * blocks[:, 1, coordinates]
            if product is None:
                product = sampled
            else:
                multiply_complex(product, sampled)
        return product

    def _rademacher_product(self, X_chunk, dtype):
        n_features = self.n_features
        m = self.n_complex
        # A sparse-dense product computes each row on its own (a BLAS product
        # does not: its kernels treat rows by their position in a block), so
        # dense chunks go through CSR too, which keeps transform bitwise
        # chunk-invariant. Only the columns present need their entries.
        if not sp.issparse(X_chunk):
            X_chunk = dense_to_csr(X_chunk)
        columns, inverse = np.unique(X_chunk.indices, return_inverse=True)
        X_chunk = sp.csr_matrix(
            (X_chunk.data, inverse.reshape(-1), X_chunk.indptr),
            shape=(X_chunk.shape[0], columns.size),
        )
        scale = np.dtype(dtype).type(np.sqrt(self.gamma))
        # Keys of the entries (row k, column i) of W_j: k * (d + 1) + i, the
        # constant coordinate being column d = n_features.
        row_keys = np.arange(m, dtype=np.uint64) * np.uint64(n_features + 1)
        constant_keys = row_keys + np.uint64(n_features)
        units = (UNIT_REAL.astype(dtype) * scale, UNIT_IMAG.astype(dtype) * scale)
        entries = np.empty((columns.size, 2 * m), dtype=dtype)
        product = None
        for j in range(self.degree):
            # W x = Re(W) x + i Im(W) x as one real product with [Re W | Im W].
            unit_entries(self.entry_hashes_[j], columns, row_keys, *units, out=entries)
            projected = np.asarray(X_chunk @ entries)
            if self.coef0 > 0:
                hashes = polynomial_hash(self.entry_hashes_[j], constant_keys)
                constant = (hashes & np.uint64(3)).astype(np.intp)
                c = np.sqrt(self.coef0)
                projected[:, :m] += (c * UNIT_REAL[constant]).astype(dtype)
                projected[:, m:] += (c * UNIT_IMAG[constant]).astype(dtype)
            factor = projected[:, :m] + 1j * projected[:, m:]
            factor = factor.astype(complex_dtype(dtype), copy=False)
            if product is None:
                product = factor
            else:
                multiply_complex(product, factor)
        return product

    # -- transform_array -------------------------------------------------

    def transform_array(self, X, xp, device):
        """The features of the whole array ``X`` of namespace ``xp`` on ``device``.

        The complex projections of :meth:`transform_chunk` as pairs of real
        arrays (real and imaginary parts; complex dtypes are not on every
        device): "srht", the Walsh-Hadamard transform of the augmented rows
        (or of each degree's hash-down of them, :func:`srht_inputs_array`)
        times the real and the imaginary block signs and the gather of the
        sampled coordinates; "rademacher", one product with the dense
        ``[Re W_j | Im W_j]`` (times ``sqrt(gamma)``) plus the constant's
        column. The factors multiply as complex numbers, in the order of the
        degrees, and ``sqrt(2 / n_components) [Re, Im]`` is written out. The
        tables are computed on the host and moved once.
        """
        m, degree = self.n_complex, self.degree
        build = functools.partial(self._device_tables, scatter=has_scatter_add(xp))
        tables = self.moved_arrays(xp, device, X.dtype, build)
        # A namespace computing with NumPy (array_api_strict) would warn of
        # an overflow, which check_array reports as the NumPy path does.
        with np.errstate(over="ignore", invalid="ignore"):
            if self.projection == "srht":
                n_inputs = len(tables) - 3 * degree
                signs, coordinates = tables[n_inputs : -degree], tables[-degree:]
                inputs = list(srht_inputs_array(
                    X, self.gamma, tables[:n_inputs], degree, self.hadamard_size_, xp
                ))

                def factor(j):
                    return (
                        sampled_hadamard_array(inputs[j], signs[2 * j], coordinates[j], xp),
                        sampled_hadamard_array(inputs[j], signs[2 * j + 1], coordinates[j], xp),
                    )
            else:

                def factor(j):
                    projected = X @ tables[2 * j]
                    if tables[2 * j + 1] is not None:
                        projected = projected + tables[2 * j + 1]
                    return projected[:, :m], projected[:, m:]

            real, imag = factor(0)
            for j in range(1, degree):
                a, b = factor(j)
                real, imag = real * a - imag * b, real * b + imag * a
            scale = float(np.sqrt(2.0 / self.n_components))
            n_imag = self.n_components - m
            out = xp.concat([real * scale, imag[:, :n_imag] * scale], axis=1)
        self.check_array(X, out, xp)
        return out

    def _device_tables(self, dtype, scatter):
        """"srht": the inputs' tables (:func:`srht_array_tables`), real and
        imaginary block signs per degree, the coordinates; "rademacher": per
        degree ``[Re W | Im W]`` (times ``sqrt(gamma)``) and the constant's
        row (or None)."""
        if self.projection == "srht":
            inputs = srht_array_tables(
                self.n_features, self.gamma, self.coef0, self.hadamard_size_,
                self.hash_down_, self.degree, dtype, scatter,
            )
            signs = self.prepare(np.empty((0, self.n_features), dtype=dtype))
            parts = [
                np.ascontiguousarray(part, dtype=dtype)
                for s in signs for part in (s.real, s.imag)
            ]
            return (*inputs, *parts, *self.coordinates_)
        n_features, m = self.n_features, self.n_complex
        scale = np.dtype(dtype).type(np.sqrt(self.gamma))
        row_keys = np.arange(m, dtype=np.uint64) * np.uint64(n_features + 1)
        units = (UNIT_REAL.astype(dtype) * scale, UNIT_IMAG.astype(dtype) * scale)
        tables = []
        for j in range(self.degree):
            entries = np.empty((n_features, 2 * m), dtype=dtype)
            unit_entries(self.entry_hashes_[j], np.arange(n_features), row_keys, *units,
                         out=entries)
            constant = None
            if self.coef0 > 0:
                hashes = polynomial_hash(self.entry_hashes_[j], row_keys + np.uint64(n_features))
                code = (hashes & np.uint64(3)).astype(np.intp)
                c = np.sqrt(self.coef0)
                constant = np.concatenate(
                    [(c * UNIT_REAL[code]).astype(dtype), (c * UNIT_IMAG[code]).astype(dtype)]
                )
            tables += [entries, constant]
        return tuple(tables)
