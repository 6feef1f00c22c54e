"""No false alarm: the walkthrough reader finds nothing to report in notes nobody wrote for it
(the real vault, the public study notes) nor in the bundled vault, whose KV-cache note it reads."""

from __future__ import annotations

from pathlib import Path

import pytest

from vaultkit.checks.walkthrough import check_markdown
from vaultkit.readers.markdown import parse

from .conftest import CORPUS, SHARED

PUBLIC = SHARED / "corpus" / "public"
BUNDLED = Path(__file__).resolve().parents[1] / "vault"


def findings(root: Path):
    out, verified = [], 0
    for path in sorted(root.rglob("*.md")):
        text = path.read_text(encoding="utf-8", errors="replace")
        report = check_markdown(text, parse(text), path.relative_to(root).as_posix())
        out += report.diagnostics
        verified += report.verified
    return out, verified


@pytest.mark.parametrize("root", [CORPUS, PUBLIC], ids=["vault146", "public"])
def test_no_finding_on_notes_nobody_wrote_for_it(root):
    if not root.is_dir():
        pytest.skip(f"{root} is absent (../shared is absent)")
    found, _ = findings(root)
    assert found == [], "\n".join(f"{d.path}:{d.line}: {d.code} {d.message}" for d in found)


def test_the_bundled_vault_reads_its_walkthroughs_and_is_silent():
    found, verified = findings(BUNDLED)
    assert found == []
    assert verified >= 8  # 08 KV Cache 逐步演算 states its cache step by step
