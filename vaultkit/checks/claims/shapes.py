"""Matrix shape claims: `(S, d) × (d, d_ff) → (S, d_ff)`, `(4, 64)ᵀ = (64, 4)`, `(S, 4096) → (S, 32, 128)`.

A shape is a parenthesised list of at least two dimensions, each a whole number or a name,
optionally named (`X(4, 512)`) and transposed (`ᵀ`, `^T`, `.T`). A product `A × B` (or `A @ B`)
multiplies the last two dimensions as matrices and keeps the leading (batch) ones. A single
shape followed by one of another rank is a head split or merge: the same names, and the same
product of the numbers; one of the same rank, a transpose or a permutation. Only what every
shape gives is checked: a factor without a written shape (`Q × Kᵀ → (1, 7)`) or dimensions
that may or may not be equal (`d` against `d_model`, a name against a number) are skipped
with the reason; an arrow between two other shapes of one rank is a layer, not shape algebra.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

_DIM = r"(?:\d+|[A-Za-z_][A-Za-z0-9_]*)"
_SHAPE = rf"(?:(?<![A-Za-z0-9_])[A-Za-z_][A-Za-z0-9_]*)?\(\s*{_DIM}(?:\s*,\s*{_DIM})+\s*\)(?:ᵀ|\^T|\^\{{T\}}|\.T(?![A-Za-z0-9_]))?"
_SHAPE_RE = re.compile(_SHAPE)
_TIMES_TEXT = r"\s*[×@]\s*"
_TIMES = re.compile(_TIMES_TEXT)
_RELATION = re.compile(r"(?:→|->|=)\s*\Z")  # right before a written result
MAX_FACTORS = 8
_FACTOR_WITHOUT_SHAPE = re.compile(
    rf"[A-Za-z_]\w*(?:ᵀ|\^T|\.T)?{_TIMES_TEXT}\S|\S{_TIMES_TEXT}[A-Za-z_]\w*(?:ᵀ|\^T|\.T)?\s*$"
)

Shape = tuple[str, ...]


@dataclass
class ShapeClaim:
    start: int  # offsets in the line
    end: int
    written_start: int
    written: str
    computed: str | None  # None: skipped
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.computed == self.written


def _parse(text: str) -> Shape:
    inside = text[text.index("(") + 1 : text.rindex(")")]
    dims = tuple(dim.strip() for dim in inside.split(","))
    transposed = text.endswith(("ᵀ", "^T", "^{T}", ".T"))
    return dims[:-2] + (dims[-1], dims[-2]) if transposed else dims


def _show(shape: Shape) -> str:
    return "(" + ", ".join(shape) + ")"


class _Unknown(Exception):
    """The shapes do not say whether two dimensions are equal."""


def _same(a: str, b: str) -> bool:
    if a == b:
        return True
    if a.isdigit() and b.isdigit():
        return int(a) == int(b)
    raise _Unknown(f"cannot tell whether {a} and {b} are equal")


def _product(a: Shape, b: Shape) -> Shape:
    if len(a) < 2 or len(b) < 2:
        raise _Unknown("a factor is not a matrix")
    if not _same(a[-1], b[-2]):
        raise ValueError(f"inner dimensions {a[-1]} and {b[-2]} differ")
    batch_a, batch_b = a[:-2], b[:-2]
    if batch_a and batch_b and (len(batch_a) != len(batch_b) or not all(map(_same, batch_a, batch_b))):
        raise _Unknown("batch dimensions differ")
    return (batch_a or batch_b) + (a[-2], b[-1])


def _split(source: Shape, target: Shape) -> Shape:
    """A head split or merge: `target` if it holds the same names and the same product of numbers."""

    def names(shape: Shape) -> list[str]:
        return sorted(d for d in shape if not d.isdigit())

    def number(shape: Shape) -> int:
        return math.prod(int(d) for d in shape if d.isdigit())

    if names(source) != names(target):
        raise _Unknown("the names differ: not a plain reshape")
    if number(source) != number(target):
        raise ValueError(f"{number(source)} elements per name, written {number(target)}")
    return target


def _compute(factors: list[Shape], written: Shape) -> Shape:
    if len(factors) == 1:
        if len(factors[0]) == len(written):
            return written  # a transpose or a permutation (other arrows of one rank are not read)
        return _split(factors[0], written)
    result = factors[0]
    for factor in factors[1:]:
        result = _product(result, factor)
    known = {dim for factor in factors for dim in factor}
    for got, want in zip(result, written):
        if got.isdigit() != want.isdigit() or not want.isdigit() and want not in known:
            raise _Unknown(f"cannot tell whether {got} and {want} are equal")
    return result


def _matches(result: Shape, written: Shape) -> bool:
    """Same rank, the same numbers and the same names (a name of the factors is one thing)."""
    return len(result) == len(written) and all(
        a == b or (a.isdigit() and b.isdigit() and int(a) == int(b)) for a, b in zip(result, written)
    )


def _first_factor(shapes: list[re.Match], last: int, line: str) -> int:
    """Index of the first of the shapes multiplied together (`A × B @ C`) that end with `last`."""
    first = last
    while (
        first > 0
        and last - first < MAX_FACTORS - 1
        and _TIMES.fullmatch(line, shapes[first - 1].end(), shapes[first].start())
    ):
        first -= 1
    return first


def check_shapes(line: str) -> list[ShapeClaim]:
    """Every shape claim in a line, checked or skipped with the reason."""
    if "(" not in line or "," not in line or not ("→" in line or "=" in line or "->" in line):
        return []
    shapes = list(_SHAPE_RE.finditer(line))
    claims: list[ShapeClaim] = []
    for k, shape in enumerate(shapes):
        relation = _RELATION.search(line, max(0, shape.start() - 8), shape.start())
        if relation is None:
            continue
        at, written = relation.start(), _parse(shape.group())
        if k == 0 or line[shapes[k - 1].end() : at].strip():
            before = line[max(0, at - 80) : at]
            if _FACTOR_WITHOUT_SHAPE.search(before):
                start = at - len(before.lstrip())
                claims.append(
                    ShapeClaim(start, shape.end(), shape.start(), _show(written), None, "a factor has no written shape")
                )
            continue
        first = _first_factor(shapes, k - 1, line)
        factors = [_parse(factor.group()) for factor in shapes[first:k]]
        if len(factors) == 1 and len(factors[0]) == len(written) and sorted(factors[0]) != sorted(written):
            continue  # `(4, 4096) → (4, 32000)`: a layer, `(0,1) = (a,a)`: a pair, no shape algebra
        claim = ShapeClaim(shapes[first].start(), shape.end(), shape.start(), _show(written), None)
        try:
            result = _compute(factors, written)
            claim.computed = _show(written) if _matches(result, written) else _show(result)
        except _Unknown as exc:
            claim.reason = str(exc)
        except ValueError as exc:
            claim.computed = f"no such shape: {exc}"
        claims.append(claim)
    return claims
