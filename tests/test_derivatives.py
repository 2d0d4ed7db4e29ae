"""Derivatives in both modes of every registered quantity (the derivative matrix).

For each group of registered quantities with the same parameters
(``tests/helpers/derivative_matrix.py``: outputs stacked, aliases once, ``*_error`` outputs
left out), ``jax.jit(jax.lax.map(jax.jacfwd(f)))`` (point by point) and
``jax.jit(jax.vmap(jax.jacrev(f)))`` of each function of the group (batched, as a user's
``vmap(grad(f))``; why the two differ: the helper's docstring) — one compiled program per
group and mode — at points spread over each parameter's range (random
magnitudes, every lower edge of a domain, ``a = b``, large ``d``, δ = 1e-12, and the points
where a mode was once wrong), against Richardson central differences of the values
(``tests/fixtures/derivatives.json``, made by ``tests/fixtures/make_derivative_fixtures.py``).

Asserted, per group, wherever the value is finite (log I_v(0) = −inf for v > 0 has no
derivative to test): no NaN in either mode; the two modes equal (to ``MODES_RTOL`` relative to
the largest derivative of the output at that point, ±inf equal too: a one-sided derivative at a
domain edge may be infinite, e.g. ∂_x log I_v(x) at x = 0); and where the point is inside the
domain, both equal to the central differences to ``CD_RTOL`` relative to the largest derivative
of that output at that point (its scale: a derivative that is 0 by symmetry, e.g. ∂_a renyi at
a = b, is measured against its neighbours), plus 10× the central difference's own error
estimate (Richardson's correction: a difference of values known to an absolute accuracy only,
e.g. a hockey-stick δ of 1e-10, is no sharper than that). ``KINKS`` lists the points where a
function is not differentiable and the derivative returned is a documented one-sided or
conventional value: those entries are compared between modes only. The table of what
differentiates in what, ``docs/derivatives.md``, is generated from the same lists
(``python tests/helpers/derivative_matrix.py > docs/derivatives.md``) and must be current.
"""

from __future__ import annotations

import json
import os

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from helpers import snapshot
from helpers.derivative_matrix import (
    KINKS,
    forward_program,
    groups,
    points,
    reverse_program,
    table,
)

from fisherrdp.accounting import (
    SyntheticReleaseMechanism,
    calibrate_sigma,
    gaussian_epsilon,
    gaussian_privacy_profile,
    gaussian_rdp,
    rdp_to_dp,
)
from fisherrdp.fisher import (
    wishart_path_bound_exact,
    wishart_path_fisher,
    wishart_path_fisher_exact,
    wishart_path_fisher_integral,
)

HERE = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(HERE, "fixtures", "derivatives.json")) as fh:
    FIXTURE = json.load(fh)

#: Modes against each other (relative to the output's largest derivative at the point).
MODES_RTOL = 1e-12
#: Against the central differences (relative to the output's largest derivative at the point).
CD_RTOL = 1e-8
#: A central difference whose error estimate exceeds this (relative to the scale) straddles a
#: kink (e.g. theorem52_bound_printed at d ≈ 3, where its Fisher ratio becomes 1) or a
#: cancellation: not a reference, not compared.
UNRESOLVED = 1e-4
GROUPS = {g.key: g for g in groups()}
SNAPSHOT = snapshot.load()


def _largest(x):
    """max |x| over the finite entries of the last axis (0 if none)."""
    return np.max(np.where(np.isfinite(x), np.abs(x), 0.0), axis=-1, keepdims=True)


def _scaled_error(x, ref):
    """|x − ref| / max |ref| of each (point, output) (0 where either is not finite)."""
    scale = _largest(ref)
    scale = np.where(scale > 0, scale, 1.0)
    both = np.isfinite(x) & np.isfinite(ref)
    return np.abs(np.where(both, x, 0.0) - np.where(both, ref, 0.0)) / scale


@pytest.fixture(scope="module", params=sorted(GROUPS))
def derivatives(request):
    group = GROUPS[request.param]
    x, labels = points(group)
    data = FIXTURE["groups"][group.key]
    assert data["names"] == list(group.names) and data["labels"] == labels
    # np.exp may differ by an ulp between CPUs and numpy builds: the fixture's points are the
    # reference (its central differences were taken there), the generator must reproduce them.
    np.testing.assert_allclose(x, data["points"], rtol=1e-15, atol=0)
    x = np.array(data["points"], dtype=float)
    fwd = np.asarray(forward_program(group, x)(x))
    rev, values = (np.asarray(a) for a in reverse_program(group, x)(x))
    cd = np.array(data["central_differences"], dtype=float)  # null -> nan
    cd_error = np.array(data["central_difference_errors"], dtype=float)
    finite = np.isfinite(np.array(data["values"], dtype=float))[..., None]  # (n, outputs, 1)
    cols = list(group.differentiated)
    fwd, rev, cd, cd_error = (a[..., cols] for a in (fwd, rev, cd, cd_error))
    finite = np.broadcast_to(finite, fwd.shape)
    cd = np.where(finite, cd, np.nan)
    params = [group.params[c] for c in cols]
    for (output, label), (kinked, _) in KINKS.items():
        if output in group.outputs:
            o = group.outputs.index(output)
            for i in (i for i, lab in enumerate(labels) if lab == label):
                for p in kinked:
                    cd[i, o, params.index(p)] = np.nan
    return group, labels, params, finite, fwd, rev, cd, cd_error, values


def test_no_nan_in_either_mode(derivatives):
    group, labels, params, finite, fwd, rev, _, _, _ = derivatives
    for name, d in (("jacfwd", fwd), ("jacrev", rev)):
        bad = np.argwhere(np.isnan(d) & finite)
        assert bad.size == 0, [(name, labels[i], group.outputs[o], params[p])
                               for i, o, p in bad[:10]]


def test_modes_agree(derivatives):
    group, labels, params, finite, fwd, rev, _, _, _ = derivatives
    np.testing.assert_array_equal(np.isinf(fwd) & finite, np.isinf(rev) & finite)
    err = np.where(finite, _scaled_error(fwd, rev), 0.0)
    i, o, p = np.unravel_index(np.argmax(err), err.shape)
    assert err.max() <= MODES_RTOL, (err.max(), labels[i], group.outputs[o], params[p])


def test_both_modes_equal_central_differences(derivatives):
    group, labels, params, _, fwd, rev, cd, cd_error, _ = derivatives
    scale = _largest(cd)
    inside = np.isfinite(cd) & (cd_error <= UNRESOLVED * scale)
    assert inside.sum() >= 0.5 * inside.size  # most entries are compared
    assert np.all(np.isfinite(fwd[inside])), "finite difference, infinite derivative"
    allowed = CD_RTOL * np.where(scale > 0, scale, 1.0) + 10.0 * cd_error
    for mode, d in (("jacfwd", fwd), ("jacrev", rev)):
        excess = np.where(inside, np.abs(d - cd) / allowed, 0.0)
        i, o, p = np.unravel_index(np.argmax(excess), excess.shape)
        assert excess.max() <= 1.0, (mode, excess.max(), labels[i], group.outputs[o], params[p],
                                     d[i, o, p], cd[i, o, p], cd_error[i, o, p])


def test_values_are_the_snapshot(derivatives):
    """The values at the matrix's points, bit for bit as recorded in the snapshot
    (``tests/fixtures/make_snapshot.py``): a change meant to move code, not numbers, moves none."""
    group, values = derivatives[0], derivatives[-1]
    recorded = SNAPSHOT["matrix"].get(group.key)
    if SNAPSHOT["machine"] != snapshot.machine():
        pytest.skip(f"snapshot recorded on {SNAPSHOT['machine']}: bits not comparable here")
    lines = snapshot.differences(group.key, recorded, snapshot.encode(values))
    assert not lines, "\n".join(lines[:20])


def test_the_table_of_derivatives_is_current():
    with open(os.path.join(os.path.dirname(HERE), "docs", "derivatives.md")) as fh:
        assert fh.read() == table(), "regenerate: python tests/helpers/derivative_matrix.py > docs/derivatives.md"


#: The Wishart path functions that need concrete arguments (docs/derivatives.md): under
#: jax.grad, a ValueError naming the traced argument, never a JAX internal error.
_WISHART_V = np.array([[2.0, 0.0], [0.0, 1.0], [0.0, 0.0]])
_WISHART_W = np.array([[1.5, 0.0], [0.0, 0.5], [0.3, 0.0]])
_NOT_DIFFERENTIABLE = {
    "wishart_path_fisher_exact": (lambda v, x: wishart_path_fisher_exact(v, _WISHART_W, x),
                                  "theta", 0.5),
    "wishart_path_bound_exact": (lambda v, x: wishart_path_bound_exact(v, _WISHART_W, x),
                                 "alpha", 2.0),
    "wishart_path_fisher": (lambda v, x: wishart_path_fisher(
        v, _WISHART_W, x, key=jax.random.key(0), n_samples=8)[0], "theta", 0.5),
    "wishart_path_fisher_integral": (lambda v, x: wishart_path_fisher_integral(
        v, _WISHART_W, x, key=jax.random.key(0), n_samples=8, n_theta=2).bound, "alpha", 2.0),
}


_MECHANISM = {"d": 10.0, "k": 1, "C": 1.0, "sensitivity": 0.5}
#: The accountant (host code): (function of x, the argument x is).
_HOST = {
    "SyntheticReleaseMechanism": (lambda x: SyntheticReleaseMechanism(**_MECHANISM, sigma=x)
                                  .rdp(2.0), "sigma", 2.0),
    "SyntheticReleaseMechanism.rdp": (lambda x: SyntheticReleaseMechanism(**_MECHANISM)
                                      .rdp(x), "alphas", 2.0),
    "SyntheticReleaseMechanism.privacy_profile": (
        lambda x: SyntheticReleaseMechanism(**_MECHANISM).privacy_profile(x), "eps", 1.0),
    "SyntheticReleaseMechanism.epsilon": (lambda x: SyntheticReleaseMechanism(**_MECHANISM)
                                          .epsilon(x), "delta", 1e-5),
    "calibrate_sigma": (lambda x: calibrate_sigma(x, 1e-5, 10.0, 1, 1.0, 0.5).sigma,
                        "target_epsilon", 1.0),
    "rdp_to_dp": (lambda x: rdp_to_dp([2.0, 4.0], x * np.array([1.0, 2.0]), 1e-5)[0],
                  "rdp", 1.0),
    "gaussian_rdp": (lambda x: gaussian_rdp(4.0, 1.0, x), "sigma", 2.0),
    "gaussian_privacy_profile": (lambda x: gaussian_privacy_profile(x, 1.0), "eps", 1.0),
    "gaussian_epsilon": (lambda x: gaussian_epsilon(x, 1.0), "delta", 1e-5),
}


@pytest.mark.parametrize("name", sorted(_HOST))
def test_the_accountant_says_it_is_not_differentiable(name):
    fn, argument, at = _HOST[name]
    with pytest.raises(ValueError, match=f"'{argument}' must be concrete"):
        jax.grad(lambda x: jnp.sum(jnp.asarray(fn(x))))(at)


@pytest.mark.parametrize("name", sorted(_NOT_DIFFERENTIABLE))
@pytest.mark.parametrize("which", ["v", "scalar"])
def test_the_wishart_path_functions_say_they_are_not_differentiable(name, which):
    fn, scalar_name, scalar = _NOT_DIFFERENTIABLE[name]
    if which == "v":
        call, at, argument = (lambda v: jnp.sum(fn(v, scalar))), _WISHART_V, "v"
    else:
        call, at, argument = (lambda x: jnp.sum(fn(_WISHART_V, x))), scalar, scalar_name
    with pytest.raises(ValueError, match=f"'{argument}'"):
        jax.grad(call)(at)
