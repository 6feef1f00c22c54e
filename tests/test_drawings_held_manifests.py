"""The held drawing sets (`tests/fixtures/drawings-held2/` … `drawings-held6/`) are
what their manifests say: the committed drawings are the maker's, every planted slip replaces a string
that is there, on the line recorded, by a different one, and held3 … held6 have the size and spread
their READMEs promise.

Checks only the fixtures (no vaultkit reader runs here); `bench/bench_drawings_held2.py --set NAME`
measures.
"""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from functools import cache
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent / "fixtures"
SETS = ("held2", "held3", "held4", "held5", "held6")
KINDS = {"shape", "head_dim", "scale", "param_count", "kv_size", "series", "restated", "score", "weight", "output"}


def ground(name: str) -> Path:
    return FIXTURES / f"drawings-{name}"


def rows(name: str) -> list[dict]:
    text = (ground(name) / "manifest.jsonl").read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines() if line]


def slips(name: str) -> list[dict]:
    return [r for r in rows(name) if r["kind"] not in ("right", "public")]


@cache
def load_maker(name: str):
    spec = importlib.util.spec_from_file_location(f"make_{name}", ground(name) / f"make_{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def plant(name: str, slip: dict) -> tuple[str, str]:
    """(the right drawing, the drawing with `slip` planted), as the bench plants it."""
    svg = (ground(name) / slip["file"]).read_text(encoding="utf-8")
    out = svg
    at = load_maker(name).find_all(svg, slip["original"])
    for start in sorted((at[i] for i in slip["occurrences"]), reverse=True):
        out = out[:start] + slip["wrong"] + out[start + len(slip["original"]) :]
    return svg, out


SLIP_CASES = [(name, slip) for name in SETS for slip in slips(name)]
SLIP_IDS = [f"{name}:{s['file']}:{s['line']}:{s['kind']}" for name, s in SLIP_CASES]


@pytest.mark.parametrize("name", SETS)
def test_the_committed_drawings_and_manifest_are_the_makers(name, tmp_path):
    maker = load_maker(name)
    here = maker.HERE
    maker.HERE = tmp_path
    try:
        maker.main()
    finally:
        maker.HERE = here
    made = sorted(p.name for p in tmp_path.iterdir())
    committed = sorted(p.name for p in ground(name).iterdir() if p.suffix in (".svg", ".jsonl"))
    assert made == committed
    for file in made:
        assert (tmp_path / file).read_bytes() == (ground(name) / file).read_bytes(), file


@pytest.mark.parametrize("name", SETS)
def test_every_drawing_has_its_right_row(name):
    rights = {r["file"] for r in rows(name) if r["kind"] == "right"}
    assert rights == {p.name for p in ground(name).glob("*.svg")}
    assert {r["file"] for r in slips(name)} <= rights


@pytest.mark.parametrize("name", ("held3", "held4", "held5", "held6"))
def test_the_set_has_its_size_and_spread(name):
    all_rows, planted = rows(name), slips(name)
    rights = {r["file"] for r in all_rows if r["kind"] == "right"}
    kinds = Counter(r["kind"] for r in planted)
    assert len(rights) >= 18 and len(rights - {r["file"] for r in planted}) >= 4  # the tricky carry none
    assert len(planted) >= 60
    assert max(kinds.values()) <= len(planted) / 4
    assert set(kinds) == KINDS
    assert len([r for r in all_rows if r["kind"] == "public"]) >= 8


@pytest.mark.parametrize(("name", "slip"), SLIP_CASES, ids=SLIP_IDS)
def test_a_slip_replaces_a_string_that_is_there_on_its_line(name, slip):
    svg = (ground(name) / slip["file"]).read_text(encoding="utf-8")
    at = load_maker(name).find_all(svg, slip["original"])  # the places the maker counts occurrences by
    assert slip["occurrences"] and max(slip["occurrences"]) < len(at)
    assert slip["wrong"] != slip["original"]
    assert "\n" not in slip["wrong"] and "\n" not in slip["original"]
    assert svg.count("\n", 0, at[slip["occurrences"][0]]) + 1 == slip["line"]
    assert slip["why"]


@pytest.mark.parametrize(("name", "slip"), SLIP_CASES, ids=SLIP_IDS)
def test_the_slipped_drawing_differs_only_on_the_slips_line(name, slip):
    right, wrong = (text.split("\n") for text in plant(name, slip))
    assert len(right) == len(wrong)
    assert [i + 1 for i, (a, b) in enumerate(zip(right, wrong)) if a != b] == [slip["line"]]
