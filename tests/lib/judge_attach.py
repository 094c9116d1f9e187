#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""tests/lib/judge_attach.py JSON BUILD LOADER-ERE [FIELD=VALUE...]

The verdict on one `jsym attach --json` outcome that copied the agent into
a container, shared by the deploy scenarios: ok, the BUILD (glibc or musl)
chosen and copied, the probe run under a loader matching LOADER-ERE, that
build loaded by it and the probe's libc of that kind.  Each FIELD=VALUE adds
one exact comparison: FIELD of the outcome (exit=0, nspid=1, jvm=OpenJ9,
jvm_libc=glibc, uid=1000) or, as probe.FIELD, of its probe (probe.libc=glibc
2.31).  Prints the facts it judged on one line; exit 0 when all hold, 1 when
one does not (each failing check is named on stderr), 2 on bad arguments.
"""
import json
import re
import sys


def main(argv):
    if len(argv) < 4:
        print(__doc__.strip().splitlines()[0], file=sys.stderr)
        return 2
    try:
        d = json.loads(argv[1])
    except ValueError:
        print("judge_attach: not one JSON object: %r" % argv[1][:200], file=sys.stderr)
        return 1
    build, loader = argv[2], argv[3]
    p = d.get("probe") or {}
    checks = [
        ("ok", bool(d.get("ok"))),
        ("build " + build, d.get("build") == build),
        ("copied", d.get("delivery") == "copied"),
        ("loader /%s/" % loader, bool(re.search(loader, p.get("loader", "")))),
        ("the probe loaded the build", bool(p.get(build, {}).get("loads"))),
        ("probe libc %s" % build, p.get("libc", "").startswith(build)),
    ]
    for want in argv[4:]:
        field, _, value = want.partition("=")
        src, key = (p, field[len("probe."):]) if field.startswith("probe.") else (d, field)
        checks.append((want, str(src.get(key)) == value))
    print(json.dumps({k: d.get(k) for k in ("jvm", "jvm_libc", "build", "delivery", "path")}),
          json.dumps(p))
    for name, held in checks:
        if not held:
            print("judge_attach: not " + name, file=sys.stderr)
    return 0 if all(held for _, held in checks) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
