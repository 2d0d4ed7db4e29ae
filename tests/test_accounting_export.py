"""The accountant's outputs: dp_accounting export, ``fisherrdp account`` and its figures."""

import json
import pathlib

import numpy as np
import pytest

from fisherrdp._src.accounting import wishart_search
from fisherrdp._src.commands.cli import main
from fisherrdp.accounting import SyntheticReleaseMechanism, to_dp_accounting_pld

H = 3e-4
# The two-fold composition of the worst pair, from its definition in mpmath
# (tests/fixtures/make_composition_fixtures.py).
COMPOSITION = json.loads(
    (pathlib.Path(__file__).parent / "fixtures" / "composition.json").read_text()
)


@pytest.fixture(scope="module")
def mechanism():
    return SyntheticReleaseMechanism(d=100, k=1, C=1.0, sensitivity=0.1)


@pytest.fixture(scope="module")
def pld(mechanism):
    pytest.importorskip("dp_accounting")
    return to_dp_accounting_pld(mechanism, value_discretization_interval=H)


def test_pld_brackets_the_exact_profile(mechanism, pld):
    """Pessimistic rounding by at most h: δ(ε) ≤ δ_PLD(ε) ≤ δ(ε − h) + tail mass."""
    eps = np.array([0.002, 0.005, 0.01, 0.03, 0.1])
    exact = mechanism.privacy_profile(eps)
    shifted = mechanism.privacy_profile(eps - H)
    pld_delta = np.array([pld.get_delta_for_epsilon(e) for e in eps])
    assert np.all(pld_delta >= exact * (1 - 1e-9))
    assert np.all(pld_delta <= shifted * (1 + 1e-9) + 1e-15)


def test_pld_epsilon(mechanism, pld):
    exact = mechanism.epsilon(1e-5)
    assert exact <= pld.get_epsilon_for_delta(1e-5) <= exact + H


def test_pld_composition_brackets_the_exact_composition(mechanism, pld):
    """Two-fold composition through dp_accounting against the exact two-fold composition.

    The reference is E_{e^ε}(P⊗P‖Q⊗Q) for the worst pair (P, Q) = (χ²_d(a²), χ²_d(b²)), both
    directions, computed in mpmath from the definition (a quadrature over the first draw of the
    one-draw hockey-stick divergence at ε − L(x)). Each exported loss is rounded up by at most
    h, so the composed loss by at most 2h: δ₂(ε) ≤ δ_PLD,2(ε) ≤ δ₂(ε − 2h) + the masses at +∞
    (tail_mass 1e-15 per direction and dp_accounting's truncation, 1e-15 by default).
    """
    meta = COMPOSITION["meta"]
    assert meta["h"] == H and meta["n"] == 2
    assert (mechanism.d, mechanism.norm_bound) == (meta["d"], meta["a"])
    assert mechanism.norm_bound - mechanism.scaled_sensitivity == pytest.approx(meta["b"])
    exact = {row["eps"]: max(row["remove"], row["add"]) for row in COMPOSITION["rows"]}
    composed = pld.self_compose(2)
    checked = 0
    for eps, lower in exact.items():
        shifted = round(eps - 2 * H, 12)
        if shifted not in exact:
            continue
        got = composed.get_delta_for_epsilon(eps)
        assert lower * (1 - 1e-12) <= got <= exact[shifted] * (1 + 1e-12) + 1e-14, eps
        checked += 1
    assert checked >= 5


def test_pld_rejects_cases_without_an_exact_pld():
    pytest.importorskip("dp_accounting")
    with pytest.raises(ValueError, match="k = 1"):
        to_dp_accounting_pld(SyntheticReleaseMechanism(100, 2, 1.0, 0.1))
    with pytest.raises(ValueError, match="value_discretization_interval"):
        to_dp_accounting_pld(
            SyntheticReleaseMechanism(100, 1, 1.0, 0.1),
            value_discretization_interval=0.0,
        )


def test_account_command_json(tmp_path, capsys):
    out = tmp_path / "report.json"
    status = main(["account", "--alphas", "2,8", "--sampling-rate", "0.01", "--json", str(out)])
    assert status == 0
    text = capsys.readouterr().out
    assert "synthetic RDP" in text and "worst pair" in text
    report = json.loads(out.read_text())
    assert report["method"] == "exact"
    assert [r["alpha"] for r in report["rdp"]] == [2.0, 8.0]
    assert report["rdp"][0]["synthetic"] == pytest.approx(1.7761745129959e-4, rel=1e-9)
    assert report["epsilon"]["synthetic"] < report["epsilon"]["model"]
    assert report["epsilon_via_rdp"]["synthetic"] >= report["epsilon"]["synthetic"]
    # The defaults are the worked example of docs/explanation/accounting.md: its RDP-route row,
    # as printed there.
    assert report["epsilon_via_rdp"]["model"] == pytest.approx(0.37543, abs=5e-6)
    assert report["epsilon_via_rdp"]["synthetic"] == pytest.approx(0.0499148, abs=5e-8)
    assert report["worst_pair"] == {
        "norm_v": 1.0,
        "norm_w": 0.9,
        "at_corner_for_all_orders": True,
        "interior_below_boundary": True,
    }
    assert report["subsampled"]["synthetic"] < report["epsilon"]["synthetic"]


def test_account_command_k2_and_errors(capsys, monkeypatch):
    # Climbs of 4 steps: the command's wiring is the point here; the default search's results
    # are held by tests/test_accounting_release.py.
    monkeypatch.setattr(wishart_search, "CLIMB_STEPS", 4)
    assert main(["account", "--k", "2", "--d", "5", "--sensitivity", "0.5", "--alphas", "4"]) == 0
    out = capsys.readouterr().out
    assert "upper bound" in out and "found (lower)" in out and "not a guarantee" in out
    row = next(line for line in out.splitlines() if line.strip().startswith("4 |"))
    upper, lower = float(row.split("|")[2]), float(row.split("|")[4])
    assert 0.0 < lower <= upper
    assert main(["account", "--k", "2", "--alphas", "2", "--no-search"]) == 0
    assert "found (lower)" not in capsys.readouterr().out
    assert main(["account", "--sensitivity", "3"]) == 2
    assert "sensitivity" in capsys.readouterr().err
    assert main(["account", "--delta", "1.5"]) == 2
    assert main(["account", "--sampling-rate", "0"]) == 2


def test_accounting_figures():
    from fisherrdp import figures

    data = figures.privacy_profiles_data(
        SyntheticReleaseMechanism(d=100, k=1, C=1.0, sensitivity=0.1),
        n_eps=8,
        alphas=[2.0, 8.0],
    )
    assert np.all(data["synthetic_profile"] <= data["model_profile"])
    assert figures.privacy_profiles_figure(data).axes
    sigma = figures.sigma_vs_dimension_data(d_values=(10, 1000))
    assert sigma["sigma"][1] < sigma["sigma"][0] < sigma["sigma_model"]
    assert figures.sigma_vs_dimension_figure(sigma).axes
