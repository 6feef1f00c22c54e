"""Running the examples of a vault and bringing a note's generated parts up to date.

`ExampleRunner.collect` reads and runs every example of the vault (outcomes cached by the hash
of their inputs, so a watcher re-runs only what changed); `ExampleRunner.process` is the pure
text → text step for one note: generated regions and inline values, with diagnostics.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from vaultkit.checks.examples.regions import find_regions, region_after, render_region
from vaultkit.checks.examples.spec import OVER_LIMIT, Example, ExampleError, Outcome, read_examples
from vaultkit.checks.examples.values import PathError, find_bindings, resolve, split_path
from vaultkit.diagnostics import ERROR, Diagnostic, Rule
from vaultkit.numbers import rewrite_like, written_matches

PRESENTATION_KEYS = ("id", "title", "figure", "digits")

REGION_STALE = Rule(
    "VK101",
    ERROR,
    "generated region is stale or was edited by hand",
    "generated region of example {example} {problem}",
    "A generated region no longer shows what its example computes; `vaultkit fix` rewrites it.",
)
REGION_MISSING = Rule(
    "VK102",
    ERROR,
    "generated region is missing",
    "example {example} has no generated region; vaultkit fix writes it",
    "Each example is followed by the region vaultkit writes its results into; `vaultkit fix` adds it.",
)
REGION_ORPHAN = Rule(
    "VK104",
    ERROR,
    "generated region has no matching example",
    "generated region {region} does not follow a vaultkit block with that id",
    "A region whose block was deleted or renamed; delete the region or restore the block above it.",
)
UNKNOWN_KIND = Rule(
    "VK111",
    ERROR,
    "example kind is unknown",
    "example {example}: unknown kind {kind!r} (known: {known})",
    "The block's `kind:` must be one vaultkit can compute; the message lists them.",
)
DUPLICATE_ID = Rule(
    "VK117",
    ERROR,
    "example id is duplicated",
    "example id {example} is already used in {first}",
    "Inline values and regions name examples by id, so ids are unique across the vault.",
)
FAILED = Rule(
    "VK118",
    ERROR,
    "example failed to compute",
    "example {example}: {problem}",
    "The inputs are well formed but cannot be computed (e.g. a singular case); the message says why.",
)
VALUE_WRONG = Rule(
    "VK201",
    ERROR,
    "inline value is wrong",
    "{path} is {computed}, written {written}",
    "A number before `%%=example.path%%` differs from what the example computes; `vaultkit fix` rewrites it.",
)
VALUE_UNKNOWN_EXAMPLE = Rule(
    "VK202",
    ERROR,
    "inline value names an unknown example",
    "no example with id {example!r}",
    "The id in `%%=id.path%%` is not that of any example in the vault.",
)
VALUE_PATH = Rule(
    "VK203",
    ERROR,
    "inline value path is invalid",
    "{problem}",
    "The path after the id does not name a value of the example's results.",
)
VALUE_NOT_NUMBER = Rule(
    "VK204",
    ERROR,
    "inline value is not a number",
    "{path}: no number written before %%=",
    "An inline value checks the number written right before it; write one.",
)


def code_lines(tokens) -> set[int]:
    """0-based indices of lines inside fenced or indented code (and front matter)."""
    lines = set()
    for tok in tokens:
        if tok.type in ("fence", "code_block", "front_matter") and tok.map:
            lines.update(range(tok.map[0], tok.map[1]))
    return lines


def inputs_hash(example: Example) -> str:
    import hashlib  # imported here, as json: only a vault with examples needs them
    import json

    payload = {k: v for k, v in example.spec.items() if k not in PRESENTATION_KEYS}
    text = json.dumps([example.kind, payload], sort_keys=True, ensure_ascii=False, default=repr)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class NoteOutcome:
    text: str  # the note with every generated region and inline value brought up to date
    diagnostics: list[Diagnostic] = field(default_factory=list)
    values: int = 0  # inline values verified


class ExampleRunner:
    def __init__(self) -> None:
        self._cache: dict[str, Outcome | ExampleError] = {}
        self.examples: dict[str, Example] = {}  # id -> example, across the vault
        self.outcomes: dict[str, Outcome] = {}  # id -> outcome, for examples that ran
        self.unreadable: set[str] = set()  # ids of blocks that could not be read (already reported)

    def collect(self, notes) -> list[Diagnostic]:
        """Read, validate and run every example of `notes` (in vault order)."""
        self.examples, self.outcomes, self.unreadable = {}, {}, set()
        diags = []
        used = set()
        for note in notes:
            if "vaultkit" not in note.text:
                continue  # no block here: spare the markdown parse
            found, problems, unreadable = read_examples(note.rel, note.tokens)
            diags += problems
            self.unreadable |= unreadable
            for example in found:
                if example.id in self.examples:
                    first = self.examples[example.id]
                    first_at = f"{first.rel}:{first.line}"
                    diags.append(
                        DUPLICATE_ID.at(note.rel, example.line_of("id"), 1, example=example.id, first=first_at)
                    )
                    continue
                self.examples[example.id] = example
                diag = self._run(example)
                if diag:
                    diags.append(diag)
                used.add(inputs_hash(example))
        self._cache = {h: v for h, v in self._cache.items() if h in used}
        return diags

    def figure_paths(self) -> list[str]:
        """Vault-relative paths of the SVG figures the examples draw (drawn or not yet)."""
        paths = (str(e.spec["figure"]).strip().lstrip("/") for e in self.examples.values() if e.spec.get("figure"))
        return [path for path in paths if path.lower().endswith(".svg") and ".." not in path.split("/")]

    def _run(self, example: Example) -> Diagnostic | None:
        # Imported here: the kinds need numpy, which a vault without examples never loads.
        from vaultkit import engine
        from vaultkit.checks.examples.kinds import KINDS
        from vaultkit.checks.examples.kinds._params import digits

        kind = KINDS.get(example.kind)
        if kind is None:
            at = (example.rel, example.line_of("kind"), 1)
            return UNKNOWN_KIND.at(*at, example=example.id, kind=example.kind, known=", ".join(KINDS))
        try:
            example.digits = digits(example.spec)
            example.params = kind.parse(example.spec)
        except ExampleError as exc:
            return example.error(exc)
        key = inputs_hash(example)
        outcome = self._cache.get(key)
        if outcome is None:
            try:
                outcome = kind.run(example.params)
            except engine.LimitError as exc:
                outcome = ExampleError(OVER_LIMIT, str(exc))
            except ValueError as exc:
                outcome = ExampleError(FAILED, str(exc))
            self._cache[key] = outcome
        if isinstance(outcome, ExampleError):
            return example.error(outcome)
        self.outcomes[example.id] = outcome
        return None

    def region_body(self, example: Example) -> str:
        from vaultkit.checks.examples.kinds import KINDS

        return KINDS[example.kind].markdown(example, self.outcomes[example.id])

    def process(self, rel: str, text: str, tokens) -> NoteOutcome:
        """Bring the generated regions and inline values of one note up to date."""
        examples = [e for e in self.examples.values() if e.rel == rel]
        if not examples and "vaultkit:" not in text and "%%=" not in text:
            return NoteOutcome(text=text)  # no example, region marker or inline value: most notes
        lines = text.split("\n")
        code = code_lines(tokens)
        regions = find_regions(lines, code)
        result = NoteOutcome(text=text)
        replacements: list[tuple[int, int, list[str]]] = []  # (start, end exclusive, new lines)
        claimed = set()
        for example in examples:
            region = region_after(lines, example.end_line, regions)
            if region is not None:
                claimed.add(region.start)
            if example.id not in self.outcomes:
                continue
            expected = render_region(example.id, self.region_body(example))
            if region is None:
                result.diagnostics.append(REGION_MISSING.at(rel, example.end_line, 1, example=example.id))
                replacements.append((example.end_line, example.end_line, ["", *expected]))
            elif region.id != example.id or region.end < 0:
                what = f"is for {region.id!r}" if region.id != example.id else "has no end marker"
                at = (rel, region.start + 1, 1)
                result.diagnostics.append(REGION_STALE.at(*at, example=example.id, problem=f"{what}; fix it by hand"))
            else:
                current = lines[region.start : region.end + 1]
                if current != expected:
                    differs = next(
                        (i for i, (a, b) in enumerate(zip(current, expected)) if a != b),
                        min(len(current), len(expected)) - 1,
                    )
                    problem = "is stale or was edited by hand; vaultkit fix rewrites it"
                    at = (rel, region.start + differs + 1, 1)
                    result.diagnostics.append(REGION_STALE.at(*at, example=example.id, problem=problem))
                    replacements.append((region.start, region.end + 1, expected))
        for region in regions:
            if region.start not in claimed and region.id not in self.unreadable:
                result.diagnostics.append(REGION_ORPHAN.at(rel, region.start + 1, 1, region=region.id))
        region_lines = {i for r in regions for i in range(r.start, (r.end if r.end >= 0 else r.start) + 1)}
        self._inline_values(rel, lines, code | region_lines, result)
        for start, end, new in sorted(replacements, reverse=True):
            lines[start:end] = new
        result.text = "\n".join(lines)
        return result

    def _inline_values(self, rel: str, lines: list[str], skip: set[int], result: NoteOutcome) -> None:
        edits = []
        for b in find_bindings(lines, skip):
            at = (rel, b.line + 1, b.col + 1)
            try:
                ex_id, steps = split_path(b.path)
            except PathError as exc:
                result.diagnostics.append(VALUE_PATH.at(*at, problem=str(exc)))
                continue
            if ex_id in self.unreadable and ex_id not in self.examples:
                continue  # the block itself is reported
            if ex_id not in self.examples:
                result.diagnostics.append(VALUE_UNKNOWN_EXAMPLE.at(*at, example=ex_id))
                continue
            if ex_id not in self.outcomes:
                continue  # the example itself is broken and reported
            try:
                computed = resolve(self.outcomes[ex_id].fields, steps)
            except PathError as exc:
                result.diagnostics.append(VALUE_PATH.at(*at, problem=f"{b.path}: {exc}"))
                continue
            if b.number is None:
                result.diagnostics.append(VALUE_NOT_NUMBER.at(*at, path=b.path))
                continue
            result.values += 1
            if not written_matches(b.number, computed):
                new = rewrite_like(b.number, computed)
                result.diagnostics.append(VALUE_WRONG.at(*at, path=b.path, written=b.number, computed=new))
                edits.append((b.line, b.col, b.number_end, new))
        for line, start, end, new in sorted(edits, reverse=True):
            lines[line] = lines[line][:start] + new + lines[line][end:]
