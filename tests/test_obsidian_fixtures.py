"""One small vault per Obsidian rule (tests/fixtures/obsidian/<rule>/), run through every
consumer: `check` must report exactly the diagnostics listed in its expected.yaml, `fix` must
change exactly the files listed (to text containing what is listed), and the built site must
show what Obsidian shows. Each expected.yaml says, under `obsidian`, what Obsidian does."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from vaultkit.commands.build import build_command
from vaultkit.diagnostics import text_line
from vaultkit.model.vault import Vault
from vaultkit.pipeline import Pipeline

FIXTURES = Path(__file__).parent / "fixtures" / "obsidian"
RULES = sorted(p.name for p in FIXTURES.iterdir() if (p / "expected.yaml").is_file())


def expected(rule: str) -> dict:
    return yaml.safe_load((FIXTURES / rule / "expected.yaml").read_text(encoding="utf-8"))


def page_html(site: Path, rel: str) -> Path:
    if rel.lower() in ("index.md", "readme.md", "home.md"):  # the vault's home note: the site's root page
        return site / "index.html"
    return site / rel[:-3] / "index.html"


def article(site: Path, rel: str) -> str:
    """The page's own content (not the navigation, which links every page)."""
    html = page_html(site, rel).read_text(encoding="utf-8")
    return html[html.index("<article") : html.index("</article>")]


def test_every_rule_has_a_fixture():
    assert {
        "block-id-own-line",
        "block-id-missing",
        "self-section-embed",
        "excluded-files",
        "templates-folder",
        "link-format-shortest",
        "link-format-relative",
        "link-format-absolute",
        "attachment-folder",
        "ambiguous-name",
        "alias-link",
        "closest-heading",
        "front-matter-quotes",
        "heading-anchors",
    } <= set(RULES)
    for rule in RULES:
        assert expected(rule)["obsidian"].strip(), rule


@pytest.mark.parametrize("rule", RULES)
def test_check_reports_what_the_fixture_lists(rule):
    report, _ = Pipeline(Vault.load(FIXTURES / rule / "vault")).report()
    found = dict(_key_and_words(text_line(d)) for d in report.diagnostics)  # as `check` prints them
    wanted = dict(map(_key_and_words, expected(rule)["check"]))
    assert sorted(found) == sorted(wanted), found
    for key, words in wanted.items():
        assert words in found[key], (key, found[key])


def _key_and_words(line: str) -> tuple[str, str]:
    """`path:line:col: CODE severity:` and the message (or, listed, words of it) of a diagnostic line."""
    where, code, severity, words = line.split(" ", 3)
    return f"{where} {code} {severity}", words


@pytest.mark.parametrize("rule", RULES)
def test_fix_writes_what_the_fixture_lists(rule, tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURES / rule / "vault", vault)
    _, changes = Pipeline(Vault.load(vault)).report()
    written = {change.rel: change.new.decode("utf-8") for change in changes}
    wanted = expected(rule)["fix"]
    assert sorted(written) == sorted(wanted)
    for rel, text in wanted.items():
        assert text in written[rel], written[rel]
    for change in changes:
        change.path.write_bytes(change.new)
    assert Pipeline(Vault.load(vault)).report()[1] == []  # a second fix changes nothing


@pytest.mark.parametrize("rule", RULES)
def test_site_shows_what_obsidian_shows(rule, tmp_path):
    vault = tmp_path / "vault"
    shutil.copytree(FIXTURES / rule / "vault", vault)
    site = tmp_path / "site"
    assert build_command(vault, str(site), strict=False) == 0
    for rel, want in expected(rule)["site"].items():
        if rel == "no_page":
            for gone in want:
                assert not page_html(site, gone).exists(), gone
                assert gone[:-3] not in (site / "sitemap.xml").read_text(encoding="utf-8")
            continue
        if rel == "no_file":
            for gone in want:
                assert not (site / gone).exists(), gone
            continue
        if rel == "leaks":  # text of unpublished files, in no file of the site
            for path in site.rglob("*"):
                if path.is_file():
                    data = path.read_bytes()
                    assert not any(text.encode() in data for text in want), path
            continue
        html = article(site, rel)
        for text in want.get("contains", ()):
            assert text in html, (rel, text)
        for text in want.get("absent", ()):
            assert text not in html, (rel, text)
    assert not list(site.rglob(".obsidian"))
