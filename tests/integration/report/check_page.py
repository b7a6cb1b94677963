#!/usr/bin/env python3
"""Opens an HTML report in headless Chromium and checks that it renders.

Talks to the browser over the DevTools protocol on a pipe (--remote-debugging-pipe: NUL-separated
JSON on file descriptors 3 and 4), so it needs nothing but the Python standard library. Fails
(exit 1) on any console error, uncaught exception, CSP violation or network request, on a missing
or empty plot, on a table that does not sort, or on markup injected by hostile strings. Saves a
full-page screenshot. Exit 77 (skipped) when no Chromium is installed.

Every link must land: a file beside the page (never outside it) and, with a #fragment, an element
with that id there. --no-hscroll also fails a page that scrolls sideways at --width.

usage: check_page.py PAGE.html --plots NAME:MIN_MARKS,... [--sort TABLE:COLUMN] [--screenshot OUT.png]
                     [--width PX] [--no-hscroll]
"""
import argparse
import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse

BROWSERS = ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome")

INSPECT = r"""(function(){
  var out = {plots: {}, scripts: document.scripts.length, images: document.images.length,
             iframes: document.querySelectorAll('iframe,object,embed').length,
             handlers: document.querySelectorAll('[onerror],[onload],[onclick]').length,
             pwned: typeof window.__kp_pwned !== 'undefined', title: document.title,
             page_w: document.documentElement.scrollWidth, view_w: window.innerWidth, wide: [],
             links: [], ids: []};
  // Anything wider than its box scrolls sideways; only the search tree is meant to (.scroll).
  document.querySelectorAll('.tablewrap,table,pre,.cards,dl.facts').forEach(function(e){
    if (e.scrollWidth > e.clientWidth + 1 && !e.closest('.scroll'))
      out.wide.push((e.id || e.className || e.tagName) + ' ' + e.scrollWidth + '>' + e.clientWidth);
  });
  document.querySelectorAll('a[href]').forEach(function(a){ out.links.push(a.getAttribute('href')); });
  document.querySelectorAll('[id]').forEach(function(e){ out.ids.push(e.id); });
  document.querySelectorAll('svg.plot').forEach(function(s){
    var r = s.getBoundingClientRect();
    out.plots[s.getAttribute('data-plot')] = {w: r.width, h: r.height,
      marks: s.querySelectorAll('.mark').length, ticks: s.querySelectorAll('.tick').length,
      labels: s.querySelectorAll('.axis-label').length, lines: s.querySelectorAll('path.line').length};
  });
  return JSON.stringify(out);
})()"""

SORT = r"""(function(id, col){
  var t = document.getElementById(id);
  if (!t) return JSON.stringify({error: 'no table #' + id});
  function keys(){ return Array.prototype.map.call(t.tBodies[0].rows, function(r){
    return r.cells[col].getAttribute('data-v'); }); }
  var th = t.tHead.rows[0].cells[col];
  th.click(); var asc = keys(); th.click(); var desc = keys();
  return JSON.stringify({asc: asc, desc: desc, numeric: th.classList.contains('num')});
})(%s, %d)"""


class Browser:
    def __init__(self, exe, profile):
        cmd_r, self.cmd_w = os.pipe()
        self.res_r, res_w = os.pipe()
        # The child's ends go above 10 first, so the dup2 to 3 and 4 cannot overwrite one another.
        hi_r, hi_w = fcntl.fcntl(cmd_r, fcntl.F_DUPFD, 10), fcntl.fcntl(res_w, fcntl.F_DUPFD, 10)

        def child():
            os.dup2(hi_r, 3)
            os.dup2(hi_w, 4)

        args = [exe, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--no-default-browser-check", "--hide-scrollbars", "--mute-audio",
                "--remote-debugging-pipe", "--user-data-dir=" + profile, "about:blank"]
        self.log_path = os.path.join(profile, "stderr.log")
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=child,
                                         stdout=subprocess.DEVNULL, stderr=log)
        for fd in (cmd_r, res_w, hi_r, hi_w):
            os.close(fd)
        self.buf = b""
        self.seq = 0
        self.events = []

    def _read_message(self, deadline):
        while b"\0" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the browser did not answer in time")
            ready, _, _ = select.select([self.res_r], [], [], left)
            if ready:
                chunk = os.read(self.res_r, 1 << 20)
                if not chunk:
                    raise RuntimeError("the browser closed the pipe: " + self.stderr_tail())
                self.buf += chunk
        msg, self.buf = self.buf.split(b"\0", 1)
        return json.loads(msg)

    def send(self, method, params=None, session=None, timeout=30):
        self.seq += 1
        msg = {"id": self.seq, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.cmd_w, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            m = self._read_message(deadline)
            if m.get("id") == self.seq:
                if "error" in m:
                    raise RuntimeError("%s: %s" % (method, m["error"]))
                return m.get("result", {})
            self.events.append(m)

    def wait_event(self, method, timeout=30):
        deadline = time.monotonic() + timeout
        for i, m in enumerate(self.events):
            if m.get("method") == method:
                return self.events.pop(i)
        while True:
            m = self._read_message(deadline)
            if m.get("method") == method:
                return m
            self.events.append(m)

    def drain(self, seconds):
        deadline = time.monotonic() + seconds
        try:
            while True:
                self.events.append(self._read_message(deadline))
        except TimeoutError:
            pass

    def stderr_tail(self):
        try:
            with open(self.log_path, "rb") as f:
                return f.read()[-2000:].decode(errors="replace")
        except OSError:
            return ""

    def close(self):
        try:
            os.write(self.cmd_w, json.dumps({"id": 0, "method": "Browser.close"}).encode() + b"\0")
        except OSError:
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


def evaluate(b, sid, expression):
    """Runs a script that returns JSON text in the page; its value, or {"error": ...}."""
    r = b.send("Runtime.evaluate", {"expression": expression, "returnByValue": True}, session=sid)
    if "exceptionDetails" in r:
        d = r["exceptionDetails"]
        return {"error": "checking script failed: %s" % (d.get("exception", {}).get("description") or d.get("text"))}
    return json.loads(r["result"]["value"])


def find_browser():
    exe = os.environ.get("KP_CHROMIUM")
    if exe:
        return exe
    for name in BROWSERS:
        path = shutil.which(name)
        if path:
            return path
    return None


def problems_from_events(events, page_url):
    out = []
    for m in events:
        method, p = m.get("method"), m.get("params", {})
        if method == "Runtime.exceptionThrown":
            d = p.get("exceptionDetails", {})
            out.append("uncaught exception: %s" % (d.get("exception", {}).get("description") or d.get("text")))
        elif method == "Runtime.consoleAPICalled" and p.get("type") in ("error", "assert", "warning"):
            args = " ".join(str(a.get("value", a.get("description", ""))) for a in p.get("args", []))
            out.append("console.%s: %s" % (p.get("type"), args))
        elif method == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
            e = p["entry"]
            out.append("browser %s (%s): %s" % (e.get("level"), e.get("source"), e.get("text")))
        elif method == "Network.requestWillBeSent":
            url = p.get("request", {}).get("url", "")
            if url != page_url and not url.startswith("data:"):
                out.append("network request at view time: %s" % url)
    return out


def check(args):
    exe = find_browser()
    if not exe:
        print("no Chromium found (install chromium-headless-shell, or set KP_CHROMIUM)")
        return 77
    page = os.path.abspath(args.page)
    url = "file://" + page
    problems = []
    with tempfile.TemporaryDirectory(prefix="kp-chromium-") as profile:
        b = Browser(exe, profile)
        try:
            target = b.send("Target.createTarget", {"url": "about:blank"})["targetId"]
            sid = b.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
            for domain in ("Runtime", "Log", "Page", "Network"):
                b.send(domain + ".enable", session=sid)
            b.send("Emulation.setDeviceMetricsOverride",
                   {"width": args.width, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=sid)
            b.send("Page.navigate", {"url": url}, session=sid)
            b.wait_event("Page.loadEventFired")
            b.drain(0.5)  # late console messages and CSP reports
            info = evaluate(b, sid, INSPECT)
            for spec in filter(None, args.plots.split(",")):
                name, _, least = spec.partition(":")
                p = info["plots"].get(name)
                if not p:
                    problems.append("plot '%s' is missing" % name)
                    continue
                if p["w"] < 100 or p["h"] < 100:
                    problems.append("plot '%s' renders %dx%d px" % (name, p["w"], p["h"]))
                if p["marks"] < int(least or 1):
                    problems.append("plot '%s' draws %d marks, expected at least %s" % (name, p["marks"], least or 1))
                if name not in args.no_axes.split(",") and (p["ticks"] < 2 or p["labels"] < 1):
                    problems.append("plot '%s' has no axes (%d ticks, %d axis labels)" % (name, p["ticks"], p["labels"]))
            if info["scripts"] != 1 or info["images"] or info["iframes"] or info["handlers"] or info["pwned"]:
                problems.append("markup beyond the page's own: %d scripts, %d images, %d frames, %d inline handlers%s"
                                % (info["scripts"], info["images"], info["iframes"], info["handlers"],
                                   ", hostile script ran" if info["pwned"] else ""))
            if args.no_hscroll:
                if info["page_w"] > info["view_w"]:
                    problems.append("the page scrolls sideways at %d px: %d px wide" % (args.width, info["page_w"]))
                for w in info["wide"]:
                    problems.append("scrolls sideways at %d px: %s" % (args.width, w))
            problems += link_problems(page, info["links"], set(info["ids"]))
            if args.sort:
                table, _, col = args.sort.partition(":")
                r = evaluate(b, sid, SORT % (json.dumps(table), int(col)))
                if "error" in r:
                    problems.append(r["error"])
                else:
                    problems += sort_problems(r)
            b.drain(0.2)
            problems += problems_from_events(b.events, url)
            if args.screenshot:
                size = b.send("Page.getLayoutMetrics", session=sid)["cssContentSize"]
                height = min(int(size["height"]) + 1, 16000)
                b.send("Emulation.setDeviceMetricsOverride",
                       {"width": args.width, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=sid)
                shot = b.send("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True},
                              session=sid, timeout=60)
                with open(args.screenshot, "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
        finally:
            b.close()
    print(json.dumps({"page": page, "plots": info["plots"], "problems": problems}, indent=1))
    return 1 if problems else 0


def link_problems(page, links, ids):
    """Every link stays on this machine and lands: a file beside the page, an id that exists."""
    out = []
    for href in links:
        path, _, frag = href.partition("#")
        if ":" in path or path.startswith("/") or path.startswith("//"):
            out.append("link leaves the page's folder: %s" % href)
            continue
        if not path:
            if frag not in ids:
                out.append("link to a missing place on the page: %s" % href)
            continue
        target = os.path.join(os.path.dirname(page), urllib.parse.unquote(path))
        if not os.path.isfile(target):
            out.append("link to a missing file: %s" % href)
        elif frag:
            with open(target, encoding="utf-8", errors="replace") as f:
                if 'id="%s"' % frag not in f.read():
                    out.append("link to a missing place in %s: %s" % (path, href))
    return out


def sort_problems(r):
    def key(v):
        if not r["numeric"]:
            return v
        return float(v) if v not in ("", None) else None

    out = []
    for name, keys, rev in (("ascending", r["asc"], False), ("descending", r["desc"], True)):
        vals = [key(v) for v in keys]
        present = [v for v in vals if v is not None]
        if vals[:len(present)] != present:
            out.append("sorting %s: missing values are not last: %s" % (name, keys))
        if present != sorted(present, reverse=rev):
            out.append("sorting %s gave %s" % (name, keys))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("page")
    ap.add_argument("--plots", default="", help="NAME:MIN_MARKS,... plots that must render")
    ap.add_argument("--no-axes", default="search_tree", help="plots that have no axes")
    ap.add_argument("--sort", help="TABLE_ID:COLUMN to sort both ways and check")
    ap.add_argument("--screenshot", help="where to save a full-page PNG")
    ap.add_argument("--width", type=int, default=1280)
    ap.add_argument("--no-hscroll", action="store_true",
                    help="fail when the page or a table, text block or card row scrolls sideways at --width")
    sys.exit(check(ap.parse_args()))


if __name__ == "__main__":
    main()
