"""Writes the Debian changelog of a release from CHANGELOG.md (Keep a Changelog): one entry per
release up to VERSION, newest first, each with the release's own lines, as
usr/share/doc/discern/changelog.gz holds it in a native package. A build after a release
(VERSION is RELEASE+git..., scripts/build-version.sh) gets an entry of its own above RELEASE's,
with the lines of the [Unreleased] section, dated at its commit's time.

    python3 scripts/debian_changelog.py CHANGELOG.md VERSION
"""
import re
import sys
from datetime import datetime, timedelta, timezone

MAINTAINER = "The discern developers <discern-maintainers@example.org>"


def entries(body):
    """A section's entries, each '- ' line joined with the indented lines after it."""
    lines = []
    for line in body.splitlines():
        line = line.rstrip()
        if line.startswith("- "):
            lines.append(line[2:])
        elif line.startswith("  ") and lines:
            lines[-1] += " " + line.strip()
    return lines


def releases(text):
    """(version, date, lines) for each '## [X.Y.Z] - YYYY-MM-DD' section, in file order."""
    found = []
    for block in re.split(r"^## ", text, flags=re.M)[1:]:
        heading, _, body = block.partition("\n")
        match = re.match(r"\[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})", heading)
        if match:
            found.append((match.group(1), match.group(2), entries(body)))
    return found


def unreleased(text):
    """The entries of the '## [Unreleased]' section (none without one)."""
    for block in re.split(r"^## ", text, flags=re.M)[1:]:
        heading, _, body = block.partition("\n")
        if heading.strip() == "[Unreleased]":
            return entries(body)
    return []


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


def entry(version, lines, stamp):
    out = [f"discern ({version}) unstable; urgency=medium\n"]
    for line in lines:
        plain = re.sub(r"[`*]", "", line)
        first, *rest = wrap(plain)
        out.append(f"  * {first}")
        out.extend(f"    {more}" for more in rest)
    out.append(f"\n -- {MAINTAINER}  {stamp.strftime('%a, %d %b %Y %H:%M:%S +0000')}\n")
    return out


def main():
    path, version = sys.argv[1], sys.argv[2]
    with open(path, encoding="utf-8") as file:
        text = file.read()
    found = releases(text)
    versions = [release[0] for release in found]
    release, plus, _ = version.partition("+")
    if release not in versions:
        sys.exit(f"{path} has no section for release {release}")
    out = []
    for number, day, lines in found[versions.index(release):]:
        stamp = datetime.strptime(day, "%Y-%m-%d").replace(hour=12, tzinfo=timezone.utc)
        if plus and not out:
            # A build after the release: dated at its commit (the version says when), and after
            # the release's own entry (lintian: latest-changelog-entry-without-new-date).
            built = re.match(r"\+git(\d{8})\.(\d{6})\.", version[len(release):])
            when = datetime.strptime("".join(built.groups()), "%Y%m%d%H%M%S").replace(tzinfo=timezone.utc) if built else stamp
            out += entry(version, unreleased(text) or [f"A build after {release}."], max(when, stamp + timedelta(seconds=1)))
        out += entry(number, lines or ["Release " + number + "."], stamp)
    sys.stdout.write("\n".join(out))


if __name__ == "__main__":
    main()
