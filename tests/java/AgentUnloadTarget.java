/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AgentUnloadTarget - loaded many times, each copy in its own class loader,
 * by AgentUnload; its methods get hot and compiled, then the loaders are
 * dropped so the classes (and their compiled code) are unloaded.
 */
public class AgentUnloadTarget {
	public long spin(int n) {
		long s = 0;
		for (int i = 0; i < n; i++)
			s += step(i, s);
		return s;
	}

	private static long step(int i, long s) {
		return (i * 17L) ^ (s >>> 5);
	}
}
