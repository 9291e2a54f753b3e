"""sklearn-sketch: scikit-learn transformers that linearize nonlinear kernels.

Each estimator maps rows to features whose inner products estimate a kernel,
so that a linear model or a plain clusterer on those features approximates
its kernel counterpart at a fraction of the cost.
"""

from .kernel_jl import KernelJL
from .minwise import CoREHasher, MinMaxHasher
from .polynomial import (
    ComplexToRealSketch,
    MaclaurinSketch,
    PolynomialTreeSketch,
    TensorSketch,
    TensorSRHT,
)
from .rbf import OrthogonalRBFSampler
from .utils._show_versions import show_versions

__version__ = "0.1.0.dev0"

__all__ = [
    "ComplexToRealSketch",
    "CoREHasher",
    "KernelJL",
    "MaclaurinSketch",
    "MinMaxHasher",
    "OrthogonalRBFSampler",
    "PolynomialTreeSketch",
    "TensorSRHT",
    "TensorSketch",
    "__version__",
    "show_versions",
]
