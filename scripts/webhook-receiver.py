"""A receiver for discern's batch notifications, to try them by hand and for the tests. It checks
each request's signature as docs/operations.md tells a receiver to, written apart from discern's
own code, and appends what it got to a file, one JSON object per line:

    DISCERN_WEBHOOK_SECRET=s3cret python3 scripts/webhook-receiver.py --port 0 --url-file /tmp/hook.url --log /tmp/hook.jsonl

    {"path": "/hook", "delivery": "12-3f2a…", "event": "batch.finished", "signature": "valid", "body": {...}}

`signature` is valid, invalid, stale (older than 5 minutes: a replay) or missing. It answers 200,
or --status N to every request (a receiver that fails). Listens on 127.0.0.1 only.
"""
import hashlib
import hmac
import json
import os
import threading
import time

import loopback_server

TOLERANCE_SECONDS = 300


def signature_verdict(header, body, secret):
    """What a receiver should conclude from `Discern-Signature: t=...,v1=...`."""
    if not header:
        return "missing"
    fields = dict(part.split("=", 1) for part in header.split(",") if "=" in part)
    try:
        timestamp = int(fields.get("t", ""))
    except ValueError:
        return "invalid"
    expected = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    if not hmac.compare_digest(expected, fields.get("v1", "")):
        return "invalid"
    return "stale" if abs(time.time() - timestamp) > TOLERANCE_SECONDS else "valid"


def main():
    parser = loopback_server.arguments()
    parser.add_argument("--status", type=int, default=200)
    options = parser.parse_args()
    secret = os.environ.get("DISCERN_WEBHOOK_SECRET", "")
    lock = threading.Lock()

    class Handler(loopback_server.QuietHandler):
        def do_POST(self):
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            try:
                document = json.loads(body)
            except ValueError:
                document = None
            record = {"path": self.path, "delivery": self.headers.get("Discern-Delivery"), "event": self.headers.get("Discern-Event"),
                      "signature": signature_verdict(self.headers.get("Discern-Signature"), body, secret) if secret else "not checked",
                      "content_type": self.headers.get("Content-Type"), "body": document}
            with lock, open(options.log, "a") as log:
                log.write(json.dumps(record) + "\n")
            self.answer(options.status, b"ok")

    loopback_server.serve(Handler, options.port, options.url_file)


if __name__ == "__main__":
    main()
