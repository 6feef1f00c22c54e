from vaultkit.readers.markdown import parse


def wikilinks(text):
    found = []
    for block in parse(text):
        for token in block.children or ():
            if token.type in ("wikilink", "wikiembed"):
                found.append(token.meta)
    return found


def test_forms_of_links_and_embeds():
    text = "See [[a/b#Head|shown]], [[N#^blk]], [[../up/N.md]] and ![[pic.svg|1000]] ![[M#H]]\n"
    links = wikilinks(text)
    assert [(m["path"], m["heading"], m["block"], m["alias"], m["embed"]) for m in links] == [
        ("a/b", "Head", None, "shown", False),
        ("N", None, "blk", None, False),
        ("../up/N.md", None, None, None, False),
        ("pic.svg", None, None, "1000", True),
        ("M", "H", None, None, True),
    ]
    assert [(m["line"], m["col"], m["raw"]) for m in links][:2] == [
        (1, 5, "[[a/b#Head|shown]]"),
        (1, 25, "[[N#^blk]]"),
    ]
    assert links[3]["col"] == text.index("![[pic") + 1


def test_same_note_heading_link():
    (meta,) = wikilinks("[[#Only heading]]")
    assert meta["path"] == "" and meta["heading"] == "Only heading"


def test_positions_in_multiline_list_and_quote():
    text = "---\ntitle: t\n---\n- item\n  more [[x]]\n> q [[y]] and [[z]]\n"
    links = wikilinks(text)
    assert [(m["line"], m["col"]) for m in links] == [(5, 8), (6, 5), (6, 15)]


def test_not_in_code():
    text = "```bash\nwhile [[ $# -gt 0 ]]; do\n```\n\n`[[x]]` and `[[ a || b ]]`\n\n    [[code]]\n"
    assert wikilinks(text) == []


def test_table_cells_escaped_and_plain_pipe():
    text = "| a | b |\n|---|---|\n| x [[t    \\| alias]] | [[u|v]] y |\n"
    links = wikilinks(text)
    assert [(m["path"], m["alias"]) for m in links] == [("t", "alias"), ("u", "v")]
    row = text.splitlines()[2]
    assert [(m["line"], m["col"], m["raw"]) for m in links] == [
        (3, row.index("[[t") + 1, "[[t    \\| alias]]"),
        (3, row.index("[[u") + 1, "[[u|v]]"),
    ]
    assert links[1]["end_col"] == row.index("]] y") + 3


def test_table_keeps_its_cells_and_code_keeps_pipes():
    tokens = parse("| a | b |\n|---|---|\n| [[u|v]] | `x \\| y` |\n\n`[[ a || b ]]`\n\n```\n[[ a || b ]]\n```\n")
    cells = [t for t in tokens if t.type == "inline"]
    assert len(cells) == 5
    assert cells[3].children[0].content == "x | y"
    assert cells[4].children[0].content == "[[ a || b ]]"
    assert [t.content for t in tokens if t.type == "fence"] == ["[[ a || b ]]\n"]
