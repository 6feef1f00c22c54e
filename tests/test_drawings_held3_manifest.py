"""The held3 ground is what its manifest says: the committed drawings are the maker's, every
planted slip replaces a string that is there, on the line recorded, by a different one, and the
set has the size and spread its README promises.

Checks only the fixture (no vaultkit reader runs here); `bench/bench_drawings_held2.py --set held3`
measures.
"""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path

import pytest

GROUND = Path(__file__).parent / "fixtures" / "drawings-held3"
ROWS = [json.loads(line) for line in (GROUND / "manifest.jsonl").read_text(encoding="utf-8").splitlines() if line]
SLIPS = [r for r in ROWS if r["kind"] not in ("right", "public")]


def load_maker():
    spec = importlib.util.spec_from_file_location("make_held3", GROUND / "make_held3.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_committed_drawings_and_manifest_are_the_makers(tmp_path):
    maker = load_maker()
    maker.HERE = tmp_path
    maker.main()
    made = sorted(p.name for p in tmp_path.iterdir())
    committed = sorted(p.name for p in GROUND.iterdir() if p.suffix in (".svg", ".jsonl"))
    assert made == committed
    for name in made:
        assert (tmp_path / name).read_bytes() == (GROUND / name).read_bytes(), name


def test_every_drawing_has_its_right_row():
    rights = {r["file"] for r in ROWS if r["kind"] == "right"}
    assert rights == {p.name for p in GROUND.glob("*.svg")}
    assert {r["file"] for r in SLIPS} <= rights


def test_the_set_has_its_size_and_spread():
    rights = {r["file"] for r in ROWS if r["kind"] == "right"}
    slipped = {r["file"] for r in SLIPS}
    kinds = Counter(r["kind"] for r in SLIPS)
    assert len(rights) >= 18 and len(rights - slipped) >= 4  # the tricky drawings carry no slip
    assert len(SLIPS) >= 60
    assert max(kinds.values()) <= len(SLIPS) / 4
    assert set(kinds) == {
        "shape",
        "head_dim",
        "scale",
        "param_count",
        "kv_size",
        "series",
        "restated",
        "score",
        "weight",
        "output",
    }
    assert len([r for r in ROWS if r["kind"] == "public"]) >= 8


@pytest.mark.parametrize("slip", SLIPS, ids=[f"{s['file']}:{s['line']}:{s['kind']}" for s in SLIPS])
def test_a_slip_replaces_a_string_that_is_there_on_its_line(slip):
    svg = (GROUND / slip["file"]).read_text(encoding="utf-8")
    at = load_maker().find_all(svg, slip["original"])  # the places the maker counts occurrences by
    assert slip["occurrences"] and max(slip["occurrences"]) < len(at)
    assert slip["wrong"] != slip["original"]
    assert "\n" not in slip["wrong"] and "\n" not in slip["original"]
    assert svg.count("\n", 0, at[slip["occurrences"][0]]) + 1 == slip["line"]
    assert slip["why"]


@pytest.mark.parametrize("slip", SLIPS, ids=[f"{s['file']}:{s['line']}:{s['kind']}" for s in SLIPS])
def test_the_slipped_drawing_differs_only_on_the_slips_line(slip):
    svg = (GROUND / slip["file"]).read_text(encoding="utf-8")
    out = svg
    for start in sorted((load_maker().find_all(svg, slip["original"])[i] for i in slip["occurrences"]), reverse=True):
        out = out[:start] + slip["wrong"] + out[start + len(slip["original"]) :]
    right, wrong = svg.split("\n"), out.split("\n")
    assert len(right) == len(wrong)
    assert [i + 1 for i, (a, b) in enumerate(zip(right, wrong)) if a != b] == [slip["line"]]
