"""One public function of each public module, as a user of the installed package calls it.

tests/test_wheel.py runs this file's text with the Python of a fresh virtual environment that
has the built wheel installed (``python -c``, from a folder outside the checkout), and the same
text in the test process from the checkout; both print one JSON object, and the two must agree
(same code, same programs: the same numbers). Small shapes, whose programs the rest of the suite
already compiles.
"""

import json
import sys

import jax
import numpy as np

import fisherrdp
from fisherrdp import (
    accounting,
    bounds,
    checks,
    divergences,
    figures,
    fisher,
    release,
    scan,
    special,
    stats,
    variational,
)
from fisherrdp.stats import ncwishart, ncx2


def _floats(x):
    return np.asarray(x, dtype=np.float64).ravel().tolist()


grid = checks.Grid(d=(10.0,), theta=(1.0,), delta=(0.5,), alpha=(2.0,))
check_rows = checks.run_checks(grid, statements=checks.STATEMENTS[:1])
fisher_data = figures.fisher_bounds_data(d_values=(10,), n_theta=4)
result = {
    "fisherrdp.__file__": fisherrdp.__file__,
    "version": fisherrdp.__version__,
    "special.log_bessel_i": _floats(special.log_bessel_i(2.5, 10.0)),
    "stats.ncx2.logpdf": _floats(ncx2.logpdf(3.0, 2.0, 1.5)),
    "stats.ncwishart.mean": _floats(ncwishart.mean(3, np.eye(2))),
    "stats.__all__": list(stats.__all__),
    "fisher.ncx2_amplitude_fisher": _floats(fisher.ncx2_amplitude_fisher(50.0, 1.0)),
    "divergences.renyi_ncx2": _floats(divergences.renyi_ncx2(2.0, 50, 1.0, 0.5)),
    "bounds.gaussian_renyi": _floats(bounds.gaussian_renyi(2.0, 0.5)),
    "accounting.gaussian_rdp": _floats(accounting.gaussian_rdp(np.array([2.0, 8.0]), 1.0, 2.0)),
    "release.sample_model": _floats(release.sample_model(jax.random.key(0), np.ones(3))),
    "variational.poly_softplus_log": _floats(variational.poly_softplus_log(np.array([0.5, 2.0]))),
    "checks.run_checks": [(row.name, row.points, row.violations) for row in check_rows],
    "scan.scan": _floats(scan.scan("fisher", scan.points(d=[10.0, 50.0], theta=[1.0, 2.0]),
                                   progress=False).data["fisher"]),
    "figures.fisher_bounds_data": sorted(fisher_data),
}
json.dump(result, sys.stdout)
