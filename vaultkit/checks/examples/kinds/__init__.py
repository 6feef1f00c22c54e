"""Example kinds. Each module defines NAME, parse(spec) -> params, run(params) -> Outcome and
markdown(example, outcome) -> str; adding a kind is adding a module to KINDS."""

from __future__ import annotations

from vaultkit.checks.examples.kinds import attention, kv_cache, kv_memory, multihead, sampling

KINDS = {m.NAME: m for m in (attention, multihead, kv_cache, kv_memory, sampling)}
