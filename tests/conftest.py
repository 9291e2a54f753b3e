"""Shared fixtures: access to the real data sets, seeds of the statistical tests.

Tests that need ``../shared/datasets`` take the ``data_home`` fixture, which
marks them ``real_data`` (deselect them with ``pytest -m "not real_data"``). Where
the data folder is missing they are skipped with the reason shown in the
summary (``pytest -ra``); in CI (``CI=true``) a missing data set fails them
instead, so that a broken checkout cannot pass by skipping.

The statistical tests (marked ``statistical``; select them with
``pytest -m statistical``) compare Monte-Carlo estimates with the theory
within a stated number of standard errors. Their random draws use fixed
seeds, passed through :func:`statistical_seed` or :func:`statistical_seeds`,
which move them by ``SEED_STRIDE`` times the integer in the environment
variable ``SKLEARN_SKETCH_TEST_SEED_OFFSET`` (default 0, the seeds CI
runs). Another offset reruns every statistical test on fresh, disjoint
seeds; ``tools/rerun_statistical_tests.py`` does that for many offsets and
counts the failures. The data of a test (the rows whose kernel is
estimated) stay fixed: its tolerance is derived for those rows.
"""

import os
from pathlib import Path

import numpy as np
import pytest

from sklearn_sketch.datasets import DATA_ENV_VARIABLE

# A checkout of the project sits beside the shared folder.
_DEFAULT_DATA_HOME = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"


def _in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true", "yes")


@pytest.fixture(scope="session")
def data_home():
    """The data folder: $SKLEARN_SKETCH_DATA, else ../shared/datasets.

    Not ``get_data_home()``: without the variable that is
    ``~/sklearn_sketch_data``, created on demand, and the tests neither
    create it nor download into it.
    """
    home = find_data_home()
    if home is None:
        message = (
            f"real data sets not found: set {DATA_ENV_VARIABLE} or place the "
            f"shared data beside the checkout ({_DEFAULT_DATA_HOME})"
        )
        if _in_ci():
            pytest.fail(message)
        pytest.skip(message)
    return home


def find_data_home():
    """The data folder the ``data_home`` fixture gives, or None where it is missing.

    For the tests that run either way (the examples fall back on stand-in
    data): they read the real data where it is, as a user who has it would.
    In CI a missing folder fails them, as it fails ``data_home``.
    """
    env = os.environ.get(DATA_ENV_VARIABLE)
    home = Path(env).expanduser() if env else _DEFAULT_DATA_HOME
    if home.is_dir():
        return home
    if _in_ci():
        pytest.fail(f"real data sets not found in {home} (CI=true)")
    return None


def require_data(data_home, *parts):
    """Skip (fail in CI) unless the file ``data_home/parts`` exists."""
    path = Path(data_home).joinpath(*parts)
    if not path.is_file():
        message = f"data file not found: {path}"
        if _in_ci():
            pytest.fail(message)
        pytest.skip(message)
    return path


SEED_OFFSET_VARIABLE = "SKLEARN_SKETCH_TEST_SEED_OFFSET"
# Each offset moves the seeds by more than any test's number of draws (at
# most 100,000), so reruns with different offsets use disjoint seeds; and
# offsets up to 4000 keep them below 2**32, the limit of
# numpy.random.RandomState.
SEED_STRIDE = 1_000_000
_MAX_SEED_OFFSET = (2**32 - 1) // SEED_STRIDE - 1


def seed_offset():
    """The rerun number from ``$SKLEARN_SKETCH_TEST_SEED_OFFSET`` (default 0)."""
    value = os.environ.get(SEED_OFFSET_VARIABLE, "").strip() or "0"
    try:
        offset = int(value)
    except ValueError:
        offset = -1
    if not 0 <= offset <= _MAX_SEED_OFFSET:
        raise pytest.UsageError(
            f"{SEED_OFFSET_VARIABLE} must be an integer from 0 to "
            f"{_MAX_SEED_OFFSET}, got {value!r}."
        )
    return offset


def statistical_seed(seed=0):
    """The fixed ``seed`` of a statistical test, moved to the rerun's seeds.

    Parameters
    ----------
    seed : int, default=0
        The seed the test uses with offset 0 (below ``SEED_STRIDE``).

    Returns
    -------
    seed : int
    """
    return seed + SEED_STRIDE * seed_offset()


def statistical_seeds(n_seeds, start=0):
    """``range(start, start + n_seeds)`` moved to the rerun's seeds.

    Parameters
    ----------
    n_seeds : int
        Number of consecutive seeds (independent draws).
    start : int, default=0
        First seed with offset 0.

    Returns
    -------
    seeds : range
    """
    first = statistical_seed(start)
    return range(first, first + n_seeds)


def chi_square_uniform_inclusion(counts, n_trials, p):
    """p-value of "each item is included with probability ``p``".

    ``counts[i]`` is how many of ``n_trials`` subsamples held item ``i``
    (binomial counts). The counts sum to ``n_trials`` times the subsample
    size exactly: one degree of freedom less.
    """
    from scipy import stats

    expected = n_trials * p
    statistic = np.sum((counts - expected) ** 2 / (expected * (1 - p)))
    return stats.chi2.sf(statistic, df=counts.size - 1)


def pytest_collection_modifyitems(config, items):
    # Every test that takes the data folder (directly or through another
    # fixture) reads the real data sets: ``-m "not real_data"`` skips them.
    for item in items:
        if "data_home" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.real_data)


def pytest_report_header(config):
    # A failure seen with another offset must be reproducible from the log.
    offset = seed_offset()
    if offset:
        return f"statistical tests: {SEED_OFFSET_VARIABLE}={offset}"
    return None


# -- settings that hold wherever the suite runs ---------------------------
# From a folder holding only tests/ (distributions and CI images test the
# installed package so), pytest reads no pyproject.toml: these are its
# markers and warning rule, registered where pytest did not read them.
# tests/test_release.py checks that both runs see the same ones.
MARKERS = {
    "real_data": "uses the data sets in ../shared/datasets (SKLEARN_SKETCH_DATA)",
    "slow": "long statistical or end-to-end test",
    "statistical": (
        "compares Monte-Carlo estimates with theory within a number of standard "
        "errors; seeds move with SKLEARN_SKETCH_TEST_SEED_OFFSET"
    ),
}
WARNING_RULES = [
    "error::RuntimeWarning",
]


# Property tests draw the same examples on every run (a failure found once is
# found again; the suite does not pass or fail by chance). Set
# HYPOTHESIS_PROFILE=explore to search new examples.
try:
    from hypothesis import settings as _hypothesis_settings
except ImportError:  # the property tests skip themselves without it
    pass
else:
    _hypothesis_settings.register_profile("deterministic", derandomize=True)
    _hypothesis_settings.register_profile("explore", derandomize=False)
    _hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


def pytest_configure(config):
    registered = {line.split(":", 1)[0].strip() for line in config.getini("markers")}
    for name, description in MARKERS.items():
        if name not in registered:
            config.addinivalue_line("markers", f"{name}: {description}")
    for rule in WARNING_RULES:
        if rule not in config.getini("filterwarnings"):
            config.addinivalue_line("filterwarnings", rule)


# -- the registry of estimators ------------------------------------------
# Cheap test parameters for every public estimator and the options that take
# another code path (hashing, projection, base, kernel). Cross-cutting tests
# (input rules, sizes, threads, parameters) run over all of them.


def _registry():
    from sklearn_sketch import (
        ComplexToRealSketch,
        CoREHasher,
        KernelJL,
        MaclaurinSketch,
        MinMaxHasher,
        OrthogonalRBFSampler,
        PolynomialTreeSketch,
        TensorSketch,
        TensorSRHT,
    )

    return {
        "TensorSketch": (TensorSketch, dict(n_components=32, degree=3, coef0=1.0)),
        "TensorSRHT": (TensorSRHT, dict(n_components=32, degree=3, coef0=1.0)),
        "ComplexToRealSketch-srht": (
            ComplexToRealSketch, dict(n_components=31, degree=2, coef0=0.5)
        ),
        "ComplexToRealSketch-rademacher": (
            ComplexToRealSketch, dict(n_components=32, degree=3, projection="rademacher")
        ),
        "PolynomialTreeSketch-tensorsketch": (
            PolynomialTreeSketch, dict(n_components=32, degree=3, coef0=1.0)
        ),
        "PolynomialTreeSketch-hash": (
            PolynomialTreeSketch, dict(n_components=32, degree=2, buckets="hash")
        ),
        "PolynomialTreeSketch-tensorsrht": (
            PolynomialTreeSketch, dict(n_components=32, degree=4, base="tensorsrht")
        ),
        "MaclaurinSketch-tree": (MaclaurinSketch, dict(n_components=48, degree=3, coef0=1.0)),
        "MaclaurinSketch-tensorsrht": (
            MaclaurinSketch,
            dict(n_components=48, degree=3, coef0=0.5, base="tensorsrht", linear="sketch"),
        ),
        "MaclaurinSketch-tensorsketch": (
            MaclaurinSketch, dict(n_components=48, degree=2, coef0=1.0, base="tensorsketch")
        ),
        "CoREHasher-core1-fss": (CoREHasher, dict(n_components=16)),  # the defaults
        "CoREHasher-core1-gaussian": (CoREHasher, dict(n_components=16, hashing="minwise")),
        "CoREHasher-core1-rademacher-oph": (
            CoREHasher, dict(n_components=16, projection="rademacher", hashing="oph")
        ),
        "CoREHasher-core1-hashed_gaussian": (
            CoREHasher, dict(n_components=16, projection="hashed_gaussian", hashing="minwise")
        ),
        "CoREHasher-core2-oph": (CoREHasher, dict(n_components=16, kernel="core2", hashing="oph")),
        "CoREHasher-resemblance-full": (
            CoREHasher,
            dict(n_components=16, kernel="resemblance", b_bits=None, hashing="minwise"),
        ),
        "MinMaxHasher-minmax": (MinMaxHasher, dict(n_components=16)),
        "MinMaxHasher-gmm": (MinMaxHasher, dict(n_components=16, kernel="gmm", b_bits=4)),
        "KernelJL-rbf": (KernelJL, dict(n_components=8, n_subsample=4)),
        "KernelJL-poly-center": (
            KernelJL, dict(n_components=8, n_subsample=4, kernel="poly", degree=2, center=True)
        ),
        "KernelJL-cosine": (KernelJL, dict(n_components=8, n_subsample=4, kernel="cosine")),
        "KernelJL-laplacian": (KernelJL, dict(n_components=8, n_subsample=4, kernel="laplacian")),
        "OrthogonalRBFSampler-sorf": (OrthogonalRBFSampler, dict(n_components=32, gamma=0.5)),
        "OrthogonalRBFSampler-orf": (
            OrthogonalRBFSampler, dict(n_components=31, gamma=0.5, method="orf")
        ),
        "OrthogonalRBFSampler-fastfood": (
            OrthogonalRBFSampler, dict(n_components=32, gamma="scale", method="fastfood")
        ),
    }


ESTIMATOR_REGISTRY = _registry()


def extra_check_estimators():
    """Options the registry's cross-cutting tests cannot take, for scikit-learn's
    checks (test_common, test_array_api): a precomputed kernel (square input),
    a non-default gamma, and sizes chosen by ``n_components="auto"``."""
    from sklearn_sketch import (
        CoREHasher,
        KernelJL,
        MinMaxHasher,
        OrthogonalRBFSampler,
        PolynomialTreeSketch,
        TensorSketch,
    )

    # n_components="auto": a closed form, pilots, the block covariance, the
    # hashers' formulas and pilots (a large eps keeps the sizes small).
    auto = dict(n_components="auto", eps=0.5, random_state=0)
    return {
        "KernelJL-precomputed": KernelJL(
            n_components=16, n_subsample=8, kernel="precomputed", random_state=0
        ),
        "TensorSketch-gamma": TensorSketch(
            n_components=64, degree=3, gamma=0.5, coef0=1.0, random_state=0
        ),
        "TensorSketch-auto": TensorSketch(degree=2, coef0=1.0, **auto),
        "PolynomialTreeSketch-auto": PolynomialTreeSketch(degree=3, coef0=1.0, **auto),
        "OrthogonalRBFSampler-auto": OrthogonalRBFSampler(**auto),
        "CoREHasher-auto": CoREHasher(**auto),
        "MinMaxHasher-auto": MinMaxHasher(**auto),
    }


def registry_names(family):
    """Registry names whose estimator lives in ``sklearn_sketch.<family>``."""
    return sorted(
        name
        for name, (cls, _) in ESTIMATOR_REGISTRY.items()
        if cls.__module__.startswith(f"sklearn_sketch.{family}.")
    )


def legal_input(name, X):
    """``X``, made nonnegative for an estimator whose tags ask for it."""
    if make_estimator(name).__sklearn_tags__().input_tags.positive_only:
        return abs(X)
    return X


# The parameters a test of a formula sets itself; the others of a registry
# entry choose its code path (see ``registry_variant``).
SIZE_AND_KERNEL_PARAMETERS = ("n_components", "degree", "gamma", "coef0", "n_subsample")


def registry_variant(name, **options):
    """A factory of the registry entry ``name``'s code path, sizes left to the caller.

    ``registry_variant(name, **options)(**params)`` is the entry's class with
    the entry's parameters other than ``SIZE_AND_KERNEL_PARAMETERS``, then
    ``options``, then ``params``.
    """
    cls, defaults = ESTIMATOR_REGISTRY[name]
    fixed = {k: v for k, v in defaults.items() if k not in SIZE_AND_KERNEL_PARAMETERS}
    fixed.update(options)
    return lambda **params: cls(**{**fixed, **params})


def make_estimator(name, **params):
    """A fresh estimator of the registry, ``random_state=0`` unless overridden."""
    cls, defaults = ESTIMATOR_REGISTRY[name]
    return cls(**{"random_state": 0, **defaults, **params})


# -- tests that need SCIPY_ARRAY_API=1 ------------------------------------
# scikit-learn's array_api_dispatch refuses to start unless SciPy's own array
# API support was switched on (SCIPY_ARRAY_API=1) before SciPy was imported,
# and that variable changes SciPy for the whole process. The tests that need
# it are marked by ``scipy_array_api_process``: where the variable is not
# set, all of them run once, in one child pytest process with it set, and
# each reports that child's outcome (passed, skipped with its reason, or
# failed with its report). The rest of the suite runs without it.
SCIPY_ARRAY_API_SET = os.environ.get("SCIPY_ARRAY_API") == "1"


def scipy_array_api_process(test):
    """Mark ``test`` to run in a process with ``SCIPY_ARRAY_API=1`` (see above)."""
    test.scipy_array_api_process = True
    return test


def _child_outcomes(config, items):
    """Outcomes ``{(module, test name): (kind, message)}`` of ``items`` run in a child."""
    import subprocess
    import sys
    import tempfile
    import xml.etree.ElementTree as ElementTree

    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.xml"
        command = [
            sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
            f"--junitxml={report}", "-o", "junit_family=xunit1",
            *[item.nodeid for item in items],
        ]
        environment = {**os.environ, "SCIPY_ARRAY_API": "1"}
        completed = subprocess.run(
            command, cwd=config.rootpath, env=environment, capture_output=True, text=True
        )
        if not report.is_file():
            return {None: ("failed", f"the child pytest wrote no report:\n{completed.stdout[-4000:]}"
                                     f"\n{completed.stderr[-4000:]}")}
        outcomes = {}
        for case in ElementTree.parse(report).getroot().iter("testcase"):
            key = (case.get("classname", "").split(".")[-1], case.get("name"))
            kind, message = "passed", ""
            for child in case:
                if child.tag in ("failure", "error"):
                    kind, message = "failed", f"{child.get('message', '')}\n{child.text or ''}"
                elif child.tag == "skipped":
                    kind, message = "skipped", child.get("message", "")
            outcomes[key] = (kind, message)
    return outcomes


def pytest_pyfunc_call(pyfuncitem):
    if SCIPY_ARRAY_API_SET or not getattr(pyfuncitem.obj, "scipy_array_api_process", False):
        return None
    config = pyfuncitem.config
    outcomes = getattr(config, "_scipy_array_api_outcomes", None)
    if outcomes is None:
        items = [
            item for item in pyfuncitem.session.items
            if getattr(getattr(item, "obj", None), "scipy_array_api_process", False)
        ]
        outcomes = config._scipy_array_api_outcomes = _child_outcomes(config, items)
    key = (pyfuncitem.module.__name__.split(".")[-1], pyfuncitem.name)
    kind, message = outcomes.get(key, outcomes.get(None, ("failed", "no outcome in the child")))
    if kind == "skipped":
        pytest.skip(f"[SCIPY_ARRAY_API=1 child] {message}")
    if kind == "failed":
        pytest.fail(f"in the SCIPY_ARRAY_API=1 child process:\n{message}", pytrace=False)
    return True
