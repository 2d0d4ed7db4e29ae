"""The launch recipes of docs/howto/several_hosts.md and ``fisherrdp scan --help`` run.

The page's SLURM command runs as two processes on this machine, each with the environment that
``srun`` gives its tasks, so that ``jax.distributed.initialize()`` detects the "cluster" itself
(JAX's ``SlurmCluster``), as on a real one. The TPU and plain-cluster recipes are that command
with other options, checked as arguments (no TPU here; the explicit ``jax.distributed``
arguments are launched by tests/test_scan.py's worker pair).

The page's quantity is a closed form (a bound of Prop 5.1, whose test is elsewhere), on the
grid and chunk of ``GRIDS["fisher"]``: its program compiles in a fraction of a second. The
persistent compilation cache cannot spare process 1 its compile, whatever the quantity: on a
CPU the cache key holds the device's id, and only process 0 of ``jax.distributed`` writes
entries (measured with ``fisher``: 12.8 s compiling in process 1 with a warm cache).
"""

import os
import random
import re
import shlex
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from helpers.scan_grids import GRIDS

import fisherrdp
from fisherrdp._src.commands import cli
from fisherrdp._src.commands.scan import HEARTBEAT_TIMEOUT_S, distributed_arguments, parse_axis
from fisherrdp.scan import load, scan

PAGE = Path(__file__).resolve().parents[1] / "docs" / "howto" / "several_hosts.md"
#: The store of the page's SLURM recipe and of its reading snippet (a path in tmp_path here).
STORE = "/shared/scan.zarr"
#: The ports of JAX's SlurmCluster: 61440 + SLURM_JOB_ID mod 4096. Outside Linux's default
#: ephemeral ports (32768-60999), where test_scan.py's coordinator gets its port.
SLURM_PORTS = (65535 - 2**12 + 1, 65535)
#: What process 0 says when its coordinator cannot bind the port (taken since it was chosen).
PORT_TAKEN = "Failed to start RPC server"


def _commands(text: str, launcher: str) -> list[list[str]]:
    """The ``fisherrdp scan`` commands of ``text`` on lines that start with ``launcher``
    (``srun``, ``gcloud`` whose ``--command=`` holds it, or ``fisherrdp`` for none), as words;
    backslash-newlines join lines."""
    found = []
    for line in text.replace("\\\n", " ").splitlines():
        if not line.strip().startswith(f"{launcher} "):
            continue
        words = shlex.split(line)
        command = [w.partition("=")[2] for w in words if w.startswith("--command=")]
        words = shlex.split(command[0]) if command else words
        start = words.index("fisherrdp")
        assert words[start + 1] == "scan", line
        found.append(words[start:])
    return found


def _with_option(words: list[str], option: str, value: str) -> list[str]:
    """``words`` with the value of ``option`` replaced."""
    i = words.index(option)
    return [*words[: i + 1], value, *words[i + 2 :]]


def _page() -> str:
    return PAGE.read_text()


def _environment(**extra: str) -> dict[str, str]:
    """This process's environment without anything JAX would take for a cluster (or more
    devices), and the checkout's fisherrdp first; plus ``extra``."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("SLURM_", "OMPI_", "PMI_", "TPU_", "JAX_COORDINATOR",
                                "JAX_LOCAL_DEVICE_IDS", "XLA_FLAGS"))}
    root = os.path.dirname(os.path.dirname(fisherrdp.__file__))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [root, env.get("PYTHONPATH")]))
    env["JAX_PLATFORMS"] = "cpu"
    return {**env, **extra}


class Launch:
    """The SLURM recipe's command as 2 processes of a fake job on localhost, started at once.

    ``srun`` would start them with ``SLURM_JOB_ID``, ``SLURM_STEP_NODELIST``, ``SLURM_NTASKS``,
    ``SLURM_PROCID`` and ``SLURM_LOCALID``; the job id is chosen so that JAX's coordinator port
    is free. ``python -m fisherrdp`` is the ``fisherrdp`` console script.
    """

    def __init__(self, argv: list[str], base: Path, processes: int = 2, tries: int = 3):
        self.argv, self.base, self.processes, self.tries = argv, base, processes, tries
        self.procs: list[subprocess.Popen] = []
        self.start()

    def start(self) -> None:
        port = _free_port(random.Random())
        job_id = 4096 + port - SLURM_PORTS[0]  # JAX: port = 61440 + SLURM_JOB_ID mod 4096
        self.procs = []
        for i in range(self.processes):
            env = _environment(SLURM_JOB_ID=str(job_id), SLURM_STEP_NODELIST="localhost",
                               SLURM_NTASKS=str(self.processes), SLURM_PROCID=str(i),
                               SLURM_LOCALID=str(i))
            with open(self.base / f"out{i}.txt", "w") as out, \
                    open(self.base / f"err{i}.txt", "w") as err:
                self.procs.append(subprocess.Popen(
                    [sys.executable, "-m", "fisherrdp", *self.argv[1:]], env=env,
                    stdout=out, stderr=err, cwd=self.base))

    def stop(self) -> None:
        for p in self.procs:
            if p.poll() is None:
                p.kill()
                p.wait()

    def result(self, timeout: float = 600) -> tuple[list[int], list[str], list[str]]:
        """Exit statuses, stdouts and stderrs (started again on another port, up to ``tries``
        times in all, when process 0 could not bind its coordinator's port)."""
        for _ in range(self.tries):
            self.procs[0].wait(timeout=timeout)
            if self.procs[0].returncode != 0 and PORT_TAKEN in self._read("err", 0):
                self.stop()
                self.start()
                continue
            for p in self.procs:
                p.wait(timeout=timeout)
            break
        n = range(self.processes)
        return ([p.returncode for p in self.procs], [self._read("out", i) for i in n],
                [self._read("err", i) for i in n])

    def _read(self, kind: str, i: int) -> str:
        return (self.base / f"{kind}{i}.txt").read_text()


def _free_port(rng: random.Random) -> int:
    """A port of JAX's SLURM range that nothing listens on now."""
    for _ in range(100):
        port = rng.randint(*SLURM_PORTS)
        with socket.socket() as s:
            try:
                s.bind(("", port))
            except OSError:
                continue
            return port
    raise RuntimeError(f"no free port in {SLURM_PORTS}")


@pytest.fixture(scope="module")
def launched(tmp_path_factory):
    """The page's SLURM command as two processes (started by the module's first test; they
    run while the other tests go on), and the same command where no cluster is detected."""
    base = tmp_path_factory.mktemp("launch")
    (srun,) = _commands(_page(), "srun")
    store = str(base / "scan.zarr")
    argv = _with_option(srun, "--out", store)
    alone = base / "alone"
    alone.mkdir()
    no_cluster = subprocess.Popen([sys.executable, "-m", "fisherrdp", *argv[1:]],
                                  env=_environment(), cwd=alone, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
    launch = Launch(argv, base)
    yield {"srun": srun, "argv": argv, "store": store, "launch": launch,
           "no_cluster": no_cluster}
    launch.stop()
    if no_cluster.poll() is None:
        no_cluster.kill()
    no_cluster.communicate()


# ----------------------------------------------------------------------------------------------
# The recipes: one command


def test_the_page_the_help_and_the_launch_give_one_command(launched, capsys):
    with pytest.raises(SystemExit):
        cli.main(["scan", "--help"])
    page, help_text = _page(), capsys.readouterr().out
    srun = launched["srun"]
    _, grid, chunk = GRIDS["fisher"]
    # The grid and chunk of GRIDS["fisher"], as the command line gives them.
    args = cli.build_parser().parse_args(srun[1:])
    axes = dict(parse_axis(a) for a in args.axis)
    assert list(axes) == list(grid) and args.chunk == chunk
    for key in grid:
        np.testing.assert_array_equal(axes[key], grid[key])
    assert srun[-1] == "--distributed" and srun[srun.index("--out") + 1] == STORE

    assert _commands(help_text, "srun") == [srun]
    # TPU pod slices: the same command in float32, with the store where the workers mount it.
    (tpu,) = _commands(page, "gcloud")
    assert _commands(help_text, "gcloud") == [tpu]
    assert _with_option(tpu, "--out", STORE) == [*srun, "--dtype", "float32"]
    assert cli.build_parser().parse_args(tpu[1:]).dtype == "float32"
    # Any other cluster: the command with explicit jax.distributed arguments, one per host.
    plain = _commands(page, "fisherrdp")
    assert len(plain) == 2
    for i, words in enumerate(plain):
        assert words[: len(srun) - 1] == srun[:-1]
        options = words[len(srun) - 1 :]
        assert options == ["--coordinator", "host0:1234", "--num-processes", "2",
                           "--process-id", str(i)]
        assert distributed_arguments(cli.build_parser().parse_args(words[1:])) == {
            "coordinator_address": "host0:1234", "num_processes": 2, "process_id": i,
            "heartbeat_timeout_seconds": HEARTBEAT_TIMEOUT_S}
    (general,) = _commands(help_text, "fisherrdp")
    assert general[general.index("--coordinator"):] == [
        "--coordinator", "HOST0:PORT", "--num-processes", "N", "--process-id", "I"]
    assert f"{HEARTBEAT_TIMEOUT_S} s" in page


def test_distributed_alone_leaves_the_cluster_to_jax():
    args = cli.build_parser().parse_args(["scan", "fisher", "--distributed"])
    assert distributed_arguments(args) == {"heartbeat_timeout_seconds": HEARTBEAT_TIMEOUT_S}
    args = cli.build_parser().parse_args(["scan", "fisher", "--coordinator", "[::1]:8476"])
    assert distributed_arguments(args) == {"coordinator_address": "[::1]:8476",
                                           "heartbeat_timeout_seconds": HEARTBEAT_TIMEOUT_S}
    assert distributed_arguments(cli.build_parser().parse_args(["scan", "fisher"])) is None


@pytest.mark.parametrize("options, message", [
    (["--process-id", "1"], "--process-id needs --num-processes too"),
    (["--num-processes", "2"], "--num-processes needs --process-id too"),
    (["--num-processes", "2", "--process-id", "2"], r"--process-id must be in \[0, 1\]"),
    (["--num-processes", "0", "--process-id", "0"], "--num-processes must be >= 1"),
    (["--coordinator", "host0"], "--coordinator must read HOST:PORT"),
    (["--coordinator", "host0:65536", "--distributed"], "--coordinator must read HOST:PORT"),
])
def test_bad_combinations_exit_2_naming_the_option(options, message, capsys):
    # Refused before jax.distributed starts (no process waits for the others).
    argv = ["scan", "fisher", "--axis", "d=2", "--axis", "theta=1", *options]
    assert cli.main(argv) == 2
    assert re.search(message, capsys.readouterr().err)


# ----------------------------------------------------------------------------------------------
# The SLURM recipe, run


#: A summary line without its timings (which vary from run to run).
TIMINGS = re.compile(r"[\d.]+ s, of which [\d.]+ s compiling; (?:[\d,.]+|nan) points/s")


def _without_timings(text: str) -> list[str]:
    return [TIMINGS.sub("T", line) for line in text.splitlines()]


def test_the_slurm_recipe_runs_as_two_processes(launched):
    _, grid, chunk = GRIDS["fisher"]
    quantity = launched["srun"][2]
    one = scan(quantity, grid, chunk=chunk, progress=False)  # while the processes run
    codes, outs, errs = launched["launch"].result()
    assert codes == [0, 0], "\n".join(
        f"--- process {i} (exit {c}):\n{o}\n{e[-3000:]}"
        for i, (c, o, e) in enumerate(zip(codes, outs, errs)))

    # Process 0 prints the summary; process 1, one line with its share. Block i belongs to
    # process i mod 2, and every block was computed.
    blocks = int(one.attrs["blocks"])
    assert blocks == 3
    assert outs[0].startswith("devices: 1 x cpu") and "processes: 2" in outs[0]
    summary = re.search(r"blocks computed (\d+) of (\d+) by 2 processes, resumed 0;", outs[0])
    share = re.fullmatch(r"process 1 of 2: blocks computed (\d+); [^\n]*\n", outs[1])
    assert summary and share, outs
    assert int(summary[1]) == (blocks + 1) // 2 and int(share[1]) == blocks // 2
    assert int(summary[2]) == blocks
    assert f"store: {launched['store']}" in outs[0]

    # The store is the scan of one process: with one device per process, the one-device
    # program, bit for bit (measured).
    stored = load(launched["store"])
    assert stored.resumed_blocks == blocks and stored.attrs["processes"] == 2
    assert np.array_equal(stored.values, one.values)

    # The page shows what the command printed (timings aside).
    shown = re.search(r"```text\n(devices: .*?)```", _page(), re.DOTALL)[1]
    printed = (outs[0] + outs[1]).replace(launched["store"], STORE)
    assert _without_timings(shown) == _without_timings(printed)

    # The page's snippet reads the store (xarray and fisherrdp.scan.load; tests/test_docs_pages.py
    # does not run it, "no-run": it reads the store of several hosts).
    snippet = re.search(r"```python no-run\n(.*?)```", _page(), re.DOTALL)[1]
    pytest.importorskip("xarray")
    exec(snippet.replace(STORE, launched["store"]), {})

    # Where no cluster is detected, --distributed alone is a bad option.
    _, err = launched["no_cluster"].communicate(timeout=600)
    assert launched["no_cluster"].returncode == 2, err
    assert "--distributed: coordinator_address should be defined" in err
    assert "give --coordinator HOST:PORT, --num-processes N and --process-id I" in err


def test_the_same_command_resumes_in_one_process(launched, capsys):
    codes, _, _ = launched["launch"].result()
    assert codes == [0, 0]
    argv = [w for w in launched["argv"][1:] if w != "--distributed"]
    assert cli.main([*argv, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "processes: 1" in out and "blocks computed 0, resumed 3;" in out
