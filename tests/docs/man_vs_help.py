#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/docs/man_vs_help.py MANPAGE HELP COMMAND_HELP...

Print, one per line, what `jsym --help` (HELP, with `jsym COMMAND --help`
of every command in the COMMAND_HELP files) and the man page (troff
source) disagree on:

  command only in help: NAME    command only in man: NAME
  option only in help: --NAME   option only in man: --NAME

Commands: in the help, the words at the start of the lines under
"Commands:" (two blanks of indent); in the man page, the .SS headings of
the COMMANDS section.  Long options: every --word in the help texts; in
the man page every --word outside EXAMPLES and SEE ALSO (those quote other
programs' options, kubectl's --target for one).  Exit 0 when they agree.
"""
import re
import sys

LONG = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*)")


def help_facts(text, command_texts):
    cmds, in_cmds = set(), False
    for line in text.splitlines():
        if line.startswith("Commands:"):
            in_cmds = True
            continue
        if in_cmds:
            if line and not line.startswith(" "):
                break
            m = re.match(r"^  ([a-z]+)\b", line)
            if m:
                cmds.add(m.group(1))
    opts = set(LONG.findall(text))
    for t in command_texts:
        opts |= set(LONG.findall(t))
    return cmds, opts


def man_facts(src):
    # troff: \- is a minus, \fB \fR \fI fonts, \e a backslash
    text = src.replace("\\-", "-")
    text = re.sub(r"\\f[BIRP]", "", text)
    cmds, opts, section = set(), set(), ""
    for line in text.splitlines():
        if line.startswith('.\\"'):
            continue
        m = re.match(r"^\.SH\s+\"?([^\"]+)\"?", line)
        if m:
            section = m.group(1).strip()
            continue
        if section == "COMMANDS":
            m = re.match(r"^\.SS\s+\"?([a-z]+)\"?\s*$", line)
            if m:
                cmds.add(m.group(1))
        if section not in ("EXAMPLES", "SEE ALSO"):
            opts |= set(LONG.findall(line))
    return cmds, opts


def main():
    if len(sys.argv) < 4:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    texts = []
    for path in sys.argv[2:]:
        with open(path) as f:
            texts.append(f.read())
    with open(sys.argv[1]) as m:
        mc, mo = man_facts(m.read())
    hc, ho = help_facts(texts[0], texts[1:])
    diff = []
    diff += ["command only in help: " + c for c in sorted(hc - mc)]
    diff += ["command only in man: " + c for c in sorted(mc - hc)]
    diff += ["option only in help: --" + o for o in sorted(ho - mo)]
    diff += ["option only in man: --" + o for o in sorted(mo - ho)]
    print("\n".join(diff))
    print("help: %d commands, %d long options; man: %d commands, %d long options"
          % (len(hc), len(ho), len(mc), len(mo)), file=sys.stderr)
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
