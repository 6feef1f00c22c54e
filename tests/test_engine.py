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


# --- what the validation pins --------------------------------------------------


def test_a_mask_must_hold_booleans_or_real_numbers():
    q = np.ones((2, 2))
    with pytest.raises(ValueError, match=r"^mask must hold booleans \(True = may attend\) or additive floats$"):
        engine.attention(q, q, mask=np.zeros((2, 2), dtype=complex))
    with pytest.raises(ValueError, match="mask must hold booleans"):
        engine.attention(q, q, mask=[["a", "b"], ["c", "d"]])
    with pytest.raises(ValueError, match=r"^an additive mask may hold finite values and -inf, not NaN or \+inf$"):
        engine.attention(q, q, mask=[[0.0, float("nan")], [0.0, 0.0]])
    # an integer mask is additive, not boolean: 0 leaves the score as it is
    ints = engine.attention(q, q, q, mask=np.zeros((2, 2), dtype=int))
    assert np.array_equal(ints.masked, ints.scaled)
    # a mask of one row broadcasts to every query
    row = engine.attention(q, q, q, mask=[[True, False]])
    assert np.isneginf(row.masked[:, 1]).all() and np.array_equal(row.output, np.ones((2, 2)))


def test_an_additive_mask_that_overflows_a_score_is_refused():
    with pytest.raises(ValueError, match=r"^the additive mask makes a score NaN or \+inf$"):
        engine.attention([[1.5e308]], [[1.0]], mask=[[1e308]])
    shifted = engine.attention([[1.0]], [[2.0], [0.0]], mask=[[-2.0, 0.0]])
    np.testing.assert_array_equal(shifted.masked, [[0.0, 0.0]])
    assert shifted.weights.tolist() == [[0.5, 0.5]]


def test_scale_is_taken_as_given():
    q = np.array([[1.0, 2.0]])
    result = engine.attention(q, q, scale=3)
    assert result.scale == 3.0 and isinstance(result.scale, float)
    assert result.scaled.tolist() == [[15.0]]
    assert engine.attention(q, q, scale=-0.5).scaled.tolist() == [[-2.5]]
    for bad in (True, "1", [1.0], float("inf"), -float("inf"), 1e300):
        with pytest.raises(ValueError, match="scale must be a finite number"):
            engine.attention(q, q, scale=bad)


def test_w_o_is_read_as_a_matrix():
    rng = np.random.default_rng(3)
    q, k, v = rng.normal(size=(2, 4)), rng.normal(size=(3, 4)), rng.normal(size=(3, 4))
    w_o = [[0.5, -1.0], [2.0, 0.0], [1.0, 1.0], [-0.5, 0.25]]
    result = engine.multihead(q, k, v, heads=2, w_o=w_o)
    np.testing.assert_array_equal(result.output, result.concat @ np.array(w_o))
    with pytest.raises(ValueError, match=r"W_O\[1\]\[0\] is nan"):
        engine.multihead(q, k, v, heads=2, w_o=[[0.0, 0.0], [float("nan"), 0.0], [0.0, 0.0], [0.0, 0.0]])
    with pytest.raises(ValueError, match="W_O"):
        engine.multihead(q, k, v, heads=2, w_o=[[1.0, 2.0], [3.0]])


def test_multihead_causal_and_head_arguments():
    rng = np.random.default_rng(4)
    q, k, v = rng.normal(size=(3, 4)), rng.normal(size=(3, 2)), rng.normal(size=(3, 2))
    causal = engine.multihead(q, k, v, heads=2, kv_heads=1, causal=True)
    for h in range(2):
        alone = engine.attention(q[:, 2 * h : 2 * h + 2], k, v, causal=True)
        np.testing.assert_array_equal(causal.heads[h].weights, alone.weights)
    assert np.isneginf(causal.heads[0].masked[0, 1:]).all()
    for bad in (0, -1, True, 1.0, "2"):
        with pytest.raises(ValueError, match="kv_heads must be a positive integer"):
            engine.multihead(q, k, v, heads=2, kv_heads=bad)
    with pytest.raises(engine.ShapeError, match=r"K is 3×2 but V is 2×2"):
        engine.multihead(q, k, v[:2], heads=2, kv_heads=1)
    with pytest.raises(engine.ShapeError, match="V is 3×3: its 3 columns do not split into 2 heads"):
        engine.multihead(q, np.ones((3, 4)), np.ones((3, 3)), heads=2)
    assert engine.multihead(q, k, v, heads=np.int64(2), kv_heads=np.int64(1)).kv_map == [0, 0]


def test_seeds_are_non_negative_integers():
    for bad in (True, False, 1.5, "1", None, -1):
        with pytest.raises(ValueError, match="seed must be a non-negative integer"):
            engine.seeded_inputs(["a"], seed=bad, d_model=2, d_q=2)
    zero = engine.seeded_inputs(["a"], seed=0, d_model=2, d_q=2)
    same = engine.seeded_inputs(["a"], seed=np.int64(0), d_model=2, d_q=2)
    assert zero.x.tolist() == same.x.tolist()
    assert engine.seeded_inputs(["a", "b"], seed=5, d_model=3, d_q=2).v.shape == (2, 2)
    with pytest.raises(ValueError, match="d_v must be a positive integer"):
        engine.seeded_inputs(["a"], seed=0, d_model=2, d_q=2, d_v=0)
    with pytest.raises(ValueError, match="d_model"):
        engine.seeded_inputs(["a"], seed=0, d_model=0, d_q=2)


def test_seeded_draws_are_bounded_and_drawn_in_order():
    # exactly MAX_CELLS is accepted, one more row is not
    assert engine.seeded_inputs(["a"], seed=0, d_model=1000, d_q=100).w_q.size == engine.MAX_CELLS
    with pytest.raises(engine.LimitError, match=r"W_Q would be 1000×101 = 101,000 cells, over the limit of 100,000"):
        engine.seeded_inputs(["a"], seed=0, d_model=1000, d_q=101)
    inputs = engine.seeded_multihead_inputs(["a", "b"], seed=2, d_model=3, d_head=2, heads=2, kv_heads=1)
    rng = np.random.default_rng(2)
    drawn = [np.round(rng.normal(0.0, 0.5, size=s), 2) + 0.0 for s in ((2, 3), (3, 4), (3, 2), (3, 2), (4, 3))]
    for got, want in zip((inputs.x, inputs.w_q, inputs.w_k, inputs.w_v, inputs.w_o), drawn):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(inputs.k, inputs.x @ inputs.w_k)
    np.testing.assert_array_equal(inputs.v, inputs.x @ inputs.w_v)
    assert engine.seeded_multihead_inputs(["a"], seed=2, d_model=3, d_head=2, heads=2).w_k.shape == (3, 4)


def test_mla_cache_bytes_with_no_rope_key():
    assert engine.mla_cache_bytes(layers=2, latent_dim=4, rope_dim=0) == 2 * 4 * 2
    assert (
        engine.mla_cache_bytes(layers=2, latent_dim=4, rope_dim=0, seq_len=3, batch=5, dtype="fp32") == 2 * 4 * 4 * 15
    )
    for bad in (-1, True, 1.0, None):
        with pytest.raises(ValueError, match="rope_dim must be a non-negative integer"):
            engine.mla_cache_bytes(layers=1, latent_dim=4, rope_dim=bad)
    with pytest.raises(ValueError, match="latent_dim"):
        engine.mla_cache_bytes(layers=1, latent_dim=0, rope_dim=1)
    with pytest.raises(ValueError, match="unknown dtype 7"):
        engine.kv_cache_bytes(layers=1, kv_heads=1, head_dim=1, dtype=7)
    with pytest.raises(ValueError, match=r"3 values of int4 is 1.5 bytes"):
        engine.mla_cache_bytes(layers=1, latent_dim=2, rope_dim=1, dtype="int4")
    assert (
        engine.kv_cache_bytes(layers=1, kv_heads=2, head_dim=3, seq_len=5, batch=7, dtype="int8") == 2 * 2 * 3 * 5 * 7
    )


def test_as_matrix_takes_arrays_and_tuples():
    assert engine.as_matrix(np.array([[1, 2]], dtype=np.int32), "Q").dtype == np.float64
    assert engine.as_matrix(((1, 2), (3, 4)), "Q").tolist() == [[1, 2], [3, 4]]
    assert engine.as_matrix(np.array([[1, 2]], dtype=object), "Q").tolist() == [[1, 2]]
    with pytest.raises(ValueError, match="Q holds complex numbers"):
        engine.as_matrix(np.array([[1 + 2j]]), "Q")
    with pytest.raises(ValueError, match=r"Q\[0\]\[0\] is 'x', not a number"):
        engine.as_matrix(np.array([["x"]]), "Q")
    with pytest.raises(ValueError, match="Q is empty \\(0×3\\)"):
        engine.as_matrix(np.zeros((0, 3)), "Q")
    with pytest.raises(ValueError, match=r"Q\[1\]\[0\] is inf: values must be finite"):
        engine.as_matrix(np.array([[1.0], [np.inf]]), "Q")
    big = 10**300
    assert engine.as_matrix([[big]], "Q")[0, 0] == 1e300  # at the bound, still a number
    with pytest.raises(engine.LimitError, match="over the limit of 4"):
        engine.as_matrix([[1, 2, 3], [4, 5, 6]], "Q", max_cells=4)
    assert engine.as_matrix([[1, 2], [3, 4]], "Q", max_cells=4).shape == (2, 2)


def test_check_work_counts_every_head_and_width():
    assert engine.check_work(queries=2, keys=3, d=4) == 24
    assert engine.check_work(queries=2, keys=3, d=4, dv=1, heads=5) == 150
    with pytest.raises(engine.LimitError, match=r"attention of 100 queries × 100 keys × width 5000\+5001 × 1 heads"):
        engine.check_work(queries=100, keys=100, d=5000, dv=5001)


def test_kv_decode_counts_projections_and_checks_prompt_len():
    q = np.eye(3)
    result = engine.kv_decode(q, q, q)
    assert result.projections == {"with_cache": 3, "without_cache": 1 + 2 + 3}
    assert [step.position for step in result.steps] == [0, 1, 2]
    for bad in (True, 1.0, "1"):
        with pytest.raises(ValueError, match="prompt_len must be a positive integer"):
            engine.kv_decode(q, q, q, prompt_len=bad)
    with pytest.raises(engine.ShapeError, match="Q is 3×3 but V is 2×3: they need the same number of rows"):
        engine.kv_decode(q, q, q[:2])
    assert engine.kv_decode(q, q, q, prompt_len=3).steps[0].weights.shape == (3, 3)


def test_causal_mask_shapes():
    assert engine.causal_mask(2, 3).tolist() == [[True, False, False], [True, True, False]]
    assert engine.causal_mask(2, 3, "bottom-right").tolist() == [[True, True, False], [True, True, True]]
    with pytest.raises(ValueError, match="align must be one of top-left, bottom-right, got 'middle'"):
        engine.causal_mask(2, 2, "middle")


def test_softmax_rows():
    rows = engine.softmax_rows(np.array([[0.0, np.log(3.0)], [-np.inf, -np.inf], [1000.0, 1000.0]]))
    np.testing.assert_allclose(rows[0], [0.25, 0.75], rtol=0, atol=TOL)
    assert rows[1].tolist() == [0.0, 0.0] and rows[2].tolist() == [0.5, 0.5]


def test_project_names_the_weight_that_does_not_fit():
    x = np.ones((2, 3))
    q, k, v = engine.project(x, np.ones((3, 1)), 2 * np.ones((3, 1)), [[1.0], [0.0], [0.0]])
    assert q.tolist() == [[3.0], [3.0]] and k.tolist() == [[6.0], [6.0]] and v.tolist() == [[1.0], [1.0]]
    with pytest.raises(engine.ShapeError, match="X is 2×3 but W_Q is 2×1: W_Q needs 3 rows"):
        engine.project(x, np.ones((2, 1)), np.ones((3, 1)), np.ones((3, 1)))
    with pytest.raises(engine.ShapeError, match="W_V needs 3 rows"):
        engine.project(x, np.ones((3, 1)), np.ones((3, 1)), np.ones((1, 1)))
    with pytest.raises(ValueError, match=r"X\[0\]\[0\] is nan"):
        engine.project([[float("nan")]], [[1.0]], [[1.0]], [[1.0]])


BIG = engine.MAX_CELLS + 1  # the math functions take real model sizes: no cell bound


def test_the_math_functions_take_matrices_over_the_note_bound():
    tall = np.ones((BIG, 1))
    assert engine.attention([[1.0]], tall, tall).output.shape == (1, 1)
    assert engine.multihead([[1.0]], tall, tall, heads=1, w_o=np.ones((1, BIG))).output.shape == (1, BIG)
    wide = np.ones((1, BIG))
    assert engine.kv_decode(wide, wide, wide).output.shape == (1, BIG)
    q, k, v = engine.project(wide, tall, tall, tall)
    assert q.shape == k.shape == v.shape == (1, 1)


NAN = [[float("nan")]]
ONE = [[1.0]]


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda: engine.attention(NAN, ONE, ONE), "Q"),
        (lambda: engine.attention(ONE, NAN, ONE), "K"),
        (lambda: engine.attention(ONE, ONE, NAN), "V"),
        (lambda: engine.multihead(NAN, ONE, ONE, heads=1), "Q"),
        (lambda: engine.multihead(ONE, NAN, ONE, heads=1), "K"),
        (lambda: engine.multihead(ONE, ONE, NAN, heads=1), "V"),
        (lambda: engine.multihead(ONE, ONE, ONE, heads=1, w_o=NAN), "W_O"),
        (lambda: engine.kv_decode(NAN, ONE, ONE), "Q"),
        (lambda: engine.kv_decode(ONE, NAN, ONE), "K"),
        (lambda: engine.kv_decode(ONE, ONE, NAN), "V"),
        (lambda: engine.project(NAN, ONE, ONE, ONE), "X"),
        (lambda: engine.project(ONE, NAN, ONE, ONE), "W_Q"),
        (lambda: engine.project(ONE, ONE, NAN, ONE), "W_K"),
        (lambda: engine.project(ONE, ONE, ONE, NAN), "W_V"),
    ],
)
def test_each_input_is_named_in_its_error(call, name):
    with pytest.raises(ValueError, match=rf"^{name}\[0\]\[0\] is nan: values must be finite$"):
        call()


@pytest.mark.parametrize(
    "call, name",
    [
        (lambda bad: engine.multihead(ONE, ONE, ONE, heads=bad), "heads"),
        (lambda bad: engine.multihead(ONE, ONE, ONE, heads=1, kv_heads=bad), "kv_heads"),
        (lambda bad: engine.kv_decode(ONE, ONE, ONE, prompt_len=bad), "prompt_len"),
        (lambda bad: engine.seeded_inputs(["a"], seed=0, d_model=bad, d_q=1), "d_model"),
        (lambda bad: engine.seeded_inputs(["a"], seed=0, d_model=1, d_q=bad), "d_q"),
        (lambda bad: engine.seeded_inputs(["a"], seed=0, d_model=1, d_q=1, d_v=bad), "d_v"),
        (lambda bad: engine.seeded_multihead_inputs(["a"], seed=0, d_model=bad, d_head=1, heads=1), "d_model"),
        (lambda bad: engine.seeded_multihead_inputs(["a"], seed=0, d_model=1, d_head=bad, heads=1), "d_head"),
        (lambda bad: engine.seeded_multihead_inputs(["a"], seed=0, d_model=1, d_head=1, heads=bad), "heads"),
        (
            lambda bad: engine.seeded_multihead_inputs(["a"], seed=0, d_model=1, d_head=1, heads=1, kv_heads=bad),
            "kv_heads",
        ),
        (lambda bad: engine.kv_cache_bytes(layers=bad, kv_heads=1, head_dim=1), "layers"),
        (lambda bad: engine.kv_cache_bytes(layers=1, kv_heads=bad, head_dim=1), "kv_heads"),
        (lambda bad: engine.kv_cache_bytes(layers=1, kv_heads=1, head_dim=bad), "head_dim"),
        (lambda bad: engine.kv_cache_bytes(layers=1, kv_heads=1, head_dim=1, seq_len=bad), "seq_len"),
        (lambda bad: engine.kv_cache_bytes(layers=1, kv_heads=1, head_dim=1, batch=bad), "batch"),
        (lambda bad: engine.mla_cache_bytes(layers=bad, latent_dim=1, rope_dim=0), "layers"),
        (lambda bad: engine.mla_cache_bytes(layers=1, latent_dim=bad, rope_dim=0), "latent_dim"),
        (lambda bad: engine.mla_cache_bytes(layers=1, latent_dim=1, rope_dim=0, seq_len=bad), "seq_len"),
        (lambda bad: engine.mla_cache_bytes(layers=1, latent_dim=1, rope_dim=0, batch=bad), "batch"),
    ],
)
def test_each_count_is_named_in_its_error(call, name):
    with pytest.raises(ValueError, match=rf"^{name} must be a positive integer, got 0$"):
        call(0)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: engine.as_matrix(np.array([[1j]]), "Q"), "Q holds complex numbers"),
        (lambda: engine.as_matrix("1 2", "Q"), "Q must be a matrix (a list of rows), got str"),
        (lambda: engine.seeded_inputs([], seed=0, d_model=1, d_q=1), "tokens is empty"),
        (
            lambda: engine.attention([[1e200, 1e200]], [[1e200, -1e200]]),
            "the attention scores overflow float64: the inputs are too large",
        ),
        (
            lambda: engine.attention(ONE, ONE, mask=[[True], [True, False]]),
            "mask must be a rectangular matrix of booleans or floats",
        ),
        (
            lambda: engine.multihead(np.ones((2, 4)), np.ones((2, 2)), np.ones((2, 2)), heads=2, kv_heads=2),
            "Q is 2×4 (2 heads of 2) but K is 2×2 (2 heads of 1): head widths must match",
        ),
        (
            lambda: engine.multihead(np.ones((2, 6)), np.ones((2, 6)), np.ones((2, 6)), heads=4),
            "Q is 2×6: its 6 columns do not split into 4 heads",
        ),
        (
            lambda: engine.multihead(np.ones((2, 4)), np.ones((2, 3)), np.ones((2, 4)), heads=2),
            "K is 2×3: its 3 columns do not split into 2 heads",
        ),
        (
            lambda: engine.multihead(np.ones((2, 4)), np.ones((2, 4)), np.ones((2, 3)), heads=2),
            "V is 2×3: its 3 columns do not split into 2 heads",
        ),
        (
            lambda: engine.kv_cache_bytes(layers=1, kv_heads=1, head_dim=1, dtype="fp12"),
            "unknown dtype 'fp12'; known: fp32, float32, fp16, float16, bf16, bfloat16, fp8, int8, int4",
        ),
    ],
)
def test_error_messages_in_full(call, message):
    with pytest.raises(ValueError) as raised:
        call()
    assert str(raised.value) == message


def test_refused_inputs_warn_of_nothing():
    """Overflow and inf − inf inside the scores are refused with an error, not a numpy warning."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for k in ([[1e200, 1e200]], [[1e200, -1e200]], [[-1e200, -1e200]]):
            with pytest.raises(ValueError, match="overflow"):
                engine.attention([[1e200, 1e200]], k)


def test_seeded_values_never_hold_minus_zero():
    inputs = engine.seeded_inputs(["t"] * 40, seed=0, d_model=40, d_q=40)
    values = np.concatenate([m.ravel() for m in (inputs.x, inputs.w_q, inputs.w_k, inputs.w_v)])
    assert (values == 0).sum() > 0  # zeros are drawn, and none of them is -0.0
    assert not np.signbit(values[values == 0]).any()
