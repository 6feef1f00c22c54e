"""Multi-head attention head mapping: MHA, GQA and MQA side by side, then each head's weights."""

from __future__ import annotations

import numpy as np

from vaultkit.figures import style as s
from vaultkit.figures.attention import labels

MAX_HEAD_PANELS = 8


def configurations(heads: int, kv_heads: int) -> list[int]:
    """KV-head counts to compare: all heads (MHA), the example's, a middle group size, one (MQA)."""
    divisors = [d for d in range(2, heads) if heads % d == 0]
    middle = divisors[len(divisors) // 2] if divisors else None
    counts = {heads, kv_heads, 1} | ({middle} if middle and kv_heads in (1, heads) else set())
    return sorted(counts, reverse=True)


def variant(heads: int, kv_heads: int) -> str:
    return "MHA" if kv_heads == heads else "MQA" if kv_heads == 1 else "GQA"


def mapping_panel(x: float, y: float, w: float, heads: int, kv_heads: int, chosen: bool) -> list[str]:
    """Query heads on top, KV heads below, each query head joined to KV head h // group."""
    group = heads // kv_heads
    out = [
        s.rect(
            x,
            y,
            w,
            132,
            s.PURPLE_LIGHT if chosen else "#ffffff",
            s.PURPLE if chosen else s.SAND_EDGE,
            rx=8,
            stroke_width=1 if chosen else 0.5,
        ),
        s.text(x + w / 2, y + 17, f"{variant(heads, kv_heads)} · {heads} 个 Q 头 / {kv_heads} 个 KV 头", "tb"),
    ]
    slot = (w - 20) / heads
    box = min(26.0, slot - 2)
    left = x + 10 + (slot - box) / 2
    for h in range(heads):
        hx = left + h * slot
        kv = h // group
        kv_center = x + 10 + (kv * group + group / 2) * slot
        out.append(s.line(hx + box / 2, y + 46, kv_center, y + 82, s.PURPLE_EDGE, 0.8))
        out.append(s.rect(hx, y + 30, box, 16, s.PURPLE_LIGHT, s.PURPLE, rx=3))
        if box >= 16:
            out.append(s.text(hx + box / 2, y + 41, f"q{h}", "tv"))
    for kv in range(kv_heads):
        kx = x + 10 + kv * group * slot + 1
        kw = group * slot - 2
        out.append(s.rect(kx, y + 82, kw, 16, s.BLUE_LIGHT, s.BLUE, rx=3))
        if kw >= 22:
            out.append(s.text(kx + kw / 2, y + 93, f"kv{kv}", "tv"))
    share = f"每 {group} 个 Q 头共享 1 组 K/V" if group > 1 else "每个 Q 头有自己的 K/V"
    out.append(s.text(x + w / 2, y + 112, share, "tc"))
    out.append(s.text(x + w / 2, y + 125, f"KV Cache = MHA 的 {kv_heads}/{heads}", "tc"))
    if chosen:
        out.append(s.text(x + w - 8, y + 125, "本例", "tb", "end", fill=s.PURPLE))
    return out


def render(spec: dict, result) -> str:
    digits = int(spec.get("digits", 2))
    heads = len(result.heads)
    kv_map = list(result.kv_map)
    kv_heads = max(kv_map) + 1
    title = spec.get("title") or f"多头注意力的头映射 · {spec.get('id', '')}"
    body = [s.text(340, 24, title, "th")]

    counts = configurations(heads, kv_heads)
    width = (640 - 10 * (len(counts) - 1)) / len(counts)
    for n, count in enumerate(counts):
        body += mapping_panel(20 + n * (width + 10), 40, width, heads, count, count == kv_heads)

    y = 196.0
    body.append(s.text(340, y, f"本例每个头的注意力权重（q 头 h 用 kv 头 h // {heads // kv_heads}）", "th"))
    y += 12
    shown = result.heads[:MAX_HEAD_PANELS]
    n_tokens = np.asarray(shown[0].weights).shape[0]
    names = labels(list(spec.get("tokens") or []), n_tokens)
    per_row = 4 if n_tokens <= 4 or len(shown) > 2 else 2
    panel_w = (640 - 10 * (per_row - 1)) / per_row
    for row in range(0, len(shown), per_row):
        heights = []
        for col, head in enumerate(shown[row : row + per_row]):
            h = row + col
            x = 20 + col * (panel_w + 10)
            weights = np.asarray(head.weights, dtype=float)
            masked = np.isneginf(np.asarray(head.masked, dtype=float))
            grid, grid_h = s.matrix(
                x + 8,
                y + 32,
                panel_w - 16,
                weights,
                digits,
                rows=names,
                cols=names,
                signed=False,
                masked=masked if masked.any() else None,
            )
            height = grid_h + 42
            body += s.card(x, y, panel_w, height, f"q 头 {h} → kv 头 {kv_map[h]}", s.GREEN_LIGHT, s.GREEN) + grid
            heights.append(height)
        y += max(heights) + 10
    if heads > len(shown):
        body.append(s.text(340, y + 8, f"… 共 {heads} 个头，只画出前 {len(shown)} 个", "tc"))
        y += 16
    body.append(s.text(340, y + 10, f"vaultkit 生成 · {spec.get('id', '')}", "tc"))
    desc = "MHA、GQA、MQA 中 Q 头到 KV 头的映射，以及本例每个头的注意力权重"
    return s.document(spec, "multihead", y + 24, title, desc, body)
