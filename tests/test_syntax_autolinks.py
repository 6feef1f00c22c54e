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


def test_only_gfm_schemes_make_a_url():
    assert links("http://localhost:8000/x, FTP://foo.bar.baz and https://10.0.0.1:80/") == [
        "http://localhost:8000/x",
        "FTP://foo.bar.baz",
        "https://10.0.0.1:80/",
    ]
    assert links("//x.org/a, xhttps://x.org, s3://bucket/key and ssh://host") == []


def test_a_domain_has_no_underscore_in_its_last_two_segments():
    assert links("http://a_b.c.d and www.a_b.x.org") == ["http://a_b.c.d", "http://www.a_b.x.org"]
    assert links("http://x.y_z, http://x_y.org and www.x_y.org") == []


def test_a_www_address_needs_a_domain_after_it_and_a_delimiter_before_it():
    assert links("www.commonmark and 见www.x.org") == []
    assert links("(www.x.org) *www.y.org*") == ["http://www.x.org", "http://www.y.org"]


def test_a_url_whose_host_is_not_ascii_is_text():
    assert links("https://例子.com/a and user@例子.com") == []


def test_an_address_in_a_path_or_after_mailto_is_read_as_gfm_reads_it():
    assert links("see path/u@h.com and s3://b/u@x.yz") == []
    assert links("mailto:a@b.cc") == ["mailto:a@b.cc"]
