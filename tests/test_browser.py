"""The built site in headless Chromium: pages open, internal links work, math is typeset,
an SVG is visible, Chinese search finds a result, mermaid draws. Screenshots go to the tmp dir.

Chromium is driven over the DevTools protocol on `--remote-debugging-pipe` (fds 3 and 4), so
no extra package is needed. Skips when chromium is not installed.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import shutil
import subprocess
import threading
import time
from base64 import b64decode
from pathlib import Path

import pytest

from vaultkit.site.build import build_command

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--window-size=1280,900",
]
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")

VAULT_NOTES = {
    "index.md": "# 首页\n\n见 [[数学]]、[[图]] 与 [[流程]]。\n",
    "数学.md": "---\ntitle: 注意力公式\n---\n# 注意力\n\n缩放点积：$\\mathrm{softmax}(QK^T/\\sqrt{d_k})V$，价格 $5 到 $10。\n\n$$\nA = \\frac{QK^T}{\\sqrt{d}}\n$$\n\n回到 [[index|首页]]。\n",
    "图.md": "# 图\n\n![[assets/box.svg|400]]\n\n另见 [[数学#注意力]]。\n",
    "流程.md": "# 流程\n\n```mermaid\ngraph LR\n  甲 --> 乙\n```\n\n> [!tip]- 折叠提示\n> 隐藏的内容\n",
}
SVG = '<svg xmlns="http://www.w3.org/2000/svg" width="200" height="100"><rect width="200" height="100" fill="#7c3aed"/></svg>'


class Browser:
    """A minimal DevTools-protocol client over Chromium's debugging pipe."""

    def __init__(self, user_data_dir: Path):
        to_chrome_r, to_chrome_w = os.pipe()
        from_chrome_r, from_chrome_w = os.pipe()

        def child_fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={user_data_dir}", "--remote-debugging-pipe", "about:blank"],
            preexec_fn=child_fds, close_fds=False,  # preexec's fds 3 and 4 must survive
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.out = os.fdopen(to_chrome_w, "wb")
        self.inp = os.fdopen(from_chrome_r, "rb")
        self.next_id = 0
        self.buffer = b""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self.session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]

    def call(self, method: str, session: str | None = None, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        self.out.write(json.dumps(message).encode() + b"\0")
        self.out.flush()
        while True:
            reply = self._read()
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply["result"]

    def _read(self) -> dict:
        while b"\0" not in self.buffer:
            chunk = self.inp.read1(65536)
            if not chunk:
                raise RuntimeError("chromium closed the pipe")
            self.buffer += chunk
        message, self.buffer = self.buffer.split(b"\0", 1)
        return json.loads(message)

    def page(self, method: str, **params):
        return self.call(method, session=self.session, **params)

    def open(self, url: str, settle: float = 0.3) -> None:
        self.page("Page.navigate", url=url)
        self.wait_for("document.readyState === 'complete'")
        time.sleep(settle)

    def js(self, expression: str):
        result = self.page("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result["result"].get("value")

    def wait_for(self, expression: str, timeout: float = 15) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.js(expression):
                return True
            time.sleep(0.1)
        return False

    def screenshot(self, path: Path) -> None:
        path.write_bytes(b64decode(self.page("Page.captureScreenshot", format="png")["data"]))

    def close(self) -> None:
        try:
            self.call("Browser.close")
        except RuntimeError:
            pass
        self.proc.wait(timeout=10)


@pytest.fixture(scope="module")
def served_site(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser")
    vault = root / "vault"
    (vault / "assets").mkdir(parents=True)
    for rel, text in VAULT_NOTES.items():
        (vault / rel).write_text(text, encoding="utf-8")
    (vault / "assets/box.svg").write_text(SVG, encoding="utf-8")
    site = root / "site"
    assert build_command(vault, str(site), strict=False) == 0
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", root
    server.shutdown()


@pytest.fixture(scope="module")
def browser(served_site):
    _, root = served_site
    profile = root / "profile"
    profile.mkdir()
    chrome = Browser(profile)
    yield chrome
    chrome.close()


def test_internal_links_open_real_pages(served_site, browser):
    base, root = served_site
    browser.open(base)
    links = browser.js(
        "[...document.querySelectorAll('article a[href]')]"
        ".map(a => a.href).filter(h => h.startsWith(location.origin) && !h.includes('#'))"
    )
    assert len(links) >= 3
    for link in links:
        browser.open(link, settle=0)
        assert browser.js("document.querySelector('article h1') !== null"), link
        assert "404" not in browser.js("document.title"), link
    browser.screenshot(root / "home.png")


def test_math_is_typeset(served_site, browser):
    base, root = served_site
    browser.open(base + "%E6%95%B0%E5%AD%A6/")
    sizes = browser.js(
        "[...document.querySelectorAll('article math')].map(m => m.getBoundingClientRect().width)"
    )
    assert len(sizes) == 2 and all(width > 20 for width in sizes)
    assert "价格 $5 到 $10" in browser.js("document.querySelector('article').innerText")
    browser.screenshot(root / "math.png")


def test_svg_embed_is_visible(served_site, browser):
    base, root = served_site
    browser.open(base + "%E5%9B%BE/")
    assert browser.wait_for("(() => { const i = document.querySelector('article img'); return i && i.complete && i.naturalWidth > 0; })()")
    assert browser.js("document.querySelector('article img').getBoundingClientRect().width") == 400
    browser.screenshot(root / "svg.png")


def test_mermaid_renders_offline(served_site, browser):
    base, root = served_site
    browser.open(base + "%E6%B5%81%E7%A8%8B/")
    if not browser.js("document.querySelector('script[src*=\"mermaid.min.js\"]') !== null"):
        pytest.skip("mermaid.min.js not found at build time (npm install -g mermaid)")
    # material swaps <pre class="mermaid"> for a <div class="mermaid"> holding the drawing
    # in a closed shadow root: a drawn diagram is a div with a real height
    assert browser.wait_for("(() => { const d = document.querySelector('div.mermaid');"
                            " return d && d.getBoundingClientRect().height > 30; })()")
    resources = browser.js("performance.getEntriesByType('resource').map(r => r.name)")
    assert [r for r in resources if not r.startswith(base)] == []
    browser.screenshot(root / "mermaid.png")


def test_chinese_search_finds_a_page(served_site, browser):
    base, root = served_site
    browser.open(base)
    browser.js("document.querySelector('.md-search__input').focus()")
    browser.js(
        "(() => { const i = document.querySelector('.md-search__input'); i.value = '注意力';"
        " i.dispatchEvent(new Event('input', {bubbles: true})); i.dispatchEvent(new KeyboardEvent('keyup')); })()"
    )
    assert browser.wait_for("document.querySelectorAll('.md-search-result__item').length > 0")
    browser.screenshot(root / "search.png")
