"""The accuracy claims (tests/fixtures/accuracy/*.json): well formed, each one checked by a test,
and the documentation (README.md and docs/**/*.md) shows the numbers the tests guard (so the
pages and the tests cannot drift)."""

import pathlib
import re

import pytest
from conftest import load_accuracy_claims
from helpers.docs_pages import lines_with

ROOT = pathlib.Path(__file__).resolve().parent.parent
CLAIMS = load_accuracy_claims()
TESTS = "".join(p.read_text() for p in (ROOT / "tests").glob("test_*.py"))


def _checked_name_patterns():
    """A regular expression for each claim name that a test passes to accuracy.check: literal
    names as they are, f-strings with each replacement field matching one path component."""
    patterns = []
    for is_f, name in re.findall(r'accuracy\.check\(\s*(f?)"([^"]+)"', TESTS):
        if is_f:
            parts = re.split(r"\{[^}]*\}", name)
            patterns.append("[^/]+".join(re.escape(p) for p in parts))
        else:
            patterns.append(re.escape(name))
    return [re.compile(p + "$") for p in patterns]


CHECKED = _checked_name_patterns()


def test_there_are_claims():
    assert len(CLAIMS) >= 20


@pytest.mark.parametrize("name", sorted(CLAIMS))
def test_claim_is_well_formed_and_checked_by_a_test(name):
    claim = CLAIMS[name]
    assert 0 <= claim["measured"] <= claim["target"], claim
    assert claim["points"] >= 1
    # Checked by a test: accuracy.check("AREA/x", ...), or an f-string such as
    # accuracy.check(f"AREA/{quantity}/{regime}", ...) whose fields match the name's components.
    assert any(p.match(name) for p in CHECKED), f"no test checks claim {name!r}"


# A documentation page states, on a line containing the phrase (a claim's "readme" key), the
# largest measured value of the claims that name that phrase (one number can summarise several
# regimes).
PAGE_NUMBERS: dict[str, float] = {}
for _claim in CLAIMS.values():
    if _claim.get("readme"):
        PAGE_NUMBERS[_claim["readme"]] = max(
            PAGE_NUMBERS.get(_claim["readme"], 0.0), _claim["measured"]
        )


@pytest.mark.parametrize("phrase", sorted(PAGE_NUMBERS))
def test_a_page_states_the_measured_number(phrase):
    number = f"{PAGE_NUMBERS[phrase]:.1e}"
    lines = lines_with(phrase)
    assert lines, f"no documentation page has a line with {phrase!r}"
    assert any(number in line for _, line in lines), (
        f"the line(s) with {phrase!r} do not state {number}: {lines}"
    )
