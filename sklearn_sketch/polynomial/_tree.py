"""The binary tree of degree-2 sketches (Ahle et al., SODA 2020): PolynomialTreeSketch's map.

:class:`TreeMap` pads the degree to a power of two ``q``, sketches the
``q`` leaves (copies of the augmented input, and the unit vector ``e`` for
the padding) and combines them pairwise, level by level, with Count Sketch
products (``base="tensorsketch"``) or SRHT products
(``base="tensorsrht"``). PolynomialTreeSketch is this map; MaclaurinSketch
holds one for each degree of its expansion by default.
"""

import functools

import numpy as np
import scipy.fft
import scipy.sparse as sp

from ..utils._count_sketch import (
    count_sketch_array,
    count_sketch_array_tables,
    count_sketch_hashed,
    count_sketch_rows,
    count_sketch_tables,
    draw_hash_down,
    has_scatter_add,
    hash_down,
    hash_down_array,
    hash_down_array_tables,
    hash_down_keys,
)
from ..utils._hadamard import fwht, hadamard_length
from ..utils._hashing import (
    BUCKET_HASH_INDEPENDENCE,
    SIGN_HASH_INDEPENDENCE,
    draw_polynomial_hashes,
    hash_to_signs,
    polynomial_hash,
)
from ._hadamard_blocks import (
    augmented_array,
    augmented_dense,
    augmented_padding,
    block_coordinates,
    block_signs,
    n_augmented_features,
    sampled_hadamard_array,
    srht_width,
)
from ._polynomial_map import PolynomialMap
from ._sizing import fast_length, pilot_model


class TreeMap(PolynomialMap):
    """The degree-``q`` tree of ``x' = [sqrt(gamma) x, sqrt(coef0)]`` and ``e``.

    Takes the options ``base`` and ``buckets`` besides the sizes. Fitted
    attributes, as documented by PolynomialTreeSketch: ``n_leaves_``,
    ``sign_hashes_``, ``bucket_hashes_``, ``bucket_permutations_``,
    ``coordinates_`` and ``hash_down_``.
    """

    fitted_names = (
        "n_leaves_", "sign_hashes_", "bucket_hashes_", "bucket_permutations_",
        "coordinates_", "hash_down_",
    )

    def __init__(self, n_components, degree, n_features, gamma=1.0, coef0=0.0,
                 base="tensorsketch", buckets="permutation"):
        super().__init__(n_components, degree, n_features, gamma, coef0)
        self.base = base
        self.buckets = buckets
        self.n_leaves_ = hadamard_length(degree)
        self.array_api_support = True

    def _n_inputs(self):
        """Number of node inputs: two per internal node, one for degree 1."""
        return max(2 * (self.n_leaves_ - 1), 1)

    def state_bytes(self, dtype):
        # Permutations (or coordinates) and their temporaries, signs.
        widest = max(self.n_components, self._input_size(0))
        return self._n_inputs() * (48 + np.dtype(dtype).itemsize) * widest

    def draw(self, random_state, X=None):
        """Draw the randomness of every node input."""
        n_inputs = self._n_inputs()
        self.sign_hashes_ = draw_polynomial_hashes(
            random_state, n_inputs, SIGN_HASH_INDEPENDENCE
        )
        self.bucket_hashes_ = None
        self.bucket_permutations_ = None
        self.coordinates_ = None
        self.hash_down_ = None
        self._draw_inputs(random_state, n_inputs)

    def _draw_inputs(self, random_state, n_inputs):
        """Draw the buckets, or coordinates and hash-downs, of every node input."""
        wide = self._wide_leaves()
        if self.base == "tensorsketch" and self.buckets == "hash":
            self.bucket_hashes_ = draw_polynomial_hashes(
                random_state, n_inputs, BUCKET_HASH_INDEPENDENCE
            )
        elif self.base == "tensorsketch":
            # Balanced buckets: input i goes to bucket perm(i) mod D, perm a
            # random permutation of max(D, width) keys, so no two inputs
            # share a bucket when width <= D (a node input, of width D, is
            # permuted) and bucket loads differ by at most one otherwise.
            # A Count Sketch with colliding inputs loses part of its input,
            # which adds variance at every node.
            self.bucket_permutations_ = [
                None
                if wide and self._is_leaf_input(t)
                else random_state.permutation(max(self.n_components, width))[:width]
                % self.n_components
                for t, width in ((t, self._input_width(t)) for t in range(n_inputs))
            ]
            if wide:  # the wide leaves hash their buckets
                self.bucket_hashes_ = draw_polynomial_hashes(
                    random_state, n_inputs, BUCKET_HASH_INDEPENDENCE
                )
        else:
            sizes = [self._input_size(t) for t in range(n_inputs)]
            self.coordinates_ = np.stack(
                [block_coordinates(random_state, self.n_components, s) for s in sizes]
            )
            if wide:
                self.hash_down_ = draw_hash_down(random_state, self.n_leaves_)

    # -- structure -------------------------------------------------------

    def _n_leaf_keys(self):
        """Width of a leaf: x', plus the coordinate of ``e`` when padded."""
        n_keys = n_augmented_features(self.n_features, self.coef0)
        return n_keys + (1 if self.n_leaves_ > self.degree else 0)

    def _wide_leaves(self):
        """Whether the leaves are hashed (buckets or hash-down), being too wide."""
        return srht_width(self._n_leaf_keys(), self.n_components)[1]

    def _is_leaf_input(self, t):
        return t < self.n_leaves_

    def _input_width(self, t):
        """Number of keys of node input ``t``: leaf width or ``n_components``."""
        return self._n_leaf_keys() if self._is_leaf_input(t) else self.n_components

    def _input_size(self, t):
        """Hadamard length of node input ``t`` ("tensorsrht"): padded or hashed."""
        if self._is_leaf_input(t):
            return srht_width(self._n_leaf_keys(), self.n_components)[0]
        return hadamard_length(self.n_components)

    def sizing_model(self, sample, build, random_state):
        # Count Sketch nodes multiply real FFTs of the node size.
        admissible = fast_length if self.base == "tensorsketch" else None
        return pilot_model(sample, build, random_state, admissible)

    def bytes_per_row(self, dtype):
        itemsize = np.dtype(dtype).itemsize
        D = self.n_components
        if self.base == "tensorsketch":
            # Live node outputs (at most half the leaves) and two spectra.
            return (self.n_leaves_ // 2 + 4) * D * itemsize
        # An input's Hadamard row, its transformed blocks and the transform's
        # second buffer, at the leaves or above them, whichever is larger.
        hadamard = max(
            (2 * -(-D // size) + 1) * size
            for size in (self._input_size(0), hadamard_length(D))
        )
        return ((self.n_leaves_ // 2 + 3) * D + hadamard) * itemsize

    # -- transform -------------------------------------------------------

    def prepare(self, X, n_jobs=1, n_chunks=1):
        """The hashes (or block signs) of every node input, made once per dtype.

        For "tensorsketch" the hashes of every leaf key are tabulated
        unless the leaves are wide and the input sparse with fewer stored
        entries than features; then the kernel hashes each stored entry
        (O(nnz), whatever n_features is).
        """
        dtype = np.dtype(X.dtype)
        tabulate = self.base == "tensorsketch" and (
            not self._wide_leaves() or not sp.issparse(X) or X.nnz >= self.n_features
        )
        return self.prepared(
            ("inputs", dtype, tabulate), lambda: self._node_inputs(dtype, tabulate)
        )

    def _node_inputs(self, dtype, tabulate):
        n_inputs = self.sign_hashes_.shape[0]
        if self.base == "tensorsketch":
            leaves = [self._leaf_hashes(t, tabulate, dtype) for t in range(self.n_leaves_)]
            # Indexed by node input: a pair's entry at its first leaf.
            level_one = [None] * self.n_leaves_
            level_one[::2] = self._level_one_sketches(leaves, dtype)
            return level_one + [
                self._count_sketch_hashes(t, dtype) for t in range(self.n_leaves_, n_inputs)
            ]
        signs = []
        for t in range(n_inputs):
            size = self._input_size(t)
            n_blocks = -(-self.n_components // size)
            n_keys = size if self.hash_down_ is not None and self._is_leaf_input(t) else (
                self._n_leaf_keys() if self._is_leaf_input(t) else self.n_components
            )
            signs.append(block_signs(self.sign_hashes_[t], n_blocks, size, n_keys, dtype))
        return signs

    def _leaf_key_hashes(self, t, keys, dtype):
        """Bucket and sign of leaf keys for leaf input ``t`` ("tensorsketch").

        The signs carry ``sqrt(gamma)`` (features) and ``sqrt(coef0)`` (the
        constant key), so sketching ``x'`` costs what sketching ``x`` costs.
        """
        keys = np.asarray(keys)
        buckets, signs = self._input_hashes(t, keys, dtype)
        n_features = self.n_features
        signs[keys < n_features] *= dtype.type(np.sqrt(self.gamma))
        if self.coef0 > 0:
            signs[keys == n_features] *= dtype.type(np.sqrt(self.coef0))
        return buckets, signs

    def _input_hashes(self, t, keys, dtype):
        """Bucket and sign of ``keys`` for node input ``t``: by permutation or by hash."""
        permutation = None
        if self.bucket_permutations_ is not None:
            permutation = self.bucket_permutations_[t]
        if permutation is None:
            buckets, signs = count_sketch_tables(
                self.bucket_hashes_[t : t + 1], self.sign_hashes_[t : t + 1], keys,
                self.n_components, dtype,
            )
            return buckets[0], signs[0]
        signs = hash_to_signs(polynomial_hash(self.sign_hashes_[t], keys), dtype)
        return permutation[keys].astype(np.intp), signs

    def _leaf_hashes(self, t, tabulate, dtype):
        """Leaf input ``t``: ``(feature buckets, feature signs, extra buckets,
        extra signs)``, the extra keys being the constant and ``e``.

        The feature tables are None unless ``tabulate``: then the kernel
        hashes each stored entry with the leaf's polynomial hashes.
        """
        n_features = self.n_features
        extra = self._leaf_key_hashes(t, np.arange(n_features, self._n_leaf_keys()), dtype)
        if not tabulate:
            return (None, None) + extra
        return self._leaf_key_hashes(t, np.arange(n_features), dtype) + extra

    def _level_one_sketches(self, leaves, dtype):
        """What each pair of leaves needs in a chunk ("tensorsketch").

        The Count Sketch of ``e`` is one signed bucket, and the cyclic
        convolution with it is a signed cyclic shift: an ``(x, e)`` node is
        the Count Sketch of ``x'`` with shifted buckets, and an ``(e, e)``
        node a constant row, both without FFTs (exactly the same map).

        Returns
        -------
        pairs : list
            Per pair of leaves (per leaf for degree 1): the constant row of
            an ``(e, e)`` pair, or the arguments of :meth:`_count_sketch_x`
            for the Count Sketches of ``x'`` it needs (one or two).
        """
        D = self.n_components
        kinds = ["x"] * self.degree + ["e"] * (self.n_leaves_ - self.degree)
        pairs = []
        for t in range(0, self.n_leaves_, 2 if self.n_leaves_ > 1 else 1):
            pair = kinds[t : t + 2]
            if pair == ["e", "e"]:
                (_, _, ba, sa), (_, _, bb, sb) = leaves[t], leaves[t + 1]
                row = np.zeros((1, D), dtype=dtype)
                row[0, (ba[-1] + bb[-1]) % D] = sa[-1] * sb[-1]
                pairs.append(row)
            elif "e" in pair:
                x_input, e_input = (t, t + 1) if pair[0] == "x" else (t + 1, t)
                shift, factor = leaves[e_input][2][-1], leaves[e_input][3][-1]
                pairs.append(self._x_sketches([(x_input, leaves[x_input], shift, factor)], dtype))
            else:
                pairs.append(self._x_sketches(
                    [(u, leaves[u], 0, dtype.type(1)) for u in range(t, t + len(pair))], dtype
                ))
        return pairs

    def _x_sketches(self, inputs, dtype):
        """Arguments of :meth:`_count_sketch_x` for leaf inputs ``(t, hashes, shift, factor)``.

        Input ``t``'s buckets are shifted cyclically by ``shift`` and its
        signs multiplied by ``factor`` (``+-1``).
        """
        D = self.n_components
        constants = None
        if self.coef0 > 0:  # the constant is the first extra key
            constants = (
                np.array([(leaf[2][0] + shift) % D for _, leaf, shift, _ in inputs]),
                np.array([leaf[3][0] * factor for _, leaf, _, factor in inputs], dtype=dtype),
            )
        if inputs[0][1][0] is not None:
            tables = (
                np.stack([(leaf[0] + shift) % D for _, leaf, shift, _ in inputs]),
                np.stack([leaf[1] * factor for _, leaf, _, factor in inputs]),
            )
            return tables, None, constants
        t = [t for t, _, _, _ in inputs]
        scale = dtype.type(np.sqrt(self.gamma))
        hashed = (
            self.bucket_hashes_[t], self.sign_hashes_[t],
            np.array([scale * factor for _, _, _, factor in inputs], dtype=dtype),
            np.array([shift for _, _, shift, _ in inputs], dtype=np.uint64),
        )
        return None, hashed, constants

    def _count_sketch_x(self, X_rows, sketches, dtype):
        """The Count Sketches of the rows ``x'`` that one pair of leaves needs."""
        tables, hashed, constants = sketches
        n_sketches = len(tables[0]) if tables is not None else len(hashed[2])
        out = np.empty((n_sketches, X_rows.shape[0], self.n_components), dtype=dtype)
        if tables is not None:
            return count_sketch_rows(X_rows, *tables, out, constants)
        bucket_hashes, sign_hashes, scales, shifts = hashed
        return count_sketch_hashed(
            X_rows, bucket_hashes, sign_hashes, scales, out, shifts=shifts, constants=constants
        )

    def _count_sketch_hashes(self, t, dtype):
        """Bucket and sign of every key of node input ``t`` above the leaves.

        For a node input whose buckets are a permutation, the inverse
        permutation is returned too: the Count Sketch is then a signed gather.
        """
        buckets, signs = self._input_hashes(t, np.arange(self._input_width(t)), dtype)
        gather = None
        if self.bucket_permutations_ is not None:
            inverse = np.empty_like(buckets)
            inverse[buckets] = np.arange(buckets.size)
            gather = (inverse, signs[inverse])
        return buckets, signs, gather

    def _leaf_rows(self, X_chunk, dtype):
        """The leaf inputs of one chunk: ``x'`` and the unit vector ``e``.

        For "tensorsrht" both are dense rows padded to the leaf Hadamard
        length (with a hash-down, the CSR chunk and None: each leaf hashes
        them itself); for "tensorsketch" ``x'`` is the chunk as CSR (its
        constant coordinate is added after the Count Sketch) and ``e`` is
        ``None``.
        """
        if self.base == "tensorsketch" or self.hash_down_ is not None:
            # The Count Sketch kernels scatter the stored entries of either
            # format into the buckets.
            return X_chunk, None
        width = self._input_size(0)
        U = augmented_dense(X_chunk, self.gamma, self.coef0, width, dtype)
        e = np.zeros((1, width), dtype=dtype)
        e[0, self._n_leaf_keys() - 1] = 1.0
        return U, e

    def _hashed_leaf(self, t, leaf, x_rows, dtype):
        """Leaf input ``t`` hashed down ("tensorsrht", wide leaves): ``C_t x'`` or ``C_t e``."""
        width = self._input_size(t)
        if leaf == "x":
            return hash_down(x_rows, self.hash_down_[t], width, self.gamma, self.coef0, dtype)
        bucket, sign = hash_down_keys(
            self.hash_down_[t], np.array([self._n_leaf_keys() - 1]), width, dtype
        )
        row = np.zeros((1, width), dtype=dtype)
        row[0, bucket[0]] = sign[0]
        return row

    def _node_count_sketch(self, t, U, dtype, state):
        """Count Sketch of a node output ``U`` (n_rows, D) for input ``t``."""
        buckets, signs, gather = state[t]
        if gather is not None:
            # A permutation: bucket k receives key inverse[k].
            inverse, inverse_signs = gather
            out = np.take(U, inverse, axis=1)
            out *= inverse_signs
            return out
        out = np.empty((1, U.shape[0], self.n_components), dtype=dtype)
        return count_sketch_rows(U, buckets[None], signs[None], out)[0]

    def _sketch_input(self, t, U, dtype, state, leaf=None):
        """The degree-1 SRHT of node input ``t`` applied to rows ``U`` ("tensorsrht").

        ``leaf`` is "x" or "e" at the leaves (``U`` then comes from
        :meth:`_leaf_rows`), None above them.
        """
        size = self._input_size(t)
        if leaf is None and U.shape[1] != size:
            padded = np.zeros((U.shape[0], size), dtype=dtype)
            padded[:, : U.shape[1]] = U
            U = padded
        blocks = fwht(U[:, None, :] * state[t])
        return blocks.reshape(U.shape[0], -1)[:, self.coordinates_[t]]

    def _combine(self, a, b):
        """The degree-2 node sketch from its inputs' degree-1 sketches."""
        if self.base == "tensorsketch":
            if a.shape[0] < b.shape[0]:  # a constant (1, D) row broadcasts into the other
                a, b = b, a
            spectrum = scipy.fft.rfft(a, axis=1)
            spectrum *= scipy.fft.rfft(b, axis=1)
            return scipy.fft.irfft(spectrum, n=self.n_components, axis=1, overwrite_x=True)
        product = a * b
        product *= product.dtype.type(1.0 / np.sqrt(self.n_components))
        return product

    def _leaf_input(self, t, leaf, x_rows, e_row, dtype):
        """The rows leaf input ``t`` transforms ("tensorsrht"): shared, or hashed down."""
        if self.hash_down_ is not None:
            return self._hashed_leaf(t, leaf, x_rows, dtype)
        return x_rows if leaf == "x" else e_row

    def _level_one_nodes(self, X_chunk, dtype, state):
        """The sketches of the leaves' pairs, or of the single leaf (degree 1)."""
        x_rows, e_row = self._leaf_rows(X_chunk, dtype)
        leaves = ["x"] * self.degree + ["e"] * (self.n_leaves_ - self.degree)
        if self.base == "tensorsketch":
            nodes = []
            for pair in state[: self.n_leaves_ : 2]:
                if isinstance(pair, np.ndarray):  # an (e, e) pair: a constant row
                    nodes.append(pair)
                    continue
                sketches = self._count_sketch_x(x_rows, pair, dtype)
                nodes.append(sketches[0] if len(sketches) == 1 else self._combine(*sketches))
            return nodes
        # Computed as they are paired: two leaf sketches alive at a time.
        sketches = (
            self._sketch_input(t, self._leaf_input(t, leaf, x_rows, e_row, dtype), dtype,
                               state, leaf=leaf)
            for t, leaf in enumerate(leaves)
        )
        if self.n_leaves_ == 1:
            return [next(sketches) * dtype.type(1.0 / np.sqrt(self.n_components))]
        return [self._combine(a, b) for a, b in zip(sketches, sketches)]

    def transform_chunk(self, X_chunk, out, state):
        dtype = out.dtype
        # Level 1: pairs of leaves; then pairs of nodes, level by level.
        nodes = self._level_one_nodes(X_chunk, dtype, state)
        t = self.n_leaves_
        sketch_node = self._node_count_sketch if self.base == "tensorsketch" else self._sketch_input
        while len(nodes) > 1:
            parents = []
            for k in range(len(nodes) // 2):
                a = sketch_node(t, nodes[2 * k], dtype, state)
                b = sketch_node(t + 1, nodes[2 * k + 1], dtype, state)
                t += 2
                parents.append(self._combine(a, b))
            nodes = parents
        # A node of constants (all leaves e) cannot be the root (degree >= 1),
        # but a constant row broadcasts: fill every row.
        out[...] = np.broadcast_to(nodes[0], out.shape)
        return out

    # -- transform_array -------------------------------------------------

    def transform_array(self, X, xp, device):
        """The features of the whole array ``X`` of namespace ``xp`` on ``device``.

        The tree of :meth:`transform_chunk`, level by level, with the
        namespace's operations. ``base="tensorsketch"``: each pair of leaves
        is one or two Count Sketches of ``x'`` (:func:`count_sketch_array`
        of the tables of :meth:`prepare`, shifted buckets for a leaf paired
        with ``e``; a constant row for a pair of ``e``), the Count Sketches
        of the nodes above are signed gathers (permuted buckets) or
        :func:`count_sketch_array` (hashed ones), and pairs combine by FFT.
        ``base="tensorsrht"``: every input is the signed Hadamard blocks'
        sampled coordinates (wide leaves hashed down first,
        :func:`hash_down_array`), pairs multiply and scale by
        ``1 / sqrt(n_components)``. The tables are computed on the host and
        moved once.
        """
        build = functools.partial(self._device_tables, scatter=has_scatter_add(xp))
        tables = self.moved_arrays(xp, device, X.dtype, build)
        # A namespace computing with NumPy (array_api_strict) would warn of
        # an overflow, which check_array reports as the NumPy path does.
        with np.errstate(over="ignore", invalid="ignore"):
            if self.base == "tensorsketch":
                out = self._count_sketch_tree_array(X, tables, xp)
            else:
                out = self._srht_tree_array(X, tables, xp, device)
        self.check_array(X, out, xp)
        return out

    def _device_tables(self, dtype, scatter):
        """The host arrays :meth:`transform_array` moves, flat (see its readers)."""
        state = self.prepare(np.empty((0, self.n_features), dtype=dtype))
        if self.base == "tensorsrht":
            return (*self._srht_leaf_tables(dtype, scatter), *state, *self.coordinates_)
        D = self.n_components
        tables = []
        # Per pair of leaves: a constant row (and two None), or the tables of
        # its Count Sketches of x' (count_sketch_array_tables, k sketches)
        # and their constant rows (k, D) or None.
        for pair in state[: self.n_leaves_ : 2 if self.n_leaves_ > 1 else 1]:
            if isinstance(pair, np.ndarray):
                tables += [pair, None, None]
                continue
            (buckets, signs), _, constants = pair
            tables += count_sketch_array_tables(buckets, signs, D, scatter)
            constant_rows = None
            if constants is not None:
                constant_rows = np.zeros((buckets.shape[0], D), dtype=dtype)
                constant_rows[np.arange(buckets.shape[0]), constants[0]] = constants[1]
            tables.append(constant_rows)
        # Per node input above the leaves: the signed gather of permuted
        # buckets (indices, signs), or the tables of a hashed Count Sketch.
        for buckets, signs, gather in state[self.n_leaves_ :]:
            if gather is not None:
                tables += list(gather)
            else:
                indices, layer_signs = count_sketch_array_tables(
                    buckets[None], signs[None], D, scatter
                )
                tables += [indices[0], layer_signs[0]]
        return tuple(tables)

    def _srht_leaf_tables(self, dtype, scatter):
        """"tensorsrht": the padding row of ``x'`` and the row ``e``; with a
        hash-down, four per leaf: :func:`hash_down_array_tables` (an ``x``
        leaf) or ``C_t e`` (an ``e`` leaf) in its place, None elsewhere."""
        width = self._input_size(0)
        if self.hash_down_ is None:
            e = np.zeros(width, dtype=dtype)
            e[self._n_leaf_keys() - 1] = 1.0
            return augmented_padding(self.n_features, self.coef0, width, dtype), e
        tables = []
        for t in range(self.n_leaves_):
            if t < self.degree:
                tables += hash_down_array_tables(
                    self.hash_down_[t], self.n_features, width, self.gamma, self.coef0, dtype,
                    scatter,
                )
                tables.append(None)
            else:
                tables += [None, None, None, self._hashed_leaf(t, "e", None, dtype)]
        return tuple(tables)

    def _fft_combine_array(self, a, b, xp):
        spectrum = xp.fft.rfft(a, axis=-1) * xp.fft.rfft(b, axis=-1)
        return xp.fft.irfft(spectrum, n=self.n_components, axis=-1)

    def _count_sketch_tree_array(self, X, tables, xp):
        n_pairs = max(self.n_leaves_ // 2, 1)
        D = self.n_components
        nodes = []
        for k in range(n_pairs):
            first, signs, constants = tables[3 * k : 3 * k + 3]
            if signs is None:  # an (e, e) pair: a constant row
                nodes.append(first)
                continue
            sketches = []
            for j in range(first.shape[0]):
                C = count_sketch_array(X, first[j, ...], signs[j, ...], D, xp)
                sketches.append(C if constants is None else C + constants[j, ...])
            nodes.append(
                sketches[0] if len(sketches) == 1 else self._fft_combine_array(*sketches, xp)
            )
        node_tables = tables[3 * n_pairs :]
        gather = self.bucket_permutations_ is not None

        def sketch_node(t, U):
            first, second = node_tables[2 * (t - self.n_leaves_) : 2 * (t - self.n_leaves_) + 2]
            if gather:
                return xp.take(U, first, axis=1) * second
            return count_sketch_array(U, first, second, D, xp)

        return self._combine_levels_array(nodes, sketch_node, self._fft_combine_array, xp)

    def _combine_levels_array(self, nodes, sketch_node, combine, xp):
        """Pairs of nodes, level by level, from the level-one ``nodes`` to the root."""
        t = self.n_leaves_
        while len(nodes) > 1:
            parents = []
            for k in range(len(nodes) // 2):
                a = sketch_node(t, nodes[2 * k])
                b = sketch_node(t + 1, nodes[2 * k + 1])
                t += 2
                parents.append(combine(a, b, xp))
            nodes = parents
        return nodes[0]

    def _srht_tree_array(self, X, tables, xp, device):
        n_inputs = self._n_inputs()
        n_leaf_tables = len(tables) - 2 * n_inputs
        leaf_tables = tables[:n_leaf_tables]
        signs, coordinates = tables[n_leaf_tables:-n_inputs], tables[-n_inputs:]
        scale = float(1.0 / np.sqrt(self.n_components))
        width = self._input_size(0)
        if self.hash_down_ is None:
            x_rows = augmented_array(X, self.gamma, leaf_tables[0], xp)
            e_row = xp.reshape(leaf_tables[1], (1, -1))

        def leaf_input(t, leaf):
            if self.hash_down_ is None:
                return x_rows if leaf == "x" else e_row
            if leaf == "x":
                return hash_down_array(X, leaf_tables[4 * t : 4 * t + 3], width, xp)
            return leaf_tables[4 * t + 3]

        def sketch_input(t, U):
            size = self._input_size(t)
            if U.shape[1] != size:  # a node's output, zero-padded
                zeros = xp.zeros((U.shape[0], size - U.shape[1]), dtype=U.dtype, device=device)
                U = xp.concat([U, zeros], axis=1)
            return sampled_hadamard_array(U, signs[t], coordinates[t], xp)

        def combine(a, b, xp):
            return (a * b) * scale

        leaves = ["x"] * self.degree + ["e"] * (self.n_leaves_ - self.degree)
        sketches = [sketch_input(t, leaf_input(t, leaf)) for t, leaf in enumerate(leaves)]
        if self.n_leaves_ == 1:
            return sketches[0] * scale
        nodes = [combine(a, b, xp) for a, b in zip(sketches[::2], sketches[1::2])]
        return self._combine_levels_array(nodes, sketch_input, combine, xp)
