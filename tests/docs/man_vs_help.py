#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/docs/man_vs_help.py MANPAGE HELP COMMAND_HELP...

Print, one per line, what `jsym --help` (HELP, with `jsym COMMAND --help`
of every command in the COMMAND_HELP files) and the man page (troff
source) disagree on:

  command only in help: NAME    command only in man: NAME
  option only in help: --NAME   option only in man: --NAME
  letter only in help: -X --NAME   letter only in man: -X --NAME
  letter -X means --A and --B   (in any command: one letter, one option)
  option --NAME has letters -X and -Y

Commands: in the help, the words at the start of the lines under
"Commands:" (two blanks of indent); in the man page, the .SS headings of
the COMMANDS section.  Long options: every --word in the help texts; in
the man page every --word outside EXAMPLES and SEE ALSO (those quote other
programs' options, kubectl's --target for one).  Short letters: every
"-X, --NAME" pair (in the man page once troff's fonts are gone), across
all commands: a letter means
one long option everywhere and a long option has one letter.  Exit 0 when
they agree.
"""
import re
import sys

LONG = re.compile(r"(?<![\w-])--([a-z][a-z0-9-]*)")
PAIR = re.compile(r"(?:^|\s)-([A-Za-z]), --([a-z][a-z0-9-]*)")


def pairs(lines):
    return {m.groups() for line in lines for m in PAIR.finditer(line)}


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
    letters = pairs(text.splitlines())
    for t in command_texts:
        opts |= set(LONG.findall(t))
        letters |= pairs(t.splitlines())
    return cmds, opts, letters


def man_facts(src):
    # troff: \- is a minus, \fB \fR \fI fonts, \e a backslash
    text = src.replace("\\-", "-")
    text = re.sub(r"\\f[BIRP]", "", text)
    cmds, opts, section, lines = set(), set(), "", []
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
            lines.append(line)
    return cmds, opts, pairs(lines)


def letter_clashes(letters):
    out = []
    by_letter, by_long = {}, {}
    for short, long_ in letters:
        by_letter.setdefault(short, set()).add(long_)
        by_long.setdefault(long_, set()).add(short)
    for short, longs in sorted(by_letter.items()):
        if len(longs) > 1:
            out.append("letter -%s means %s" % (short, " and ".join(
                "--" + x for x in sorted(longs))))
    for long_, shorts in sorted(by_long.items()):
        if len(shorts) > 1:
            out.append("option --%s has letters %s" % (long_, " and ".join(
                "-" + x for x in sorted(shorts))))
    return out


def main():
    if len(sys.argv) < 4:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    texts = []
    for path in sys.argv[2:]:
        with open(path) as f:
            texts.append(f.read())
    with open(sys.argv[1]) as m:
        mc, mo, ml = man_facts(m.read())
    hc, ho, hl = help_facts(texts[0], texts[1:])
    diff = []
    diff += ["command only in help: " + c for c in sorted(hc - mc)]
    diff += ["command only in man: " + c for c in sorted(mc - hc)]
    diff += ["option only in help: --" + o for o in sorted(ho - mo)]
    diff += ["option only in man: --" + o for o in sorted(mo - ho)]
    diff += ["letter only in help: -%s --%s" % p for p in sorted(hl - ml)]
    diff += ["letter only in man: -%s --%s" % p for p in sorted(ml - hl)]
    diff += letter_clashes(hl | ml)
    print("\n".join(diff))
    print("help: %d commands, %d long options, %d letters; man: %d commands, "
          "%d long options, %d letters" % (len(hc), len(ho), len(hl), len(mc),
                                          len(mo), len(ml)), file=sys.stderr)
    return 1 if diff else 0


if __name__ == "__main__":
    sys.exit(main())
