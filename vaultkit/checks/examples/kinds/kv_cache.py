"""kind: kv-cache — prefill, then decode token by token reusing cached K/V; proof that it equals
full causal attention.

With `weights` instead of computed inputs (no seed, no Q/K/V) the block is a walkthrough's
illustrative example: the weights are the note's own, in percent, one entry per position
(`{我: 30%, 想: 70%}`, a share of a group as `我/想: 5%`, `null` where the note gives none),
marked `illustrative: true`. Nothing is computed from them; what is real is which K/V each
step reads from the cache and which it computes, and each row must be a causal split
that sums to 100 %."""

from __future__ import annotations

from vaultkit import engine
from vaultkit.checks.examples.kinds import _params as p
from vaultkit.checks.examples.spec import MISSING_KEY, OVER_LIMIT, SHAPE_MISMATCH, ExampleError, Outcome
from vaultkit.checks.examples.tables import matrix_table, section, table
from vaultkit.numbers import fmt

NAME = "kv-cache"
KEYS = {"tokens", "prompt_len", "seed", "d_model", "d_head", "Q", "K", "V", "weights", "illustrative"}
TOLERANCE = 1e-12


def parse(spec: dict) -> dict:
    p.check_keys(spec, KEYS)
    if "weights" in spec or "illustrative" in spec:
        from vaultkit.checks.examples.kinds import _stated as kv_stated

        return kv_stated.parse(spec)
    if "seed" in spec:
        toks = p.tokens(spec)
        try:
            seeded = engine.seeded_inputs(
                toks,
                seed=p.integer(spec, "seed", lo=0, hi=2**32 - 1),
                d_model=p.integer(spec, "d_model", 8),
                d_q=p.integer(spec, "d_head", 4),
            )
        except ValueError as exc:
            raise ExampleError(OVER_LIMIT, str(exc)) from None
        q, k, v = seeded.q, seeded.k, seeded.v
    else:
        for key in ("Q", "K", "V"):
            if key not in spec:
                raise ExampleError(MISSING_KEY, f"missing required key {key!r} (or give seed, d_model and d_head)")
        q, k, v = p.matrix(spec, "Q"), p.matrix(spec, "K"), p.matrix(spec, "V")
        if not (q.shape[0] == k.shape[0] == v.shape[0]) or q.shape[1] != k.shape[1]:
            raise ExampleError(
                SHAPE_MISMATCH,
                f"Q is {q.shape[0]}×{q.shape[1]}, K {k.shape[0]}×{k.shape[1]}, V {v.shape[0]}×{v.shape[1]}: one row per token, Q and K of equal width",
            )
        p.bounded_work(q, k, v)
        toks = p.tokens(spec, q.shape[0])
    prompt_len = p.integer(spec, "prompt_len", 1, hi=len(toks))
    return {"tokens": toks, "prompt_len": prompt_len, "q": q, "k": k, "v": v}


def run(params: dict) -> Outcome:
    if params.get("illustrative"):
        from vaultkit.checks.examples.kinds import _stated as kv_stated

        return kv_stated.run(params)
    result = engine.kv_decode(params["q"], params["k"], params["v"], prompt_len=params["prompt_len"])
    steps = [
        {
            "position": s.position,
            "reused": list(s.reused),
            "computed": list(s.computed),
            "weights": s.weights,
            "output": s.output,
        }
        for s in result.steps
    ]
    fields = {
        "steps": steps,
        "output": result.output,
        "max_abs_diff": result.max_abs_diff,
        "projections": dict(result.projections),
        "Q": params["q"],
        "K": params["k"],
        "V": params["v"],
    }
    return Outcome(result=result, fields=fields, quantities={"output": result.output})


def _names(toks: list[str], positions: list[int]) -> str:
    return "、".join(toks[i] for i in positions) if positions else "—"


def markdown(example, outcome) -> str:
    if example.params.get("illustrative"):
        from vaultkit.checks.examples.kinds import _stated as kv_stated

        return kv_stated.markdown(example, outcome)
    params, f, n = example.params, outcome.fields, example.digits
    toks, result = params["tokens"], outcome.result
    prefill = result.steps[0]
    parts = [
        section(
            f"第 0 步 prefill：{'、'.join(toks[: params['prompt_len']])} 一次算完，K/V 写入缓存",
            matrix_table(prefill.weights, n, rows=toks[: params["prompt_len"]], cols=toks[: params["prompt_len"]]),
        )
    ]
    rows = []
    for i, step in enumerate(result.steps[1:], start=1):
        weights = "，".join(f"{toks[j]} {fmt(w, n)}" for j, w in enumerate(step.weights))
        rows.append([str(i), toks[step.position], _names(toks, step.reused), _names(toks, step.computed), weights])
    if rows:
        parts.append(
            section(
                "逐步解码：每步只为新 token 计算 K/V，其余从缓存读取",
                table(["步", "查询 token", "复用缓存的 K/V", "新计算的 K/V", "对已有位置的权重"], rows, align="left"),
            )
        )
    proj = f["projections"]
    ok = "✓" if f["max_abs_diff"] <= TOLERANCE else "✗"
    parts.append(
        f"K/V 投影次数：有缓存 {proj['with_cache']} 次，无缓存（每步重算整个前缀）{proj['without_cache']} 次。"
        f"缓存解码的输出与完整因果注意力逐元素相同：最大差 ≤ 1e-12 {ok}"
    )
    return "\n\n".join(parts)
