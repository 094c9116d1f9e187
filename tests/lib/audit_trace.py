# SPDX-License-Identifier: Apache-2.0
"""audit_trace.py - what did jsym open in a target's root?  (strace -f -yy)

    audit_trace.py scan TRACE LABEL PIDMAP [CANARY]

Reads one `strace -f -yy -s 4096` log of a jsym command and prints one JSON
object per line for every path call of a jsym process (the process that
exec'd .../jsym and all it forked) that lands in a target's root:

    {"label", "target", "path", "call", "flags", "ret", "err", "opath",
     "follow", "hostroot", "pid", "exe", "uid", "nocaps"}

PIDMAP names the targets as jsym sees them: "2907=jvm,2383=emu" from the
host, "1=jvm" from a sidecar.  A path lands in a root when, in the host's
view, it is /proc/N/root/..., or /proc/N/cwd/... (N a target), or relative
to a descriptor that is one of those, or absolute in a process whose root
moved there (setns into N's mount namespace, chroot into N's root fd).
The model follows descriptors (open results, dup, /proc/self/fd/N
reopens, fchdir, clone with or without CLONE_FILES/CLONE_FS), so the
path is the one the kernel resolved, not a guess from the text.

"ret" is the return value ("?" for a call that never returned: still
blocked when jsym was killed).  "opath" says O_PATH; "follow" says the
last component may be followed when it is a symlink (no O_NOFOLLOW, no
AT_SYMLINK_NOFOLLOW, no RESOLVE_NO_SYMLINKS); "hostroot" says an
absolute symlink would resolve against the host's root (the process's
root is the host's and the call is not openat2 RESOLVE_IN_ROOT); "uid"
and "nocaps" are the credentials the process gave itself (set*uid,
capset) before the call.  CANARY
(a file name) adds {"escape": ...} records for every descriptor whose
-yy path names it: a symlink followed out of the root.
"""
import json
import re
import sys

OPEN_CALLS = {"open", "openat", "openat2", "creat"}
STAT_CALLS = {"newfstatat", "statx", "stat", "lstat", "access", "faccessat",
              "faccessat2", "readlinkat", "readlink", "fstatat64"}
CLONE_CALLS = {"clone", "clone3", "fork", "vfork"}

LINE = re.compile(r"^(\d+)\s+(.*)$")
CALL = re.compile(r"^([a-z0-9_]+)\((.*)$", re.S)
QSTR = re.compile(r'"((?:[^"\\]|\\.)*)"(\.\.\.)?')
FDTOK = re.compile(r"^(AT_FDCWD|-?\d+)(<[^>]*>)?")


def unescape(s):
    """Undo strace's C escapes of a path string."""
    out = bytearray()
    i = 0
    b = s.encode("utf-8", "surrogateescape")
    while i < len(b):
        c = b[i]
        if c == 0x5C and i + 1 < len(b):
            n = chr(b[i + 1])
            if n == "x":
                out.append(int(b[i + 2:i + 4], 16))
                i += 4
                continue
            if n in "01234567":
                j = i + 1
                while j < len(b) and j < i + 4 and chr(b[j]) in "01234567":
                    j += 1
                out.append(int(b[i + 1:j], 8))
                i = j
                continue
            out.append({"n": 10, "t": 9, "r": 13, "v": 11, "f": 12}.get(n, ord(n)))
            i += 2
            continue
        out.append(c)
        i += 1
    return out.decode("utf-8", "surrogateescape")


def norm(p):
    parts = []
    for c in p.split("/"):
        if c in ("", "."):
            continue
        if c == "..":
            if parts:
                parts.pop()
            continue
        parts.append(c)
    return "/" + "/".join(parts)


class Proc:
    def __init__(self, pid):
        self.pid = pid
        self.fds = {}
        self.fs = {"root": "", "cwd": None}
        self.jsym = False
        self.exe = ""
        self.uid = 0            # the uid set by a set*uid call, if any
        self.nocaps = False     # capset emptied its capabilities


class Model:
    def __init__(self, label, pidmap, canary):
        self.label = label
        self.pidmap = pidmap
        self.canary = canary
        self.procs = {}
        self.parent = {}
        self.events = []

    def proc(self, pid):
        p = self.procs.get(pid)
        if p:
            return p
        p = Proc(pid)
        par = self.procs.get(self.parent.get(pid, (None, ""))[0])
        if par:
            flags = self.parent[pid][1]
            p.fds = par.fds if "CLONE_FILES" in flags else dict(par.fds)
            p.fs = par.fs if "CLONE_FS" in flags else dict(par.fs)
            p.jsym = par.jsym
            p.exe = par.exe
            p.uid = par.uid
            p.nocaps = par.nocaps
        self.procs[pid] = p
        return p

    # -- descriptors and paths in the host's view ------------------------
    def fdsym(self, p, tok):
        m = FDTOK.match(tok.strip())
        if not m:
            return None
        if m.group(1) == "AT_FDCWD":
            if p.fs["cwd"] is None and m.group(2):
                return p.fs["root"] + m.group(2)[1:-1]
            return p.fs["cwd"]
        fd = int(m.group(1))
        if fd in p.fds:
            return p.fds[fd]
        if m.group(2) and m.group(2).startswith("</"):
            return p.fs["root"] + m.group(2)[1:-1]
        return None

    def deref(self, p, sym):
        """/proc/self/fd/N and /proc/N/cwd: the object they stand for."""
        if sym is None:
            return None
        m = re.match(r"^/proc/(self|thread-self|\d+)/fd/(\d+)(/.*)?$", sym)
        if m and (m.group(1) in ("self", "thread-self") or int(m.group(1)) == p.pid):
            base = p.fds.get(int(m.group(2)))
            if base is not None:
                return norm(base + (m.group(3) or ""))
        m = re.match(r"^/proc/(\d+)/cwd(/.*)?$", sym)
        if m and m.group(1) in self.pidmap:
            cwd = self.pidmap[m.group(1)][1]
            return norm("/proc/%s/root%s%s" % (m.group(1), cwd, m.group(2) or ""))
        return sym

    def resolve(self, p, dirtok, path, in_root=False):
        if in_root:
            base = self.fdsym(p, dirtok)
            return None if base is None else self.deref(p, norm(base + "/" + path))
        if path.startswith("/"):
            return self.deref(p, norm(p.fs["root"] + path))
        base = self.fdsym(p, dirtok) if dirtok is not None else p.fs["cwd"]
        if base is None:
            return None
        return self.deref(p, norm(base + "/" + path))

    def where(self, sym):
        """(target, path inside its root) or None."""
        if not sym:
            return None
        m = re.match(r"^/proc/(\d+)/root(/.*)?$", sym)
        if m and m.group(1) in self.pidmap:
            return self.pidmap[m.group(1)][0], m.group(2) or "/"
        return None

    # -- one complete syscall line ---------------------------------------
    def line(self, pid, text):
        m = CALL.match(text)
        if not m:
            return
        name, rest = m.group(1), m.group(2)
        ends = list(re.finditer(r"\)\s+= ", rest))
        if not ends:
            return
        args, ret = rest[:ends[-1].start()], rest[ends[-1].end():]
        rm = re.match(r"^(-?\d+)", ret)
        retval = rm.group(1) if rm else "?"
        p = self.proc(pid)
        if name in CLONE_CALLS:
            if re.match(r"^\d+", retval):
                self.parent[int(re.match(r"^\d+", retval).group(0))] = (pid, args)
            return
        if name in ("execve", "execveat"):
            q = QSTR.search(args)
            if retval == "0" and q:
                exe = unescape(q.group(1))
                p.exe = exe
                if exe.endswith("/jsym"):
                    p.jsym = True
            return
        if not p.jsym:
            return
        if self.canary and self.canary in ret:
            self.events.append({"label": self.label, "escape": ret, "call": name,
                                "args": args[:300], "pid": pid, "exe": p.exe})
        if name in ("setuid", "setreuid", "setresuid") and retval == "0":
            u = re.findall(r"-?\d+", args)
            if u and int(u[-1]) >= 0:
                p.uid = int(u[-1])
            return
        if name == "capset" and retval == "0":
            d = args[args.find("}") + 1:]
            p.nocaps = re.search(r"effective=0\b", d) is not None and \
                re.search(r"permitted=0\b", d) is not None
            return
        if name == "close":
            try:
                p.fds.pop(int(FDTOK.match(args).group(1)), None)
            except (AttributeError, ValueError):
                pass
            return
        if name in ("dup", "dup2", "dup3") or (name == "fcntl" and "F_DUPFD" in args):
            src = self.fdsym(p, args.split(",")[0])
            if src is not None and re.match(r"^\d+", retval):
                p.fds[int(re.match(r"^\d+", retval).group(0))] = src
            return
        if name == "setns":
            sym = self.fdsym(p, args.split(",")[0])
            mm = re.match(r"^/proc/(\d+)/ns/mnt$", sym or "")
            if retval == "0" and mm:
                p.fs["root"] = "/proc/%s/root" % mm.group(1)
                p.fs["cwd"] = p.fs["root"]
            return
        if name in ("chroot", "chdir", "fchdir"):
            if retval != "0":
                return
            if name == "fchdir":
                sym = self.fdsym(p, args)
            else:
                q = QSTR.search(args)
                sym = self.resolve(p, None, unescape(q.group(1))) if q else None
            if sym is None:
                return
            if name == "chroot":
                p.fs["root"] = "" if sym == "/" else sym
            else:
                p.fs["cwd"] = sym
            return
        if name in OPEN_CALLS or name in STAT_CALLS:
            em = re.match(r"^-1 (E[A-Z0-9]+)", ret)
            self.pathcall(p, name, args, retval, em.group(1) if em else "")

    def pathcall(self, p, name, args, retval, err):
        q = QSTR.search(args)
        if not q:
            return
        path = unescape(q.group(1))
        before = args[:q.start()].rstrip(", ")
        after = args[q.end():]
        dirtok = before if before else None
        in_root = name == "openat2" and "RESOLVE_IN_ROOT" in after
        if name in ("open", "creat", "stat", "lstat", "access", "readlink"):
            dirtok = None
        if path == "" and "AT_EMPTY_PATH" in after:
            return
        sym = self.resolve(p, dirtok, path, in_root)
        if sym is None:
            return
        if name in OPEN_CALLS and re.match(r"^\d+$", retval):
            p.fds[int(retval)] = sym
        w = self.where(sym)
        if not w:
            return
        if name in OPEN_CALLS:
            flags = after.strip(", ")
            opath = "O_PATH" in flags
            follow = ("O_NOFOLLOW" not in flags and "RESOLVE_NO_SYMLINKS" not in flags)
        else:
            flags = after.strip(", ")
            opath = True
            follow = name not in ("lstat", "readlink", "readlinkat") and \
                "AT_SYMLINK_NOFOLLOW" not in flags
        self.events.append({
            "label": self.label, "target": w[0], "path": w[1], "call": name,
            "flags": flags[:200], "ret": retval, "err": err, "opath": opath,
            "follow": follow, "hostroot": p.fs["root"] == "" and not in_root,
            "pid": p.pid, "exe": p.exe, "uid": p.uid, "nocaps": p.nocaps})


def scan(trace, label, pidmap_text, canary=""):
    pidmap = {}
    for item in filter(None, pidmap_text.split(",")):
        # N=name or N=name:cwd
        n, v = item.split("=", 1)
        name, _, cwd = v.partition(":")
        pidmap[n] = (name, cwd or "/")
    m = Model(label, pidmap, canary)
    lines = []
    pending = {}
    with open(trace, encoding="utf-8", errors="surrogateescape") as f:
        for raw in f:
            lm = LINE.match(raw.rstrip("\n"))
            if not lm:
                continue
            pid, text = int(lm.group(1)), lm.group(2)
            if text.endswith(" <unfinished ...>"):
                pending[pid] = text[:-len(" <unfinished ...>")]
                continue
            rm = re.match(r"^<\.\.\. [a-z0-9_]+ resumed>(.*)$", text)
            if rm:
                if pid not in pending:
                    continue
                text = pending.pop(pid) + rm.group(1)
            lines.append((pid, text))
    # calls still blocked when the command was killed: never returned
    for pid, text in pending.items():
        lines.append((pid, text + ") = ?"))
    # clone results first, so a child met before its parent's clone line
    # returns (strace -f prints them in any order) still inherits its state
    for pid, text in lines:
        cm = CALL.match(text)
        if cm and cm.group(1) in CLONE_CALLS:
            r = re.search(r"\) = (\d+)", text)
            if r:
                m.parent[int(r.group(1))] = (pid, cm.group(2))
    for pid, text in lines:
        m.line(pid, text)
    return m.events


def main():
    if len(sys.argv) < 5 or sys.argv[1] != "scan":
        sys.stderr.write(__doc__)
        return 2
    for e in scan(sys.argv[2], sys.argv[3], sys.argv[4],
                  sys.argv[5] if len(sys.argv) > 5 else ""):
        print(json.dumps(e))
    return 0


if __name__ == "__main__":
    sys.exit(main())
