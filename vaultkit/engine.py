"""The numeric engine: attention, multi-head / GQA, KV-cache decoding, KV-cache sizing.

On the ground floor: it imports numpy and no stage of vaultkit, and every stage may import it
(the examples' kinds, text matrices, drawings, walkthroughs). Its public API:

* ``attention(q, k, v=None, *, mask, scale, causal, align)`` → ``AttentionResult`` (scores,
  scaled, masked, weights, output, scale); ``softmax_rows``, ``causal_mask(L, S, align)``.
* ``multihead(q, k, v, *, heads, kv_heads, w_o, causal)`` → ``MultiheadResult`` (heads, kv_map,
  concat, output): MHA, GQA and MQA.
* ``kv_decode(q, k, v, *, prompt_len)`` → ``DecodeResult`` (steps, output, projections,
  max_abs_diff): prefill, then one token at a time against the cache.
* ``project(x, w_q, w_k, w_v)``; ``seeded_inputs`` and ``seeded_multihead_inputs`` →
  ``SeededInputs``: matrices a note can print, drawn from a seed.
* ``kv_cache_bytes`` and ``mla_cache_bytes`` (exact ints), ``DTYPE_BYTES``.
* The gate for untrusted input: ``as_matrix``, ``check_work``, ``MAX_CELLS``, ``MAX_WORK``;
  errors ``ShapeError`` and ``LimitError`` (both ValueError).

tests/test_engine_torch.py holds it to torch's ``scaled_dot_product_attention`` within 1e-12
in float64 (plain, scaled, boolean and additive masks, both causal alignments, GQA, decoding).

Everything is computed in float64 with plain numpy and follows PyTorch's
``scaled_dot_product_attention``: default scale 1/√d, a boolean mask means
True = may attend, a float mask is added to the scaled scores, fully masked rows
give zero weights and zero output, and GQA maps query head h to KV head
h // (heads // kv_heads).

Shapes in comments: L queries, S keys, d query/key width, dv value width.

Two layers of validation:

* The math functions (``attention``, ``multihead``, ``kv_decode``, ``project``)
  check structure — 2-D, finite, non-empty, matching shapes — but not size, so
  tests and benchmarks can use real model shapes.
* Untrusted input (an example written in a note) must go through the gate
  first: ``as_matrix`` (at most ``MAX_CELLS`` cells per matrix) and
  ``check_work`` (at most ``MAX_WORK`` multiply-adds). ``seeded_inputs`` applies
  both bounds itself, since it builds matrices from a few small numbers.

Errors are ``ValueError``; ``ShapeError`` (shapes do not fit together) and
``LimitError`` (over a size or work bound) are subclasses, so callers can
tell them apart.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

MAX_CELLS = 100_000  # largest matrix accepted from a note
MAX_WORK = 10**8  # largest attention work (multiply-adds) accepted from a note

# Bytes per stored value for each cache dtype (int4 packs two values per byte).
DTYPE_BYTES: dict[str, float] = {
    "fp32": 4,
    "float32": 4,
    "fp16": 2,
    "float16": 2,
    "bf16": 2,
    "bfloat16": 2,
    "fp8": 1,
    "int8": 1,
    "int4": 0.5,
}

ALIGNMENTS = ("top-left", "bottom-right")


class ShapeError(ValueError):
    """Matrices whose shapes do not fit together."""


class LimitError(ValueError):
    """Input over the size or work bound."""


# ---------------------------------------------------------------------------
# Validation
# ---------------------------------------------------------------------------


def _shape(a: np.ndarray) -> str:
    return "×".join(str(n) for n in a.shape)


def as_matrix(value, name: str, *, max_cells: int | None = MAX_CELLS) -> np.ndarray:
    """Turn a matrix (nested lists or an array) into a float64 2-D array.

    Raises ValueError naming ``name`` when the value is not a non-empty
    rectangular matrix of finite numbers (bools are not numbers), and
    LimitError when it has more than ``max_cells`` cells (None: no bound).
    """
    if isinstance(value, np.ndarray):
        if value.dtype == bool:
            raise ValueError(f"{name} holds booleans, not numbers")
        if not np.issubdtype(value.dtype, np.number):
            value = value.tolist()
    if not isinstance(value, np.ndarray):
        value = _nested_to_array(value, name, max_cells)
    if value.ndim != 2:
        raise ValueError(f"{name} must be a matrix (a list of rows), got an array of shape {value.shape}")
    if value.size == 0:
        raise ValueError(f"{name} is empty ({_shape(value)})")
    if max_cells is not None and value.size > max_cells:
        raise LimitError(f"{name} is {_shape(value)} = {value.size:,} cells, over the limit of {max_cells:,}")
    if np.iscomplexobj(value):
        raise ValueError(f"{name} holds complex numbers")
    matrix = np.asarray(value, dtype=np.float64)  # no copy when already float64
    finite = np.isfinite(matrix)
    if not finite.all():
        i, j = np.argwhere(~finite)[0]
        raise ValueError(f"{name}[{i}][{j}] is {matrix[i, j]}: values must be finite")
    return matrix


def _nested_to_array(value, name: str, max_cells: int | None) -> np.ndarray:
    """Check nested lists cell by cell, so errors point at the bad cell."""
    if not isinstance(value, (list, tuple)):
        raise ValueError(f"{name} must be a matrix (a list of rows), got {type(value).__name__}")
    if not value:
        raise ValueError(f"{name} is empty (0 rows)")
    if not all(isinstance(row, (list, tuple)) for row in value):
        raise ValueError(f"{name} must be a matrix (a list of rows), not a flat list")
    width = len(value[0])
    if max_cells is not None and len(value) * width > max_cells:
        raise LimitError(
            f"{name} is {len(value)}×{width} = {len(value) * width:,} cells, over the limit of {max_cells:,}"
        )
    for i, row in enumerate(value):
        if len(row) != width:
            raise ValueError(f"{name} is ragged: row {i} has {len(row)} values but row 0 has {width}")
        for j, cell in enumerate(row):
            if isinstance(cell, bool) or not isinstance(cell, numbers.Real):
                raise ValueError(f"{name}[{i}][{j}] is {cell!r}, not a number")
            if isinstance(cell, numbers.Integral) and abs(cell) > 1e300:
                raise ValueError(f"{name}[{i}][{j}] is too large: values must be finite floats")
    return np.array(value, dtype=np.float64).reshape(len(value), width)


def _positive_int(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def check_work(*, queries: int, keys: int, d: int, dv: int = 0, heads: int = 1) -> int:
    """Return the multiply-adds of attention (Q·Kᵀ plus weights·V over all heads).

    Raises LimitError when it is over ``MAX_WORK``.
    """
    work = heads * queries * keys * (d + dv)
    if work > MAX_WORK:
        raise LimitError(
            f"attention of {queries} queries × {keys} keys × width {d}+{dv} × {heads} heads "
            f"is {work:,} multiply-adds, over the limit of {MAX_WORK:,}"
        )
    return work


def _mask_array(mask, L: int, S: int) -> np.ndarray:
    """A boolean mask (True = may attend) or an additive float mask, shaped (L, S)."""
    try:
        mask = np.asarray(mask)
    except ValueError:
        raise ValueError("mask must be a rectangular matrix of booleans or floats") from None
    if mask.dtype != bool:
        if not np.issubdtype(mask.dtype, np.number) or np.iscomplexobj(mask):
            raise ValueError("mask must hold booleans (True = may attend) or additive floats")
        mask = mask.astype(np.float64)
        if np.isnan(mask).any() or np.isposinf(mask).any():
            raise ValueError("an additive mask may hold finite values and -inf, not NaN or +inf")
    try:
        return np.broadcast_to(mask, (L, S))
    except ValueError:
        raise ShapeError(
            f"mask is {_shape(mask)} but the scores are {L}×{S}: the mask must broadcast to them"
        ) from None


def causal_mask(L: int, S: int, align: str = "top-left") -> np.ndarray:
    """Boolean (L, S) mask, True where query i may attend key j.

    top-left: j <= i (torch ``is_causal``). bottom-right: j <= i + (S - L), the
    last query sees every key — a chunk of new queries against a longer cache.
    """
    if align not in ALIGNMENTS:
        raise ValueError(f"align must be one of {', '.join(ALIGNMENTS)}, got {align!r}")
    offset = 0 if align == "top-left" else S - L
    i = np.arange(L)[:, None]  # (L, 1)
    j = np.arange(S)[None, :]  # (1, S)
    return j <= i + offset  # (L, S)


def softmax_rows(masked: np.ndarray) -> np.ndarray:
    """Row softmax; a row that is all -inf (fully masked) gives zeros, not NaN."""
    row_max = masked.max(axis=-1, keepdims=True)  # (L, 1)
    row_max = np.where(np.isfinite(row_max), row_max, 0.0)
    exp = np.exp(masked - row_max)  # (L, S), exp(-inf) = 0
    total = exp.sum(axis=-1, keepdims=True)  # (L, 1)
    return np.divide(exp, total, out=np.zeros_like(exp), where=total > 0)


# ---------------------------------------------------------------------------
# Attention
# ---------------------------------------------------------------------------


@dataclass
class AttentionResult:
    scores: np.ndarray  # (L, S) q·kᵀ
    scaled: np.ndarray  # (L, S) scores × scale
    masked: np.ndarray  # (L, S) scaled with -inf where masked (plus an additive mask)
    weights: np.ndarray  # (L, S) softmax rows; zeros in fully masked rows
    output: np.ndarray | None  # (L, dv) weights·v, None without v
    scale: float


def attention(q, k, v=None, *, mask=None, scale=None, causal=False, align="top-left") -> AttentionResult:
    """Scaled dot-product attention of q (L, d) over k (S, d), optionally values v (S, dv).

    ``mask``: boolean (True = may attend) or additive float, broadcastable to
    (L, S). ``causal``: also mask the future, aligned top-left (torch
    ``is_causal``) or bottom-right (a query chunk against a longer cache); it
    combines with ``mask``. Default scale 1/√d.
    """
    q = as_matrix(q, "Q", max_cells=None)  # (L, d)
    k = as_matrix(k, "K", max_cells=None)  # (S, d)
    L, d = q.shape
    S = k.shape[0]
    if k.shape[1] != d:
        raise ShapeError(f"Q is {_shape(q)} but K is {_shape(k)}: the last dimensions must match")
    if v is not None:
        v = as_matrix(v, "V", max_cells=None)  # (S, dv)
        if v.shape[0] != S:
            raise ShapeError(f"K is {_shape(k)} but V is {_shape(v)}: they need the same number of rows")
    if scale is None:
        scale = 1.0 / math.sqrt(d)
    elif isinstance(scale, bool) or not isinstance(scale, numbers.Real) or not abs(scale) < 1e300:
        raise ValueError(f"scale must be a finite number, got {scale!r}")
    scale = float(scale)

    with np.errstate(over="ignore", invalid="ignore"):  # overflow is refused just below
        scores = q @ k.T  # (L, S)
        scaled = scores * scale  # (L, S)
    if not np.isfinite(scaled).all():
        raise ValueError("the attention scores overflow float64: the inputs are too large")

    masked = scaled.copy()  # (L, S)
    if mask is not None:
        mask = _mask_array(mask, L, S)
        if mask.dtype == bool:
            masked[~mask] = -np.inf
        else:
            with np.errstate(over="ignore"):  # a score the mask makes +inf is refused just below
                masked = masked + mask
    if causal:
        masked[~causal_mask(L, S, align)] = -np.inf

    if np.isnan(masked).any() or np.isposinf(masked).any():
        raise ValueError("the additive mask makes a score NaN or +inf")

    weights = softmax_rows(masked)  # (L, S)
    output = None if v is None else weights @ v  # (L, dv)
    return AttentionResult(scores, scaled, masked, weights, output, scale)


# ---------------------------------------------------------------------------
# Multi-head attention (MHA / GQA / MQA)
# ---------------------------------------------------------------------------


@dataclass
class MultiheadResult:
    heads: list[AttentionResult]  # one per query head
    kv_map: list[int]  # query head h -> KV head index
    concat: np.ndarray  # (L, heads·dv_head)
    output: np.ndarray | None  # concat @ w_o, None without w_o


def multihead(q, k, v, *, heads, kv_heads=None, w_o=None, causal=False) -> MultiheadResult:
    """Multi-head attention; heads are contiguous column blocks.

    q is (L, heads·d_head), k is (S, kv_heads·d_head), v is (S, kv_heads·dv_head).
    kv_heads defaults to heads (MHA); fewer is GQA, 1 is MQA. Query head h
    uses KV head h // (heads // kv_heads).
    """
    heads = _positive_int(heads, "heads")
    kv_heads = heads if kv_heads is None else _positive_int(kv_heads, "kv_heads")
    if heads % kv_heads:
        raise ShapeError(f"heads={heads} is not divisible by kv_heads={kv_heads}")
    q = as_matrix(q, "Q", max_cells=None)  # (L, heads·d_head)
    k = as_matrix(k, "K", max_cells=None)  # (S, kv_heads·d_head)
    v = as_matrix(v, "V", max_cells=None)  # (S, kv_heads·dv_head)
    for name, m, n in (("Q", q, heads), ("K", k, kv_heads), ("V", v, kv_heads)):
        if m.shape[1] % n:
            raise ShapeError(f"{name} is {_shape(m)}: its {m.shape[1]} columns do not split into {n} heads")
    d_head = q.shape[1] // heads
    if k.shape[1] // kv_heads != d_head:
        raise ShapeError(
            f"Q is {_shape(q)} ({heads} heads of {d_head}) but K is {_shape(k)} "
            f"({kv_heads} heads of {k.shape[1] // kv_heads}): head widths must match"
        )
    if k.shape[0] != v.shape[0]:
        raise ShapeError(f"K is {_shape(k)} but V is {_shape(v)}: they need the same number of rows")
    dv_head = v.shape[1] // kv_heads

    group = heads // kv_heads  # query heads sharing one KV head
    kv_map = [h // group for h in range(heads)]
    results = []
    for h, g in enumerate(kv_map):
        q_h = q[:, h * d_head : (h + 1) * d_head]  # (L, d_head)
        k_g = k[:, g * d_head : (g + 1) * d_head]  # (S, d_head)
        v_g = v[:, g * dv_head : (g + 1) * dv_head]  # (S, dv_head)
        results.append(attention(q_h, k_g, v_g, causal=causal))
    concat = np.concatenate([r.output for r in results], axis=1)  # (L, heads·dv_head)

    output = None
    if w_o is not None:
        w_o = as_matrix(w_o, "W_O", max_cells=None)  # (heads·dv_head, d_out)
        if w_o.shape[0] != concat.shape[1]:
            raise ShapeError(
                f"the concatenated heads are {_shape(concat)} but W_O is {_shape(w_o)}: "
                f"W_O needs {concat.shape[1]} rows"
            )
        output = concat @ w_o  # (L, d_out)
    return MultiheadResult(results, kv_map, concat, output)


# ---------------------------------------------------------------------------
# KV-cache decoding
# ---------------------------------------------------------------------------


@dataclass
class DecodeStep:
    """One step of generation.

    Step 0 is the prefill: it covers positions 0..prompt_len-1, ``position`` is
    the last prompt position, ``weights`` is the 2-D causal weight matrix
    (prompt_len, prompt_len) and ``output`` is 2-D (prompt_len, dv). Every later
    step is one token at ``position`` t: ``weights`` is 1-D over positions 0..t
    and ``output`` is its 1-D row.
    """

    position: int
    reused: list[int]  # positions whose K/V rows come from the cache
    computed: list[int]  # positions whose K/V rows are projected in this step
    weights: np.ndarray
    output: np.ndarray


@dataclass
class DecodeResult:
    steps: list[DecodeStep]
    output: np.ndarray  # (T, dv) every token's output, in order
    projections: dict[str, int]  # tokens whose K/V rows are projected: with vs without cache
    max_abs_diff: float  # max |output − full causal attention output|


def kv_decode(q, k, v, *, prompt_len=1) -> DecodeResult:
    """Prefill the first prompt_len tokens, then decode one token at a time with a KV cache.

    q, k are (T, d) and v is (T, dv): the per-token projections. Each decode
    step projects only the new token's K/V row and reuses the cached rows; the
    result is compared with full causal attention over all T tokens.
    ``projections`` counts tokens whose K and V rows get projected over the whole
    generation: with the cache each token once (T); without it every step
    recomputes its whole prefix (prompt_len + Σ (t+1) over the decode steps).
    """
    q = as_matrix(q, "Q", max_cells=None)  # (T, d)
    k = as_matrix(k, "K", max_cells=None)  # (T, d)
    v = as_matrix(v, "V", max_cells=None)  # (T, dv)
    T, d = q.shape
    if k.shape != (T, d):
        raise ShapeError(f"Q is {_shape(q)} but K is {_shape(k)}: they must have the same shape")
    if v.shape[0] != T:
        raise ShapeError(f"Q is {_shape(q)} but V is {_shape(v)}: they need the same number of rows")
    prompt_len = _positive_int(prompt_len, "prompt_len")
    if prompt_len > T:
        raise ShapeError(f"prompt_len={prompt_len} is longer than the {T} tokens")

    # Prefill: the prompt attends causally to itself; its K/V rows fill the cache.
    p = prompt_len
    prefill = attention(q[:p], k[:p], v[:p], causal=True)
    steps = [DecodeStep(p - 1, [], list(range(p)), prefill.weights, prefill.output)]
    rows = [prefill.output]  # list of (n, dv)

    # Decode: token t projects its own K/V row and reads rows 0..t-1 from the cache.
    for t in range(p, T):
        step = attention(q[t : t + 1], k[: t + 1], v[: t + 1])  # (1, t+1) weights
        steps.append(DecodeStep(t, list(range(t)), [t], step.weights[0], step.output[0]))
        rows.append(step.output)
    output = np.concatenate(rows, axis=0)  # (T, dv)

    full = attention(q, k, v, causal=True).output  # (T, dv)
    projections = {
        "with_cache": T,
        "without_cache": p + sum(t + 1 for t in range(p, T)),
    }
    return DecodeResult(steps, output, projections, float(np.max(np.abs(output - full))))


def project(x, w_q, w_k, w_v) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Project token embeddings x (n, d_model) into q, k, v with plain matmuls."""
    x = as_matrix(x, "X", max_cells=None)  # (n, d_model)
    out = []
    for name, w in (("W_Q", w_q), ("W_K", w_k), ("W_V", w_v)):
        w = as_matrix(w, name, max_cells=None)  # (d_model, d_out)
        if w.shape[0] != x.shape[1]:
            raise ShapeError(f"X is {_shape(x)} but {name} is {_shape(w)}: {name} needs {x.shape[1]} rows")
        out.append(x @ w)  # (n, d_out)
    return out[0], out[1], out[2]


# ---------------------------------------------------------------------------
# Deterministic inputs from a seed
# ---------------------------------------------------------------------------


@dataclass
class SeededInputs:
    x: np.ndarray  # (n, d_model) token embeddings
    w_q: np.ndarray  # (d_model, d_q)
    w_k: np.ndarray  # (d_model, d_k)
    w_v: np.ndarray  # (d_model, d_v)
    q: np.ndarray  # (n, d_q) = x @ w_q
    k: np.ndarray  # (n, d_k) = x @ w_k
    v: np.ndarray  # (n, d_v) = x @ w_v
    w_o: np.ndarray | None = None  # (heads·d_head, d_model), multihead only


def _draw(seed, shapes: dict[str, tuple[int, int]]) -> dict[str, np.ndarray]:
    """Draw each matrix in order from default_rng(seed): normal × 0.5, rounded to 2 decimals."""
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    for name, (rows, cols) in shapes.items():
        if rows * cols > MAX_CELLS:
            raise LimitError(f"{name} would be {rows}×{cols} = {rows * cols:,} cells, over the limit of {MAX_CELLS:,}")
    rng = np.random.default_rng(int(seed))
    # "+ 0.0" turns -0.0 into 0.0, so a printed value never reads "-0.00".
    return {name: np.round(rng.normal(0.0, 0.5, size=shape), 2) + 0.0 for name, shape in shapes.items()}


def _token_count(tokens) -> int:
    if not len(tokens):
        raise ValueError("tokens is empty")
    return len(tokens)


def seeded_inputs(tokens, *, seed: int, d_model: int, d_q: int, d_v: int | None = None) -> SeededInputs:
    """Embeddings X and weights W_Q, W_K (both d_model × d_q) and W_V (d_model × d_v, default d_q).

    Values come from ``numpy.random.default_rng(seed)``: normal × 0.5 rounded to
    2 decimals (so notes can print them exactly), drawn in the order X, W_Q,
    W_K, W_V. Only the number of tokens matters, not their text. q, k, v are
    X @ W (not rounded). Each matrix is bounded by MAX_CELLS.
    """
    n = _token_count(tokens)
    d_model = _positive_int(d_model, "d_model")
    d_q = _positive_int(d_q, "d_q")
    d_v = d_q if d_v is None else _positive_int(d_v, "d_v")
    m = _draw(seed, {"X": (n, d_model), "W_Q": (d_model, d_q), "W_K": (d_model, d_q), "W_V": (d_model, d_v)})
    q, k, v = project(m["X"], m["W_Q"], m["W_K"], m["W_V"])
    return SeededInputs(m["X"], m["W_Q"], m["W_K"], m["W_V"], q, k, v)


def seeded_multihead_inputs(
    tokens, *, seed: int, d_model: int, d_head: int, heads: int, kv_heads: int | None = None
) -> SeededInputs:
    """Like ``seeded_inputs``, shaped for ``multihead``, plus the output projection.

    W_Q is d_model × heads·d_head, W_K and W_V are d_model × kv_heads·d_head,
    W_O is heads·d_head × d_model; drawn in the order X, W_Q, W_K, W_V, W_O.
    """
    n = _token_count(tokens)
    d_model = _positive_int(d_model, "d_model")
    d_head = _positive_int(d_head, "d_head")
    heads = _positive_int(heads, "heads")
    kv_heads = heads if kv_heads is None else _positive_int(kv_heads, "kv_heads")
    if heads % kv_heads:
        raise ShapeError(f"heads={heads} is not divisible by kv_heads={kv_heads}")
    m = _draw(
        seed,
        {
            "X": (n, d_model),
            "W_Q": (d_model, heads * d_head),
            "W_K": (d_model, kv_heads * d_head),
            "W_V": (d_model, kv_heads * d_head),
            "W_O": (heads * d_head, d_model),
        },
    )
    q, k, v = project(m["X"], m["W_Q"], m["W_K"], m["W_V"])
    return SeededInputs(m["X"], m["W_Q"], m["W_K"], m["W_V"], q, k, v, m["W_O"])


# ---------------------------------------------------------------------------
# KV-cache size
# ---------------------------------------------------------------------------


def _exact_bytes(values: int, dtype: str) -> int:
    """values × bytes per value of dtype, as an exact int."""
    key = dtype.lower() if isinstance(dtype, str) else dtype
    if key not in DTYPE_BYTES:
        raise ValueError(f"unknown dtype {dtype!r}; known: {', '.join(DTYPE_BYTES)}")
    total = values * Fraction(DTYPE_BYTES[key])
    if total.denominator != 1:
        raise ValueError(f"{values:,} values of {dtype} is {float(total):,} bytes, not a whole number")
    return int(total)


def kv_cache_bytes(*, layers, kv_heads, head_dim, dtype="fp16", seq_len=1, batch=1) -> int:
    """Bytes of a KV cache: 2 (K and V) × layers × kv_heads × head_dim × bytes(dtype) × seq_len × batch."""
    values = 2 * math.prod(
        _positive_int(n, name)
        for name, n in (
            ("layers", layers),
            ("kv_heads", kv_heads),
            ("head_dim", head_dim),
            ("seq_len", seq_len),
            ("batch", batch),
        )
    )
    return _exact_bytes(values, dtype)


def mla_cache_bytes(*, layers, latent_dim, rope_dim, dtype="fp16", seq_len=1, batch=1) -> int:
    """Bytes of an MLA cache: layers × (latent_dim + rope_dim) × bytes(dtype) × seq_len × batch.

    No factor 2: MLA caches one compressed latent (K and V are both rebuilt from
    it) plus the decoupled RoPE key. rope_dim may be 0.
    """
    if isinstance(rope_dim, bool) or not isinstance(rope_dim, numbers.Integral) or rope_dim < 0:
        raise ValueError(f"rope_dim must be a non-negative integer, got {rope_dim!r}")
    width = _positive_int(latent_dim, "latent_dim") + int(rope_dim)
    values = width * math.prod(
        _positive_int(n, name) for name, n in (("layers", layers), ("seq_len", seq_len), ("batch", batch))
    )
    return _exact_bytes(values, dtype)
