"""Writes the Debian changelog of a release from CHANGELOG.md (Keep a Changelog): one entry per
release up to VERSION, newest first, each with the release's own lines, as
usr/share/doc/discern/changelog.gz holds it in a native package.

    python3 scripts/debian_changelog.py CHANGELOG.md VERSION
"""
import re
import sys
from datetime import datetime, timezone

MAINTAINER = "The discern developers <discern-maintainers@example.org>"


def releases(text):
    """(version, date, lines) for each '## [X.Y.Z] - YYYY-MM-DD' section, in file order."""
    found = []
    for block in re.split(r"^## ", text, flags=re.M)[1:]:
        heading, _, body = block.partition("\n")
        match = re.match(r"\[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})", heading)
        if not match:
            continue
        lines = []
        for line in body.splitlines():
            line = line.rstrip()
            if line.startswith("- "):
                lines.append(line[2:])
            elif line.startswith("  ") and lines:
                lines[-1] += " " + line.strip()
        found.append((match.group(1), match.group(2), lines))
    return found


def wrap(text, width=76):
    words, lines, line = text.split(), [], ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    if line:
        lines.append(line)
    return lines


def main():
    path, version = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as file:
        entries = releases(file.read())
    versions = [entry[0] for entry in entries]
    if version not in versions:
        sys.exit(f"{path} has no section for release {version}")
    out = []
    for number, day, lines in entries[versions.index(version):]:
        out.append(f"discern ({number}) unstable; urgency=medium\n")
        for line in lines or ["Release " + number + "."]:
            plain = re.sub(r"[`*]", "", line)
            first, *rest = wrap(plain)
            out.append(f"  * {first}")
            out.extend(f"    {more}" for more in rest)
        stamp = datetime.strptime(day, "%Y-%m-%d").replace(hour=12, tzinfo=timezone.utc)
        out.append(f"\n -- {MAINTAINER}  {stamp.strftime('%a, %d %b %Y %H:%M:%S +0000')}\n")
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
