"""Readers of the raw formats the fetchers download, and of the cached forms.

Each ``read_*``/``load_*`` function reads one cached file of a data folder;
each ``parse_*``/``build_*`` function turns downloaded files into those
cached files. All of them are private.
"""

import gzip
import tarfile

import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_svmlight_files
from sklearn.feature_extraction.text import CountVectorizer

_IDX_DTYPES = {0x08: np.uint8}


def read_idx(path):
    """An IDX file (gzip or plain) as an array of the shape its header states."""
    opener = gzip.open if str(path).endswith(".gz") else open
    with opener(path, "rb") as f:
        raw = f.read()
    if len(raw) < 4 or raw[0] != 0 or raw[1] != 0 or raw[2] not in _IDX_DTYPES:
        raise ValueError(f"{path} is not an IDX file of unsigned bytes")
    n_dims = raw[3]
    header = 4 + 4 * n_dims
    shape = tuple(
        int(s) for s in np.frombuffer(raw, dtype=">u4", count=n_dims, offset=4)
    )
    data = np.frombuffer(raw, dtype=_IDX_DTYPES[raw[2]], offset=header)
    if data.size != int(np.prod(shape)):
        raise ValueError(
            f"{path}: header says shape {shape}, body has {data.size} values"
        )
    return data.reshape(shape)


def save_csr_bundle(path, splits):
    """Write ``{split: (X, y)}`` as one compressed CSR bundle (``.npz``)."""
    arrays = {}
    for split, (X, y) in splits.items():
        X = sp.csr_matrix(X)
        X.sort_indices()
        arrays[f"{split}_data"] = X.data
        arrays[f"{split}_indices"] = X.indices.astype(np.int32)
        arrays[f"{split}_indptr"] = X.indptr.astype(np.int64)
        arrays[f"{split}_shape"] = np.asarray(X.shape, dtype=np.int64)
        arrays[f"y_{split}"] = y
    np.savez_compressed(path, **arrays)


def load_csr_bundle(path, subset):
    """One split ``(X, y)`` of a CSR bundle written by :func:`save_csr_bundle`."""
    with np.load(path, allow_pickle=False) as bundle:
        X = sp.csr_matrix(
            (
                bundle[f"{subset}_data"],
                bundle[f"{subset}_indices"],
                bundle[f"{subset}_indptr"],
            ),
            shape=tuple(bundle[f"{subset}_shape"]),
        )
        return X, bundle[f"y_{subset}"]


def parse_libsvm(paths, n_features, dtype):
    """LIBSVM text files (plain, .gz, .bz2) as ``[(X, y), ...]``, zeros dropped."""
    loaded = load_svmlight_files(
        [str(p) for p in paths], n_features=n_features, dtype=dtype
    )
    pairs = []
    for X, y in zip(loaded[::2], loaded[1::2]):
        X = sp.csr_matrix(X)
        X.eliminate_zeros()
        pairs.append((X, y))
    return pairs


def parse_sector_counts(path, n_features):
    """Rennie's sector format: ``<doc> <label> (<feature> <count>)*`` per line.

    Feature ids are 0-based; the rows stay in file order. One pass of numpy
    over all tokens: a -1 sentinel marks each line end.
    """
    opener = _opener(path)
    with opener(path, "rb") as f:
        text = f.read()
    lines = text.strip().replace(b"\r", b"").split(b"\n")
    tokens = np.array(b" -1 ".join(lines).split() + [b"-1"], dtype=np.int64)
    ends = np.flatnonzero(tokens == -1)
    starts = np.concatenate(([0], ends[:-1] + 1))
    line = np.cumsum(tokens == -1) - (tokens == -1)
    position = np.arange(tokens.size) - starts[line]
    lengths = ends - starts
    if np.any(lengths < 2) or np.any(lengths % 2):
        raise ValueError(f"{path}: a line is not '<doc> <label> (<feature> <count>)*'")
    labels = tokens[starts + 1]
    pair = (position >= 2) & (tokens != -1)
    features, counts = tokens[pair][::2], tokens[pair][1::2]
    nnz = (lengths - 2) // 2
    indptr = np.concatenate(([0], np.cumsum(nnz)))
    X = sp.csr_matrix(
        (counts.astype(np.int32), features.astype(np.int32), indptr),
        shape=(lengths.size, n_features),
    )
    X.sum_duplicates()
    X.eliminate_zeros()
    return X, labels


def _opener(path):
    import bz2

    name = str(path)
    if name.endswith(".bz2"):
        return bz2.open
    return gzip.open if name.endswith(".gz") else open


def read_20newsgroups_archive(path):
    """The ``20news-bydate`` archive as ``{split: (texts, groups, files)}``.

    Messages are decoded as latin-1 and ordered by group, then file name,
    as :func:`sklearn.datasets.load_files` orders them.
    """
    splits = {"train": [], "test": []}
    with tarfile.open(path, "r:*") as archive:
        for member in archive:
            parts = member.name.strip("/").split("/")
            if not member.isfile() or len(parts) != 3:
                continue
            split = parts[0].rsplit("-", 1)[-1]
            if split in splits:
                text = archive.extractfile(member).read().decode("latin-1")
                splits[split].append((parts[1], parts[2], text))
    out = {}
    for split, documents in splits.items():
        documents.sort(key=lambda d: (d[0], d[1]))
        groups = np.array([d[0] for d in documents])
        files = np.array([f"{d[0]}/{d[1]}" for d in documents])
        out[split] = ([d[2] for d in documents], groups, files)
    return out


def build_20newsgroups_counts(archive_path):
    """Term counts of both splits, the vocabulary and the labels.

    scikit-learn's :class:`~sklearn.feature_extraction.text.CountVectorizer`
    at its defaults (``dtype=np.int32``), fit on the training split.
    """
    splits = read_20newsgroups_archive(archive_path)
    target_names = np.unique(splits["train"][1])
    vectorizer = CountVectorizer(dtype=np.int32)
    counts = {"train": vectorizer.fit_transform(splits["train"][0])}
    counts["test"] = vectorizer.transform(splits["test"][0])
    labels = {"target_names": target_names}
    for split, (_, groups, files) in splits.items():
        labels[f"y_{split}"] = np.searchsorted(target_names, groups).astype(np.uint8)
        labels[f"files_{split}"] = files
    vocabulary = vectorizer.get_feature_names_out()
    return counts, labels, vocabulary
