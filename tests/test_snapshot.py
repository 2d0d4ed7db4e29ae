"""Every public function outside the registry, bit for bit as the snapshot recorded it.

``tests/fixtures/make_snapshot.py`` records and explains the snapshot; the registered
quantities' part is checked in the default run by ``tests/test_derivatives.py`` (from the
matrix's programs, at no extra compile). This part costs ~3 min (the k = 2 and finite-release
accountant's worst-case searches), so it is ``slow``: run it, or the script's ``--check``,
before landing a change that must not move a number.
"""

from __future__ import annotations

import pytest
from fixtures.make_snapshot import function_calls
from helpers import snapshot

pytestmark = pytest.mark.slow
SNAPSHOT = snapshot.load()


@pytest.mark.parametrize("name", sorted(SNAPSHOT["functions"]))
def test_public_function_is_the_snapshot(name):
    if SNAPSHOT["machine"] != snapshot.machine():
        pytest.skip(f"snapshot recorded on {SNAPSHOT['machine']}: bits not comparable here")
    calls = function_calls()
    assert name in calls, f"{name} is in the snapshot but no longer called"
    lines = snapshot.differences(name, SNAPSHOT["functions"][name], snapshot.encode(calls[name]()))
    assert not lines, "\n".join(lines[:20])
