/* SPDX-License-Identifier: Apache-2.0 */
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/*
 * AgentJavacHost - a JVM with thousands of compiled methods, for the agent's
 * late-attach dump-rate benchmark.
 *   java -cp DIR AgentJavacHost ROUNDS SECONDS OUTDIR SOURCE.java...
 * Runs javac in-process ROUNDS times on the sources (the JIT compiles much of
 * javac), prints "agent-javac: ready", then idles SECONDS.
 */
public class AgentJavacHost {
	public static void main(String[] args) throws Exception {
		int rounds = Integer.parseInt(args[0]);
		long seconds = Long.parseLong(args[1]);
		String[] javacArgs = new String[args.length - 1];
		javacArgs[0] = "-d";
		javacArgs[1] = args[2];
		System.arraycopy(args, 3, javacArgs, 2, args.length - 3);
		JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
		for (int i = 0; i < rounds; i++)
			if (javac.run(null, null, null, javacArgs) != 0)
				throw new IllegalStateException("javac failed");
		System.out.println("agent-javac: ready");
		System.out.flush();
		Thread.sleep(seconds * 1000);
	}
}
