"""The claims checker on the person's real vault (skipped when the corpus is absent)."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultkit.claims import ClaimReport, check_markdown, check_svg

VAULT = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "vault146"
KNOWLEDGE = "07-Knowledge/llm-training/"


@pytest.fixture(scope="module")
def report() -> ClaimReport:
    if not VAULT.is_dir():
        pytest.skip(f"real vault not found at {VAULT}")
    total = ClaimReport()
    for path in sorted(VAULT.rglob("*")):
        if path.suffix not in (".md", ".svg"):
            continue
        rel = path.relative_to(VAULT).as_posix()
        text = path.read_text(encoding="utf-8-sig").replace("\r\n", "\n")
        total.add(check_markdown(text, rel) if path.suffix == ".md" else check_svg(text, rel))
    return total


def test_no_false_alarm_at_error_level(report):
    """Every claim in the vault was judged by hand: none is wrong by more than 5 %."""
    assert [d for d in report.diagnostics if d.code == "VK301"] == []


def test_the_sloppy_square_is_a_warning(report):
    """The n² attention-matrix line rounds 1677.7 万 down to 1600 万: imprecise, not wrong."""
    warnings = [(d.path, d.line) for d in report.diagnostics if d.code == "VK302"]
    assert warnings == [(KNOWLEDGE + "Transformer 架构基础.md", 191)]


def test_claims_are_verified(report):
    assert report.verified >= 100
    assert report.skipped > 0


def test_correct_lines_verified_without_diagnostics(report):
    """Lines judged correct by hand (KV cache per token, memory per dtype, training time)."""
    flagged = {(d.path, d.line) for d in report.diagnostics}
    for path, line in [
        (KNOWLEDGE + "LLM 训练与推理流程.md", 608),
        (KNOWLEDGE + "LLM 训练与推理流程.md", 239),
        (KNOWLEDGE + "显存计算详解.md", 68),
        (KNOWLEDGE + "显存计算详解.md", 119),
    ]:
        assert (path, line) not in flagged
