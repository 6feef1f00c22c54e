"""Acceptance on the seed note: the KV-cache walkthrough the person wrote, copied as it is into
a temporary vault. Its steps check (no error), its missing figure is one warning; `fix --adopt`
writes the block and the embed, `fix` draws the figure, then check is clean and fix is idle."""

from __future__ import annotations

import re
import shutil

import pytest

from vaultkit.commands.cli import main
from vaultkit.figures import is_generated

from .conftest import SHARED

SEED = SHARED / "seeds" / "003_0c1c04f7201c9555.txt"

pytestmark = pytest.mark.skipif(not SEED.is_file(), reason=f"the seed note is not at {SEED} (../shared is absent)")


def files(root):
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()}


def test_the_seed_walkthrough_checks_then_gets_its_figure(tmp_path, capsys):
    root = tmp_path / "vault"
    root.mkdir()
    note = root / "KV Cache 笔记.md"
    shutil.copyfile(SEED, note)

    assert main(["check", "--explain", str(root)]) == 0
    out = capsys.readouterr().out
    assert re.search(r"walkthrough ok: 6 steps over 我、想、买、苹果、手机, \d+ statements read, 0 wrong", out)
    assert out.count("mask picture of") == 2 and "walkthrough ok: 4 generation rounds" in out
    warnings = [line for line in out.splitlines() if ": VK" in line]
    assert len(warnings) == 1 and ":94:" in warnings[0] and "VK436" in warnings[0]
    assert "nothing was verified" not in out and "0 errors, 1 warning" in out

    assert main(["fix", "--adopt", str(root)]) == 0
    text = note.read_text(encoding="utf-8")
    assert text.startswith(SEED.read_text(encoding="utf-8").rstrip("\n"))  # the person's text untouched
    block = re.search(r"```vaultkit\n(.*?)```", text, re.S).group(1)
    assert "kind: kv-cache" in block and "illustrative: true" in block
    assert "tokens: [我, 想, 买, 苹果, 手机]" in block
    assert "  - {我/想: 5%, 买: 15%, 苹果: 45%, 手机: 35%}" in block and "  - null" in block
    embed = re.search(r"!\[\[(assets/[^|\]]+\.svg)\|680\]\]", text)
    assert embed and text.index("如下图") < text.index("```vaultkit") < embed.start()
    svg = (root / embed.group(1)).read_text(encoding="utf-8")
    assert is_generated(svg) and "示意" in svg and "45%" in svg

    capsys.readouterr()
    assert main(["fix", str(root)]) == 0
    assert main(["check", str(root)]) == 0
    out = capsys.readouterr().out
    assert "0 errors, 0 warnings" in out.splitlines()[-1]
    before = files(root)
    assert main(["fix", str(root)]) == 0
    assert files(root) == before
