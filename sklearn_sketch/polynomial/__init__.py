"""Sketches of the polynomial kernel ``(gamma <x, y> + coef0) ** degree``.

Each estimator module holds the estimator only (its parameters, docstring
and ``_make_map``); what it computes is a map (``_polynomial_map``'s
:class:`PolynomialMap`): the Count Sketch product (``_count_sketch_product``,
TensorSketch), the SRHT product (``_srht_product``, TensorSRHT), the tree of
degree-2 sketches (``_tree``, PolynomialTreeSketch), the complex projections
(``_complex_projection``, ComplexToRealSketch) and the sum over the kernel's
expansion (``_maclaurin_sum``, MaclaurinSketch), which holds the other maps
as plain objects. The augmented input and the Hadamard blocks the SRHT maps
share are in ``_hadamard_blocks``; the Count Sketch of CSR rows and the
Hadamard transform, shared with the RBF features, live in ``utils``.
"""

from ._complex_to_real import ComplexToRealSketch
from ._maclaurin import MaclaurinSketch
from ._tensor_sketch import TensorSketch
from ._tensor_srht import TensorSRHT
from ._tree_sketch import PolynomialTreeSketch

__all__ = [
    "ComplexToRealSketch",
    "MaclaurinSketch",
    "PolynomialTreeSketch",
    "TensorSRHT",
    "TensorSketch",
]
