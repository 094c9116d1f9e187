/* SPDX-License-Identifier: Apache-2.0 */
// tests/bench/DeepWork.java - the busy JVM of tests/bench/perf_cost.sh: the
// deep stacks of tests/java/DeepStacks.java, with a leaf of fixed work so
// that the work done in a second can be counted.
//
//   java -cp DIR DeepWork [DEPTH]
//
// One thread descends DEPTH (default 32) levels through one megamorphic
// interface call site (four implementations, never inlined: a frame per
// level, about 70 frames deep in all) and at the bottom runs a fixed number
// of iterations of a hot loop whose callees C2 inlines; each descent is a
// round.  Another thread prints "deep-work: NANOS ROUNDS" (System.nanoTime,
// rounds done so far) every 20 ms, so a window's rate comes from the JVM's
// own clock.  Prints "deep-work: started" first; runs until killed.

public final class DeepWork {
    static volatile long rounds;
    static volatile long sink;
    static int depth = 32;

    public static void main(String[] args) throws Exception {
        if (args.length > 0) {
            depth = Math.max(8, Integer.parseInt(args[0]));
        }
        Thread worker = new Thread(() -> {
            long acc = 0;
            for (long r = 1; ; r++) {
                acc += Level.descend(depth);
                sink = acc;
                rounds = r;
            }
        }, "deep-work");
        worker.setDaemon(true);
        System.out.println("deep-work: started");
        System.out.flush();
        worker.start();
        for (;;) {
            Thread.sleep(20);
            System.out.println("deep-work: " + System.nanoTime() + " " + rounds);
            System.out.flush();
        }
    }

    static final class Level {
        static long descend(int d) {
            if (d <= 0) {
                return Leaf.work(200_000);
            }
            return STEPS[d & 3].down(d);
        }
    }

    interface Step {
        long down(int d);
    }

    static final Step[] STEPS = { new StepA(), new StepB(), new StepC(), new StepD() };

    static final class StepA implements Step {
        public long down(int d) { return Level.descend(d - 1) * 31 + d; }
    }

    static final class StepB implements Step {
        public long down(int d) { return Level.descend(d - 1) ^ (d * 17L); }
    }

    static final class StepC implements Step {
        public long down(int d) { return Level.descend(d - 1) + (d << 3); }
    }

    static final class StepD implements Step {
        public long down(int d) { return Level.descend(d - 1) - d; }
    }

    static final class Leaf {
        // n iterations of a xorshift step: fixed work, no allocation.
        static long work(int n) {
            long x = 1;
            for (int i = 0; i < n; i++) {
                x = step(x, i);
            }
            return x;
        }

        static long step(long x, int i) { return mix(x) + i; }

        static long mix(long x) {
            x ^= x << 13;
            x ^= x >>> 7;
            return x ^ (x << 17);
        }
    }
}
