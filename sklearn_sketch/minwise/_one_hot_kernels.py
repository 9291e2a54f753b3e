"""The compiled Gram matrix of a few rows of one-hot block output (``_one_hot``).

Every nonempty output row of a minwise-type hasher holds exactly ``k``
entries, the one of hash ``j`` in block ``j`` (canonical CSR, so at position
``j`` of the row). Two such rows' inner product is the sum, over the hashes
whose columns agree, of the product of their values: ``k`` comparisons per
pair of rows, written without a branch, where a product of the sparse
matrices accumulates every agreement in a hash map (several times slower on
rows whose codes often agree, as the pilots of ``n_components="auto"`` draw
them). Where every value is the same (the resemblance, the min-max kernel)
the agreements are counted in integers, which vectorize; otherwise four
partial sums in a fixed order let the products overlap.
"""

from ..utils._numba import kernel


@kernel
def one_hot_agreements(columns, out):
    """``out[a, b]``: the number of ``j`` with ``columns[a, j] == columns[b, j]``.

    ``columns`` (n_rows, k) integers are the entries' columns of ``n_rows``
    nonempty rows; ``out`` (n_rows, n_rows) is overwritten.
    """
    n_rows, k = columns.shape
    for a in range(n_rows):
        columns_a = columns[a]
        for b in range(a + 1):
            columns_b = columns[b]
            total = 0
            for j in range(k):
                total += columns_a[j] == columns_b[j]
            out[a, b] = total
            out[b, a] = total


@kernel
def one_hot_gram(columns, values, out):
    """``out[a, b] = sum_j [columns[a, j] == columns[b, j]] values[a, j] values[b, j]``.

    ``columns`` (n_rows, k) integers and ``values`` (n_rows, k) float64 are
    the entries of ``n_rows`` nonempty rows; ``out`` (n_rows, n_rows),
    float64, is overwritten.
    """
    n_rows, k = columns.shape
    whole = k - k % 4
    for a in range(n_rows):
        columns_a, values_a = columns[a], values[a]
        for b in range(a + 1):
            columns_b, values_b = columns[b], values[b]
            s0 = s1 = s2 = s3 = 0.0
            for j in range(0, whole, 4):
                s0 += values_a[j] * values_b[j] * (columns_a[j] == columns_b[j])
                s1 += values_a[j + 1] * values_b[j + 1] * (columns_a[j + 1] == columns_b[j + 1])
                s2 += values_a[j + 2] * values_b[j + 2] * (columns_a[j + 2] == columns_b[j + 2])
                s3 += values_a[j + 3] * values_b[j + 3] * (columns_a[j + 3] == columns_b[j + 3])
            for j in range(whole, k):
                s0 += values_a[j] * values_b[j] * (columns_a[j] == columns_b[j])
            total = (s0 + s1) + (s2 + s3)
            out[a, b] = total
            out[b, a] = total
