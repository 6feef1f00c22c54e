"""Work shared out to forked worker processes, the one way vaultkit uses more than one core.

Each worker is forked with the list of items (nothing is sent to it: it has the parent's objects
as they were at the fork), takes the next item by a counter it shares with the other workers and
the parent, which works too, and sends back each item's result over its own pipe. Only a
process without threads is forked (forking one that runs threads is unsafe): `usable_jobs`
says 1 otherwise, and the caller then does the work itself.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
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


@contextmanager
def collector(enabled: bool) -> Iterator[None]:
    """The cyclic garbage collector on or off meanwhile, as it was after. Off for a one-shot
    pass (a check, a build): a pass keeps every note's tokens and makes almost no cycles, and
    the collector would scan the kept objects again and again for nothing. On again, inside
    such a pass, for work that leaves cycles (a site's pages)."""
    was_enabled = gc.isenabled()
    _set_collector(enabled)
    try:
        yield
    finally:
        _set_collector(was_enabled)


def _set_collector(enabled: bool) -> None:
    if enabled:
        gc.enable()
    else:
        gc.disable()


def fork_map(
    work: Callable[[Item], Result],
    items: list[Item],
    jobs: int,
    setup: Callable[[], None] | None = None,
    meanwhile: Iterable[Callable[[], object]] = (),
) -> Iterator[tuple[Item, Result]]:
    """`(item, work(item))` for every item, in the order they come from `jobs` processes: this
    one and `jobs` - 1 forked workers (each runs `setup` first; give the largest items first
    for even shares). This process first makes the calls `meanwhile`, its own share, one by
    one while the workers run, with the results that arrived given between them (so no worker
    waits on a full pipe); then it takes items as the workers do. An exception in a worker is
    raised here; on any error, or when the caller stops iterating, the workers still running
    are stopped."""
    fork = multiprocessing.get_context("fork")
    taken = fork.Value("i", 0)  # how many of `items` have been taken
    workers = {}
    try:
        for _ in range(jobs - 1):
            reader, writer = fork.Pipe(duplex=False)
            process = fork.Process(target=_work, args=(work, items, taken, writer, setup), daemon=True)
            process.start()
            writer.close()  # the worker's end: the reader sees the end when the worker exits
            workers[reader] = process
        for call in meanwhile:
            call()
            yield from _arrived(workers, block=False)
        while (i := _take(taken, len(items))) is not None:
            yield items[i], work(items[i])
            yield from _arrived(workers, block=False)
        while workers:
            yield from _arrived(workers, block=True)
    finally:
        for process in workers.values():
            process.terminate()
            process.join()


def _arrived(workers: dict, block: bool) -> Iterator[tuple]:
    """Every result that has arrived from the `workers` (waiting for one when `block`); a
    worker whose pipe ends is joined and dropped, and an error it sent is raised."""
    for reader in wait(list(workers), timeout=None if block else 0) if workers else ():
        while True:
            try:
                item, result = reader.recv()
            except EOFError:
                process = workers.pop(reader)
                process.join()
                if process.exitcode:
                    raise RuntimeError(f"a worker process died (exit code {process.exitcode})") from None
                break
            if isinstance(result, BaseException):
                raise result
            yield item, result
            if not reader.poll():
                break


def _take(taken, count: int) -> int | None:
    """The index of the next item not yet taken, or None when all `count` are."""
    with taken.get_lock():
        i = taken.value
        taken.value += 1
    return i if i < count else None


def _work(work: Callable, items: list, taken, results: Connection, setup: Callable[[], None] | None) -> None:
    """A forked worker: the next item not yet taken, until none is left; each result (or the
    error that stops it) sent to the parent. Ctrl-C is for the parent."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if setup is not None:
        setup()
    while (i := _take(taken, len(items))) is not None:
        try:
            result = work(items[i])
        except Exception as exc:
            results.send((items[i], exc))
            return
        results.send((items[i], result))
