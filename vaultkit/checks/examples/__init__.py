"""Executable examples: ```vaultkit blocks, their generated regions and inline values."""

from vaultkit.checks.examples.runner import ExampleRunner, NoteOutcome

__all__ = ["ExampleRunner", "NoteOutcome"]
