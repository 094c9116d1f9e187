/* SPDX-License-Identifier: Apache-2.0 */
/*
 * AttachTarget - a small, quiet JVM for the attach scenarios.
 *
 *   java -cp DIR AttachTarget SECONDS [MARK]
 *
 * Prints "attach-target: started <pid>" once main runs (the launcher is done
 * and the signal handlers are installed), then sleeps until SECONDS have
 * passed and exits 0.  Anything else the JVM prints on stdout (a thread dump
 * after an unwanted SIGQUIT) is therefore the attacher's doing.  With MARK,
 * the property jsym.test.mark=MARK is set so a `properties` reply can be
 * matched to this very JVM.
 */
public final class AttachTarget {
    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 60;
        if (args.length > 1) {
            System.setProperty("jsym.test.mark", args[1]);
        }
        System.out.println("attach-target: started " + java.lang.management.ManagementFactory.getRuntimeMXBean().getName().split("@")[0]);
        System.out.flush();
        long end = System.nanoTime() + seconds * 1_000_000_000L;
        while (System.nanoTime() < end) {
            Thread.sleep(200);
        }
    }
}
