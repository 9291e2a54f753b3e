"""Every estimator with its default parameters on scikit-learn's digits.

For each public estimator (``Estimator(random_state=0)``, nothing tuned),
and for scikit-learn's ``Nystroem()`` and ``RBFSampler()`` beside them, on
the raw pixels (0 to 16) and after ``MinMaxScaler``:

* the test accuracy of ``make_pipeline([MinMaxScaler()], Estimator(), LinearSVC())``
  on a 75/25 split (``random_state=0``);
* NMI and ARI against the labels of ``KMeans(10, n_init=3, random_state=0)``
  on the features of all 1797 digits (from the pipeline fitted above);
* the standard deviation of those features, and the warnings raised.

``tests/test_defaults.py`` holds floors a little below these figures. Run::

    python benchmarks/bench_defaults.py [Estimator ...]
"""

import argparse
import time
import warnings

from sklearn.cluster import KMeans
from sklearn.datasets import load_digits
from sklearn.kernel_approximation import Nystroem, RBFSampler
from sklearn.metrics import adjusted_rand_score, normalized_mutual_info_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.svm import LinearSVC

# The script's folder; importing it puts this source tree first on sys.path.
import _bench  # noqa: F401

import sklearn_sketch


def _estimators():
    # The public names hold functions too (show_versions): the classes only.
    public = {name: getattr(sklearn_sketch, name) for name in sorted(sklearn_sketch.__all__)}
    classes = {name: obj for name, obj in public.items() if isinstance(obj, type)}
    return {**classes, "Nystroem": Nystroem, "RBFSampler": RBFSampler}


def _scores(cls, scaled, X, y, split):
    X_train, X_test, y_train, y_test = split
    steps = [MinMaxScaler()] if scaled else []
    model = make_pipeline(*steps, cls(random_state=0), LinearSVC())
    model.fit(X_train, y_train)
    accuracy = model.score(X_test, y_test)
    features = model[:-1].transform(X)
    labels = KMeans(n_clusters=10, n_init=3, random_state=0).fit_predict(features)
    dense = features.toarray() if hasattr(features, "toarray") else features
    return (accuracy, normalized_mutual_info_score(y, labels),
            adjusted_rand_score(y, labels), dense.std())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="estimators (default: all)")
    args = parser.parse_args(argv)
    X, y = load_digits(return_X_y=True)
    split = train_test_split(X, y, test_size=0.25, random_state=0)
    print(f"{'estimator':22} {'input':6} {'LinearSVC':>9} {'NMI':>6} {'ARI':>6} "
          f"{'feature sd':>10} {'seconds':>7}  warnings")
    for name, cls in _estimators().items():
        if args.names and name not in args.names:
            continue
        for scaled in (False, True):
            start = time.perf_counter()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                accuracy, nmi, ari, sd = _scores(cls, scaled, X, y, split)
            kinds = sorted({type(w.message).__name__ for w in caught})
            print(f"{name:22} {'minmax' if scaled else 'raw':6} {accuracy:9.3f} "
                  f"{nmi:6.3f} {ari:6.3f} {sd:10.2g} "
                  f"{time.perf_counter() - start:7.1f}  "
                  f"{', '.join(kinds) or '-'}", flush=True)


if __name__ == "__main__":
    main()
