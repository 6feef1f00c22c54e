"""The command line: exit codes, formats, defaults."""

from __future__ import annotations

import difflib
import json
import os
import re
import subprocess
import sys

import pytest

from vaultkit.commands.cli import default_vault, main


def test_usage_errors_exit_2(tmp_path, capsys):
    assert main([]) == 2
    assert main(["check", str(tmp_path / "missing")]) == 2
    assert "vault folder not found" in capsys.readouterr().err
    assert main(["nonsense"]) == 2


def test_default_vault_reads_docs_dir(tmp_path):
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: x\ndocs_dir: notes\nmarkdown_extensions:\n  - pymdownx.emoji:\n      emoji_index: !!python/name:material.extensions.emoji.twemoji\n"
    )
    assert default_vault(tmp_path) == (tmp_path / "notes").resolve()
    assert default_vault(tmp_path / "nowhere") == tmp_path / "nowhere" / "vault"


def test_check_json_and_exit_codes(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\n见 [[b]]。\n", encoding="utf-8")
    (tmp_path / "b.md").write_text("# B\n", encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "vaultkit", "check", str(tmp_path), "--format", "json"], capture_output=True, text=True
    )
    assert run.returncode == 0, run.stdout + run.stderr
    data = json.loads(run.stdout)
    assert data["summary"]["notes"] == 2 and data["summary"]["links"] == 1 and data["diagnostics"] == []
    (tmp_path / "a.md").write_text("# A\n\n见 [[c]]。\n", encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "vaultkit", "check", str(tmp_path)], capture_output=True, text=True)
    assert run.returncode == 1
    assert "a.md:3:3: VK501" in run.stdout


def test_github_format(tmp_path):
    (tmp_path / "a.md").write_text("[[nope]]\n", encoding="utf-8")
    run = subprocess.run(
        [sys.executable, "-m", "vaultkit", "check", str(tmp_path), "--format", "github"],
        capture_output=True,
        text=True,
        cwd=tmp_path.parent,
    )
    assert run.returncode == 1
    assert run.stdout.startswith(f"::error file={tmp_path.name}/a.md,line=1,col=1,title=VK501::VK501 ")


def test_closed_pipe_ends_quietly(tmp_path):
    block = "```vaultkit\nid: e{i}\nkind: attention\ntokens: [a, b]\nseed: {i}\n```\n\n"
    for i in range(100):  # a diff of many files, printed one after another
        (tmp_path / f"n{i}.md").write_text(block.format(i=i), encoding="utf-8")
    proc = subprocess.Popen(
        [sys.executable, "-m", "vaultkit", "fix", "--diff", str(tmp_path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    proc.stdout.read(100)
    proc.stdout.close()  # like `| head`
    stderr = proc.stderr.read().decode()
    assert proc.wait(timeout=60) == 1
    assert "Traceback" not in stderr


def vaultkit(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "vaultkit", *args], capture_output=True, text=True, cwd=cwd)


def test_a_file_given_as_vault_says_to_pass_its_folder(tmp_path):
    (tmp_path / "vault").mkdir()
    (tmp_path / "vault" / "注意力笔记.md").write_text("# 注意力\n", encoding="utf-8")
    run = vaultkit("check", "vault/注意力笔记.md", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr == "vaultkit: vault/注意力笔记.md is a file; pass the vault folder that holds it, e.g. vault\n"


def test_the_default_vault_is_explained_when_absent(tmp_path):
    run = vaultkit("check", cwd=tmp_path)
    assert run.returncode == 2
    assert run.stderr == (
        "vaultkit: no vault given, and ./vault (the default when there is no mkdocs.yml) does not exist; "
        "pass the vault folder, e.g. `vaultkit check notes`, or set it up once with `vaultkit init notes`\n"
    )


def test_abbreviated_flags_are_refused_with_the_subcommand_usage(tmp_path):
    run = vaultkit("fix", "--dif", str(tmp_path))
    assert run.returncode == 2
    assert " ".join(run.stderr.split()) == (  # argparse wraps the usage line at the terminal's width
        "usage: vaultkit fix [-h] [--diff] [--adopt] [--format {text,json,github}] [vault] "
        "vaultkit fix: error: unrecognized arguments: --dif (did you mean --diff?)"
    )
    run = vaultkit("check", "--fromat", "json")
    assert " ".join(run.stderr.split()) == (
        "usage: vaultkit check [-h] [--format {text,json,github}] [--explain] [--report [NOTE]] [vault] "
        "vaultkit check: error: unrecognized arguments: --fromat (did you mean --format?)"
    )


def test_one_note_is_singular(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\n见 [[a]]。\n", encoding="utf-8")
    run = vaultkit("check", str(tmp_path))
    assert run.stdout == (
        "Checked 1 note, 1 link, 0 examples, 0 inline values, 0 claims (0 skipped), 0 figures. 0 errors, 0 warnings.\n"
    )


def test_text_output_marks_errors_and_warnings(tmp_path):
    (tmp_path / "new").mkdir()
    (tmp_path / "new" / "b.md").write_text("# B\n", encoding="utf-8")
    (tmp_path / "a.md").write_text("# A\n\n[[x]]\n\n[[old/b]]\n", encoding="utf-8")
    run = vaultkit("check", str(tmp_path))
    assert run.returncode == 1 and run.stdout == (
        "a.md:3:1: VK501 error: link target of [[x]] does not exist in the vault\n"
        "a.md:5:1: VK502 warning: [[old/b]]: no file at this path; the only `b.md` is new/b.md "
        "(`vaultkit fix` writes `new/b`)\n"
        "Checked 2 notes, 2 links, 0 examples, 0 inline values, 0 claims (0 skipped), 0 figures. 1 error, 1 warning.\n"
    )
    problem_matcher = r"^(.+):(\d+):(\d+): (VK\d{3}) (error|warning): (.*)$"  # as README says
    found = [re.match(problem_matcher, line).groups()[3:5] for line in run.stdout.splitlines()[:-1]]
    assert found == [("VK501", "error"), ("VK502", "warning")]
    data = json.loads(vaultkit("check", "--format", "json", str(tmp_path)).stdout)
    assert [(d["code"], d["severity"]) for d in data["diagnostics"]] == found


def test_fix_diff_with_nothing_to_rewrite_shows_the_errors_left(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\n见 [[nope]]。\n", encoding="utf-8")
    run = vaultkit("fix", "--diff", str(tmp_path))
    assert run.returncode == 1 and run.stdout == ""  # stdout is the patch: empty
    assert run.stderr == (
        "a.md:3:3: VK501 error: link target of [[nope]] does not exist in the vault\n"
        "Checked 1 note, 1 link, 0 examples, 0 inline values, 0 claims (0 skipped), 0 figures. 1 error, 0 warnings.\n"
        "Nothing for fix to rewrite; the errors above need editing by hand.\n"
    )
    run = vaultkit("fix", "--diff", str(tmp_path), "--format", "json")
    data = json.loads(run.stdout)
    assert run.returncode == 1 and data["rewrites"] == []
    assert [d["code"] for d in data["diagnostics"]] == ["VK501"] and data["summary"]["errors"] == 1


def test_fix_diff_json_holds_the_diff(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\n见 [[sub/b]]。\n", encoding="utf-8")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "b.md").write_text("# B\n", encoding="utf-8")
    data = json.loads(vaultkit("fix", "--diff", str(tmp_path), "--format", "json").stdout)
    assert [r["path"] for r in data["rewrites"]] == ["a.md"]
    assert "+见 [[c/b]]。" in data["rewrites"][0]["diff"]


EXAMPLE = """# 例子

```vaultkit
id: e1
kind: attention
Q: {q}
K: [[0.3, -0.5], [-0.2, 0.6]]
V: [[1, 0], [0, 1]]
```

<!-- vaultkit:begin e1 -->
<!-- vaultkit:end e1 -->

权重是 0.5 %%=e1.weights[0][0]%%。
"""


def test_an_unclosed_bracket_is_one_diagnostic_at_its_line(tmp_path):
    (tmp_path / "n.md").write_text(EXAMPLE.format(q="[[0.5, 0.3], [0.1, -0.4]"), encoding="utf-8")
    run = vaultkit("check", str(tmp_path))
    assert run.stdout.splitlines()[0] == (
        "n.md:6:4: VK110 error: example is not valid YAML: the '[' here is never closed; add the missing ']' "
        "(the YAML parser only noticed at line 7)"
    )
    assert run.stdout.splitlines()[1].endswith("1 error, 0 warnings.")  # no VK104, no VK202


def test_exponent_numbers_are_numbers(tmp_path):
    (tmp_path / "n.md").write_text(EXAMPLE.format(q="[[1e-3, 0], [0, 1E2]]"), encoding="utf-8")
    run = vaultkit("check", str(tmp_path), "--format", "json")
    data = json.loads(run.stdout)
    assert data["summary"]["examples"] == 1 and data["summary"]["values"] == 1
    assert [d["code"] for d in data["diagnostics"]] == ["VK101"]  # it ran: only its region is stale


def test_a_missing_figure_is_reported_once(tmp_path):
    (tmp_path / "n.md").write_text(
        "# 图\n\n```vaultkit\nid: e1\nkind: attention\ntokens: [a, b]\nseed: 1\nfigure: figs/e1.svg\n```\n\n"
        "<!-- vaultkit:begin e1 -->\n<!-- vaultkit:end e1 -->\n\n见 ![[figs/e1.svg]]\n",
        encoding="utf-8",
    )
    lines = vaultkit("check", str(tmp_path)).stdout.splitlines()
    assert [line for line in lines if "e1.svg" in line] == [
        "n.md:8:1: VK401 error: figure figs/e1.svg of example e1 is missing; vaultkit fix draws it"
    ]
    assert vaultkit("fix", str(tmp_path)).returncode == 0
    assert vaultkit("check", str(tmp_path)).returncode == 0


def test_strict_build_passes_without_mermaid_and_says_so_once(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\n```mermaid\ngraph LR\n  a --> b\n```\n", encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "VAULTKIT_MERMAID_JS"}
    run = subprocess.run(
        [sys.executable, "-m", "vaultkit", "build", "vault", "--strict"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    if "mermaid" in (run.stdout + run.stderr) and run.stderr.count("Note:") == 0:
        pytest.skip("mermaid.min.js is installed here")
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stderr == (
        "Note: 1 note with mermaid diagrams: shown as code, since mermaid.min.js was not found. To draw them, "
        "run `npm install mermaid` in the folder of mkdocs.yml (or the vault's parent), "
        "or set VAULTKIT_MERMAID_JS to a mermaid.min.js file.\n"
    )


def test_a_failed_strict_build_still_prints_the_check(tmp_path):
    vault = tmp_path / "vault"
    vault.mkdir()
    (vault / "a.md").write_text("# A\n\n[[nope]]\n", encoding="utf-8")
    env = {**os.environ, "VAULTKIT_MERMAID_JS": str(tmp_path / "missing.js")}
    run = subprocess.run(
        [sys.executable, "-m", "vaultkit", "build", "vault", "--strict"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
    )
    assert run.returncode == 1
    assert run.stderr.splitlines()[0] == (
        f"WARNING - vaultkit: VAULTKIT_MERMAID_JS is {tmp_path / 'missing.js'}, which is not a file; "
        "point it at mermaid.min.js or unset it"
    )
    assert run.stdout.splitlines() == [
        ".:1:1: VK601 error: site build failed: Aborted with 1 warnings in strict mode: the MkDocs warnings above are "
        "site problems; fix them or build without --strict",
        "a.md:3:1: VK501 error: link target of [[nope]] does not exist in the vault",
        "Checked 1 note, 1 link, 0 examples, 0 inline values, 0 claims (0 skipped), 0 figures. 2 errors, 0 warnings.",
    ]
    plain = subprocess.run(
        [sys.executable, "-m", "vaultkit", "build", "vault", "--strict"], capture_output=True, text=True, cwd=tmp_path
    )
    assert plain.returncode == 1
    assert plain.stdout.splitlines()[0] == "a.md:3:1: VK501 error: link target of [[nope]] does not exist in the vault"


def test_fix_diff_lists_what_fix_would_leave_not_what_its_diff_fixes(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\n见 [[sub/b]] 和 [[nope]]。\n", encoding="utf-8")
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "b.md").write_text("# B\n", encoding="utf-8")
    run = vaultkit("fix", "--diff", str(tmp_path))
    assert run.returncode == 1 and "+见 [[c/b]] 和 [[nope]]。\n" in run.stdout
    assert run.stderr == (  # no VK502 for [[sub/b]]: the diff above rewrites it
        "a.md:3:13: VK501 error: link target of [[nope]] does not exist in the vault\n"  # its column once fixed
        "Checked 2 notes, 2 links, 0 examples, 0 inline values, 0 claims (0 skipped), 0 figures. 1 error, 0 warnings.\n"
        "fix would rewrite 1 file: a.md; the diagnostics above are what it leaves.\n"
    )
    assert (tmp_path / "a.md").read_text(encoding="utf-8") == "# A\n\n见 [[sub/b]] 和 [[nope]]。\n"  # nothing written
    (tmp_path / "a.md").write_text("# A\n\n见 [[sub/b]]。\n", encoding="utf-8")
    run = vaultkit("fix", "--diff", str(tmp_path))
    assert run.stderr.splitlines()[-2:] == [
        "Checked 2 notes, 1 link, 0 examples, 0 inline values, 0 claims (0 skipped), 0 figures. 0 errors, 0 warnings.",
        "fix would rewrite 1 file: a.md.",
    ]


def test_fix_adopt_diff_shows_the_adoption_and_what_fix_then_writes(tmp_path):
    from pathlib import Path

    drawing = Path(__file__).parent / "fixtures" / "handdrawn" / "cards-caption-above.svg"
    note = "# 两个词\n\n看图：\n![[cards-caption-above.svg]]\n\n## 下一节\n"
    (tmp_path / "cards-caption-above.svg").write_bytes(drawing.read_bytes())
    (tmp_path / "note.md").write_text(note, encoding="utf-8")
    run = vaultkit("fix", "--adopt", "--diff", str(tmp_path))
    assert run.returncode == 1
    assert run.stderr == (
        "Checked 1 note, 1 link, 1 example, 0 inline values, 1 claim (0 skipped), 1 figure. 0 errors, 0 warnings.\n"
        "fix would rewrite 2 files: note.md, cards-caption-above.svg.\n"
    )
    assert (tmp_path / "note.md").read_text(encoding="utf-8") == note  # --diff writes nothing
    before = {name: (tmp_path / name).read_text(encoding="utf-8") for name in ("note.md", "cards-caption-above.svg")}
    assert vaultkit("fix", "--adopt", str(tmp_path)).returncode == 0
    expected = "".join(
        "".join(
            difflib.unified_diff(
                before[name].splitlines(keepends=True),
                (tmp_path / name).read_text(encoding="utf-8").splitlines(keepends=True),
                f"a/{name}",
                f"b/{name}",
            )
        )
        for name in ("note.md", "cards-caption-above.svg")
    )
    assert run.stdout == expected  # the patch is what fix --adopt then wrote


def _templates_and_excluded(root):
    """A vault of 2 notes that check counts, a template and a file Obsidian's settings exclude."""
    (root / ".obsidian").mkdir(parents=True)
    (root / ".obsidian" / "templates.json").write_text('{"folder": "模板"}', encoding="utf-8")
    (root / ".obsidian" / "app.json").write_text('{"userIgnoreFilters": ["归档/"]}', encoding="utf-8")
    for rel in ("a.md", "b.md", "模板/日记.md", "归档/旧.md"):
        (root / rel).parent.mkdir(exist_ok=True)
        (root / rel).write_text("# 标题\n\n见 [[a]]。\n", encoding="utf-8")


def _first_lines(command, until: str, cwd):
    """Start a long-running vaultkit command; its stdout lines up to the one starting with `until`."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "vaultkit", *command], cwd=cwd, text=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    lines = []
    while not (lines and lines[-1].startswith(until)):
        line = proc.stdout.readline()
        assert line, proc.stderr.read()
        lines.append(line.rstrip("\n"))
    return proc, lines


def _stop(proc) -> str:
    import signal

    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    return err


def test_watch_counts_the_notes_check_counts(tmp_path):
    _templates_and_excluded(tmp_path / "v")
    assert vaultkit("check", "v", cwd=tmp_path).stdout.startswith("Checked 2 notes,")
    proc, lines = _first_lines(["watch", "v"], "Watching", tmp_path)
    try:
        assert lines == ["Watching v (2 notes, 0 examples). Press Ctrl-C to stop."]
    finally:
        _stop(proc)


def test_serve_prints_the_check_first_and_no_traceback_for_a_closed_page(tmp_path):
    import socket
    import struct
    import time

    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "a.md").write_text("# A\n\n见 [[nope]]。2 × 3 = 7\n", encoding="utf-8")
    check = vaultkit("check", "v", cwd=tmp_path)
    proc, lines = _first_lines(["serve", "v", "-a", "127.0.0.1:0"], "Serving", tmp_path)
    try:
        assert lines[:-1] == check.stdout.splitlines() and lines[-1].startswith("Serving v on http://127.0.0.1:")
        port = int(lines[-1].split("http://127.0.0.1:")[1].split("/")[0])
        for _ in range(3):  # pages closed while their reload poll waits, then a save answers the polls
            poll = socket.create_connection(("127.0.0.1", port))
            poll.sendall(b"GET /.vaultkit/reload?since=0 HTTP/1.1\r\nHost: x\r\n\r\n")
            time.sleep(0.2)
            poll.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))  # reset, as a browser may
            poll.close()
        (tmp_path / "v" / "a.md").write_text("# A\n\n见 [[a]]。2 × 3 = 6\n", encoding="utf-8")
        while not proc.stdout.readline().startswith("Site updated"):
            pass
        time.sleep(0.5)
    finally:
        err = _stop(proc)
    assert "Traceback" not in err and "BrokenPipeError" not in err and "ConnectionResetError" not in err, err


def test_serve_tells_a_taken_port_or_a_bad_address_before_checking(tmp_path, monkeypatch, capsys):
    import socket

    from vaultkit.commands import cli
    from vaultkit.state import VaultState

    (tmp_path / "v").mkdir()
    (tmp_path / "v" / "a.md").write_text("# A\n", encoding="utf-8")
    monkeypatch.setattr(VaultState, "load", lambda *args: pytest.fail("checked the vault before taking the address"))
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        assert cli.main(["serve", str(tmp_path / "v"), "-a", f"127.0.0.1:{port}"]) == 2
    assert capsys.readouterr().err.startswith(f"vaultkit: cannot serve on 127.0.0.1:{port}: ")
    for address in ("localhost", "127.0.0.1:80000"):
        assert cli.main(["serve", str(tmp_path / "v"), "-a", address]) == 2
        assert (
            f"argument -a/--address: must be HOST:PORT (a port up to 65535), got {address!r}" in capsys.readouterr().err
        )
    assert cli.main(["serve", str(tmp_path / "v"), "-a", "nosuchhost.invalid:8000"]) == 2
    assert capsys.readouterr().err.startswith("vaultkit: cannot serve on nosuchhost.invalid:8000: ")


def test_a_build_whose_config_fails_still_checks_the_vault(tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "a.md").write_text("# A\n\n2 × 3 = 7\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text(
        "site_name: x\ndocs_dir: notes\ntheme:\n  name: nosuchtheme\n", encoding="utf-8"
    )
    run = vaultkit("build", cwd=tmp_path)
    assert run.returncode == 1
    assert run.stdout.splitlines() == [
        ".:1:1: VK601 error: site build failed: Aborted with a configuration error!",
        "a.md:3:9: VK301 error: 2 × 3 = 7 is wrong: written 7, computed 6",
        "Checked 1 note, 0 links, 0 examples, 0 inline values, 1 claim (0 skipped), 0 figures. 2 errors, 0 warnings.",
    ]


def test_fix_diff_reports_symlinks_and_special_files_as_check_does(tmp_path):
    vault, outside = tmp_path / "v", tmp_path / "out"
    (vault / "c").mkdir(parents=True)
    outside.mkdir()
    (vault / "a.md").write_text("# A\n\n见 [[sub/b]]。\n", encoding="utf-8")
    (vault / "c" / "b.md").write_text("# B\n", encoding="utf-8")
    (outside / "o.md").write_text("# O\n", encoding="utf-8")
    (vault / "abs.md").symlink_to(vault / "c" / "b.md")  # into the vault, by an absolute path
    (vault / "out.md").symlink_to("../out/o.md")
    (vault / "dangling.md").symlink_to("nowhere.md")
    (vault / "folder").symlink_to("c")
    os.mkfifo(vault / "pipe.md")
    check = vaultkit("check", str(vault)).stdout.splitlines()
    left = vaultkit("fix", "--diff", str(vault)).stderr.splitlines()
    assert [line for line in check if not line.startswith(("a.md:", "Checked"))] == [
        "dangling.md:1:1: VK005 warning: dangling or looping symlink; skipped",
        "folder:1:1: VK005 warning: symlinked folder; not followed",
        "out.md:1:1: VK005 warning: symlink out of the vault; not followed",
        "pipe.md:1:1: VK002 error: not a regular file; skipped",
    ]
    assert left[:-2] == check[1:-1]  # all but the VK502 the diff fixes
    assert left[-2] == check[-1].replace("1 error, 4 warnings", "1 error, 3 warnings")


@pytest.mark.parametrize(
    ("config", "problem"),
    [
        (
            b"site_name: x\ndocs_dir: notes\ntheme: [\n",
            ":4:1: is not valid YAML: expected the node content, but found '<stream end>'",
        ),
        (b"- site_name: x\n", ":1:1: is not a mapping of settings"),
        (b"site_name: \xff\n", ": is not UTF-8"),
    ],
)
def test_a_mkdocs_yml_that_cannot_be_read_is_never_taken_for_absent(tmp_path, monkeypatch, capsys, config, problem):
    """MkDocs stops on it, so vaultkit never builds the default site in its place: build fails
    and checks the vault; serve, init and a command looking for the vault stop at once; a check,
    a watch or the language server on a vault given go on, since they need no config."""
    from vaultkit.commands.lsp import vault_of
    from vaultkit.renderers.report_note import configured
    from vaultkit.state import VaultState

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n\n2 × 3 = 7\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_bytes(config)
    told = f"{tmp_path.resolve() / 'mkdocs.yml'}{problem}"

    run = vaultkit("build", "notes", cwd=tmp_path)
    assert (run.returncode, run.stdout.splitlines()[:2]) == (
        1,
        [
            f".:1:1: VK601 error: site build failed: {told}",
            "a.md:3:9: VK301 error: 2 × 3 = 7 is wrong: written 7, computed 6",
        ],
    )
    assert not (tmp_path / "site").exists()

    monkeypatch.chdir(tmp_path)
    assert main(["check", "notes"]) == 1  # the wrong claim
    assert configured(notes) is None and vault_of(tmp_path) == tmp_path
    capsys.readouterr()
    assert main(["check"]) == 2
    assert capsys.readouterr().err == f"vaultkit: {told}; fix it, or pass the vault folder\n"
    monkeypatch.setattr(VaultState, "load", lambda *args: pytest.fail("checked the vault before reading its config"))
    for command in (["serve", "notes", "-a", "127.0.0.1:0"], ["init", "notes"]):
        assert main(command) == 2
        assert capsys.readouterr().err == f"vaultkit: {told}\n"
    assert (tmp_path / "mkdocs.yml").read_bytes() == config and sorted(os.listdir(tmp_path)) == ["mkdocs.yml", "notes"]


def test_serve_loads_the_site_config_while_the_notes_are_checked(tmp_path, monkeypatch, capsys):
    """The config is one of the calls this process makes while its workers check the notes
    (`compute_notes`' `meanwhile`), the first: an error in it stops the check and is told at
    once, not after the whole check."""
    from vaultkit.commands import check, cli

    notes = tmp_path / "notes"
    notes.mkdir()
    (notes / "a.md").write_text("# A\n", encoding="utf-8")
    (tmp_path / "mkdocs.yml").write_text("site_name: x\ndocs_dir: notes\ntheme:\n  name: nosuchtheme\n", "utf-8")

    def checked(root, meanwhile=(), fresh_outlines=False):
        meanwhile[0]()  # the first of this process's share, made as soon as the workers are forked
        pytest.fail("the check went on although the site's config has errors")

    monkeypatch.setattr(check, "checked", checked)
    assert cli.main(["serve", str(notes), "-a", "127.0.0.1:0"]) == 2
    assert capsys.readouterr().err.endswith("vaultkit: cannot serve the site: Aborted with a configuration error!\n")


@pytest.mark.parametrize(("command", "collecting"), [("check", False), ("fix", False), ("build", True)])
def test_the_program_checks_with_the_collector_off(tmp_path, command, collecting):
    """As the program (its own command line), check and fix run with the cyclic collector off
    to the end; a build turns it on and off itself; `main(argv)` called by a program leaves it on."""
    (tmp_path / "a.md").write_text("# A\n\n2 × 3 = 6\n", encoding="utf-8")
    code = (
        "import gc, sys\nfrom vaultkit.commands.cli import main\n"
        f"main([{command!r}, {str(tmp_path)!r}])\nprint('collector', gc.isenabled())\n"
        f"sys.argv = ['vaultkit', {command!r}, {str(tmp_path)!r}]\nmain()\nprint('collector', gc.isenabled())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path)
    states = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("collector ")]
    assert states == ["True", str(collecting)], done.stdout + done.stderr


def test_fix_says_what_it_rewrote_number_by_number(tmp_path):
    """Each finding fix made go away is printed on its line, a number as `written → computed`."""
    (tmp_path / "a.md").write_text(EXAMPLE.format(q="[[1, 0], [0, 1]]"), encoding="utf-8")
    run = vaultkit("fix", str(tmp_path))
    assert run.returncode == 0
    assert run.stdout.splitlines()[1:] == [
        "fixed a.md:12:1: VK101 generated region of example e1 is stale or was edited by hand; vaultkit fix rewrites it",
        "fixed a.md:14:5: VK201 0.5 → 0.6",
        "Fixed 1 file: a.md.",
    ]
    assert vaultkit("fix", str(tmp_path)).stdout.splitlines()[1:] == ["Fixed 0 files."]
