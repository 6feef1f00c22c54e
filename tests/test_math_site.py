"""Math on the site: MathML at build time with the TeX kept, KaTeX shipped offline when found."""

from __future__ import annotations

from tests.test_site import render
from vaultkit.commands.build import build_command
from vaultkit.renderers.site.math import block_math, inline_math


def test_display_math_sharing_a_line_with_words_is_inline_display_math():
    out = render("> [!note] 公式\n> 总量是 $$\\frac{a}{b}$$ 字节。\n")
    assert '总量是 <span class="vk-math-inline" data-tex="\\displaystyle \\frac{a}{b}"><math' in out


def test_display_math_alone_on_its_line_stays_a_block():
    out = render("> [!note] 公式\n> $$\\left(\\frac{a}{b}\\right)$$\n")
    assert '<div class="vk-math" data-tex="\\left(\\frac{a}{b}\\right)"><math' in out and "displaystyle" not in out


def test_mathml_keeps_the_tex_for_katex():
    assert inline_math("a < b").startswith('<span class="vk-math-inline" data-tex="a &lt; b"><math')
    block = block_math("\\sqrt{d}")
    assert block.startswith('<div class="vk-math" data-tex="\\sqrt{d}"><math') and "<msqrt>" in block


def make_katex(folder):
    (folder / "fonts").mkdir(parents=True)
    (folder / "katex.min.js").write_text("window.katex = {render() {}};")
    (folder / "katex.min.css").write_text("@font-face { src: url(fonts/KaTeX_Main-Regular.woff2) }")
    (folder / "fonts" / "KaTeX_Main-Regular.woff2").write_bytes(b"wOF2")
    (folder / "fonts" / "KaTeX_Main-Regular.ttf").write_bytes(b"ttf")


def test_katex_is_shipped_when_found_and_formulas_stay_mathml_without_it(tmp_path, monkeypatch):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\n$$\n\\left(\\frac{a}{b}\\right)\n$$\n", encoding="utf-8")
    monkeypatch.delenv("VAULTKIT_KATEX_DIR", raising=False)
    monkeypatch.chdir(tmp_path)  # with no mkdocs.yml, KaTeX is looked for from the working folder up
    assert build_command(vault, str(tmp_path / "plain"), strict=True) == 0
    page = (tmp_path / "plain" / "a" / "index.html").read_text(encoding="utf-8")
    assert "<math" in page and "katex" not in page and 'src="../assets/vaultkit/vaultkit.js"' in page
    make_katex(tmp_path / "node_modules" / "katex" / "dist")
    assert build_command(vault, str(tmp_path / "with"), strict=True) == 0
    site = tmp_path / "with"
    page = (site / "a" / "index.html").read_text(encoding="utf-8")
    assert 'src="../assets/vaultkit/katex/katex.min.js"' in page and 'src="../assets/vaultkit/vaultkit.js"' in page
    assert 'href="../assets/vaultkit/katex/katex.min.css"' in page and "<math" in page
    assert (site / "assets/vaultkit/katex/fonts/KaTeX_Main-Regular.woff2").is_file()
    assert not (site / "assets/vaultkit/katex/fonts/KaTeX_Main-Regular.ttf").exists()


def test_a_wrong_katex_dir_fails_a_strict_build(tmp_path, monkeypatch, capsys):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n", encoding="utf-8")
    monkeypatch.setenv("VAULTKIT_KATEX_DIR", str(tmp_path / "nowhere"))
    assert build_command(vault, str(tmp_path / "site"), strict=True) == 1
    assert "VK601 error: site build failed: Aborted with 1 warnings in strict mode" in capsys.readouterr().out


def test_an_escaped_underscore_in_text_shows_as_an_underscore_in_mathml():
    out = inline_math("\\text{kv\\_heads} \\times \\text{R\\&D}")
    assert "<mtext>kv_heads</mtext>" in out and "<mtext>R&amp;D</mtext>" in out and "\\_" not in out.split("<math")[1]
    assert 'data-tex="\\text{kv\\_heads} \\times \\text{R\\&amp;D}"' in out  # KaTeX reads \_ as TeX does
