"""Stand-ins for what AWS and Kubernetes hand a workload its credentials with, written from
AWS's public documentation, on 127.0.0.1, in one process. None of them decides whether a
credential is good: they hand out what a real STS (SeaweedFS's, at --sts) minted, and the S3
server judges it.

  - an OIDC issuer, as EKS's is for IRSA: /.well-known/openid-configuration and its JWKS at /keys;
    it signs (RS256) the service-account token it writes to --token-file, as the kubelet projects
    one (iss = this server, aud = sts.amazonaws.com, sub = the service account), and writes a
    new one on POST /control/rotate;
  - IMDSv2, as on an EC2 instance: PUT /latest/api/token (X-aws-ec2-metadata-token-ttl-seconds),
    then GET /latest/meta-data/iam/security-credentials/[ROLE] with X-aws-ec2-metadata-token;
    a GET without a token is refused (401), as an instance that requires IMDSv2 does;
  - the container credentials endpoint, as EKS Pod Identity's agent and ECS serve it:
    GET /v1/credentials with the Authorization header the pod is given (--auth-token).

The credentials the two endpoints hand out come from AssumeRoleWithWebIdentity at the STS, with
a token this issuer signed. POST /control (JSON) changes how they behave, for a test:
  {"refuse": true}            the endpoints answer 500 / 404 as an agent that lost its role
  {"stated_lifetime": S}      the Expiration they state is S seconds away (the real one may differ)
  {"duration": S}             DurationSeconds asked of the STS (how long the credential really lasts)
GET /control/stats counts what was asked: {"imds": n, "container": n, "tokens": n, "minted": n}, and
"handed": when each credential was handed out and the expiry it stated, [[unix time, unix time]].

    python3 scripts/aws-standins.py --url-file F --token-file F --auth-token T --role-arn ARN --log F
"""
import base64
import datetime
import json
import os
import secrets
import threading
import time
import urllib.parse
import urllib.request
import xml.etree.ElementTree as ElementTree

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import padding, rsa

from loopback_server import QuietHandler, arguments, serve

KEY = rsa.generate_private_key(public_exponent=65537, key_size=2048)
KEY_ID = "discern-test-" + secrets.token_hex(4)
ROLE_NAME = "discern-node-role"
lock = threading.Lock()
state = {"refuse": False, "stated_lifetime": None, "duration": 3600, "sts": None}
stats = {"imds": 0, "container": 0, "tokens": 0, "minted": 0, "handed": []}
imds_tokens = {}


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def jwt(issuer, subject, lifetime=3600):
    header = {"alg": "RS256", "typ": "JWT", "kid": KEY_ID}
    now = int(time.time())
    claims = {"iss": issuer, "aud": "sts.amazonaws.com", "sub": subject, "iat": now, "nbf": now - 5, "exp": now + lifetime}
    signing_input = f"{b64url(json.dumps(header).encode())}.{b64url(json.dumps(claims).encode())}"
    signature = KEY.sign(signing_input.encode(), padding.PKCS1v15(), hashes.SHA256())
    return f"{signing_input}.{b64url(signature)}"


def jwks():
    numbers = KEY.public_key().public_numbers()
    def encode(value):
        return b64url(value.to_bytes((value.bit_length() + 7) // 8, "big"))
    return {"keys": [{"kty": "RSA", "alg": "RS256", "use": "sig", "kid": KEY_ID, "n": encode(numbers.n), "e": encode(numbers.e)}]}


def mint(issuer, who):
    """Real temporary credentials from the STS, for a token this issuer signs now."""
    with lock:
        sts, duration, role = state["sts"], state["duration"], state["role_arn"]
    form = urllib.parse.urlencode({
        "Action": "AssumeRoleWithWebIdentity", "Version": "2011-06-15", "RoleArn": role,
        "RoleSessionName": f"standin-{who}", "WebIdentityToken": jwt(issuer, f"system:serviceaccount:discern:{who}"),
        "DurationSeconds": str(duration)}).encode()
    with urllib.request.urlopen(urllib.request.Request(sts, data=form, method="POST"), timeout=10) as answer:
        document = ElementTree.fromstring(answer.read())
    found = {element.tag.split("}")[-1]: element.text for element in document.iter()}
    with lock:
        stats["minted"] += 1
        stated = state["stated_lifetime"]
    expiration = found["Expiration"]
    if stated is not None:
        moment = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=stated)
        expiration = moment.strftime("%Y-%m-%dT%H:%M:%SZ")
    stated_at = datetime.datetime.strptime(expiration[:19], "%Y-%m-%dT%H:%M:%S").replace(tzinfo=datetime.timezone.utc).timestamp()
    with lock:
        stats["handed"].append([time.time(), stated_at])
    return {"AccessKeyId": found["AccessKeyId"], "SecretAccessKey": found["SecretAccessKey"], "Token": found["SessionToken"],
            "Expiration": expiration}


class Handler(QuietHandler):
    def issuer(self):
        return f"http://{self.headers.get('Host')}"

    def json(self, status, value):
        self.answer(status, json.dumps(value).encode(), "application/json")

    def do_PUT(self):
        if self.path != "/latest/api/token":
            return self.answer(404)
        ttl = self.headers.get("X-aws-ec2-metadata-token-ttl-seconds", "")
        # IMDS refuses a token request that went through a proxy (X-Forwarded-For) or has no TTL.
        if self.headers.get("X-Forwarded-For") or not ttl.isdigit() or not 1 <= int(ttl) <= 21600:
            return self.answer(400)
        token = secrets.token_urlsafe(32)
        with lock:
            imds_tokens[token] = time.time() + int(ttl)
            stats["tokens"] += 1
        self.answer(200, token.encode(), "text/plain")

    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/.well-known/openid-configuration":
            return self.json(200, {"issuer": self.issuer(), "jwks_uri": self.issuer() + "/keys",
                                   "id_token_signing_alg_values_supported": ["RS256"], "response_types_supported": ["id_token"],
                                   "subject_types_supported": ["public"]})
        if path == "/keys":
            return self.json(200, jwks())
        if path == "/control/stats":
            with lock:
                return self.json(200, json.loads(json.dumps(stats)))
        if path.startswith("/latest/meta-data/iam/security-credentials"):
            return self.imds(path)
        if path == "/v1/credentials":
            return self.container()
        self.answer(404)

    def imds(self, path):
        token = self.headers.get("X-aws-ec2-metadata-token", "")
        with lock:
            valid = imds_tokens.get(token, 0) > time.time()
            refuse = state["refuse"]
        if not valid:
            return self.answer(401)
        rest = path[len("/latest/meta-data/iam/security-credentials"):].strip("/")
        if refuse:
            return self.answer(404)
        if rest == "":
            return self.answer(200, ROLE_NAME.encode(), "text/plain")
        if rest != ROLE_NAME:
            return self.answer(404)
        with lock:
            stats["imds"] += 1
        credentials = mint(self.issuer(), "instance")
        now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        self.json(200, {"Code": "Success", "LastUpdated": now, "Type": "AWS-HMAC", **credentials})

    def container(self):
        with lock:
            refuse, expected = state["refuse"], state["auth_token"]
        if self.headers.get("Authorization") != expected:
            return self.json(403, {"Code": "AccessDeniedException", "Message": "the pod's token is not valid"})
        if refuse:
            return self.json(500, {"Code": "ServerException", "Message": "no credentials for this pod"})
        with lock:
            stats["container"] += 1
        self.json(200, {**mint(self.issuer(), "pod"), "AccountId": "000000000000"})

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        body = json.loads(self.rfile.read(length) or b"{}")
        if self.path == "/control":
            with lock:
                state.update({key: body[key] for key in ("refuse", "stated_lifetime", "duration", "sts", "role_arn") if key in body})
            return self.json(200, state)
        if self.path == "/control/rotate":
            write_token(self.issuer())
            return self.json(200, {})
        self.answer(404)


def write_token(issuer):
    """As the kubelet projects it: replaced whole (a rename), never seen half-written."""
    path = state["token_file"]
    with open(path + ".part", "w") as handle:
        handle.write(jwt(issuer, "system:serviceaccount:discern:discern-worker"))
    os.replace(path + ".part", path)


def main():
    parser = arguments()
    parser.add_argument("--token-file", required=True)
    parser.add_argument("--auth-token", required=True)
    parser.add_argument("--role-arn", required=True)
    parser.add_argument("--sts")
    args = parser.parse_args()
    state.update({"token_file": args.token_file, "auth_token": args.auth_token, "role_arn": args.role_arn, "sts": args.sts})
    serve(Handler, args.port, args.url_file, on_listening=lambda url: write_token(url))


if __name__ == "__main__":
    main()
