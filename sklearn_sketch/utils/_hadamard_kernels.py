"""Compiled loops of the Walsh-Hadamard transform and the structured products built on it.

The transform of a row of length ``d`` is the radix-2 butterfly network of
the papers: ``log2(d)`` levels, ``half = 1, 2, 4, ..., d / 2`` in that
order, each replacing every pair ``a = x[t], b = x[t + half]`` (``t`` in the
first half of a run of ``2 half``) by ``a + b, a - b``. The loops below
compute exactly these additions, two levels per pass (radix 4, the same
sums), so that a row's bits follow from this order alone: the same on every
machine, thread count, batch and chunk, which a BLAS product by the Hadamard
matrix does not promise (its order depends on the BLAS build and its thread
count), for ``log2(d)`` additions per value instead of ``d``.

Rows go through in groups of ``_ROWS``, interleaved in a buffer that stays
in the core's cache: value ``j`` of the group's row ``k`` at
``j * _ROWS + k``. Every butterfly then pairs two vectors of ``_ROWS``
lanes, one lane per row, and the diagonal products between transforms fill
or empty the buffer. A last, partial group is padded with zero rows, which
change nothing in the others.

The butterflies, and the 8 x 8 tiles that carry the scaled projections from
the buffer to the rows of the output, are written as operations on LLVM
vectors (numba intrinsics: ``_radix4_vectors``, ``_scaled_tile``): numba
runs LLVM's loop vectorizer but not its straight-line one, and the loop
vectorizer leaves a loop of ``_ROWS`` iterations (the first two levels)
scalar or behind run-time overlap checks, and a strided read per value
(the output's rows) scalar. Lane by lane the vector operations are the
scalar additions and products, in the same order, so the bits do not
depend on them.
"""

import numpy as np

from ._numba import cgutils, intrinsic, ir, kernel, types

# Rows per interleaved group: a vector register's worth of float32 values,
# and few enough that a group's buffer stays in the cache at every width.
_ROWS = 8
# A shuffle's lane indices (an LLVM constant vector).
_MASK = ir.VectorType(ir.IntType(32), _ROWS)


def _butterfly_codegen(radix):
    """The code of :func:`_radix4_vectors` (``radix`` 4) or :func:`_radix2_vectors` (2)."""

    def codegen(context, builder, signature, args):
        array_type = signature.args[0]
        data = context.make_array(array_type)(context, builder, args[0]).data
        vector_pointer = ir.VectorType(context.get_data_type(array_type.dtype), _ROWS).as_pointer()
        align = array_type.dtype.bitwidth // 8
        start, stride = args[1], args[2]
        pointers = [
            builder.bitcast(
                builder.gep(data, [builder.add(start, builder.mul(stride, start.type(i)))]),
                vector_pointer,
            )
            for i in range(radix)
        ]
        values = [builder.load(pointer, align=align) for pointer in pointers]
        if radix == 2:
            a, b = values
            results = [builder.fadd(a, b), builder.fsub(a, b)]
        else:
            a, b, c, e = values
            ab, a_b, ce, c_e = (
                builder.fadd(a, b), builder.fsub(a, b), builder.fadd(c, e), builder.fsub(c, e)
            )
            results = [
                builder.fadd(ab, ce), builder.fadd(a_b, c_e),
                builder.fsub(ab, ce), builder.fsub(a_b, c_e),
            ]
        for pointer, value in zip(pointers, results):
            builder.store(value, pointer, align=align)
        return context.get_dummy_value()

    return codegen


@intrinsic
def _radix4_vectors(typingctx, buf, start, stride):
    """Levels ``stride`` and ``2 stride`` of the ``_ROWS`` lanes at ``start``:
    the vectors ``a, b, c, e`` of ``_ROWS`` values at ``start + i * stride``
    become ``(a+b)+(c+e), (a-b)+(c-e), (a+b)-(c+e), (a-b)-(c-e)``.

    Written as operations on LLVM vectors of ``_ROWS`` lanes (the group's
    rows) because numba leaves LLVM's straight-line (SLP) vectorizer off,
    and its loop vectorizer leaves a loop of ``_ROWS`` iterations scalar
    or behind run-time overlap checks. Lane by lane these are the scalar
    additions, in the same order (same bits). No bounds checks: the
    callers pass ``start + 3 * stride + _ROWS <= buf.size``.
    """
    return types.none(buf, types.intp, types.intp), _butterfly_codegen(4)


@intrinsic
def _radix2_vectors(typingctx, buf, start, stride):
    """Level ``stride`` of the ``_ROWS`` lanes at ``start``: the vectors
    ``a, b`` at ``start`` and ``start + stride`` become ``a + b, a - b``
    (see :func:`_radix4_vectors`)."""
    return types.none(buf, types.intp, types.intp), _butterfly_codegen(2)


def _transposed(builder, vectors):
    """The ``_ROWS`` x ``_ROWS`` transpose of ``vectors`` (lane ``k`` of
    vector ``j`` becomes lane ``j`` of vector ``k``), by swapping the
    off-diagonal blocks of half, a quarter, ... of the lanes."""
    vectors = list(vectors)
    half = _ROWS // 2
    while half:
        for j in range(_ROWS):
            if j & half:
                continue
            low, high = vectors[j], vectors[j + half]
            low_mask = [k if not k & half else _ROWS + k - half for k in range(_ROWS)]
            high_mask = [k + half if not k & half else _ROWS + k for k in range(_ROWS)]
            vectors[j] = builder.shuffle_vector(low, high, _MASK(low_mask))
            vectors[j + half] = builder.shuffle_vector(low, high, _MASK(high_mask))
        half //= 2
    return vectors


def _scaled_tile_codegen(context, builder, signature, args):
    """The code of :func:`_scaled_tile`."""
    buf_type, scales_type, _, out_type = signature.args[:4]
    buf, scales, j, out, first, n_real, column = args
    dtype = context.get_data_type(buf_type.dtype)
    align = buf_type.dtype.bitwidth // 8
    vector_pointer = ir.VectorType(dtype, _ROWS).as_pointer()
    buf_data = context.make_array(buf_type)(context, builder, buf).data
    scales_data = context.make_array(scales_type)(context, builder, scales).data
    vectors = []
    for i in range(_ROWS):
        index = builder.add(j, j.type(i))
        pointer = builder.gep(buf_data, [builder.mul(index, index.type(_ROWS))])
        vector = builder.load(builder.bitcast(pointer, vector_pointer), align=align)
        scale = builder.load(builder.gep(scales_data, [index]), align=align)
        splat = builder.insert_element(ir.VectorType(dtype, _ROWS)(None), scale, j.type(0))
        splat = builder.shuffle_vector(splat, splat, _MASK([0] * _ROWS))
        vectors.append(builder.fmul(vector, splat))
    out_array = context.make_array(out_type)(context, builder, out)
    for k, row in enumerate(_transposed(builder, vectors)):
        with builder.if_then(builder.icmp_signed("<", n_real.type(k), n_real)):
            pointer = cgutils.get_item_pointer(
                context, builder, out_type, out_array,
                [builder.add(first, first.type(k)), column], wraparound=False,
            )
            builder.store(row, builder.bitcast(pointer, vector_pointer), align=align)
    return context.get_dummy_value()


@intrinsic
def _scaled_tile(typingctx, buf, scales, j, out, first, n_real, column):
    """Values ``j .. j + _ROWS`` of the group's rows ``k < n_real``, times
    ``scales``, into ``out[first + k, column ...]``: a tile of the buffer loaded as vectors,
    each multiplied by its scale, transposed in registers and stored as
    rows (see :func:`_radix4_vectors` for why LLVM vectors). The products
    are the scalar ``buf * scale``. No bounds checks: the callers pass
    places that ``out`` holds.
    """
    signature = types.none(buf, scales, types.intp, out, types.intp, types.intp, types.intp)
    return signature, _scaled_tile_codegen


@kernel(inline="always")
def _radix4_pass(buf, stride):
    """Levels ``stride`` and ``2 stride`` of the buffer, one pass: the two
    radix-2 levels' sums of each quartet at that stride (a multiple of
    ``_ROWS``)."""
    for s in range(0, buf.size, 4 * stride):
        for t in range(s, s + stride, _ROWS):
            _radix4_vectors(buf, t, stride)


@kernel(inline="always")
def _radix2_pass(buf, stride):
    """Level ``stride`` of the buffer: each pair ``a, b`` becomes ``a + b, a - b``."""
    for s in range(0, buf.size, 2 * stride):
        for t in range(s, s + stride, _ROWS):
            _radix2_vectors(buf, t, stride)


@kernel
def _transform_group(buf):
    """The transform of the ``_ROWS`` interleaved rows of ``buf``, in place:
    row level ``half`` is buffer stride ``half * _ROWS``."""
    stride = _ROWS
    while 4 * stride <= buf.size:
        _radix4_pass(buf, stride)
        stride *= 4
    if stride < buf.size:
        _radix2_pass(buf, stride)


@kernel(inline="always")
def _padded_group(rows, first, n_rows):
    """Rows ``first .. first + _ROWS`` of ``rows``, zero rows past ``n_rows``:
    a view where the group is whole, else a padded copy."""
    if first + _ROWS <= n_rows:
        return rows[first : first + _ROWS]
    group = np.zeros((_ROWS, rows.shape[1]), dtype=rows.dtype)
    # Value by value: an array assigned to a slice compiles numba's
    # formatting of its shape error, seconds of first use.
    for k in range(n_rows - first):
        for j in range(rows.shape[1]):
            group[k, j] = rows[first + k, j]
    return group


@kernel
def fwht_rows(rows):
    """The transform of every row of ``rows`` (n, d), in place."""
    n_rows, d = rows.shape
    buf = np.empty(d * _ROWS, dtype=rows.dtype)
    for first in range(0, n_rows, _ROWS):
        group = _padded_group(rows, first, n_rows)
        for j in range(d):
            for k in range(_ROWS):
                buf[j * _ROWS + k] = group[k, j]
        _transform_group(buf)
        for k in range(min(_ROWS, n_rows - first)):
            row = rows[first + k]
            for j in range(d):
                row[j] = buf[j * _ROWS + k]


@kernel(inline="always")
def _load_signed(group, signs, buf):
    """``buf = signs * row`` of each row of the group, zero-padded to the
    buffer's width: the padding gets ``signs * 0`` (signed zeros, as a
    product of the padded row gives)."""
    n_columns = group.shape[1]
    zero = buf.dtype.type(0)
    for j in range(n_columns):
        sign = signs[j]
        for k in range(_ROWS):
            buf[j * _ROWS + k] = group[k, j] * sign
    for j in range(n_columns, signs.size):
        padding = signs[j] * zero
        for k in range(_ROWS):
            buf[j * _ROWS + k] = padding


@kernel(inline="always")
def _scale(buf, diagonal):
    """``buf *= diagonal`` for each interleaved row."""
    for j in range(diagonal.size):
        value = diagonal[j]
        for k in range(_ROWS):
            buf[j * _ROWS + k] *= value


@kernel(inline="always")
def _store_scaled(buf, scales, out, first, n_rows, column, start, stop):
    """``out[first + k, column + j] = buf's row k, value j, * scales[j]`` for
    ``start <= j < stop``, real rows only: whole tiles of ``_ROWS`` values
    through :func:`_scaled_tile`, the rest one by one."""
    n_real = min(_ROWS, n_rows - first)
    end = start + (stop - start) // _ROWS * _ROWS
    for j in range(start, end, _ROWS):
        _scaled_tile(buf, scales, j, out, first, n_real, column + j)
    for k in range(n_real):
        row = out[first + k]
        for j in range(end, stop):
            row[column + j] = buf[j * _ROWS + k] * scales[j]


@kernel
def _store_features(buf, scales, out, first, n_rows, offset, n_pairs):
    """The scaled block of projections ``offset .. offset + width`` in the
    layout of the features: projection ``c`` goes to column ``c`` of ``out``
    if ``c < n_pairs``, and to column ``n_pairs + c`` if ``out`` has it.

    One sweep of tiles per place: storing both places from the same tile
    writes twice as many rows of the output at once, which the core's cache
    holds less well, and copying the first place's values reads them back.
    """
    width = scales.size
    n_first = min(max(n_pairs - offset, 0), width)
    n_second = min(max(out.shape[1] - n_pairs - offset, 0), width)
    _store_scaled(buf, scales, out, first, n_rows, offset, 0, n_first)
    _store_scaled(buf, scales, out, first, n_rows, n_pairs + offset, 0, n_second)


@kernel
def sorf_rows(X, signs, scales, out, n_pairs):
    """``S H D1 H D2 H D3 x`` of every row and block into ``out``.

    ``signs`` (3, n_blocks, width) holds ``D1, D2, D3``; ``scales``
    (n_blocks, width) the row scales. The products follow the order
    ``D3``, transform, ``D2``, transform, ``D1``, transform, ``S``.
    Projection ``c`` of a row goes to column ``c`` if ``c < n_pairs`` and
    to column ``n_pairs + c`` if ``out`` has it (``n_pairs = 0``: the
    projections in order, as many as ``out`` has columns).
    """
    n_blocks, width = scales.shape
    n_rows = X.shape[0]
    buf = np.empty(width * _ROWS, dtype=out.dtype)
    for first in range(0, n_rows, _ROWS):
        group = _padded_group(X, first, n_rows)
        for block in range(n_blocks):
            _load_signed(group, signs[2, block], buf)
            _transform_group(buf)
            _scale(buf, signs[1, block])
            _transform_group(buf)
            _scale(buf, signs[0, block])
            _transform_group(buf)
            _store_features(buf, scales[block], out, first, n_rows, block * width, n_pairs)


@kernel
def fastfood_rows(X, signs, permutations, gaussian, scales, out, n_pairs):
    """``S H G Pi H B x`` of every row and block into ``out``, placed as
    :func:`sorf_rows` places them.

    ``Pi`` gathers: ``(Pi v)[j] = v[permutations[block, j]]``.
    """
    n_blocks, width = scales.shape
    n_rows = X.shape[0]
    a = np.empty(width * _ROWS, dtype=out.dtype)
    b = np.empty(width * _ROWS, dtype=out.dtype)
    for first in range(0, n_rows, _ROWS):
        group = _padded_group(X, first, n_rows)
        for block in range(n_blocks):
            _load_signed(group, signs[block], a)
            _transform_group(a)
            for j in range(width):
                source = permutations[block, j] * _ROWS
                value = gaussian[block, j]
                for k in range(_ROWS):
                    b[j * _ROWS + k] = a[source + k] * value
            _transform_group(b)
            _store_features(b, scales[block], out, first, n_rows, block * width, n_pairs)


@kernel
def srht_rows(U, signs, coordinates, out, first_degree, scale):
    """One degree of TensorSRHT: ``out[r, c]`` is set to (``first_degree``) or
    multiplied by coordinate ``coordinates[c]`` of the transformed blocks
    ``H (signs[block] * U[r])``, then multiplied by ``scale`` unless it is 1.
    """
    n_blocks, d = signs.shape
    n_rows = U.shape[0]
    blocks = np.empty(n_blocks * d * _ROWS, dtype=out.dtype)
    for first in range(0, n_rows, _ROWS):
        group = _padded_group(U, first, n_rows)
        for block in range(n_blocks):
            buf = blocks[block * d * _ROWS : (block + 1) * d * _ROWS]
            _load_signed(group, signs[block], buf)
            _transform_group(buf)
        for k in range(min(_ROWS, n_rows - first)):
            row = out[first + k]
            for c in range(coordinates.size):
                value = blocks[coordinates[c] * _ROWS + k]
                row[c] = value if first_degree else row[c] * value
            if scale != 1:
                for c in range(coordinates.size):
                    row[c] *= scale
