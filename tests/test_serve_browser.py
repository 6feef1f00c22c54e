"""`vaultkit serve` in headless Chromium: a note added while a page is open appears in that
page's navigation after the live reload.

Chromium is driven over the DevTools protocol on `--remote-debugging-pipe` (fds 3 and 4), so no
extra package is needed. Skips when chromium is not installed. Every wait is bounded.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import threading
import time
from pathlib import Path

import pytest

from vaultkit.commands.cli import listen
from vaultkit.commands.serve import ServedSite, SiteServer, start_watching

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,900",
]
TIMEOUT = 20.0
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")


class Chromium:
    """The few DevTools calls the test needs: open a page, evaluate an expression."""

    def __init__(self, profile: Path):
        to_chrome_r, self.to_chrome = os.pipe()
        self.from_chrome, from_chrome_w = os.pipe()

        def child_fds():
            os.dup2(to_chrome_r, 3)
            os.dup2(from_chrome_w, 4)

        self.proc = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe", "about:blank"],
            preexec_fn=child_fds,
            close_fds=False,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self.buffer, self.next_id, self.session = b"", 0, None
        targets = self.call("Target.getTargets")["targetInfos"]
        page = next(t for t in targets if t["type"] == "page")
        self.session = self.call("Target.attachToTarget", targetId=page["targetId"], flatten=True)["sessionId"]

    def call(self, method: str, **params):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params}
        if self.session:
            message["sessionId"] = self.session
        os.write(self.to_chrome, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            while b"\0" not in self.buffer:
                if not select.select([self.from_chrome], [], [], max(0.0, deadline - time.monotonic()))[0]:
                    raise TimeoutError(method)
                self.buffer += os.read(self.from_chrome, 1 << 16)
            raw, self.buffer = self.buffer.split(b"\0", 1)
            reply = json.loads(raw)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError(reply["error"])
                return reply["result"]

    def js(self, expression: str):
        return self.call("Runtime.evaluate", expression=expression, returnByValue=True)["result"].get("value")

    def wait_for(self, expression: str) -> bool:
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            try:
                if self.js(expression):
                    return True
            except RuntimeError:  # the page is reloading
                pass
            time.sleep(0.1)
        return False

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait(TIMEOUT)
        os.close(self.to_chrome)
        os.close(self.from_chrome)


def test_a_new_note_appears_in_the_open_pages_navigation_after_the_reload(tmp_path):
    vault = tmp_path / "vault"
    (vault / "notes").mkdir(parents=True)
    (vault / "notes" / "a.md").write_text("# A\n\n甲的正文。\n", encoding="utf-8")
    (vault / "notes" / "b.md").write_text("# B\n\n乙的正文。\n", encoding="utf-8")
    site = ServedSite(vault, tmp_path / "site-unused")
    server = SiteServer(listen("127.0.0.1", 0), site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    watcher = start_watching(site)
    (tmp_path / "profile").mkdir()
    browser = Chromium(tmp_path / "profile")
    nav = "(document.querySelector('.md-nav--primary') || {textContent: ''}).textContent"
    try:
        browser.call("Page.navigate", url=server.url + "notes/a/")
        assert browser.wait_for(f"document.readyState === 'complete' && {nav}.includes('b')")
        browser.js("window.beforeReload = true")
        time.sleep(0.3)  # let inotify settle its watches
        (vault / "notes" / "c.md").write_text("---\ntitle: 新加的丙\n---\n正文\n", encoding="utf-8")
        assert browser.wait_for(f"{nav}.includes('新加的丙')"), "the navigation did not update"
        assert browser.js("window.beforeReload === undefined")  # it was a reload, not a patch
        assert browser.js("location.pathname") == "/notes/a/"
    finally:
        browser.close()
        site.stop()
        watcher.stop()
        server.shutdown()
        server.server_close()
        thread.join(TIMEOUT)
