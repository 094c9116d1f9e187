#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/docs/doc_commands.py FILE...

Print every command shown in the Markdown FILEs' code blocks (fenced, or
indented by four blanks) that starts with `jsym `, `make `, `perf ` or
`kubectl `, one per line: FILE:LINE<TAB>KIND<TAB>COMMAND.  A pipeline or a
`&&`/`;` list gives each of its commands.  Trailing `# comments` are
dropped, except the marker `# docs-test: needs-kubernetes`, which is kept
as KIND `k8s`.  Lines with placeholders (`[`, `...`, `<`, an upper-case word) are
synopses, not commands: KIND `synopsis`.  tests/integration/63-docs-commands.sh
runs them.
"""
import re
import sys

PREFIXES = ("jsym", "make", "perf", "kubectl")
MARK = "# docs-test: needs-kubernetes"


def blocks(lines):
    """(lineno, text) of every code line, continuation lines joined."""
    fenced, prev_blank = False, True
    out = []
    for n, raw in enumerate(lines, 1):
        if raw.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if fenced:
            out.append((n, raw.strip()))
        elif raw.startswith("    ") and (prev_blank or (out and out[-1][0] == n - 1)):
            out.append((n, raw.strip()))
        prev_blank = raw.strip() == ""
    joined = []
    for n, t in out:
        if joined and joined[-1][1].endswith("\\"):
            joined[-1] = (joined[-1][0], joined[-1][1][:-1] + " " + t)
        else:
            joined.append((n, t))
    return joined


def commands(text):
    marked = MARK in text
    text = text.replace(MARK, "")
    text = re.sub(r"\s#\s.*$", "", text).strip()
    for part in re.split(r"\s*(?:\|\||&&|\||;)\s*", text):
        words = part.split()
        if words and words[0] in PREFIXES:
            yield part, marked


def main():
    for path in sys.argv[1:]:
        with open(path) as f:
            lines = f.read().splitlines()
        for n, text in blocks(lines):
            bare = re.sub(r"(^|\s)#.*$", "", text)
            synopsis = re.search(r"\[|\.\.\.|<|(?<![\w.])[A-Z]{2,}(?![\w.])", bare)
            for cmd, marked in commands(text):
                if marked:
                    kind = "k8s"
                elif synopsis:
                    kind = "synopsis"
                else:
                    kind = cmd.split()[0]
                print("%s:%d\t%s\t%s" % (path, n, kind, cmd))
    return 0


if __name__ == "__main__":
    sys.exit(main())
