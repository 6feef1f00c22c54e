"""The rule registry: every code declared once, listed in `vaultkit.rules`, and emitted by some input."""

from __future__ import annotations

import ast
import contextlib
import importlib
import io
import os
import re
import shutil
from pathlib import Path

import vaultkit
from vaultkit.commands.build import build_command
from vaultkit.commands.fix import apply_changes
from vaultkit.diagnostics import ERROR, WARNING, Rule
from vaultkit.model.vault import MAX_NOTE_BYTES, Vault
from vaultkit.pipeline import Pipeline
from vaultkit.rules import RULES

from .test_drawings_inferred import DOUBTFUL
from .test_textmatrices import RIGHT_ZH

PACKAGE = Path(vaultkit.__file__).parent
FIXTURES = Path(__file__).parent / "fixtures"
CODE_SHAPE = r"VK\d{3}"


def test_registry_lists_each_rule_once_in_code_order():
    codes = [rule.code for rule in RULES]
    assert codes == sorted(set(codes))
    for rule in RULES:
        assert rule.severity in (ERROR, WARNING) and rule.title and rule.message and rule.doc, rule.code


def test_the_codes_table_shows_each_rule_with_its_doc_as_written():
    """One row per rule, four cells: a `|` in a doc (`[[Note|alias]]`) is escaped, not a new cell."""
    from vaultkit.readers.markdown import parse
    from vaultkit.rules import codes_table

    tokens = parse(codes_table())
    cells = [token.content for token in tokens if token.type == "inline"]
    rows = [cells[i : i + 4] for i in range(0, len(cells), 4)]
    assert rows[0][3] == "说明（英文）" and len(cells) == 4 * (len(RULES) + 1)
    assert [(row[0], row[2], row[3]) for row in rows[1:]] == [(f"`{r.code}`", r.title, r.doc) for r in RULES]


def test_every_rule_declared_in_vaultkit_is_in_the_registry():
    declared = set()
    for path in sorted(PACKAGE.rglob("*.py")):
        name = ".".join(("vaultkit", *path.relative_to(PACKAGE).with_suffix("").parts)).removesuffix(".__init__")
        if name != "vaultkit.__main__":
            declared |= {(v.code, id(v)) for v in vars(importlib.import_module(name)).values() if isinstance(v, Rule)}
    assert sorted(declared) == sorted((rule.code, id(rule)) for rule in RULES)


def test_no_code_is_written_outside_its_rule():
    """A code string (`"VK501"`) appears only as the first argument of its `Rule(...)`."""
    strays = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        declarations = {
            id(node.args[0])
            for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", "") == "Rule" and node.args
        }
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in declarations:
                if re.fullmatch(CODE_SHAPE, node.value.strip()):
                    strays.append(f"{path.relative_to(PACKAGE)}:{node.lineno}: {node.value}")
    assert strays == []


def _write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, data in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data.encode("utf-8") if isinstance(data, str) else data)
    return root


def _example(body: str) -> str:
    return f"# E\n\n```vaultkit\n{body}```\n"


ATTENTION = "id: {id}\nkind: attention\ntokens: [a, b]\nQ: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\n"

# One small input per rule that the fixtures under tests/fixtures do not already show.
SAMPLES = {
    "gbk.md": "中文".encode("gbk"),  # VK001
    "nul.md": b"abc\0def",  # VK002
    "Case.md": "# a\n",  # VK006 with case.md
    "case.md": "# b\n",
    "not-mapping.md": "---\n- a\n---\n",  # VK011
    "types.md": "---\naliases: {a: 1}\n---\n",  # VK012
    ".obsidian/app.json": "{not json",  # VK013
    "orphan.md": "# O\n\n<!-- vaultkit:begin gone -->\nold\n<!-- vaultkit:end gone -->\n",  # VK104
    "no-region.md": _example(ATTENTION.format(id="no-region")),  # VK102
    "stale.md": _example(ATTENTION.format(id="stale"))
    + "\n<!-- vaultkit:begin stale -->\nold\n<!-- vaultkit:end stale -->\n",
    "yaml.md": _example("id: [\n"),  # VK110
    "kind.md": _example("id: k\nkind: nope\n"),  # VK111
    "key.md": _example(ATTENTION.format(id="key") + "colour: red\n"),  # VK112
    "missing.md": _example("id: m\nkind: attention\n"),  # VK113
    "malformed.md": _example("id: bad\nkind: attention\ntokens: [a]\nseed: x\nd_model: 2\nd_head: 2\n"),  # VK114
    "shapes.md": _example("id: s\nkind: attention\nQ: [[1, 2]]\nK: [[1, 2, 3]]\n"),  # VK115
    "limit.md": _example("id: l\nkind: attention\ntokens: [a]\nseed: 1\nd_model: 100000\n"),  # VK116
    "z-dup.md": _example(ATTENTION.format(id="stale")),  # VK117 (notes are read in path order)
    "overflow.md": _example("id: o\nkind: attention\nQ: [[1e200, 1e200]]\nK: [[1e200, 1e200]]\n"),  # VK118
    "values.md": "# V\n\n0.1 %%=stale.weights[0][0]%% 1 %%=nobody.x%% 1 %%=stale.nothing%% %%=stale.weights[0][0]%%\n",
    "claims.md": "# C\n\n2 × 3 = 7\n\n1000 / 3 = 340\n\nX(8, 512) × W(256, 64) → Q(8, 64)\n\n`6*5*4 / 2*2 = 30`\n",  # VK301-VK304
    "figures.md": _example(ATTENTION.format(id="fig-missing") + "figure: figs/none.svg\n")
    + _example(ATTENTION.format(id="fig-out") + "figure: ../out.svg\n")
    + _example(ATTENTION.format(id="fig-dir") + "figure: dir.svg\n"),  # VK401, VK405, VK406
    "doubt.svg": DOUBTFUL.format(s00="0.22", caption="(mask applied)"),  # VK403
    "matrices.md": RIGHT_ZH.replace("[ 0.16  0.42  0.42 ]", "[ 0.16  0.42  0.52 ]").replace(
        "  坐  [ 0    2    2 ]", "  坐  [ 0    2    1 ]"
    ),  # VK420, VK421
    "illustrative.md": "e.g. the attention weights for illustration:\n\n```\n  a [ 0.5  0.4  0.4 ]\n```\n",  # VK422
    "by-position.md": RIGHT_ZH.split("权重")[0] + "权重 = Softmax(分数 / √d_k)：\n  [ 0.60  0.20  0.20 ]\n```\n",
    "numbers.svg": "<svg xmlns='http://www.w3.org/2000/svg'>\n"
    + "".join(
        f"<text x='20' y='{20 + 20 * i}'>{line}</text>\n"
        for i, line in enumerate(
            [
                "Q(16,6,64) K(16,6,64) V(16,6,32)",  # VK440
                "Head 1 (dim=64)",
                "Scores = QK^T / √16",  # VK442
                "输入 6 个 token",
                "Step 1:",
                "Q_new × K^T → Score(1,9)",  # VK441
                "2×(1024→1024) = 3M",  # VK443
                "每层 0.5x",
                "1.0 → 0.5 → 0.35 → 0.125",  # VK444
                "5 + 3 = 8",
                "不必再算出 9",  # VK445
                "[0.50 0.30 0.10]",  # VK446
                "每行加起来 = 1",
                "KV per layer: 2 × 8 × 128 × 2 B = 8 KB",  # VK447
            ]
        )
    )
    + "</svg>\n",
    "promise.md": "Some text. The result is shown in the figure below.\n\n## Next\n",  # VK436
    "links.md": "# L\n\n![[no-such.png]] [[../../out]] [[draft]]\n",  # VK506, VK507, VK508
    "draft.md": "---\npublish: false\n---\n# D\n",
}


def test_every_registered_rule_is_emitted_by_a_fixture_or_a_sample(tmp_path):
    emitted = set()
    for vault in sorted((FIXTURES / "obsidian").glob("*/vault")):
        emitted |= {d.code for d in Pipeline(Vault.load(vault)).report()[0].diagnostics}
    drawings = tmp_path / "drawings"
    drawings.mkdir()
    for path in [*(FIXTURES / "handdrawn").glob("*.svg"), *(FIXTURES / "walkthrough").glob("*.md")]:
        shutil.copy(path, drawings / path.name)
    emitted |= {d.code for d in Pipeline(Vault.load(drawings)).report()[0].diagnostics}

    samples = _write(tmp_path / "samples", SAMPLES)
    (samples / "dir.svg").mkdir()
    (samples / "huge.md").write_bytes(b"x" * (MAX_NOTE_BYTES + 1))  # VK003
    os.symlink("/nonexistent", samples / "dangling.md")  # VK005
    report, changes = Pipeline(Vault.load(samples)).report()
    emitted |= {d.code for d in report.diagnostics}
    stale = next(c for c in changes if c.rel == "stale.md")
    stale.path.write_text("edited meanwhile\n", encoding="utf-8")
    emitted |= {d.code for d in apply_changes([stale])[1]}  # VK004

    site = _write(
        tmp_path / "site",
        {"mkdocs.yml": "site_name: x\ndocs_dir: notes\ntheme:\n  name: nosuchtheme\n", "notes/a.md": "# A\n"},
    )
    emitted |= _codes_printed_by(lambda: build_command(site / "notes", None, False))  # VK601

    assert [rule.code for rule in RULES if rule.code not in emitted] == [], sorted(emitted)


def _codes_printed_by(command) -> set[str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        command()
    return set(re.findall(rf": ({CODE_SHAPE}) (?:error|warning): ", out.getvalue()))
