"""
======================================================================
Out-of-core text classification: HashingVectorizer, CoREHasher and SGD
======================================================================

A stream of documents larger than memory goes through
``HashingVectorizer -> CoREHasher -> SGDClassifier.partial_fit`` one
mini-batch at a time, so the memory in use stays flat however many
documents are streamed. The stream is several passes over the raw text of
20 Newsgroups (``20newsgroups/20news-bydate.tar.gz``, 11314 training
messages), read straight from the compressed archive, which is sorted by
newsgroup. A linear model learns badly from a sorted stream, and the
archive cannot be read in random order, so each read of the archive keeps a
random slice of the training messages (a hash of the file name picks one
of ``--slices`` slices, a different split in every epoch) and shuffles
only that slice: an epoch is ``--slices`` reads, and the memory bound is
one slice.

Neither transformer learns from the data: the vectorizer fixes the number
of features (``2**18``), so ``CoREHasher.partial_fit`` draws its hashes on
the first batch and only checks the later ones. After every read the
accuracy on the test split and the peak resident memory of the process
during the read are reported (on Linux the high-water mark is reset before
each read through ``/proc/self/clear_refs``; elsewhere the column shows the
maximum since the start, from ``resource.getrusage``): the peak does not
grow with the number of documents seen.

Part 2 runs the same pipeline on a ``dask.distributed`` cluster of two
worker processes on the loopback interface: the workers vectorize and hash
each mini-batch (a lazy dask array of sparse blocks through
``CoREHasher.transform``), the driver feeds the blocks in order to the same
``SGDClassifier.partial_fit``. The hashed features are bit-identical, so the
model and its accuracy are identical to part 1.

The figure shows the test accuracy and the peak memory against the number
of documents streamed, for both engines.

Data: the 20 Newsgroups archive from ``--data-home`` (default
``$SKLEARN_SKETCH_DATA``); without it (a fresh clone) a synthetic stream of
documents drawn from 20 topics, each topic a different word distribution,
read in the same slices. ``--quick`` (used by the documentation build)
streams one epoch in four reads of a quarter of the training split (read once
and kept in memory: a demonstration in seconds, not out of core), scores on
a quarter of the test split and runs part 2 on a cluster of two threads
(which starts in a second) rather than processes; drop it for the full run.

Run::

    python examples/out_of_core_core_hasher.py [--quick] [--epochs 3] [--slices 4]
        [--data-home DIR] [--output-dir DIR] [--no-dask]

Writes out_of_core.csv, out_of_core.md and out_of_core.png to the output
folder (default examples/output/).
"""

import argparse
import functools
import os
import resource
import sys
import tarfile
import time
import zlib
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import SGDClassifier

from sklearn_sketch import CoREHasher
from sklearn_sketch.datasets import get_data_home

ARCHIVE = ("20newsgroups", "20news-bydate.tar.gz")
VECTORIZER = HashingVectorizer(
    n_features=2**18, alternate_sign=False, norm=None, dtype=np.float32
)


# %%
# Command line and data
# ---------------------
# Run as a script, ``--quick`` selects the small settings this page shows
# (seconds) and no flag the paper-size run; in a notebook the quick settings
# apply. ``--data-home`` names the folder of the real data sets (default
# ``$SKLEARN_SKETCH_DATA``, see :func:`sklearn_sketch.datasets.get_data_home`);
# without them the example runs on stand-in data and says so. ``--download``
# fetches the missing ones instead, and ``--output-dir`` receives the tables
# and figures.

HERE = Path(globals().get("__file__", "example.py")).resolve().parent
# In a checkout of the project, the prepared data sets sit beside it.
SHARED_DATA_HOME = HERE.parent.parent / "shared" / "datasets"
DOWNLOAD = False  # set from --download


def example_parser(description):
    """An argument parser with the options every example accepts."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument(
        "--quick", action="store_true", help="small settings: seconds, not minutes"
    )
    parser.add_argument("--data-home", default=None, help="folder of the real data sets")
    parser.add_argument(
        "--download", action="store_true",
        help="download the missing real data sets instead of using stand-in data",
    )
    parser.add_argument(
        "--output-dir",
        default=str(HERE / "output"),
        help="where tables and figures are written",
    )
    return parser


def parse_settings(parser, argv=None):
    """The command line's settings; in a notebook, the quick ones.

    A notebook's kernel passes arguments of its own (``-f ...``): they are ignored.
    """
    global DOWNLOAD
    args, _ = parser.parse_known_args(argv)
    args.quick = args.quick or "ipykernel" in sys.modules
    DOWNLOAD = args.download
    return args


def data_home_and_output_dir(args):
    """``--data-home``, else ``$SKLEARN_SKETCH_DATA``, else the prepared folder
    beside a checkout of the project, else the fetchers' default folder."""
    unset = args.data_home is None and not os.environ.get("SKLEARN_SKETCH_DATA")
    if unset and SHARED_DATA_HOME.is_dir():
        data_home = SHARED_DATA_HOME
    else:
        data_home = get_data_home(args.data_home)
    output_dir = Path(args.output_dir)
    output_dir.mkdir(parents=True, exist_ok=True)
    return data_home, output_dir


def write_csv(path, rows):
    """Write a list of dicts as CSV, columns in first-seen order."""
    columns = list(dict.fromkeys(key for row in rows for key in row))
    lines = [",".join(columns)]
    lines += [",".join(str(row.get(column, "")) for column in columns) for row in rows]
    Path(path).write_text("\n".join(lines) + "\n")


def read_archive(path, split):
    """Yield ``(name, group, text)`` of one split, in archive order (streamed)."""
    prefix = f"20news-bydate-{split}/"
    with tarfile.open(path, mode="r|gz") as archive:
        for member in archive:
            if member.isfile() and member.name.startswith(prefix):
                group = member.name.split("/")[-2]
                text = archive.extractfile(member).read().decode("latin-1")
                yield member.name, group, text


@functools.lru_cache(maxsize=None)
def synthetic_corpus(split, n_topics=20, n_words=5000, seed=0):
    """``(name, group, text)`` of synthetic documents, like the archive's.

    Each topic draws its words from its own Zipf-like ranking of the
    vocabulary; a document mixes its topic's words with a shared background.
    """
    # The topics (word rankings) are common to both splits, the documents not.
    rankings = np.array([np.random.RandomState(seed + 1 + t).permutation(n_words)
                         for t in range(n_topics + 1)])
    rng = np.random.RandomState(seed + (split == "test"))
    n_docs = 11314 if split == "train" else 7532
    weights = 1.0 / np.arange(1, n_words + 1)
    topics = np.sort(rng.randint(n_topics, size=n_docs))  # sorted, as the archive
    lengths = rng.randint(20, 120, size=n_docs)
    token_topic = np.repeat(topics, lengths)
    # 30% of a document's words from its topic, the rest from the background.
    token_topic[rng.rand(token_topic.size) >= 0.3] = n_topics
    ranks = rng.choice(n_words, size=token_topic.size, p=weights / weights.sum())
    words = rankings[token_topic, ranks]
    vocabulary = [f"w{w}" for w in range(n_words)]
    bounds = np.concatenate([[0], np.cumsum(lengths)]).tolist()
    words = words.tolist()
    return tuple(
        (f"{split}/topic{topic}/{i}", f"topic{topic}",
         " ".join(map(vocabulary.__getitem__, words[bounds[i]:bounds[i + 1]])))
        for i, topic in enumerate(topics.tolist())
    )


def document_source(archive, quick):
    """A function ``split -> (name, group, text) iterable``: the stream's source.

    The archive read at every call; with ``quick``, read once and kept in
    memory (a demonstration of seconds, not out of core); the synthetic
    documents when ``archive`` is None.
    """
    if archive is None:
        return synthetic_corpus
    if quick:
        return functools.lru_cache(maxsize=None)(lambda split: tuple(read_archive(archive, split)))
    return functools.partial(read_archive, archive)


def read_slice(source, epoch, slice_index, n_slices, keep_every):
    """The training messages of one random slice of an epoch, shuffled."""
    names, groups, texts = [], [], []
    for name, group, text in source("train"):
        key = zlib.crc32(f"{epoch}/{name}".encode())
        if key % n_slices == slice_index and (key // n_slices) % keep_every == 0:
            names.append(name)
            groups.append(group)
            texts.append(text)
    order = np.random.RandomState(epoch * n_slices + slice_index).permutation(len(texts))
    return [groups[i] for i in order], [texts[i] for i in order]


def batches(n_rows, batch_size):
    return [slice(start, min(start + batch_size, n_rows)) for start in range(0, n_rows, batch_size)]


def reset_peak_rss():
    """Reset the peak resident memory of this process (Linux only)."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        pass


def peak_rss_mib():
    """Peak resident memory since the last reset (Linux), else since the start."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def vectorize_and_hash(texts, hasher):
    return hasher.transform(VECTORIZER.transform(texts))


def progress_row(engine, epoch, slice_index, seen, model, X_test, y_test, start):
    """One line of the progress table, after a slice of the stream."""
    elapsed = time.perf_counter() - start
    return {
        "engine": engine,
        "epoch": epoch,
        "slice": slice_index,
        "documents_seen": seen,
        "test_accuracy": round(model.score(X_test, y_test), 4),
        "peak_rss_mib": round(peak_rss_mib(), 1),
        "seconds": round(elapsed, 2),
    }


def run_local(args, source, classes, X_test, y_test, label_of, hasher, reads):
    """Part 1: everything in this process, mini-batch by mini-batch."""
    model = SGDClassifier(alpha=args.alpha, random_state=0)
    rows, seen = [], 0
    for epoch, slice_index in reads:
        reset_peak_rss()
        start = time.perf_counter()
        groups, texts = read_slice(source, epoch, slice_index, args.slices, args.keep_every)
        y = np.array([label_of[g] for g in groups])
        for rows_ in batches(len(texts), args.batch_size):
            X_words = VECTORIZER.transform(texts[rows_])
            # The first call draws the hashes; the others check n_features.
            hasher.partial_fit(X_words)
            model.partial_fit(hasher.transform(X_words), y[rows_], classes=classes)
        seen += len(texts)
        rows.append(progress_row("local", epoch, slice_index, seen, model, X_test, y_test, start))
        print(rows[-1])
    return rows, model


def run_dask(args, source, classes, X_test, y_test, label_of, hasher, reads):
    """Part 2: the workers vectorize and hash, the driver runs partial_fit."""
    import dask
    import dask.array as da
    import scipy.sparse as sp
    from distributed import Client, LocalCluster

    model = SGDClassifier(alpha=args.alpha, random_state=0)
    rows, seen = [], 0
    with LocalCluster(
        n_workers=2,
        processes=not args.quick,  # --quick: threads, which start at once
        threads_per_worker=1,
        host="127.0.0.1",
        protocol="tcp://",
        dashboard_address=None,
    ) as cluster, Client(cluster) as client:
        for epoch, slice_index in reads:
            reset_peak_rss()
            start = time.perf_counter()
            groups, texts = read_slice(source, epoch, slice_index, args.slices, args.keep_every)
            y = np.array([label_of[g] for g in groups])
            parts = batches(len(texts), args.batch_size)
            # One block of rows per mini-batch, vectorized on a worker.
            words = da.concatenate(
                [
                    da.from_delayed(
                        dask.delayed(VECTORIZER.transform)(texts[rows_]),
                        shape=(rows_.stop - rows_.start, VECTORIZER.n_features),
                        dtype=np.float32,
                        meta=sp.csr_matrix((0, VECTORIZER.n_features), dtype=np.float32),
                    )
                    for rows_ in parts
                ]
            )
            features = hasher.transform(words)  # lazy, blockwise, sparse blocks
            # Workers compute the blocks ahead; the driver consumes them in order.
            futures = client.compute(list(features.to_delayed().ravel()))
            for future, rows_ in zip(futures, parts):
                model.partial_fit(future.result(), y[rows_], classes=classes)
                future.release()
            seen += len(texts)
            rows.append(progress_row(
                "dask (2 workers)", epoch, slice_index, seen, model, X_test, y_test, start
            ))
            print(rows[-1])
    return rows, model


def plot_progress(rows, output_dir):
    """Test accuracy and peak memory against the documents streamed, per engine."""
    fig, (left, right) = plt.subplots(2, 1, figsize=(9, 8))
    for engine in dict.fromkeys(row["engine"] for row in rows):
        mine = [row for row in rows if row["engine"] == engine]
        seen = [row["documents_seen"] for row in mine]
        left.plot(seen, [100 * row["test_accuracy"] for row in mine], "o-", label=engine)
        right.plot(seen, [row["peak_rss_mib"] for row in mine], "o-", label=engine)
    left.set(xlabel="documents streamed", ylabel="test accuracy (%)",
             title="SGDClassifier.partial_fit", ylim=(0, 100))
    right.set(xlabel="documents streamed", ylabel="peak resident memory (MiB)",
              title="Memory during each read", ylim=(0, None))
    left.legend(fontsize=8)
    right.legend(fontsize=8, loc="lower right")  # the lines sit near the top
    fig.tight_layout()
    fig.savefig(output_dir / "out_of_core.png", dpi=100)


# %%
# Settings
# --------
# ``--quick`` (this page, a notebook): one epoch in four reads of a quarter
# of the training messages each, kept in memory after the first read, k = 256, a
# quarter of the test split, and
# part 2 on a cluster of two threads; a demonstration of seconds, not out of
# core. Without it: ``--epochs`` passes over the archive, each ``--slices``
# reads.

parser = example_parser("Out-of-core text classification: HashingVectorizer, CoREHasher and SGD.")
parser.add_argument("--epochs", type=int, default=3, help="passes over the training split")
parser.add_argument("--slices", type=int, default=4, help="archive reads per epoch")
parser.add_argument("--batch-size", type=int, default=500, help="documents per partial_fit")
parser.add_argument("--n-components", type=int, default=256, help="CoREHasher hashes k")
parser.add_argument("--alpha", type=float, default=1e-5, help="SGDClassifier alpha")
parser.add_argument("--no-dask", action="store_true", help="skip part 2 (dask cluster)")
args = parse_settings(parser)
args.keep_every, test_every = 1, 1
if args.quick:
    args.epochs, args.slices, args.keep_every, test_every = 1, 4, 1, 4
    args.batch_size = 1000
data_home, output_dir = data_home_and_output_dir(args)
archive = data_home.joinpath(*ARCHIVE)
if not archive.is_file():
    print(f"No 20 Newsgroups archive in {data_home}: streaming synthetic documents.")
    archive = None
source = document_source(archive, args.quick)
reads = [(e, s) for e in range(args.epochs) for s in range(args.slices)]

# %%
# The test split and the hasher
# -----------------------------
# The test documents are vectorized and hashed once. ``CoREHasher`` draws its
# hashes from the number of features alone, so its first ``partial_fit`` (on
# one document) fixes it for the whole stream.

test = list(source("test"))[::test_every]
classes = np.array(sorted({group for _, group, _ in test}))
label_of = {group: i for i, group in enumerate(classes)}
classes = np.arange(classes.size)
y_test = np.array([label_of[group] for _, group, _ in test])
hasher = CoREHasher(
    n_components=args.n_components, kernel="core1", hashing="oph", random_state=0
)
hasher.partial_fit(VECTORIZER.transform([test[0][2]]))
X_test = vectorize_and_hash([text for _, _, text in test], hasher)
del test
print(f"{len(y_test)} test documents, {X_test.shape[1]} hashed features")

# %%
# Part 1: the stream in this process
# ----------------------------------
# Each read keeps one slice of the training messages, shuffles it and feeds
# it to ``SGDClassifier.partial_fit`` in mini-batches. A line per read: the
# documents seen so far, the test accuracy and the peak memory of the read.

rows, local_model = run_local(args, source, classes, X_test, y_test, label_of, hasher, reads)

# %%
# Part 2: the same stream on a dask cluster
# -----------------------------------------
# The workers vectorize and hash the mini-batches; the driver feeds them in
# order to the same ``partial_fit``. The hashed features are bit-identical to
# part 1's, so the model's coefficients are too.

if not args.no_dask:
    dask_rows, dask_model = run_dask(
        args, source, classes, X_test, y_test, label_of, hasher, reads
    )
    rows += dask_rows
    same = np.array_equal(local_model.coef_, dask_model.coef_)
    print(f"dask model identical to the local one: {same}")

# %%
# Accuracy and memory against the documents streamed
# --------------------------------------------------
# Top: the test accuracy grows with the documents seen (20 newsgroups: chance
# is 5 %). The quick page streams one epoch and stops near 50 %: the model is
# still learning there, and the full run's three epochs go further. The two
# engines' curves coincide (the dask one hides the local one): the same
# features, the same model. Bottom: the peak memory of each read stays flat
# however many documents were seen; the dask engine's is higher by the
# cluster it runs.

write_csv(output_dir / "out_of_core.csv", rows)
columns = list(rows[0])
lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
lines += ["| " + " | ".join(str(row[c]) for c in columns) + " |" for row in rows]
(output_dir / "out_of_core.md").write_text("\n".join(lines) + "\n")
print("\n".join(lines))
plot_progress(rows, output_dir)
print(f"Wrote {output_dir / 'out_of_core.csv'}, out_of_core.md and out_of_core.png")
