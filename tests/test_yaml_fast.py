"""`safe_load` reads with libyaml when it can; the results must be the pure-Python reader's."""

from __future__ import annotations

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultkit.model.vault import _FAST_LOADER, _SafeLoader, parse_front_matter, safe_load

PIECES = list("ab1 :-?[]{},#&'\"\n%@`.0x\\eE+~é中") + [
    "- ",
    ": ",
    "---",
    "...",
    "\n  ",
    "\n- ",
    "null",
    "true",
    "1.5",
    "0x1F",
    "? ",
    "&a ",
    "2025-01-01",
    "1e3",
    '"\\u0041"',
    "'''",
    "!!str ",
    "|-\n  ",
    ">\n  ",
    "*a",
    "\t",
    "\ufeff",
]


def pure(text: str):
    try:
        return "ok", yaml.load(text, Loader=_SafeLoader)
    except yaml.YAMLError as exc:
        return "error", str(exc)


def fast(text: str):
    try:
        return "ok", safe_load(text)
    except yaml.YAMLError as exc:
        return "error", str(exc)


@pytest.mark.skipif(_FAST_LOADER is None, reason="PyYAML built without libyaml")
@settings(max_examples=3000, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
def test_same_result_as_the_pure_python_reader(text):
    assert fast(text) == pure(text)


def test_aliases_are_still_refused():
    with pytest.raises(yaml.YAMLError, match="aliases are not allowed"):
        safe_load("a: &x [1, 2]\nb: *x\n")


def test_error_diagnostics_come_from_the_pure_python_reader():
    fm = parse_front_matter("---\ntitle: a: b\n---\nbody\n", "n.md")
    (diag,) = fm.diagnostics
    assert (diag.line, diag.col, diag.code) == (2, 9, "VK010")
    assert "mapping values are not allowed here" in diag.message


def test_plain_front_matter_reads_the_same():
    text = "title: 注意力\ntags: [llm, attention]\ndate: 2025-01-13\npublish: true\n"
    assert safe_load(text) == yaml.load(text, Loader=_SafeLoader)
