"""``fisherrdp figures`` writes the three k = 1 figures; their data are right."""

import numpy as np
import pytest

from fisherrdp import bounds
from fisherrdp._src import cli, figures


def test_figures_command_writes_three_pngs(tmp_path, capsys):
    assert cli.main(["figures", "--out", str(tmp_path), "--dpi", "40"]) == 0
    for name in ("fisher_bounds.png", "amplification_ratio.png", "loss_vs_dimension.png"):
        data = (tmp_path / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 5000, name
    assert capsys.readouterr().out.count("wrote") == 3


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
