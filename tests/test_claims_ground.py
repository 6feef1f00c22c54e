"""The hand-judged ground of the claims checker (`bench/ground/`) is well-formed, its halves
(tune, held and the later batches held3 … held7) are kept apart, and the bench's scoring counts a toy example right."""

from __future__ import annotations

import importlib.util
import re
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
GROUND = ROOT / "bench" / "ground"
# Kept back to judge the result (COMMON.md), and the two repositories already in ../shared.
HELD_BACK = {
    "wdndev/llm_interview_note",
    "liguodongiot/llm-action",
    "ShinnChou/AI-fundermentals",
    "harleyszhang/llm_note",
    "datawhalechina/llm-deploy",
    "Jack47/hack-SysML",
    "Infrasys-AI/aiinfra-docs",
    "jax-ml/scaling-book",
    "Nebius-Academy/knowledge-base",
    "gaurav-redhat/Transformer",
    "MfmRifath/ai-engineering-roadmap",
    "objones25/llm-training",
    "ritesh-modi/llmwebsite",
    "johnsanterre/AI_MindMap",
    "stas00/ml-engineering",
    "shiningstarpxx/LLM-from-scratch",
}


def _bench():
    spec = importlib.util.spec_from_file_location("bench_claims_ground", ROOT / "bench" / "bench_claims_ground.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


bench = _bench()
HALVES = bench.HALVES["all"]  # every judged batch the bench scores


@pytest.fixture(scope="module")
def halves() -> dict[str, list[dict]]:
    return {half: bench.load_half(half) for half in HALVES}


@pytest.mark.parametrize("half", HALVES)
def test_rows_are_well_formed(halves, half):
    rows = halves[half]
    assert len(rows) >= 200
    seen = set()
    for row in rows:
        where = f"{half}: {row.get('repo')} {row.get('path')}:{row.get('line')}"
        assert all(name in row for name in bench.FIELDS), where
        assert re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", row["repo"]), where
        assert re.fullmatch(r"[0-9a-f]{40}", row["commit"]), where
        assert isinstance(row["line"], int) and row["line"] >= 1, where
        assert row.get("from", row["line"]) <= row["line"], where
        assert row["lang"] in ("zh", "en"), where
        assert row["verdict"] in bench.VERDICTS, where
        assert row["claim"].strip(), where
        assert row["why"].strip() or row["verdict"] == "right", where  # a right claim may need no word
        assert bool(row["value"].strip()) == (row["verdict"] == "wrong"), where
        assert row["vaultkit"] == "none" or set(row["vaultkit"].split(",")) <= {*bench.CLAIM_CODES, "raised"}, where
        key = (row["repo"], row["path"], row["line"], row["claim"])  # a long line may hold several claims
        assert key not in seen, where
        seen.add(key)


@pytest.mark.parametrize("half", HALVES)
def test_each_half_mixes_languages_and_repositories(halves, half):
    rows = halves[half]
    repos = {row["repo"] for row in rows}
    assert len(repos) >= 5
    assert {row["lang"] for row in rows} == {"zh", "en"}
    assert len({row["commit"] for row in rows}) == len(repos)  # one commit per repository
    assert Counter(row["verdict"] for row in rows)["wrong"] >= 5


def test_no_repository_in_two_halves_nor_held_back(halves):
    repos = {half: {row["repo"] for row in rows} for half, rows in halves.items()}
    for half, batch in repos.items():
        others = set().union(*(r for h, r in repos.items() if h != half))
        assert not batch & others, half
    assert not set().union(*repos.values()) & HELD_BACK


def test_scoring_counts_a_toy_example():  # rows without a claim, as the shared truth-dev.jsonl has them
    rows = [
        {"path": "a.md", "line": 1, "verdict": "right"},
        {"path": "a.md", "line": 2, "verdict": "wrong"},
        {"path": "a.md", "line": 5, "from": 3, "verdict": "wrong"},
        {"path": "a.md", "line": 6, "verdict": "not_arithmetic"},
        {"path": "a.md", "line": 7, "verdict": "right"},
        {"path": "b.md", "line": 1, "verdict": "wrong"},
    ]
    findings = [
        bench.Finding("a.md", 1, "VK301", "x"),  # error on a right line: a false alarm
        bench.Finding("a.md", 2, "VK301", "x"),  # true
        bench.Finding("a.md", 4, "VK303", "x"),  # inside the span 3-5 of a wrong line: true
        bench.Finding("a.md", 6, "VK302", "x"),  # a warning on a not_arithmetic line
        bench.Finding("a.md", 9, "VK301", "x"),  # nobody judged line 9
        bench.Finding("a.md", 9, "VK501", "x"),  # not a claim code: ignored
        bench.Finding("c.md", 1, "VK301", "x"),  # not a judged file: ignored
    ]
    skips = [bench.Skip("a.md", 7, "expression is cut off")]
    verified = {("a.md", 1), ("a.md", 2), ("a.md", 4)}
    s = bench.score(rows, findings, skips, verified, ["b.md: OverflowError: x"])
    assert [len(s.true_errors), len(s.false_errors), len(s.unjudged_errors)] == [2, 1, 1]
    assert [len(s.true_warnings), len(s.false_warnings), len(s.unjudged_warnings)] == [0, 1, 0]
    assert (s.judged, s.claims, s.wrong_lines, s.wrong_found) == (6, 5, 3, 2)
    assert s.precision == pytest.approx(2 / 3)
    assert s.precision_unjudged_false == pytest.approx(2 / 4)
    assert s.recall == pytest.approx(2 / 3)
    assert s.skipped == Counter({"expression is cut off": 1, "not listed in --explain": 1})
    assert s.crashes == ["b.md: OverflowError: x"]


def test_a_finding_on_a_line_of_several_claims_is_the_one_its_numbers_name():
    rows = [  # one long line, a right claim and a wrong one (held6-en has such a line)
        {"path": "a.md", "line": 3, "claim": "3 * 40 = 120", "verdict": "right"},
        {"path": "a.md", "line": 3, "claim": "6 / 0.002 = 8000", "verdict": "wrong"},
    ]
    wrong = [bench.Finding("a.md", 3, "VK301", "6 / 0.002 = 3000, not 8000")]
    s = bench.score(rows, wrong, [], {("a.md", 3)})
    assert (len(s.true_errors), len(s.false_errors), s.wrong_found) == (1, 0, 1)
    right = [bench.Finding("a.md", 3, "VK301", "3 * 40 = 120 read as 3 * 40 GB")]
    s = bench.score(rows, right, [], {("a.md", 3)})
    assert (len(s.true_errors), len(s.false_errors), s.wrong_found) == (0, 1, 0)


def test_git_blob_is_gits():
    assert bench.git_blob(b"hello\n") == "ce013625030ba8dba906f756967f9e9ca394464a"


def test_bench_skips_cleanly_without_the_repositories(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.argv", ["bench", "--repos", str(tmp_path / "absent")])
    assert bench.main() == 0
    assert "nothing to score" in capsys.readouterr().out


def test_bench_reads_held3_from_its_own_folder(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(bench, "HALF_REPOS", {"held3": tmp_path / "ground3"})
    monkeypatch.setattr("sys.argv", ["bench", "--half", "held3"])
    assert bench.main() == 0
    assert f"no repositories at {tmp_path / 'ground3'}" in capsys.readouterr().out
