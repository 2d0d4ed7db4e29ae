"""``fisherrdp figures`` writes the k = 1 figures and the k > 1 Fisher figure; data are right."""

import numpy as np
import pytest

from fisherrdp import bounds, figures
from fisherrdp._src.commands import cli

FIGURE_FILES = (
    "fisher_bounds.png",
    "amplification_ratio.png",
    "loss_vs_dimension.png",
    "release_vs_nsyn.png",
    "wishart_fisher.png",
    "wishart_renyi.png",
)


@pytest.mark.slow  # ~100 s on 2 busy cores; each figure's data and drawing is tested below
def test_figures_command_writes_every_png(tmp_path, capsys):
    assert cli.main(["figures", "--out", str(tmp_path), "--dpi", "40"]) == 0
    for name in FIGURE_FILES:
        data = (tmp_path / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, name
    assert capsys.readouterr().out.count("wrote") == len(FIGURE_FILES)


def test_figures_rejects_alpha_at_most_one(tmp_path):
    assert cli.main(["figures", "--out", str(tmp_path), "--alpha", "1"]) == 2


# The data at the command's default sizes, so the compiled programs are shared with it.
@pytest.fixture(scope="module")
def fisher_data():
    return figures.fisher_bounds_data(n_theta=100)


@pytest.fixture(scope="module")
def ratio_data():
    return figures.amplification_ratio_data(n_delta=20)


@pytest.fixture(scope="module")
def loss_data():
    return figures.loss_vs_dimension_data(n_d=20)


def test_fisher_bounds_data_is_bracketed_by_the_bounds(fisher_data):
    tol = 1e-9
    assert (fisher_data["Prop 5.1 lower"] <= fisher_data["fisher"] + tol).all()
    for name in ("Prop 5.1 upper", "App. E.1 quadratic", "Idier–Collewet", "trivial (1)"):
        assert (fisher_data["fisher"] <= fisher_data[name] + tol).all(), name


def test_amplification_ratio_tends_to_the_fisher_ratio(ratio_data):
    # η → I(d, ‖w‖) as Δ → 0 (Prop 3.1), which lies inside the Theorem 5.1 envelope.
    from fisherrdp.fisher import ncx2_amplitude_fisher

    limit = np.asarray(ncx2_amplitude_fisher(ratio_data["d"], ratio_data["w_norm"]))
    np.testing.assert_allclose(ratio_data["eta"][:, 0], limit, rtol=1e-3)
    assert (ratio_data["lower"] <= limit).all() and (limit <= ratio_data["upper"]).all()


def test_loss_vs_dimension_orders_the_curves(loss_data):
    exact = loss_data["exact"]
    path = loss_data["path bound (Prop 3.2, exact √I)"]
    thm52 = loss_data["Theorem 5.2 (re-derived)"]
    assert (exact <= path).all() and (path <= thm52 * (1 + 1e-12)).all()
    assert (exact <= loss_data["model release αΔ²/2"]).all()
    assert np.all(np.diff(exact) < 0)  # amplification grows with d
    np.testing.assert_allclose(
        loss_data["model release αΔ²/2"], float(bounds.gaussian_renyi(2.0, 0.5))
    )


def test_figure_functions_return_figures(fisher_data, ratio_data, loss_data):
    from matplotlib.figure import Figure

    fig = figures.fisher_bounds_figure(fisher_data)
    assert isinstance(fig, Figure)
    assert sum(ax.get_visible() for ax in fig.axes) == len(fisher_data["d"])
    assert isinstance(figures.amplification_ratio_figure(ratio_data), Figure)
    assert isinstance(figures.loss_vs_dimension_figure(loss_data), Figure)


# A tiny grid: one chunk of the finite-release kernel (compiled once per process, shared with
# the command above when both run in one worker).
@pytest.fixture(scope="module")
def release_data():
    return figures.release_vs_nsyn_data(d_values=(2, 5), n_syn=(1.0, 10.0, 100.0, 1e4))


def test_release_vs_nsyn_curves_rise_to_the_plateau(release_data):
    exact, plateau = release_data["exact"], release_data["plateau"]
    assert exact.shape == (2, 4) and plateau.shape == (2,)
    assert np.all(np.diff(exact, axis=1) > 0)  # more synthetic records, more loss
    assert (exact < plateau[:, None]).all()
    assert (plateau < release_data["post_processing"]).all()  # post-processing
    np.testing.assert_allclose(release_data["post_processing"], 2.0 * 0.5**2 / 2)
    # ``docs/math/release.md`` (scipy): α = 2, d = 5, a = 2, b = 1.5 at n_syn = 1, 10, 1e4, and ∞.
    np.testing.assert_allclose(exact[1, [0, 1, 3]], [0.02009, 0.09027, 0.15117], atol=6e-6)
    np.testing.assert_allclose(plateau[1], 0.1512947, atol=1e-7)


def test_release_vs_nsyn_figure_axes(release_data):
    fig = figures.release_vs_nsyn_figure(release_data)
    (ax,) = fig.axes
    assert ax.get_xscale() == "log" and "n_syn" in ax.get_xlabel()
    labels = [line.get_label() for line in ax.get_lines()]
    assert sum(label.startswith("exact") for label in labels) == 2
    assert any(label.startswith("model release") for label in labels)
    assert not ax.containers  # no error bars without estimates


@pytest.mark.slow
def test_release_vs_nsyn_with_estimates():
    import jax

    data = figures.release_vs_nsyn_data(
        d_values=(5,),
        n_syn=(1.0, 100.0),
        estimates=True,
        estimate_points=(10.0,),
        steps=300,
        n_eval=50_000,
        key=jax.random.key(1),
    )
    est, exact = data["estimate"][0, 0], data["estimate_exact"][0, 0]
    assert data["ci_low"][0, 0] < est < data["ci_high"][0, 0]
    assert abs(est - exact) < 0.25 * exact  # 0.09027; a short training, a loose check
    fig = figures.release_vs_nsyn_figure(data)
    assert len(fig.axes[0].containers) == 1  # the error bars


def test_amplification_ratio_estimates_are_drawn(ratio_data):
    # A short training at one point (d = 5, Δ = 0.5: η = 0.428); n_delta as the fixture's, so
    # the exact curves reuse its compilation. The full-size run is measured in the docstring.
    import jax

    data = figures.amplification_ratio_data(
        (5,),
        n_delta=20,
        estimates=True,
        estimate_points=(0.5,),
        steps=200,
        n_eval=20_000,
        key=jax.random.key(1),
    )
    np.testing.assert_array_equal(data["estimate_delta"], [0.5])
    for name in ("estimate", "ci_low", "ci_high", "estimate_exact"):
        assert data[name].shape == (1, 1) and np.isfinite(data[name]).all(), name
    est, exact = data["estimate"][0, 0], data["estimate_exact"][0, 0]
    assert data["ci_low"][0, 0] < est < data["ci_high"][0, 0]
    # scipy: log ∫ p²/q of χ²_5(2.25) against χ²_5(1) (quad on logpdf), over αΔ²/2 = 0.25.
    np.testing.assert_allclose(exact, 0.4281272264, rtol=1e-8)
    assert abs(est - exact) < 0.25 * exact  # a short training, a loose check
    (ax,) = figures.amplification_ratio_figure(data).axes
    assert len(ax.containers) == 1  # the error bars
    assert ax.containers[0].get_label() == "variational estimate (95%), d = 5"
    assert not figures.amplification_ratio_figure(ratio_data).axes[0].containers


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"d_values": (2.5,)}, "'d_values'"),
        ({"d_values": (0,)}, "'d_values'"),
        ({"estimate_points": (0.0, 0.5)}, "'estimate_points'"),
        ({"estimate_points": (float("nan"),)}, "'estimate_points'"),
    ],
)
def test_amplification_ratio_estimates_reject_bad_arguments(kwargs, name):
    with pytest.raises(ValueError, match=name):
        figures.amplification_ratio_data(estimates=True, **kwargs)


# k > 1: one k and the command's d and draws (θ ∈ {0, 1} is part of its grid), so the compiled
# score can be shared with the command test when both run in one worker.
@pytest.fixture(scope="module")
def wishart_data():
    return figures.wishart_fisher_data(k_values=(2,), d=24, n_theta=2, n_samples=1000)


def test_wishart_fisher_data_lies_below_theorem53(wishart_data):
    data = wishart_data
    assert data["fisher"].shape == data["stderr"].shape == (1, 2)
    np.testing.assert_array_equal(data["theta"], [0.0, 1.0])
    assert data["m"][0] == 12 and 0 < data["L2"][0] <= 0.75**2
    # ρ(0) = ‖v‖ = C; ρ(1) = ‖w‖ = √(C² − Δ²) (the rotation keeps the norm).
    np.testing.assert_allclose(data["rho"][0], [1.0, np.sqrt(1 - 0.75**2)], rtol=1e-12)
    fisher, se = data["fisher"][0], data["stderr"][0]
    assert np.all(fisher > 0) and np.all(se < 0.1 * fisher)
    # The printed reading is the smaller; the re-derived (proven) bound holds within 3 se.
    assert np.all(data["bound_printed"] < data["bound_rederived"])
    assert np.all(fisher - 3 * se <= data["bound_rederived"][0])
    want = np.asarray(
        bounds.theorem53_fisher_bound(data["L2"][0], data["rho"][0], 12, variant="printed")
    )
    np.testing.assert_allclose(data["bound_printed"][0], want, rtol=1e-14)


def test_wishart_fisher_data_has_the_exact_k2_fisher_inside_the_monte_carlo_interval(
    wishart_data,
):
    exact, fisher, se = wishart_data["fisher_exact"][0], wishart_data["fisher"][0], \
        wishart_data["stderr"][0]
    assert np.all(np.abs(exact - fisher) <= 4 * se)
    assert np.all(exact <= wishart_data["bound_rederived"][0])


def test_wishart_renyi_data_is_exact_and_below_the_bounds():
    from fisherrdp.divergences import renyi_ncx2

    data = figures.wishart_renyi_data(alpha=2.0, d=6, n_delta=2, pairs=("rank_one", "random"))
    assert data["renyi"].shape == (2, 2)
    np.testing.assert_allclose(data["delta"], [0.1, 0.9])
    # The rank-one pair is the k = 1 pair (C, C − Δ), in the worse of both orders.
    want = [max(float(renyi_ncx2(2.0, 6.0, 1.0, 1.0 - x)), float(renyi_ncx2(2.0, 6.0, 1.0 - x, 1.0)))
            for x in data["delta"]]
    np.testing.assert_allclose(data["renyi"][0], want, rtol=1e-8)
    assert np.all(data["renyi"] <= data["thm54_rederived"])
    assert np.all(data["renyi"] <= data["postprocessing"])
    fig = figures.wishart_renyi_figure(data)
    labels = [line.get_label() for line in fig.axes[0].get_lines()]
    assert sum("exact D_α" in label for label in labels) == 2
    assert any("Thm 5.4, re-derived" in label for label in labels)
    with pytest.raises(ValueError, match="'n_delta'"):
        figures.wishart_renyi_data(n_delta=1)


def test_wishart_fisher_figure_has_error_bars_and_both_bounds(wishart_data):
    fig = figures.wishart_fisher_figure(wishart_data)
    (ax,) = fig.axes
    assert len(ax.containers) == 1  # the ±3 se error bars
    labels = [line.get_label() for line in ax.get_lines()]
    assert any("re-derived" in label for label in labels)
    assert any("as printed" in label for label in labels)
    assert "k = 2" in ax.get_title()


def test_wishart_fisher_data_rejects_bad_sizes():
    with pytest.raises(ValueError, match="'n_theta'"):
        figures.wishart_fisher_data(n_theta=1)
    with pytest.raises(ValueError, match="'delta'"):
        figures.wishart_fisher_data(delta=2.0)
