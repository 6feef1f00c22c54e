"""The attention derivation: Q, K → Q·Kᵀ → ÷√d → mask → softmax → weights (→ × V)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from vaultkit.figures import style as s

PANEL_W = 310
MAX_TERMS = 6  # a worked dot product longer than this is elided in the middle


@dataclass
class Panel:
    title: str
    fill: str
    stroke: str
    values: object
    masked: object = None
    highlight: tuple | None = None
    signed: bool = True
    cols: list[str] | None = None


def labels(tokens: list[str], n: int) -> list[str]:
    return [tokens[i] if i < len(tokens) else str(i) for i in range(n)]


def input_matrix(spec: dict, result, name: str):
    """An input matrix from the example (Q, K, V), or from the result when it carries it."""
    value = spec.get(name, getattr(result, name.lower(), None))
    return None if value is None else np.asarray(value, dtype=float)


def panel(
    x: float,
    y: float,
    title: str,
    fill: str,
    stroke: str,
    values,
    digits: int,
    *,
    rows,
    cols,
    signed=True,
    masked=None,
    highlight=None,
) -> tuple[list[str], float]:
    """A card holding one matrix; returns (elements, card height)."""
    grid, grid_h = s.matrix(
        x + 12,
        y + 32,
        PANEL_W - 24,
        values,
        digits,
        rows=rows,
        cols=cols,
        signed=signed,
        masked=masked,
        highlight=highlight,
    )
    height = grid_h + 44
    return s.card(x, y, PANEL_W, height, title, fill, stroke) + grid, height


def worked_cell(n: int) -> tuple[int, int]:
    """The cell whose dot product is written out: last query, first key (never masked)."""
    return n - 1, 0


def dot_product_lines(q_row, k_row, score: float, digits: int) -> list[str]:
    """`(a)×(b) + …` and `= p + … = s`, elided in the middle past MAX_TERMS terms."""
    terms = list(range(len(q_row)))
    if len(terms) > MAX_TERMS:
        terms = terms[:3] + [None] + terms[-1:]
    factors, products = [], []
    for t in terms:
        if t is None:
            factors.append("…")
            products.append("…")
            continue
        factors.append(f"({s.fmt(q_row[t], digits)})×({s.fmt(k_row[t], digits)})")
        product = s.fmt(q_row[t] * k_row[t], digits)
        products.append(f"({product})" if product.startswith("-") and t else product)
    return [" + ".join(factors), "= " + " + ".join(products) + f" = {s.fmt(score, digits)}"]


def render(spec: dict, result) -> str:
    digits = int(spec.get("digits", 2))
    scores = np.asarray(result.scores, dtype=float)
    n, m = scores.shape
    tokens = list(spec.get("tokens") or [])
    q_labels, k_labels = labels(tokens, n), labels(tokens[-m:] if len(tokens) >= m else tokens, m)
    q, k, v = (input_matrix(spec, result, name) for name in ("Q", "K", "V"))
    title = spec.get("title") or f"注意力矩阵推导 · {spec.get('id', '')}"
    body = [s.text(340, 24, title, "th")]
    y = 40.0

    if q is not None and k is not None:
        dims = [f"d{t}" for t in range(q.shape[1])]
        left, h1 = panel(
            20,
            y,
            f"Q 矩阵 ({n} token × {q.shape[1]} dim)",
            s.PURPLE_LIGHT,
            s.PURPLE,
            q,
            digits,
            rows=q_labels,
            cols=dims,
        )
        right, h2 = panel(
            350, y, f"K 矩阵 ({m} token × {k.shape[1]} dim)", s.BLUE_LIGHT, s.BLUE, k, digits, rows=k_labels, cols=dims
        )
        body += left + right
        y += max(h1, h2) + 10
        i, j = worked_cell(n)
        products, total = dot_product_lines(q[i], k[j], scores[i, j], digits)
        body += [
            s.rect(20, y, 640, 64, s.SAND, s.SAND_EDGE, rx=8),
            s.text(340, y + 17, f"以 Scores[{i}][{j}] 为例：「{q_labels[i]}」的 Q · 「{k_labels[j]}」的 K", "tb"),
            s.text(340, y + 35, products, "tp"),
            s.text(340, y + 52, total, "tp"),
        ]
        y += 74
    highlight = worked_cell(n) if q is not None and k is not None else None

    masked = np.isneginf(np.asarray(result.masked, dtype=float))
    scale = float(result.scale)
    d = round(1 / scale**2) if scale > 0 else 0
    if d and math.isclose(scale, 1 / math.sqrt(d)):
        root = math.sqrt(d)
        root_text = str(int(root)) if root.is_integer() else s.fmt(root, digits)
        scale_title = f"② 缩放 ÷√d（√{d} = {root_text}）"
    else:
        scale_title = f"② 缩放 × {s.fmt(scale, max(digits, 3))}"
    weights_step = "④" if masked.any() else "③"
    panels = [
        Panel("① 原始分数 Scores = Q·Kᵀ", s.SAND, s.SAND_EDGE, scores, highlight=highlight),
        Panel(scale_title, s.AMBER_LIGHT, s.AMBER_EDGE, result.scaled),
    ]
    if masked.any():
        panels.append(
            Panel(
                "③ 因果掩码：被遮住的位置 = −∞",
                s.AMBER_LIGHT,
                s.AMBER_EDGE,
                np.where(masked, 0.0, result.scaled),
                masked=masked,
            )
        )
    panels.append(
        Panel(
            f"{weights_step} Softmax → 注意力权重（每行和 = 1）",
            s.GREEN_LIGHT,
            s.GREEN,
            result.weights,
            masked=masked if masked.any() else None,
            signed=False,
        )
    )
    if getattr(result, "output", None) is not None and v is not None:
        out = np.asarray(result.output, dtype=float)
        panels.append(Panel("输出 = 权重 × V", s.BLUE_LIGHT, s.BLUE, out, cols=[f"d{t}" for t in range(out.shape[1])]))

    for row in range(0, len(panels), 2):
        heights = []
        for col, p in enumerate(panels[row : row + 2]):
            elements, height = panel(
                20 + col * 330,
                y,
                p.title,
                p.fill,
                p.stroke,
                p.values,
                digits,
                rows=q_labels,
                cols=p.cols or k_labels,
                signed=p.signed,
                masked=p.masked,
                highlight=p.highlight,
            )
            body += elements
            heights.append(height)
        if row + 1 < len(panels):
            body.append(s.line(332, y + heights[0] / 2, 348, y + heights[0] / 2, s.GREY, 1, True))
        y += max(heights) + 12

    note = "被遮住的位置（斜线）权重为 0" if masked.any() else "没有掩码：每个 token 看全部 token"
    body.append(s.text(340, y + 10, f"vaultkit 生成 · {spec.get('id', '')} · {note}", "tc"))
    desc = "Q·Kᵀ → ÷√d → mask → softmax → 注意力权重，数值由 vaultkit 计算"
    return s.document(spec, "attention", y + 24, title, desc, body)
