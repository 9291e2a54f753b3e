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
during the read (on Linux; elsewhere, since the start) are reported: the
peak does not grow with the number of documents seen. The next example,
``out_of_core_dask.py``, streams word counts hashed on a dask cluster.

Data: the 20 Newsgroups archive from ``--data-home`` (default
``$SKLEARN_SKETCH_DATA``); without it (a fresh clone) a synthetic stream of
documents drawn from 20 topics, each topic a different word distribution,
read in the same slices. ``--quick`` (used by the documentation build)
streams one epoch in four reads of a quarter of the training split (read once
and kept in memory: a demonstration in seconds, not out of core) and scores
on a quarter of the test split; drop it for the full run. Run
``python examples/out_of_core_core_hasher.py --help`` for the options.
"""

import argparse
import contextlib
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
VECTORIZER = HashingVectorizer(n_features=2**18, alternate_sign=False, norm=None, dtype=np.float32)


# %%
# Command line and data
# ---------------------
# ``--quick`` selects the small settings this page shows (also in a
# notebook); ``--data-home`` names the folder of the real data sets (default
# ``$SKLEARN_SKETCH_DATA``, see :func:`sklearn_sketch.datasets.get_data_home`),
# without which the example runs on stand-in data and says so;
# ``--download`` fetches them instead; ``--output-dir`` gets the results.

HERE = Path(globals().get("__file__", "example.py")).resolve().parent
# In a checkout of the project, the prepared data sets sit beside it.
SHARED_DATA_HOME = HERE.parent.parent / "shared" / "datasets"
DOWNLOAD = False  # set from --download


def example_parser(description):
    """An argument parser with the options every example accepts."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true", help="small settings: seconds")
    parser.add_argument("--data-home", default=None, help="folder of the real data sets")
    parser.add_argument("--download", action="store_true", help="fetch missing data sets")
    parser.add_argument("--output-dir", default=str(HERE / "output"), help="for the results")
    return parser


def parse_settings(parser, argv=None):
    """The settings; in a notebook, whose kernel passes ``-f ...`` (ignored), the quick ones."""
    global DOWNLOAD
    args, _ = parser.parse_known_args(argv)
    args.quick = args.quick or "ipykernel" in sys.modules
    DOWNLOAD = args.download
    return args


def data_home_and_output_dir(args):
    """``--data-home``, else ``$SKLEARN_SKETCH_DATA``, else the folder beside a
    checkout, else the fetchers' default; and the output folder, made."""
    unset = args.data_home is None and not os.environ.get("SKLEARN_SKETCH_DATA")
    use_shared = unset and SHARED_DATA_HOME.is_dir()
    data_home = SHARED_DATA_HOME if use_shared else get_data_home(args.data_home)
    Path(args.output_dir).mkdir(parents=True, exist_ok=True)
    return data_home, Path(args.output_dir)


# %%
# The stream
# ----------
# Random slices of the archive, read from disk at every pass (or synthetic
# documents), shuffled, and the peak memory of the process per read.


def read_archive(path, split):
    """Yield ``(name, group, text)`` of one split, in archive order (streamed)."""
    prefix = f"20news-bydate-{split}/"
    with tarfile.open(path, mode="r|gz") as archive:
        for member in archive:
            if member.isfile() and member.name.startswith(prefix):
                text = archive.extractfile(member).read().decode("latin-1")
                yield member.name, member.name.split("/")[-2], text


@functools.lru_cache(maxsize=None)
def synthetic_corpus(split, n_topics=20, n_words=5000, seed=0):
    """``(name, group, text)`` of synthetic documents, sorted by topic as the
    archive is: each topic's words follow its own Zipf-like ranking of the
    vocabulary, mixed with a shared background."""
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
    words = rankings[token_topic, ranks].tolist()
    vocabulary = [f"w{w}" for w in range(n_words)]
    bounds = np.concatenate([[0], np.cumsum(lengths)]).tolist()
    return tuple(
        (f"{split}/topic{topic}/{i}", f"topic{topic}",
         " ".join(map(vocabulary.__getitem__, words[bounds[i]:bounds[i + 1]])))
        for i, topic in enumerate(topics.tolist())
    )


def document_source(archive, quick):
    """``split -> (name, group, text) iterable``: the archive read at every call
    (with ``quick``, read once and kept), or the synthetic documents."""
    if archive is None:
        return synthetic_corpus
    if quick:
        return functools.lru_cache(maxsize=None)(lambda split: tuple(read_archive(archive, split)))
    return functools.partial(read_archive, archive)


def read_slice(source, epoch, slice_index, n_slices, keep_every):
    """The training messages of one random slice of an epoch, shuffled."""
    groups, texts = [], []
    for name, group, text in source("train"):
        key = zlib.crc32(f"{epoch}/{name}".encode())
        if key % n_slices == slice_index and (key // n_slices) % keep_every == 0:
            groups.append(group)
            texts.append(text)
    order = np.random.RandomState(epoch * n_slices + slice_index).permutation(len(texts))
    return [groups[i] for i in order], [texts[i] for i in order]


def batches(n_rows, batch_size):
    return [slice(s, min(s + batch_size, n_rows)) for s in range(0, n_rows, batch_size)]


def reset_peak_rss():
    """Reset the peak resident memory of this process (Linux only)."""
    with contextlib.suppress(OSError):
        Path("/proc/self/clear_refs").write_text("5")


def peak_rss_mib():
    """Peak resident memory since the last reset (Linux), else since the start."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024  # kB
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def progress_row(engine, epoch, slice_index, seen, model, X_test, y_test, start):
    """One line of the progress table, after a slice of the stream."""
    return {"engine": engine, "epoch": epoch, "slice": slice_index, "documents_seen": seen,
            "test_accuracy": round(model.score(X_test, y_test), 4),
            "peak_rss_mib": round(peak_rss_mib(), 1),
            "seconds": round(time.perf_counter() - start, 2)}


def plot_progress(rows, output_dir, name):
    """Test accuracy and peak memory against the documents streamed."""
    fig, (left, right) = plt.subplots(2, 1, figsize=(9, 8))
    seen, engine = [row["documents_seen"] for row in rows], rows[0]["engine"]
    left.plot(seen, [100 * row["test_accuracy"] for row in rows], "o-", label=engine)
    right.plot(seen, [row["peak_rss_mib"] for row in rows], "o-", label=engine)
    left.set(xlabel="documents streamed", ylabel="test accuracy (%)",
             title="SGDClassifier.partial_fit", ylim=(0, 100))
    right.set(xlabel="documents streamed", ylabel="peak resident memory (MiB)",
              title="Memory during each read", ylim=(0, None))
    left.legend(fontsize=8)
    right.legend(fontsize=8, loc="lower right")  # the lines sit near the top
    fig.tight_layout()
    fig.savefig(output_dir / f"{name}.png", dpi=100)


def write_tables(rows, output_dir, name):
    """The progress table as CSV and Markdown; the Markdown printed."""
    columns = list(rows[0])
    csv = [",".join(columns)] + [",".join(str(row[c]) for c in columns) for row in rows]
    (output_dir / f"{name}.csv").write_text("\n".join(csv) + "\n")
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    lines += ["| " + " | ".join(str(row[c]) for c in columns) + " |" for row in rows]
    (output_dir / f"{name}.md").write_text("\n".join(lines) + "\n")
    print("\n".join(lines))


# %%
# Settings
# --------
# ``--quick`` (this page, a notebook): one epoch in four reads of a quarter
# of the training messages, kept in memory, k = 256, a quarter of the test
# split. Without it: ``--epochs`` passes over the archive, ``--slices`` reads each.

parser = example_parser("Out-of-core text classification: HashingVectorizer, CoREHasher and SGD.")
parser.add_argument("--epochs", type=int, default=3, help="passes over the training split")
parser.add_argument("--slices", type=int, default=4, help="archive reads per epoch")
parser.add_argument("--batch-size", type=int, default=500, help="documents per partial_fit")
parser.add_argument("--n-components", type=int, default=256, help="CoREHasher hashes k")
parser.add_argument("--alpha", type=float, default=1e-5, help="SGDClassifier alpha")
args = parse_settings(parser)
args.keep_every, test_every = 1, 4 if args.quick else 1
if args.quick:
    args.epochs, args.slices, args.batch_size = 1, 4, 1000
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
hasher = CoREHasher(n_components=args.n_components, kernel="core1", hashing="oph", random_state=0)
hasher.partial_fit(VECTORIZER.transform([test[0][2]]))
X_test = hasher.transform(VECTORIZER.transform([text for _, _, text in test]))
del test
print(f"{len(y_test)} test documents, {X_test.shape[1]} hashed features")

# %%
# The stream in this process
# --------------------------
# Each read keeps one slice of the training messages, shuffles it and feeds
# it to ``SGDClassifier.partial_fit`` in mini-batches. A line per read: the
# documents seen so far, the test accuracy and the peak memory of the read.

model, rows, seen = SGDClassifier(alpha=args.alpha, random_state=0), [], 0
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

# %%
# Accuracy and memory against the documents streamed
# --------------------------------------------------
# Top: the test accuracy grows with the documents seen (20 newsgroups: chance
# is 5 %). The quick page's one epoch stops near 50 %, still learning; the
# full run's three go further. Bottom: the peak memory of each read stays flat.

write_tables(rows, output_dir, "out_of_core")
plot_progress(rows, output_dir, "out_of_core")
print(f"Wrote {output_dir / 'out_of_core.csv'}, out_of_core.md and out_of_core.png")
