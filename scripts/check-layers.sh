#!/usr/bin/env bash
# Fails when a module of Sources/ or Tests/ imports one of ours that its target in Package.swift
# does not depend on, or when docs/design.md's map ("The map") draws an arrow between our modules
# that Package.swift does not declare, or leaves one out.
# SwiftPM lets a target import any module its dependencies bring along, so the compiler alone
# does not hold the arrows: this does. Only our own modules are judged; packages (Foundation,
# Logging, Hummingbird...) are Package.swift's business.
#   scripts/check-layers.sh            prints each forbidden import and each arrow the map has
#                                      wrong, and exits 1 if there is one
set -euo pipefail
cd "$(dirname "$0")/.."

# Package.swift as JSON, read once: the imports and the map are both checked against it.
package=$(swift package dump-package)

# module: the modules of ours it may import: its dependencies in Package.swift, the one place
# the arrows are kept (`swift package dump-package` reads it). A module must name every module of
# ours it imports there, even one a dependency brings along.
declare -A allowed=()
while read -r module deps; do
    allowed[$module]="$deps"
done < <(python3 -c '
import json, sys
for target in json.load(sys.stdin)["targets"]:
    deps = [d.get("byName", d.get("target", [None]))[0] for d in target["dependencies"]]
    print(target["name"], " ".join(d for d in deps if d))
' <<<"$package")
ours=" $(ls Sources Tests | grep -v ':' | tr '\n' ' ') SQLSchema "

failures=0
for folder in Sources/*/ Tests/*/; do
    module=$(basename "$folder")
    # C modules (a module.modulemap or only C sources) import nothing of ours.
    if ! find "$folder" -name '*.swift' | grep -q .; then continue; fi
    if [[ ! -v allowed[$module] ]]; then
        echo "check-layers: $module is not a target of Package.swift" >&2
        failures=$((failures + 1))
        continue
    fi
    while IFS=: read -r file line imported; do
        [[ "$ours" == *" $imported "* ]] || continue
        [ "$imported" = "$module" ] && continue
        [[ " ${allowed[$module]} " == *" $imported "* ]] && continue
        echo "check-layers: $file:$line: $module imports $imported, which its target in Package.swift does not depend on" >&2
        failures=$((failures + 1))
    done < <(grep -rnE '^(@[A-Za-z_]+(\([^)]*\))? )*import ' --include='*.swift' "$folder" \
             | sed -E 's/^([^:]+):([0-9]+):.*import +([A-Za-z_]+).*/\1:\2:\3/')
done
if ((failures)); then
    echo "check-layers: $failures forbidden import(s)" >&2
else
    echo "check-layers: every import follows the map"
fi

# The map, docs/design.md's code block under "## The map", is drawn by hand and checked here
# arrow by arrow against Package.swift: every arrow drawn is a dependency of the module's target,
# and every dependency of one of our modules (the folders of Sources/ and Tests/, C libraries and
# shims included, and SQLSchema) on another is drawn. How the map is written:
#   label      A line starts with its label in the first column, `layer N`, `C` (the C libraries
#              and shims) or `tests`; a line indented instead belongs to the label above.
#   going on   A line that ends with a comma, or leaves a parenthesis open, goes on on the next.
#   entries    Entries on one line are three spaces or more apart (outside parentheses). An entry is
#                Module ──► A, B with C and D              (any number of ─ before ►, even none)
#                Module, Other ──► A                       (both draw the arrow)
#                Module, Other: nothing of ours            (they depend on no module of ours)
#              `with` and `and` join names as a comma does (CVips with CVipsShim).
#   remarks    What is in parentheses is a remark, never a module, and so is what follows a colon or
#              a semicolon after the arrow's list (`...: only the tests use it`). Everything else
#              there is the name of a module of ours: a package (swift-log) goes in a remark.
#   forms      `every module of layers 1 to 3` (or `of layer 2`) draws an arrow to every module
#              those layers' lines have; `anything above` lets a module use any module on a line
#              above its own (not one on its own line): a permission, not a list, so each of its
#              dependencies must be above it, and one it drops leaves nothing to redraw.
#   and also   Every module of ours has exactly one line, and no arrow points up a layer (C lies
#              below layer 0, tests above layer 4; arrows within a layer are fine).
map_ok=1
python3 - docs/design.md 3<<<"$package" <<'PY' || map_ok=0
import json, os, re, sys

sys.stdout.reconfigure(encoding="utf-8")
sys.stderr.reconfigure(encoding="utf-8")
design = sys.argv[1]
package = json.load(os.fdopen(3, encoding="utf-8"))
problems, unreadable = [], False


def fail(line, text, syntax=False):
    """A difference; with syntax, the map cannot be read, and is not compared until it can."""
    global unreadable
    unreadable |= syntax
    problems.append((line, f"check-layers: {design}:{line}: {text}"))


# Our modules and, for each one that is a target, the modules of ours it depends on.
ours = {"SQLSchema"}
for folder in ("Sources", "Tests"):
    ours |= {name for name in os.listdir(folder) if os.path.isdir(os.path.join(folder, name)) and not name.startswith(".")}
targets = {target["name"]: target for target in package["targets"]}
depends = {}
for module in ours:
    if module in targets:
        names = (d.get("byName", d.get("target", [None]))[0] for d in targets[module]["dependencies"])
        depends[module] = {name for name in names if name in ours}

# The block: the first ``` fence after the heading, to the next.
with open(design, encoding="utf-8") as file:
    lines = file.read().split("\n")
heading = next((i for i, line in enumerate(lines) if line.strip() == "## The map"), None)
start = None if heading is None else next((i for i in range(heading + 1, len(lines)) if lines[i].startswith("```")), None)
end = None if start is None else next((i for i in range(start + 1, len(lines)) if lines[i].startswith("```")), None)
if end is None:
    print(f"check-layers: {design} has no map to check: a ``` block under '## The map'", file=sys.stderr)
    sys.exit(1)


def depth(text):
    return text.count("(") - text.count(")")


def notes_out(text):
    """The text without its remarks in parentheses (nested ones too)."""
    while True:
        shorter = re.sub(r"\([^()]*\)", "", text)
        if shorter == text:
            return text
        text = shorter


# Logical lines: (first line's number, label, text), a line going on joined to the one it ends.
LABEL = re.compile(r"(layer (\d+)|tests|C)(?: {2,}|$)")
logical, label = [], None
for index in range(start + 1, end):
    number, raw = index + 1, lines[index]
    if not raw.strip():
        continue
    if logical and raw[0].isspace():
        text = logical[-1][2]
        if depth(text) > 0 or text.endswith(","):
            logical[-1][2] = f"{text} {raw.strip()}"
            continue
    if not raw[0].isspace():
        match = LABEL.match(raw)
        if not match:
            fail(number, f"a line of the map starts with its label, `layer N`, `C` or `tests`, or is indented: not {raw.split()[0]!r}", True)
            label = None
            continue
        label, raw = match.group(1), raw[match.end():]
    elif label is None:
        fail(number, "the map's first line has no label (`layer N`, `C` or `tests`)", True)
    logical.append([number, label, raw.strip()])


def rank(label):
    if label == "C":
        return -1
    if label == "tests":
        return 1000
    return int(label.split()[1]) if label else None


def split_entries(text):
    """Entries three spaces or more apart, outside parentheses."""
    entries, current, level, i = [], "", 0, 0
    while i < len(text):
        if level == 0 and text.startswith("   ", i):
            entries.append(current)
            current = ""
            while i < len(text) and text[i] == " ":
                i += 1
            continue
        level += {"(": 1, ")": -1}.get(text[i], 0)
        current += text[i]
        i += 1
    return [entry.strip() for entry in entries + [current] if entry.strip()]


def module_names(text, number, where):
    names = []
    for item in re.split(r",|\swith\s|\sand\s", text):
        item = " ".join(item.split())
        if not item:
            fail(number, f"an empty name in {where}: two commas, or one at the end")
        elif item in ours:
            names.append(item)
        else:
            fail(number, f"{item!r} in {where} is not a module of ours: a package or a remark goes in parentheses")
    return names


ARROW = re.compile(r"\s─*►\s")
RANGE = re.compile(r"every module of layers? (\d+)(?: to (\d+))?")
entries = []  # dicts: number, label, subjects, names, ranges, above, nothing, order
for number, label, text in logical:
    if depth(text) != 0 or "(" in notes_out(text) or ")" in notes_out(text):
        fail(number, "a parenthesis of the map is not closed, or not opened", True)
        continue
    for order, raw in enumerate(split_entries(text)):
        bare = " ".join(notes_out(raw).split())
        arrows = ARROW.split(f" {bare} ")
        entry = dict(number=number, label=label, names=[], ranges=[], above=False, nothing=False, order=len(entries))
        if len(arrows) > 2:
            fail(number, f"one arrow an entry: {raw!r} has {len(arrows) - 1}", True)
            continue
        if len(arrows) == 1:
            subjects, colon, remark = bare.partition(":")
            if not colon or not remark.strip().endswith("nothing of ours"):
                fail(number, f"{raw!r} draws no arrow (──►) and does not say ': nothing of ours'", True)
                continue
            entry["nothing"] = True
        else:
            subjects, drawn = arrows[0], re.split(r"[:;]", arrows[1], maxsplit=1)[0]
            listed = []
            for item in drawn.split(","):
                item = " ".join(item.split())
                if not item:
                    fail(number, f"an empty name in {arrows[0].strip()}'s arrows: two commas, or one at the end")
                elif (found := RANGE.fullmatch(item)):
                    entry["ranges"].append((int(found.group(1)), int(found.group(2) or found.group(1)), item))
                elif item == "anything above":
                    entry["above"] = True
                else:
                    listed.append(item)
            if listed:
                entry["names"] = module_names(",".join(listed), number, f"{arrows[0].strip()}'s arrows")
        entry["subjects"] = module_names(subjects, number, "the modules an entry draws from")
        entries.append(entry)

if unreadable:
    for _, problem in sorted(problems):
        print(problem, file=sys.stderr)
    print(f"check-layers: the map in {design} cannot be read, so it is not compared with Package.swift", file=sys.stderr)
    sys.exit(1)

# Every module of ours has one line; the layer each one is drawn on.
line_of, label_of = {}, {}
for entry in entries:
    for subject in entry["subjects"]:
        if subject in line_of:
            fail(entry["number"], f"{subject} has two lines on the map: this one and line {line_of[subject]}")
        line_of.setdefault(subject, entry["number"])
        label_of.setdefault(subject, entry["label"])
for module in sorted(ours - line_of.keys()):
    fail(start + 1, f"{module} is not on the map: give it a line, with its arrows or ': nothing of ours'")

for entry in entries:
    above = {subject for earlier in entries[: entry["order"]] for subject in earlier["subjects"]} - set(entry["subjects"])
    expanded = {}
    for low, high, words in entry["ranges"]:
        for module, label in label_of.items():
            if label and label.startswith("layer ") and low <= rank(label) <= high:
                expanded.setdefault(module, f" (one of {words})")
    for subject in entry["subjects"]:
        if subject not in depends:
            folders = (f"Sources/{subject}", f"Tests/{subject}")
            swift = any(name.endswith(".swift") for folder in folders for _, _, files in os.walk(folder) for name in files)
            if not swift:  # a Swift module without a target is the imports' check's to report
                fail(entry["number"], f"{subject} is not a target of Package.swift: its arrows cannot be checked")
            continue
        deps = depends[subject]
        drawn = {name: "" for name in entry["names"]} | {m: why for m, why in expanded.items() if m != subject}
        for module, why in sorted(drawn.items()):
            if module not in deps:
                fail(entry["number"], f"the map draws {subject} ──► {module}{why}, but {subject} does not depend on {module} in Package.swift")
            elif rank(label_of.get(module)) is not None and rank(entry["label"]) is not None and rank(label_of[module]) > rank(entry["label"]):
                fail(entry["number"], f"{subject} ──► {module} points up, from {entry['label']} to {label_of[module]}: move one of them")
        for module in sorted(deps - drawn.keys()):
            if entry["nothing"]:
                fail(entry["number"], f"the map says {subject} uses nothing of ours, but {subject} depends on {module} in Package.swift")
            elif entry["above"]:
                if module not in above:
                    fail(entry["number"], f"{subject} depends on {module} in Package.swift, which is not on a line above {subject} on the map")
            else:
                fail(entry["number"], f"the map does not draw {subject} ──► {module}, but {subject} depends on {module} in Package.swift")

for _, problem in sorted(problems):
    print(problem, file=sys.stderr)
if problems:
    print(f"check-layers: {len(problems)} difference(s) between the map in {design} and Package.swift", file=sys.stderr)
    sys.exit(1)
print(f"check-layers: the map in {design} draws every arrow between our modules that Package.swift declares, and no other")
PY
((failures == 0 && map_ok)) || exit 1
