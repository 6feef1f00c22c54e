"""The bundled vault is vaultkit's documentation and its showcase: it must stay clean."""

from __future__ import annotations

import re
from pathlib import Path

from vaultkit.check import run
from vaultkit.diagnostics import CODES
from vaultkit.pipeline import Pipeline
from vaultkit.vault import Vault

VAULT = Path(__file__).resolve().parents[1] / "vault"


def test_bundled_vault_is_clean_and_verifies_a_lot():
    report, changes = run(VAULT)
    assert report.diagnostics == [], "\n".join(f"{d.path}:{d.line}: {d.code} {d.message}" for d in report.diagnostics)
    assert changes == [], [c.rel for c in changes]  # generated regions and figures are up to date
    s = report.summary
    assert s.examples >= 10 and s.figures >= 5 and s.values >= 30 and s.claims >= 30


def test_bundled_vault_runs_every_example_kind():
    runner = Pipeline(Vault.load(VAULT)).runner
    kinds = {example.kind for example in runner.examples.values() if example.id in runner.outcomes}
    assert kinds == {"attention", "multihead", "kv-cache", "kv-memory", "sampling"}


def test_diagnostic_codes_page_lists_every_code():
    page = (VAULT / "使用 vaultkit" / "09 诊断代码.md").read_text(encoding="utf-8")
    assert set(re.findall(r"VK\d{3}", page)) == set(CODES)
