# SPDX-License-Identifier: Apache-2.0
"""watch_open.py PATH OUT - did anything open PATH (for real, not O_PATH)?

Puts an inotify IN_OPEN watch on PATH (any kind of inode: a device node or
a FIFO too), writes "ready" to OUT, and waits for SIGTERM; then writes
"opened N" (N events) or "unopened" to OUT and exits.  The kernel queues
IN_OPEN for every open that reaches the file, none for an O_PATH open, so
"unopened" proves that jsym looked at PATH's type without opening it.
Used by t_watch_open / t_watch_result (tests/lib/watch.sh).
"""
import ctypes
import os
import signal
import sys

IN_OPEN = 0x20
IN_NONBLOCK = 0o4000
EVENT_HEADER = 16   # struct inotify_event without its name


def main():
    path, out = sys.argv[1], sys.argv[2]
    libc = ctypes.CDLL(None, use_errno=True)
    fd = libc.inotify_init1(IN_NONBLOCK)
    if fd < 0 or libc.inotify_add_watch(fd, path.encode(), IN_OPEN) < 0:
        err = os.strerror(ctypes.get_errno())
        with open(out, "w") as f:
            f.write("error %s\n" % err)
        return 1
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    with open(out, "w") as f:
        f.write("ready\n")
    while not stop:
        signal.pause()
    events = 0
    try:
        while True:
            data = os.read(fd, 4096)
            off = 0
            while off + EVENT_HEADER <= len(data):
                mask = int.from_bytes(data[off + 4:off + 8], "little")
                name_len = int.from_bytes(data[off + 12:off + 16], "little")
                # not IN_IGNORED, queued when the inode goes (jsym
                # replaces a planted trigger)
                events += bool(mask & IN_OPEN)
                off += EVENT_HEADER + name_len
    except BlockingIOError:
        pass
    # replaced in one rename: a reader sees "ready" or the verdict
    with open(out + ".new", "w") as f:
        f.write("opened %d\n" % events if events else "unopened\n")
    os.rename(out + ".new", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
