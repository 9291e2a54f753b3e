"""Sketches of the polynomial kernel ``(gamma <x, y> + coef0) ** degree``.

Each estimator is its random map mixed with the family's estimator base
(``_base``): ``_count_sketch`` (TensorSketch), ``_srht`` (TensorSRHT) and
``_tree`` (PolynomialTreeSketch) hold the maps, which MaclaurinSketch also
draws for the degrees of its expansion, so no estimator module imports
another. What the maps share (Count Sketch, the Hadamard transform, the
hash-down of wide input, complex helpers) lives in ``_common``.
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
