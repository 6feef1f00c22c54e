"""Finding ```vaultkit blocks in a note and reading them into example specs.

A block is YAML (safe_load, no aliases). Nothing in it is ever executed; each kind validates
its own keys. Every problem is a diagnostic at the line of the key that caused it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import yaml

from vaultkit.diagnostics import ERROR, Diagnostic, Rule
from vaultkit.model.vault import safe_load

ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_-]*$")
COMMON_KEYS = frozenset({"id", "kind", "title", "digits", "figure"})
MAX_BLOCK_CHARS = 200_000
_TOP_KEY = re.compile(r"^([A-Za-z_][\w-]*)\s*:")
_WRITTEN_ID = re.compile(r"^id:\s*['\"]?([A-Za-z0-9][A-Za-z0-9_-]*)", re.M)  # the id of a block YAML cannot read


EXAMPLE_YAML = Rule(
    "VK110",
    ERROR,
    "example is not valid YAML",
    "example is not valid YAML: {problem}",
    "A `vaultkit` block is YAML; fix it where the message points (an unclosed bracket: where it opens).",
)
UNKNOWN_KEY = Rule(
    "VK112",
    ERROR,
    "example has an unknown key",
    "example {example}: {problem}",
    "Each kind accepts its own keys; the message lists them (a typo is the usual cause).",
)
MISSING_KEY = Rule(
    "VK113",
    ERROR,
    "example is missing a required key",
    "example {example}: {problem}",
    "Every block needs an id and a kind, and each kind its inputs (or a seed to draw them from).",
)
MALFORMED = Rule(
    "VK114",
    ERROR,
    "example value is malformed",
    "example {example}: {problem}",
    "A value of the wrong type or out of range; the message says what the key takes.",
)
SHAPE_MISMATCH = Rule(
    "VK115",
    ERROR,
    "example shapes do not match",
    "example {example}: {problem}",
    "Matrices, tokens and stated weights must agree in size (one row per token, one value row per key).",
)
OVER_LIMIT = Rule(
    "VK116",
    ERROR,
    "example is over the size limit",
    "example {example}: {problem}",
    "Examples are bounded in size and work, so a note cannot make vaultkit run for long.",
)


class ExampleError(Exception):
    """A problem with one example: the rule it breaks and what exactly; `key` says which line to point at."""

    def __init__(self, rule: Rule, message: str, key: str | None = None):
        super().__init__(message)
        self.rule = rule
        self.message = message
        self.key = key


@dataclass
class Example:
    rel: str  # note that holds it
    id: str
    kind: str
    spec: dict  # the block's mapping, as written
    line: int  # line of the opening fence (1-based)
    end_line: int  # line of the closing fence (1-based; = last line when unclosed)
    key_lines: dict[str, int] = field(default_factory=dict)
    params: object = None  # the kind's validated inputs
    digits: int = 2

    def line_of(self, key: str | None) -> int:
        return self.key_lines.get(key, self.line + 1) if key else self.line

    def error(self, exc: ExampleError) -> Diagnostic:
        return exc.rule.at(self.rel, self.line_of(exc.key), 1, example=self.id, problem=exc.message)


@dataclass
class Outcome:
    """What running an example gives."""

    result: object  # the engine result, handed to the figure renderer
    fields: dict  # what inline values can reach: name -> array | number | list | dict
    quantities: dict = field(default_factory=dict)  # what a hand-drawn figure may show


def vaultkit_fences(tokens) -> list[tuple[int, int, str]]:
    """(first line index, end line index exclusive, content) of each ```vaultkit fence."""
    out = []
    for tok in tokens:
        if tok.type == "fence" and tok.info.strip().split(" ")[0] == "vaultkit" and tok.map:
            out.append((tok.map[0], tok.map[1], tok.content))
    return out


def _key_lines(content: str, first_line: int) -> dict[str, int]:
    lines = {}
    for offset, text in enumerate(content.split("\n")):
        match = _TOP_KEY.match(text)
        if match and match.group(1) not in lines:
            lines[match.group(1)] = first_line + offset
    return lines


def _yaml_error(exc: yaml.YAMLError, content: str, first_line: int) -> tuple[int, int, str]:
    """Line, column and message of a YAML error in a block whose content starts at `first_line`.

    An unclosed `[` or `{` is only noticed lines later; it is reported where it was opened."""
    problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
    mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
    opened = getattr(exc, "context_mark", None)
    context = getattr(exc, "context", None) or ""
    last = max(content.rstrip("\n").count("\n"), 0)  # errors at end of input point at the last line
    if opened is not None and context.startswith("while parsing a flow") and mark is not None:
        bracket = "[" if "sequence" in context else "{"
        closer = "]" if bracket == "[" else "}"
        noticed = first_line + min(mark.line, last)
        return (
            first_line + opened.line,
            opened.column + 1,
            f"the {bracket!r} here is never closed; add the missing {closer!r} "
            f"(the YAML parser only noticed at line {noticed})",
        )
    at = first_line + (min(mark.line, last) if mark else 0)
    return at, (mark.column + 1) if mark else 1, problem


def read_examples(rel: str, tokens) -> tuple[list[Example], list[Diagnostic], set[str]]:
    """Parse every vaultkit block of a note into an Example (kind validation comes later).

    Also gives the ids written in blocks that could not be read, so that the regions and
    inline values of such a block are not reported a second time."""
    examples, diags, unreadable = [], [], set()
    for start, end, content in vaultkit_fences(tokens):
        line = start + 1
        if len(content) > MAX_BLOCK_CHARS:
            problem = f"{len(content)} characters, over the {MAX_BLOCK_CHARS} limit"
            diags.append(OVER_LIMIT.at(rel, line, 1, example="block", problem=problem))
            unreadable.update(_WRITTEN_ID.findall(content))
            continue
        try:
            spec = safe_load(content, exponent_floats=True)
        except yaml.YAMLError as exc:
            at, col, problem = _yaml_error(exc, content, line + 1)
            diags.append(EXAMPLE_YAML.at(rel, at, col, problem=problem))
            unreadable.update(_WRITTEN_ID.findall(content))
            continue
        except RecursionError:
            diags.append(EXAMPLE_YAML.at(rel, line, 1, problem="nested too deeply"))
            unreadable.update(_WRITTEN_ID.findall(content))
            continue
        key_lines = _key_lines(content, line + 1)
        if not isinstance(spec, dict):
            problem = "must be a YAML mapping of keys to values"
            diags.append(MALFORMED.at(rel, line, 1, example="block", problem=problem))
            continue
        ex_id, kind = spec.get("id"), spec.get("kind")
        if not isinstance(ex_id, str) or not ID_RE.match(ex_id):
            at = key_lines.get("id", line)
            if ex_id is None:
                diags.append(MISSING_KEY.at(rel, at, 1, example="block", problem="missing required key 'id'"))
            else:
                problem = f"id {ex_id!r} must be letters, digits, - and _"
                diags.append(MALFORMED.at(rel, at, 1, example="block", problem=problem))
            continue
        if kind is None:
            diags.append(MISSING_KEY.at(rel, line, 1, example=ex_id, problem="missing required key 'kind'"))
            unreadable.add(ex_id)
            continue
        examples.append(
            Example(rel=rel, id=ex_id, kind=str(kind), spec=spec, line=line, end_line=end, key_lines=key_lines)
        )
    return examples, diags, unreadable
