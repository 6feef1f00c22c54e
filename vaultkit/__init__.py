"""vaultkit: keep an Obsidian vault of technical notes correct."""

__version__ = "0.1.0"
