"""Validates deploy/kubernetes as it is applied: the kustomize output (`kubectl kustomize`),
every Kubernetes kind against the Kubernetes schemas (kubernetes-validate, offline, strict:
unknown fields are errors), KEDA kinds against the CRD schemas in <folder>/schemas and the
fields KEDA documents for its postgresql scaler, plus what ties the objects together."""
import json
import os
import shutil
import subprocess
import sys

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


def run_queries(by_kind, url):
    """Each scaler query, run as KEDA would (the reader role) on a migrated database: it must
    return one whole number."""
    for name, scaled in sorted(by_kind.get("ScaledObject", {}).items()):
        for trigger in scaled["spec"]["triggers"]:
            query = trigger["metadata"]["query"]
            out = subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", "SET ROLE discern_reader", "-c", query],
                                 check=True, capture_output=True, text=True).stdout.strip()
            int(out)
            print(f"ScaledObject {name} query runs as discern_reader: {out}")


def main(folder, database=None):
    schemas = {}
    for name in os.listdir(os.path.join(folder, "schemas")):
        with open(os.path.join(folder, "schemas", name)) as handle:
            schema = json.load(handle)
        schemas[schema["x-kind"]] = schema
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
    try:
        check_selectors(by_kind)
    except ValueError as error:
        failures += 1
        print(f"selectors INVALID: {error}", file=sys.stderr)
    if database:
        run_queries(by_kind, database)
    if failures:
        sys.exit(f"{failures} manifest(s) invalid")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
