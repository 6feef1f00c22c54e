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
    assert "VK301" not in codes  # no false alarm at error level on arithmetic
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
    wrong = {(d["message"].split(" ")[0]) for d in figure if d["code"] == "VK402"}
    scores = {w for w in wrong if w.startswith("scores[")}
    assert len(scores) == 15 and "scores[1][2]" not in scores  # only Scores[1][2] = −0.10 is right
    assert sum(w.startswith("scaled[") for w in wrong) == 15
    assert sum(w.startswith("weights[") for w in wrong) == 16  # the "causal mask" step is not masked
    assert not any(w.startswith(("Q[", "K[")) for w in wrong)
    assert all(d["code"] == "VK402" for d in figure)  # nothing uncertain
    first = next(d for d in figure if d["message"].startswith("scores[0][0]"))
    assert (first["written"], first["computed"]) == ("0.35", "0.04")

    assert vaultkit("fix", str(tmp_path)).returncode == 0
    fixed = (tmp_path / DRAWING).read_bytes()
    changed = [i for i, (a, b) in enumerate(zip(original.split(b"\n"), fixed.split(b"\n"))) if a != b]
    assert len(original.split(b"\n")) == len(fixed.split(b"\n"))
    assert len(changed) == 12  # the four rows of scores, scaled and weights; every other line as it was
    assert vaultkit("check", str(tmp_path)).returncode == 0
