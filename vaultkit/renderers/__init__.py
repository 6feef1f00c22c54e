"""Renderers: what vaultkit publishes from the model and the checks: the site and the report note."""
