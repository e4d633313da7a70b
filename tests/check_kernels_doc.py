#!/usr/bin/env python3
"""docs/kernels.md against the registry: the table between the markers of ARCH must be what
`qmatmul info --families --markdown` prints for this build.

usage: check_kernels_doc.py DOC ARCH QMATMUL [ARGS...]      (exit 1 naming the first difference)
       check_kernels_doc.py DOC ARCH QMATMUL [ARGS...] --write   (rewrites that table)
QMATMUL [ARGS...] is the command (with an emulator in front for a cross build).
"""
import subprocess
import sys


def main():
    argv = sys.argv[1:]
    write = "--write" in argv
    argv = [a for a in argv if a != "--write"]
    doc, arch, cmd = argv[0], argv[1], argv[2:]
    table = subprocess.run(cmd + ["info", "--families", "--markdown"], check=True, capture_output=True,
                           text=True).stdout
    begin, end = f"<!-- begin families {arch} -->\n", f"<!-- end families {arch} -->\n"
    text = open(doc, encoding="utf-8").read()
    if begin not in text or end not in text:
        print(f"check_kernels_doc: {doc} has no {begin.strip()} ... {end.strip()} section")
        return 1
    head, rest = text.split(begin, 1)
    old, tail = rest.split(end, 1)
    if write:
        open(doc, "w", encoding="utf-8").write(head + begin + table + end + tail)
        print(f"check_kernels_doc: {doc}: {arch} table rewritten ({table.count(chr(10)) - 2} families)")
        return 0
    if old == table:
        print(f"check_kernels_doc: {doc} lists the {table.count(chr(10)) - 2} families of the {arch} build")
        return 0
    a, b = old.splitlines(), table.splitlines()
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "(nothing)"
        y = b[i] if i < len(b) else "(nothing)"
        if x != y:
            print(f"check_kernels_doc: {doc} ({arch}) line {i + 1} of the table says\n  {x}\nthe registry says\n  {y}\n"
                  f"regenerate: tests/check_kernels_doc.py {doc} {arch} <qmatmul> --write")
            return 1
    return 1


if __name__ == "__main__":
    sys.exit(main())
