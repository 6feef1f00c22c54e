"""Bare URLs and e-mail addresses: links as GFM's autolinks say, names that look like domains stay text."""

from __future__ import annotations

from vaultkit.readers.markdown import make_parser

MD = make_parser()


def links(text: str) -> list[str]:
    tokens = MD.parse(text)
    return [child.attrGet("href") for token in tokens for child in token.children or () if child.type == "link_open"]


def test_urls_with_a_scheme_and_www_addresses_are_links():
    assert links("see https://example.org/a?b=1 and www.example.com/x.") == [
        "https://example.org/a?b=1",
        "http://www.example.com/x",
    ]


def test_file_names_that_look_like_domains_stay_text():
    assert links("edit config.md, then run main.py and read notes.io") == []


def test_a_link_ends_as_gfm_ends_it():
    assert links("(www.x.org/q=(a))") == ["http://www.x.org/q=(a)"]  # the unbalanced ) is text
    assert links("www.x.org/q&amp;") == ["http://www.x.org/q"]  # an entity-like end is text
    assert links("**https://x.org**") == ["https://x.org"]


def test_a_link_ends_where_chinese_text_begins():
    assert links("见https://x.org/a，然后再看") == ["https://x.org/a"]


def test_email_addresses_are_mailto_links_unless_they_end_badly():
    assert links("write to a.b+c@mail.example.") == ["mailto:a.b+c@mail.example"]
    assert links("not a.b@c.d- nor a.b@c.d_") == []


def test_code_is_never_linked():
    assert links("`https://x.org` and\n\n    https://y.org\n") == []
