"""The estimator base of the polynomial sketches: parameters, fit, sizes, overflow.

A polynomial sketch is its random map (a :class:`~._common.PolynomialMap`
of ``_tensor_sketch_map``, ``_tensor_srht_map`` or ``_tree_map``) mixed with
:class:`_PolynomialSketchBase`, which adds the parameters of
``(gamma <x, y> + coef0) ** degree``, the generic ``fit`` (size check, then
draw) and the overflow check of a transformed chunk.
"""

from numbers import Real

import numpy as np
from sklearn.utils import check_random_state

from .._base import BaseSketch, all_finite
from ..utils._chunking import check_allocation
from ..utils._validation import (
    N_JOBS_CONSTRAINT,
    StrictInterval,
    overflow_error,
    positive_int,
)

POLYNOMIAL_PARAMETER_CONSTRAINTS = {
    "n_components": [positive_int()],
    "degree": [positive_int()],
    "gamma": [StrictInterval(Real, 0, None, closed="neither")],
    "coef0": [StrictInterval(Real, 0, None, closed="left")],
    "random_state": ["random_state"],
    "n_jobs": N_JOBS_CONSTRAINT,
}


class _PolynomialSketchBase(BaseSketch):
    """What the polynomial sketches add to the base: parameters, sizes, overflow."""

    _parameter_constraints: dict = dict(POLYNOMIAL_PARAMETER_CONSTRAINTS)

    def _fit(self, X):
        """Refuse impossible sizes, then draw the map; only the width of X is read."""
        self._layout()
        self._check_size(self._state_bytes(X.dtype), X.dtype)
        self._draw(check_random_state(self.random_state))
        self._n_features_out = self.n_components
        return self

    def _check_size(self, state_bytes, dtype):
        """Refuse, before drawing it, a model that could not transform one row here.

        ``state_bytes`` is what ``fit`` draws and ``_prepare_transform``
        builds; to it come the temporaries of one row and its output row.
        Raises a MemoryError naming the size (see ``check_allocation``).
        """
        itemsize = np.dtype(dtype).itemsize
        row_bytes = self._bytes_per_row(dtype) + self.n_components * itemsize
        check_allocation(
            state_bytes + row_bytes,
            f"{type(self).__name__} with n_components={self.n_components} and "
            f"degree={self.degree} (its random state and the transform of one row)",
        )

    def _check_chunk(self, X_chunk, out):
        # With assume_finite=True the input was not checked: a NaN or an
        # infinity that came in goes out as it is, and is no overflow.
        if not np.isfinite(out).all() and all_finite(X_chunk):
            raise overflow_error(
                self, out.dtype, f"the input values raised to degree={self.degree}",
                "Scale the input down (for example with "
                "sklearn.preprocessing.Normalizer), or lower degree, gamma or coef0",
            )
