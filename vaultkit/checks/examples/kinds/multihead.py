"""kind: multihead — several attention heads side by side; GQA/MQA share KV heads."""

from __future__ import annotations

from vaultkit import engine
from vaultkit.checks.examples.kinds import _params as p
from vaultkit.checks.examples.spec import OVER_LIMIT, SHAPE_MISMATCH, ExampleError, Outcome
from vaultkit.checks.examples.tables import matrix_table, section, table

NAME = "multihead"
KEYS = {"tokens", "heads", "kv_heads", "d_head", "d_model", "seed", "mask"}
MAX_HEADS = 64


def parse(spec: dict) -> dict:
    p.check_keys(spec, KEYS, {"tokens", "heads", "seed"})
    heads = p.integer(spec, "heads", hi=MAX_HEADS)
    kv_heads = p.integer(spec, "kv_heads", heads, hi=MAX_HEADS)
    if heads % kv_heads:
        raise ExampleError(SHAPE_MISMATCH, f"heads ({heads}) must be a multiple of kv_heads ({kv_heads})", "kv_heads")
    toks = p.tokens(spec)
    d_head = p.integer(spec, "d_head", 2, hi=256)
    d_model = p.integer(spec, "d_model", heads * d_head)
    seed = p.integer(spec, "seed", lo=0, hi=2**32 - 1)
    try:
        engine.check_work(queries=len(toks), keys=len(toks), d=d_head, dv=d_head, heads=heads)
        seeded = engine.seeded_multihead_inputs(
            toks, seed=seed, d_model=d_model, d_head=d_head, heads=heads, kv_heads=kv_heads
        )
    except ValueError as exc:
        raise ExampleError(OVER_LIMIT, str(exc)) from None
    return {
        "tokens": toks,
        "heads": heads,
        "kv_heads": kv_heads,
        "d_head": d_head,
        "mask": p.choice(spec, "mask", ("none", "causal"), "none"),
        "seeded": seeded,
    }


def run(params: dict) -> Outcome:
    s = params["seeded"]
    result = engine.multihead(
        s.q, s.k, s.v, heads=params["heads"], kv_heads=params["kv_heads"], w_o=s.w_o, causal=params["mask"] == "causal"
    )
    per_head = [
        {"scores": h.scores, "scaled": h.scaled, "masked": h.masked, "weights": h.weights, "output": h.output}
        for h in result.heads
    ]
    fields = {
        "heads": per_head,
        "kv_map": list(result.kv_map),
        "concat": result.concat,
        "output": result.output,
        "x": s.x,
        "w_q": s.w_q,
        "w_k": s.w_k,
        "w_v": s.w_v,
        "w_o": s.w_o,
        "Q": s.q,
        "K": s.k,
        "V": s.v,
    }
    return Outcome(result=result, fields=fields, quantities={"concat": result.concat, "output": result.output})


def markdown(example, outcome) -> str:
    params, f, n = example.params, outcome.fields, example.digits
    toks, heads, kv_heads = params["tokens"], params["heads"], params["kv_heads"]
    variant = (
        "MHA"
        if kv_heads == heads
        else ("MQA" if kv_heads == 1 else f"GQA（每 {heads // kv_heads} 个查询头共享 1 组 KV）")
    )
    mapping = table(["查询头"] + [f"h{h}" for h in range(heads)], [["使用的 KV 头"] + [f"kv{k}" for k in f["kv_map"]]])
    parts = [section(f"{heads} 个查询头，{kv_heads} 个 KV 头：{variant}", mapping)]
    for h, head in enumerate(f["heads"]):
        parts.append(
            section(
                f"头 h{h} 的 weights（用 kv{f['kv_map'][h]}）", matrix_table(head["weights"], n, rows=toks, cols=toks)
            )
        )
    d_model = f["output"].shape[1]
    parts.append(
        section(
            "output = concat(heads)·W_O",
            matrix_table(f["output"], n, rows=toks, cols=[f"o{j}" for j in range(d_model)]),
        )
    )
    return "\n\n".join(parts)
