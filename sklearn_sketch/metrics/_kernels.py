"""Compiled loops of the exact kernels, over canonical CSR rows.

A row ``x`` of ``X`` meets the rows of ``Y`` through an inverted index of
``Y``: for each stored column of ``x``, the rows of ``Y`` that store that
column, so that only the pairs of values sharing a column are visited (the
order of a sparse product, never more than a merge of the two rows per
pair). The sums of a row of ``X`` with every row of ``Y`` are accumulated
in float64 rows of length ``n_Y``, then turned into kernel values. Memory:
the output, those rows, and the ``O(nnz)`` arrays the callers in
``__init__`` prepare (they validate the input; these loops only loop and
allocate nothing).
"""

import math

import numpy as np

from ..utils._numba import kernel


@kernel
def scale_rows(indptr, data, unit_l2, scaled, exponents, norms):
    """Each row divided by a power of two near its peak, its exponent and norm.

    Row ``i`` is divided by ``2**exponents[i]``, the power of two just above
    its largest magnitude (exact, barring values far below the peak, which
    underflow), so that its values lie in ``(-1, 1)`` and no sum of them
    overflows, nor does a sum of squares of tiny values underflow to 0.
    ``norms`` gets the l1 norms of the scaled rows, or with ``unit_l2``
    their l2 norms, by which the scaled rows are then divided. All-zero rows
    get exponent 0 and norm 0.
    """
    for i in range(indptr.size - 1):
        start, stop = indptr[i], indptr[i + 1]
        peak = 0.0
        for p in range(start, stop):
            peak = max(peak, abs(data[p]))
        exponents[i] = 0
        norms[i] = 0.0
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


@kernel
def _column_stop(y_colptr, y_rows, column, last):
    """The end of the rows of ``column`` that are at most ``last``.

    The rows of a column are ascending, so the check leaves the inner loops
    (a binary search, only where the column reaches past ``last``).
    """
    start, stop = y_colptr[column], y_colptr[column + 1]
    if y_rows[stop - 1] <= last:
        return stop
    return start + np.searchsorted(y_rows[start:stop], last, side="right")


@kernel
def _shared_minima(i, x_indptr, x_columns, x_data, x_exponents, y_colptr, y_rows,
                   y_data, y_exponents, halves, last, minima):
    """``minima[q] = sum min(x~_c, y~_c)`` over the columns ``c`` of row ``i``.

    ``x~`` and ``y~`` are the split rows ``[max(x, 0), max(-x, 0)]``, so only
    columns where both values have the same sign add a term. A pair is at
    the scale of its larger row: the other row's values are multiplied by
    ``halves[d] = 2**-d``, ``d`` the difference of their exponents. Only the
    rows ``q`` of ``Y`` up to ``last`` are visited. The terms are added in
    column order, as ``scale_rows`` adds the l1 norm, so that a row with
    itself gives its norm exactly.
    """
    x_exponent = x_exponents[i]
    for p in range(x_indptr[i], x_indptr[i + 1]):
        column = x_columns[p]
        if column < 0:
            continue
        v = x_data[p]
        for t in range(y_colptr[column], _column_stop(y_colptr, y_rows, column, last)):
            q = y_rows[t]
            w = y_data[t]
            if (v > 0.0) != (w > 0.0):
                continue
            gap = x_exponent - y_exponents[q]
            if gap >= 0:
                minima[q] += min(abs(v), abs(w) * halves[min(gap, halves.size - 1)])
            else:
                minima[q] += min(abs(v) * halves[min(-gap, halves.size - 1)], abs(w))


@kernel
def min_max_rows(x_indptr, x_columns, x_data, x_exponents, x_l1, y_colptr, y_rows,
                 y_data, y_exponents, y_l1, halves, symmetric, minima, out):
    """``out[i, q] = sum min / sum max`` of the split rows ``x_i`` and ``y_q``.

    The rows come from ``scale_rows`` (l1 norms); ``x_columns`` indexes the
    inverted index of ``Y`` (-1: a column ``Y`` never stores). With ``sum
    max = |x|_1 + |y|_1 - sum min`` (at the pair's scale, see
    ``_shared_minima``) only the shared columns are summed; the subtraction
    loses at most one bit, as ``sum min`` is at most half of ``|x|_1 +
    |y|_1``. ``symmetric`` (``Y`` is ``X``) computes the lower triangle and
    mirrors it. A pair with an all-zero row gives 0. ``minima`` is a float64
    scratch row of length ``n_Y``.
    """
    last_gap = halves.size - 1
    for i in range(out.shape[0]):
        last = i if symmetric else out.shape[1] - 1
        minima[: last + 1] = 0.0
        _shared_minima(i, x_indptr, x_columns, x_data, x_exponents, y_colptr,
                       y_rows, y_data, y_exponents, halves, last, minima)
        for q in range(last + 1):
            value = 0.0
            if minima[q] > 0.0:
                gap = x_exponents[i] - y_exponents[q]
                x_norm, y_norm = x_l1[i], y_l1[q]
                if gap >= 0:
                    y_norm *= halves[min(gap, last_gap)]
                else:
                    x_norm *= halves[min(-gap, last_gap)]
                value = min(minima[q] / (x_norm + y_norm - minima[q]), 1.0)
            out[i, q] = value
            if symmetric:
                out[q, i] = value


@kernel
def _shared_support(i, x_indptr, x_columns, x_data, y_colptr, y_rows, y_data, last,
                    with_products, shared, products):
    """The columns row ``i`` shares with each row ``q`` of ``Y`` up to ``last``.

    Adds to ``shared[q]`` their number and, with ``with_products``, to
    ``products[q]`` the sum of the products of the two rows' values there.
    """
    for p in range(x_indptr[i], x_indptr[i + 1]):
        column = x_columns[p]
        if column < 0:
            continue
        stop = _column_stop(y_colptr, y_rows, column, last)
        if with_products:
            v = x_data[p]
            for t in range(y_colptr[column], stop):
                shared[y_rows[t]] += 1.0
                products[y_rows[t]] += v * y_data[t]
        else:
            for t in range(y_colptr[column], stop):
                shared[y_rows[t]] += 1.0


@kernel
def core_rows(x_indptr, x_columns, x_data, y_colptr, y_rows, y_data, y_sizes, kind,
              symmetric, shared, products, out):
    """Resemblance (``kind=0``) or CoRE kernel of type 1 or 2 of row pairs.

    The values of the rows are unit-l2 (``scale_rows``), so the sum of
    products over the shared columns is the correlation ``rho``, clipped to
    ``[-1, 1]`` against rounding. ``x_columns`` and ``symmetric`` as in
    ``min_max_rows``; ``y_sizes`` are the numbers of stored values of the
    rows of ``Y``; ``shared`` and ``products`` are float64 scratch rows of
    length ``n_Y``. A pair with an all-zero row gives 0.
    """
    for i in range(out.shape[0]):
        last = i if symmetric else out.shape[1] - 1
        shared[: last + 1] = 0.0
        products[: last + 1] = 0.0
        _shared_support(i, x_indptr, x_columns, x_data, y_colptr, y_rows, y_data,
                        last, kind != 0, shared, products)
        f_x = float(x_indptr[i + 1] - x_indptr[i])
        for q in range(last + 1):
            value = 0.0
            if shared[q] > 0.0:
                union = f_x + y_sizes[q] - shared[q]
                rho = min(max(products[q], -1.0), 1.0)
                if kind == 0:
                    value = shared[q] / union
                elif kind == 1:
                    value = rho * (shared[q] / union)
                else:
                    value = rho * (math.sqrt(f_x * y_sizes[q]) / union)
            out[i, q] = value
            if symmetric:
                out[q, i] = value


@kernel
def _shared_excess(i, x_indptr, x_columns, x_data, x_exponents, y_colptr, y_rows,
                   y_data, y_exponents, halves, last, minima, over_y, over_x):
    """``_shared_minima``, and the excesses ``(x~ - y~)+ y~`` and ``(y~ - x~)+ x~``.

    Over the columns the split rows share, at the pair's scale (see
    ``_shared_minima``): ``minima[q] += min(a, b)``, ``over_y[q] += (a -
    b)+ b`` and ``over_x[q] += (b - a)+ a`` for the values ``a`` of row
    ``i`` and ``b`` of row ``q``.
    """
    last_gap = halves.size - 1
    for p in range(x_indptr[i], x_indptr[i + 1]):
        column = x_columns[p]
        if column < 0:
            continue
        v = x_data[p]
        for t in range(y_colptr[column], _column_stop(y_colptr, y_rows, column, last)):
            q = y_rows[t]
            w = y_data[t]
            if (v > 0.0) != (w > 0.0):
                continue
            gap = x_exponents[i] - y_exponents[q]
            a, b = abs(v), abs(w)
            if gap >= 0:
                b *= halves[min(gap, last_gap)]
            else:
                a *= halves[min(-gap, last_gap)]
            minima[q] += min(a, b)
            over_y[q] += max(a - b, 0.0) * b
            over_x[q] += max(b - a, 0.0) * a


@kernel
def zero_bit_rows(x_indptr, x_columns, x_data, x_exponents, x_l1, y_colptr, y_rows,
                  y_data, y_exponents, y_l1, halves, symmetric, minima, over_y, over_x,
                  out):
    """``out[i, q]``: the probability that two rows' consistent samples share a coordinate.

    With ``M = sum max`` of the split rows, ``(sum min + sum (x - y)+ y / |y|_1
    + sum (y - x)+ x / |x|_1) / M``: the samples are the same with
    probability ``sum min / M``; otherwise the first sample lies only under
    one row, and the other row's sample is its own, at coordinate ``i``
    with probability ``y_i / |y|_1``, whatever the first one is. The
    arguments are those of ``min_max_rows``, with ``over_y`` and ``over_x``
    two more float64 scratch rows. A pair with an all-zero row gives 0.
    """
    last_gap = halves.size - 1
    for i in range(out.shape[0]):
        last = i if symmetric else out.shape[1] - 1
        minima[: last + 1] = 0.0
        over_y[: last + 1] = 0.0
        over_x[: last + 1] = 0.0
        _shared_excess(i, x_indptr, x_columns, x_data, x_exponents, y_colptr, y_rows,
                       y_data, y_exponents, halves, last, minima, over_y, over_x)
        for q in range(last + 1):
            value = 0.0
            if x_l1[i] > 0.0 and y_l1[q] > 0.0:
                gap = x_exponents[i] - y_exponents[q]
                x_norm, y_norm = x_l1[i], y_l1[q]
                if gap >= 0:
                    y_norm *= halves[min(gap, last_gap)]
                else:
                    x_norm *= halves[min(-gap, last_gap)]
                if y_norm > 0.0 and x_norm > 0.0:
                    top = over_y[q] / y_norm + over_x[q] / x_norm + minima[q]
                    value = min(top / (x_norm + y_norm - minima[q]), 1.0)
                else:
                    value = 0.0
            out[i, q] = value
            if symmetric:
                out[q, i] = value
