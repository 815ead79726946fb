"""Drives a real headless Chromium (Debian's `chromium`) through the DevTools protocol, for the
console's tests: runs the steps given as JSON on standard input and prints, as JSON, what each
step saw.

    echo '[{"go": "http://127.0.0.1:8460/"}, {"text": true}, {"screenshot": "/tmp/o.png"}]' | python3 scripts/browser.py

Steps: {"go": URL} navigates and waits for the load; {"text": true} records the page's visible
text; {"click": SELECTOR} clicks the first match and waits for the page it leads to ("navigates": false
for a checkbox);
{"fill": SELECTOR, "value": TEXT} sets an input; {"type": SELECTOR, "value": TEXT} focuses an input,
types TEXT over what is there and presses a real Enter key (what the form does with it is what a
person gets), then waits for the page it leads to; {"screenshot": PATH} writes a PNG of the page; {"axe": true} runs axe-core's accessibility rules on
the page and records their violations and how far the page overflows the window sideways;
{"width": N} sets the window's width (under 800: a phone); {"key": K} presses a key on the page and
waits for the page it leads to ("navigates": false when it leads nowhere); {"eval": JS} records
what a JavaScript expression gives, as text; {"signal": PATH} writes an empty file there (the
test's cue that the browser got this far); {"wait_text": TEXT, "seconds": N} waits up to N
seconds for the page's visible text to contain TEXT, without touching the page, and records
whether it did.
Every JavaScript dialog (alert, confirm) the pages open is reported: the XSS test wants none."""
import base64
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

import websocket


class Browser:
    def __init__(self):
        self.profile = tempfile.mkdtemp(prefix="discern-chromium-")
        binary = shutil.which("chromium") or shutil.which("chromium-browser") or "/usr/bin/chromium"
        self.process = subprocess.Popen(
            [binary, "--headless=new", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
             "--remote-debugging-port=0", "--remote-allow-origins=*", f"--user-data-dir={self.profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        endpoint = None
        deadline = time.monotonic() + 60
        while endpoint is None and time.monotonic() < deadline:
            line = self.process.stderr.readline()
            match = re.search(r"DevTools listening on (ws://\S+)", line)
            if match:
                endpoint = match.group(1)
        if endpoint is None:
            raise RuntimeError("chromium did not start")
        # Chromium keeps writing to stderr (under load: GPU, D-Bus and timing warnings); a pipe
        # nobody reads fills at 64 KB and then blocks it mid-page, and the test waits forever.
        threading.Thread(target=self.process.stderr.read, daemon=True).start()
        port = re.search(r":(\d+)/", endpoint).group(1)
        targets = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list"))
        page = next(t for t in targets if t["type"] == "page")
        self.socket = websocket.create_connection(page["webSocketDebuggerUrl"], timeout=60)
        self.next_id = 0
        self.dialogs = []
        self.events = []
        self.call("Page.enable")
        self.call("Runtime.enable")
        self.call("Emulation.setDeviceMetricsOverride", width=1280, height=900, deviceScaleFactor=1, mobile=False)

    def call(self, method, **params):
        self.next_id += 1
        ident = self.next_id
        self.socket.send(json.dumps({"id": ident, "method": method, "params": params}))
        while True:
            message = json.loads(self.socket.recv())
            if message.get("id") == ident:
                if "error" in message:
                    raise RuntimeError(f"{method}: {message['error']}")
                return message.get("result", {})
            self.note(message)

    def note(self, message):
        method = message.get("method")
        if method == "Page.javascriptDialogOpening":
            self.dialogs.append(message["params"].get("message", ""))
            self.socket.send(json.dumps({"id": 0, "method": "Page.handleJavaScriptDialog", "params": {"accept": True}}))
        elif method:
            self.events.append(method)

    def wait_for_load(self, seconds=120):
        deadline = time.monotonic() + seconds
        while "Page.loadEventFired" not in self.events and time.monotonic() < deadline:
            self.socket.settimeout(max(0.1, deadline - time.monotonic()))
            try:
                self.note(json.loads(self.socket.recv()))
            except websocket.WebSocketTimeoutException:
                break
        self.socket.settimeout(60)
        self.events.clear()

    def evaluate(self, expression):
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")

    def run(self, step):
        seen = {}
        if "width" in step:
            self.call("Emulation.setDeviceMetricsOverride", width=step["width"], height=844, deviceScaleFactor=1,
                      mobile=step["width"] < 800)
        if "go" in step:
            self.events.clear()
            self.call("Page.navigate", url=step["go"])
            self.wait_for_load()
        if "fill" in step:
            found = self.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(step['fill'])}); if (!e) return false; e.value = {json.dumps(step['value'])}; return true; }})()")
            seen["found"] = bool(found)
        if "type" in step:
            found = self.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(step['type'])}); if (!e) return false; e.focus(); e.select(); return true; }})()")
            seen["found"] = bool(found)
            if found:
                self.events.clear()
                self.call("Input.insertText", text=step["value"])
                for kind in ("keyDown", "keyUp"):
                    self.call("Input.dispatchKeyEvent", type=kind, key="Enter", code="Enter", windowsVirtualKeyCode=13,
                              nativeVirtualKeyCode=13, **({"text": "\r"} if kind == "keyDown" else {}))
                self.wait_for_load()
        if "key" in step:
            # A key pressed on the page (not in a field): what the page's shortcuts do with it.
            self.events.clear()
            for kind in ("keyDown", "keyUp"):
                self.call("Input.dispatchKeyEvent", type=kind, key=step["key"], **({"text": step["key"]} if kind == "keyDown" else {}))
            if step.get("navigates", True):
                self.wait_for_load()
        if "click" in step:
            self.events.clear()
            found = self.evaluate(f"(() => {{ const e = document.querySelector({json.dumps(step['click'])}); if (!e) return false; e.click(); return true; }})()")
            seen["found"] = bool(found)
            if found and step.get("navigates", True):
                self.wait_for_load()
        if "eval" in step:
            seen["value"] = str(self.evaluate(step["eval"]))
        if "signal" in step:
            open(step["signal"], "w").close()
        if "wait_text" in step:
            deadline = time.monotonic() + step.get("seconds", 30)
            wanted = json.dumps(step["wait_text"])
            seen["found"] = False
            while time.monotonic() < deadline:
                if self.evaluate(f"(document.body ? document.body.innerText : '').includes({wanted})"):
                    seen["found"] = True
                    break
                time.sleep(0.2)
        if step.get("axe"):
            seen["violations"] = self.axe()
            # Wider than the window: the page scrolls sideways (a table may, inside itself).
            seen["overflow"] = self.evaluate("document.documentElement.scrollWidth - window.innerWidth")
        if step.get("text"):
            seen["text"] = self.evaluate("document.body ? document.body.innerText : ''")
        if "screenshot" in step:
            data = self.call("Page.captureScreenshot", format="png", captureBeyondViewport=False)["data"]
            os.makedirs(os.path.dirname(step["screenshot"]) or ".", exist_ok=True)
            with open(step["screenshot"], "wb") as handle:
                handle.write(base64.b64decode(data))
            seen["screenshot"] = step["screenshot"]
        seen["url"] = self.evaluate("location.href")
        seen["status_text"] = self.evaluate("document.title")
        return seen

    def axe(self):
        """axe-core's violations on the current page: rule, impact, how many elements, the first one."""
        import importlib.util
        spec = importlib.util.find_spec("axe_playwright_python")
        with open(os.path.join(spec.submodule_search_locations[0], "axe.min.js")) as handle:
            self.evaluate(handle.read())
        return self.evaluate("""axe.run(document, {resultTypes: ['violations']}).then(r => r.violations.map(v => ({
            id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.length,
            target: v.nodes.length ? v.nodes[0].target.join(' ') : '', html: v.nodes.length ? v.nodes[0].html.slice(0, 200) : ''})))""")

    def close(self):
        try:
            self.socket.close()
        finally:
            self.process.kill()
            self.process.wait()
            shutil.rmtree(self.profile, ignore_errors=True)


def main():
    steps = json.load(sys.stdin)
    browser = Browser()
    try:
        results = [browser.run(step) for step in steps]
        print(json.dumps({"steps": results, "dialogs": browser.dialogs}))
    finally:
        browser.close()


if __name__ == "__main__":
    main()
