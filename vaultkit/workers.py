"""Work shared out to forked worker processes, the one way vaultkit uses more than one core.

Each worker is forked with its share of the items (nothing is sent to it: it has the parent's
objects as they were at the fork) and sends back each item's result over its own pipe. Only a
process without threads is forked (forking one that runs threads is unsafe): `usable_jobs`
says 1 otherwise, and the caller then does the work itself.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection, wait
from typing import TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")


def cpu_count() -> int:
    """The CPUs this process may run on."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def usable_jobs(jobs: int) -> int:
    """`jobs`, or 1 where forking is unavailable or unsafe (a process running threads)."""
    if "fork" not in multiprocessing.get_all_start_methods() or threading.active_count() > 1:
        return 1
    return jobs


def shares(items: list[Item], size: Callable[[Item], int], jobs: int) -> list[list[Item]]:
    """`items` dealt out to `jobs` workers, the largest first to the least loaded: even shares."""
    dealt: list[list[Item]] = [[] for _ in range(jobs)]
    loads = [0] * jobs
    for item in sorted(items, key=size, reverse=True):
        least = loads.index(min(loads))
        dealt[least].append(item)
        loads[least] += size(item)
    return dealt


def fork_map(
    work: Callable[[Item], Result],
    items: list[Item],
    jobs: int,
    size: Callable[[Item], int],
    setup: Callable[[], None] | None = None,
) -> Iterator[tuple[Item, Result]]:
    """`(item, work(item))` for every item, in the order they arrive from `jobs` forked
    workers (each runs `setup` first). An exception in a worker is raised here; on any error,
    or when the caller stops iterating, the workers still running are stopped."""
    fork = multiprocessing.get_context("fork")
    workers = {}
    try:
        for share in shares(items, size, jobs):
            reader, writer = fork.Pipe(duplex=False)
            process = fork.Process(target=_work_share, args=(work, share, writer, setup), daemon=True)
            process.start()
            writer.close()  # the worker's end: the reader sees the end when the worker exits
            workers[reader] = process
        while workers:
            for reader in wait(list(workers)):
                try:
                    item, result = reader.recv()
                except EOFError:
                    process = workers.pop(reader)
                    process.join()
                    if process.exitcode:
                        raise RuntimeError(f"a worker process died (exit code {process.exitcode})") from None
                    continue
                if isinstance(result, BaseException):
                    raise result
                yield item, result
    finally:
        for process in workers.values():
            process.terminate()
            process.join()


def _work_share(work: Callable, share: list, results: Connection, setup: Callable[[], None] | None) -> None:
    """A forked worker: its share of the items, each result (or the error that stops it) sent
    to the parent; Ctrl-C is for the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if setup is not None:
        setup()
    for item in share:
        try:
            result = work(item)
        except Exception as exc:
            results.send((item, exc))
            return
        results.send((item, result))
