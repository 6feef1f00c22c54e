"""Generated figures: golden bytes, determinism, XML validity, the generated marker."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from vaultkit import engine
from vaultkit.figures import edited_by_hand, generated_hash, is_generated, render_figure, style
from vaultkit.numbers import fmt

GOLDEN = Path(__file__).parent / "golden" / "figures"
UPDATE = os.environ.get("VAULTKIT_UPDATE_GOLDEN") == "1"
TOKENS = ["今", "天", "下雨", "了"]


def inputs(seed: int, n: int, d: int, count: int = 3):
    rng = np.random.default_rng(seed)
    return [rng.normal(size=(n, d)).round(1) for _ in range(count)]


def cases() -> dict[str, str]:
    """Every golden figure, rendered from fixed inputs through the engine."""
    out = {}
    q, k, v = inputs(1, 4, 4)
    spec = {
        "id": "attn-4",
        "kind": "attention",
        "tokens": TOKENS,
        "digits": 2,
        "mask": "causal",
        "Q": q.tolist(),
        "K": k.tolist(),
    }
    out["attention-4x4"] = render_figure("attention", spec, engine.attention(q, k, causal=True))
    q, k, v = inputs(2, 16, 8)
    spec = {
        "id": "attn-16",
        "kind": "attention",
        "tokens": [f"w{i}" for i in range(16)],
        "digits": 2,
        "mask": "none",
        "Q": q.tolist(),
        "K": k.tolist(),
        "V": v.tolist(),
    }
    out["attention-16x16"] = render_figure("attention", spec, engine.attention(q, k, v))
    q, k, v = inputs(3, 4, 4)
    spec = {
        "id": "kv-4",
        "kind": "kv-cache",
        "tokens": TOKENS,
        "digits": 2,
        "prompt_len": 2,
        "Q": q.tolist(),
        "K": k.tolist(),
        "V": v.tolist(),
    }
    out["kv-cache-4"] = render_figure("kv-cache", spec, engine.kv_decode(q, k, v, prompt_len=2))
    q, k, v = inputs(4, 16, 4)
    spec = {"id": "kv-16", "kind": "kv-cache", "tokens": [], "digits": 2, "prompt_len": 6}
    out["kv-cache-16"] = render_figure("kv-cache", spec, engine.kv_decode(q, k, v, prompt_len=6))
    rng = np.random.default_rng(5)
    q, k, v = (rng.normal(size=(4, cols)).round(1) for cols in (16, 8, 8))
    spec = {
        "id": "gqa-8",
        "kind": "multihead",
        "tokens": TOKENS,
        "digits": 2,
        "heads": 8,
        "kv_heads": 4,
        "mask": "causal",
    }
    out["multihead-gqa"] = render_figure("multihead", spec, engine.multihead(q, k, v, heads=8, kv_heads=4, causal=True))
    rows = [
        {"name": "7B 模型", "variant": "MHA", "bytes_per_token": 524288, "dtype": "fp16"},
        {"name": "70B 模型", "variant": "GQA", "bytes_per_token": 327680, "dtype": "fp16"},
        {"name": "单 KV 头", "variant": "MQA", "bytes_per_token": 16384, "dtype": "fp16"},
        {"name": "潜在压缩", "variant": "MLA", "bytes_per_token": 70272, "dtype": "bf16"},
    ]
    out["kv-memory"] = render_figure("kv-memory", {"id": "mem", "kind": "kv-memory"}, rows)
    return out


@pytest.fixture(scope="module")
def rendered() -> dict[str, str]:
    return cases()


def test_golden_files(rendered):
    for name, svg in rendered.items():
        path = GOLDEN / f"{name}.svg"
        if UPDATE:
            path.write_text(svg, encoding="utf-8", newline="\n")
        assert path.read_text(encoding="utf-8") == svg, f"{name} differs from its golden file"


def test_bytes_do_not_depend_on_hash_seed(rendered):
    expected = hashlib.sha256("".join(rendered.values()).encode()).hexdigest()
    script = (
        f"import hashlib, runpy; ns = runpy.run_path({str(Path(__file__))!r}); "
        "print(hashlib.sha256(''.join(ns['cases']().values()).encode()).hexdigest())"
    )
    for seed in ("0", "4242"):
        env = dict(os.environ, PYTHONHASHSEED=seed)
        done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
        assert done.stdout.strip() == expected


def test_valid_xml_with_real_text(rendered):
    for name, svg in rendered.items():
        root = ET.fromstring(svg)
        assert root.tag == "{http://www.w3.org/2000/svg}svg"
        assert root.get("viewBox").startswith("0 0 680 ")
        assert svg.endswith("</svg>\n")
        texts = [t.text for t in root.iter("{http://www.w3.org/2000/svg}text")]
        assert len(texts) > 5, name


def test_attention_4x4_shows_every_number_and_the_mask(rendered):
    q, k, _ = inputs(1, 4, 4)
    result = engine.attention(q, k, causal=True)
    texts = re.findall(r">([^<]*)</text>", rendered["attention-4x4"])
    for i in range(4):
        for j in range(4):
            assert fmt(result.scores[i, j], 2) in texts
            if j <= i:
                assert fmt(result.weights[i, j], 2) in texts
    assert texts.count("×") == 2 * 6  # masked cells of the mask and weights panels
    assert rendered["attention-4x4"].count('fill="url(#vk-hatch)"') == 2 * 6
    i, j = 3, 0  # the worked cell: its dot product is written out term by term
    products = " + ".join(f"({fmt(q[i, t], 2)})×({fmt(k[j, t], 2)})" for t in range(4))
    assert products in texts


def test_large_heatmaps_drop_the_numbers(rendered):
    svg = rendered["attention-16x16"]
    assert svg.count("fill-opacity=") == 3 * 16 * 16 + 3 * 16 * 8  # every cell is drawn
    numbers = re.findall(r">-?\d+\.\d+</text>", svg)
    assert len(numbers) == 3 * 16 * 8  # Q, K (16×8) and the output keep their numbers; 16×16 not


def test_kv_cache_marks_reused_and_computed(rendered):
    svg = rendered["kv-cache-4"]
    assert svg.count('stroke="#854F0B" stroke-width="1"') == 1 + 2  # legend + one per step
    assert "max |Δ| ≤ 1e-12 ✓" in svg  # the bound, not BLAS-dependent float digits


def test_generated_marker_and_hash(rendered):
    svg = rendered["attention-4x4"]
    assert is_generated(svg)
    assert 'data-vk-id="attn-4"' in svg
    digest = generated_hash(svg)
    assert digest and re.fullmatch(r"[0-9a-f]{16}", digest)
    q, k, _ = inputs(1, 4, 4)
    q[0, 0] += 0.1
    spec = {
        "id": "attn-4",
        "kind": "attention",
        "tokens": TOKENS,
        "digits": 2,
        "mask": "causal",
        "Q": q.tolist(),
        "K": k.tolist(),
    }
    other = render_figure("attention", spec, engine.attention(q, k, causal=True))
    assert generated_hash(other) != digest
    assert not edited_by_hand(svg) and not edited_by_hand(other)  # the hash is the checksum of the rest
    assert edited_by_hand(svg.replace("<title>", "<title>mine: ", 1))
    plain = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 680 100"><text>x</text></svg>'
    assert not is_generated(plain) and generated_hash(plain) is None


def test_unknown_kind():
    with pytest.raises(ValueError):
        render_figure("sampling", {"id": "x"}, None)


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [
        (0.325, 2, "0.33"),
        (-0.325, 2, "-0.33"),
        (0.65 / 2, 2, "0.33"),
        (0.004, 2, "0.00"),
        (-0.004, 2, "0.00"),
        (1.0, 2, "1.00"),
        (-np.inf, 2, "−∞"),
        (2.5, 0, "3"),
    ],
)
def test_rounding_half_away_from_zero(value, digits, text):
    assert fmt(value, digits) == text


def test_a_generated_figure_edited_by_hand_is_told_from_a_stale_one(tmp_path):
    from vaultkit.commands.check import run
    from vaultkit.commands.fix import apply_changes

    block = "```vaultkit\nid: e1\nkind: attention\ntokens: [a, b]\nQ: [[1, 0], [0, 1]]\nK: [[1, 0], [0, 1]]\n"
    note = tmp_path / "n.md"
    note.write_text(f"# N\n\n{block}figure: e1.svg\n```\n", encoding="utf-8")
    apply_changes(run(tmp_path)[1])  # the region and the figure drawn
    assert run(tmp_path)[0].diagnostics == []
    figure = tmp_path / "e1.svg"
    drawn = figure.read_text(encoding="utf-8")

    figure.write_text(drawn.replace("<title>", "<title>mine: ", 1), encoding="utf-8")
    [d] = [d for d in run(tmp_path)[0].diagnostics if d.path == "e1.svg"]
    assert (d.code, d.line) == ("VK401", 1) and d.message.startswith(
        "figure e1.svg of example e1 was edited by hand (its data-vk-hash no longer matches); vaultkit fix redraws it"
    )

    figure.write_text(drawn, encoding="utf-8")
    note.write_text(note.read_text(encoding="utf-8").replace("[[1, 0], [0, 1]]", "[[1, 0], [0, 2]]", 1), "utf-8")
    stale = [d for d in run(tmp_path)[0].diagnostics if d.path == "e1.svg"]
    assert [(d.code, d.message) for d in stale] == [
        ("VK401", "figure e1.svg of example e1 is stale; vaultkit fix redraws it")
    ]


@given(st.text())
def test_figure_text_and_attributes_are_escaped_as_xml_saxutils_escapes_them(value):
    """Figures already drawn keep their bytes: the escaping is saxutils' (whose module vaultkit
    no longer imports), quotes, newlines and tabs in attributes included."""
    from xml.sax.saxutils import escape, quoteattr

    assert style.escape(value) == escape(value)
    assert style.quoteattr(value) == quoteattr(value)
