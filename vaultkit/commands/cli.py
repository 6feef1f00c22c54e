"""Command line: vaultkit check | fix | build | watch | serve | lsp | init."""

from __future__ import annotations

import argparse
import gc
import os
import socket
import sys
from functools import partial
from importlib import import_module
from pathlib import Path

from vaultkit import __version__
from vaultkit.commands.usage import USAGE_ERROR, UsageError, format_address

# The commands that check the vault once and end (a build turns the collector on and off
# around its own work: the site's pages leave cycles).
ONE_PASS = ("check", "fix")
# The modules `serve` needs beyond the check's, imported one by one as the parent's share while
# the check's workers run (the results that arrived are taken between them): the site's imports
# overlap the check instead of coming before it.
SERVE_MODULES = ("vaultkit.renderers.site.mkdocs_glue", "vaultkit.renderers.site.render", "vaultkit.commands.serve")
REPORT_HELP = (
    "keep the findings in a note of the vault (default: the plugin's `report:` option, else "
    "`vaultkit 报告.md` or `vaultkit report.md` by the vault's language); never published nor checked"
)


def default_vault(cwd: Path | None = None) -> Path:
    """`docs_dir` of ./mkdocs.yml, or of one in a folder above up to the git repository's root;
    else ./vault."""
    from vaultkit.model.layout import default_vault as nearest

    return nearest(cwd or Path.cwd())


def resolve_vault(arg: str | None) -> Path:
    """The vault folder to work on; a UsageError that says what to pass instead."""
    from vaultkit.readers.config import ConfigError

    try:
        root = Path(arg) if arg else default_vault()
    except ConfigError as exc:  # the mkdocs.yml that would name the vault
        raise UsageError(f"{exc}; fix it, or pass the vault folder") from None
    if root.is_dir():
        return root
    if root.is_file():
        parent = os.path.relpath(root.parent) if arg else root.parent
        raise UsageError(f"{arg} is a file; pass the vault folder that holds it, e.g. {parent}")
    if arg:
        raise UsageError(f"vault folder not found: {arg}")
    from vaultkit.model.layout import nearest_config

    if config := nearest_config(Path.cwd()):
        shown = os.path.relpath(config)
        raise UsageError(f"the docs_dir of {shown}, {root}, does not exist; fix docs_dir or pass the vault folder")
    raise UsageError(
        "no vault given, and ./vault (the default when there is no mkdocs.yml) does not exist; "
        "pass the vault folder, e.g. `vaultkit check notes`, or set it up once with `vaultkit init notes`"
    )


def _readable_config(root: Path) -> None:
    """A UsageError when a mkdocs.yml that may be the one of the vault `root` cannot be read
    (`layout.find_config` stops on it)."""
    from vaultkit.model.layout import find_config
    from vaultkit.readers.config import ConfigError

    try:
        find_config(root)
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def _serve(root: Path, listener: socket.socket, site_dir: Path) -> int:
    """Check the vault and serve its site. While the workers check the notes, this process
    loads the site's MkDocs config (so an error in it is told at once, not after the check)
    and imports the server's modules."""
    from vaultkit.commands.check import checked

    config = []

    def load_config() -> None:
        from mkdocs.exceptions import MkDocsException

        from vaultkit.commands.build import load_site_config

        try:
            config.append(load_site_config(root, str(site_dir)))
        except MkDocsException as exc:  # MkDocs has logged what is wrong; the workers are stopped
            raise UsageError(f"cannot serve the site: {exc.format_message()}") from None
        except ValueError as exc:  # a mkdocs.yml made unreadable since `_readable_config` read it
            raise UsageError(str(exc)) from None

    modules = [partial(import_module, name) for name in SERVE_MODULES]
    state = checked(root, [load_config, *modules], fresh_outlines=True)
    from vaultkit.commands.serve import serve_command

    return serve_command(root, listener, site_dir, state, config[0])


def _subparser(sub, name: str, help: str, description: str | None = None) -> argparse.ArgumentParser:
    return sub.add_parser(
        name, help=help, description=description or help[:1].upper() + help[1:] + ".", allow_abbrev=False
    )


def _parser() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    parser = argparse.ArgumentParser(
        prog="vaultkit",
        description="Keep an Obsidian vault of technical notes correct.",
        allow_abbrev=False,
    )
    parser.add_argument("--version", action="version", version=f"vaultkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    vault_help = "vault folder (default: docs_dir of the nearest mkdocs.yml, up to the repository root; else ./vault)"

    check = _subparser(
        sub,
        "check",
        "verify every note; never writes",
        description="Verify links, front matter, examples, inline values, arithmetic claims and figures; never writes. "
        "A hand-drawn SVG that shows its own Q and K is checked with no annotation: the example is read "
        "from the drawing (captions, row labels, scale and mask); what it cannot read with certainty is a "
        "VK403 warning naming the data-vk pin that settles it. `vaultkit fix --adopt` turns such a drawing "
        "into a vaultkit block. Matrices worked by hand in a note's text (a softmax row under the scores "
        "it normalizes, scores under Q and K) are checked too; illustrative ones (示意, e.g.) only warn.",
    )
    check.add_argument("vault", nargs="?", help=vault_help)
    check.add_argument("--format", choices=["text", "json", "github"], default="text")
    check.add_argument("--explain", action="store_true", help="list every claim read and every one skipped, with why")
    check.add_argument("--report", nargs="?", const="", metavar="NOTE", help=REPORT_HELP)

    fix = _subparser(sub, "fix", "rewrite generated regions, inline values, figures and fixable links")
    fix.add_argument("vault", nargs="?", help=vault_help)
    fix.add_argument("--diff", action="store_true", help="print a unified diff and write nothing")
    fix.add_argument(
        "--adopt",
        action="store_true",
        help="write the example a drawing implies (its own Q and K) as a vaultkit block into the note that embeds it",
    )
    fix.add_argument("--format", choices=["text", "json", "github"], default="text")

    build = _subparser(sub, "build", "build the mkdocs-material site")
    build.add_argument("vault", nargs="?", help=vault_help)
    build.add_argument("-o", "--output", help="output folder (default: site)")
    build.add_argument("--strict", action="store_true", help="exit 1 on any error of the vault or the site")
    build.add_argument("--clean", action="store_true", help="ignore the build cache: check and render everything")
    build.add_argument("--verbose", action="store_true", help="list the pages rendered (the others were kept)")

    watch = _subparser(sub, "watch", "keep generated parts and figures in sync while you edit")
    watch.add_argument("vault", nargs="?", help=vault_help)
    watch.add_argument("--report", nargs="?", const="", metavar="NOTE", help=REPORT_HELP)

    serve = _subparser(sub, "serve", "watch, and serve the site with live reload")
    serve.add_argument("vault", nargs="?", help=vault_help)
    serve.add_argument("-a", "--address", type=host_and_port, default="127.0.0.1:8000", help="HOST:PORT")

    lsp = _subparser(
        sub,
        "lsp",
        "run the language server over stdio (diagnostics, hover, fixes, links, completion in your editor)",
    )
    lsp.add_argument(
        "vault", nargs="?", help="vault folder (default: the editor's workspace, or its mkdocs.yml's docs_dir)"
    )

    init = _subparser(sub, "init", "set up a vault: mkdocs.yml, a CI workflow, a pre-commit hook; never overwrites")
    init.add_argument("vault", nargs="?", help=vault_help)
    return parser, sub.choices


def _parse(argv: list[str] | None) -> argparse.Namespace:
    """Parse; an unknown flag is reported with the subcommand's usage and the nearest flag."""
    parser, commands = _parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        command = commands.get(args.command, parser)
        known = [s for action in command._actions for s in action.option_strings]
        import difflib  # imported here: only a usage error needs it

        hints = [
            f" (did you mean {m[0]}?)" if (m := difflib.get_close_matches(u.split("=")[0], known, 1)) else ""
            for u in unknown
        ]
        command.error("unrecognized arguments: " + " ".join(u + h for u, h in zip(unknown, hints)))
    if not args.command:
        parser.print_help()
        raise SystemExit(USAGE_ERROR)
    return args


def host_and_port(text: str) -> tuple[str, int]:
    """`--address` as given: HOST:PORT, an IPv6 host in brackets (`[::1]:8000`)."""
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"must be HOST:PORT (a port up to 65535), got {text!r}")
    return host.strip("[]"), int(port)


def listen(host: str, port: int) -> socket.socket:
    """A socket bound to the address and listening (port 0: one the system picks); a port just
    left is usable again at once, as with `http.server`'s own."""
    listener = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM)
    try:
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((host, port))
        listener.listen()
    except BaseException:
        listener.close()
        raise
    return listener


def main(argv: list[str] | None = None) -> int:
    """Run the command `argv`; None: this process's own command line (the `vaultkit` program,
    `python -m vaultkit`), and the process ends on return: check and fix run with the cyclic
    garbage collector off, as they keep what they read until then and make almost no cycles,
    and what the process still holds is frozen first, so Python's last collection at exit does
    not visit it."""
    status = _command(argv, whole_process=argv is None)
    if argv is None:
        gc.freeze()
    return status


def _command(argv: list[str] | None, whole_process: bool = False) -> int:
    try:
        args = _parse(argv)
    except SystemExit as exc:  # argparse exits 2 on usage errors, 0 on --help
        return int(exc.code or 0)
    if whole_process and args.command in ONE_PASS:
        gc.disable()  # not turned on again: the process ends with the command
    try:
        if args.command == "init":  # a folder given is checked by init, which says what to pass
            from vaultkit.commands.init import init_command

            vault = Path(args.vault) if args.vault else resolve_vault(None)
            _readable_config(vault)  # the mkdocs.yml init would keep
            return init_command(vault)
        if args.command == "lsp":  # the vault is the editor's workspace unless one is given
            from vaultkit.commands.lsp import lsp_command

            return lsp_command(resolve_vault(args.vault) if args.vault else None)
        root = resolve_vault(args.vault)
        if args.command == "check":
            from vaultkit.commands.check import check_command

            return check_command(root, fmt=args.format, explain=args.explain, report_note=args.report)
        if args.command == "fix":
            from vaultkit.commands.fix import fix_command

            return fix_command(root, diff=args.diff, fmt=args.format, adopt=args.adopt)
        if args.command == "build":
            from vaultkit.commands.build import build_command

            return build_command(root, output=args.output, strict=args.strict, clean=args.clean, verbose=args.verbose)
        if args.command == "watch":
            from vaultkit.commands.watch import watch_command

            return watch_command(root, report=args.report)
        if args.command == "serve":
            _readable_config(root)  # the site's config, told before the check as a port in use is
            try:  # the address is taken before the check: a port in use is told at once
                listener = listen(*args.address)
            except OSError as exc:
                print(f"vaultkit: cannot serve on {format_address(*args.address)}: {exc.strerror}", file=sys.stderr)
                return USAGE_ERROR
            import tempfile

            with listener, tempfile.TemporaryDirectory(prefix="vaultkit-serve-") as site_dir:  # never written
                return _serve(root, listener, Path(site_dir))
    except UsageError as exc:
        print(f"vaultkit: {exc}", file=sys.stderr)
        return USAGE_ERROR
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # `vaultkit check | head`: the reader left; stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1
    return USAGE_ERROR
