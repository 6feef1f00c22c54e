"""KV-cache decode steps: each new query against the cached K/V, and its weights."""

from __future__ import annotations

import numpy as np

from vaultkit.figures import style as s
from vaultkit.figures.attention import labels

LEFT = 150  # x where the position strips start
STRIP_W = 495


def status_cell(x: float, y: float, w: float, kind: str) -> str:
    """One position of the cache: reused (blue), computed this step (amber), not yet (dashed)."""
    if kind == "reused":
        return s.rect(x + 1, y, w - 2, 12, s.BLUE_LIGHT, s.BLUE, rx=2)
    if kind == "computed":
        return s.rect(x + 1, y, w - 2, 12, s.AMBER_LIGHT, s.AMBER, rx=2, stroke_width=1)
    return s.rect(x + 1, y, w - 2, 12, "none", s.SAND_EDGE, rx=2, stroke_dasharray="2 2")


def render(spec: dict, result) -> str:
    digits = int(spec.get("digits", 2))
    steps = list(result.steps)
    total = max(max(step.computed) for step in steps) + 1
    names = labels(list(spec.get("tokens") or []), total)
    cell_w = min(46.0, STRIP_W / total)
    show_numbers = cell_w >= (digits + 3) * 5.6 + 4
    title = spec.get("title") or f"KV Cache 逐步解码 · {spec.get('id', '')}"
    body = [s.text(340, 24, title, "th")]

    legend = [("reused", "从 KV Cache 复用"), ("computed", "本步新算并写入缓存"), ("future", "尚未生成")]
    for n, (kind, label) in enumerate(legend):
        body.append(status_cell(150 + n * 150, 36, 22, kind))
        body.append(s.text(178 + n * 150, 46, label, "tc", "start"))

    prefill = steps[0]
    weights = np.asarray(prefill.weights, dtype=float)
    p = weights.shape[0]
    y = 60.0
    grid, grid_h = s.matrix(
        LEFT,
        y + 32,
        min(STRIP_W, 36 + p * cell_w),
        weights,
        digits,
        rows=names[:p],
        cols=names[:p],
        signed=False,
        masked=~np.tri(p, dtype=bool),
        max_cell=cell_w,
    )
    height = max(grid_h + 44, 80)
    body += [
        s.rect(20, y, 640, height, s.BLUE_LIGHT, s.BLUE_EDGE, rx=8),
        s.text(30, y + 17, (f"Prefill：位置 0–{p - 1} 一次算完" if p > 1 else "Prefill：位置 0"), "tb", "start"),
        s.text(30, y + 33, "K/V 全部写入缓存", "tc", "start"),
        s.text(30, y + 47, "因果权重矩阵 →", "tc", "start"),
    ] + grid
    y += height + 10

    for step in steps[1:]:
        t = step.position
        w = np.asarray(step.weights, dtype=float)
        body += [
            s.rect(20, y, 640, 58, "#ffffff", s.AMBER_EDGE, rx=6, stroke_width=0.3),
            s.text(30, y + 18, f"第 {t - p + 1} 步 · 位置 {t}", "tb", "start"),
            s.text(30, y + 33, f"新 token「{names[t]}」的 q", "tc", "start"),
            s.text(30, y + 47, f"对 {len(step.reused)} 个缓存 + {len(step.computed)} 个新 K/V", "tc", "start"),
        ]
        for pos in range(total):
            x = LEFT + pos * cell_w
            if cell_w >= 14 or pos % 4 == 0:
                body.append(s.text(x + cell_w / 2, y + 12, names[pos], "tc"))
            kind = "reused" if pos in step.reused else "computed" if pos in step.computed else "future"
            body.append(status_cell(x, y + 16, cell_w, kind))
            if pos < len(w):
                color, opacity = s.heat_fill(w[pos], 1.0, False)
                body.append(s.rect(x + 1, y + 31, cell_w - 2, 16, color, rx=2, fill_opacity=opacity))
                if show_numbers:
                    cls = "tw" if float(opacity) > 0.55 else "tv"
                    body.append(s.text(x + cell_w / 2, y + 42, s.fmt(w[pos], digits), cls))
        y += 66

    # The bound, not the float itself: its last bits may differ between BLAS builds.
    verdict = "≤ 1e-12 ✓" if result.max_abs_diff <= 1e-12 else f"= {float(result.max_abs_diff):.1e} ✗"
    proof = f"逐步解码的输出 = 完整因果注意力的输出：max |Δ| {verdict}"
    body.append(s.rect(140, y + 4, 400, 30, s.INK, rx=10))
    body.append(s.text(340, y + 23, proof, "tw"))
    body.append(s.text(340, y + 52, f"vaultkit 生成 · {spec.get('id', '')} · 下排色块 = 注意力权重", "tc"))
    desc = "Prefill 后每步只为新 token 计算 K/V，其余从缓存复用；每步的权重覆盖位置 0..t"
    return s.document(spec, "kv-cache", y + 66, title, desc, body)
