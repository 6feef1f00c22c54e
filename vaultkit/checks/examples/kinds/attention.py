"""kind: attention — scaled dot-product attention of one head, with an optional causal mask."""

from __future__ import annotations

import math

from vaultkit import engine
from vaultkit.checks.examples.kinds import _params as p
from vaultkit.checks.examples.spec import MALFORMED, MISSING_KEY, SHAPE_MISMATCH, ExampleError, Outcome
from vaultkit.checks.examples.tables import matrix_table, section

NAME = "attention"
KEYS = {"tokens", "Q", "K", "V", "mask", "scale", "seed", "d_model", "d_head"}


def parse(spec: dict) -> dict:
    p.check_keys(spec, KEYS)
    params = {
        "mask": p.choice(spec, "mask", ("none", "causal"), "none"),
        "scale": p.number(spec, "scale", positive=True),
    }
    if "seed" in spec:
        for key in ("Q", "K", "V"):
            if key in spec:
                raise ExampleError(MALFORMED, f"give either seed or {key}, not both", key)
        toks = p.tokens(spec)
        seed = p.integer(spec, "seed", lo=0, hi=2**32 - 1)
        d_model = p.integer(spec, "d_model", 8)
        d_head = p.integer(spec, "d_head", 4)
        params.update(tokens=toks, seeded=engine.seeded_inputs(toks, seed=seed, d_model=d_model, d_q=d_head))
        return params
    for key in ("Q", "K"):
        if key not in spec:
            raise ExampleError(MISSING_KEY, f"missing required key {key!r} (or give seed, d_model and d_head)")
    q, k = p.matrix(spec, "Q"), p.matrix(spec, "K")
    v = p.matrix(spec, "V") if "V" in spec else None
    if q.shape[1] != k.shape[1]:
        raise ExampleError(
            SHAPE_MISMATCH,
            f"Q is {q.shape[0]}×{q.shape[1]} but K is {k.shape[0]}×{k.shape[1]}: rows of Q and K must have the same length",
            "K",
        )
    if v is not None and v.shape[0] != k.shape[0]:
        raise ExampleError(
            SHAPE_MISMATCH, f"K has {k.shape[0]} rows but V has {v.shape[0]}: one value row per key", "V"
        )
    p.bounded_work(q, k, v)
    if params["mask"] == "causal" and q.shape[0] != k.shape[0]:
        raise ExampleError(
            SHAPE_MISMATCH,
            f"a causal mask needs as many queries as keys (Q has {q.shape[0]} rows, K {k.shape[0]})",
            "mask",
        )
    params.update(
        tokens=p.tokens(spec, q.shape[0]) if q.shape[0] == k.shape[0] else p.tokens(spec, k.shape[0]), q=q, k=k, v=v
    )
    return params


def run(params: dict) -> Outcome:
    seeded = params.get("seeded")
    q, k, v = (seeded.q, seeded.k, seeded.v) if seeded else (params["q"], params["k"], params["v"])
    result = engine.attention(q, k, v, scale=params["scale"], causal=params["mask"] == "causal")
    fields = {
        "Q": q,
        "K": k,
        "scores": result.scores,
        "scaled": result.scaled,
        "masked": result.masked,
        "weights": result.weights,
        "scale": result.scale,
    }
    if v is not None:
        fields.update(V=v, output=result.output)
    if seeded:
        fields.update(x=seeded.x, w_q=seeded.w_q, w_k=seeded.w_k, w_v=seeded.w_v)
    quantities = {key: val for key, val in fields.items() if key != "scale"}
    return Outcome(result=result, fields=fields, quantities=quantities)


def markdown(example, outcome) -> str:
    params, f, n = example.params, outcome.fields, example.digits
    toks = params["tokens"]
    q_rows = toks if len(toks) == f["Q"].shape[0] else [f"q{i}" for i in range(f["Q"].shape[0])]
    k_cols = toks[: f["K"].shape[0]]
    d = f["Q"].shape[1]
    dims = [f"d{j}" for j in range(d)]
    parts = []
    if params.get("seeded"):
        parts.append(
            section(
                f"输入 X（seed {example.spec['seed']}，{f['x'].shape[1]} 维）",
                matrix_table(f["x"], n, rows=toks, cols=[f"x{j}" for j in range(f["x"].shape[1])]),
            )
        )
        parts.append(section("Q = X·W_Q", matrix_table(f["Q"], n, rows=q_rows, cols=dims)))
        parts.append(section("K = X·W_K", matrix_table(f["K"], n, rows=k_cols, cols=dims)))
    parts.append(section("scores = Q·Kᵀ", matrix_table(f["scores"], n, rows=q_rows, cols=k_cols, corner="Q\\K")))
    default = math.isclose(f["scale"], 1 / math.sqrt(d))
    how = f"÷ √{d}" if default else f"× {f['scale']:g}"
    parts.append(section(f"scaled = scores {how}", matrix_table(f["scaled"], n, rows=q_rows, cols=k_cols)))
    if params["mask"] == "causal":
        parts.append(
            section(
                "masked：因果掩码，−∞ 表示看不到后面的 token", matrix_table(f["masked"], n, rows=q_rows, cols=k_cols)
            )
        )
    parts.append(section("weights = softmax（每行和为 1）", matrix_table(f["weights"], n, rows=q_rows, cols=k_cols)))
    if "output" in f:
        parts.append(
            section(
                "output = weights·V",
                matrix_table(f["output"], n, rows=q_rows, cols=[f"v{j}" for j in range(f["output"].shape[1])]),
            )
        )
    return "\n\n".join(parts)
