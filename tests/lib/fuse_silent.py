#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# tests/lib/fuse_silent.py MOUNTPOINT [open|all] - a FUSE file system that
# never answers: what a container (or any user, /dev/fuse being 0666 on
# Debian and Ubuntu) can put over a file jsym reads.  Its root is one
# regular file, so it mounts over a file (a JDK's release) as well as over
# a directory.  "open": lookups, attributes and statfs are answered, every
# open and read waits forever; "all": nothing after FUSE_INIT is answered.
# Debian's python3-fusepy over libfuse2 (mk/deps.sh); foreground, so the
# scenario that starts it kills it, after unmounting.
import errno
import stat
import sys
import threading
import time

import fusepy

mode = sys.argv[2] if len(sys.argv) > 2 else "open"
forever = threading.Event()


def stall():
    while True:
        forever.wait(3600)


class Silent(fusepy.Operations):
    def getattr(self, path, fh=None):
        if mode == "all":
            stall()
        if path != "/":
            raise fusepy.FuseOSError(errno.ENOENT)
        now = time.time()
        return dict(st_mode=stat.S_IFREG | 0o644, st_nlink=1, st_size=4096,
                    st_uid=0, st_gid=0, st_atime=now, st_mtime=now, st_ctime=now)

    def statfs(self, path):
        if mode == "all":
            stall()
        return dict(f_bsize=4096, f_blocks=1, f_bavail=0, f_files=1, f_namemax=255)

    def open(self, path, flags):
        stall()

    def read(self, path, size, offset, fh):
        stall()


if __name__ == "__main__":
    fusepy.FUSE(Silent(), sys.argv[1], foreground=True, nothreads=False,
                allow_other=True, ro=True, nonempty=True, fsname="jsym-silent")
