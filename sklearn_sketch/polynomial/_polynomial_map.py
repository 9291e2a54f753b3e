"""What every map of the polynomial kernel ``(gamma <x, y> + coef0) ** degree`` shares.

:class:`PolynomialMap` holds the kernel's sizes and parameters, names them
in the size check's message, checks a transformed chunk (or array) for
overflow, keeps the arrays a map's ``transform_array`` moves to a device and
gives the kernel and the sizing model of ``n_components="auto"`` (see
``_sizing``); ``POLYNOMIAL_PARAMETER_CONSTRAINTS`` are the estimators'
constraints on the kernel's parameters.
"""

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils.extmath import row_norms

from .._map import SketchMap, host_dtype
from ..utils._validation import N_JOBS_CONSTRAINT, StrictInterval, all_finite, positive_int
from ._sizing import pilot_model, polynomial_kernel

# The estimators add the base's constraints of n_components and eps.
POLYNOMIAL_PARAMETER_CONSTRAINTS = {
    "degree": [positive_int()],
    "gamma": [StrictInterval(Real, 0, None, closed="neither")],
    "coef0": [StrictInterval(Real, 0, None, closed="left")],
    "random_state": ["random_state"],
    "n_jobs": N_JOBS_CONSTRAINT,
}


class PolynomialMap(SketchMap):
    """A random map of ``(gamma <x, y> + coef0) ** degree`` with ``n_components`` features.

    Subclasses name their fitted attributes in ``fitted_names``; the drawn
    values live on the map itself, so that a map held by another (the
    blocks of MaclaurinSketch) carries them too.
    """

    #: Names of the public fitted attributes the map sets (ending in ``_``).
    fitted_names = ()

    def __init__(self, n_components, degree, n_features, gamma=1.0, coef0=0.0):
        self.n_components = n_components
        self.degree = degree
        self.n_features = n_features
        self.gamma = gamma
        self.coef0 = coef0
        self.n_output = n_components

    def state_bytes(self, dtype):
        return 0

    def size_description(self):
        return (
            f"n_components={self.n_components} and degree={self.degree} "
            "(its random state and the transform of one row)"
        )

    def fitted_attributes(self):
        return {name: getattr(self, name) for name in self.fitted_names}

    def check_input(self, X):
        """Refuse at once rows whose features exceed the range of their dtype.

        The features of a row estimate ``K(x, x) = (gamma |x|^2 + coef0) **
        degree`` as their squared norm: where its square root is beyond the
        dtype's range, they cannot be computed. Refused before the work of
        every degree (a large degree would otherwise work for minutes before
        the overflow of :meth:`check_chunk`). A cheap bound from the largest
        value first; the row norms only where the bound does not decide.
        """
        values = X.data if sp.issparse(X) else X
        if values.size == 0:
            return
        peak = np.float64(max(abs(values.max()), abs(values.min())))
        # Non-finite input is named by the chunks' checks; a zero one is fine.
        if not np.isfinite(peak) or peak == 0:
            return
        limit = np.log(np.finfo(X.dtype).max)
        log_peak = 2 * np.log(peak)
        if self._log_feature_norm(np.log(X.shape[1]) + log_peak) <= limit:
            return
        # Norms of the rows scaled by their largest value, which cannot overflow.
        scaled = row_norms(X.astype(np.float64) / peak, squared=True).max()
        if self._log_feature_norm(log_peak + np.log(scaled)) > limit:
            raise self._overflow(X.dtype)

    def _log_feature_norm(self, log_squared_norm):
        """``log((gamma |x|^2 + coef0) ** (degree / 2))`` from ``log |x|^2``."""
        with np.errstate(divide="ignore"):
            log_kernel = np.log(self.gamma) + log_squared_norm
            if self.coef0:
                log_kernel = np.logaddexp(log_kernel, np.log(self.coef0))
        return 0.5 * self.degree * log_kernel

    def estimated_kernel(self, X):
        return polynomial_kernel(self, X)

    def sizing_model(self, sample, build, random_state):
        # Sketches of sketches (the tree, the expansion): pilots; the flat
        # products override this with their exact variance.
        return pilot_model(sample, build, random_state)

    def check_chunk(self, X_chunk, out):
        # With assume_finite=True the input was not checked: a NaN or an
        # infinity that came in goes out as it is, and is no overflow.
        if not np.isfinite(out).all() and all_finite(X_chunk):
            raise self._overflow(out.dtype)

    def check_array(self, X, out, xp):
        """:meth:`check_chunk` for the arrays of ``transform_array`` (of ``xp``)."""
        if not bool(xp.all(xp.isfinite(out))) and bool(xp.all(xp.isfinite(X))):
            raise self._overflow(host_dtype(out.dtype, xp))

    def _overflow(self, dtype):
        return self.overflow_error(
            dtype, f"the input values raised to degree={self.degree}",
            "Scale the input down (for example with "
            "sklearn.preprocessing.Normalizer), or lower degree, gamma or coef0",
        )

