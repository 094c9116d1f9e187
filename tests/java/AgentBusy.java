/* SPDX-License-Identifier: Apache-2.0 */
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/*
 * AgentBusy - a small JIT-heavy workload for the agent's tests.
 *   java -cp DIR AgentBusy SECONDS
 * Prints "agent-busy: started" once the hot loop runs, then keeps several
 * methods hot (arithmetic, collections, strings, lambdas, nested classes,
 * arrays) until SECONDS have passed.
 */
public class AgentBusy {
	static final class Point {
		final int x, y;
		Point(int x, int y) { this.x = x; this.y = y; }
		long dot(Point o) { return (long) x * o.x + (long) y * o.y; }
	}

	static long heavyCompute(int n) {
		long s = 0;
		for (int i = 0; i < n; i++)
			s += (i * 31L) ^ (s >>> 3);
		return s;
	}

	static int[] fill(int[] a, String[] tags) {
		for (int i = 0; i < a.length; i++)
			a[i] = i * tags.length;
		return a;
	}

	static String text(int i) {
		return new StringBuilder("k").append(i % 977).toString();
	}

	static long round(Map<String, Integer> m, List<Point> pts, int r) {
		long acc = heavyCompute(2000 + (r & 255));
		acc += fill(new int[64], new String[] { "a", "b" })[7];
		for (int i = 0; i < 200; i++) {
			String k = text(i + r);
			m.merge(k, 1, Integer::sum);
			Point p = new Point(i, r);
			pts.add(p);
			acc += p.dot(pts.get(i / 2));
		}
		acc += pts.stream().mapToLong(p -> p.x * 2L).sum();
		pts.clear();
		return acc;
	}

	public static void main(String[] args) throws Exception {
		long seconds = args.length > 0 ? Long.parseLong(args[0]) : 10;
		long end = System.nanoTime() + seconds * 1_000_000_000L;
		Map<String, Integer> m = new HashMap<>();
		List<Point> pts = new ArrayList<>();
		long acc = 0;
		boolean said = false;
		for (int r = 0; System.nanoTime() < end; r++) {
			acc += round(m, pts, r);
			if (!said && r > 200) {
				System.out.println("agent-busy: started");
				System.out.flush();
				said = true;
			}
			if (m.size() > 5000)
				m.clear();
		}
		System.out.println("agent-busy: done " + (acc & 1));
	}
}
