#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
# tests/lib/fuse_silent.py MOUNTPOINT [open|all|dir] - a FUSE file system
# that never answers: what a container (or any user, /dev/fuse being 0666
# on Debian and Ubuntu) can put over a file jsym reads.
#   "open": the root is one regular file, so it mounts over a file (a
#           JDK's release) as well as over a directory; lookups, attributes
#           and statfs are answered, every open and read waits forever
#   "all":  the same root; nothing after FUSE_INIT is answered
#   "dir":  the root is an empty-looking directory: its attributes, statfs
#           and extended attributes are answered (all overlayfs asks when
#           it mounts it as a lower layer), every lookup of a name in it
#           (an attribute of any other path), every open and every listing
#           waits forever.  Under an overlay, mountinfo says "overlay",
#           and any name the overlay's upper layers lack reaches it.
# Debian's python3-fusepy over libfuse2 (mk/deps.sh); foreground, so the
# scenario that starts it kills it, after unmounting.
import errno
import stat
import sys
import threading
import time

import fusepy

mode = sys.argv[2] if len(sys.argv) > 2 else "open"
if mode not in ("open", "all", "dir"):
    sys.exit("fuse_silent.py: unknown mode %r (open, all or dir)" % mode)
forever = threading.Event()


def stall():
    while True:
        forever.wait(3600)


class Silent(fusepy.Operations):
    def getattr(self, path, fh=None):
        if mode == "all" or (mode == "dir" and path != "/"):
            stall()
        if path != "/":
            raise fusepy.FuseOSError(errno.ENOENT)
        now = time.time()
        if mode == "dir":
            kind, nlink, size = stat.S_IFDIR | 0o755, 2, 0
        else:
            kind, nlink, size = stat.S_IFREG | 0o644, 1, 4096
        return dict(st_mode=kind, st_nlink=nlink, st_size=size,
                    st_uid=0, st_gid=0, st_atime=now, st_mtime=now, st_ctime=now)

    def statfs(self, path):
        if mode == "all":
            stall()
        return dict(f_bsize=4096, f_blocks=1, f_bavail=0, f_files=1, f_namemax=255)

    def getxattr(self, path, name, position=0):
        if mode == "all":
            stall()
        raise fusepy.FuseOSError(errno.ENODATA)

    def open(self, path, flags):
        stall()

    def read(self, path, size, offset, fh):
        stall()

    def opendir(self, path):
        if mode == "dir":
            stall()
        return 0

    def readdir(self, path, fh):
        stall()


if __name__ == "__main__":
    fusepy.FUSE(Silent(), sys.argv[1], foreground=True, nothreads=False,
                allow_other=True, ro=True, nonempty=True, fsname="jsym-silent")
