"""Shared test helpers: where the real vault is, and skipping when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[2] / "shared"
CORPUS = SHARED / "corpus" / "vault146"

needs_corpus = pytest.mark.skipif(
    not CORPUS.is_dir(), reason=f"the real vault is not at {CORPUS} (../shared is absent)"
)
