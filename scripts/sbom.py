"""Writes the software bill of materials of a discern release (SPDX 2.3, JSON): the package, the
Swift packages linked into its binary (from Package.resolved: name, version, revision, where it
came from) and the Debian libraries it links at run time (the .deb's Depends, with the version
of each installed on the machine that built it).

    python3 scripts/sbom.py --version V --commit C --binary BIN --deb DEB --resolved Package.resolved
"""
import argparse
import hashlib
import json
import re
import subprocess
import uuid
from datetime import datetime, timezone


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def spdx_id(text):
    return "SPDXRef-" + re.sub(r"[^A-Za-z0-9.-]", "-", text)


def swift_packages(resolved):
    with open(resolved, encoding="utf-8") as file:
        pins = json.load(file).get("pins", [])
    for pin in pins:
        state = pin.get("state", {})
        version = state.get("version") or state.get("revision", "")[:12]
        yield {
            "SPDXID": spdx_id("swift-" + pin["identity"]),
            "name": pin["identity"],
            "versionInfo": version,
            "downloadLocation": pin.get("location", "NOASSERTION"),
            "filesAnalyzed": False,
            "licenseConcluded": "NOASSERTION",
            "licenseDeclared": "NOASSERTION",
            "copyrightText": "NOASSERTION",
            "comment": f"Swift package, linked statically; revision {state.get('revision', 'unknown')}",
            "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                              "referenceLocator": f"pkg:swift/{pin['identity']}@{version}"}],
        }


def debian_libraries(deb):
    depends = subprocess.run(["dpkg-deb", "-f", deb, "Depends"], check=True, capture_output=True, text=True).stdout
    for clause in depends.split(","):
        name = clause.split("|")[0].split("(")[0].strip()
        if not name or name.startswith("systemd"):
            continue
        installed = subprocess.run(["dpkg-query", "-W", "-f=${Version}", name], capture_output=True, text=True).stdout.strip()
        yield {
            "SPDXID": spdx_id("deb-" + name),
            "name": name,
            "versionInfo": installed or "NOASSERTION",
            "downloadLocation": "NOASSERTION",
            "filesAnalyzed": False,
            "licenseConcluded": "NOASSERTION",
            "licenseDeclared": "NOASSERTION",
            "copyrightText": "NOASSERTION",
            "comment": f"Debian package, linked at run time (Depends: {clause.strip()}); the version the release was built against",
            "externalRefs": [{"referenceCategory": "PACKAGE-MANAGER", "referenceType": "purl",
                              "referenceLocator": f"pkg:deb/debian/{name}@{installed}?arch=amd64&distro=bookworm"}],
        }


def main():
    parser = argparse.ArgumentParser()
    for flag in ("--version", "--commit", "--binary", "--deb", "--resolved"):
        parser.add_argument(flag, required=True)
    args = parser.parse_args()
    root = {
        "SPDXID": "SPDXRef-discern",
        "name": "discern",
        "versionInfo": args.version,
        "downloadLocation": "NOASSERTION",
        "filesAnalyzed": False,
        "licenseConcluded": "LicenseRef-discern-proprietary",
        "licenseDeclared": "LicenseRef-discern-proprietary",
        "copyrightText": "the discern developers",
        "comment": f"commit {args.commit}",
        "checksums": [{"algorithm": "SHA256", "checksumValue": sha256(args.deb)}],
    }
    swift = list(swift_packages(args.resolved))
    debian = list(debian_libraries(args.deb))
    document = {
        "spdxVersion": "SPDX-2.3",
        "dataLicense": "CC0-1.0",
        "SPDXID": "SPDXRef-DOCUMENT",
        "name": f"discern-{args.version}",
        "documentNamespace": f"https://spdx.org/spdxdocs/discern-{args.version}-{uuid.uuid4()}",
        "creationInfo": {"created": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                         "creators": ["Tool: discern scripts/sbom.py"]},
        "hasExtractedLicensingInfos": [{"licenseId": "LicenseRef-discern-proprietary", "name": "discern proprietary",
                                        "extractedText": "All rights reserved; distributed to discern's operators only."}],
        "packages": [root] + swift + debian,
        "relationships": [{"spdxElementId": "SPDXRef-DOCUMENT", "relationshipType": "DESCRIBES", "relatedSpdxElement": "SPDXRef-discern"}]
        + [{"spdxElementId": "SPDXRef-discern", "relationshipType": "STATIC_LINK", "relatedSpdxElement": p["SPDXID"]} for p in swift]
        + [{"spdxElementId": "SPDXRef-discern", "relationshipType": "DYNAMIC_LINK", "relatedSpdxElement": p["SPDXID"]} for p in debian],
    }
    print(json.dumps(document, indent=2, sort_keys=True))


if __name__ == "__main__":
    main()
