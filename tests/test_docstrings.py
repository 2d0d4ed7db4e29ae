"""Every docstring example of the implementation modules runs and prints what it says.

Modules in ``SLOW`` compile kernels of 30-70 s (2 busy cores) that their own test files
exercise at length; their examples run with ``-m slow``.
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
    "fisherrdp._src.variational",
    "fisherrdp._src.wishart_fisher",
    "fisherrdp._src.divergences.renyi_wishart_mc",
]


SLOW = {
    "fisherrdp._src.divergences.hockey_stick",
    "fisherrdp._src.divergences.release_k1",
    "fisherrdp._src.accounting.pld",
}


@pytest.mark.parametrize(
    "name", [pytest.param(m, marks=pytest.mark.slow) if m in SLOW else m for m in MODULES]
)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} failing examples in {name}"
