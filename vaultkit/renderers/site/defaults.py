"""Built-in MkDocs config, used when the vault has no mkdocs.yml beside it.

The repository's own mkdocs.yml says the same thing; the vaultkit plugin renders the notes
itself (no markdown extensions to list), so this only picks the theme and the other plugins.
"""

from __future__ import annotations

DEFAULT_CONFIG = """
site_name: {site_name}
theme:
  name: material
  language: {language}
  font: false  # system fonts: nothing is fetched from a font CDN
  features:
    - navigation.sections
    - navigation.indexes
    - navigation.top
    - search.suggest
    - search.highlight
    - content.code.copy
  palette:
    - scheme: default
      primary: deep purple
      accent: amber
plugins:
  - search  # material's search box; vaultkit writes its index in pieces (search_index.py)
  - vaultkit
validation:
  links:
    not_found: info
    anchors: info
    unrecognized_links: info
"""


def default_config_text(site_name: str, language: str = "zh") -> str:
    return DEFAULT_CONFIG.format(site_name=site_name.replace("'", "").replace(":", " ") or "Vault", language=language)
