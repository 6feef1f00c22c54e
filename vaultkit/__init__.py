"""vaultkit: keep an Obsidian vault of technical notes correct."""

import os

__version__ = "0.1.0"

# The matrices vaultkit computes have a few rows each, and it shares its work out to processes
# of its own (workers.py). The BLAS that numpy's wheels carry (OpenBLAS) would start a thread
# per core as numpy is imported, in each process, whose waiting spins on the cores those
# processes need. Set here, before any module imports numpy; a value the user gave is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
