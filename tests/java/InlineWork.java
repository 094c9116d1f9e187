/* SPDX-License-Identifier: Apache-2.0 */
/*
 * InlineWork - a workload whose inlining is forced, for the inline-chain
 * scenario (tests/integration/26-inline-lines.sh):
 *
 *   -XX:CompileCommand=inline,InlineWork$Middle::call
 *   -XX:CompileCommand=inline,InlineWork$Inner::step
 *   -XX:CompileCommand=dontinline,InlineWork$Outer::run
 *
 * Outer.run loops over Middle.call, which calls Inner.step: the JIT compiles
 * Outer.run with both inlined, so its code holds Inner.step <- Middle.call
 * <- Outer.run.  Runs SECONDS seconds (0 = until killed), then prints the sum.
 */
public class InlineWork {
	static final class Inner {
		static long step(long x, int i) {
			long y = x * 31 + i;
			y ^= y >>> 7;
			return y + (i & 3);
		}
	}

	static final class Middle {
		static long call(long x, int i) {
			long a = Inner.step(x, i);
			long b = Inner.step(a, i + 1);
			return a - b + x;
		}
	}

	static final class Outer {
		static long run(long seed, int n) {
			long acc = seed;
			for (int i = 0; i < n; i++) {
				acc = Middle.call(acc, i);
			}
			return acc;
		}
	}

	public static void main(String[] args) throws Exception {
		long seconds = args.length > 0 ? Long.parseLong(args[0]) : 0;
		long end = System.nanoTime() + seconds * 1_000_000_000L;
		long sum = 0;
		while (seconds == 0 || System.nanoTime() < end) {
			sum += Outer.run(sum, 100_000);
		}
		System.out.println(sum);
	}
}
