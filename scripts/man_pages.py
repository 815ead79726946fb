"""Files the man pages swift-argument-parser's generate-manual wrote (discern.batches.list.1) as
Debian and man-db expect them: discern-batches-list(1), its NAME the name it is filed under, its
SYNOPSIS the command as typed; gzip -9n, as Debian's policy asks.

    python3 scripts/man_pages.py GENERATED_DIR MAN1_DIR
"""
import gzip
import os
import re
import sys


def main():
    source, target = sys.argv[1], sys.argv[2]
    for name in sorted(os.listdir(source)):
        if not name.endswith(".1"):
            continue
        page = name[:-2].replace(".", "-")
        with open(os.path.join(source, name), encoding="utf-8") as file:
            text = file.read()
        typed = page.replace("-", " ")
        text = re.sub(r"^\.Dt \S+", f".Dt {page.upper()}", text, count=1, flags=re.M)
        text = re.sub(r"^\.Nm .*$", f".Nm {page}", text, count=1, flags=re.M)
        if page != "discern":
            # Later bare .Nm lines repeat the first name: the synopsis shows the command as typed.
            text = re.sub(r"^\.Nm$", f'.Nm "{typed}"', text, flags=re.M)
        with open(os.path.join(target, page + ".1.gz"), "wb") as raw:
            with gzip.GzipFile(filename="", mode="wb", fileobj=raw, compresslevel=9, mtime=0) as packed:
                packed.write(text.encode("utf-8"))


if __name__ == "__main__":
    main()
