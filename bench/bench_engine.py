"""Benchmark of vaultkit.engine: KV-cache decoding vs recomputation, and numpy vs torch SDPA.

Run: .venv/bin/python bench/bench_engine.py

1. Decode T = 1,024 tokens of one attention layer (d_model 512, 8 heads of 64) two ways:
   - with the cache: each step projects q, k, v for the new token only and attends over the
     cached K/V rows;
   - without it: each step re-projects K and V for the whole prefix (plus the new token's q),
     as kv_decode's ``projections["without_cache"]`` counts.
   Prints wall time and multiply-add counts of both and their ratios, and checks that both
   give the output of full causal multi-head attention.
2. engine attention vs torch.nn.functional.scaled_dot_product_attention on CPU, float64, at the
   same shapes (a causal prefill of 1,024 tokens and a one-token decode step over 1,024 keys),
   as a time ratio. Skipped with a message when torch is absent.
"""

from __future__ import annotations

import time

import numpy as np

from vaultkit import engine

T, D_MODEL, HEADS = 1024, 512, 8
D_HEAD = D_MODEL // HEADS


def decode_with_cache(x, w_q, w_k, w_v):
    """Project each new token once; K/V rows of earlier tokens come from the cache."""
    k_cache = np.empty((T, D_MODEL))  # (T, d_model)
    v_cache = np.empty((T, D_MODEL))
    out = np.empty((T, D_MODEL))
    for t in range(T):
        q_t, k_cache[t : t + 1], v_cache[t : t + 1] = engine.project(x[t : t + 1], w_q, w_k, w_v)  # (1, d_model)
        out[t] = attend_one(q_t, k_cache[: t + 1], v_cache[: t + 1])
    return out


def decode_without_cache(x, w_q, w_k, w_v):
    """Every step re-projects K and V for the whole prefix 0..t."""
    out = np.empty((T, D_MODEL))
    for t in range(T):
        q_t = x[t : t + 1] @ w_q  # (1, d_model)
        k = x[: t + 1] @ w_k  # (t+1, d_model)
        v = x[: t + 1] @ w_v
        out[t] = attend_one(q_t, k, v)
    return out


def attend_one(q_t, k, v):
    """One query row against all keys, head by head. Returns (d_model,)."""
    row = np.empty(D_MODEL)
    for h in range(HEADS):
        cols = slice(h * D_HEAD, (h + 1) * D_HEAD)
        row[cols] = engine.attention(q_t[:, cols], k[:, cols], v[:, cols]).output[0]
    return row


def multiply_adds(cache: bool) -> int:
    """Multiply-adds of the whole decode: projections plus Q·Kᵀ and weights·V."""
    total = 0
    for t in range(T):
        kv_rows = 1 if cache else t + 1
        total += (1 + 2 * kv_rows) * D_MODEL * D_MODEL  # q row + K/V rows
        total += HEADS * (t + 1) * 2 * D_HEAD  # attention over t+1 keys
    return total


def timed(fn, *args):
    start = time.perf_counter()
    result = fn(*args)
    return result, time.perf_counter() - start


def best_of(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def bench_decode():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(T, D_MODEL))
    w_q, w_k, w_v = (rng.normal(size=(D_MODEL, D_MODEL)) / np.sqrt(D_MODEL) for _ in range(3))

    cached, t_cache = timed(decode_with_cache, x, w_q, w_k, w_v)
    recomputed, t_full = timed(decode_without_cache, x, w_q, w_k, w_v)
    q, k, v = engine.project(x, w_q, w_k, w_v)
    reference = engine.multihead(q, k, v, heads=HEADS, causal=True).concat  # (T, d_model)

    flops_cache, flops_full = multiply_adds(True), multiply_adds(False)
    counts = engine.kv_decode(np.zeros((T, 1)), np.zeros((T, 1)), np.zeros((T, 1))).projections
    print(f"decode {T} tokens, d_model {D_MODEL}, {HEADS} heads of {D_HEAD} (float64, numpy)")
    print(
        f"  with cache      {t_cache:8.2f} s   {flops_cache / 1e9:8.2f} G multiply-adds   "
        f"{counts['with_cache']:>8,} K/V row projections"
    )
    print(
        f"  without cache   {t_full:8.2f} s   {flops_full / 1e9:8.2f} G multiply-adds   "
        f"{counts['without_cache']:>8,} K/V row projections"
    )
    print(f"  ratio (without / with): time {t_full / t_cache:.1f}x, multiply-adds {flops_full / flops_cache:.1f}x")
    print(
        f"  max |with cache - full causal| = {np.abs(cached - reference).max():.1e}, "
        f"max |without cache - full causal| = {np.abs(recomputed - reference).max():.1e}"
    )


def bench_against_torch():
    try:
        import torch
    except ImportError:
        print("torch comparison skipped: torch is not installed (pip install torch to run it)")
        return
    F = torch.nn.functional
    rng = np.random.default_rng(1)
    q, k, v = (rng.normal(size=(T, D_MODEL)) for _ in range(3))

    def heads_first(a):  # (n, heads·d_head) -> (1, heads, n, d_head)
        return torch.from_numpy(a.reshape(a.shape[0], HEADS, D_HEAD).transpose(1, 0, 2).copy())[None]

    tq, tk, tv = heads_first(q), heads_first(k), heads_first(v)
    print(
        f"engine vs torch {torch.__version__} SDPA on CPU ({torch.get_num_threads()} threads), float64, "
        f"{HEADS} heads of {D_HEAD}"
    )
    shapes = [
        (
            f"causal prefill {T}x{T}",
            T,
            lambda: engine.multihead(q, k, v, heads=HEADS, causal=True),
            lambda: F.scaled_dot_product_attention(tq, tk, tv, is_causal=True),
            5,
        ),
        (
            f"decode step 1x{T}",
            1,
            lambda: engine.multihead(q[-1:], k, v, heads=HEADS),
            lambda: F.scaled_dot_product_attention(tq[:, :, -1:], tk, tv),
            200,
        ),
    ]
    for label, rows, ours, theirs, repeat in shapes:
        diff = np.abs(ours().concat - theirs()[0].permute(1, 0, 2).reshape(rows, D_MODEL).numpy()).max()
        t_ours, t_theirs = best_of(ours, repeat), best_of(theirs, repeat)
        print(
            f"  {label:22s} engine {t_ours * 1e3:8.2f} ms   torch {t_theirs * 1e3:8.2f} ms   "
            f"engine/torch {t_ours / t_theirs:5.2f}x   max |diff| {diff:.1e}"
        )


if __name__ == "__main__":
    start = time.perf_counter()
    bench_decode()
    bench_against_torch()
    print(f"total {time.perf_counter() - start:.1f} s")
