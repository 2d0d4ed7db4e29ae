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

MODULES = [
    "fisherrdp._src.special.bessel",
    "fisherrdp._src.special.hyp0f1_matrix",
    "fisherrdp._src.distributions.ncwishart",
    "fisherrdp._src.bounds",
    "fisherrdp._src.validation",
    "fisherrdp._src.distributions.ncx2",
    "fisherrdp._src.fisher",
    "fisherrdp._src.path_bound",
    "fisherrdp._src.checks",
    "fisherrdp._src.scan.engine",
    "fisherrdp._src.scan.grid",
    "fisherrdp._src.scan.quantities",
    "fisherrdp._src.scan.api",
    "fisherrdp._src.commands.scan",
    "fisherrdp.scan",
    "fisherrdp._src.divergences.renyi",
    "fisherrdp._src.divergences.hockey_stick",
    "fisherrdp._src.divergences.release_k1",
    "fisherrdp._src.accounting.conversions",
    "fisherrdp._src.accounting.subsampling",
    "fisherrdp._src.accounting.worst_case",
    "fisherrdp._src.accounting.synthetic",
    "fisherrdp._src.accounting.pld",
    "fisherrdp._src.release",
    "fisherrdp._src.variational.renyi",
    "fisherrdp._src.variational.fisher",
    "fisherrdp._src.variational.networks",
    "fisherrdp._src.variational.diagnostics",
    "fisherrdp._src.random",
    "fisherrdp._src.wishart_fisher",
    "fisherrdp._src.divergences.renyi_wishart_mc",
]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} failing examples in {name}"
