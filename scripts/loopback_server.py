"""What the scripts' small HTTP servers share (webhook-receiver.py, otlp-receiver.py): the
arguments every one takes, and serving on 127.0.0.1 with the address written where a test waits
for it. A test starts a server on a port it chose and reads the URL file once it listens."""
import argparse
import os
import signal
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


def arguments():
    """--port (0: any free one), --url-file (written once listening), --log (what it received)."""
    # A parent may hand SIGTERM down ignored (a test runner does): stopping it must still work.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--url-file")
    parser.add_argument("--log", required=True)
    return parser


class QuietHandler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def answer(self, status, payload=b"", content_type=None):
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


def serve(handler, port, url_file, on_listening=None, tls=None):
    """Serves until killed; the URL is written atomically to `url_file` once it listens (after
    `on_listening(url)`, if given, has run). With `tls` (an ssl.SSLContext), over https."""
    server = ThreadingHTTPServer(("127.0.0.1", port), handler)
    if tls:
        server.socket = tls.wrap_socket(server.socket, server_side=True)
    url = f"{'https' if tls else 'http'}://127.0.0.1:{server.server_address[1]}"
    if on_listening:
        on_listening(url)
    if url_file:
        with open(url_file + ".part", "w") as handle:
            handle.write(url + "\n")
        os.replace(url_file + ".part", url_file)
    print(f"receiving on {url}", flush=True)
    server.serve_forever()
