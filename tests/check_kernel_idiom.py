#!/usr/bin/env python3
"""The one kernel idiom of src/ (docs/ARCHITECTURE.md, "Writing a kernel"), as far as a scan can tell.

usage: check_kernel_idiom.py REPO_ROOT      (exit 1 listing each offence)

- No name is built by token pasting: no `##` in code under src/ (comments and strings aside), so that
  every function, type and descriptor has a name one can grep for.
- No template body: no file under src/ #defines a macro that a header it then #includes uses
  without defining (a body configured by its includer's macros, what the idiom replaced: the
  weight kind is a constant argument of static inline functions instead).
"""
import os
import re
import sys

COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
STRING = re.compile(r'"(?:\\.|[^"\\\n])*"')


def code_of(text):
    # comments blanked, newlines kept so line numbers hold
    return COMMENT.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), text)


DEFINE = re.compile(r"^\s*#\s*define\s+(\w+)", re.M)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def main():
    root = sys.argv[1]
    src = os.path.join(root, "src")
    codes = {}
    for top, _, files in os.walk(src):
        for name in sorted(files):
            if name.endswith((".c", ".h")):
                path = os.path.join(top, name)
                with open(path, encoding="utf-8") as f:
                    codes[os.path.relpath(path, src)] = code_of(f.read())
    bad = []
    for rel, code in sorted(codes.items()):
        defined = []
        for i, line in enumerate(code.split("\n"), 1):
            if "##" in STRING.sub("", line):
                bad.append(f"src/{rel}:{i}: token pasting (##)")
            m = DEFINE.match(line)
            if m:
                defined.append(m.group(1))
            m = INCLUDE.match(line)
            if m and m.group(1) in codes:
                header = codes[m.group(1)]
                used = [d for d in defined if re.search(r"\b%s\b" % d, header)]
                if used:
                    bad.append(f"src/{rel}:{i}: {m.group(1)} is configured by macros defined before it: {', '.join(used)}")
    for b in bad:
        print(b)
    print(f"check_kernel_idiom: {len(bad)} offence(s)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
