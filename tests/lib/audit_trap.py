# SPDX-License-Identifier: Apache-2.0
"""audit_trap.py - plant traps in a container's root, run jsym against them.

    audit_trap.py plant STATE KIND PID CANARY FUSEFILE [--dirs] PATH...
    audit_trap.py unplant STATE
    audit_trap.py fuse MOUNTPOINT READY RELEASE      (/usr/bin/python3)
    audit_trap.py run OUT LIMIT STOP RELEASE -- CMD...

plant: in the mount namespace of host pid PID (so paths resolve in its
root, and mounts land in its namespace only), put a trap of KIND at every
PATH and record in STATE (JSON lines) how to take it away again:
  fifo     a FIFO in place of the file
  chardev  mknod c 1 3 (/dev/null's numbers) in place of the file
  symlink  a symlink to CANARY, a host file outside the root
  devnull  the container's /dev/null bind-mounted over the path
  fuse     FUSEFILE (a file of the `fuse` server below, which answers
           lookups and stat but never an open or a read) bind-mounted over
           the path, carried into the namespace with open_tree/move_mount
A path that is a directory (or has another PATH below it) is skipped, and
a missing parent of a PATH is made first (as the target's uid, 0700, as
a container's user can pre-create jsym's own directory; unplant removes
it).  With --dirs the traps go at the directories instead: the deepest
ones (no other directory among PATHs below them), a FUSE directory whose
lookups and opendir never answer bound over each (fuse, "planted dir"),
or, for the other kinds, the PARENT shadowed.  The directory is not
renamed aside: an overlay's lower directory (a JDK in an image) cannot
be (EXDEV), a device cannot be bound over a directory, and a renamed
directory shows its new name in /proc/PID/maps, so jsym, following a
mapped libjvm.so or agent there, would never meet the trap.  Every
entry of the parent but the trapped ones is first cloned with open_tree
(OPEN_TREE_CLONE|AT_RECURSIVE, the path's own inode and the mounts
below it), a tmpfs with the parent's mode and owner is mounted over the
parent, each clone is moved back onto an empty file or directory of its
name (a symlink is made again with the same target), and the trap goes
under the trapped name: a FIFO, c 1 3, a symlink to CANARY.d, or an
empty file with /dev/null bound over it (devnull).  Trapped directories
of one parent share one shadow; the root is never shadowed (skipped,
parent-is-the-root).  These print "planted dir parent-shadowed", and
unplant detaches the tmpfs (umount -l), which takes the clones and the
traps with it.  Nothing moves on the disk: a JVM's mapped libjvm.so and
open files keep their inodes, and its JDK is whole again after unplant.
A file in place keeps its inode: it is hard-linked aside first and linked
back by unplant, so a JVM's socket or a mapped library is the same file
again afterwards (a mapped file shows "(deleted)" in maps meanwhile,
which jsym drops: the review's mknod case).  A path that did not exist
(jsym creates it) gets the trap too.  Prints one line per path: PATH KIND
planted|skipped REASON.

fuse: a fusepy file system at MOUNTPOINT with one regular file "f" and
one directory "d"; lookups, stat and statfs are answered (but any lookup
below "d", which waits), open/read/opendir/readlink wait
until the file RELEASE appears (then they fail with EIO), so a command
stuck there can be set free after its limit instead of staying in D state.

run: CMD under its LIMIT (seconds); with STOP > 0, SIGINT to the command
after STOP seconds (map --follow).  At the limit the command's processes
get SIGKILL, RELEASE is created to free what the FUSE file holds, and the
verdict is "hang".  Writes OUT as JSON: rc, hang, secs, stuck (processes
left in D state).
"""
import ctypes
import errno
import json
import os
import signal
import stat
import subprocess
import sys
import threading
import time

CLONE_NEWNS = 0x00020000
MS_BIND = 4096
MNT_DETACH = 2
OPEN_TREE_CLONE = 1
OPEN_TREE_CLOEXEC = 0o2000000
AT_SYMLINK_NOFOLLOW = 0x100
AT_RECURSIVE = 0x8000
MOVE_MOUNT_F_EMPTY_PATH = 0x4
SYS_OPEN_TREE = 428
SYS_MOVE_MOUNT = 429
KEEP = ".jsym-audit-keep."
FUSE_HOME = "/.jsym-audit-fuse"
FUSE_HOME_DIR = "/.jsym-audit-fuse-d"

libc = ctypes.CDLL(None, use_errno=True)


def check(r, what):
    if r < 0:
        e = ctypes.get_errno()
        raise OSError(e, "%s: %s" % (what, os.strerror(e)))
    return r


def enter(pid):
    fd = os.open("/proc/%d/ns/mnt" % pid, os.O_RDONLY)
    check(libc.setns(fd, CLONE_NEWNS), "setns into the mount namespace of %d" % pid)
    os.close(fd)
    os.chdir("/")


def keep_name(path):
    d, b = os.path.split(path)
    return os.path.join(d, KEEP + b)


def dirs_among(paths):
    """The paths that have another path below them: directories."""
    return {p for p in paths if any(q.startswith(p.rstrip("/") + "/") for q in paths)}


def make_parents(path, uid, rec):
    """Make path's missing parents (uid's, 0700); recorded for unplant."""
    missing = []
    d = os.path.dirname(path)
    while d not in ("", "/") and not os.path.lexists(d):
        missing.append(d)
        d = os.path.dirname(d)
    for d in reversed(missing):
        os.mkdir(d, 0o700)
        os.chown(d, uid, -1)
        rec.setdefault("made", []).append(d)


def mount_tree_at(fd, path, isdir):
    """Move the detached tree fd (open_tree) onto a new empty directory or
    file at path, as its kind needs."""
    if isdir:
        os.mkdir(path, 0o700)
    else:
        open(path, "x").close()
    check(libc.syscall(SYS_MOVE_MOUNT, fd, b"", -100, path.encode(),
                       MOVE_MOUNT_F_EMPTY_PATH), "move_mount onto " + path)


def make_node(kind, path, target):
    """A trap node of kind fifo, chardev or symlink (to target) at path."""
    if kind == "fifo":
        os.mkfifo(path, 0o666)
    elif kind == "chardev":
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    elif kind == "symlink":
        os.symlink(target, path)
    else:
        raise ValueError("unknown trap kind " + kind)


def shadow_parent(parent, traps, kind, canary):
    """Shadow directory parent with a tmpfs holding its entries (clones of
    the originals) and a trap of kind at each name in traps.  Returns the
    record for unplant; raises OSError, the parent untouched, when the
    tmpfs could not be mounted."""
    st = os.lstat(parent)
    clones = {}
    links = {}
    mounted = False
    try:
        # the handles first, while the originals are still in sight
        for name in os.listdir(parent):
            if name in traps:
                continue
            p = os.path.join(parent, name)
            if stat.S_ISLNK(os.lstat(p).st_mode):
                links[name] = os.readlink(p)
                continue
            clones[name] = (check(libc.syscall(
                SYS_OPEN_TREE, -100, p.encode(), OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
                AT_RECURSIVE | AT_SYMLINK_NOFOLLOW), "open_tree " + p),
                stat.S_ISDIR(os.lstat(p).st_mode))
        opts = "mode=%o,uid=%d,gid=%d,size=1m" % (stat.S_IMODE(st.st_mode), st.st_uid, st.st_gid)
        check(libc.mount(b"jsym-audit-shadow", parent.encode(), b"tmpfs", 0, opts.encode()),
              "mount a tmpfs over " + parent)
        mounted = True
        for name, (fd, isdir) in clones.items():
            mount_tree_at(fd, os.path.join(parent, name), isdir)
        for name, target in links.items():
            os.symlink(target, os.path.join(parent, name))
        for name in traps:
            p = os.path.join(parent, name)
            if kind == "devnull":
                open(p, "x").close()
                check(libc.mount(b"/dev/null", p.encode(), None, MS_BIND, None),
                      "bind /dev/null over " + p)
            else:
                make_node(kind, p, canary + ".d")
    except (OSError, ValueError):
        if mounted:              # the binds go with the tmpfs
            libc.umount2(parent.encode(), MNT_DETACH)
        raise
    finally:
        for fd, _ in clones.values():
            os.close(fd)
    return {"path": parent, "mounted": True, "shadow": sorted(traps)}


def plant(state, kind, pid, canary, fusefile, paths, dirs=False):
    tree = -1
    uid = os.stat("/proc/%d" % pid).st_uid
    known_dirs = dirs_among(paths)
    if kind == "fuse":
        src = os.path.join(os.path.dirname(fusefile), "d") if dirs else fusefile
        tree = check(libc.syscall(SYS_OPEN_TREE, -100, src.encode(),
                                  OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC), "open_tree " + src)
    log = open(state, "a")
    enter(pid)
    home = FUSE_HOME_DIR if dirs else FUSE_HOME
    if kind == "fuse":
        # one copy of the FUSE file (directory) inside the namespace, bound
        # from there to each path (a detached tree cannot be cloned again)
        if not os.path.exists(home):
            if dirs:
                os.mkdir(home, 0o755)
            else:
                open(home, "x").close()
        check(libc.syscall(SYS_MOVE_MOUNT, tree, b"", -100, home.encode(),
                           MOVE_MOUNT_F_EMPTY_PATH), "move_mount onto " + home)
        log.write(json.dumps({"pid": pid, "kind": kind, "path": home, "isdir": dirs,
                              "created": True, "mounted": True}) + "\n")
    if dirs:
        isdir = set(known_dirs)
        for p in paths:
            try:
                if stat.S_ISDIR(os.lstat(p).st_mode):
                    isdir.add(p)
            except OSError:
                pass
        isdir.discard("/")
        paths = sorted(p for p in isdir
                       if not any(q != p and q.startswith(p.rstrip("/") + "/") for q in isdir))
    shadow = {}          # parent -> {name: rec} of directory traps to shadow
    for path in paths:
        rec = {"pid": pid, "kind": kind, "path": path}
        try:
            st = os.lstat(path)
        except FileNotFoundError:
            st = None
        except NotADirectoryError:
            print("%s %s skipped parent-is-a-trap" % (path, kind))
            continue
        if not dirs and ((st is not None and stat.S_ISDIR(st.st_mode)) or path in known_dirs):
            print("%s %s skipped directory" % (path, kind))
            continue
        try:
            make_parents(path, uid, rec)
        except OSError as e:
            print("%s %s skipped no-parent-directory:%s" % (path, kind, str(e).replace(" ", "_")))
            continue
        if dirs and kind != "fuse":
            # shadow the parent (why not a rename: the docstring)
            shadow.setdefault(os.path.dirname(path), {})[os.path.basename(path)] = rec
            continue
        try:
            if kind in ("devnull", "fuse"):
                if st is None:
                    if dirs:
                        os.mkdir(path, 0o700)
                        os.chown(path, uid, -1)
                        rec["isdir"] = True
                    else:
                        open(path, "x").close()
                    rec["created"] = True
                src = b"/dev/null" if kind == "devnull" else home.encode()
                check(libc.mount(src, path.encode(), None, MS_BIND, None),
                      "bind %s over %s" % (src.decode(), path))
                rec["mounted"] = True
            else:
                if st is not None:
                    keep = keep_name(path)
                    if os.path.lexists(keep):
                        os.unlink(keep)
                    os.link(path, keep, follow_symlinks=False)
                    os.unlink(path)
                    rec["kept"] = keep
                make_node(kind, path, canary)
                rec["node"] = True
        except OSError as e:
            print("%s %s skipped %s" % (path, kind, str(e).replace(" ", "_")))
            if rec.get("created") and not rec.get("mounted"):
                if rec.get("isdir"):
                    os.rmdir(path)
                else:
                    os.unlink(path)
            for d in reversed(rec.get("made", [])):
                os.rmdir(d)
            continue
        log.write(json.dumps(rec) + "\n")
        log.flush()
        print("%s %s planted%s" % (path, kind, " dir" if dirs else ""))
    for parent, recs in sorted(shadow.items()):
        made = [d for r in recs.values() for d in r.get("made", [])]
        try:
            if parent in ("", "/"):
                raise OSError(errno.EPERM, "parent-is-the-root")
            rec = shadow_parent(parent, set(recs), kind, canary)
        except OSError as e:
            for name in sorted(recs):
                print("%s %s skipped %s" % (os.path.join(parent, name), kind,
                                            str(e).replace(" ", "_")))
            for d in reversed(made):
                subprocess.run(["rm", "-rf", "--one-file-system", d])
            continue
        rec.update(pid=pid, kind=kind, made=made)
        log.write(json.dumps(rec) + "\n")
        log.flush()
        for name in sorted(recs):
            print("%s %s planted dir parent-shadowed" % (os.path.join(parent, name), kind))
    return 0


def unplant(state):
    if not os.path.exists(state):
        return 0
    recs = [json.loads(line) for line in open(state)]
    bad = 0
    for pid in sorted({r["pid"] for r in recs}):
        r = os.fork()
        if r == 0:
            rc = 0
            try:
                enter(pid)
            except OSError:
                os._exit(0)          # the container is gone, and its traps
            for rec in reversed([x for x in recs if x["pid"] == pid]):
                p = rec["path"]
                try:
                    if rec.get("mounted"):
                        # EINVAL: not a mount point any more (the JVM
                        # renamed a file over it in its own namespace)
                        if libc.umount2(p.encode(), MNT_DETACH) < 0 and \
                                ctypes.get_errno() != errno.EINVAL:
                            check(-1, "umount " + p)
                        if rec.get("created") and os.path.lexists(p):
                            if rec.get("isdir"):
                                os.rmdir(p)
                            else:
                                os.unlink(p)
                    if rec.get("node"):
                        os.unlink(p)
                        if rec.get("kept"):
                            os.link(rec["kept"], p, follow_symlinks=False)
                            os.unlink(rec["kept"])
                    for d in reversed(rec.get("made", [])):
                        # jsym may have put its files there meanwhile
                        subprocess.run(["rm", "-rf", "--one-file-system", d])
                except OSError as e:
                    sys.stderr.write("unplant %s: %s\n" % (p, e))
                    rc = 1
            os._exit(rc)
        _, st = os.waitpid(r, 0)
        bad |= st != 0
    os.unlink(state)
    return 1 if bad else 0


def fuse_server(mountpoint, ready, release):
    import fusepy
    gen = [0]
    cond = threading.Condition()

    def stall():
        with cond:
            g = gen[0]
            cond.wait_for(lambda: gen[0] != g)
        raise fusepy.FuseOSError(errno.EIO)

    def releaser():
        while True:
            if os.path.exists(release):
                try:
                    os.unlink(release)
                except OSError:
                    pass
                with cond:
                    gen[0] += 1
                    cond.notify_all()
            time.sleep(0.1)

    class Stall(fusepy.Operations):
        def init(self, path):
            threading.Thread(target=releaser, daemon=True).start()
            with open(ready, "w") as f:
                f.write("%d\n" % os.getpid())

        def getattr(self, path, fh=None):
            now = time.time()
            if path == "/":
                return {"st_mode": stat.S_IFDIR | 0o755, "st_nlink": 2,
                        "st_atime": now, "st_mtime": now, "st_ctime": now}
            if path == "/f":
                return {"st_mode": stat.S_IFREG | 0o644, "st_nlink": 1,
                        "st_size": 4096, "st_atime": now, "st_mtime": now,
                        "st_ctime": now}
            if path == "/d":
                return {"st_mode": stat.S_IFDIR | 0o777, "st_nlink": 2,
                        "st_atime": now, "st_mtime": now, "st_ctime": now}
            if path.startswith("/d/"):
                stall()         # a lookup below the directory: never
            raise fusepy.FuseOSError(errno.ENOENT)

        def statfs(self, path):
            return {"f_bsize": 4096, "f_blocks": 1, "f_namemax": 255}

        def open(self, path, flags):
            stall()

        def opendir(self, path):
            stall()

        def read(self, path, size, offset, fh):
            stall()

        def readlink(self, path):
            stall()

    fusepy.FUSE(Stall(), mountpoint, foreground=True, allow_other=True,
                nothreads=False, attr_timeout=3600, entry_timeout=3600)
    return 0


def descendants(root):
    kids = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % d) as f:
                s = f.read()
        except OSError:
            continue
        fields = s[s.rfind(")") + 2:].split()
        kids.setdefault(int(fields[1]), []).append((int(d), fields[0]))
    out, todo = [], [root]
    while todo:
        for pid, st in kids.get(todo.pop(), []):
            out.append((pid, st))
            todo.append(pid)
    return out


def comm_of(pid):
    try:
        with open("/proc/%d/comm" % pid) as f:
            return f.read().strip()
    except OSError:
        return None


def run(out, limit, stop, release, cmd):
    t0 = time.time()
    p = subprocess.Popen(cmd, start_new_session=True, stdin=subprocess.DEVNULL)
    hang = False
    stopped = False
    # jsym is strace's child: when it has ended but strace goes on, what
    # strace waits for is a process jsym left behind on purpose (one the
    # kernel holds in a FUSE request, which not even SIGKILL ends:
    # deploy_end_child); that is jsym's run ended in time, its leftover
    # named in "left", not a hang
    main_pid, main_end, left = None, None, []
    while p.poll() is None:
        now = time.time() - t0
        if main_pid is None:
            # the command once it has exec'd: strace forks short-lived
            # children of its own at start (its ptrace feature probes),
            # which must not be taken for the command
            main_pid = next((pid for pid, _ in descendants(p.pid)
                             if comm_of(pid) not in ("strace", None)), None)
        elif main_end is None and not os.path.exists("/proc/%d/stat" % main_pid):
            main_end = now
        if main_end is not None and now - main_end >= 1.0:
            # strace waits for a tracee that jsym left (now the init's of
            # the scenario's PID namespace, so no longer below strace)
            left = ["%d:%s" % x for x in descendants(p.pid)] or ["a tracee of strace"]
            break
        if stop > 0 and not stopped and now >= stop:
            for pid, _ in descendants(p.pid):
                try:
                    os.kill(pid, signal.SIGINT)
                except OSError:
                    pass
            stopped = True
        if now >= limit:
            hang = True
            break
        time.sleep(0.05)
    stuck = []
    if hang or left:
        # free what a FUSE trap holds first: a process asleep in a FUSE
        # request does not die of SIGKILL until the request ends
        open(release, "w").close()
        # the traced processes first: strace (CMD itself) then writes the
        # calls they were blocked in ("<unfinished ...>") and ends alone
        for pid, _ in descendants(p.pid):
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        for i in range(100):
            if p.poll() is not None and not descendants(p.pid):
                break
            if i == 50:
                os.kill(p.pid, signal.SIGKILL)
            time.sleep(0.1)
        stuck = ["%d:%s" % x for x in descendants(p.pid) if x[1] == "D"]
        if p.poll() is None:
            stuck.append("%d:strace" % p.pid)
    rc = p.wait() if p.poll() is not None else None
    with open(out, "w") as f:
        json.dump({"rc": rc, "hang": hang,
                   "secs": round(main_end if main_end is not None else time.time() - t0, 1),
                   "stuck": stuck, "left": left}, f)
    return 0


def main():
    a = sys.argv[1:]
    if a and a[0] == "plant" and len(a) >= 7:
        dirs = a[6] == "--dirs"
        return plant(a[1], a[2], int(a[3]), a[4], a[5], a[7:] if dirs else a[6:], dirs)
    if a and a[0] == "unplant" and len(a) == 2:
        return unplant(a[1])
    if a and a[0] == "fuse" and len(a) == 4:
        return fuse_server(a[1], a[2], a[3])
    if a and a[0] == "run" and len(a) >= 7 and a[5] == "--":
        return run(a[1], float(a[2]), float(a[3]), a[4], a[6:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main())
