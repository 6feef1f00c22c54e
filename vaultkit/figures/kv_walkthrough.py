"""A walkthrough's decode steps as the note states them: per step, which K/V come from the
cache and which are computed, and the attention weights as written ("示意" where assumed)."""

from __future__ import annotations

from vaultkit.figures import style as s

LEFT = 168  # x where the position columns start
RIGHT = 604  # x where they end (the 示意 tag sits beyond)
STEP_H = 74


def kv_cell(x: float, y: float, w: float, label: str, kind: str) -> list[str]:
    """One K or V of one position: reused from the cache (blue), computed now (amber), not yet (dashed)."""
    if kind == "reused":
        box = s.rect(x + 1, y, w - 2, 14, s.BLUE_LIGHT, s.BLUE, rx=2)
    elif kind == "computed":
        box = s.rect(x + 1, y, w - 2, 14, s.AMBER_LIGHT, s.AMBER, rx=2, stroke_width=1)
    else:
        box = s.rect(x + 1, y, w - 2, 14, "none", s.SAND_EDGE, rx=2, stroke_dasharray="2 2")
    out = [box]
    if w >= 18 and kind != "future":
        out.append(s.text(x + w / 2, y + 10, label, "tp" if kind == "reused" else "tv"))
    return out


def tag(x: float, y: float, label: str) -> list[str]:
    return [s.rect(x, y, 40, 16, s.AMBER_LIGHT, s.AMBER_EDGE, rx=8), s.text(x + 20, y + 11.5, label, "tc")]


def render(spec: dict, result) -> str:
    tokens = list(result.tokens)
    n = len(tokens)
    cell_w = min(64.0, (RIGHT - LEFT) / n)
    title = spec.get("title") or f"KV Cache 逐步解码（示意）· {spec.get('id', '')}"
    body = [s.text(340, 24, title, "th")]
    legend = [("reused", "从 KV Cache 复用"), ("computed", "本步新算，写入缓存"), ("future", "尚未生成")]
    for k, (kind, label) in enumerate(legend):
        body += kv_cell(150 + k * 150, 36, 22, "", kind)
        body.append(s.text(178 + k * 150, 47, label, "tc", "start"))

    y = 62.0
    steps = [step for step in result.steps if step.computed]
    for number, step in enumerate(steps, start=1):
        t = step.position
        prefill = len(step.computed) > 1
        body.append(s.rect(20, y, 640, STEP_H - 8, "#ffffff", s.AMBER_EDGE, rx=6, stroke_width=0.3))
        head = f"第 {number} 步 · " + (f"一次处理 {tokens[0]}…{tokens[t]}" if prefill else f"处理「{tokens[t]}」")
        body.append(s.text(30, y + 18, head, "tb", "start"))
        body.append(s.text(30, y + 33, f"q 对 {len(step.reused)} 个缓存的 K/V", "tc", "start"))
        body.append(s.text(30, y + 47, f"+ {len(step.computed)} 个新算的 K/V", "tc", "start"))
        for pos in range(n):
            x = LEFT + pos * cell_w
            if cell_w >= 14 or pos % 4 == 0:
                body.append(s.text(x + cell_w / 2, y + 12, tokens[pos], "tc"))
            kind = "reused" if pos in step.reused else "computed" if pos in step.computed else "future"
            half = cell_w / 2
            body += kv_cell(x, y + 16, half, "K", kind)
            body += kv_cell(x + half, y + 16, half, "V", kind)
        wy = y + 36
        if step.shares is None:
            width = (t + 1) * cell_w
            body.append(s.rect(LEFT + 1, wy, width - 2, 18, s.SAND, s.SAND_EDGE, rx=2, stroke_dasharray="2 2"))
            body.append(s.text(LEFT + width / 2, wy + 12.5, "笔记未给出权重", "tc"))
        else:
            for share in step.shares:
                first, last = min(share.positions), max(share.positions)
                x = LEFT + first * cell_w
                width = (last - first + 1) * cell_w
                color, opacity = s.heat_fill(share.percent, 100.0, False)
                body.append(s.rect(x + 1, wy, width - 2, 18, color, rx=2, fill_opacity=opacity))
                label = f"{share.percent:g}%"
                if len(share.positions) > 1:
                    label += "（合计）" if width >= 70 else ""
                cls = "tw" if float(opacity) > 0.55 else "tv"
                if width >= len(label) * 5.6 + 2:
                    body.append(s.text(x + width / 2, wy + 12.5, label, cls))
            if step.assumed and result.illustrative:
                body += tag(RIGHT + 8, wy + 1, "示意")
        y += STEP_H

    proj = result.projections
    summary = (
        f"K/V 只为新 token 计算：有缓存共 {proj['with_cache']} 次，不用缓存每步重算前缀共 {proj['without_cache']} 次"
    )
    body.append(s.rect(110, y + 2, 460, 30, s.INK, rx=10))
    body.append(s.text(340, y + 21, summary, "tw"))
    body.append(
        s.text(
            340,
            y + 50,
            f"vaultkit 生成 · {spec.get('id', '')} · 下排色块 = 笔记写的注意力权重（示意，不是算出来的）",
            "tc",
        )
    )
    desc = "每步只为新 token 计算 K/V，其余从缓存复用；权重照笔记所写，标“示意”的是假设的数值"
    return s.document(spec, "kv-cache", y + 64, title, desc, body)
