"""Obsidian syntax as markdown-it-py plugins, one module per syntax.

Inline tokens made by these plugins carry `meta["offset"]`/`meta["end"]` (offsets in the
inline content) until the `positions` core rule turns them into absolute `meta["line"]`,
`meta["col"]`, `meta["end_col"]` (1-based, in the note's source) and `meta["raw"]` (the text
exactly as written, e.g. `[[a \\| b]]` in a table cell).
"""
