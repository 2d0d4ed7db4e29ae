r"""The figure ``privacy_profiles.png``: The accountant's view (``fisherrdp account``): the exact
privacy profiles :math:`\delta(\varepsilon)` of the model release and of the synthetic
release (worst admissible pair), and the RDP curves of both.
"""

from __future__ import annotations

import numpy as np

from fisherrdp._src.figures.common import (
    new_figure,
)

__all__ = ['privacy_profiles_data', 'privacy_profiles_figure']


def _default_mechanism():
    from fisherrdp.accounting import SyntheticReleaseMechanism

    return SyntheticReleaseMechanism(d=100, k=1, C=1.0, sensitivity=0.1, sigma=1.0)


def privacy_profiles_data(mechanism=None, *, n_eps: int = 60, alphas=None) -> dict:
    """Privacy profiles and RDP curves of the model and the synthetic release.

    Args:
        mechanism: A :class:`fisherrdp.accounting.SyntheticReleaseMechanism` (default: the
            documentation's worked example, d = 100, k = 1, C = 1, sensitivity = 0.1, σ = 1).
        n_eps: Points of the ε grid, which runs from 0 to the model release's ε at δ = 1e-12.
        alphas: Orders of the RDP curves (default: 40 from 1.1 to 256).
    """
    mech = _default_mechanism() if mechanism is None else mechanism
    eps = np.linspace(0.0, float(mech.model_release_epsilon(1e-12)), n_eps)
    alphas = np.geomspace(1.1, 256.0, 40) if alphas is None else np.asarray(alphas, float)
    return {
        "mechanism": mech,
        "eps": eps,
        "model_profile": np.asarray(mech.model_release_privacy_profile(eps)),
        "synthetic_profile": np.asarray(mech.privacy_profile(eps)),
        "alphas": alphas,
        "model_rdp": np.asarray(mech.model_release_rdp(alphas)),
        "synthetic_rdp": np.asarray(mech.rdp(alphas)),
    }


def _describe(mech) -> str:
    n = "∞" if np.isinf(mech.n_syn) else f"{mech.n_syn:g}"
    return (
        f"d = {mech.d:g}, k = {mech.k}, C = {mech.C:g}, Δ = {mech.sensitivity:g}, "
        f"σ = {mech.sigma:g}, n_syn = {n}"
    )


def privacy_profiles_figure(data: dict | None = None):
    """Figure: δ(ε) and the RDP curves of the model and the synthetic release."""
    data = privacy_profiles_data() if data is None else data
    mech = data["mechanism"]
    kind = "exact" if mech.exact else "upper bound"
    fig, (left, right) = new_figure(2)
    floor = 1e-300
    left.plot(data["eps"], np.maximum(data["model_profile"], floor), color="0.4", ls="-.",
              label="model release (exact Gaussian)")
    left.plot(data["eps"], np.maximum(data["synthetic_profile"], floor), color="k", lw=2,
              label=f"synthetic release ({kind})")
    left.set_yscale("log")
    left.set_ylim(max(1e-30, float(np.min(data["model_profile"])) * 1e-3), 1.5)
    left.set_xlabel("ε")
    left.set_ylabel("δ(ε)")
    left.set_title("privacy profiles")
    left.legend(fontsize=8)
    right.plot(data["alphas"], data["model_rdp"], color="0.4", ls="-.", label="model release")
    right.plot(data["alphas"], data["synthetic_rdp"], color="k", lw=2,
               label=f"synthetic release ({kind})")
    right.set_xscale("log")
    right.set_yscale("log")
    right.set_xlabel("α")
    right.set_ylabel("RDP ε(α)")
    right.set_title("Rényi DP")
    right.legend(fontsize=8)
    fig.suptitle(_describe(mech), fontsize=9)
    return fig
