"""Runs scans in a fresh process for tests/test_scan.py (several devices or processes).

Usage: python scan_worker.py OUT.npz DEVICES [PROCESS_ID NUM_PROCESSES PORT STORE [DELAY_S]]

``DEVICES`` host CPU devices are made with ``XLA_FLAGS`` before JAX is imported. With the
process arguments the process joins ``jax.distributed`` on localhost and scans ``fisher`` into
``STORE`` and without a store; otherwise it scans the grids of :data:`GRIDS`. ``DELAY_S``
delays this process's work after the scans (a host that finishes its other work late): the
processes meet at :func:`fisherrdp.scan.barrier` before ``jax.distributed`` shuts down, so that
the shutdown's own barrier (``SHUTDOWN_TIMEOUT_S``) never waits for a slow process.
"""

import os
import sys

out, devices = sys.argv[1], int(sys.argv[2])
os.environ["XLA_FLAGS"] = f"--xla_force_host_platform_device_count={devices}"
os.environ["JAX_PLATFORMS"] = "cpu"

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)
if len(sys.argv) > 3:
    pid, nproc, port = int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
    # Generous heartbeats: on 2 shared cores a compiling process can stall for a long time.
    jax.distributed.initialize(f"localhost:{port}", num_processes=nproc, process_id=pid,
                               heartbeat_timeout_seconds=600, shutdown_timeout_seconds=60)

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from fisherrdp.scan import barrier, scan  # noqa: E402
from helpers.scan_grids import GRIDS  # noqa: E402

results = {"local_devices": np.array(len(jax.local_devices()))}
if len(sys.argv) > 3:
    name, grid, chunk = GRIDS["fisher"]
    stored = scan(name, grid, chunk=chunk, store=sys.argv[6], progress=False)
    results["stored"] = stored.values
    results["stored_computed"] = np.array(stored.computed_blocks)
    results["gathered"] = scan(name, grid, chunk=chunk, progress=False).values
else:
    for key, (name, grid, chunk) in GRIDS.items():
        results[key] = scan(name, grid, chunk=chunk, progress=False).values
np.savez(out, **results)
if len(sys.argv) > 3:
    if len(sys.argv) > 7:
        import time

        time.sleep(float(sys.argv[7]))
    barrier("scan-worker-exit")
    jax.distributed.shutdown()
