"""`vaultkit watch`: the watch loop (`sync.py`) on the vault, until Ctrl-C."""

from __future__ import annotations

import time
from pathlib import Path

from vaultkit.commands.sync import Watcher, keep_report


def watch_command(root: Path, report: str | None = None) -> int:
    """`report`: keep the report note too ("": its configured or default name; see report_note)."""
    from vaultkit.renderers.report_note import configured

    watcher = Watcher(root)
    state = watcher.syncer.state
    if report is not None or configured(root):
        keep_report(watcher, report)
    summary = f"{len(state.vault.readable_notes)} notes, {len(state.runner.outcomes)} examples"
    watcher.start()
    print(f"Watching {root} ({summary}). Press Ctrl-C to stop.", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        print("Stopped.")
    finally:
        watcher.stop()
    return 0
