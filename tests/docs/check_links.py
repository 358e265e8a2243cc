#!/usr/bin/env python3
"""Checks the user documentation: README.md and every docs/*.md.

    python3 tests/docs/check_links.py [REPOSITORY_ROOT]      (default: two folders up from this file)

For each file:
  - every relative Markdown link and image target ([text](path), ![alt](path), [label]: path) must exist in
    the repository, relative to the file's own folder; a #anchor on a .md target (or a bare #anchor, for the
    file itself) must be a heading of that file, as GitHub names headings: lowercase, spaces to '-', every
    punctuation mark other than '-' and '_' dropped, repeated headings suffixed -1, -2, ...;
  - http(s):// and mailto: links are not checked;
  - links and headings inside fenced code blocks and inline code are ignored;
  - the text must not name anything outside the repository: no '../shared', no issue numbers
    ("issue 4", "Issue #12"), no 'seeds/'.
The text files under docs/results (commands, scripts, notes: .md, .txt, .sh, .py) are checked for the same
names outside the repository.
Prints every problem as FILE:LINE: what, then a one-line summary. Exit status 0 when there is none, 1 otherwise.
"""
import os
import re
import sys
from urllib.parse import unquote

FORBIDDEN = [
    (re.compile(r"\.\./shared"), "names a path outside the repository ('../shared')"),
    (re.compile(r"\bissue\s*#?\d", re.IGNORECASE), "refers to an issue number"),
    (re.compile(r"seeds/"), "names a seed file ('seeds/')"),
]

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
# [text](target) and ![alt](target), with an optional "title"; the target may be written <like this>.
INLINE_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*(<[^>]*>|[^()\s]+(?:\([^()\s]*\)[^()\s]*)*)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFERENCE_DEF = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*(<[^>]*>|\S+)")
HTML_TARGET = re.compile(r"""<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*["']([^"']+)["']""", re.IGNORECASE)
EXTERNAL = re.compile(r"^(?:https?:|mailto:)", re.IGNORECASE)


def doc_files(root):
    files = [os.path.join(root, "README.md")]
    docs = os.path.join(root, "docs")
    if os.path.isdir(docs):
        files += sorted(os.path.join(docs, name) for name in os.listdir(docs)
                        if name.endswith(".md") and os.path.isfile(os.path.join(docs, name)))
    return files


def result_text_files(root):
    """The text files under docs/results: checked for names outside the repository, not for links."""
    found = []
    for folder, _, names in os.walk(os.path.join(root, "docs", "results")):
        found += [os.path.join(folder, name) for name in names if name.endswith((".md", ".txt", ".sh", ".py"))]
    return sorted(found)


def forbidden_names(name, text):
    """Problems with names outside the repository, one per offending line."""
    return [f"{name}:{number}: {what}: {line.strip()}"
            for number, line in enumerate(text.splitlines(), 1)
            for pattern, what in FORBIDDEN if pattern.search(line)]


def outside_fences(text):
    """(line number, line) of the lines outside fenced code blocks."""
    in_fence = None
    for number, line in enumerate(text.splitlines(), 1):
        fence = FENCE.match(line)
        if fence:
            if in_fence is None:
                in_fence = fence.group(1)
            elif fence.group(1) == in_fence:
                in_fence = None
            continue
        if in_fence is None:
            yield number, line


def prose_lines(text):
    """(line number, line) outside fenced code blocks, with inline code blanked out."""
    for number, line in outside_fences(text):
        yield number, INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line)


def slug(heading):
    """GitHub's anchor for a heading's text."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.strip().lower()
    text = "".join(ch for ch in text if ch.isalnum() or ch in " -_")
    return text.replace(" ", "-")


_anchor_cache = {}


def anchors_of(path):
    if path not in _anchor_cache:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        seen = {}
        anchors = set()
        for _, line in outside_fences(text):  # headings keep their inline code: it is part of the slug
            match = HEADING.match(line)
            if not match:
                continue
            base = slug(match.group(2))
            count = seen.get(base, 0)
            seen[base] = count + 1
            anchors.add(base if count == 0 else f"{base}-{count}")
        _anchor_cache[path] = anchors
    return _anchor_cache[path]


def link_targets(line):
    for pattern in (INLINE_LINK, HTML_TARGET):
        for match in pattern.finditer(line):
            yield match.group(1)
    match = REFERENCE_DEF.match(line)
    if match:
        yield match.group(1)


def check_target(root, source, target):
    """A problem with one link target, or None."""
    if target.startswith("<") and target.endswith(">"):
        target = target[1:-1]
    if not target or EXTERNAL.match(target):
        return None
    if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
        return f"link '{target}': only relative links and http(s)/mailto are allowed"
    path_part, _, anchor = target.partition("#")
    path_part = unquote(path_part)
    if path_part.startswith("/"):
        return f"link '{target}': absolute path (use a path relative to the file)"
    resolved = os.path.normpath(os.path.join(os.path.dirname(source), path_part)) if path_part else source
    if os.path.relpath(resolved, root).startswith(".."):
        return f"link '{target}': points outside the repository"
    if not os.path.exists(resolved):
        return f"link '{target}': {os.path.relpath(resolved, root)} does not exist"
    if anchor and resolved.endswith(".md") and os.path.isfile(resolved):
        if unquote(anchor).lower() not in anchors_of(resolved):
            return f"link '{target}': no heading #{anchor} in {os.path.relpath(resolved, root)}"
    return None


def main():
    root = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                           os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
    problems = []
    links = 0
    files = doc_files(root)
    for path in files:
        name = os.path.relpath(path, root)
        if not os.path.isfile(path):
            problems.append(f"{name}: missing")
            continue
        with open(path, encoding="utf-8") as f:
            text = f.read()
        problems += forbidden_names(name, text)
        for number, line in prose_lines(text):
            for target in link_targets(line):
                links += 1
                problem = check_target(root, path, target)
                if problem:
                    problems.append(f"{name}:{number}: {problem}")
    results = result_text_files(root)
    for path in results:
        with open(path, encoding="utf-8") as f:
            problems += forbidden_names(os.path.relpath(path, root), f.read())
    files += results
    for problem in problems:
        print(problem)
    verdict = "FAILED" if problems else "ok"
    print(f"check_links: {verdict}: {len(files)} files, {links} links, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
