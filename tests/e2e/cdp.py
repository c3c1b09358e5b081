#!/usr/bin/env python3
"""Headless chromium driven over the DevTools protocol, for layout checks.

--dump-dom says what the DOM holds, not where things are drawn; a page that
scrolls sideways or an element's computed style needs the browser's own
answer.  This opens a page in Debian's chromium (headless, offline: every
host name but 127.0.0.1 resolves to nothing) over --remote-debugging-pipe
(JSON messages ending in NUL on fds 3 and 4), at a given window size, and
offers Runtime.evaluate (DevTools evaluates whatever the page's
Content-Security-Policy allows: the page's own scripts need not run) and a
PNG screenshot.  The deadline is generous: a loaded machine only makes it
slower.

    with Page(url, scratch_dir, width=800, height=600) as p:
        p.eval("document.documentElement.scrollWidth")
        p.screenshot(path)
"""
import base64
import json
import os
import shutil
import subprocess
import time

from agentlib import Skip, check


def chromium_exe():
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if not exe:
        raise Skip("chromium is not installed (Debian: apt-get install chromium)")
    return exe


class Page:
    def __init__(self, url, d, width=800, height=600, timeout=90, scripts=True):
        self.url, self.d, self.width, self.height = url, d, width, height
        self.timeout, self.scripts = timeout, scripts
        self.buf = b""
        self.n = 0

    def __enter__(self):
        exe = chromium_exe()
        to_chr, from_chr = os.pipe(), os.pipe()

        def fds():
            a, b = os.dup(to_chr[0]), os.dup(from_chr[1])
            os.dup2(a, 3)
            os.dup2(b, 4)

        self.proc = subprocess.Popen(
            [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             "--disable-extensions", "--disable-background-networking", "--disable-sync",
             "--disable-component-update", "--hide-scrollbars",
             f"--user-data-dir={os.path.join(self.d, 'chromium-cdp')}",
             "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
             "--remote-debugging-pipe", "about:blank"],
            preexec_fn=fds, pass_fds=(3, 4), stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, env=dict(os.environ, HOME=self.d))
        os.close(to_chr[0])
        os.close(from_chr[1])
        self.wr, self.rd = to_chr[1], from_chr[0]
        self.deadline = time.monotonic() + self.timeout
        r = self.call("Target.createTarget", {"url": "about:blank"}, session=False)
        r = self.call("Target.attachToTarget", {"targetId": r["targetId"], "flatten": True},
                      session=False)
        self.sess = r["sessionId"]
        self.call("Emulation.setDeviceMetricsOverride",
                  {"width": self.width, "height": self.height, "deviceScaleFactor": 1,
                   "mobile": False})
        if not self.scripts:
            self.call("Emulation.setScriptExecutionDisabled", {"value": True})
        self.call("Page.enable")
        self.send("Page.navigate", {"url": self.url})
        self.wait(lambda m: m.get("method") == "Page.loadEventFired")
        return self

    def __exit__(self, *exc):
        try:
            self.send("Browser.close", session=False)
        except OSError:
            pass
        os.close(self.wr)
        os.close(self.rd)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        return False

    def send(self, method, params=None, session=True):
        self.n += 1
        m = {"id": self.n, "method": method, "params": params or {}}
        if session:
            m["sessionId"] = self.sess
        os.write(self.wr, json.dumps(m).encode() + b"\0")
        return self.n

    def wait(self, pred):
        while True:
            while b"\0" in self.buf:
                raw, self.buf = self.buf.split(b"\0", 1)
                m = json.loads(raw)
                check("error" not in m, "DevTools error", m)
                if pred(m):
                    return m
            check(time.monotonic() < self.deadline, "chromium (DevTools) did not answer in time")
            chunk = os.read(self.rd, 1 << 16)
            check(chunk, "chromium closed the DevTools pipe")
            self.buf += chunk

    def call(self, method, params=None, session=True):
        i = self.send(method, params, session)
        return self.wait(lambda m: m.get("id") == i).get("result", {})

    def eval(self, expr):
        """The value of a JavaScript expression (JSON-serialisable)."""
        r = self.call("Runtime.evaluate", {"expression": expr, "returnByValue": True})
        check("exceptionDetails" not in r, "the expression threw", expr, r)
        return r["result"].get("value")

    def screenshot(self, path, full=True):
        """A PNG of the page (the whole page when full) at path."""
        r = self.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": full})
        with open(path, "wb") as f:
            f.write(base64.b64decode(r["data"]))
        return path
