"""
==============================================================
Out-of-core text classification on a dask cluster, bit for bit
==============================================================

``CoREHasher.transform`` of a dask array whose blocks are scipy sparse (CSR)
matrices is a lazy dask array of CSR blocks, each hashed where it is
computed. Here a ``dask.distributed`` cluster of two worker processes on the
loopback interface hashes the blocks of word counts, and the driver feeds
them in order to ``SGDClassifier.partial_fit``, fetching one hashed block at
a time. A second model, fed the same rows hashed in this process, checks that
the cluster's features are bit-identical. The previous example,
``out_of_core_core_hasher.py``, streams raw text from disk in one process.

Data: the 20 Newsgroups word counts (11314 training, 7532 test messages)
from ``--data-home`` (default ``$SKLEARN_SKETCH_DATA``); without them (a
fresh clone) synthetic word counts of 20 topics. ``--quick`` (used by the
documentation build) makes one pass on a cluster of two threads (which
starts in a second) rather than processes; drop it for three passes. Run
``python examples/out_of_core_dask.py --help`` for the options.
"""

import argparse
import multiprocessing
import os
import sys
import time
from pathlib import Path

import dask
import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from distributed import Client, LocalCluster
from sklearn.linear_model import SGDClassifier

from sklearn_sketch import CoREHasher
from sklearn_sketch.datasets import fetch_20newsgroups_counts, get_data_home


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


def has_data(data_home, folder):
    """Whether to use the real data set ``folder``: present, or ``--download`` given."""
    return DOWNLOAD or Path(data_home, folder).is_dir()


def synthetic_counts(n_docs, seed, n_words=5000, n_topics=20):
    """Stand-in word counts: 20 to 120 words a document, 30 % of them drawn
    from the words of its topic, the rest from a background shared by all."""
    rng = np.random.RandomState(seed)
    y = rng.randint(n_topics, size=n_docs)
    doc = np.repeat(np.arange(n_docs), rng.randint(20, 120, size=n_docs))
    rank = rng.zipf(1.2, size=doc.size) - 1  # Zipf-like: 0 the most frequent
    own = rng.rand(doc.size) < 0.3  # topic t owns the words t, t + 20, t + 40, ...
    words = np.where(own, rank % (n_words // n_topics) * n_topics + y[doc],
                     rng.permutation(n_words)[rank % n_words])
    counts = sp.csr_matrix((np.ones(doc.size), (doc, words)), shape=(n_docs, n_words))
    return counts, y  # duplicate (document, word) entries are summed


# %%
# Settings
# --------
# ``--quick`` (this page, a notebook): one pass in blocks of 1000 messages, on
# two threads. Without it: ``--epochs`` passes in blocks of ``--batch-size``.

parser = example_parser("Out-of-core text classification on a dask cluster.")
parser.add_argument("--epochs", type=int, default=3, help="passes over the training split")
parser.add_argument("--batch-size", type=int, default=500, help="messages per block")
parser.add_argument("--n-components", type=int, default=256, help="CoREHasher hashes k")
parser.add_argument("--alpha", type=float, default=1e-4, help="SGDClassifier alpha")
args = parse_settings(parser)
if args.quick:
    args.epochs, args.batch_size = 1, 1000
data_home, output_dir = data_home_and_output_dir(args)

# %%
# The word counts and the hasher
# ------------------------------
# The messages are sorted by newsgroup, from which a linear model learns
# badly: the training rows are shuffled once. ``CoREHasher`` draws its hashes
# from the number of features alone; the test messages are hashed here, once.

if has_data(data_home, "20newsgroups"):
    (X_train, y_train), (X_test, y_test) = (
        fetch_20newsgroups_counts(data_home, subset=subset, return_X_y=True)
        for subset in ("train", "test"))
else:
    print(f"No 20 Newsgroups in {data_home}: running on synthetic word counts.")
    (X_train, y_train), (X_test, y_test) = synthetic_counts(6000, 0), synthetic_counts(2000, 1)
order = np.random.RandomState(0).permutation(X_train.shape[0])
X_train, y_train = X_train[order].astype(np.float32), y_train[order]
classes = np.unique(y_train)
hasher = CoREHasher(n_components=args.n_components, kernel="core1", hashing="oph",
                    random_state=0).fit(X_train)
H_test = hasher.transform(X_test.astype(np.float32))
print(f"{X_train.shape[0]} training and {X_test.shape[0]} test messages, "
      f"{X_train.shape[1]} terms, {H_test.shape[1]} hashed features")

# %%
# A lazy dask array of sparse blocks
# ----------------------------------
# The training rows, cut into blocks of ``--batch-size`` CSR rows, are sent
# to the workers once (``client.scatter``), where they stay for every pass;
# ``da.from_delayed`` makes each one a block of a dask array, with a CSR
# ``meta``. ``hasher.transform`` of that dask array hashes nothing yet: it
# returns a lazy dask array of CSR blocks, one task per block.
#
# The worker processes are forked from this one: spawned (distributed's
# default), each would first run this script again, a tutorial with no main
# guard. Where there is no fork (Windows), the workers are threads.

processes = not args.quick and "fork" in multiprocessing.get_all_start_methods()
with dask.config.set({"distributed.worker.multiprocessing-method": "fork"}):
    cluster = LocalCluster(n_workers=2, processes=processes, threads_per_worker=1,
                           host="127.0.0.1", protocol="tcp://", dashboard_address=None)
client = Client(cluster)
bounds = np.append(np.arange(0, X_train.shape[0], args.batch_size), X_train.shape[0])
blocks = [X_train[a:b] for a, b in zip(bounds[:-1], bounds[1:])]
X_dask = da.concatenate([
    da.from_delayed(future, shape=block.shape, dtype=block.dtype, meta=block[:0])
    for future, block in zip(client.scatter(blocks), blocks)])
del blocks
features = hasher.transform(X_dask)
print(features)

# %%
# The stream: computed on the cluster, consumed in order
# ------------------------------------------------------
# Each pass computes all the blocks on the workers (``client.compute``) while
# the driver takes them one after the other, in an order drawn for the pass,
# and feeds each to ``partial_fit``. The same rows hashed in this process must
# give the same block, entry for entry; they train the local model.

model, local_model = (SGDClassifier(alpha=args.alpha, random_state=0) for _ in range(2))
seen, curve, identical = 0, [], True
for epoch in range(args.epochs):
    start = time.perf_counter()
    futures = client.compute(list(features.to_delayed().ravel()))
    for i in np.random.RandomState(epoch).permutation(len(futures)):
        block, rows = futures[i].result(), slice(bounds[i], bounds[i + 1])
        futures[i].release()  # the block is not kept on the cluster
        local = hasher.transform(X_train[rows])
        identical &= block.shape == local.shape and (block != local).nnz == 0
        model.partial_fit(block, y_train[rows], classes=classes)
        local_model.partial_fit(local, y_train[rows], classes=classes)
        seen += block.shape[0]
        curve.append((seen, model.score(H_test, y_test), local_model.score(H_test, y_test)))
    print(f"pass {epoch + 1}: {seen} messages streamed, test accuracy {curve[-1][1]:.3f}, "
          f"{time.perf_counter() - start:.1f} s")
client.close()
cluster.close()
same_model = np.array_equal(model.coef_, local_model.coef_)
print(f"blocks hashed on the cluster identical to the local ones: {identical}")
print(f"dask model identical to the local one: {same_model}")

# %%
# Accuracy against the messages streamed
# --------------------------------------
# The model fed by the cluster and the local one draw the same line (chance
# is 5 %): the accuracy grows with the messages seen and levels off after a
# pass or two. The curve's table goes to ``out_of_core_dask.csv``.

curve = np.array(curve)
np.savetxt(output_dir / "out_of_core_dask.csv", curve, fmt=["%d", "%.4f", "%.4f"], delimiter=",",
           header="messages_streamed,test_accuracy_dask,test_accuracy_local", comments="")
fig, ax = plt.subplots(figsize=(8, 4.5))
ax.plot(curve[:, 0], 100 * curve[:, 1], "o-", label="hashed on the dask cluster")
ax.plot(curve[:, 0], 100 * curve[:, 2], "x--", label="hashed in this process")
ax.set(xlabel="training messages streamed", ylabel="test accuracy (%)", ylim=(0, 100),
       title=f"CoREHasher (k={args.n_components}) + SGDClassifier.partial_fit")
ax.legend(loc="lower right")
fig.tight_layout()
fig.savefig(output_dir / "out_of_core_dask.png", dpi=100)
print(f"Wrote {output_dir / 'out_of_core_dask.csv'} and out_of_core_dask.png")

# %%
# Closing notes
# -------------
# One task hashes one block, with ``CoREHasher.transform`` run on a worker;
# its result equals the same rows hashed anywhere else, because the transform
# is deterministic and row-independent. A stream too large for the driver
# would build the dask array from ``dask.delayed`` readers, one per block,
# run on the workers, instead of scattering blocks held here.
