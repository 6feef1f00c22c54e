"""Properties, worked numbers and validation of vaultkit.engine."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultkit import engine

TOL = 1e-12

# The Q and K printed in the person's attention diagram.
DIAGRAM_Q = [[0.5, 0.3, -0.2, 0.8], [0.1, -0.4, 0.7, 0.2], [-0.3, 0.6, 0.1, -0.5], [0.7, -0.1, -0.3, 0.4]]
DIAGRAM_K = [[0.3, -0.5, 0.2, 0.1], [-0.2, 0.6, 0.2, -0.3], [0.4, -0.1, -0.4, 0.5], [0.1, 0.3, 0.6, -0.2]]


@st.composite
def qkv(draw, square=False):
    """Random (q, k, v) from a seed: q (L, d), k (S, d), v (S, dv)."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    L = draw(st.integers(1, 8))
    S = L if square else draw(st.integers(1, 8))
    d, dv = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    return rng.normal(size=(L, d)) * 3, rng.normal(size=(S, d)) * 3, rng.normal(size=(S, dv))


# --- properties --------------------------------------------------------------


@given(qkv(), st.integers(0, 2**32 - 1))
def test_weight_rows_sum_to_one_or_zero_and_masked_weights_are_zero(inputs, seed):
    q, k, v = inputs
    mask = np.random.default_rng(seed).random((len(q), len(k))) < 0.5
    result = engine.attention(q, k, v, mask=mask)
    sums = result.weights.sum(axis=1)
    fully = ~mask.any(axis=1)
    np.testing.assert_allclose(sums[~fully], 1.0, rtol=0, atol=TOL)
    assert np.all(result.weights[fully] == 0.0)
    assert np.all(result.output[fully] == 0.0)
    assert np.all(result.weights[~mask] == 0.0)
    assert np.all(np.isneginf(result.masked[~mask]))
    assert np.array_equal(result.masked[mask], result.scaled[mask])


@given(qkv())
def test_intermediates(inputs):
    q, k, v = inputs
    result = engine.attention(q, k, v)
    assert result.scale == 1 / math.sqrt(q.shape[1])
    np.testing.assert_allclose(result.scores, q @ k.T, rtol=0, atol=TOL)
    assert np.array_equal(result.scaled, result.scores * result.scale)
    assert np.array_equal(result.masked, result.scaled)
    assert engine.attention(q, k).output is None


@given(qkv(), st.randoms(use_true_random=False))
def test_permuting_keys_and_values_leaves_output_unchanged(inputs, random):
    q, k, v = inputs
    perm = np.array(random.sample(range(len(k)), len(k)))
    before = engine.attention(q, k, v)
    after = engine.attention(q, k[perm], v[perm])
    np.testing.assert_allclose(after.output, before.output, rtol=0, atol=TOL)
    np.testing.assert_allclose(after.weights, before.weights[:, perm], rtol=0, atol=TOL)


@given(qkv(), st.randoms(use_true_random=False))
def test_permuting_queries_permutes_outputs(inputs, random):
    q, k, v = inputs
    perm = np.array(random.sample(range(len(q)), len(q)))
    before = engine.attention(q, k, v)
    after = engine.attention(q[perm], k, v)
    np.testing.assert_allclose(after.output, before.output[perm], rtol=0, atol=TOL)


@given(qkv())
def test_causal_alignments(inputs):
    q, k, v = inputs
    L, S = len(q), len(k)
    top = engine.attention(q, k, v, causal=True)
    bottom = engine.attention(q, k, v, causal=True, align="bottom-right")
    i, j = np.indices((L, S))
    assert np.array_equal(np.isneginf(top.masked), j > i)
    assert np.array_equal(np.isneginf(bottom.masked), j > i + S - L)
    # The last query of a bottom-right chunk sees every key.
    np.testing.assert_allclose(bottom.output[-1], engine.attention(q[-1:], k, v).output[0], rtol=0, atol=TOL)


@given(qkv(square=True), st.data())
def test_kv_decode_equals_full_causal_attention(inputs, data):
    q, k, v = inputs
    T = len(q)
    p = data.draw(st.integers(1, T))
    result = engine.kv_decode(q, k, v, prompt_len=p)
    full = engine.attention(q, k, v, causal=True).output
    assert result.max_abs_diff <= TOL
    np.testing.assert_allclose(result.output, full, rtol=0, atol=TOL)
    assert len(result.steps) == 1 + T - p
    prefill = result.steps[0]
    assert (prefill.position, prefill.reused, prefill.computed) == (p - 1, [], list(range(p)))
    assert prefill.weights.shape == (p, p) and prefill.output.shape == (p, v.shape[1])
    for step, t in zip(result.steps[1:], range(p, T)):
        assert (step.position, step.reused, step.computed) == (t, list(range(t)), [t])
        assert step.weights.shape == (t + 1,)
        np.testing.assert_allclose(step.output, full[t], rtol=0, atol=TOL)
    assert result.projections == {"with_cache": T, "without_cache": p + sum(range(p + 1, T + 1))}


@given(st.integers(0, 2**32 - 1), st.integers(1, 3), st.integers(1, 3), st.integers(1, 6), st.data())
def test_kv_decode_per_head_of_gqa(seed, kv_heads, group, T, data):
    """Decoding each query head against its KV head reproduces causal multi-head attention."""
    heads, d_head = kv_heads * group, data.draw(st.integers(1, 4))
    inputs = engine.seeded_multihead_inputs(
        ["t"] * T, seed=seed, d_model=4, d_head=d_head, heads=heads, kv_heads=kv_heads
    )
    full = engine.multihead(inputs.q, inputs.k, inputs.v, heads=heads, kv_heads=kv_heads, causal=True)
    p = data.draw(st.integers(1, T))
    for h, g in enumerate(full.kv_map):
        cols, kv_cols = slice(h * d_head, (h + 1) * d_head), slice(g * d_head, (g + 1) * d_head)
        decoded = engine.kv_decode(inputs.q[:, cols], inputs.k[:, kv_cols], inputs.v[:, kv_cols], prompt_len=p)
        assert decoded.max_abs_diff <= TOL
        np.testing.assert_allclose(decoded.output, full.heads[h].output, rtol=0, atol=TOL)


# --- multihead ---------------------------------------------------------------


def test_multihead_gqa_mapping_concat_and_output():
    rng = np.random.default_rng(7)
    L, S, d_head, dv_head = 3, 5, 2, 3
    q = rng.normal(size=(L, 8 * d_head))
    k = rng.normal(size=(S, 2 * d_head))
    v = rng.normal(size=(S, 2 * dv_head))
    w_o = rng.normal(size=(8 * dv_head, 4))
    result = engine.multihead(q, k, v, heads=8, kv_heads=2, w_o=w_o)
    assert result.kv_map == [0, 0, 0, 0, 1, 1, 1, 1]
    assert len(result.heads) == 8 and result.concat.shape == (L, 8 * dv_head)
    head5 = engine.attention(q[:, 10:12], k[:, 2:4], v[:, 3:6])
    np.testing.assert_array_equal(result.heads[5].output, head5.output)
    np.testing.assert_array_equal(result.concat[:, 15:18], head5.output)
    np.testing.assert_allclose(result.output, result.concat @ w_o, rtol=0, atol=TOL)
    assert engine.multihead(q, k, v, heads=8, kv_heads=2).output is None
    assert engine.multihead(q, k[:, :2], v[:, :3], heads=8, kv_heads=1).kv_map == [0] * 8  # MQA


def test_multihead_defaults_to_one_kv_head_per_query_head():
    rng = np.random.default_rng(8)
    q, k, v = (rng.normal(size=(2, 6)) for _ in range(3))
    assert engine.multihead(q, k, v, heads=3).kv_map == [0, 1, 2]


# --- worked numbers from the person's notes ------------------------------------


def test_diagram_scores():
    scores = engine.attention(DIAGRAM_Q, DIAGRAM_K).scores
    assert round(scores[1][2], 2) == -0.10
    assert round(scores[0][0], 2) == 0.04
    assert scores[1][2] == pytest.approx(0.1 * 0.4 + -0.4 * -0.1 + 0.7 * -0.4 + 0.2 * 0.5)


def test_kv_cache_bytes_of_real_models():
    assert engine.kv_cache_bytes(layers=32, kv_heads=32, head_dim=128) == 524_288  # LLaMA-7B fp16
    assert engine.kv_cache_bytes(layers=80, kv_heads=8, head_dim=128) == 327_680  # LLaMA-2-70B GQA-8
    assert (
        engine.kv_cache_bytes(layers=32, kv_heads=32, head_dim=128, dtype="fp32", seq_len=4096, batch=2)
        == 524_288 * 2 * 4096 * 2
    )
    assert engine.kv_cache_bytes(layers=1, kv_heads=1, head_dim=1, dtype="int4") == 1


def test_mla_cache_bytes():
    # DeepSeek-V3-like: 61 layers, latent 512, decoupled RoPE key 64, bf16.
    assert engine.mla_cache_bytes(layers=61, latent_dim=512, rope_dim=64, dtype="bf16") == 61 * 576 * 2
    assert engine.mla_cache_bytes(layers=1, latent_dim=3, rope_dim=1, dtype="int4", seq_len=3) == 6


def test_dtype_table_and_errors():
    assert engine.DTYPE_BYTES["bfloat16"] == 2 and engine.DTYPE_BYTES["int4"] == 0.5
    assert engine.kv_cache_bytes(layers=1, kv_heads=1, head_dim=4, dtype="FP8") == 8
    with pytest.raises(ValueError, match="fp12"):
        engine.kv_cache_bytes(layers=1, kv_heads=1, head_dim=4, dtype="fp12")
    with pytest.raises(ValueError, match="whole number"):
        engine.mla_cache_bytes(layers=1, latent_dim=2, rope_dim=1, dtype="int4")
    with pytest.raises(ValueError, match="layers"):
        engine.kv_cache_bytes(layers=0, kv_heads=1, head_dim=4)
    with pytest.raises(ValueError, match="head_dim"):
        engine.kv_cache_bytes(layers=1, kv_heads=1, head_dim=True)


# --- seeded inputs ------------------------------------------------------------


def test_seeded_inputs_are_deterministic_rounded_and_projected():
    a = engine.seeded_inputs(["我", "爱", "吃"], seed=42, d_model=4, d_q=3, d_v=2)
    b = engine.seeded_inputs(["a", "b", "c"], seed=42, d_model=4, d_q=3, d_v=2)
    for name in ("x", "w_q", "w_k", "w_v", "q", "k", "v"):
        assert getattr(a, name).tobytes() == getattr(b, name).tobytes()
    assert a.x.shape == (3, 4) and a.w_q.shape == (4, 3) and a.w_k.shape == (4, 3) and a.w_v.shape == (4, 2)
    for m in (a.x, a.w_q, a.w_k, a.w_v):
        assert np.array_equal(m, np.round(m, 2))
        assert not np.signbit(m[m == 0]).any()  # no -0.0
    np.testing.assert_array_equal(a.q, a.x @ a.w_q)
    assert a.w_o is None
    c = engine.seeded_inputs(["a", "b", "c"], seed=43, d_model=4, d_q=3, d_v=2)
    assert not np.array_equal(a.x, c.x)


def test_seeded_inputs_pinned_values():
    """Same seed, same numbers on any machine (numpy's PCG64 stream)."""
    inputs = engine.seeded_inputs(["a", "b"], seed=0, d_model=2, d_q=1)
    rng = np.random.default_rng(0)
    expected_x = np.round(rng.normal(0, 0.5, size=(2, 2)), 2)
    np.testing.assert_array_equal(inputs.x, expected_x)
    assert inputs.x.tolist() == [[0.06, -0.07], [0.32, 0.05]]


def test_seeded_multihead_inputs_shapes():
    inputs = engine.seeded_multihead_inputs(["a"] * 5, seed=1, d_model=8, d_head=2, heads=4, kv_heads=2)
    assert inputs.w_q.shape == (8, 8) and inputs.w_k.shape == (8, 4) and inputs.w_v.shape == (8, 4)
    assert inputs.w_o.shape == (8, 8) and inputs.q.shape == (5, 8) and inputs.k.shape == (5, 4)
    result = engine.multihead(inputs.q, inputs.k, inputs.v, heads=4, kv_heads=2, w_o=inputs.w_o)
    assert result.output.shape == (5, 8)
    with pytest.raises(engine.ShapeError, match="divisible"):
        engine.seeded_multihead_inputs(["a"], seed=1, d_model=8, d_head=2, heads=3, kv_heads=2)


def test_seeded_inputs_bounds():
    with pytest.raises(engine.LimitError, match="W_Q"):
        engine.seeded_inputs(["a"], seed=0, d_model=1000, d_q=1000)
    with pytest.raises(ValueError, match="seed"):
        engine.seeded_inputs(["a"], seed=-1, d_model=2, d_q=2)
    with pytest.raises(ValueError, match="tokens"):
        engine.seeded_inputs([], seed=0, d_model=2, d_q=2)


# --- validation ---------------------------------------------------------------


@pytest.mark.parametrize(
    "value, fragment",
    [
        ([[1, 2], [3]], "ragged: row 1 has 1 values but row 0 has 2"),
        ([[1, "x"]], r"Q\[0\]\[1\] is 'x', not a number"),
        ([[1, True]], r"Q\[0\]\[1\] is True, not a number"),
        ([[1, None]], "not a number"),
        ([[1, float("nan")]], r"Q\[0\]\[1\] is nan: values must be finite"),
        ([[1, float("inf")]], "finite"),
        ([[1, 10**400]], r"Q\[0\]\[1\] is too large"),
        ([], "Q is empty"),
        ([[]], "Q is empty"),
        ([1, 2], "not a flat list"),
        ("1 2", "must be a matrix"),
        (np.ones((2, 2), dtype=bool), "booleans"),
        (np.ones(3), "shape"),
    ],
)
def test_as_matrix_rejects(value, fragment):
    with pytest.raises(ValueError, match=fragment):
        engine.as_matrix(value, "Q")


def test_as_matrix_accepts_and_bounds():
    m = engine.as_matrix([[1, 2.5], [3, -4]], "Q")
    assert m.dtype == np.float64 and m.tolist() == [[1, 2.5], [3, -4]]
    with pytest.raises(engine.LimitError, match=r"K is 1001×100 = 100,100 cells, over the limit of 100,000"):
        engine.as_matrix([[0.0] * 100] * 1001, "K")
    with pytest.raises(engine.LimitError, match="K is 400×300"):
        engine.as_matrix(np.zeros((400, 300)), "K")
    assert engine.as_matrix(np.zeros((400, 300)), "K", max_cells=None).shape == (400, 300)


def test_check_work():
    assert engine.check_work(queries=4, keys=4, d=4, dv=4) == 128
    assert engine.check_work(queries=100, keys=100, d=5000, dv=5000) == engine.MAX_WORK
    with pytest.raises(engine.LimitError, match="over the limit of 100,000,000"):
        engine.check_work(queries=100, keys=100, d=5000, dv=5000, heads=2)


def test_shape_errors_name_the_shapes():
    q = np.ones((4, 4))
    with pytest.raises(engine.ShapeError, match="Q is 4×4 but K is 3×5: the last dimensions must match"):
        engine.attention(q, np.ones((3, 5)))
    with pytest.raises(engine.ShapeError, match="K is 3×4 but V is 2×4"):
        engine.attention(q, np.ones((3, 4)), np.ones((2, 4)))
    with pytest.raises(engine.ShapeError, match="mask is 2×2 but the scores are 4×3"):
        engine.attention(q, np.ones((3, 4)), mask=np.ones((2, 2), dtype=bool))
    with pytest.raises(engine.ShapeError, match="heads=3 is not divisible by kv_heads=2"):
        engine.multihead(np.ones((2, 6)), np.ones((2, 4)), np.ones((2, 4)), heads=3, kv_heads=2)
    with pytest.raises(engine.ShapeError, match="do not split into 4 heads"):
        engine.multihead(np.ones((2, 6)), np.ones((2, 6)), np.ones((2, 6)), heads=4)
    with pytest.raises(engine.ShapeError, match="head widths must match"):
        engine.multihead(np.ones((2, 4)), np.ones((2, 2)), np.ones((2, 2)), heads=2, kv_heads=2)
    with pytest.raises(engine.ShapeError, match="W_O needs 4 rows"):
        engine.multihead(np.ones((2, 4)), np.ones((2, 4)), np.ones((2, 4)), heads=2, w_o=np.ones((3, 4)))
    with pytest.raises(engine.ShapeError, match="Q is 4×4 but K is 3×4"):
        engine.kv_decode(q, np.ones((3, 4)), np.ones((3, 4)))
    with pytest.raises(engine.ShapeError, match="prompt_len=5 is longer than the 4 tokens"):
        engine.kv_decode(q, q, q, prompt_len=5)
    with pytest.raises(engine.ShapeError, match="X is 2×3 but W_K is 2×2"):
        engine.project(np.ones((2, 3)), np.ones((3, 2)), np.ones((2, 2)), np.ones((3, 2)))


def test_other_argument_errors():
    q = np.ones((2, 2))
    with pytest.raises(ValueError, match="align"):
        engine.attention(q, q, causal=True, align="middle")
    with pytest.raises(ValueError, match="scale"):
        engine.attention(q, q, scale=float("nan"))
    with pytest.raises(ValueError, match="scale"):
        engine.attention(q, q, scale=10**400)
    with pytest.raises(ValueError, match="mask must be a rectangular matrix"):
        engine.attention(q, q, mask=[[True], [True, False]])
    with pytest.raises(ValueError, match="NaN or \\+inf"):
        engine.attention(q, q, mask=np.array([[0.0, np.inf], [0.0, 0.0]]))
    with pytest.raises(ValueError, match="prompt_len"):
        engine.kv_decode(q, q, q, prompt_len=0)
    with pytest.raises(ValueError, match="scores overflow"):
        engine.attention([[1e200, 1e200]], [[1e200, 1e200]])
    with pytest.raises(ValueError, match="heads"):
        engine.multihead(q, q, q, heads=0)


def test_causal_combines_with_a_mask_and_fully_masked_rows_are_zero():
    q = np.arange(6.0).reshape(3, 2)
    mask = np.array([[False, True, True], [True, True, True], [True, True, True]])
    result = engine.attention(q, q, q, mask=mask, causal=True)
    assert np.all(result.weights[0] == 0) and np.all(result.output[0] == 0)
    assert result.weights[1].tolist()[2] == 0 and result.weights[1].sum() == pytest.approx(1)
    additive = np.where(mask, 0.0, -np.inf)
    np.testing.assert_array_equal(engine.attention(q, q, q, mask=additive, causal=True).output, result.output)


@settings(max_examples=50)
@given(st.floats(-50, 50), st.floats(-1e6, 1e6))
def test_extreme_scores_stay_finite(a, b):
    result = engine.attention([[a, b]], [[b, a], [1e3, -1e3]], [[1.0], [2.0]])
    assert np.isfinite(result.weights).all() and np.isfinite(result.output).all()
    assert result.weights.sum() == pytest.approx(1)


def test_scores_overflowing_to_minus_infinity_are_refused_not_masked():
    """Huge opposite-sign inputs overflow to −inf, which must not pass for a masked cell."""
    with pytest.raises(ValueError, match="overflow"):
        engine.attention(np.array([[1e200, 1e200]]), np.array([[-1e200, -1e200]]))
