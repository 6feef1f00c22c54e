"""kind: kv-memory — KV-cache bytes per token and per sequence for MHA / GQA / MQA / MLA models."""

from __future__ import annotations

from vaultkit import engine
from vaultkit.checks.examples.kinds import _params as p
from vaultkit.checks.examples.spec import (
    MALFORMED,
    MISSING_KEY,
    OVER_LIMIT,
    SHAPE_MISMATCH,
    UNKNOWN_KEY,
    ExampleError,
    Outcome,
)
from vaultkit.checks.examples.tables import table
from vaultkit.numbers import fmt

NAME = "kv-memory"
KEYS = {"models", "dtype", "seq_len", "batch"}
MODEL_KEYS = {"name", "layers", "heads", "kv_heads", "head_dim", "latent_dim", "rope_dim", "dtype"}
MAX_MODELS = 32
MAX_LAYERS = 1000
MAX_SEQ = 10**8


def _dtype(value, key: str) -> str:
    if str(value) not in engine.DTYPE_BYTES:
        raise ExampleError(MALFORMED, f"dtype must be one of {', '.join(engine.DTYPE_BYTES)}, not {value!r}", key)
    return str(value)


def _variant(model: dict) -> str:
    if "latent_dim" in model:
        return "MLA"
    heads, kv = model.get("heads"), model["kv_heads"]
    if kv == 1:
        return "MQA"
    if heads is None or heads == kv:
        return "MHA" if heads else "KV"
    return f"GQA-{kv}"


def parse(spec: dict) -> dict:
    p.check_keys(spec, KEYS, {"models"})
    models = spec["models"]
    if not isinstance(models, list) or not models or not all(isinstance(m, dict) for m in models):
        raise ExampleError(
            MALFORMED,
            "models must be a list of mappings (name, layers, kv_heads, head_dim — or latent_dim and rope_dim for MLA)",
            "models",
        )
    if len(models) > MAX_MODELS:
        raise ExampleError(OVER_LIMIT, f"{len(models)} models, over the {MAX_MODELS} limit", "models")
    dtype = _dtype(spec.get("dtype", "fp16"), "dtype")
    rows = []
    for i, model in enumerate(models):
        where = f"models[{i}]"
        for key in model:
            if key not in MODEL_KEYS:
                raise ExampleError(
                    UNKNOWN_KEY, f"{where}: unknown key {key!r} (known: {', '.join(sorted(MODEL_KEYS))})", "models"
                )
        mla = "latent_dim" in model or "rope_dim" in model
        need = ("layers", "latent_dim", "rope_dim") if mla else ("layers", "kv_heads", "head_dim")
        for key in need:
            if key not in model:
                raise ExampleError(MISSING_KEY, f"{where}: missing {key!r}", "models")
        ints = {
            key: p.integer({key: model[key]}, key, hi=MAX_LAYERS if key == "layers" else 65536)
            for key in need + (("heads",) if "heads" in model else ())
        }
        row = {
            "name": str(model.get("name", f"model {i}")),
            **ints,
            "dtype": _dtype(model.get("dtype", dtype), "models"),
        }
        if not mla and "heads" in ints and ints["heads"] % ints["kv_heads"]:
            raise ExampleError(
                SHAPE_MISMATCH,
                f"{where}: heads ({ints['heads']}) is not a multiple of kv_heads ({ints['kv_heads']})",
                "models",
            )
        row["variant"] = _variant(row)
        rows.append(row)
    return {
        "models": rows,
        "seq_len": p.integer(spec, "seq_len", 1, hi=MAX_SEQ),
        "batch": p.integer(spec, "batch", 1, hi=4096),
    }


def run(params: dict) -> Outcome:
    seq_len, batch = params["seq_len"], params["batch"]
    rows = []
    for model in params["models"]:
        if model["variant"] == "MLA":
            per_token = engine.mla_cache_bytes(
                layers=model["layers"], latent_dim=model["latent_dim"], rope_dim=model["rope_dim"], dtype=model["dtype"]
            )
        else:
            per_token = engine.kv_cache_bytes(
                layers=model["layers"], kv_heads=model["kv_heads"], head_dim=model["head_dim"], dtype=model["dtype"]
            )
        per_sequence = per_token * seq_len * batch
        rows.append(
            {
                **model,
                "bytes_per_token": per_token,
                "kib_per_token": per_token / 2**10,
                "mib_per_token": per_token / 2**20,
                "bytes_per_sequence": per_sequence,
                "mib_per_sequence": per_sequence / 2**20,
                "gib_per_sequence": per_sequence / 2**30,
                "gb_per_sequence": per_sequence / 1e9,
            }
        )
    return Outcome(result=rows, fields={"models": rows, "seq_len": seq_len, "batch": batch})


def _shape(row: dict) -> str:
    if row["variant"] == "MLA":
        return f"{row['layers']} 层 × ({row['latent_dim']} + {row['rope_dim']})"
    return f"2 × {row['layers']} 层 × {row['kv_heads']} 头 × {row['head_dim']}"


def markdown(example, outcome) -> str:
    params = example.params
    seq, batch = params["seq_len"], params["batch"]
    header = ["模型", "结构", "每 token 缓存的元素", "dtype", "每 token", f"每序列（{seq:,} token × batch {batch}）"]
    body = []
    for row in outcome.fields["models"]:
        per_token = f"{row['bytes_per_token']:,} B = {fmt(row['kib_per_token'], 1)} KiB"
        per_seq = f"{fmt(row['gib_per_sequence'], 2)} GiB = {fmt(row['gb_per_sequence'], 2)} GB"
        body.append([row["name"], row["variant"], _shape(row), row["dtype"], per_token, per_seq])
    note = "KiB/GiB 按 1024 进位，GB 按 1000 进位；每 token 字节数 = 元素数 × dtype 字节数。"
    return table(header, body) + "\n\n" + note
