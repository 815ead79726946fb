"""A test double in front of a real S3 server (SeaweedFS): it forwards every request as it
came (the Host header too, so the server checks the client's own signature) and answers, where
a test asks, what AWS S3 answers and SeaweedFS does not:

  - InvalidObjectState (403) to a GET of an object archived to Glacier (SeaweedFS keeps the
    storage class but serves the bytes);
  - ExpiredToken (400) to every request signed with a key id seen before a test says "expire",
    or before and with the Nth key id first seen after it says "expire_at_new_key": N (a session
    revoked the moment a client starts using the next one; SeaweedFS answers InvalidAccessKeyId
    to an expired session; AWS says ExpiredToken);
  - PermanentRedirect (301, x-amz-bucket-region) or AuthorizationHeaderMalformed (400, <Region>)
    to a request signed for another region than its bucket's;
  - SlowDown (503) or InternalError (500) for the next N requests (whose method and path hold
    `weather_match`, when given: "continuation-token" for the pages after a listing's first);
  - objects under keys SeaweedFS cannot hold (it refuses `/./` and folds `//`), served from here
    after checking the request's SigV4 signature with botocore, and added to the listings
    SeaweedFS answers (at the end of a page that is not truncated: enough for a test's prefix).

    python3 scripts/s3-front.py --upstream URL [--cert PEM --key PEM] --url-file F --log F
    POST /__front/control  {"archived": ["bucket/key"], "expire": true, "expire_at_new_key": N, "regions": {"bucket": "eu-west-1"},
                            "region_answer": "redirect"|"malformed", "weather": N, "weather_code": "SlowDown", "weather_match": "",
                            "local": {"bucket/key": "<base64>"}, "key_id": ID, "secret": SECRET}
    GET  /__front/stats    what it answered: {"requests", "statuses", "expired", "redirected", "archived",
                            "weather", "local_gets", "paths"}
("__front" cannot be a bucket: bucket names have no underscore.)
"""
import base64
import hashlib
import hmac
import http.client
import json
import ssl
import threading
import urllib.parse
from email.utils import formatdate

from botocore.auth import S3SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from loopback_server import QuietHandler, arguments, serve

lock = threading.RLock()
state = {"archived": set(), "expire_at_new_key": 0, "expired_keys": set(), "seen_keys": set(), "regions": {}, "region_answer": "redirect",
         "weather": 0, "weather_code": "SlowDown", "weather_match": "", "local": {}, "key_id": None, "secret": None}
stats = {"requests": 0, "statuses": {}, "expired": 0, "redirected": 0, "archived": 0, "weather": 0, "local_gets": {}, "paths": []}
UPSTREAM = None


def s3_error(code, message, extra=""):
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>{code}</Code><Message>{message}</Message>{extra}'
            f'<RequestId>front</RequestId></Error>').encode()


def credential_of(authorization):
    """(key id, date, region) of a SigV4 Authorization header."""
    for part in authorization.replace(",", " ").split():
        if part.startswith("Credential="):
            fields = part[len("Credential="):].split("/")
            if len(fields) == 5:
                return fields[0], fields[1], fields[2]
    return None, None, None


def signature_matches(method, raw_path, headers):
    """The request's signature, checked by botocore's own signer over what arrived."""
    authorization = headers.get("Authorization", "")
    fields = dict(part.split("=", 1) for part in authorization.replace(",", " ").split()[1:] if "=" in part)
    key_id, _, region = credential_of(authorization)
    with lock:
        secret, expected_key = state["secret"], state["key_id"]
    if not fields.get("Signature") or key_id != expected_key or secret is None:
        return False
    names = fields.get("SignedHeaders", "").split(";")
    request = AWSRequest(method=method, url=f"http://{headers.get('Host')}{raw_path}", headers={name: headers.get(name, "") for name in names})
    request.context["timestamp"] = headers.get("x-amz-date", "")
    signer = S3SigV4Auth(Credentials(key_id, secret, headers.get("x-amz-security-token")), "s3", region)
    string_to_sign = signer.string_to_sign(request, signer.canonical_request(request))
    return hmac.compare_digest(signer.signature(string_to_sign, request), fields["Signature"])


class Handler(QuietHandler):
    protocol_version = "HTTP/1.1"

    def send(self, status, body=b"", headers=None, length=None):
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        self.send_header("Date", formatdate(usegmt=True))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)
        with lock:
            stats["statuses"][str(status)] = stats["statuses"].get(str(status), 0) + 1

    def control(self):
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        with lock:
            if "archived" in body:
                state["archived"] = set(body["archived"])
            if body.get("expire"):
                state["expired_keys"] |= state["seen_keys"]
            for key in ("expire_at_new_key", "regions", "region_answer", "weather", "weather_code", "weather_match", "key_id", "secret"):
                if key in body:
                    state[key] = body[key]
            if "local" in body:
                state["local"] = {name: base64.b64decode(data) for name, data in body["local"].items()}
        self.send(200, b"{}", {"Content-Type": "application/json"})

    def do_POST(self):
        if self.path == "/__front/control":
            return self.control()
        self.forward()

    def do_GET(self):
        if self.path == "/__front/stats":
            with lock:
                counted = json.dumps(stats).encode()
            return self.send(200, counted, {"Content-Type": "application/json"})
        self.forward()

    def do_HEAD(self):
        self.forward()

    def do_PUT(self):
        self.forward()

    def do_DELETE(self):
        self.forward()

    def forward(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        raw_path, _, query = self.path.partition("?")
        parts = raw_path.split("/", 2)
        bucket = parts[1] if len(parts) > 1 else ""
        key = urllib.parse.unquote(parts[2]) if len(parts) > 2 else ""
        key_id, _, region = credential_of(self.headers.get("Authorization", ""))
        with lock:
            stats["requests"] += 1
            stats["paths"].append(f"{self.command} {raw_path}")
            if key_id and key_id not in state["seen_keys"]:
                state["seen_keys"].add(key_id)
                if state["expire_at_new_key"] > 0:
                    state["expire_at_new_key"] -= 1
                    if state["expire_at_new_key"] == 0:
                        state["expired_keys"] |= state["seen_keys"]
            expired = key_id in state["expired_keys"]
            bucket_region = state["regions"].get(bucket)
            weather = state["weather"] > 0 and state["weather_match"] in f"{self.command} {self.path}"
            archived = self.command == "GET" and f"{bucket}/{key}" in state["archived"]
            local = state["local"].get(f"{bucket}/{key}") if key else None
            answer_style, weather_code = state["region_answer"], state["weather_code"]
        if expired:
            with lock:
                stats["expired"] += 1
            return self.send(400, s3_error("ExpiredToken", "The provided token has expired."), {"Content-Type": "application/xml"})
        if bucket_region and region and region != bucket_region:
            with lock:
                stats["redirected"] += 1
            if answer_style == "malformed":
                message = f"The authorization header is malformed; the region '{region}' is wrong; expecting '{bucket_region}'"
                return self.send(400, s3_error("AuthorizationHeaderMalformed", message, f"<Region>{bucket_region}</Region>"),
                                 {"Content-Type": "application/xml", "x-amz-bucket-region": bucket_region})
            message = "The bucket you are attempting to access must be addressed using the specified endpoint."
            return self.send(301, s3_error("PermanentRedirect", message, f"<Endpoint>s3.{bucket_region}.amazonaws.com</Endpoint><Bucket>{bucket}</Bucket>"),
                             {"Content-Type": "application/xml", "x-amz-bucket-region": bucket_region})
        if weather:
            with lock:
                state["weather"] -= 1
                stats["weather"] += 1
            status = 503 if weather_code in ("SlowDown", "ServiceUnavailable") else 500
            return self.send(status, s3_error(weather_code, "Please reduce your request rate."), {"Content-Type": "application/xml"})
        if archived:
            with lock:
                stats["archived"] += 1
            return self.send(403, s3_error("InvalidObjectState", "The operation is not valid for the object's storage class"),
                             {"Content-Type": "application/xml"})
        if local is not None and self.command in ("GET", "HEAD"):
            return self.serve_local(bucket, key, raw_path, local)
        self.relay(raw_path, query, body, bucket)

    def serve_local(self, bucket, key, raw_path, data):
        if not signature_matches(self.command, raw_path + ("?" + self.path.partition("?")[2] if "?" in self.path else ""), self.headers):
            return self.send(403, s3_error("SignatureDoesNotMatch", "The request signature we calculated does not match the signature you provided."),
                             {"Content-Type": "application/xml"})
        with lock:
            name = f"{bucket}/{key}"
            stats["local_gets"][name] = stats["local_gets"].get(name, 0) + 1
        etag = '"' + hashlib.md5(data).hexdigest() + '"'
        self.send(200, b"" if self.command == "HEAD" else data, {"Content-Type": "image/jpeg", "ETag": etag}, length=len(data))

    def relay(self, raw_path, query, body, bucket):
        connection = http.client.HTTPConnection(UPSTREAM.hostname, UPSTREAM.port, timeout=60)
        try:
            connection.putrequest(self.command, self.path, skip_host=True, skip_accept_encoding=True)
            for name, value in self.headers.items():
                if name.lower() not in ("connection", "keep-alive", "proxy-connection"):
                    connection.putheader(name, value)
            connection.endheaders(body or None)
            answer = connection.getresponse()
            payload = answer.read()
            headers = {name: value for name, value in answer.getheaders()
                       if name.lower() not in ("content-length", "connection", "transfer-encoding", "date")}
            # A HEAD's answer says the object's length and carries no body.
            length = answer.getheader("Content-Length") if self.command == "HEAD" else None
        finally:
            connection.close()
        if self.command == "GET" and "list-type=2" in query and answer.status == 200:
            payload = self.with_local_keys(bucket, urllib.parse.parse_qs(query), payload)
        self.send(answer.status, payload, headers, length=length)

    def with_local_keys(self, bucket, query, payload):
        prefix = query.get("prefix", [""])[0]
        encoded = query.get("encoding-type", [""])[0] == "url"
        with lock:
            local = {name.split("/", 1)[1]: data for name, data in state["local"].items() if name.startswith(bucket + "/")}
        entries = ""
        for key, data in sorted(local.items()):
            if not key.startswith(prefix):
                continue
            shown = urllib.parse.quote_plus(key, safe="/~") if encoded else key.replace("&", "&amp;").replace("<", "&lt;")
            entries += (f"<Contents><Key>{shown}</Key><LastModified>2026-11-29T00:00:00.000Z</LastModified>"
                        f"<ETag>&quot;{hashlib.md5(data).hexdigest()}&quot;</ETag><Size>{len(data)}</Size>"
                        f"<StorageClass>STANDARD</StorageClass></Contents>")
        text = payload.decode()
        if not entries or "<IsTruncated>true</IsTruncated>" in text:
            return payload
        return text.replace("</ListBucketResult>", entries + "</ListBucketResult>").encode()


def main():
    global UPSTREAM
    parser = arguments()
    parser.add_argument("--upstream", required=True)
    parser.add_argument("--cert")
    parser.add_argument("--key")
    args = parser.parse_args()
    UPSTREAM = urllib.parse.urlsplit(args.upstream)
    wrap = None
    if args.cert:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(args.cert, args.key)
        wrap = context
    serve(Handler, args.port, args.url_file, tls=wrap)


if __name__ == "__main__":
    main()
