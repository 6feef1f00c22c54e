"""`vaultkit lsp` latency on a temp copy of a vault: a keystroke in an open note → its diagnostics.

A real server process over stdio and pygls' client, as an editor talks to it. For each sampled
note (the largest ones first, then spread over the rest): open it, then type a character at the
end of a line in its middle, several times; the time from sending the change to receiving the
diagnostics of that version, the server's pause for a burst of keys included. Prints the
start-up (initialize → first diagnostics), then the median and worst latency against the target
(0.3 s), and the server's own CPU time per change (what the wall clock shows on a machine with no other load).

    .venv/bin/python bench/bench_lsp.py [--vault V] [--notes 24] [--keys 5]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "vault146"
TARGET = 0.3
TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux /proc), None elsewhere: on a loaded machine the
    server's own CPU per change says what the wall clock cannot."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return (int(fields[11]) + int(fields[12])) / TICKS


def sample(root: Path, count: int) -> list[Path]:
    """The largest notes, then every n-th of the rest by size."""
    notes = sorted(
        (p for p in root.rglob("*.md") if not any(part.startswith(".") for part in p.parts)),
        key=lambda p: -p.stat().st_size,
    )
    largest = notes[: count // 3]
    rest = notes[count // 3 :]
    step = max(1, len(rest) // max(1, count - len(largest)))
    return largest + rest[::step][: count - len(largest)]


async def measure(
    root: Path, notes: list[Path], keys: int
) -> tuple[float, dict[Path, list[float]], list[tuple[float, Path, int]]]:
    client = LanguageClient("vaultkit-bench", "1")
    published: dict[str, types.PublishDiagnosticsParams] = {}
    arrived = asyncio.Event()

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        published[params.uri] = params
        arrived.set()

    async def diagnostics(uri: str, version: int) -> None:
        while (got := published.get(uri)) is None or got.version != version:
            arrived.clear()
            await arrived.wait()

    started = time.perf_counter()
    await client.start_io(sys.executable, "-m", "vaultkit", "lsp", str(root))
    folder = from_fs_path(str(root))
    await client.initialize_async(types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=folder))
    client.initialized(types.InitializedParams())
    latencies: dict[Path, list[float]] = {}
    cpu: list[tuple[float, Path, int]] = []  # (server CPU seconds, note, which key of it)
    pid = client._server.pid
    startup = 0.0
    for path in notes:
        uri = from_fs_path(str(path))
        lines = path.read_text(encoding="utf-8").split("\n")
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                types.TextDocumentItem(uri=uri, language_id="markdown", version=1, text="\n".join(lines))
            )
        )
        await diagnostics(uri, 1)
        startup = startup or time.perf_counter() - started
        line = len(lines) // 2
        latencies[path] = []
        for version in range(2, keys + 2):
            at = types.Position(line=line, character=len(lines[line]))
            change = types.TextDocumentContentChangePartial(range=types.Range(start=at, end=at), text="x")
            lines[line] += "x"
            sent, busy = time.perf_counter(), cpu_seconds(pid)
            client.text_document_did_change(
                types.DidChangeTextDocumentParams(
                    text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                    content_changes=[change],
                )
            )
            await diagnostics(uri, version)
            latencies[path].append(time.perf_counter() - sent)
            if busy is not None:
                cpu.append((cpu_seconds(pid) - busy, path, version - 1))
            await asyncio.sleep(0.1)  # a pause between keys: each change is checked
        client.text_document_did_close(types.DidCloseTextDocumentParams(types.TextDocumentIdentifier(uri=uri)))
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()
    return startup, latencies, cpu


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vault", type=Path, default=CORPUS)
    parser.add_argument("--notes", type=int, default=24)
    parser.add_argument("--keys", type=int, default=5)
    args = parser.parse_args()
    if not args.vault.is_dir():
        print(f"no vault at {args.vault}", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="vaultkit-bench-lsp-") as scratch:
        root = Path(scratch) / "vault"
        shutil.copytree(args.vault, root)
        notes = sample(root, args.notes)
        startup, by_note, cpu = asyncio.run(measure(root, notes, args.keys))
        slow = sorted(((max(times), path.stat().st_size, path.relative_to(root)) for path, times in by_note.items()))
    latencies = [t for times in by_note.values() for t in times]
    median, worst = statistics.median(latencies), max(latencies)
    print(f"{len(notes)} notes, {len(latencies)} changes; server start to first diagnostics {startup:.2f} s")
    print(
        f"keystroke → diagnostics: median {median * 1000:.0f} ms, worst {worst * 1000:.0f} ms "
        f"(target ≤ {TARGET * 1000:.0f} ms: {'met' if worst <= TARGET else 'missed'})"
    )
    if cpu:
        seconds = [c for c, _, _ in cpu]
        worst_cpu, worst_path, worst_key = max(cpu, key=lambda c: c[0])
        print(
            f"server CPU per change: median {statistics.median(seconds) * 1000:.0f} ms, worst {worst_cpu * 1000:.0f} ms "
            f"(key {worst_key} of {worst_path.name}; machine load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs)"
        )
    for seconds, size, rel in slow:
        if seconds > TARGET:
            print(f"  over the target: {rel} ({size // 1024} KB) worst {seconds * 1000:.0f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
