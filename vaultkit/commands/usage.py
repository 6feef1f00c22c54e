"""What the commands share about the command line: the usage error and its exit status, and how
an address is shown. It imports no command, so every command may import it."""

from __future__ import annotations

USAGE_ERROR = 2  # the exit status of a usage error, as argparse's


class UsageError(Exception):
    """What the command was given cannot be worked on; the message says what to pass instead."""


def format_address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
