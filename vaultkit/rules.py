"""Every diagnostic rule, in one list (as ruff's registry), and the codes page made from it.

Each rule is declared once, next to the check that emits it; this module only gathers them.
Codes are grouped by family:

    VK0xx  files and front matter        VK4xx  figures, worked text matrices, walkthroughs
    VK1xx  executable examples           VK5xx  links and embeds
    VK2xx  inline values                 VK6xx  site
    VK3xx  arithmetic claims

`python -m vaultkit.rules PAGE` rewrites the generated table of a codes page (the bundled
vault's `使用 vaultkit/09 诊断代码.md`; `python3 tasks.py` does it), between the markers below.
"""

from __future__ import annotations

import sys
from pathlib import Path

from vaultkit import writer
from vaultkit.checks import claims, links, textmatrices, walkthrough
from vaultkit.checks.drawings import numbers as drawn_numbers
from vaultkit.checks.examples import figures, runner, spec
from vaultkit.commands import build
from vaultkit.diagnostics import ERROR, WARNING, Rule
from vaultkit.model import vault

RULES: tuple[Rule, ...] = (
    vault.NOT_UTF8,
    vault.UNREADABLE,
    vault.TOO_LARGE,
    writer.CHANGED_ON_DISK,
    vault.SYMLINK_OUT,
    vault.CASE_CLASH,
    vault.FRONT_MATTER_YAML,
    vault.FRONT_MATTER_NOT_MAPPING,
    vault.FRONT_MATTER_TYPE,
    vault.SETTINGS_UNREADABLE,
    runner.REGION_STALE,
    runner.REGION_MISSING,
    runner.REGION_ORPHAN,
    spec.EXAMPLE_YAML,
    runner.UNKNOWN_KIND,
    spec.UNKNOWN_KEY,
    spec.MISSING_KEY,
    spec.MALFORMED,
    spec.SHAPE_MISMATCH,
    spec.OVER_LIMIT,
    runner.DUPLICATE_ID,
    runner.FAILED,
    runner.VALUE_WRONG,
    runner.VALUE_UNKNOWN_EXAMPLE,
    runner.VALUE_PATH,
    runner.VALUE_NOT_NUMBER,
    claims.CLAIM_WRONG,
    claims.CLAIM_IMPRECISE,
    claims.SHAPE_WRONG,
    claims.UNLIKELY,
    figures.FIGURE_STALE,
    figures.DRAWN_WRONG,
    figures.DRAWN_UNCERTAIN,
    figures.FIGURE_OUTSIDE,
    figures.FIGURE_NOT_SVG,
    textmatrices.WEIGHTS_SUM,
    textmatrices.NOT_DERIVED,
    textmatrices.ILLUSTRATIVE,
    textmatrices.UNCERTAIN,
    walkthrough.CAUSAL_MATCH,
    walkthrough.STEP_WEIGHTS,
    walkthrough.STEP_MIX,
    walkthrough.STEP_CACHE,
    walkthrough.MASK_PICTURE,
    walkthrough.ROUND_INPUT,
    walkthrough.FIGURE_PROMISED,
    *drawn_numbers.RULES,
    links.LINK_MISSING,
    links.LINK_MOVED,
    links.LINK_AMBIGUOUS,
    links.HEADING_MISSING,
    links.BLOCK_MISSING,
    links.EMBED_MISSING,
    links.LINK_OUTSIDE,
    links.LINK_UNPUBLISHED,
    links.EMBED_CYCLE,
    links.LINK_EXCLUDED,
    build.BUILD_FAILED,
)

BEGIN = "%% vaultkit:codes:begin (python -m vaultkit.rules writes this table from vaultkit/rules.py) %%"
END = "%% vaultkit:codes:end %%"
SEVERITY_WORDS = {ERROR: "错误 error", WARNING: "警告 warning"}  # the page's word, then the output's


def codes_table() -> str:
    """The codes page's table, one row per rule: its code, severity, title and doc."""
    rows = ["| 代码 | 级别 | 含义（命令输出原文） | 说明（英文） |", "|---|---|---|---|"]
    rows += [f"| `{r.code}` | {SEVERITY_WORDS[r.severity]} | {_cell(r.title)} | {_cell(r.doc)} |" for r in RULES]
    return "\n".join(rows)


def _cell(text: str) -> str:
    """`text` in a table cell: a `|` is escaped, in code spans too (GFM's tables say so)."""
    return text.replace("|", "\\|")


def with_codes_table(page: str) -> str:
    """`page` with the text between its markers replaced by `codes_table()`."""
    head, found, rest = page.partition(BEGIN + "\n")
    _, found_end, tail = rest.partition(END)
    if not (found and found_end):
        raise ValueError(f"the page has no {BEGIN!r} … {END!r} markers")
    return f"{head}{BEGIN}\n\n{codes_table()}\n\n{END}{tail}"


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print("usage: python -m vaultkit.rules PAGE.md", file=sys.stderr)
        return 2
    page = Path(argv[0])
    text = page.read_text(encoding="utf-8")
    new = with_codes_table(text)
    if new != text:
        page.write_text(new, encoding="utf-8")
        print(f"{page}: codes table rewritten")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
