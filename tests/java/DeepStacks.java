/* SPDX-License-Identifier: Apache-2.0 */
// tests/java/DeepStacks.java - a JVM whose stacks run deep and mix every kind
// of Java frame, with the JDK's default flags.
//
//   java -cp DIR DeepStacks SECONDS [DEPTH]
//
// Each round descends DEPTH (default 32) levels (two frames each: a
// step and Level.descend, about 70 frames in all with the thread's own), then spins for about 100 ms
// in a hot leaf loop at the bottom, so samples land at the full depth:
//  - interpreted frames: Gate.open0..open3 are called once a round, at fixed
//    depths; the JIT compiles a method after about 200 calls, so at 10
//    rounds a second they stay interpreted for the first 20 s or so;
//  - compiled frames, C1 then C2: the levels between go through one
//    interface call site with four implementations (StepA..StepD), which
//    the JIT never inlines (a megamorphic site), so every level stays a
//    frame of its own while Level.descend is inlined into each;
//  - C2 frames with inlined callees: Leaf.spin loops hot, and Leaf.step and
//    Leaf.mix are small enough to be inlined into it.
// Prints "deep-stacks: started" at start and "deep-stacks: done" at the end;
// SECONDS = 0 runs until killed.

public final class DeepStacks {
    static volatile long sink;
    static int depth = 32;

    public static void main(String[] args) {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 30;
        if (args.length > 1) {
            depth = Math.max(8, Integer.parseInt(args[1]));
        }
        long deadline = seconds == 0 ? Long.MAX_VALUE
                : System.nanoTime() + seconds * 1_000_000_000L;
        System.out.println("deep-stacks: started");
        System.out.flush();
        while (System.nanoTime() < deadline) {
            sink += Level.descend(depth);
        }
        System.out.println("deep-stacks: done " + (sink & 0xff));
    }

    static final class Level {
        // The level below d: a gate at four fixed depths, else a..d in turn.
        static long descend(int d) {
            if (d <= 0) {
                return Leaf.spin(100);
            }
            if (d == depth * 3 / 4) {
                return Gate.open0(d);
            }
            if (d == depth / 2) {
                return Gate.open1(d);
            }
            if (d == depth / 4) {
                return Gate.open2(d);
            }
            if (d == 3) {
                return Gate.open3(d);
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

    static final class Gate {
        static long open0(int d) { return Level.descend(d - 1) + 1; }
        static long open1(int d) { return Level.descend(d - 1) + 2; }
        static long open2(int d) { return Level.descend(d - 1) + 3; }
        static long open3(int d) { return Level.descend(d - 1) + 4; }
    }

    static final class Leaf {
        // Spin about ms milliseconds in a hot loop.
        static long spin(int ms) {
            long end = System.nanoTime() + ms * 1_000_000L, x = 1;
            while (System.nanoTime() < end) {
                for (int i = 0; i < 10_000; i++) {
                    x = step(x, i);
                }
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
