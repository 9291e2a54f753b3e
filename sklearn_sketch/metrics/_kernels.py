"""Compiled loops of the exact kernels, over the rows of canonical CSR matrices.

Each kernel value is computed from its two rows alone, by one merge of their
sorted column indices, so the work per pair is ``O(nnz_x + nnz_y)`` and the
memory is the output and copies of the inputs' stored values, whatever the
number of columns. The callers in ``__init__`` validate the input and pass
canonical rows (sorted indices, no duplicates, no stored zeros) with int64
indices and float64 values.
"""

import math

import numpy as np
from numba import njit


@njit(nogil=True, cache=True)
def scale_rows(indptr, data, unit_l2):
    """Each row divided by a power of two near its peak, its exponent and norm.

    Row ``i`` is divided by ``2**exponents[i]``, the power of two just above
    its largest magnitude (exact, barring values far below the peak, which
    underflow), so that its values lie in ``(-1, 1)`` and no sum of them
    overflows, nor does a sum of squares of tiny values underflow to 0.
    ``norms`` holds the l1 norms of the scaled rows, or with ``unit_l2``
    their l2 norms, by which the scaled rows are then divided. All-zero rows
    get exponent 0 and norm 0.
    """
    n_rows = indptr.size - 1
    scaled = np.zeros(data.size)
    exponents = np.zeros(n_rows, dtype=np.int64)
    norms = np.zeros(n_rows)
    for i in range(n_rows):
        start, stop = indptr[i], indptr[i + 1]
        peak = 0.0
        for p in range(start, stop):
            peak = max(peak, abs(data[p]))
        if peak == 0.0:
            continue
        exponent = math.frexp(peak)[1]
        total = 0.0
        for p in range(start, stop):
            value = math.ldexp(data[p], -exponent)
            scaled[p] = value
            total += value * value if unit_l2 else abs(value)
        if unit_l2:
            total = math.sqrt(total)
            for p in range(start, stop):
                scaled[p] /= total
        exponents[i] = exponent
        norms[i] = total
    return scaled, exponents, norms


@njit(nogil=True, cache=True)
def _shared_minima(x_indices, x_data, p, p_stop, y_indices, y_data, q, q_stop,
                   x_factor, y_factor):
    """``sum_i min(x~_i, y~_i)`` of the split rows, over their shared columns.

    Only columns where both rows are nonzero with the same sign contribute;
    the values are multiplied by the pair's factors first. The terms are
    added in column order, as ``scale_rows`` adds the l1 norm, so that a row
    with itself gives its norm exactly.
    """
    total = 0.0
    while p < p_stop and q < q_stop:
        x_index = x_indices[p]
        y_index = y_indices[q]
        if x_index < y_index:
            p += 1
        elif y_index < x_index:
            q += 1
        else:
            a = x_data[p] * x_factor
            b = y_data[q] * y_factor
            if a > 0.0 and b > 0.0:
                total += min(a, b)
            elif a < 0.0 and b < 0.0:
                total -= max(a, b)
            p += 1
            q += 1
    return total


@njit(nogil=True, cache=True)
def min_max_rows(x_indptr, x_indices, x_data, x_exponents, x_l1,
                 y_indptr, y_indices, y_data, y_exponents, y_l1, symmetric, out):
    """``out[i, j] = sum min / sum max`` of the split rows ``x_i`` and ``y_j``.

    The rows come from ``scale_rows`` (l1 norms). A pair is brought to the
    scale of its larger row, by powers of two, so its sums stay within
    ``nnz`` and cannot overflow: the kernel is invariant to a common scale.
    With ``sum max = |x|_1 + |y|_1 - sum min`` only the shared columns are
    summed; the subtraction loses at most one bit, as ``sum min`` is at most
    half of ``|x|_1 + |y|_1``. ``symmetric`` (``Y`` is ``X``) computes the
    lower triangle and mirrors it. A pair with an all-zero row gives 0.
    """
    for i in range(out.shape[0]):
        x_start, x_stop = x_indptr[i], x_indptr[i + 1]
        n_columns = i + 1 if symmetric else out.shape[1]
        for j in range(n_columns):
            value = 0.0
            if x_l1[i] > 0.0 and y_l1[j] > 0.0:
                top = max(x_exponents[i], y_exponents[j])
                x_factor = math.ldexp(1.0, x_exponents[i] - top)
                y_factor = math.ldexp(1.0, y_exponents[j] - top)
                shared = _shared_minima(
                    x_indices, x_data, x_start, x_stop,
                    y_indices, y_data, y_indptr[j], y_indptr[j + 1],
                    x_factor, y_factor,
                )
                union = x_l1[i] * x_factor + y_l1[j] * y_factor - shared
                value = min(shared / union, 1.0)
            out[i, j] = value
            if symmetric:
                out[j, i] = value
    return out


@njit(nogil=True, cache=True)
def _shared_support(x_indices, x_data, p, p_stop, y_indices, y_data, q, q_stop):
    """The number of shared columns of two rows and the sum of their products."""
    count = 0
    products = 0.0
    while p < p_stop and q < q_stop:
        x_index = x_indices[p]
        y_index = y_indices[q]
        if x_index < y_index:
            p += 1
        elif y_index < x_index:
            q += 1
        else:
            count += 1
            products += x_data[p] * y_data[q]
            p += 1
            q += 1
    return count, products


@njit(nogil=True, cache=True)
def core_rows(x_indptr, x_indices, x_data, y_indptr, y_indices, y_data, kind,
              symmetric, out):
    """Resemblance (``kind=0``) or CoRE kernel of type 1 or 2 of row pairs.

    The values of the rows are unit-l2 (``scale_rows``), so the sum of
    products over the shared columns is the correlation ``rho``, clipped to
    ``[-1, 1]`` against rounding. ``symmetric`` as in ``min_max_rows``. A
    pair with an all-zero row gives 0.
    """
    for i in range(out.shape[0]):
        x_start, x_stop = x_indptr[i], x_indptr[i + 1]
        n_columns = i + 1 if symmetric else out.shape[1]
        for j in range(n_columns):
            y_start, y_stop = y_indptr[j], y_indptr[j + 1]
            value = 0.0
            if x_stop > x_start and y_stop > y_start:
                shared, rho = _shared_support(
                    x_indices, x_data, x_start, x_stop,
                    y_indices, y_data, y_start, y_stop,
                )
                f_x = float(x_stop - x_start)
                f_y = float(y_stop - y_start)
                union = f_x + f_y - shared
                rho = min(max(rho, -1.0), 1.0)
                if kind == 0:
                    value = shared / union
                elif kind == 1:
                    value = rho * (shared / union)
                else:
                    value = rho * (math.sqrt(f_x * f_y) / union)
            out[i, j] = value
            if symmetric:
                out[j, i] = value
    return out
