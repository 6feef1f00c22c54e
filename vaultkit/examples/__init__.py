"""Executable examples: ```vaultkit blocks, their generated regions and inline values."""

from .runner import ExampleRunner, NoteOutcome

__all__ = ["ExampleRunner", "NoteOutcome"]
