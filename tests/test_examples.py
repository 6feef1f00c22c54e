"""Executable examples: blocks, generated regions, inline values, check and fix."""

from __future__ import annotations

import os
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from vaultkit.checks.examples import ExampleRunner
from vaultkit.readers.markdown import parse

Q = "[[0.5, 0.3, -0.2, 0.8], [0.1, -0.4, 0.7, 0.2], [-0.3, 0.6, 0.1, -0.5], [0.7, -0.1, -0.3, 0.4]]"
K = "[[0.3, -0.5, 0.2, 0.1], [-0.2, 0.6, 0.2, -0.3], [0.4, -0.1, -0.4, 0.5], [0.1, 0.3, 0.6, -0.2]]"


def attention_block(ex_id: str = "attn", extra: str = "") -> str:
    return f"```vaultkit\nid: {ex_id}\nkind: attention\ntokens: [我, 爱, 吃, 苹果]\nQ: {Q}\nK: {K}\nmask: causal\n{extra}```\n"


def process(text: str, rel: str = "n.md"):
    """Run one note's examples through a fresh runner; returns the NoteOutcome."""

    class Note:
        pass

    note = Note()
    note.rel, note.text, note.tokens = rel, text, parse(text)
    runner = ExampleRunner()
    collected = runner.collect([note])
    outcome = runner.process(rel, text, note.tokens)
    outcome.diagnostics = collected + outcome.diagnostics
    return outcome


def codes(outcome) -> list[str]:
    return [d.code for d in outcome.diagnostics]


def test_missing_region_is_reported_then_written_and_stable():
    text = "# 注意力\n\n" + attention_block() + "\n分数 -0.10%%= attn.scores[1][2] %%。\n"
    first = process(text)
    assert codes(first) == ["VK102"]
    assert "<!-- vaultkit:begin attn -->" in first.text
    assert "| 爱 | 0.39 | -0.18 | -0.10 | 0.27 |" in first.text
    second = process(first.text)
    assert second.diagnostics == [] and second.text == first.text
    assert second.values == 1


def test_wrong_inline_value_shows_written_and_computed_and_is_rewritten():
    text = attention_block() + "\n原始分数是 0.35%%= attn.scores[0][0] %%，权重 1.0%%= attn.weights[0][0] %%。\n"
    outcome = process(text)
    wrong = [d for d in outcome.diagnostics if d.code == "VK201"]
    assert len(wrong) == 1
    assert (wrong[0].written, wrong[0].computed) == ("0.35", "0.04")
    assert wrong[0].line == 10 and wrong[0].col == 7
    assert "原始分数是 0.04%%= attn.scores[0][0] %%，权重 1.0%%" in outcome.text


@pytest.mark.parametrize(
    "written, computed, ok",
    [
        ("-0.10", -0.1, True),
        ("-0.1", -0.1, True),
        ("−0.10", -0.1, True),
        ("0.04", 0.04, True),
        ("0.145", 0.1449999, True),
        ("0.15", 0.145, True),
        ("0.14", 0.145, True),
        ("0.2", 0.26, False),
        ("524,288", 524288, True),
        ("524,289", 524288, False),
        ("5.24e5", 524288, True),
    ],
)
def test_written_precision_rule(written, computed, ok):
    from vaultkit.numbers import written_matches

    assert written_matches(written, computed) is ok


def test_hand_edit_inside_region_is_reported_and_only_fix_overwrites():
    good = process(attention_block()).text
    edited = good.replace("| 爱 | 0.39 |", "| 爱 | 0.93 |")
    outcome = process(edited)
    assert codes(outcome) == ["VK101"]
    assert (
        outcome.diagnostics[0].line
        == edited.split("\n").index(next(line for line in edited.split("\n") if "0.93" in line)) + 1
    )
    assert outcome.text == good


def test_broken_example_next_to_good_one():
    text = (
        "```vaultkit\nid: bad\nkind: attention\nQ: [[1, 2], [3]]\nK: [[1, 2]]\n```\n\n"
        + attention_block("good")
        + "\n值 1.00%%= good.weights[0][0] %% 和 2%%= bad.scores[0][0] %%\n"
    )
    outcome = process(text)
    assert ("VK114", 4) in [(d.code, d.line) for d in outcome.diagnostics]
    assert "<!-- vaultkit:begin good -->" in outcome.text
    assert "<!-- vaultkit:begin bad -->" not in outcome.text
    assert outcome.values == 1


@pytest.mark.parametrize(
    "body, code, line",
    [
        ("id: a\nkind: attention\nQ: [[1, 2]\n", "VK110", 4),
        ("id: a\nkind: nope\n", "VK111", 3),
        ("id: a\nkind: attention\nQ: [[1]]\nK: [[1]]\ncolour: red\n", "VK112", 6),
        ("id: a\nkind: attention\nK: [[1]]\n", "VK113", 1),
        ("id: a\nkind: attention\nQ: [[1, .nan]]\nK: [[1, 2]]\n", "VK114", 4),
        ("id: a\nkind: attention\nQ: [[1, 2]]\nK: [[1, 2, 3]]\n", "VK115", 5),
        ("id: a\nkind: attention\nQ: [[1, x]]\nK: [[1, 2]]\n", "VK114", 4),
        ("id: a\nkind: multihead\ntokens: [a, b]\nheads: 3\nkv_heads: 2\nseed: 1\n", "VK115", 6),
        ("id: a\nkind: kv-memory\nmodels: [{name: m, layers: 2, kv_heads: 2, head_dim: 4}]\ndtype: fp7\n", "VK114", 5),
        ("id: a\nkind: attention\ntokens: [a]\nseed: 1\nd_model: 100000\n", "VK116", 6),
        ("- just\n- a list\n", "VK114", 1),
    ],
)
def test_bad_blocks_are_diagnostics_at_their_line(body, code, line):
    outcome = process(f"```vaultkit\n{body}```\n")
    assert [(d.code, d.line) for d in outcome.diagnostics] == [(code, line)]


def test_duplicate_ids_and_unknown_paths():
    text = (
        attention_block("a")
        + "\n"
        + attention_block("a")
        + "\nx 1%%= nope.scores[0][0] %% y 2%%= a.colour %% z 3%%= a.scores[9][0] %%\n"
    )
    outcome = process(text)
    found = codes(outcome)
    assert found.count("VK117") == 1 and found.count("VK202") == 1 and found.count("VK203") == 2


def test_inline_values_in_code_are_not_bindings():
    text = attention_block() + "\n`0.35%%= attn.scores[0][0] %%` and\n\n```\n0.35%%= attn.scores[0][0] %%\n```\n"
    outcome = process(text)
    assert "VK201" not in codes(outcome)


def test_fifty_examples_in_one_note():
    text = "".join(attention_block(f"e{i}") + f"\nv{i}: 1.00%%= e{i}.weights[0][0] %%\n\n" for i in range(50))
    outcome = process(text)
    assert codes(outcome).count("VK102") == 50
    again = process(outcome.text)
    assert again.diagnostics == [] and again.values == 50


def test_each_kind_runs_and_is_idempotent():
    blocks = textwrap.dedent(
        """
        ```vaultkit
        id: kv
        kind: kv-cache
        tokens: [我, 想, 买, 苹果, 手机]
        seed: 3
        prompt_len: 2
        ```

        ```vaultkit
        id: mh
        kind: multihead
        tokens: [a, b, c]
        heads: 4
        kv_heads: 1
        seed: 1
        ```

        ```vaultkit
        id: mem
        kind: kv-memory
        seq_len: 4096
        models:
          - {name: LLaMA-7B, layers: 32, heads: 32, kv_heads: 32, head_dim: 128}
          - {name: LLaMA-2-70B, layers: 80, heads: 64, kv_heads: 8, head_dim: 128}
        ```

        ```vaultkit
        id: s
        kind: sampling
        tokens: [a, b, c]
        logits: [2, 1, 0]
        top_k: 2
        ```

        7B: 524,288%%= mem.models[0].bytes_per_token %% B, 70B: 327,680%%= mem.models[1].bytes_per_token %% B,
        MQA maps head 3 to 0%%= mh.kv_map[3] %%, with cache 5%%= kv.projections.with_cache %% projections.
        """
    )
    first = process(blocks)
    assert sorted(codes(first)) == ["VK102"] * 4
    assert first.values == 4
    assert process(first.text).text == first.text
    assert "MQA" in first.text and "524,288 B = 512.0 KiB" in first.text and "最大差 ≤ 1e-12 ✓" in first.text


def run(root):
    from vaultkit.commands.check import run as check_run

    return check_run(root)


def apply_changes(changes):
    from vaultkit.commands.fix import apply_changes as apply

    return apply(changes)


def write_vault(tmp_path, files: dict[str, bytes]):
    for rel, data in files.items():
        path = tmp_path / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return tmp_path


def test_fix_keeps_crlf_bom_mode_and_second_fix_touches_nothing(tmp_path):
    text = "\ufeff# 注意力\r\n\r\n" + attention_block().replace("\n", "\r\n")
    root = write_vault(tmp_path, {"n.md": text.encode("utf-8")})
    os.chmod(root / "n.md", 0o600)
    report, changes = run(root)
    written, refused = apply_changes(changes)
    assert written == ["n.md"] and not refused
    data = (root / "n.md").read_bytes()
    assert data.startswith("\ufeff".encode()) and b"\r\n" in data and b"\n" not in data.replace(b"\r\n", b"")
    assert os.stat(root / "n.md").st_mode & 0o777 == 0o600
    mtime = os.stat(root / "n.md").st_mtime_ns
    report, changes = run(root)
    assert changes == [] and report.summary.errors == 0
    assert os.stat(root / "n.md").st_mtime_ns == mtime


def test_note_changed_between_read_and_write_is_not_overwritten(tmp_path):
    root = write_vault(tmp_path, {"n.md": attention_block().encode()})
    _, changes = run(root)
    (root / "n.md").write_text("someone typed this\n", encoding="utf-8")
    written, refused = apply_changes(changes)
    assert written == [] and [d.code for d in refused] == ["VK004"]
    assert (root / "n.md").read_text(encoding="utf-8") == "someone typed this\n"


prose = st.text(alphabet=st.sampled_from(list("abc 我爱 0123.,|#-*`\n")), max_size=80)


@settings(max_examples=40, deadline=None)
@given(before=prose, after=prose)
def test_fix_is_idempotent_around_arbitrary_prose(before, after):
    text = before + "\n\n" + attention_block() + "\n" + after + "\n"
    first = process(text).text
    assert process(first).text == first


def test_summary_counts_what_was_verified(tmp_path):
    root = write_vault(tmp_path, {"n.md": attention_block().encode()})
    _, changes = run(root)
    apply_changes(changes)
    report, _ = run(root)
    assert report.summary.examples == 1 and report.summary.notes == 1
    assert "1 example," in report.summary.line()


def test_tables_and_figures_round_a_decimal_tie_alike():
    """0.27 / 2 is 0.13499999999999998 in binary but 0.135 to the reader: both say 0.14
    (figures and tables write numbers with one function, `numbers.fmt`)."""
    from vaultkit.figures import style
    from vaultkit.numbers import fmt

    assert style.fmt is fmt
    assert fmt(0.27 / 2, 2) == "0.14" and fmt(-0.27 / 2, 2) == "-0.14"
