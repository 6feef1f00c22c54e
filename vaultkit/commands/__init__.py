"""The commands on top: check, fix, build, watch, serve, init, lsp."""
