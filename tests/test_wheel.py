"""The package as a user gets it: the sdist and the wheel built, checked, installed and run.

``python -m build`` makes the sdist and, from it, the wheel (as a package index user's pip
would); ``twine check`` checks their metadata. The wheel is installed, not editable, into a
fresh virtual environment, and run from a folder outside the checkout: the ``fisherrdp``
command (``--version``, ``demo``, ``account``), ``pip show`` (the license), and one public
function of each public module (tests/helpers/wheel_smoke.py), whose numbers must be the
checkout's.

The new environment reuses this one's installed dependencies (a ``.pth`` file naming this
environment's site-packages, which Python appends to ``sys.path`` after the new environment's
own, without running that folder's ``.pth`` files, so the editable install of fisherrdp stays
invisible); fisherrdp itself comes from the wheel, which the test checks
(``fisherrdp.__file__`` is in the new environment).

The engine keys the programs it keeps by the package's source files, read at run time from the
installed package folder (fisherrdp/_src/core/engine.py: ``source_files``): the test checks that
the wheel holds every source file of the checkout's package, and the commands run those programs.

Cost: about 60 s on 2 CPU cores, most of it the build (``python -m build`` makes an isolated
environment with setuptools from the package index: it needs the network, as ``pip install``
does) and ``fisherrdp account`` (about 15 s). Marked slow, and run by CI (.ci/run) as its own
step after the default run, on every clean clone.
"""

from __future__ import annotations

import json
import os
import pathlib
import subprocess
import sys
import sysconfig
import tarfile
import venv
import zipfile

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
SMOKE = ROOT / "tests" / "helpers" / "wheel_smoke.py"

pytestmark = pytest.mark.slow


def _run(args, *, cwd, env=None, timeout=600):
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert done.returncode == 0, f"{args}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory):
    """The sdist and the wheel, built by ``python -m build`` from the checkout."""
    pytest.importorskip("build", reason="the test extras have build: pip install -e '.[test]'")
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--outdir", str(out), str(ROOT)], cwd=ROOT)
    (sdist,) = out.glob("fisherrdp-*.tar.gz")
    (wheel,) = out.glob("fisherrdp-*.whl")
    return sdist, wheel


@pytest.fixture(scope="module")
def installed(dist, tmp_path_factory):
    """A fresh virtual environment with the wheel installed: (its python, its bin folder)."""
    _, wheel = dist
    env_dir = tmp_path_factory.mktemp("venv")
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    own = pathlib.Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()"
                                                "['purelib'])"], cwd=env_dir).strip())
    parents = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    (own / "_test_wheel_dependencies.pth").write_text("\n".join(parents) + "\n")
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps",
          "--no-index", "--force-reinstall", str(wheel)], cwd=env_dir)
    return python, env_dir / "bin"


def _user_env(bin_dir: pathlib.Path) -> dict[str, str]:
    """The environment of a user's shell with the new environment activated: no PYTHONPATH
    (the checkout must not be importable); the tests' compilation cache is inherited."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSAFEPATH")}
    env["PATH"] = f"{bin_dir}{os.pathsep}{env.get('PATH', '')}"
    env["VIRTUAL_ENV"] = str(bin_dir.parent)
    env.setdefault("JAX_PLATFORMS", "cpu")
    env.setdefault("MPLBACKEND", "Agg")
    return env


def test_twine_check_passes(dist):
    pytest.importorskip("twine", reason="the test extras have twine: pip install -e '.[test]'")
    out = _run([sys.executable, "-m", "twine", "check", "--strict", *map(str, dist)], cwd=ROOT)
    assert out.count("PASSED") == 2, out


def test_the_wheel_holds_the_package_and_its_license(dist):
    sdist, wheel = dist
    package = {p.relative_to(ROOT).as_posix() for p in (ROOT / "fisherrdp").rglob("*.py")}
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        (metadata,) = [n for n in names if n.endswith(".dist-info/METADATA")]
        meta = zf.read(metadata).decode()
        entry_points = zf.read(metadata.replace("METADATA", "entry_points.txt")).decode()
    assert package <= names, sorted(package - names)
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert "License-Expression: Apache-2.0" in meta
    assert "fisherrdp = fisherrdp._src.commands.cli:main" in entry_points
    with tarfile.open(sdist) as tf:
        top = {pathlib.PurePosixPath(n).relative_to(pathlib.PurePosixPath(n).parts[0]).as_posix()
               for n in tf.getnames() if len(pathlib.PurePosixPath(n).parts) > 1}
    assert {"LICENSE", "README.md", "pyproject.toml", "CITATION.cff", "CHANGELOG.md"} <= top
    assert package <= top, sorted(package - top)


def test_the_installed_wheel_runs_outside_the_checkout(installed, tmp_path):
    python, bin_dir = installed
    env = _user_env(bin_dir)
    fisherrdp = str(bin_dir / "fisherrdp")

    from fisherrdp._src.core.version import VERSION

    assert _run([fisherrdp, "--version"], cwd=tmp_path, env=env) == f"fisherrdp {VERSION}\n"
    shown = _run([sys.executable, "-m", "pip", "--python", str(python), "show", "fisherrdp"],
                 cwd=tmp_path, env=env)
    assert "Apache-2.0" in shown, shown
    assert str(bin_dir.parent) in shown, shown  # Location: the new environment, not the checkout

    demo = _run([fisherrdp, "demo", "--point", "999,50"], cwd=tmp_path, env=env)
    assert "-2688.93866912115" in demo, demo  # log I_999(50), as docs/getting_started.md shows

    account = _run([fisherrdp, "account", "--alphas", "2,8", "--json", "report.json"],
                   cwd=tmp_path, env=env)
    assert "synthetic-release accounting: exact" in account, account
    report = json.loads((tmp_path / "report.json").read_text())
    assert report, account

    installed_result = json.loads(_run([str(python), "-c", SMOKE.read_text()], cwd=tmp_path,
                                       env=env))
    here = json.loads(_run([sys.executable, str(SMOKE)], cwd=ROOT))
    installed_file = pathlib.Path(installed_result.pop("fisherrdp.__file__"))
    assert installed_file.is_relative_to(bin_dir.parent), installed_file
    assert pathlib.Path(here.pop("fisherrdp.__file__")).is_relative_to(ROOT)
    assert installed_result == here
    assert installed_result["divergences.renyi_ncx2"][0] == pytest.approx(0.0055679342, abs=1e-10)
