"""sklearn-sketch: scikit-learn transformers that linearize nonlinear kernels.

Each estimator maps rows to features whose inner products estimate a kernel,
so that a linear model or a plain clusterer on those features approximates
its kernel counterpart at a fraction of the cost.
"""

from ._core_hasher import CoREHasher
from ._kernel_jl import KernelJL
from ._tensor_sketch import TensorSketch

__version__ = "0.1.0.dev0"

__all__ = ["CoREHasher", "KernelJL", "TensorSketch", "__version__"]
