"""Readers: each format vaultkit reads (markdown tokens with the Obsidian syntaxes, SVG text, mkdocs.yml), read in one place."""
