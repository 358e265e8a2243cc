#!/usr/bin/env python3
"""Checks that docs/design.md describes the folders of libredux/src as they are.

    python3 tests/docs/check_layout.py [REPOSITORY_ROOT]      (default: two folders up from this file)

  - "## Layout": its first fenced code block names, at the start of a line, every folder under libredux/src
    (subfolders too: libredux/src/plan/trees/), and every libredux/src/... folder it names exists;
  - "### Which folder includes which": its first fenced code block has a line "<folder> -> ..." for every folder
    directly under libredux/src, and every folder it names on either side exists there (names with a '.', such
    as redux.h, are headers, and "(nothing of libredux)" names nothing).
Prints every problem as FILE:LINE: what, then a one-line summary. Exit status 0 when there is none, 1 otherwise.
"""
import os
import re
import sys

DESIGN = os.path.join("docs", "design.md")
SOURCES = os.path.join("libredux", "src")
FENCE = re.compile(r"^\s*(```|~~~)")


def first_code_block(lines, heading):
    """(line number, text) of each line of the first fenced code block after `heading`; None without one."""
    try:
        start = next(i for i, line in enumerate(lines) if line.rstrip() == heading)
    except StopIteration:
        return None
    block, inside = [], False
    for number in range(start + 1, len(lines)):
        line = lines[number]
        if line.startswith("#") and not inside:
            return None  # the next heading came first
        if FENCE.match(line):
            if inside:
                return block
            inside = True
            continue
        if inside:
            block.append((number + 1, line))
    return None


def source_folders(root):
    """Every folder under libredux/src, as 'libredux/src/plan/trees', sorted."""
    base = os.path.join(root, SOURCES)
    found = []
    for folder, names, _ in os.walk(base):
        names.sort()
        found += [os.path.relpath(os.path.join(folder, name), root).replace(os.sep, "/") for name in names]
    return sorted(found)


def check_layout(root, lines, problems):
    block = first_code_block(lines, "## Layout")
    if block is None:
        problems.append(f"{DESIGN}: no code block after '## Layout'")
        return
    named = {}
    for number, line in block:
        token = line.split()[0] if line and not line[0].isspace() else ""
        if token.startswith(SOURCES.replace(os.sep, "/") + "/"):
            named.setdefault(token.rstrip("/"), number)
    for folder, number in sorted(named.items(), key=lambda item: item[1]):
        if not os.path.isdir(os.path.join(root, folder)):
            problems.append(f"{DESIGN}:{number}: the layout names {folder}/, which does not exist")
    for folder in source_folders(root):
        if folder not in named:
            problems.append(f"{DESIGN}: the layout does not name {folder}/")


def check_includes(root, lines, problems):
    block = first_code_block(lines, "### Which folder includes which")
    if block is None:
        problems.append(f"{DESIGN}: no code block after '### Which folder includes which'")
        return
    top = {name for name in os.listdir(os.path.join(root, SOURCES))
           if os.path.isdir(os.path.join(root, SOURCES, name))}
    left = set()
    for number, line in block:
        if "->" not in line:
            continue
        source, targets = (part.strip() for part in line.split("->", 1))
        left.add(source)
        names = [source] + [name.strip() for name in targets.split(",")]
        for name in names:
            if not name or "." in name or name.startswith("("):
                continue
            if name not in top:
                problems.append(f"{DESIGN}:{number}: names the folder {name}, which is not under {SOURCES}")
    for name in sorted(top - left):
        problems.append(f"{DESIGN}: 'Which folder includes which' has no line for {name}")


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    with open(os.path.join(root, DESIGN), encoding="utf-8") as f:
        lines = f.read().splitlines()
    problems = []
    check_layout(root, lines, problems)
    check_includes(root, lines, problems)
    summary = (f"check_layout: {'FAILED' if problems else 'ok'}: {len(source_folders(root))} folders under "
               f"{SOURCES}, {len(problems)} problems")
    print("\n".join(problems + [summary]))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
