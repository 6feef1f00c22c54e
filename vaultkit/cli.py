"""Command line: vaultkit check | fix | build | watch | serve."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from . import __version__

USAGE_ERROR = 2


class UsageError(Exception):
    pass


def default_vault(cwd: Path | None = None) -> Path:
    """`docs_dir` of ./mkdocs.yml when there is one, else `vault`."""
    cwd = cwd or Path.cwd()
    config = cwd / "mkdocs.yml"
    if config.is_file():
        from .config import read_mkdocs_config

        docs_dir = read_mkdocs_config(config).get("docs_dir")
        if isinstance(docs_dir, str) and docs_dir:
            return (cwd / docs_dir).resolve()
    return cwd / "vault"


def resolve_vault(arg: str | None) -> Path:
    root = Path(arg) if arg else default_vault()
    if not root.is_dir():
        raise UsageError(f"vault folder not found: {root}")
    return root


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="vaultkit",
        description="Keep an Obsidian vault of technical notes correct.",
    )
    parser.add_argument("--version", action="version", version=f"vaultkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    check = sub.add_parser(
        "check", help="verify every note; never writes",
        description="Verify links, front matter, examples, inline values, arithmetic claims and figures; never writes. "
                    "A hand-drawn SVG that shows its own Q and K is checked with no annotation: the example is read "
                    "from the drawing (captions, row labels, scale and mask); what it cannot read with certainty is a "
                    "VK403 warning naming the data-vk pin that settles it. `vaultkit fix --adopt` turns such a drawing "
                    "into a vaultkit block. Matrices worked by hand in a note's text (a softmax row under the scores "
                    "it normalizes, scores under Q and K) are checked too; illustrative ones (示意, e.g.) only warn.")
    check.add_argument("vault", nargs="?", help="vault folder (default: docs_dir of mkdocs.yml, or vault)")
    check.add_argument("--format", choices=["text", "json", "github"], default="text")
    check.add_argument("--explain", action="store_true", help="list every claim read and every one skipped, with why")

    fix = sub.add_parser("fix", help="rewrite generated regions, inline values, figures and fixable links")
    fix.add_argument("vault", nargs="?")
    fix.add_argument("--diff", action="store_true", help="print a unified diff and write nothing")
    fix.add_argument("--adopt", action="store_true",
                     help="write the example a drawing implies (its own Q and K) as a vaultkit block into the note that embeds it")
    fix.add_argument("--format", choices=["text", "json", "github"], default="text")

    build = sub.add_parser("build", help="build the mkdocs-material site")
    build.add_argument("vault", nargs="?")
    build.add_argument("-o", "--output", help="output folder (default: site)")
    build.add_argument("--strict", action="store_true", help="fail on any error")

    watch = sub.add_parser("watch", help="keep generated parts and figures in sync while you edit")
    watch.add_argument("vault", nargs="?")

    serve = sub.add_parser("serve", help="watch, and serve the site with live reload")
    serve.add_argument("vault", nargs="?")
    serve.add_argument("-a", "--address", default="127.0.0.1:8000", help="HOST:PORT")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if not args.command:
        parser.print_help()
        return USAGE_ERROR
    try:
        root = resolve_vault(args.vault)
        if args.command == "check":
            from .check import check_command

            return check_command(root, fmt=args.format, explain=args.explain)
        if args.command == "fix":
            from .check import fix_command

            return fix_command(root, diff=args.diff, fmt=args.format, adopt=args.adopt)
        if args.command == "build":
            from .site.build import build_command

            return build_command(root, output=args.output, strict=args.strict)
        if args.command == "watch":
            from .watch import watch_command

            return watch_command(root)
        if args.command == "serve":
            from .site.serve import serve_command

            return serve_command(root, address=args.address)
    except UsageError as exc:
        print(f"vaultkit: {exc}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `vaultkit check | head`: the reader left; stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return USAGE_ERROR
