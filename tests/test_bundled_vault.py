"""The bundled vault is vaultkit's documentation and its showcase: it must stay clean."""

from __future__ import annotations

from pathlib import Path

from vaultkit.commands.check import run
from vaultkit.model.vault import Vault
from vaultkit.pipeline import Pipeline
from vaultkit.rules import RULES, with_codes_table

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


def test_codes_page_table_is_the_registry():
    page = (VAULT / "使用 vaultkit" / "09 诊断代码.md").read_text(encoding="utf-8")
    assert page == with_codes_table(page), "the codes table differs from vaultkit.rules: run python3 tasks.py"
    for rule in RULES:
        assert f"| `{rule.code}` |" in page and rule.title in page
