"""The engine against torch.nn.functional.scaled_dot_product_attention, in float64."""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="torch is not installed; the PyTorch agreement tests need it")
F = torch.nn.functional
from torch.nn.attention.bias import causal_lower_right, causal_upper_left  # noqa: E402

from vaultkit import engine  # noqa: E402

TOL = 1e-12
# torch warns that bottom-right alignment with more queries than keys leaves rows fully masked: tested on purpose.
pytestmark = pytest.mark.filterwarnings("ignore:Lower right causal bias:UserWarning")
CASES = range(40)


def random_qkv(rng, L=None, S=None):
    L = L or int(rng.integers(1, 9))
    S = S or int(rng.integers(1, 9))
    d, dv = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    return rng.normal(size=(L, d)), rng.normal(size=(S, d)), rng.normal(size=(S, dv))


def sdpa(q, k, v, **kwargs) -> np.ndarray:
    t = [torch.from_numpy(a)[None] for a in (q, k, v)]  # (1, n, d)
    mask = kwargs.pop("attn_mask", None)
    if isinstance(mask, np.ndarray):
        mask = torch.from_numpy(mask)[None]
    return F.scaled_dot_product_attention(*t, attn_mask=mask, **kwargs)[0].numpy()


def assert_agrees(ours: np.ndarray, theirs: np.ndarray, fully_masked: np.ndarray):
    """Equal on rows torch computes; ours gives zeros on fully masked rows.

    torch 2.13 also gives zeros there (some older versions give NaN; those rows are skipped).
    """
    assert not np.isnan(ours).any()
    assert np.all(ours[fully_masked] == 0.0)
    assert np.all(np.isnan(theirs[fully_masked]) | (theirs[fully_masked] == 0.0))
    keep = ~np.isnan(theirs).any(axis=1)
    assert keep[~fully_masked].all()
    np.testing.assert_allclose(ours[keep], theirs[keep], rtol=0, atol=TOL)


@pytest.mark.parametrize("case", CASES)
def test_plain_attention_and_scale(case):
    rng = np.random.default_rng(case)
    q, k, v = random_qkv(rng)
    none = np.zeros(len(q), dtype=bool)
    assert_agrees(engine.attention(q, k, v).output, sdpa(q, k, v), none)
    scale = float(rng.uniform(0.1, 2.0))
    assert_agrees(engine.attention(q, k, v, scale=scale).output, sdpa(q, k, v, scale=scale), none)


@pytest.mark.parametrize("case", CASES)
def test_boolean_mask_with_fully_masked_rows(case):
    rng = np.random.default_rng(1000 + case)
    q, k, v = random_qkv(rng)
    mask = rng.random((len(q), len(k))) < 0.6  # True = may attend
    mask[rng.integers(len(q))] = False  # at least one fully masked row
    fully = ~mask.any(axis=1)
    ours = engine.attention(q, k, v, mask=mask)
    assert_agrees(ours.output, sdpa(q, k, v, attn_mask=mask), fully)
    assert np.all(ours.weights[~mask] == 0.0)


@pytest.mark.parametrize("case", CASES)
def test_additive_mask_with_fully_masked_rows(case):
    rng = np.random.default_rng(2000 + case)
    q, k, v = random_qkv(rng)
    mask = rng.normal(size=(len(q), len(k)))
    mask[rng.random(mask.shape) < 0.4] = -np.inf
    mask[rng.integers(len(q))] = -np.inf
    fully = np.isneginf(mask).all(axis=1)
    assert_agrees(engine.attention(q, k, v, mask=mask).output, sdpa(q, k, v, attn_mask=mask), fully)


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("align, bias", [("top-left", causal_upper_left), ("bottom-right", causal_lower_right)])
def test_causal_alignments(case, align, bias):
    rng = np.random.default_rng(3000 + case)
    q, k, v = random_qkv(rng)
    L, S = len(q), len(k)
    ours = engine.attention(q, k, v, causal=True, align=align)
    fully = np.isneginf(ours.masked).all(axis=1)
    t = [torch.from_numpy(a)[None] for a in (q, k, v)]
    theirs = F.scaled_dot_product_attention(*t, attn_mask=bias(L, S))[0].numpy()
    assert_agrees(ours.output, theirs, fully)


@pytest.mark.parametrize("case", CASES)
def test_top_left_causal_is_torch_is_causal(case):
    rng = np.random.default_rng(4000 + case)
    q, k, v = random_qkv(rng)
    ours = engine.attention(q, k, v, causal=True)
    fully = np.zeros(len(q), dtype=bool)  # top-left: row i always sees key 0
    assert_agrees(ours.output, sdpa(q, k, v, is_causal=True), fully)


@pytest.mark.parametrize("case", CASES)
def test_gqa_against_enable_gqa(case):
    rng = np.random.default_rng(5000 + case)
    kv_heads = int(rng.integers(1, 4))
    heads = kv_heads * int(rng.integers(1, 4))
    d_head, dv_head = int(rng.integers(1, 5)), int(rng.integers(1, 5))
    L, S = int(rng.integers(1, 7)), int(rng.integers(1, 7))
    causal = bool(rng.integers(2)) and L <= S
    q = rng.normal(size=(L, heads * d_head))
    k = rng.normal(size=(S, kv_heads * d_head))
    v = rng.normal(size=(S, kv_heads * dv_head))
    ours = engine.multihead(q, k, v, heads=heads, kv_heads=kv_heads, causal=causal)

    def split(a, n):  # (len, n·w) -> (1, n, len, w)
        return torch.from_numpy(a.reshape(a.shape[0], n, -1).transpose(1, 0, 2).copy())[None]

    theirs = F.scaled_dot_product_attention(
        split(q, heads), split(k, kv_heads), split(v, kv_heads), is_causal=causal, enable_gqa=True
    )[0]  # (heads, L, dv_head)
    theirs = theirs.permute(1, 0, 2).reshape(L, heads * dv_head).numpy()
    np.testing.assert_allclose(ours.concat, theirs, rtol=0, atol=TOL)


@pytest.mark.parametrize("case", range(10))
def test_kv_decode_against_is_causal(case):
    rng = np.random.default_rng(6000 + case)
    T = int(rng.integers(1, 12))
    q, k, v = random_qkv(rng, L=T, S=T)
    result = engine.kv_decode(q, k, v, prompt_len=int(rng.integers(1, T + 1)))
    np.testing.assert_allclose(result.output, sdpa(q, k, v, is_causal=True), rtol=0, atol=TOL)
