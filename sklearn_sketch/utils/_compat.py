"""Every private scikit-learn and SciPy name the package uses, imported in one place.

Neither library promises these names across releases; keeping them here
means a release that moves one breaks this module only.
"""

from sklearn.base import _fit_context
from sklearn.utils._indexing import _safe_indexing
from sklearn.utils._param_validation import Hidden, Interval, StrOptions
from sklearn.utils.validation import _check_feature_names_in

# scikit-learn's array API helpers (array_api_dispatch; see _array_api).
from sklearn.utils._array_api import _convert_to_numpy

try:
    from sklearn.utils._array_api import get_namespace_and_device
except ImportError:  # pragma: no cover - releases before it
    from sklearn.utils._array_api import device as _device
    from sklearn.utils._array_api import get_namespace as _get_namespace

    def get_namespace_and_device(*arrays):
        """The arrays' namespace, whether it is an array API one, and their device."""
        return (*_get_namespace(*arrays), _device(*arrays))


try:
    # The C++ routine behind ``csr_matrix.toarray``, called on arrays: the
    # public path builds a matrix object and checks its arguments in Python,
    # holding the GIL for longer than the scatter itself takes on a chunk.
    from scipy.sparse._sparsetools import csr_todense
except ImportError:  # pragma: no cover - a SciPy that moved it
    import scipy.sparse as _sp

    def csr_todense(n_rows, n_columns, indptr, indices, data, out):
        """Add the CSR matrix ``(data, indices, indptr)`` into ``out``."""
        out += _sp.csr_matrix((data, indices, indptr), shape=(n_rows, n_columns)).toarray()


try:
    # The C++ routine behind ``csr_matrix @ ndarray``: ``Y += A @ X`` into a
    # given ``Y`` (the product into reused memory; the same sums, bit for bit).
    from scipy.sparse._sparsetools import csr_matvecs
except ImportError:  # pragma: no cover - a SciPy that moved it
    import scipy.sparse as _sp

    def csr_matvecs(n_rows, n_columns, n_vectors, indptr, indices, data, X, Y):
        """Add the product of the CSR matrix ``(data, indices, indptr)`` and ``X`` into ``Y``."""
        A = _sp.csr_matrix((data, indices, indptr), shape=(n_rows, n_columns))
        Y += (A @ X.reshape(n_columns, n_vectors)).ravel()


try:
    # The C++ routine behind ``csr_matrix.tocsc``, into given arrays.
    from scipy.sparse._sparsetools import csr_tocsc
except ImportError:  # pragma: no cover - a SciPy that moved it
    import scipy.sparse as _sp

    def csr_tocsc(n_rows, n_columns, indptr, indices, data, out_indptr, out_indices, out_data):
        """The CSC arrays of the CSR matrix ``(data, indices, indptr)``, into the outputs."""
        A = _sp.csr_matrix((data, indices, indptr), shape=(n_rows, n_columns)).tocsc()
        out_indptr[...], out_indices[...], out_data[...] = A.indptr, A.indices, A.data


__all__ = [
    "Hidden",
    "Interval",
    "StrOptions",
    "_check_feature_names_in",
    "_convert_to_numpy",
    "_fit_context",
    "_safe_indexing",
    "csr_matvecs",
    "csr_tocsc",
    "csr_todense",
    "get_namespace_and_device",
]
