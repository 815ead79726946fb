"""Validates deploy/kubernetes as it is applied, and every overlay beside it that builds on it
(deploy/kubernetes-bucket): the kustomize output (`kubectl kustomize`), every Kubernetes kind
against the Kubernetes schemas (kubernetes-validate, offline, strict: unknown fields are errors),
KEDA kinds against the CRD schemas in <folder>/schemas and the fields KEDA documents for its
postgresql scaler, plus what ties the objects together: the accounts, volumes and claims pods
name exist, every folder path root is mounted where discern reads it, and the nightly CronJob's
command enqueues <photo root>/<day>/ inside the path roots.

    python3 scripts/validate_manifests.py [FOLDER [MIGRATED-DATABASE-URL]]   (FOLDER: deploy/kubernetes)"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import jsonschema
import kubernetes_validate
import yaml

KUBERNETES_VERSION = "1.30.0"

# KEDA's postgresql scaler (keda.sh/docs/2.x/scalers/postgresql, pkg/scalers/postgresql_scaler.go):
# trigger metadata, and the parameters a TriggerAuthentication may supply.
POSTGRESQL_METADATA = {"query", "targetQueryValue", "activationTargetQueryValue", "connectionFromEnv", "host", "port",
                       "userName", "dbName", "sslmode", "passwordFromEnv"}
POSTGRESQL_AUTH_PARAMETERS = {"connection", "host", "port", "userName", "dbName", "sslmode", "password"}


def render(folder):
    """The documents kustomize produces, or (without kubectl) every file's documents."""
    if shutil.which("kubectl"):
        out = subprocess.run(["kubectl", "kustomize", folder], check=True, capture_output=True, text=True).stdout
        print(f"rendered {folder} with kubectl kustomize")
        return [d for d in yaml.safe_load_all(out) if d]
    print("kubectl not found: validating the files one by one (install kubectl >= 1.27 to check the rendered output)")
    documents = []
    for root, _, names in os.walk(folder):
        for name in sorted(names):
            if name.endswith((".yaml", ".yml")) and name != "kustomization.yaml":
                with open(os.path.join(root, name)) as handle:
                    documents += [d for d in yaml.safe_load_all(handle) if d]
    return documents


def check_keda(document, by_kind):
    if document["kind"] == "ScaledObject":
        target = document["spec"]["scaleTargetRef"]["name"]
        deployment = by_kind.get("Deployment", {}).get(target)
        if deployment is None:
            raise ValueError(f"scaleTargetRef names {target}, which is not a Deployment here")
        if "replicas" in deployment["spec"]:
            raise ValueError(f"Deployment {target} fixes replicas; under KEDA it must not")
        backend = deployment["spec"]["template"]["metadata"]["labels"].get("discern/backend")
        for trigger in document["spec"]["triggers"]:
            if trigger["type"] != "postgresql":
                continue
            unknown = set(trigger["metadata"]) - POSTGRESQL_METADATA
            if unknown:
                raise ValueError(f"postgresql trigger fields KEDA does not document: {sorted(unknown)}")
            if not {"query", "targetQueryValue"} <= set(trigger["metadata"]):
                raise ValueError("a postgresql trigger needs query and targetQueryValue")
            query = trigger["metadata"]["query"]
            if backend and (f"backend = '{backend}'" not in query or "'running'" not in query):
                raise ValueError(f"the query must count {backend}'s waiting and running jobs: {query}")
            auth = trigger.get("authenticationRef", {}).get("name")
            if auth and auth not in by_kind.get("TriggerAuthentication", {}):
                raise ValueError(f"authenticationRef names {auth}, which is not here")
    if document["kind"] == "TriggerAuthentication":
        parameters = {ref["parameter"] for ref in document["spec"].get("secretTargetRef", [])}
        unknown = parameters - POSTGRESQL_AUTH_PARAMETERS
        if unknown:
            raise ValueError(f"parameters the postgresql scaler does not read: {sorted(unknown)}")


def check_selectors(by_kind):
    """No Deployment may select another Deployment's pods."""
    deployments = by_kind.get("Deployment", {})
    for name, deployment in deployments.items():
        selector = deployment["spec"]["selector"]["matchLabels"]
        for other, candidate in deployments.items():
            labels = candidate["spec"]["template"]["metadata"]["labels"]
            if other != name and all(labels.get(k) == v for k, v in selector.items()):
                raise ValueError(f"Deployment {name} selects the pods of {other}")


def pod_specs(by_kind):
    """(kind name, pod spec) of every Deployment and CronJob."""
    for kind, path in (("Deployment", ("spec", "template", "spec")), ("CronJob", ("spec", "jobTemplate", "spec", "template", "spec"))):
        for name, document in sorted(by_kind.get(kind, {}).items()):
            spec = document
            for key in path:
                spec = spec[key]
            yield f"{kind} {name}", spec


def check_references(by_kind):
    """What a pod names is there: its ServiceAccount, the volume of each mount, the claim of
    each volume. An overlay that takes the photos away must take all of them."""
    accounts = set(by_kind.get("ServiceAccount", {})) | {"default"}
    claims = set(by_kind.get("PersistentVolumeClaim", {}))
    for pod, spec in pod_specs(by_kind):
        account = spec.get("serviceAccountName", "default")
        if account not in accounts:
            raise ValueError(f"{pod} runs as ServiceAccount {account}, which is not here")
        volumes = {volume["name"]: volume for volume in spec.get("volumes") or []}
        for volume in volumes.values():
            claim = volume.get("persistentVolumeClaim", {}).get("claimName")
            if claim is not None and claim not in claims:
                raise ValueError(f"{pod} mounts the claim {claim}, which is not here")
        for container in spec.get("initContainers", []) + spec["containers"]:
            for mount in container.get("volumeMounts") or []:
                if mount["name"] not in volumes:
                    raise ValueError(f"{pod} mounts {mount['name']} at {mount['mountPath']}, which is not one of its volumes")


def root_entries(text):
    """DISCERN_PATH_ROOTS split at its colons, but for the one in each s3:// (as discern does)."""
    entries = []
    for part in text.split(":"):
        part = part.strip()
        if part.startswith("//") and entries and entries[-1] == "s3":
            entries[-1] = "s3:" + part
        else:
            entries.append(part)
    return [entry for entry in entries if entry]


def under(path, root):
    """Whether a folder or s3:// path is inside a path root (a bucket's keys are compared as written)."""
    if root.startswith("s3://") != path.startswith("s3://"):
        return False
    if root.startswith("s3://"):
        bucket, _, prefix = root[len("s3://"):].partition("/")
        path_bucket, _, key = path[len("s3://"):].partition("/")
        return bucket == path_bucket and key.startswith(prefix)
    root = root.rstrip("/") or "/"
    return path == root or path.startswith(root.rstrip("/") + "/")


def reads_settings(container):
    return any(source.get("configMapRef", {}).get("name") == "discern" for source in container.get("envFrom", []))


def check_roots(by_kind):
    """A folder path root that is not there stops a worker (exit 64): every container that takes
    the ConfigMap mounts each one; roots that are buckets only take no volume. The photo root the
    nightly enqueues from is inside the path roots (enqueue refuses anything else)."""
    settings = by_kind.get("ConfigMap", {}).get("discern", {}).get("data", {})
    roots = root_entries(settings.get("DISCERN_PATH_ROOTS", ""))
    if not roots:
        raise ValueError("the ConfigMap sets no DISCERN_PATH_ROOTS: workers would not start")
    photo_root = settings.get("DISCERN_PHOTO_ROOT")
    if photo_root and not any(under(photo_root.rstrip("/") + "/day/", root) for root in roots):
        raise ValueError(f"DISCERN_PHOTO_ROOT {photo_root} is not inside DISCERN_PATH_ROOTS {settings['DISCERN_PATH_ROOTS']}")
    if all(root.startswith("s3://") for root in roots):
        # Buckets only: a claim would keep pods pending for a volume nothing reads.
        claimed = [pod for pod, spec in pod_specs(by_kind) if any("persistentVolumeClaim" in volume for volume in spec.get("volumes") or [])]
        if by_kind.get("PersistentVolumeClaim") or claimed:
            raise ValueError(f"the path roots name buckets only, yet {', '.join(claimed or sorted(by_kind['PersistentVolumeClaim']))} claim a volume")
    for pod, spec in pod_specs(by_kind):
        for container in spec["containers"]:
            if not reads_settings(container):
                continue
            mounts = [mount["mountPath"] for mount in container.get("volumeMounts") or []]
            for root in roots:
                if not root.startswith("s3://") and not any(under(root, mount) for mount in mounts):
                    raise ValueError(f"{pod}: the path root {root} is mounted nowhere in container {container['name']}")


def check_nightly(by_kind):
    """The nightly CronJob's own shell line, run with the ConfigMap's photo root and a stand-in
    discern that prints its arguments: it enqueues <root>/<day>/ (the day's own slash keeps
    <day>-reshoot/ out) as batch nightly-<day>, inside the path roots."""
    cronjob = by_kind.get("CronJob", {}).get("discern-nightly-enqueue")
    if cronjob is None:
        return
    settings = by_kind.get("ConfigMap", {}).get("discern", {}).get("data", {})
    container = cronjob["spec"]["jobTemplate"]["spec"]["template"]["spec"]["containers"][0]
    if container.get("command") != ["/bin/sh", "-c"]:
        raise ValueError("the nightly CronJob's command is no longer /bin/sh -c: check it by hand, then here")
    with tempfile.TemporaryDirectory() as folder:
        stand_in = os.path.join(folder, "discern")
        with open(stand_in, "w") as handle:
            handle.write('#!/bin/sh\nprintf \'%s\\n\' "$@"\n')
        os.chmod(stand_in, 0o755)
        environment = dict(os.environ, PATH=f"{folder}:{os.environ.get('PATH', '/usr/bin:/bin')}",
                           DISCERN_PHOTO_ROOT=settings.get("DISCERN_PHOTO_ROOT", ""))
        arguments = subprocess.run(["/bin/sh", "-c", container["args"][0]], env=environment, check=True,
                                   capture_output=True, text=True).stdout.splitlines()
    root = settings.get("DISCERN_PHOTO_ROOT", "").rstrip("/")
    found = re.fullmatch(re.escape(root) + r"/(\d{4}-\d{2}-\d{2})/", arguments[1] if len(arguments) > 1 else "")
    if arguments[:1] != ["enqueue"] or not found or arguments[2:4] != ["--batch", f"nightly-{found.group(1)}"]:
        raise ValueError(f"the nightly CronJob runs discern {' '.join(arguments)}, not enqueue {root}/<day>/ --batch nightly-<day>")
    roots = root_entries(settings.get("DISCERN_PATH_ROOTS", ""))
    if not any(under(arguments[1], entry) for entry in roots):
        raise ValueError(f"the nightly CronJob enqueues {arguments[1]}, outside DISCERN_PATH_ROOTS")
    print(f"CronJob discern-nightly-enqueue runs: discern {' '.join(arguments)}")


def run_queries(by_kind, url, done):
    """Each scaler query, run as KEDA would (the reader role) on a migrated database: it must
    return one whole number. A query another rendering ran already is not run again."""
    for name, scaled in sorted(by_kind.get("ScaledObject", {}).items()):
        for trigger in scaled["spec"]["triggers"]:
            query = trigger["metadata"]["query"]
            if (name, query) in done:
                continue
            done.add((name, query))
            out = subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", "SET ROLE discern_reader", "-c", query],
                                 check=True, capture_output=True, text=True).stdout.strip()
            int(out)
            print(f"ScaledObject {name} query runs as discern_reader: {out}")


def overlays(folder):
    """The kustomizations beside folder (under its parent, not inside it: kustomize refuses an
    overlay inside its base) that name it among their resources."""
    base = os.path.realpath(folder)
    found = []
    for root, names, files in os.walk(os.path.dirname(base)):
        names[:] = sorted(name for name in names if os.path.realpath(os.path.join(root, name)) != base)
        if "kustomization.yaml" not in files:
            continue
        with open(os.path.join(root, "kustomization.yaml")) as handle:
            resources = (yaml.safe_load(handle) or {}).get("resources", [])
        if any(os.path.realpath(os.path.join(root, resource)) == base for resource in resources):
            found.append(os.path.relpath(root))
    return found


def validate(folder, schemas, database, queried):
    """Every object of one rendering; the number that failed."""
    documents = render(folder)
    by_kind = {}
    for document in documents:
        by_kind.setdefault(document.get("kind"), {})[document["metadata"]["name"]] = document
    failures = 0
    for document in documents:
        kind, name = document.get("kind", "?"), document.get("metadata", {}).get("name", "?")
        try:
            if kind in schemas:
                jsonschema.validate(document, schemas[kind])
                check_keda(document, by_kind)
            else:
                kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
            print(f"{kind} {name} ok")
        except Exception as error:  # every kind of validation failure is reported the same way
            failures += 1
            print(f"{kind} {name} INVALID: {error}", file=sys.stderr)
    for what, check in (("selectors", check_selectors), ("references", check_references), ("path roots", check_roots),
                        ("nightly", check_nightly)):
        try:
            check(by_kind)
        except (ValueError, KeyError, subprocess.CalledProcessError) as error:
            failures += 1
            print(f"{folder}: {what} INVALID: {error}", file=sys.stderr)
    if database:
        run_queries(by_kind, database, queried)
    return failures


def main(folder, database=None):
    schemas = {}
    for name in os.listdir(os.path.join(folder, "schemas")):
        with open(os.path.join(folder, "schemas", name)) as handle:
            schema = json.load(handle)
        schemas[schema["x-kind"]] = schema
    queried = set()
    failures = validate(folder, schemas, database, queried)
    for overlay in overlays(folder):
        if not shutil.which("kubectl"):
            print(f"kubectl not found: {overlay} (an overlay) is not checked")
            continue
        failures += validate(overlay, schemas, database, queried)
    if failures:
        sys.exit(f"{failures} manifest(s) invalid")


if __name__ == "__main__":
    if len(sys.argv) > 1:
        main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
    else:
        # No folder: the repository's own, wherever this is run from.
        os.chdir(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
        main("deploy/kubernetes")
