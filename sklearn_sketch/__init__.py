"""sklearn-sketch: scikit-learn transformers that linearize nonlinear kernels.

Each estimator maps rows to features whose inner products estimate a kernel,
so that a linear model or a plain clusterer on those features approximates
its kernel counterpart at a fraction of the cost.
"""

from ._complex_to_real import ComplexToRealSketch
from ._core_hasher import CoREHasher
from ._kernel_jl import KernelJL
from ._maclaurin import MaclaurinSketch
from ._tensor_sketch import TensorSketch
from ._tensor_srht import TensorSRHT
from ._tree_sketch import PolynomialTreeSketch

__version__ = "0.1.0.dev0"

__all__ = [
    "ComplexToRealSketch",
    "CoREHasher",
    "KernelJL",
    "MaclaurinSketch",
    "PolynomialTreeSketch",
    "TensorSRHT",
    "TensorSketch",
    "__version__",
]
