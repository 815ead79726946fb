"""Validates every manifest in a folder: Kubernetes kinds against the Kubernetes schemas
(kubernetes-validate, offline, strict: unknown fields are errors), KEDA kinds against the
schemas in <folder>/schemas, and the kustomization's resource list against the files."""
import json
import os
import sys

import jsonschema
import kubernetes_validate
import yaml

KUBERNETES_VERSION = "1.30.0"


def main(folder):
    schemas = {}
    for name in os.listdir(os.path.join(folder, "schemas")):
        with open(os.path.join(folder, "schemas", name)) as handle:
            schema = json.load(handle)
        schemas[schema["x-kind"]] = schema
    failures = 0
    files = sorted(n for n in os.listdir(folder) if n.endswith((".yaml", ".yml")))
    for name in files:
        with open(os.path.join(folder, name)) as handle:
            documents = [d for d in yaml.safe_load_all(handle) if d]
        for document in documents:
            kind = document.get("kind", "?")
            try:
                if kind == "Kustomization":
                    missing = [r for r in document.get("resources", []) if not os.path.exists(os.path.join(folder, r))]
                    if missing:
                        raise ValueError(f"resources not found: {missing}")
                elif kind in schemas:
                    jsonschema.validate(document, schemas[kind])
                else:
                    kubernetes_validate.validate(document, KUBERNETES_VERSION, strict=True)
                print(f"{name}: {kind} ok")
            except Exception as error:  # every kind of validation failure is reported the same way
                failures += 1
                print(f"{name}: {kind} INVALID: {error}", file=sys.stderr)
    if failures:
        sys.exit(f"{failures} manifest(s) invalid")


if __name__ == "__main__":
    main(sys.argv[1])
