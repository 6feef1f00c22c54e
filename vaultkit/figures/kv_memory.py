"""KV-memory comparison: bytes of KV cache per token, one bar per model or variant."""

from __future__ import annotations

from vaultkit.figures import style as s

COLORS = {
    "MHA": (s.PURPLE_LIGHT, s.PURPLE),
    "GQA": (s.BLUE_LIGHT, s.BLUE),
    "MQA": (s.AMBER_LIGHT, s.AMBER),
    "MLA": (s.GREEN_LIGHT, s.GREEN),
}
BAR_LEFT = 200
BAR_MAX = 330


def binary_size(n: float) -> str:
    """Bytes in binary units (KiB, MiB, GiB), at most three significant digits."""
    if n < 1024:
        return f"{int(n)} B"
    for unit in ("KiB", "MiB", "GiB"):
        n /= 1024
        if n < 1024:
            return f"{n:.3g} {unit}"
    return f"{n / 1024:.3g} TiB"


def render(spec: dict, rows: list[dict]) -> str:
    title = spec.get("title") or f"每个 token 的 KV Cache 大小 · {spec.get('id', '')}"
    body = [s.text(340, 24, title, "th")]
    largest = max((float(r["bytes_per_token"]) for r in rows), default=0.0)
    y = 44.0
    for row in rows:
        size = float(row["bytes_per_token"])
        fill, stroke = COLORS.get(str(row.get("variant", "")).upper(), (s.SAND, s.GREY))
        length = max(2.0, BAR_MAX * size / largest) if largest > 0 else 2.0
        body += [
            s.text(BAR_LEFT - 10, y + 12, str(row.get("name", "")), "tb", "end"),
            s.text(BAR_LEFT - 10, y + 24, f"{row.get('variant', '')} · {row.get('dtype', '')}", "tc", "end"),
            s.rect(BAR_LEFT, y + 2, length, 24, fill, stroke, rx=4),
            s.text(BAR_LEFT + length + 8, y + 13, f"{int(size):,} B/token", "tv", "start"),
            s.text(BAR_LEFT + length + 8, y + 25, f"= {binary_size(size)}", "tc", "start"),
        ]
        if size < largest and length > 40:
            body.append(s.text(BAR_LEFT + length - 4, y + 18, f"{size / largest:.0%}", "tc", "end"))
        y += 34
    body.append(
        s.text(
            340, y + 14, f"vaultkit 生成 · {spec.get('id', '')} · 条长 ∝ 每 token 字节数；百分比相对最大的一行", "tc"
        )
    )
    desc = "各模型/变体每个 token 的 KV Cache 字节数（K 和 V，所有层）"
    return s.document(spec, "kv-memory", y + 28, title, desc, body)
