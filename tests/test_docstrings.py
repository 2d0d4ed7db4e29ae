"""Every docstring example of the implementation modules runs and prints what it says.

All run in the default run. The costly ones compile programs that other default tests compile
too, on the same shapes, so that with the persistent compilation cache (tests/conftest.py) each
is compiled once per run: release_k1's examples (one point each: ``renyi_release_k1``,
``hockey_stick_release_k1``, ``_release_logpdf``; ~50 s CPU cold) are the one-point programs of
tests/test_release_k1.py; hockey_stick's ``hockey_stick_ncx2`` on one point is the program of
that file's n_syn = inf check (its ``privacy_profile_ncx2`` and ``epsilon_for_delta_ncx2`` on
one point, ~15 s, no other default test shares); pld's ``to_dp_accounting_pld`` runs the
programs of tests/test_accounting_export.py (7 s after it, 22 s cold).
"""

import doctest
import importlib

import pytest


def _modules_with_examples() -> list[str]:
    """Every module of fisherrdp whose docstrings hold an example, found by walking the package."""
    import pkgutil

    import fisherrdp

    found = []
    finder = doctest.DocTestFinder()
    for info in pkgutil.walk_packages(fisherrdp.__path__, "fisherrdp."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        if any(t.examples for t in finder.find(module) if t.name.startswith(info.name)):
            found.append(info.name)
    return found


MODULES = _modules_with_examples()


def test_the_modules_with_examples_are_found():
    """The walk finds the modules known to hold examples (a broken walk would test nothing)."""
    assert {"fisherrdp._src.special.bessel", "fisherrdp._src.divergences.kl",
            "fisherrdp._src.divergences.renyi_wishart",
            "fisherrdp._src.fisher.wishart_exact"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} failing examples in {name}"
