"""Every private scikit-learn name the package uses, imported in one place.

scikit-learn does not promise these names across releases; keeping them
here means a release that moves one breaks this module only.
"""

from sklearn.base import _fit_context
from sklearn.utils._param_validation import Interval, StrOptions

__all__ = ["Interval", "StrOptions", "_fit_context"]
