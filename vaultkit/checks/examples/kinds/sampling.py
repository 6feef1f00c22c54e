"""kind: sampling — softmax with temperature, then top-k and top-p (nucleus) filtering."""

from __future__ import annotations

import numpy as np

from vaultkit.checks.examples.kinds import _params as p
from vaultkit.checks.examples.spec import MALFORMED, OVER_LIMIT, ExampleError, Outcome
from vaultkit.checks.examples.tables import table
from vaultkit.numbers import fmt

NAME = "sampling"
KEYS = {"tokens", "logits", "temperature", "top_k", "top_p"}
MAX_CANDIDATES = 1000


def parse(spec: dict) -> dict:
    p.check_keys(spec, KEYS, {"logits"})
    logits = spec["logits"]
    if not isinstance(logits, list) or not logits:
        raise ExampleError(MALFORMED, "logits must be a list of numbers", "logits")
    if len(logits) > MAX_CANDIDATES:
        raise ExampleError(OVER_LIMIT, f"{len(logits)} logits, over the {MAX_CANDIDATES} limit", "logits")
    values = [p.number({"logits": x}, "logits") for x in logits]
    top_p = p.number(spec, "top_p", positive=True)
    if top_p is not None and top_p > 1:
        raise ExampleError(MALFORMED, f"top_p must be in (0, 1], not {top_p:g}", "top_p")
    return {
        "tokens": p.tokens(spec, len(values)),
        "logits": np.array(values, dtype=np.float64),
        "temperature": p.number(spec, "temperature", 1.0, positive=True),
        "top_k": p.integer(spec, "top_k", lo=1, hi=len(values)) if "top_k" in spec else None,
        "top_p": top_p,
    }


def run(params: dict) -> Outcome:
    logits = params["logits"] / params["temperature"]  # (n,)
    probs = np.exp(logits - logits.max())
    probs /= probs.sum()  # softmax(logits / T)
    order = np.argsort(-probs, kind="stable")  # most likely first; ties keep written order
    kept = np.ones_like(probs, dtype=bool)
    if params["top_k"] is not None:
        kept[order[params["top_k"] :]] = False
    if params["top_p"] is not None:
        # keep the smallest prefix (by probability) whose mass reaches top_p
        before = np.cumsum(probs[order]) - probs[order]  # mass of the more likely candidates
        kept[order[before >= params["top_p"] - 1e-12]] = False
    final = np.where(kept, probs, 0.0)
    final /= final.sum()
    fields = {"probs": probs, "kept": kept.astype(int), "final": final, "logits": params["logits"]}
    return Outcome(result=fields, fields=fields, quantities={"probs": probs, "final": final})


def markdown(example, outcome) -> str:
    params, f, n = example.params, outcome.fields, example.digits
    t = params["temperature"]
    rules = [f"T = {t:g}"]
    if params["top_k"] is not None:
        rules.append(f"top-k = {params['top_k']}")
    if params["top_p"] is not None:
        rules.append(f"top-p = {params['top_p']:g}")
    header = ["候选", "logit", f"softmax(logit / {t:g})", "保留", "重新归一化后"]
    rows = [
        [tok, f"{params['logits'][i]:g}", fmt(f["probs"][i], n), "✓" if f["kept"][i] else "✗", fmt(f["final"][i], n)]
        for i, tok in enumerate(params["tokens"])
    ]
    return table(header, rows) + "\n\n" + "，".join(rules) + "。"
