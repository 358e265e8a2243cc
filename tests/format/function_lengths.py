#!/usr/bin/env python3
"""Prints the functions of C and C++ files longer than a limit: each function's body, from the line of its opening
brace to the line of its closing one. Comments, strings and character literals are set aside first; a block is a
function's body when it is not inside another function and what precedes its brace is neither a namespace, a
linkage block, a class (struct, union, enum) nor an initializer (=).
    function_lengths.py LIMIT FILE...
Exit status 1 when a function is over LIMIT lines."""
import re
import sys


def code_only(text):
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'":
            j = i + 1
            while j < n and text[j] != c:
                j += 2 if text[j] == "\\" else 1
            out.append(c + re.sub(r"[^\n]", " ", text[i + 1:j]) + c)
            i = j + 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


NOT_A_FUNCTION = re.compile(r"^(template\s*<.*>\s*)?(namespace\b|extern\s*\"|struct\b|class\b|union\b|enum\b)|=\s*$", re.S)


def functions(text):
    """(name, first line, lines) of each function body in text."""
    code = code_only(text)
    stack = []  # per open brace: whether it is a function body, or inside one
    header_start = 0
    line = 1
    found = []
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            header = code[header_start:i].strip()
            inside = any(kind for kind, _, _ in stack)
            # preprocessor lines are not part of a header
            header = "\n".join(l for l in header.split("\n") if not l.strip().startswith("#")).strip()
            is_function = not inside and "(" in header and not NOT_A_FUNCTION.search(header)
            stack.append((is_function or inside, is_function, (header, line)))
            header_start = i + 1
        elif c == "}":
            if stack:
                _, is_function, (header, start) = stack.pop()
                if is_function:
                    name = header.split("(")[0].split()[-1] if header.split("(")[0].split() else header[:40]
                    found.append((name, start, line - start + 1))
            header_start = i + 1
        elif c == ";":
            header_start = i + 1
    return found


def main():
    limit = int(sys.argv[1])
    status = 0
    for path in sys.argv[2:]:
        with open(path, encoding="utf-8") as f:
            for name, start, lines in functions(f.read()):
                if lines > limit:
                    print(f"{path}:{start}: {name} is {lines} lines (at most {limit})")
                    status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
