# SPDX-License-Identifier: Apache-2.0
"""audit_judge.py - the verdicts of the open audit (95-audit-opens.sh).

    audit_judge.py discover DIR
        from DIR/events.clean (audit_trace.py records of the clean round)
        print "TARGET<TAB>PATH<TAB>plant|skip<TAB>WHY" per path jsym reached
        in a target's root
    audit_judge.py judge DIR KIND[:PASS]...
        for each trap round: DIR/planted.ID ("TARGET PATH KIND planted",
        "... planted dir" for a trapped directory: a call on any path
        below it is judged as one on it),
        DIR/events.ID and DIR/runs.ID (one JSON per command: label,
        rc, hang, stuck); print "ok<TAB>TEXT" or "FAIL<TAB>TEXT" lines
        and, last, the table of paths, flags and verdicts ("table<TAB>...")

A trap is opened when a jsym process calls open/openat/openat2 on it
without O_PATH and the call returned a descriptor, never returned, or
failed for another reason than these, which say the file was not
opened: ELOOP (O_NOFOLLOW met the symlink), EEXIST (O_EXCL), ENOENT,
ENOTDIR, EXDEV (RESOLVE_IN_ROOT refused a way out), ENXIO is not one of
them (a FIFO opened for writing with no reader was reached).  A symlink
trap is followed out of the root when a call that follows it, from a
process whose root is the host's, succeeded, or a descriptor names the
canary.  Any command past its limit is a hang, any process left in D
state is stuck: both fail, named by command and trap.  An open by the
container's own program that jsym runs with the JVM's credentials (the
probe under the container's loader) is listed as a note, not failed.
"""
import json
import os
import re
import sys

OPEN_CALLS = {"open", "openat", "openat2", "creat"}
NOT_OPENED = {"ELOOP", "EEXIST", "ENOENT", "ENOTDIR", "EXDEV"}
KERNEL_FS = ("/proc/", "/sys/", "/dev/")


def load(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def per_run_name(e):
    """A name with jsym's own pid in it is made fresh by every run."""
    pids = {str(e["pid"])}
    return any(re.search(r"(^|[^0-9])%s([^0-9]|$)" % p, os.path.basename(e["path"]))
               for p in pids) or re.search(r"\.jsym-[0-9]+-[0-9a-f]+\.tmp$", e["path"])


def discover(d):
    seen = {}
    for e in load(os.path.join(d, "events.clean")):
        if "escape" in e:
            continue
        key = (e["target"], e["path"])
        why = seen.get(key)
        if e["path"] == "/":
            why = "skip\tthe root itself"
        elif e["path"].startswith(KERNEL_FS):
            why = "skip\ta kernel file system inside the target"
        elif per_run_name(e):
            why = "skip\ta fresh name per run (jsym's pid in it)"
        elif why is None:
            why = "plant\t"
        seen[key] = why
    for (t, p), why in sorted(seen.items()):
        print("%s\t%s\t%s" % (t, p, why))
    return 0


def short_flags(e):
    f = e["flags"]
    f = re.sub(r"^\{flags=", "", f)
    f = f.replace("resolve=", "")
    f = re.sub(r"O_CLOEXEC\|?|\|?O_CLOEXEC|RESOLVE_NO_MAGICLINKS\|?", "", f)
    f = re.sub(r"\}.*$", "", f)
    f = re.sub(r", (0[0-7]+)$", r" \1", f)
    return "%s(%s)" % (e["call"], f.strip(", "))


def by_whom(e):
    """Who made the call, when it is not jsym itself (the probe jsym runs
    under the container's own loader, for one)."""
    exe = os.path.basename(e.get("exe", ""))
    return "" if exe in ("jsym", "") else " (in %s, exec'd by jsym)" % exe


def confined(e):
    """An open made by the container's own program (its loader running
    jsym-probe) after jsym gave that process the JVM's credentials: it
    can open no more than the container's user could, under jsym's
    deadline (58-deploy-probe-confined).  Reported, not failed; a hang
    there still fails."""
    return bool(by_whom(e)) and (e.get("uid", 0) != 0 or e.get("nocaps"))


def err_of(e):
    return e.get("err", "")


def opened(e):
    if e["call"] not in OPEN_CALLS or e["opath"]:
        return False
    if e["ret"] == "?" or not e["ret"].startswith("-"):
        return True
    return err_of(e) not in NOT_OPENED


def judge(d, kinds):
    clean = [e for e in load(os.path.join(d, "events.clean")) if "escape" not in e]
    flags = {}
    for e in clean:
        if e["call"] in OPEN_CALLS:
            flags.setdefault((e["target"], e["path"]), set()).add(short_flags(e))
    verdict = {}
    fails = 0
    ids, kinds = kinds, []
    for kid in ids:
        kind = kid.split(":")[0]
        if kind not in kinds:
            kinds.append(kind)
        planted = set()
        planted_dirs = set()
        pf = os.path.join(d, "planted." + kid)
        if os.path.exists(pf):
            for line in open(pf):
                w = line.split()
                if len(w) >= 4 and w[3] == "planted":
                    planted.add((w[0], w[1]))
                    if len(w) >= 5 and w[4] == "dir":
                        planted_dirs.add((w[0], w[1]))
                elif len(w) >= 4:
                    verdict[(w[0], w[1], kind)] = "not planted (%s)" % " ".join(w[4:] or w[3:4])
        for key in planted:
            verdict[key + (kind,)] = "not reached"
        events = load(os.path.join(d, "events." + kid))
        for e in events:
            if "escape" in e:
                print("FAIL\t%s trap, %s: a descriptor left the root: %s (%s)" %
                      (kind, e["label"], e["escape"], e["call"]))
                fails += 1
                continue
            key = (e["target"], e["path"])
            if key not in planted:
                # a path below a trapped directory counts for that trap
                below = sorted(k for k in planted_dirs if k[0] == key[0] and
                               key[1].startswith(k[1].rstrip("/") + "/"))
                if not below:
                    continue
                key = below[-1]
            k3 = key + (kind,)
            if opened(e) and confined(e):
                what = "loader: %s = %s%s by %s%s as uid %d%s" % (
                    short_flags(e), e["ret"], " " + err_of(e) if err_of(e) else "",
                    e["label"], by_whom(e), e["uid"], ", no capabilities" if e["nocaps"] else "")
                if verdict[k3] in ("not reached",) or verdict[k3].startswith("ok"):
                    print("note\t%s trap at %s:%s opened by the container's own code, "
                          "confined: %s" % (kind, key[0], key[1], what))
                    verdict[k3] = what
            elif opened(e):
                what = "OPENED %s = %s%s by %s%s" % (short_flags(e), e["ret"],
                                                     " " + err_of(e) if err_of(e) else "",
                                                     e["label"], by_whom(e))
                if not verdict[k3].startswith("OPENED"):
                    print("FAIL\t%s trap at %s:%s opened: %s" % (kind, key[0], key[1], what))
                    fails += 1
                    verdict[k3] = what
            elif kind == "symlink" and e["follow"] and e["hostroot"] and e["ret"] != "?" \
                    and not e["ret"].startswith("-"):
                what = "FOLLOWED out by %s %s" % (e["label"], short_flags(e))
                if not verdict[k3].startswith(("OPENED", "FOLLOWED")):
                    print("FAIL\t%s trap at %s:%s %s" % (kind, key[0], key[1], what))
                    fails += 1
                    verdict[k3] = what
            elif verdict[k3] == "not reached":
                verdict[k3] = "ok: O_PATH/stat only" if e["opath"] else \
                    "ok: refused (%s)" % (err_of(e) or e["ret"])
        for r in load(os.path.join(d, "runs." + kid)):
            if r["hang"]:
                blocked = ["%s %s:%s%s" % (short_flags(e), e["target"], e["path"], by_whom(e))
                           for e in events if e.get("label") == r["label"] and e.get("ret") == "?"]
                print("FAIL\t%s trap: %s did not end within its limit (%.0f s): hang, %s" %
                      (kid, r["label"], r["secs"],
                       "blocked in " + "; ".join(blocked) if blocked else
                       "blocked outside any open in a target's root"))
                fails += 1
                for key in planted:
                    if verdict[key + (kind,)] == "not reached":
                        verdict[key + (kind,)] = "not reached (hang before)"
            if r.get("left"):
                print("note\t%s trap: %s ended in %.1f s and left behind, on purpose, "
                      "children the kernel held (freed by the audit): %s" %
                      (kid, r["label"], r["secs"], " ".join(r["left"])))
            if r["stuck"]:
                print("FAIL\t%s trap: %s left processes in D state: %s" %
                      (kid, r["label"], " ".join(r["stuck"])))
                fails += 1
    if not fails:
        print("ok\tno trap opened, followed out or hung over %s" % ", ".join(ids))
    # one line per path: a short verdict per trap, then how the clean
    # round opened it; the long verdicts (what opened it, as whom) are the
    # FAIL and note lines above
    print("table\t%-68s %s  %s" % ("TARGET:PATH", " ".join("%-8s" % k for k in kinds),
                                   "CLEAN ROUND'S CALLS"))
    for (t, p) in sorted({(k[0], k[1]) for k in verdict} | set(flags)):
        cells = " ".join("%-8s" % code(verdict.get((t, p, k), "")) for k in kinds)
        print("table\t%-68s %s  %s" % ("%s:%s" % (t, p), cells,
                                       " ".join(sorted(flags.get((t, p), {"stat only"})))))
    print("table\tO_PATH: reached as O_PATH/stat only; EEXIST..: refused with that error; "
          "-: not reached; dir: a directory, no trap; OPENED, FOLLOWED, note: see above")
    return 0


def code(v):
    if v.startswith("ok: O_PATH"):
        return "O_PATH"
    if v.startswith("ok: refused"):
        return v[v.find("(") + 1:v.find(")")]
    if v.startswith("not planted (directory"):
        return "dir"
    if v.startswith("not planted"):
        return "unplant."
    if v.startswith("not reached (hang"):
        return "-(hang)"
    if v.startswith(("not reached", "")) and not v.startswith(("OPENED", "FOLLOWED", "loader")):
        return "-"
    return {"OPENED": "OPENED", "FOLLOWE": "FOLLOWED", "loader:": "note"}.get(v[:7], v[:8])


def main():
    a = sys.argv[1:]
    if len(a) == 2 and a[0] == "discover":
        return discover(a[1])
    if len(a) >= 3 and a[0] == "judge":
        return judge(a[1], a[2:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
