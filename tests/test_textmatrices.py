"""Worked examples written as text: matrices in plain fences and tables, checked where a caption
derives them (sentences written for these tests; the real vault is only read)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.conftest import CORPUS, needs_corpus
from vaultkit import engine
from vaultkit.checks.textmatrices import check_markdown
from vaultkit.diagnostics import ERROR, WARNING
from vaultkit.model.vault import Vault
from vaultkit.numbers import fmt
from vaultkit.readers.markdown import parse


def check(text: str):
    return check_markdown(text, parse(text), "note.md")


def codes(report) -> list[str]:
    return [d.code for d in report.diagnostics]


# Q (3×4) and K (3×4) with integer cells; Q·Kᵀ, ÷ √4 = 2, softmax rounded to 2 decimals.
RIGHT_ZH = """\
# 注意力手算

三个词的小例子，每个向量 4 维。

```
Q：
  猫  [ 2  0  1  0 ]
  坐  [ 0  2  0  1 ]
  垫  [ 1  1  0  2 ]

K：
  猫  [ 1  0  0  0 ]
  坐  [ 0  1  1  0 ]
  垫  [ 1  0  0  2 ]

分数 = Q × Kᵀ
        猫   坐   垫
  猫  [ 2    1    2 ]
  坐  [ 0    2    2 ]
  垫  [ 1    1    5 ]

权重 = Softmax(分数 / √d_k)，每行加起来 = 1：
        猫    坐    垫
  猫  [ 0.38  0.23  0.38 ]
  坐  [ 0.16  0.42  0.42 ]
  垫  [ 0.11  0.11  0.79 ]
```
"""

RIGHT_EN = """\
## Hand-worked attention

The scores of three tokens, with d_k = 4 for this section.

**Scores = Q·Kᵀ**

| | cat | sat | mat |
|---|---|---|---|
| cat | 2 | 1 | 2 |
| sat | 0 | 2 | 2 |
| mat | 1 | 1 | 5 |

**Weights = softmax(Scores / √d_k)**

| | cat | sat | mat |
|---|---|---|---|
| cat | 0.38 | 0.23 | 0.38 |
| sat | 0.16 | 0.42 | 0.42 |
| mat | 0.11 | 0.11 | 0.79 |
"""


def line_col(text: str, needle: str, occurrence: int = 1) -> tuple[int, int]:
    """1-based line and column of the `occurrence`-th `needle` in `text`."""
    at = -1
    for _ in range(occurrence):
        at = text.index(needle, at + 1)
    line = text.count("\n", 0, at) + 1
    return line, at - (text.rfind("\n", 0, at) + 1) + 1


def test_a_right_derivation_is_silent_and_counted():
    for text in (RIGHT_ZH, RIGHT_EN):
        report = check(text)
        assert report.diagnostics == []
        assert report.verified >= 6  # every weights row summed and compared


def test_right_chinese_example_checks_the_scores_against_q_and_k():
    report = check(RIGHT_ZH)
    assert report.verified == 9  # 3 score rows, 3 sums, 3 softmax rows
    assert report.skipped == 0


def test_k_written_transposed_is_read_by_columns():
    k_rows = "K：\n  猫  [ 1  0  0  0 ]\n  坐  [ 0  1  1  0 ]\n  垫  [ 1  0  0  2 ]\n"
    k_columns = "Kᵀ：\n      猫  坐  垫\n    [ 1  0  1 ]\n    [ 0  1  0 ]\n    [ 0  1  0 ]\n    [ 0  0  2 ]\n"
    text = RIGHT_ZH.replace(k_rows, k_columns)
    assert text != RIGHT_ZH
    report = check(text)
    assert report.diagnostics == [] and report.verified == 9
    wrong = check(text.replace("  坐  [ 0    2    2 ]", "  坐  [ 0    2    1 ]")).diagnostics
    assert [(d.code, d.written, d.computed) for d in wrong] == [("VK421", "1", "2")]


def test_a_weights_row_that_does_not_sum_to_one_is_an_error_at_its_first_cell():
    text = RIGHT_ZH.replace("[ 0.16  0.42  0.42 ]", "[ 0.16  0.42  0.52 ]")
    report = check(text)
    sums = [d for d in report.diagnostics if d.code == "VK420"]
    assert len(sums) == 1
    d = sums[0]
    assert (d.line, d.col) == line_col(text, "0.16  0.42  0.52")
    assert d.severity == ERROR and d.written == "1.10" and d.computed == "1"


def test_a_weight_that_is_not_the_softmax_of_the_scores_is_an_error_at_that_number():
    # the row still sums to 1, but 0.30 / 0.31 are not softmax([2, 1, 2] / 2)
    text = RIGHT_ZH.replace("[ 0.38  0.23  0.38 ]", "[ 0.38  0.31  0.30 ]")
    report = check(text)
    assert codes(report) == ["VK421", "VK421"]
    first, second = report.diagnostics
    assert (first.line, first.col) == line_col(text, "0.31")
    assert (second.line, second.col) == line_col(text, "0.30")
    assert first.written == "0.31" and first.computed == "0.23"
    assert "猫→坐" in first.message and "√4" in first.message


def test_a_wrong_weight_in_a_table_is_found_at_its_cell():
    text = RIGHT_EN.replace("| mat | 0.11 | 0.11 | 0.79 |", "| mat | 0.11 | 0.21 | 0.69 |")
    report = check(text)
    assert [d.code for d in report.diagnostics] == ["VK421", "VK421"]
    assert (report.diagnostics[0].line, report.diagnostics[0].col) == line_col(text, "0.21")
    assert report.diagnostics[0].computed == "0.11"


def test_a_score_that_is_not_q_times_k_is_an_error():
    text = RIGHT_ZH.replace("  坐  [ 0    2    2 ]", "  坐  [ 0    3    2 ]")
    report = check(text)
    products = [d for d in report.diagnostics if "Q·Kᵀ" in d.message]
    assert len(products) == 1
    assert (products[0].line, products[0].col) == line_col(text, "3    2 ]")
    assert products[0].written == "3" and products[0].computed == "2"


ILLUSTRATIVE = """\
### 归一化

假设句子只有三个词，d = 16。

```
分数矩阵（示意）：
        甲    乙    丙
  甲  [ 0.8  0.4  0.2 ]
  乙  [ 0.3  0.9  0.1 ]
  丙  [ 0.2  0.2  0.6 ]

Softmax(分数 / √d) 后，每行加起来 = 1：
  甲  [ 0.5  0.3  0.2 ]
```
"""


def test_an_illustrative_matrix_gets_a_warning_with_the_real_numbers():
    report = check(ILLUSTRATIVE)
    assert codes(report) == ["VK422"]
    d = report.diagnostics[0]
    assert d.severity == WARNING
    assert (d.line, d.col) == line_col(ILLUSTRATIVE, "0.5  0.3  0.2")
    real = engine.softmax_rows(np.array([[0.8, 0.4, 0.2]]) / 4)[0]
    assert d.computed == "[ " + "  ".join(fmt(v, 3) for v in real) + " ]"
    assert d.written == "[ 0.5  0.3  0.2 ]"


def test_an_illustrative_row_that_does_not_sum_to_one_is_only_a_warning():
    text = "e.g. the attention weights for illustration:\n\n```\n  a [ 0.5  0.4  0.4 ]\n```\n"
    report = check(text)
    assert codes(report) == ["VK422"]
    assert report.diagnostics[0].written == "1.3"


def test_a_scale_that_cannot_be_read_is_a_warning_and_skipped():
    text = RIGHT_EN.replace("with d_k = 4 for this section", "with d_k = 4 or d_k = 8 depending on the model")
    report = check(text)
    assert codes(report) == ["VK423"]
    assert report.diagnostics[0].severity == WARNING
    assert "d_k" in report.diagnostics[0].message
    assert report.skipped == 3


def test_rows_that_cannot_be_matched_are_skipped():
    text = RIGHT_ZH.replace("  猫  [ 0.38", "  狗  [ 0.38")
    report = check(text)
    assert [d for d in report.diagnostics if d.severity == ERROR] == []
    assert report.skipped == 3


def test_an_unlabelled_row_matched_by_position_is_at_most_a_warning():
    text = RIGHT_ZH.split("权重")[0] + "权重 = Softmax(分数 / √d_k)：\n  [ 0.60  0.20  0.20 ]\n```\n"
    report = check(text)
    assert codes(report) == ["VK423"]
    assert "by position" in report.diagnostics[0].message


SCALED_TABLE = """\
**Scaled = Scores / √d_k**

| | cat | sat | mat |
|---|---|---|---|
| cat | 1.0 | 0.5 | 1.0 |
| sat | 0.0 | 1.0 | 1.0 |
| mat | 0.5 | 0.5 | 2.5 |

"""


def test_scaled_scores_under_the_scores_are_the_scores_divided_by_the_scale():
    text = RIGHT_EN.replace("**Weights", SCALED_TABLE + "**Weights")
    report = check(text)
    assert report.diagnostics == [] and report.verified == 9
    wrong = text.replace("| sat | 0.0 | 1.0 | 1.0 |", "| sat | 0.0 | 1.0 | 2.0 |")
    # one finding: the weights below are compared with the computed scaled score
    assert [(d.code, d.written, d.computed) for d in check(wrong).diagnostics] == [("VK421", "2.0", "1.0")]
    assert "Scores / √4" in check(wrong).diagnostics[0].message


def test_a_caption_before_softmax_names_scaled_scores():
    text = RIGHT_ZH.replace("分数 = Q × Kᵀ", "Scaled scores = Q·Kᵀ / √4 (before softmax)").replace(
        "  猫  [ 2    1    2 ]\n  坐  [ 0    2    2 ]\n  垫  [ 1    1    5 ]",
        "  猫  [ 1.0  0.5  1.0 ]\n  坐  [ 0.0  1.0  1.0 ]\n  垫  [ 0.5  0.5  2.5 ]",
    )
    report = check(text)
    assert report.diagnostics == [] and report.verified == 9
    wrong = check(text.replace("[ 0.0  1.0  1.0 ]", "[ 0.0  2.0  1.0 ]")).diagnostics
    # one finding: the weights below are compared with the computed score, not the wrong one
    assert [(d.code, d.written, d.computed) for d in wrong] == [("VK421", "2.0", "1.0")]
    assert "Q·Kᵀ / √4" in wrong[0].message


def test_a_causal_caption_masks_the_future():
    caption = "权重 = Softmax(分数 / √d_k)，每行加起来 = 1"
    text = RIGHT_ZH.replace(caption, "因果掩码后的权重 = Softmax(分数 / √d_k)")
    text = text.replace(
        "[ 0.38  0.23  0.38 ]\n  坐  [ 0.16  0.42  0.42 ]", "[ 1     0     0    ]\n  坐  [ 0.27  0.73  0    ]"
    )
    assert check(text).diagnostics == []
    wrong = text.replace("[ 0.27  0.73  0    ]", "[ 0.16  0.42  0.42 ]")
    assert set(codes(check(wrong))) == {"VK421"}


def test_a_caption_that_denies_the_mask_does_not_mask():
    assert check(RIGHT_ZH.replace("，每行加起来 = 1", "，不加因果掩码")).diagnostics == []
    unmasked = RIGHT_EN.replace("softmax(Scores / √d_k)", "softmax(Scores / √d_k), without a causal mask")
    assert check(unmasked).diagnostics == []


def test_numbers_that_are_not_a_derivation_give_no_finding():
    texts = [
        # model weights, not attention weights
        "W_Q 权重矩阵（可学习）：\n\n```\n  [ 0.5  -1.2  0.3 ]\n  [ 0.1   0.4  2.0 ]\n```\n",
        # code, not a worked example
        "Softmax 的权重：\n\n```python\nweights = [0.5, 0.3, 0.3]\n```\n",
        # no caption at all
        "```\n  a [ 0.5  0.3  0.3 ]\n```\n",
        # a table of sizes
        "| 模型 | 7B | 13B |\n|---|---|---|\n| 显存 | 14 | 26 |\n",
        # the first few probabilities of a vocabulary: not a whole distribution
        "下一个词的概率（只列前三个）：\n\n```\n  [ 0.6  0.2  0.1 ]\n```\n",
        "Softmax over the vocabulary:\n\n```\n  [ 0.6  0.2  0.1 ]  ...\n```\n",
        # weights with no scores above them: not a derivation
        "LoRA 的权重：\n\n```\n  [ 0.1  0.2  0.3 ]\n```\n",
    ]
    for text in texts:
        report = check(text)
        assert report.diagnostics == [], text
        assert report.verified == 0


def test_generated_regions_are_left_to_the_example_checker():
    table = "| | a | b |\n|---|---|---|\n| a | 0.9 | 0.9 |\n"
    text = f"**weights = softmax**\n\n<!-- vaultkit:begin ex -->\n\n{table}\n<!-- vaultkit:end ex -->\n"
    assert check(text).diagnostics == []
    assert check(text.replace("<!-- vaultkit:begin ex -->", "")).diagnostics != []


def test_fix_does_not_rewrite_text_matrices(tmp_path):
    from vaultkit.pipeline import Pipeline

    wrong = RIGHT_ZH.replace("[ 0.16  0.42  0.42 ]", "[ 0.16  0.42  0.52 ]")
    (tmp_path / "note.md").write_text(wrong, encoding="utf-8")
    report, changes = Pipeline(Vault.load(tmp_path)).report()
    assert "VK420" in [d.code for d in report.diagnostics]
    assert changes == []


# ---------------------------------------------------------------------------
# Property: text matrices built from right numbers never yield an error
# ---------------------------------------------------------------------------

TOKENS = ["我", "爱", "吃", "苹果", "the", "cat", "sat", "猫"]


def _fence(caption: str, header: list[str] | None, labels: list[str] | None, rows: list[list[str]]) -> list[str]:
    out = [caption]
    if header:
        out.append("      " + "  ".join(header))
    for i, row in enumerate(rows):
        out.append(f"  {labels[i] if labels else ''} [ " + "  ".join(row) + " ]")
    return out + [""]


def _table(caption: str, header: list[str] | None, labels: list[str] | None, rows: list[list[str]]) -> list[str]:
    width = len(rows[0]) + (labels is not None)
    head = ([""] if labels is not None else []) + (header or [f"c{j}" for j in range(len(rows[0]))])
    out = [f"**{caption}**", "", "| " + " | ".join(head) + " |", "|" + "---|" * width]
    for i, row in enumerate(rows):
        out.append("| " + " | ".join(([labels[i]] if labels else []) + row) + " |")
    return out + [""]


@st.composite
def worked_example(draw):
    queries = draw(st.integers(2, 4))
    keys = queries if draw(st.booleans()) else draw(st.integers(2, 4))
    d = draw(st.integers(2, 5))
    digits = draw(st.integers(2, 3))
    values = st.floats(-2, 2, allow_nan=False, width=32)
    Q = np.array(draw(st.lists(st.lists(values, min_size=d, max_size=d), min_size=queries, max_size=queries)))
    K = np.array(draw(st.lists(st.lists(values, min_size=d, max_size=d), min_size=keys, max_size=keys)))
    causal = queries == keys and draw(st.booleans())
    result = engine.attention(Q, K, causal=causal)
    labelled = draw(st.booleans())
    q_labels = TOKENS[:queries] if labelled else None
    k_labels = TOKENS[:keys] if labelled else None
    layout = draw(st.sampled_from([_fence, _table]))
    scale = draw(st.sampled_from(["literal", "width", "stated"]))
    show_qk = scale == "width" or draw(st.booleans())
    show_scaled = draw(st.booleans())

    def written(m):
        return [[fmt(v, digits) for v in row] for row in m]

    divide = {"literal": f"√{d}", "width": "√d_k", "stated": "√d_k"}[scale]
    mask = "因果" if causal else ""

    def render(scores, weights) -> str:
        lines = [f"## 例子 d_k = {d}" if scale == "stated" else "## 例子", ""]
        blocks = []
        if show_qk:
            blocks.append(("Q：", None, q_labels, written(Q)))
            blocks.append(("K：", None, k_labels, written(K)))
        blocks.append(("Scores = Q × Kᵀ", k_labels, q_labels, written(scores)))
        if show_scaled:
            blocks.append((f"Scaled = Scores / {divide}", k_labels, q_labels, written(result.scaled)))
        blocks.append((f"{mask}Weights = Softmax(Scores / {divide})", k_labels, q_labels, written(weights)))
        if layout is _fence:
            lines.append("```")
            for block in blocks:
                lines += _fence(*block)
            lines.append("```")
        else:
            for block in blocks:
                lines += _table(*block)
        return "\n".join(lines) + "\n"

    wrong_score = result.scores.copy()
    wrong_score[-1, 0] += 1  # far beyond what the rounding of Q and K allows (never masked)
    wrong_weight = result.weights.copy()
    last = wrong_weight[-1]
    low, high = np.argsort(last, kind="stable")[[0, -1]]  # two different cells
    last[high] -= 0.1  # the row still sums to 1
    last[low] += 0.1
    return {
        "right": render(result.scores, result.weights),
        "wrong score": render(wrong_score, result.weights),
        "wrong weight": render(result.scores, wrong_weight),
        "Q and K shown": show_qk,
    }


@settings(max_examples=150, deadline=None)
@given(worked_example())
def test_right_numbers_never_yield_an_error(example):
    text = example["right"]
    report = check(text)
    assert [d for d in report.diagnostics if d.severity == ERROR] == [], text
    assert report.verified > 0, text


@settings(max_examples=50, deadline=None)
@given(worked_example())
def test_seeded_wrong_numbers_are_errors(example):
    findings = check(example["wrong weight"]).diagnostics
    assert findings and {d.code for d in findings} == {"VK421"}, example["wrong weight"]
    assert all(d.line == findings[0].line for d in findings)  # only the seeded row
    if example["Q and K shown"]:
        first = check(example["wrong score"]).diagnostics[0]
        assert first.code == "VK421" and "Q·Kᵀ" in first.message, example["wrong score"]


# ---------------------------------------------------------------------------
# The person's vault: the illustrative matrices get warnings, nothing gets an error
# ---------------------------------------------------------------------------


@needs_corpus
def test_real_vault_gets_no_error_from_text_matrices():
    vault = Vault.load(CORPUS)
    found = {}
    for note in vault.readable_notes:
        report = check_markdown(note.text, note.tokens, note.rel)
        assert [d for d in report.diagnostics if d.severity == ERROR] == [], note.rel
        if report.diagnostics:
            found[note.rel] = report.diagnostics
    transformer = "07-Knowledge/llm-training/Transformer 架构基础.md"
    assert set(found) == {transformer}
    (warning,) = found[transformer]
    assert warning.code == "VK422"
    real = engine.softmax_rows(np.array([[0.9, 0.3, 0.1, 0.5]]) / np.sqrt(4096))[0]  # d=4096 in its section
    assert warning.computed == "[ " + "  ".join(fmt(v, 3) for v in real) + " ]"
    line = vault.notes[transformer].text.split("\n")[warning.line - 1]
    assert line[warning.col - 1 :].startswith("0.4")


# --- a row's own label, equal scores, one vocabulary ---------------------------------------------

SCORES_AND_WEIGHTS = """\
分数和 softmax 权重

| | 甲 | 乙 |
|---|---|---|
| 分数 | 1.0 | 1.0 |
| 权重 | {a} | {b} |
"""


def test_a_rows_own_label_says_what_it_is_before_the_caption():
    text = SCORES_AND_WEIGHTS.format(a="0.6", b="0.4")
    report = check(text)
    # the 分数 row is scores (never summed as weights); equal scores give 0.5 / 0.5 at any scale
    assert [(d.code, d.written, d.computed) for d in report.diagnostics] == [
        ("VK421", "0.6", "0.5"),
        ("VK421", "0.4", "0.5"),
    ]
    assert (report.diagnostics[0].line, report.diagnostics[0].col) == line_col(text, "0.6")
    assert "at any scale" in report.diagnostics[0].message and "权重→甲" in report.diagnostics[0].message


def test_equal_scores_give_equal_weights_with_no_scale_stated():
    report = check(SCORES_AND_WEIGHTS.format(a="0.5", b="0.5"))
    assert report.diagnostics == [] and report.verified == 2 and report.skipped == 0  # no "scale not stated"
    english = (
        "Scores and their weights:\n\n| | a | b | c |\n|---|---|---|---|\n"
        "| logits | 2 | 2 | 2 |\n| probabilities | 0.33 | 0.33 | 0.33 |\n"
    )
    assert check(english).diagnostics == []
    fence = "```\n分数  [ 3  3  3 ]\n权重  [ 0.33  0.33  0.33 ]\n```\n"
    assert check(fence).diagnostics == [] and check(fence).verified == 2
    reversed_rows = "权重和分数\n\n| | 甲 | 乙 |\n|---|---|---|\n| weights | 0.7 | 0.3 |\n| scores | 4 | 4 |\n"
    assert [d.computed for d in check(reversed_rows).diagnostics] == ["0.5", "0.5"]


def test_unequal_scores_with_no_scale_stated_still_say_so():
    text = "Scores and weights:\n\n| | a | b |\n|---|---|---|\n| scores | 2.0 | 1.0 |\n| weights | 0.73 | 0.27 |\n"
    report = check(text)
    assert codes(report) == ["VK423"] and "does not state the scale" in report.diagnostics[0].message
    assert report.skipped == 1


def test_rows_named_as_tokens_keep_the_caption_role():
    # rows labelled with tokens are not roles: the caption names the matrix, as before
    assert check(RIGHT_ZH).diagnostics == []
    assert check(SCORES_AND_WEIGHTS.replace("| 分数 |", "| 猫 |").format(a="0.6", b="0.4")).verified == 1


def test_one_vocabulary_reads_the_same_words_in_text_and_drawings():
    from vaultkit.checks.drawings import vocabulary
    from vaultkit.checks.drawings.handdrawn import quantity_from_text
    from vaultkit.checks.textmatrices import _line_role

    names = ("Q", "K", "V", "scores", "scaled", "masked", "weights", "output")
    for caption, role in [
        ("Logits = Q·Kᵀ", "scores"),
        ("分数 = Q × K^T", "scores"),
        ("缩放后的分数 ÷ √2", "scaled"),
        ("注意力权重", "weights"),
        ("softmax 概率分布", "weights"),
        ("掩码后的分数", "masked"),
    ]:
        assert _line_role(caption) == role, caption
        assert quantity_from_text(caption, names) == role, caption
    for caption in ("Kᵀ：", "K^T =", "K转置：", "K.T ="):
        assert _line_role(caption) == "K transposed" and vocabulary.is_transposed(caption), caption
    for denial in ("不加因果掩码", "without a causal mask", "no mask"):
        assert vocabulary.denies_mask(denial)
    assert _line_role("W_Q 权重矩阵") == "other" and quantity_from_text("W_Q 权重矩阵", names) is None
