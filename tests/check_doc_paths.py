#!/usr/bin/env python3
"""Every repository path a document names (in backticks, or as a relative link) must exist.

usage: check_doc_paths.py REPO_ROOT FILE.md [FILE.md ...]      (exit 1 listing each missing path)

A backticked token (inline code, outside fenced blocks) is taken for a path when it contains a '/' or
ends in a source or document extension (.c .h .py .sh .md .cmake ...), and is skipped when it is no
literal path of this repository:
  - a pattern or placeholder: it holds a space, '<', '*', '$', '{', '...', '=' or ':' (after an optional
    trailing ':LINE' or '#anchor', which is dropped);
  - outside the tree: a URL, or it starts with '/', '~' or '-' (an absolute or home path, an option);
    install destinations are written under their placeholder (`<prefix>/lib/ggml/`), so they are skipped;
  - a kind of file, not a file: an extension alone (`.c`, `.md`).
A token with a '/' resolves against REPO_ROOT (a trailing '/' asks for a directory). A bare file name
(no '/') passes when some file of `git ls-files` (tracked, or untracked and not ignored) has that name;
without git, when some file under REPO_ROOT has it.
Relative markdown link targets, [text](target), must exist too, resolved against the document's folder.
"""
import os
import re
import subprocess
import sys

EXTENSIONS = (".c", ".h", ".py", ".sh", ".md", ".cmake", ".txt", ".in", ".json", ".svg", ".yml", ".yaml", ".toml")
SKIP_CHARS = (" ", "\t", "<", ">", "*", "$", "{", "}", "...", "=", ":", "|", "(", ")", ",", ";", "'", '"')
INLINE = re.compile(r"(`+)(.+?)\1")
FENCE = re.compile(r"^\s*(```|~~~)")
SUFFIX = re.compile(r"(:\d+(:\d+)?|#[\w.-]*)$")
LINK = re.compile(r"\]\(([^()\s]+)\)")


def candidates(path, root):
    """(line number, token, exact) of the backticked tokens of a markdown file that look like paths, and of its
    relative link targets (exact: as paths from root, never looked up by name)."""
    in_fence = False
    with open(path, encoding="utf-8") as f:
        for no, line in enumerate(f, 1):
            if FENCE.match(line):
                in_fence = not in_fence
                continue
            if in_fence:
                continue
            for m in LINK.finditer(INLINE.sub("", line)):
                target = m.group(1).split("#", 1)[0]
                if target and "://" not in target and not target.startswith("mailto:"):
                    full = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), target))
                    yield no, os.path.relpath(full, os.path.abspath(root)) + ("/" if target.endswith("/") else ""), True
            for m in INLINE.finditer(line):
                token = SUFFIX.sub("", m.group(2).strip())
                if not token or "://" in token or token[0] in "/~-" or token in EXTENSIONS:
                    continue
                if any(c in token for c in SKIP_CHARS):
                    continue
                if "/" in token or token.endswith(EXTENSIONS):
                    yield no, token, False


def repo_names(root):
    """Base names of the repository's files: git's view, else the tree's."""
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"],
                             check=True, capture_output=True, text=True).stdout
        return {os.path.basename(p) for p in out.splitlines() if os.path.exists(os.path.join(root, p))}
    except (OSError, subprocess.CalledProcessError):
        names = set()
        for _, dirs, files in os.walk(root):
            dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
            names.update(files)
        return names


def exists(root, token, names, exact):
    if "/" not in token and not exact:
        return token in names
    full = os.path.join(root, token)
    return os.path.isdir(full) if token.endswith("/") else os.path.exists(full)


def main():
    if len(sys.argv) < 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    root, docs = sys.argv[1], sys.argv[2:]
    names = repo_names(root)
    missing = checked = 0
    for doc in docs:
        for no, token, exact in candidates(doc, root):
            checked += 1
            if not exists(root, token, names, exact):
                missing += 1
                name = os.path.relpath(doc, root)
                print(f"{doc if name.startswith('..') else name}:{no}: `{token}` is not in the repository")
    if missing:
        print(f"check_doc_paths: {missing} of {checked} named paths missing (fix the document, or the path)")
        return 1
    print(f"check_doc_paths: the {checked} paths named in {len(docs)} files exist")
    return 0


if __name__ == "__main__":
    sys.exit(main())
