"""
=================================================
Sketches of dask arrays, computed block by block
=================================================

Every estimator of sklearn-sketch transforms a dask array lazily: ``transform``
returns a dask array of the same row blocks, each block transformed by a
task of its own when the result is computed (dense blocks give NumPy
blocks; the sparse blocks of :class:`~sklearn_sketch.CoREHasher` give
SciPy CSR blocks). Because the transforms are deterministic and
row-independent, a block computed by dask equals the same rows transformed
in memory, bit for bit, wherever and in whatever order the tasks run.

This example transforms a dense dask array with
:class:`~sklearn_sketch.TensorSketch`, then streams the blocks of hashed
word counts into :class:`~sklearn.linear_model.SGDClassifier`. It uses
dask's default scheduler, threads in this process; with a
``dask.distributed`` ``Client`` the same code runs the tasks on a cluster.
"""

# %%
# A dense dask array
# ------------------
# The digits in six blocks of 300 rows. ``TensorSketch`` draws its hashes
# from the number of features alone, so it is fitted on an in-memory sample
# of the rows, here the first block (a sketch that learns from the rows,
# such as :class:`~sklearn_sketch.KernelJL`, is fitted on a sample the same
# way).

import dask.array as da
import matplotlib.pyplot as plt
import numpy as np
import scipy.sparse as sp
from sklearn.datasets import load_digits
from sklearn.linear_model import SGDClassifier

from sklearn_sketch import CoREHasher, TensorSketch

X, _ = load_digits(return_X_y=True)
X = X / 16.0
X_dask = da.from_array(X, chunks=(300, -1))
sketch = TensorSketch(n_components=256, degree=2, coef0=1.0, random_state=0).fit(X[:300])
features = sketch.transform(X_dask)
print(features)

# %%
# Nothing is computed yet. ``compute`` runs one task per block; the result
# equals the in-memory transform of the whole array.

print("equal to the in-memory features:",
      np.array_equal(features.compute(), sketch.transform(X)))

# %%
# Sparse blocks: word counts
# --------------------------
# Generated word counts of 6000 training and 2000 test documents over 5000
# words and 20 topics: each document draws 20 to 120 words, 30% of them
# from its topic's own words. The training rows become a dask array of CSR
# blocks of 500 rows.

rng = np.random.RandomState(0)


def word_counts(n_documents, n_words=5000, n_topics=20):
    """Sparse word counts of generated documents, and their topics."""
    topics = rng.randint(n_topics, size=n_documents)
    document = np.repeat(np.arange(n_documents), rng.randint(20, 120, size=n_documents))
    rank = rng.zipf(1.2, size=document.size) - 1  # 0 the most frequent
    own = rng.rand(document.size) < 0.3  # topic t owns the words t, t + 20, ...
    words = np.where(own, rank % (n_words // n_topics) * n_topics + topics[document],
                     rank % n_words)
    counts = sp.csr_matrix((np.ones(document.size), (document, words)),
                           shape=(n_documents, n_words))
    return counts, topics  # repeated (document, word) entries are summed


X_train, y_train = word_counts(6000)
X_test, y_test = word_counts(2000)
X_train_dask = da.from_array(X_train, chunks=(500, -1), asarray=False, meta=X_train[:0])
hasher = CoREHasher(n_components=256, random_state=0).fit(X_train[:500])
hashed = hasher.transform(X_train_dask)
print(hashed)

# %%
# Streaming the blocks into a classifier
# --------------------------------------
# Each block of hashed features is computed by dask and fed to
# ``SGDClassifier.partial_fit``; a second classifier is fed the same rows
# hashed in memory. After each block, both are scored on the test documents.

hashed_test = hasher.transform(X_test)
from_dask = SGDClassifier(alpha=1e-4, random_state=0)
in_memory = SGDClassifier(alpha=1e-4, random_state=0)
classes = np.arange(20)
start, curve, identical = 0, [], True
for block in hashed.to_delayed().ravel():
    Z = block.compute()
    rows = slice(start, start + Z.shape[0])
    local = hasher.transform(X_train[rows])
    identical &= (Z != local).nnz == 0
    from_dask.partial_fit(Z, y_train[rows], classes=classes)
    in_memory.partial_fit(local, y_train[rows], classes=classes)
    start += Z.shape[0]
    curve.append((start, 100 * from_dask.score(hashed_test, y_test),
                  100 * in_memory.score(hashed_test, y_test)))
print("every block equal to the in-memory one:", identical)
print("the two classifiers equal:", np.array_equal(from_dask.coef_, in_memory.coef_))

# %%
# Accuracy against the documents streamed
# ---------------------------------------

seen, dask_accuracy, memory_accuracy = np.array(curve).T
fig, ax = plt.subplots(figsize=(8, 4.5), layout="constrained")
ax.plot(seen, dask_accuracy, "o-", ms=8, label="blocks computed by dask")
ax.plot(seen, memory_accuracy, "x--", ms=8, color="k", label="the same rows hashed in memory")
ax.set(xlabel="training documents streamed", ylabel="test accuracy (%)", ylim=(0, 100),
       title="CoREHasher (k = 256) -> SGDClassifier.partial_fit")
ax.legend(loc="lower right")
plt.show()

# %%
# What the figure shows
# ---------------------
# The two classifiers draw one line: the blocks that dask computed are the
# in-memory features, so the models they train are the same. The accuracy
# grows with the documents streamed (chance is 5%). A stream too large for
# one machine's memory would build its dask array from readers (for example
# ``dask.delayed`` functions that load one file each) rather than from an
# array in memory; the transform and the loop stay the same.
