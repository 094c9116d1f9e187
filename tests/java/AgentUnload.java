/* SPDX-License-Identifier: Apache-2.0 */
import java.io.InputStream;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

/*
 * AgentUnload - makes the JVM unload compiled code.
 *   java -XX:+UseSerialGC -cp DIR AgentUnload LOADERS HOLD_SECONDS
 * Defines AgentUnloadTarget in LOADERS private class loaders, runs each copy
 * hot until compiled ("agent-unload: hot"), waits HOLD_SECONDS, drops the
 * loaders and calls System.gc() until the classes are gone
 * ("agent-unload: dropped"), then idles HOLD_SECONDS more (the test checks
 * the perf map and the journal meanwhile).
 */
public class AgentUnload {
	static final class OneShotLoader extends ClassLoader {
		private final byte[] bytes;

		OneShotLoader(byte[] bytes) {
			super(AgentUnload.class.getClassLoader());
			this.bytes = bytes;
		}

		@Override
		protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
			if (!name.equals("AgentUnloadTarget"))
				return super.loadClass(name, resolve);
			synchronized (getClassLoadingLock(name)) {
				Class<?> c = findLoadedClass(name);
				if (c == null)
					c = defineClass(name, bytes, 0, bytes.length);
				return c;
			}
		}
	}

	static long sink;

	// InputStream.readAllBytes is JDK 9+: the class runs on JDK 8 too.
	static byte[] readAll(InputStream in) throws java.io.IOException {
		java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
		byte[] buf = new byte[8192];
		for (int n; (n = in.read(buf)) > 0; )
			out.write(buf, 0, n);
		return out.toByteArray();
	}

	public static void main(String[] args) throws Exception {
		int loaders = Integer.parseInt(args[0]);
		long hold = Long.parseLong(args[1]) * 1000;
		byte[] bytes;
		try (InputStream in = AgentUnload.class.getResourceAsStream("/AgentUnloadTarget.class")) {
			bytes = readAll(in);
		}
		List<Object> live = new ArrayList<>();
		for (int l = 0; l < loaders; l++) {
			Class<?> c = new OneShotLoader(bytes).loadClass("AgentUnloadTarget");
			Object o = c.getDeclaredConstructor().newInstance();
			Method spin = c.getMethod("spin", int.class);
			for (int i = 0; i < 3000; i++)
				sink += (Long) spin.invoke(o, 2000);
			live.add(o);
		}
		System.out.println("agent-unload: hot");
		System.out.flush();
		Thread.sleep(hold);
		live.clear();
		live = null;
		for (int i = 0; i < 10; i++) {
			System.gc();
			Thread.sleep(100);
		}
		System.out.println("agent-unload: dropped");
		System.out.flush();
		Thread.sleep(hold);
	}
}
