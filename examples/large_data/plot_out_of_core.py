"""
=================================================================
Out-of-core text classification: hashed features and partial_fit
=================================================================

A stream of documents too large for memory can be learned one mini-batch at
a time: :class:`~sklearn.feature_extraction.text.HashingVectorizer` turns
each batch into word counts without a vocabulary,
:class:`~sklearn_sketch.CoREHasher` hashes the counts into sparse CoRE
kernel features, and :class:`~sklearn.linear_model.SGDClassifier` learns
from them with ``partial_fit``. Neither transformer learns from the data:
``CoREHasher.partial_fit`` draws its hashes on the first batch and checks
the later ones, so the features of a document do not depend on the batch it
came in. The memory in use is that of one batch, however long the stream.

The stream here is generated: documents of 20 topics, each topic a
different mix of words. The user guide's page on large data shows the same
pipeline on the 20 Newsgroups messages.
"""

# %%
# A stream of documents
# ---------------------
# Each document draws 20 to 120 words from a vocabulary of 5000: 30% from
# its topic's favourite words, the rest from words all topics share, with
# Zipf-like frequencies. The generator yields one batch of 500 documents at
# a time; the stream never exists in memory as a whole.

import tracemalloc

import matplotlib.pyplot as plt
import numpy as np
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import SGDClassifier

from sklearn_sketch import CoREHasher

n_topics, n_words = 20, 5000
vocabulary = np.array([f"w{word}" for word in range(n_words)])
# Each topic ranks the words in its own order; the last ranking is shared.
rankings = np.array([np.random.RandomState(1 + t).permutation(n_words)
                     for t in range(n_topics + 1)])
rank_weights = 1.0 / np.arange(1, n_words + 1)
rank_weights /= rank_weights.sum()


def documents(n_documents, seed):
    """``n_documents`` generated documents (strings) and their topics."""
    rng = np.random.RandomState(seed)
    topics = rng.randint(n_topics, size=n_documents)
    lengths = rng.randint(20, 120, size=n_documents)
    source = np.repeat(topics, lengths)
    source[rng.rand(source.size) >= 0.3] = n_topics
    words = vocabulary[rankings[source, rng.choice(n_words, size=source.size, p=rank_weights)]]
    ends = np.cumsum(lengths)
    texts = [" ".join(words[end - n : end]) for n, end in zip(lengths, ends)]
    return texts, topics


def stream(n_batches, batch_size=500):
    """Yield ``(texts, topics)`` batches, each generated when it is asked for."""
    for batch in range(n_batches):
        yield documents(batch_size, seed=1000 + batch)


test_texts, y_test = documents(1000, seed=0)

# %%
# The pipeline, one batch at a time
# ---------------------------------
# The vectorizer needs no fit, and the hasher draws its hashes from the
# number of features alone: its first ``partial_fit``, here on the test
# documents, which are hashed once before the stream starts, fixes it; the
# batches' calls only check their number of features.
# ``SGDClassifier.partial_fit`` needs every class on its first call. After
# each batch: the test accuracy, and the peak memory that Python and NumPy
# allocated while the batch was transformed and learned (``tracemalloc``).

vectorizer = HashingVectorizer(n_features=2**16, alternate_sign=False, norm=None)
hasher = CoREHasher(n_components=256, random_state=0)
model = SGDClassifier(alpha=1e-5, random_state=0)
classes = np.arange(n_topics)
counts_test = vectorizer.transform(test_texts)
features_test = hasher.partial_fit(counts_test).transform(counts_test)

seen, history = 0, []
tracemalloc.start()
for texts, topics in stream(n_batches=12):
    tracemalloc.reset_peak()
    counts = vectorizer.transform(texts)
    features = hasher.partial_fit(counts).transform(counts)
    model.partial_fit(features, topics, classes=classes)
    peak_mib = tracemalloc.get_traced_memory()[1] / 2**20
    seen += len(texts)
    history.append((seen, 100 * model.score(features_test, y_test), peak_mib))
tracemalloc.stop()
for seen, accuracy, peak_mib in history[::3] + history[-1:]:
    print(f"{seen:>6} documents: test accuracy {accuracy:.1f}%, "
          f"peak {peak_mib:.1f} MiB allocated during the batch")

# %%
# Accuracy and memory against the documents streamed
# --------------------------------------------------

seen, accuracy, peak_mib = np.array(history).T
fig, (top, bottom) = plt.subplots(2, 1, figsize=(8, 7), sharex=True, layout="constrained")
top.plot(seen, accuracy, "o-")
top.set(ylabel="test accuracy (%)", ylim=(0, 100),
        title="HashingVectorizer -> CoREHasher -> SGDClassifier.partial_fit, "
        "batches of 500")
bottom.plot(seen, peak_mib, "o-", color="C2")
bottom.set(xlabel="documents streamed", ylabel="MiB", ylim=(0, 1.2 * peak_mib.max()),
           title="Peak memory allocated during each batch")
plt.show()

# %%
# What the figure shows
# ---------------------
# Top: the test accuracy grows with the documents seen (chance is 5%) and
# levels off. Bottom: from the second batch on, the memory allocated
# during a batch stays flat, whatever the number of documents already
# streamed: the pipeline holds one batch and a model of fixed size. Whether the hashed CoRE features classify
# better than a linear model on the word counts themselves depends on the
# data: the Benchmarks page compares them on 20 Newsgroups and sector.
