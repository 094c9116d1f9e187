#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# tests/bench/deploy_strace.py - the biggest latencies on the critical path
# of one traced `jsym attach`, for tests/bench/deploy.sh.
#
#   deploy_strace.py TRACE [TOP]
#
# TRACE is the output of `strace -f -tt -T -o TRACE jsym attach PID`.  The
# critical path starts with the first process of the trace.  Its time is cut
# into spans: each syscall (entry to return) and each gap between two of its
# syscalls (user-space work, or being scheduled out).  A syscall during which
# a traced child of that process ran (the parent waits in read, poll or wait4
# for a forked worker or probe) is replaced by that child's own spans over
# the time it overlapped, recursively; what is left of the wait is a span of
# its own.  Prints the TOP (default 5) longest spans, each with what it is.
# Times are under strace, which adds some µs to every syscall.
import re
import sys

LINE = re.compile(r"^(\d+)\s+(\d+):(\d+):(\d+\.\d+)\s+(.*)$")
DONE = re.compile(r"^(\w+)\((.*)\)\s+=\s+(-?\w+)(?:\s.*?)?\s+<(\d+\.\d+)>$")
START = re.compile(r"^(\w+)\((.*?)\s*<unfinished \.\.\.>$")
RESUMED = re.compile(r"^<\.\.\. (\w+) resumed>(.*?)\)?\s+=\s+(-?\w+)(?:\s.*?)?\s+<(\d+\.\d+)>$")
FD_CALLS = {"close", "read", "write", "pread64", "readv", "writev", "poll", "ppoll",
            "recvfrom", "recvmsg", "sendto", "sendmsg", "connect", "getsockopt",
            "inotify_add_watch", "inotify_rm_watch", "flock", "fchdir", "lseek",
            "fchown", "fchmod", "fsync", "getdents64"}
EXITED = re.compile(r"^\+\+\+ (exited|killed)")


class Call:
    def __init__(self, pid, t0, name, args):
        self.pid, self.t0, self.name, self.args = pid, t0, name, args
        self.t1, self.ret = t0, None
        self.what = ""  # what its fd was at the time, as far as the trace shows

    def fd(self):
        """The fd this call works on (poll: the first one), else None."""
        if self.name not in FD_CALLS:
            return None
        m = re.match(r"\[?\{?(?:fd=)?(-?\d+)(?:[,}\]]|$)", self.args)
        return int(m.group(1)) if m else None


class Proc:
    def __init__(self, pid):
        self.pid, self.calls, self.children = pid, [], []
        self.first, self.last, self.prog = None, None, None

    def seen(self, t):
        self.first = t if self.first is None else min(self.first, t)
        self.last = t if self.last is None else max(self.last, t)


def parse(path):
    procs, order, open_calls = {}, [], {}
    for raw in open(path, errors="replace"):
        m = LINE.match(raw.rstrip("\n"))
        if not m:
            continue
        pid = int(m.group(1))
        t = int(m.group(2)) * 3600 + int(m.group(3)) * 60 + float(m.group(4))
        rest = m.group(5)
        p = procs.get(pid)
        if p is None:
            p = procs[pid] = Proc(pid)
            order.append(pid)
        p.seen(t)
        if EXITED.match(rest) or rest.startswith("---"):
            continue
        d = DONE.match(rest)
        if d:
            c = Call(pid, t, d.group(1), d.group(2))
            c.t1, c.ret = t + float(d.group(4)), d.group(3)
            p.calls.append(c)
            p.seen(c.t1)
            continue
        s = START.match(rest)
        if s:
            c = Call(pid, t, s.group(1), s.group(2))
            open_calls[pid] = c
            p.calls.append(c)
            continue
        r = RESUMED.match(rest)
        if r and pid in open_calls:
            c = open_calls.pop(pid)
            c.args += r.group(2)
            c.ret, c.t1 = r.group(3), c.t0 + float(r.group(4))
            p.seen(c.t1)
    for pid in order:
        for c in procs[pid].calls:
            if c.name in ("clone", "clone3", "fork", "vfork") and c.ret and c.ret.isdigit():
                child = procs.get(int(c.ret))
                if child:
                    # it exists from the fork on: waiting to be scheduled
                    # is its time, not its parent's
                    child.seen(c.t1)
                    procs[pid].children.append(child)
    return procs, order


def track_fds(p, parent_fds, parent_prog):
    """Name the fd each of p's calls uses, as it was at that call: p starts
    with the fds its parent had when it forked p."""
    fds, snap = dict(parent_fds), {}
    for c in p.calls:
        fd = c.fd()
        c.what = fds.get(fd, "") if fd is not None else ""
        if c.name == "execve":
            p.prog = c.args.split('"')[1] if '"' in c.args else c.args
        if c.name == "close":
            fds.pop(fd, None)
        if c.ret is None or not c.ret.lstrip("-").isdigit() or int(c.ret) < 0:
            continue
        if c.name in ("clone", "clone3", "fork", "vfork"):
            snap[int(c.ret)] = dict(fds)
        elif c.name == "inotify_init1":
            fds[int(c.ret)] = "inotify"
        elif c.name in ("openat", "openat2", "open") and '"' in c.args:
            fds[int(c.ret)] = "file " + c.args.split('"')[1]
        elif c.name == "socket":
            fds[int(c.ret)] = "socket"
        elif c.name == "connect" and ".java_pid" in c.args:
            fds[fd] = "attach socket"
            c.what = "attach socket"
    if p.prog is None:
        p.prog = parent_prog + " (forked worker)" if parent_prog else "?"
    for child in p.children:
        track_fds(child, snap.get(child.pid, {}), p.prog.split(" ")[0])


def role(p):
    return p.prog.rsplit("/", 1)[-1] + f" [{p.pid}]"


def short(c):
    return f"{c.name} on {c.what}" if c.what else c.name


def describe(c):
    what = c.what
    if c.name == "close" and what == "inotify":
        return ("close() of the inotify fd: the kernel waits out (what is left "
                "of) an SRCU grace period to free its watch")
    if c.name in ("poll", "ppoll", "recvfrom", "read") and what == "attach socket":
        return ("waiting for the JVM to answer `load`: it dlopens the agent and "
                "runs Agent_OnAttach (first map written)")
    if c.name in ("poll", "ppoll", "read") and what == "inotify":
        return ("waiting for the JVM's attach listener to create .java_pid<N> "
                "after SIGQUIT")
    if c.name == "inotify_add_watch":
        return "inotify_add_watch on the JVM's /tmp"
    if c.name == "execve":
        return "execve " + (c.args.split('"')[1] if '"' in c.args else "")
    if c.name == "wait4":
        return "waiting for a child process to exit"
    if what:
        return f"{c.name} on {what}"
    return f"{c.name}({c.args[:60]})"


def spans(p, lo, hi, out):
    """Cut p's time between lo and hi into spans appended to out."""
    t = lo
    prev = "start"
    for c in p.calls:
        if c.t1 <= lo or c.t0 >= hi:
            continue
        a, b = max(c.t0, lo), min(c.t1, hi)
        if a > t:
            out.append((a - t, role(p), f"user space / scheduling between {prev} "
                        f"and {short(c)}"))
        kids = [k for k in p.children if k.first is not None and k.first < b and k.last > a]
        if kids and b - a > 0.0003:
            k = max(kids, key=lambda k: min(k.last, b) - max(k.first, a))
            ka, kb = max(k.first, a), min(k.last, b)
            if ka > a:
                out.append((ka - a, role(p), describe(c) + " (before the child ran)"))
            spans(k, ka, kb, out)
            if b > kb:
                out.append((b - kb, role(p), describe(c) + " (after the child ended)"))
        else:
            out.append((b - a, role(p), describe(c)))
        t, prev = b, short(c)
    if hi > t and p.last is not None and p.last > t:
        out.append((min(hi, p.last) - t, role(p), f"user space / exit after {prev}"))


def main():
    procs, order = parse(sys.argv[1])
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 5
    if not order:
        sys.exit("deploy_strace: empty trace")
    root = procs[order[0]]
    track_fds(root, {}, None)
    out = []
    spans(root, root.first, root.last, out)
    total = root.last - root.first
    print(f"  traced wall time {total * 1000:.1f} ms; top {top} spans of its critical path:")
    for i, (d, who, what) in enumerate(sorted(out, key=lambda s: -s[0])[:top], 1):
        print(f"  {i}. {d * 1000:6.2f} ms  {who}: {what}")


if __name__ == "__main__":
    main()
