"""Global test settings, and the only place for them.

Tests run in float64: JAX's x64 flag is turned on here, before any test module is imported,
and fisherrdp is imported (which would turn it on anyway unless FISHERRDP_NO_X64 is set).
A test that needs another JAX setting must restore it, e.g. with ``jax.experimental.enable_x64``
style context managers or try/finally around ``jax.config.update``.
"""

import os
import pathlib
import shutil
import tempfile

import jax

jax.config.update("jax_enable_x64", True)

# JAX compilation dominates the run time of this suite, and many test files (run in separate
# xdist worker processes) compile the same kernels for the same shapes. A persistent compilation
# cache shared by the workers lets each kernel be compiled once per run (later processes load
# it), and kept between runs it turns a run's compiles into loads.
#
# Where: FISHERRDP_TEST_JAX_CACHE if set (an empty value turns the cache off); else, with
# FISHERRDP_TEST_COLD_CACHE=1, a new empty temporary folder (a run as on a clean machine),
# removed when the run ends; else a folder outside the checkout that survives between runs and
# clones on this machine,
# $XDG_CACHE_HOME/fisherrdp-tests/jaxlib-<version>-<cpu> (~/.cache when XDG_CACHE_HOME is unset).
# JAX's cache key covers the program, the versions, the XLA flags and the devices, but not the
# CPU's features, so the folder's name carries a fingerprint of them (an XLA:CPU program
# compiled for one processor may not run on another).
#
# The cache is turned on by fisherrdp's import, exactly as for a user (fisherrdp/_src/core/config.py):
# the workers and every process the tests start (CLI commands, scan workers, benchmark children)
# inherit FISHERRDP_CACHE_DIR, so all of them use one cache with the same settings, and no test
# writes to the user's own cache. It is unbounded (FISHERRDP_CACHE_MAX_BYTES=-1): JAX's bounded
# cache loses entries when several processes write at once (jax-ml/jax#39880), and no process
# of the suite deletes entries while the run goes on. The settings must agree across processes:
# a bounded cache cannot write into a directory holding entries that an unbounded one wrote (no
# access-time files).


def _cpu_fingerprint() -> str:
    """A short hash of the processor's model and feature flags (what XLA:CPU compiles for)."""
    import hashlib
    import platform

    try:
        lines = pathlib.Path("/proc/cpuinfo").read_text().splitlines()
    except OSError:
        lines = []
    keys = ("model name", "flags", "Features", "CPU part", "CPU implementer")
    found = sorted({line.split(":", 1)[1].strip() for line in lines
                    if ":" in line and line.split(":", 1)[0].strip() in keys})
    text = "\n".join([platform.machine(), *found])
    return f"{platform.machine()}-{hashlib.sha256(text.encode()).hexdigest()[:12]}"


def machine_fingerprint() -> str:
    """``jaxlib-<version>-<cpu>``: what compiled programs and their bits depend on."""
    import jaxlib

    return f"jaxlib-{jaxlib.__version__}-{_cpu_fingerprint()}"


def _makes_a_cold_cache() -> bool:
    """This process makes the run's empty cache folder (FISHERRDP_TEST_COLD_CACHE=1, and no
    earlier pytest process of the run has chosen the folder)."""
    return ("FISHERRDP_TEST_JAX_CACHE" not in os.environ
            and os.environ.get("FISHERRDP_TEST_COLD_CACHE", "") not in ("", "0"))


def suite_cache_dir() -> str:
    """The tests' compilation cache directory ('' for none), chosen as described above."""
    if _makes_a_cold_cache():
        return tempfile.mkdtemp(prefix="fisherrdp-test-cache-")
    if "FISHERRDP_TEST_JAX_CACHE" in os.environ:
        return os.environ["FISHERRDP_TEST_JAX_CACHE"]
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "fisherrdp-tests", machine_fingerprint())


_cold = _makes_a_cold_cache()
_cache = suite_cache_dir()
# The empty folder of FISHERRDP_TEST_COLD_CACHE=1, if this process made it: removed when the run
# ends (by this process, after the workers and the processes the tests start have finished).
_COLD_FOLDER = _cache if _cold else None
# Decided once, in the first pytest process: xdist workers and child processes inherit it.
os.environ["FISHERRDP_TEST_JAX_CACHE"] = _cache
if _cache:
    os.environ["FISHERRDP_CACHE_DIR"] = _cache
    os.environ["FISHERRDP_CACHE_MAX_BYTES"] = "-1"
    # Every program is stored, even those that compile in milliseconds: a run with the cache of
    # a previous one then compiles nothing (a load costs less than the smallest compile).
    os.environ["FISHERRDP_CACHE_MIN_COMPILE_SECONDS"] = "0"
else:
    os.environ["FISHERRDP_NO_CACHE"] = "1"

from helpers.compile_census import pytest_configure  # noqa: F401  (FISHERRDP_CENSUS=DIR)

import fisherrdp  # noqa: F401  (turns the cache on, and float64)

if jax.config.jax_compilation_cache_dir != (_cache or None):
    raise RuntimeError(
        "the tests' compilation cache is not in use (JAX_COMPILATION_CACHE_DIR set?): "
        "choose it with FISHERRDP_TEST_JAX_CACHE instead"
    )


# ----------------------------------------------------------------------------------------------
# Accuracy claims: one place for the measured worst errors that the docs state and tests guard.

import json

import numpy as np
import pytest

ACCURACY_CLAIMS = pathlib.Path(__file__).resolve().parent / "fixtures" / "accuracy"
#: A regression tolerance is this many times the worst error measured when the claim was made,
#: and never below float64's machine epsilon (a claim measured at 0 or below one rounding of a
#: unit value, e.g. an exact limit, still allows one rounding).
REGRESSION_FACTOR = 10.0
REGRESSION_FLOOR = float(np.finfo(np.float64).eps)
_RECORD_DIR = os.environ.get("FISHERRDP_ACCURACY_REPORT", "")
_recorded: dict[str, dict] = {}


def load_accuracy_claims() -> dict[str, dict]:
    """Every claim of ``tests/fixtures/accuracy/*.json``, by name (``AREA/...`` in AREA.json)."""
    claims = {}
    for path in sorted(ACCURACY_CLAIMS.glob("*.json")):
        for name, claim in json.loads(path.read_text())["claims"].items():
            assert name.split("/")[0] == path.stem, f"claim {name!r} belongs in {path.stem}.json"
            claims[name] = claim
    return claims


class Accuracy:
    """Checks a worst error against its claim in ``tests/fixtures/accuracy/AREA.json``.

    Each claim has the worst error measured (``measured``), the documented target (``target``)
    and the number of points. A test fails when the worst error exceeds
    ``max(REGRESSION_FACTOR × measured, REGRESSION_FLOOR)`` (a regression: the change must say
    why, and re-measure with
    ``python benchmarks/accuracy_report.py --update``) or the target. With
    ``FISHERRDP_ACCURACY_REPORT=DIR`` (set by that script) the worst errors are recorded in DIR
    and only the targets are asserted, so that a change can be measured before it is accepted.
    """

    def __init__(self):
        self.claims = load_accuracy_claims()

    def check(self, name: str, errors, *, where=None) -> None:
        """Assert the worst of ``errors`` (absolute values) against claim ``name``.

        Args:
            name: ``AREA/...``, a claim of ``tests/fixtures/accuracy/AREA.json``.
            errors: the errors at every point, in the claim's measure.
            where: optional sequence of point descriptions, same length as ``errors``, shown
                for the worst point when the check fails.
        """
        errors = np.abs(np.asarray(errors, dtype=np.float64)).ravel()
        assert errors.size, f"{name}: no points"
        assert np.isfinite(errors).all(), f"{name}: non-finite errors"
        worst_index = int(np.argmax(errors))
        worst = float(errors[worst_index])
        at = "" if where is None else f" at {list(where)[worst_index]}"
        claim = self.claims.get(name)
        if _RECORD_DIR:  # a claim checked by several (parametrized) cases keeps its worst
            old = _recorded.get(name, {"worst": -1.0, "points": 0})
            _recorded[name] = {"worst": max(worst, old["worst"]),
                               "points": old["points"] + int(errors.size)}
        assert claim is not None, f"no accuracy claim {name!r} in tests/fixtures/accuracy/"
        assert worst <= claim["target"], (
            f"{name}: worst error {worst:.2e}{at} is above the documented target "
            f"{claim['target']:.0e}"
        )
        if _RECORD_DIR:
            return
        tolerance = max(REGRESSION_FACTOR * claim["measured"], REGRESSION_FLOOR)
        assert worst <= tolerance, (
            f"{name}: worst error {worst:.2e}{at} is more than {REGRESSION_FACTOR:g}× the "
            f"measured {claim['measured']:.1e} (the documented number). If the change is meant, say why "
            "and re-measure: python benchmarks/accuracy_report.py --update"
        )


@pytest.fixture(scope="session")
def accuracy() -> Accuracy:
    return Accuracy()


def pytest_sessionfinish(session, exitstatus):
    if _COLD_FOLDER:
        shutil.rmtree(_COLD_FOLDER, ignore_errors=True)
    if _RECORD_DIR and _recorded:
        worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
        path = pathlib.Path(_RECORD_DIR) / f"{worker}-{os.getpid()}.json"
        path.write_text(json.dumps(_recorded, indent=1, sort_keys=True))


def pytest_report_header(config):
    if not _cache:
        return "compilation cache: off (FISHERRDP_TEST_JAX_CACHE is empty)"
    entries = sum(1 for p in pathlib.Path(_cache).glob("*-cache")) if os.path.isdir(_cache) else 0
    return (f"compilation cache: {_cache} ({entries} programs at the start; "
            "FISHERRDP_TEST_COLD_CACHE=1 starts from an empty one)")


# ----------------------------------------------------------------------------------------------
# Order: the longest files first, so that the two xdist workers (whole files each) end together
# instead of one finishing a long file alone at the end. Measured (the sum of each file's
# setup and call times, `pytest --durations=0`, with the cache of a previous run, 2026-12-04),
# longest first. xdist keeps this order only with `--no-loadscope-reorder` (pyproject.toml):
# by default it reorders whole files by their number of tests.

LONGEST_FILES = (
    "test_derivatives.py",
    "test_docstrings.py",
    "test_accounting_release.py",
    "test_accounting_export.py",
    "test_scan.py",
    "test_benchmarks_smoke.py",
    "test_startup.py",
    "test_renyi_wishart.py",
    "test_docs_build.py",
    "test_docs_math.py",
    "test_verify.py",
    "test_special.py",
    "test_release_k1.py",
    "test_verify_variational.py",
    "test_variational_fisher.py",
)


def pytest_collection_modifyitems(config, items):
    rank = {name: i for i, name in enumerate(LONGEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(LONGEST_FILES)))  # stable
