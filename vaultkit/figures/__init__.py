"""SVG figures: the diagrams vaultkit draws of examples, and the marks that tell them apart. A pure
function of the numbers (it imports only `vaultkit.numbers`), on the ground floor: the check that
compares a figure with its drawing and the fix that writes it both use it."""

from __future__ import annotations

import re

from vaultkit.figures import attention, kv_cache, kv_memory, kv_walkthrough, multihead
from vaultkit.figures.style import checksum

RENDERERS = {
    "attention": attention.render,
    "kv-cache": kv_cache.render,
    "multihead": multihead.render,
    "kv-memory": kv_memory.render,
}

_ROOT = re.compile(r"<svg\b[^>]*>", re.S)
_HASH = re.compile(r'\bdata-vk-hash="([0-9a-f]+)"')


def render_figure(kind: str, spec: dict, result) -> str:
    """The complete SVG text for an example (deterministic; ends with a newline)."""
    try:
        renderer = RENDERERS[kind]
    except KeyError:
        raise ValueError(f"no figure for kind {kind!r}") from None
    if kind == "kv-cache" and getattr(result, "illustrative", False):
        renderer = kv_walkthrough.render  # weights as a note states them, not computed
    return renderer(spec, result)


def is_generated(svg_text: str) -> bool:
    """True when the root <svg> carries vaultkit's generated marker."""
    root = _ROOT.search(svg_text)
    return bool(root and 'data-vaultkit="generated"' in root.group(0))


def generated_hash(svg_text: str) -> str | None:
    """The input hash a generated figure was drawn from, or None for other SVGs."""
    if not is_generated(svg_text):
        return None
    found = _HASH.search(_ROOT.search(svg_text).group(0))
    return found.group(1) if found else None


def edited_by_hand(svg_text: str) -> bool:
    """Whether a generated figure was changed after vaultkit drew it: its `data-vk-hash` is not
    the checksum of the rest of its text (False when it carries no hash)."""
    stored = generated_hash(svg_text)
    return stored is not None and checksum(svg_text.replace(f' data-vk-hash="{stored}"', "", 1)) != stored
