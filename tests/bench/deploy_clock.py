#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# tests/bench/deploy_clock.py - time one attach command until its symbols
# are on disk, for tests/bench/deploy.sh.
#
#   deploy_clock.py [--map FILE]... [--log FILE] [--limit S] -- CMD...
#
# Starts CMD, waits for it, then waits until every FILE is non-empty (the
# JVM's perf map: the first symbols perf can use).  Prints one line
# "MICROSECONDS EXIT" on stdout; MICROSECONDS counts from just before the
# spawn to the later of "CMD exited" and "every map non-empty".  A map that
# is already non-empty before CMD starts is an error (EXIT 98): the JVM was
# not fresh.  A map still empty after --limit seconds: EXIT 99; CMD still
# running after --limit seconds is killed: EXIT 124.  CMD's
# output goes to --log (default /dev/null).  The Python start-up is outside
# the measured span; the spawn itself is inside, as it is for every CMD.
import os
import subprocess
import sys
import time


def nonempty(path):
    try:
        return os.stat(path).st_size > 0
    except OSError:
        return False


def main(argv):
    maps, log, limit = [], os.devnull, 20.0
    while argv and argv[0] != "--":
        opt, val = argv[0], argv[1]
        if opt == "--map":
            maps.append(val)
        elif opt == "--log":
            log = val
        elif opt == "--limit":
            limit = float(val)
        else:
            sys.exit("deploy_clock: unknown option " + opt)
        argv = argv[2:]
    cmd = argv[1:]
    if any(nonempty(m) for m in maps):
        print("0 98")
        return
    with open(log, "ab") as out:
        t0 = time.monotonic_ns()
        try:
            rc = subprocess.call(cmd, stdin=subprocess.DEVNULL, stdout=out,
                                 stderr=out, timeout=limit)
        except subprocess.TimeoutExpired:
            rc = 124
    deadline = time.monotonic() + limit
    pending = list(maps)
    while pending:
        pending = [m for m in pending if not nonempty(m)]
        if pending and time.monotonic() > deadline:
            rc = 99
            break
        if pending:
            time.sleep(0.0002)
    t1 = time.monotonic_ns()
    print(f"{(t1 - t0) // 1000} {rc}")


if __name__ == "__main__":
    main(sys.argv[1:])
