"""Reading and bounding the parameters of an example block. Every failure is an ExampleError."""

from __future__ import annotations

import math

import numpy as np

from vaultkit import engine
from vaultkit.checks.examples.spec import (
    COMMON_KEYS,
    MALFORMED,
    MISSING_KEY,
    OVER_LIMIT,
    SHAPE_MISMATCH,
    UNKNOWN_KEY,
    ExampleError,
)

MAX_TOKENS = 64
MAX_DIM = 1024


def check_keys(spec: dict, allowed: set[str], required: set[str] = frozenset()) -> None:
    for key in spec:
        if key not in COMMON_KEYS and key not in allowed:
            known = ", ".join(sorted((COMMON_KEYS | allowed) - {"id", "kind"}))
            raise ExampleError(UNKNOWN_KEY, f"unknown key {key!r} (known: {known})", key)
    for key in sorted(required):
        if key not in spec:
            raise ExampleError(MISSING_KEY, f"missing required key {key!r}")


def integer(spec: dict, key: str, default: int | None = None, *, lo: int = 1, hi: int = MAX_DIM) -> int:
    value = spec.get(key, default)
    if value is None:
        raise ExampleError(MISSING_KEY, f"missing required key {key!r}")
    if isinstance(value, bool) or not isinstance(value, int):
        raise ExampleError(MALFORMED, f"{key} must be a whole number, not {value!r}", key)
    if not lo <= value <= hi:
        rule = OVER_LIMIT if value > hi else MALFORMED
        raise ExampleError(rule, f"{key} is {value}; it must be between {lo} and {hi}", key)
    return value


def number(spec: dict, key: str, default: float | None = None, *, positive: bool = False) -> float | None:
    value = spec.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ExampleError(MALFORMED, f"{key} must be a finite number, not {value!r}", key)
    if positive and value <= 0:
        raise ExampleError(MALFORMED, f"{key} must be positive, not {value!r}", key)
    return float(value)


def choice(spec: dict, key: str, options: tuple[str, ...], default: str) -> str:
    value = spec.get(key, default)
    if value is None or value is False:
        value = "none"
    if str(value) not in options:
        raise ExampleError(MALFORMED, f"{key} must be one of {', '.join(options)}, not {value!r}", key)
    return str(value)


def digits(spec: dict) -> int:
    return integer(spec, "digits", 2, lo=0, hi=8)


def matrix(spec: dict, key: str) -> np.ndarray:
    """A matrix written as a YAML list of rows."""
    value = spec[key]
    if isinstance(value, list) and value and all(isinstance(r, list) for r in value):
        cells = sum(len(r) for r in value)
        if cells > engine.MAX_CELLS:
            raise ExampleError(OVER_LIMIT, f"{key} has {cells} cells, over the {engine.MAX_CELLS} limit", key)
    try:
        return engine.as_matrix(value, key)
    except ValueError as exc:
        raise ExampleError(MALFORMED, str(exc), key) from None


def tokens(spec: dict, n: int | None = None) -> list[str]:
    """Token labels: `tokens` as written, or t0, t1, ... when absent."""
    value = spec.get("tokens")
    if value is None:
        if n is None:
            raise ExampleError(MISSING_KEY, "missing required key 'tokens'")
        return [f"t{i}" for i in range(n)]
    if isinstance(value, str):
        value = value.split()
    if not isinstance(value, list) or not value or any(isinstance(t, (list, dict)) or t is None for t in value):
        raise ExampleError(MALFORMED, "tokens must be a list of words", "tokens")
    if len(value) > MAX_TOKENS:
        raise ExampleError(OVER_LIMIT, f"{len(value)} tokens, over the {MAX_TOKENS} limit", "tokens")
    if n is not None and len(value) != n:
        raise ExampleError(SHAPE_MISMATCH, f"{len(value)} tokens but the matrices have {n} rows", "tokens")
    return [str(t) for t in value]


def bounded_work(q: np.ndarray, k: np.ndarray, v: np.ndarray | None) -> None:
    """Refuse attention whose multiply-adds exceed the engine's work limit."""
    try:
        engine.check_work(queries=q.shape[0], keys=k.shape[0], d=q.shape[1], dv=0 if v is None else v.shape[1])
    except ValueError as exc:
        raise ExampleError(OVER_LIMIT, str(exc)) from None
