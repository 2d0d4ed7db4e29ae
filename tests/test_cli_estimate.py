"""``fisherrdp estimate``: registered, runs with tiny settings, prints the estimate with its
interval (and, for n_syn = inf, the exact value with the relative error), writes JSON, and
rejects bad options with exit status 2."""

import json
import math

import pytest

from fisherrdp._src.commands import cli

TINY = ["--steps", "100", "--n-eval", "4000", "--d", "3", "--v-norm", "2", "--w-norm", "1"]


def test_registered():
    assert "estimate" in cli.load_subcommands()


def test_estimate_runs(tmp_path, capsys):
    out = tmp_path / "est.json"
    # n_syn = inf: features log ‖V‖², the cheapest sampler to compile.
    assert cli.main(["estimate", *TINY, "--n-syn", "inf", "--no-exact", "--json", str(out)]) == 0
    text = capsys.readouterr().out
    assert "estimate" in text and "95% CI" in text
    report = json.loads(out.read_text())
    assert report["ci_low"] < report["estimate"] < report["ci_high"]
    assert report["exact"] is None and report["n_syn"] == math.inf
    assert report["settings"]["steps"] == 100 and len(report["curve"]) == 1


@pytest.mark.slow
def test_estimate_k2_no_exact(capsys):
    """k = 2, finite n_syn (Bartlett Gram features; slow to compile): no exact value."""
    assert cli.main(["estimate", *TINY, "--k", "2", "--n-syn", "10"]) == 0
    assert "not available" in capsys.readouterr().out


@pytest.mark.parametrize(
    "argv, match",
    [
        (["--alpha", "1"], "--alpha"),
        (["--k", "4"], "'d' must be"),
        (["--n-syn", "0.5"], "'n_syn'"),
        (["--v-norm", "-1"], "'v_norm'"),
    ],
)
def test_bad_options(argv, match, capsys):
    assert cli.main(["estimate", *TINY, *argv]) == 2
    assert match in capsys.readouterr().err


@pytest.mark.slow
def test_estimate_with_exact_infinite(tmp_path, capsys):
    """n_syn = inf: the exact value renyi_ncx2(2, 3, 2, 1) is printed with the relative error
    (slow: compiling renyi_ncx2 takes 20-30 s)."""
    out = tmp_path / "est.json"
    assert cli.main(["estimate", *TINY, "--n-syn", "inf", "--json", str(out)]) == 0
    assert "renyi_ncx2" in capsys.readouterr().out
    report = json.loads(out.read_text())
    assert report["exact_source"] == "renyi_ncx2" and math.isfinite(report["relative_error"])
