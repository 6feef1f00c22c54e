"""Renderers: what vaultkit writes from the model and the checks: figures (SVG) and the site."""
