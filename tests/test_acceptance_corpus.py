"""End to end on the person's real vault and drawing (skipped when ../shared is absent).

Everything that writes works on a copy in a temporary folder; nothing is copied into the repo.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

from .conftest import CORPUS, needs_corpus

DRAWING = "assets/注意力矩阵推导.svg"
NOTE = """# 注意力推导

```vaultkit
id: drawing
kind: attention
tokens: [我, 爱, 吃, 苹果]
Q: [[0.5, 0.3, -0.2, 0.8], [0.1, -0.4, 0.7, 0.2], [-0.3, 0.6, 0.1, -0.5], [0.7, -0.1, -0.3, 0.4]]
K: [[0.3, -0.5, 0.2, 0.1], [-0.2, 0.6, 0.2, -0.3], [0.4, -0.1, -0.4, 0.5], [0.1, 0.3, 0.6, -0.2]]
mask: causal
digits: 2
figure: assets/注意力矩阵推导.svg
```

![[assets/注意力矩阵推导.svg|680]]
"""


def vaultkit(*args: str):
    return subprocess.run([sys.executable, "-m", "vaultkit", *args], capture_output=True, text=True, timeout=120)


@needs_corpus
def test_check_on_the_real_vault_reports_exactly_the_broken_links():
    run = vaultkit("check", str(CORPUS), "--format", "json")
    assert run.returncode == 1
    data = json.loads(run.stdout)
    summary = data["summary"]
    assert summary["notes"] == 146 and summary["links"] >= 623
    codes = [d["code"] for d in data["diagnostics"]]
    assert codes.count("VK501") == 15  # notes and folders that are not in the vault
    assert codes.count("VK502") == 23  # wrong ../ depth, unique file name: fixable
    wrong_claims = [(d["path"], d["line"]) for d in data["diagnostics"] if d["code"] == "VK301"]
    # no false alarm on arithmetic: the one error is the wrong derivation (134 MB for 67 MB)
    assert wrong_claims == [("07-Knowledge/llm-training/大模型架构对比.md", 288)]
    for d in data["diagnostics"]:
        assert set(d) >= {"path", "line", "col", "code", "severity", "message"}


@needs_corpus
def test_fix_on_a_copy_of_the_real_vault_repairs_link_paths_and_is_idempotent(tmp_path):
    root = tmp_path / "vault146"
    shutil.copytree(CORPUS, root)
    assert vaultkit("fix", str(root)).returncode == 1  # the 15 missing targets remain
    after = json.loads(vaultkit("check", str(root), "--format", "json").stdout)
    codes = [d["code"] for d in after["diagnostics"]]
    assert "VK502" not in codes and codes.count("VK501") == 15
    snapshot = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    vaultkit("fix", str(root))
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == snapshot


@needs_corpus
def test_hand_drawn_attention_figure_is_checked_and_patched_in_place(tmp_path):
    (tmp_path / "assets").mkdir()
    shutil.copy(CORPUS / DRAWING, tmp_path / DRAWING)
    (tmp_path / "推导.md").write_text(NOTE, encoding="utf-8")
    original = (tmp_path / DRAWING).read_bytes()

    run = vaultkit("check", str(tmp_path), "--format", "json")
    assert run.returncode == 1
    figure = [d for d in json.loads(run.stdout)["diagnostics"] if d["path"] == DRAWING]
    assert all(d["code"] == "VK402" for d in figure)  # nothing uncertain
    rows = [d["message"].split(" ")[0] for d in figure]
    assert rows == [f"{q}[{i}]" for q in ("scores", "scaled", "weights") for i in range(4)]
    counts = [d["message"].split("(")[1].split(" wrong")[0] for d in figure]
    assert counts[:8] == ["4 of 4", "3 of 4", "4 of 4", "4 of 4"] * 2  # Scores[1][2] = −0.10 is right
    assert (figure[0]["written"], figure[0]["computed"]) == ("[0.35 -0.18 -0.25 0.15]", "[0.04 -0.20 0.65 -0.14]")
    assert figure[8]["computed"] == "[1.00 0.00 0.00 0.00]"  # the causal mask the drawing names

    assert vaultkit("fix", str(tmp_path)).returncode == 0
    fixed = (tmp_path / DRAWING).read_bytes()
    changed = [i for i, (a, b) in enumerate(zip(original.split(b"\n"), fixed.split(b"\n"))) if a != b]
    assert len(original.split(b"\n")) == len(fixed.split(b"\n"))
    assert len(changed) == 12  # the four rows of scores, scaled and weights; every other line as it was
    assert vaultkit("check", str(tmp_path)).returncode == 0


@needs_corpus
def test_the_real_drawing_is_checked_with_nothing_annotated(tmp_path):
    """A fresh copy of the vault, no file changed: the wrong rows are named, fixed, and then clean."""
    root = tmp_path / "vault146"
    shutil.copytree(CORPUS, root)
    original = (root / DRAWING).read_text(encoding="utf-8")
    data = json.loads(vaultkit("check", str(root), "--format", "json").stdout)
    figure = [d for d in data["diagnostics"] if d["path"] == DRAWING]
    assert [(d["code"], d["line"], d["message"].split(" ")[0]) for d in figure] == [
        ("VK402", line, f"{q}[{i}]")
        for q, first in (("scores", 83), ("scaled", 96), ("weights", 109))
        for i, line in enumerate(range(first, first + 4))
    ]
    assert "causal mask" in figure[8]["message"] and "Causal Mask" in figure[8]["message"]
    assert data["summary"]["figures"] == 7  # this one, and six whose stated numbers are read (drawings.numbers)
    drawings = [d for d in data["diagnostics"] if d["path"] != DRAWING and not d["code"].startswith("VK42")]
    assert not any(d["code"].startswith("VK4") for d in drawings)  # VK42x: text matrices, see test_textmatrices

    vaultkit("fix", str(root))
    fixed = (root / DRAWING).read_text(encoding="utf-8")
    changed = [n + 1 for n, (a, b) in enumerate(zip(original.split("\n"), fixed.split("\n"))) if a != b]
    assert changed == [*range(83, 87), *range(96, 100), *range(109, 113)]
    assert len(original) == len(fixed)  # columns keep their width; every other byte as it was
    after = json.loads(vaultkit("check", str(root), "--format", "json").stdout)
    assert not [d for d in after["diagnostics"] if d["path"] == DRAWING]
