"""Sketches of the polynomial kernel ``(gamma <x, y> + coef0) ** degree``.

Each estimator is its random map mixed with the family's estimator base
(``_base``): ``_tensor_sketch_map``, ``_tensor_srht_map`` and
``_tree_map`` hold the maps of TensorSketch, TensorSRHT and
PolynomialTreeSketch, which MaclaurinSketch also draws for the degrees of
its expansion, so no estimator module imports another. What the maps share (the hash-down of wide input, Hadamard blocks,
complex helpers) lives in ``_common``; the Count Sketch of CSR rows and the
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
