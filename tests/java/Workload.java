/* SPDX-License-Identifier: Apache-2.0 */
// tests/java/Workload.java - a JVM that keeps its JIT compilers busy.
//
//   java -cp DIR Workload SECONDS [THREADS]
//
// Cycles through ~50 small, distinct methods in several classes (arithmetic,
// strings, regex, collections, lambdas and streams, BigInteger, recursion)
// so that many get C1- and then C2-compiled, which is what jsym's agent has
// to report.  Deterministic inputs, modest allocation (-Xmx128m is plenty).
// Prints "workload: started" at start and "workload: done" at the end;
// SECONDS = 0 runs until killed.

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.IntUnaryOperator;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

public final class Workload {
    interface Task {
        long run(int n);
    }

    static volatile long sink;

    static final Task[] TASKS = {
        Arith::sumSquares, Arith::collatzSteps, Arith::gcdSum, Arith::primeCount,
        Arith::xorShift, Arith::fixedPointSqrt, Arith::bitCounts, Arith::floatPoly,
        Strs::buildCsv, Strs::reverseWords, Strs::countVowels, Strs::caesar,
        Strs::palindromes, Strs::hexDump, Strs::splitJoin, Strs::formatNumbers,
        Rx::matchDates, Rx::extractWords, Rx::replaceDigits, Rx::splitTokens,
        Rx::validateIds, Rx::groupPairs,
        Colls::hashCount, Colls::treeRange, Colls::sortList, Colls::dedupe,
        Colls::mergeMaps, Colls::queueSim, Colls::binarySearchAll, Colls::shuffleSort,
        Funcs::streamSum, Funcs::streamGroup, Funcs::composeOps, Funcs::filterMap,
        Funcs::reduceMax, Funcs::sortedDistinct, Funcs::joinStrings,
        Bigs::factorial, Bigs::fibBig, Bigs::modPow, Bigs::digitSum, Bigs::gcdBig,
        Recur::fib, Recur::ackermann, Recur::hanoi, Recur::permutations,
        Recur::treeDepth, Recur::floodFill, Recur::powerSet,
    };

    public static void main(String[] args) throws Exception {
        long seconds = args.length > 0 ? Long.parseLong(args[0]) : 10;
        int threads = args.length > 1 ? Math.max(1, Integer.parseInt(args[1])) : 1;
        long deadline = seconds == 0 ? Long.MAX_VALUE
                : System.nanoTime() + seconds * 1_000_000_000L;
        System.out.println("workload: started");
        System.out.flush();
        Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int offset = t * 7;
            workers[t] = new Thread(() -> loop(offset, deadline), "workload-" + t);
            workers[t].start();
        }
        for (Thread w : workers) {
            w.join();
        }
        System.out.println("workload: done");
        System.out.flush();
    }

    static void loop(int offset, long deadline) {
        long acc = 0;
        for (long round = 0; System.nanoTime() < deadline; round++) {
            for (int i = 0; i < TASKS.length; i++) {
                Task task = TASKS[(i + offset) % TASKS.length];
                acc += task.run(16 + (int) ((round + i) % 48));
            }
            sink = acc;
            // Leave the other cores some air between rounds.
            if ((round & 3) == 3) {
                try {
                    Thread.sleep(1);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }
    }
}

final class Arith {
    static long sumSquares(int n) {
        long s = 0;
        for (int i = 0; i < n * 64; i++) s += (long) i * i;
        return s;
    }

    static long collatzSteps(int n) {
        long steps = 0;
        for (int i = 1; i < n * 8; i++) {
            long x = i;
            while (x != 1) {
                x = (x & 1) == 0 ? x >> 1 : 3 * x + 1;
                steps++;
            }
        }
        return steps;
    }

    static long gcd(long a, long b) {
        while (b != 0) {
            long t = a % b;
            a = b;
            b = t;
        }
        return a;
    }

    static long gcdSum(int n) {
        long s = 0;
        for (int i = 1; i < n * 4; i++)
            for (int j = 1; j < 32; j++) s += gcd(i * 31L, j * 17L);
        return s;
    }

    static long primeCount(int n) {
        int limit = n * 40, count = 0;
        for (int i = 2; i < limit; i++) {
            boolean prime = true;
            for (int d = 2; (long) d * d <= i; d++)
                if (i % d == 0) { prime = false; break; }
            if (prime) count++;
        }
        return count;
    }

    static long xorShift(int n) {
        long x = 88172645463325252L + n;
        for (int i = 0; i < n * 100; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }

    static long fixedPointSqrt(int n) {
        long s = 0;
        for (int i = 1; i < n * 20; i++) {
            long v = (long) i << 16, r = v;
            for (int k = 0; k < 12; k++) r = (r + v / Math.max(1, r)) >> 1;
            s += r;
        }
        return s;
    }

    static long bitCounts(int n) {
        long s = 0;
        for (int i = 0; i < n * 200; i++) s += Integer.bitCount(i * 0x9E3779B9) + Long.numberOfTrailingZeros(i | 1024);
        return s;
    }

    static long floatPoly(int n) {
        double acc = 0;
        for (int i = 0; i < n * 50; i++) {
            double x = i * 0.001;
            acc += ((3.0 * x - 2.0) * x + 1.5) * x - Math.sqrt(x + 1.0);
        }
        return (long) acc;
    }
}

final class Strs {
    static long buildCsv(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n * 4; i++) sb.append(i).append(',').append("item").append(i % 7).append('\n');
        return sb.length();
    }

    static long reverseWords(int n) {
        String text = "the quick brown fox jumps over the lazy dog " + n;
        String[] words = text.split(" ");
        StringBuilder sb = new StringBuilder();
        for (int i = words.length - 1; i >= 0; i--) sb.append(new StringBuilder(words[i]).reverse()).append(' ');
        return sb.toString().hashCode();
    }

    static long countVowels(int n) {
        String s = "Sphinx of black quartz, judge my vow; pack my box with five dozen liquor jugs";
        long c = 0;
        for (int r = 0; r < n; r++)
            for (int i = 0; i < s.length(); i++)
                if ("aeiouAEIOU".indexOf(s.charAt(i)) >= 0) c++;
        return c;
    }

    static long caesar(int n) {
        char[] out = "attack at dawn, retreat at dusk".toCharArray();
        for (int r = 0; r < n; r++)
            for (int i = 0; i < out.length; i++)
                if (Character.isLetter(out[i])) out[i] = (char) ('a' + (out[i] - 'a' + 3) % 26);
        return new String(out).hashCode();
    }

    static long palindromes(int n) {
        long c = 0;
        for (int i = 0; i < n * 30; i++) {
            String s = Integer.toString(i);
            if (new StringBuilder(s).reverse().toString().equals(s)) c++;
        }
        return c;
    }

    static long hexDump(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < n * 8; i++) sb.append(Integer.toHexString(i * 2654435761L > 0 ? i : -i)).append(':');
        return sb.length();
    }

    static long splitJoin(int n) {
        String s = String.join("/", Collections.nCopies(n, "usr/lib/jvm"));
        return String.join(".", s.split("/")).length();
    }

    static long formatNumbers(int n) {
        long len = 0;
        for (int i = 0; i < n; i++) len += String.format("%08d|%-6s|%.3f", i, "x" + i, i / 3.0).length();
        return len;
    }
}

final class Rx {
    static final Pattern DATE = Pattern.compile("(\\d{4})-(\\d{2})-(\\d{2})");
    static final Pattern WORD = Pattern.compile("[A-Za-z]+");
    static final Pattern DIGITS = Pattern.compile("\\d+");
    static final Pattern SEP = Pattern.compile("[,;:\\s]+");
    static final Pattern ID = Pattern.compile("^[a-z][a-z0-9_]{2,15}$");
    static final Pattern PAIR = Pattern.compile("(\\w+)=(\\w+)");

    static long matchDates(int n) {
        Matcher m = DATE.matcher("from 2024-01-15 to 2024-02-29, then 2025-12-31 and 1999-07-04");
        long s = 0;
        for (int r = 0; r < n / 4 + 1; r++) {
            m.reset();
            while (m.find()) s += Integer.parseInt(m.group(1)) + Integer.parseInt(m.group(3));
        }
        return s;
    }

    static long extractWords(int n) {
        Matcher m = WORD.matcher("JIT compiled code, 42 frames; perf maps and journals v2");
        long c = 0;
        for (int r = 0; r < n / 4 + 1; r++) {
            m.reset();
            while (m.find()) c += m.end() - m.start();
        }
        return c;
    }

    static long replaceDigits(int n) {
        return DIGITS.matcher("pid 4242 tid 4243 addr 140737 size " + n).replaceAll("#").length();
    }

    static long splitTokens(int n) {
        long c = 0;
        for (int r = 0; r < n / 8 + 1; r++) c += SEP.split("a, b;c  d:e,f ;g h").length;
        return c;
    }

    static long validateIds(int n) {
        String[] ids = {"jsym", "perf_map", "9bad", "ok_id_7", "x", "averyveryverylongidentifier"};
        long c = 0;
        for (int r = 0; r < n; r++)
            for (String id : ids) if (ID.matcher(id).matches()) c++;
        return c;
    }

    static long groupPairs(int n) {
        Matcher m = PAIR.matcher("dir=tmp unfold=yes flush_ms=100 verbose=no stop=0");
        Map<String, String> kv = new HashMap<>();
        for (int r = 0; r < n / 8 + 1; r++) {
            m.reset();
            while (m.find()) kv.put(m.group(1), m.group(2));
        }
        return kv.size();
    }
}

final class Colls {
    static long hashCount(int n) {
        Map<Integer, Integer> counts = new HashMap<>();
        for (int i = 0; i < n * 16; i++) counts.merge(i % 97, 1, Integer::sum);
        return counts.get(0);
    }

    static long treeRange(int n) {
        TreeMap<Integer, String> t = new TreeMap<>();
        for (int i = 0; i < n * 4; i++) t.put((i * 37) % 1009, "v");
        return t.subMap(100, 600).size() + t.headMap(50).size();
    }

    static long sortList(int n) {
        List<Integer> l = new ArrayList<>();
        for (int i = 0; i < n * 8; i++) l.add((i * 7919) % 1013);
        Collections.sort(l);
        return l.get(l.size() / 2);
    }

    static long dedupe(int n) {
        List<String> l = new ArrayList<>();
        for (int i = 0; i < n * 4; i++) l.add("k" + (i % 23));
        return l.stream().distinct().count();
    }

    static long mergeMaps(int n) {
        Map<String, Integer> a = new HashMap<>(), b = new HashMap<>();
        for (int i = 0; i < n; i++) {
            a.put("a" + i, i);
            b.put("a" + (i * 2), i);
        }
        b.forEach((k, v) -> a.merge(k, v, Integer::sum));
        return a.size();
    }

    static long queueSim(int n) {
        java.util.ArrayDeque<Integer> q = new java.util.ArrayDeque<>();
        long s = 0;
        for (int i = 0; i < n * 16; i++) {
            q.add(i);
            if (q.size() > 8) s += q.poll();
        }
        return s;
    }

    static long binarySearchAll(int n) {
        int[] a = new int[n * 8];
        for (int i = 0; i < a.length; i++) a[i] = i * 3;
        long hits = 0;
        for (int i = 0; i < a.length * 3; i++) if (Arrays.binarySearch(a, i) >= 0) hits++;
        return hits;
    }

    static long shuffleSort(int n) {
        List<Integer> l = new ArrayList<>();
        for (int i = 0; i < n * 4; i++) l.add(i);
        Collections.shuffle(l, new java.util.Random(n));
        l.sort(Collections.reverseOrder());
        return l.get(0);
    }
}

final class Funcs {
    static long streamSum(int n) {
        return IntStream.range(0, n * 32).filter(i -> i % 3 == 0).mapToLong(i -> (long) i * i).sum();
    }

    static long streamGroup(int n) {
        Map<Integer, Long> g = IntStream.range(0, n * 8).boxed()
                .collect(Collectors.groupingBy(i -> i % 5, Collectors.counting()));
        return g.get(0);
    }

    static long composeOps(int n) {
        IntUnaryOperator f = x -> x + 3;
        IntUnaryOperator g = f.andThen(x -> x * 2).compose(x -> x - 1);
        long s = 0;
        for (int i = 0; i < n * 32; i++) s += g.applyAsInt(i);
        return s;
    }

    static long filterMap(int n) {
        return IntStream.rangeClosed(1, n * 8).mapToObj(Integer::toString)
                .filter(s -> s.contains("7")).mapToInt(String::length).sum();
    }

    static long reduceMax(int n) {
        return IntStream.range(0, n * 16).map(i -> (i * 31) % 977).reduce(Integer::max).orElse(0);
    }

    static long sortedDistinct(int n) {
        return IntStream.range(0, n * 8).map(i -> i % 41).distinct().sorted().limit(10).sum();
    }

    static long joinStrings(int n) {
        return IntStream.range(0, n).mapToObj(i -> "f" + i).collect(Collectors.joining(",", "[", "]")).length();
    }
}

final class Bigs {
    static long factorial(int n) {
        BigInteger f = BigInteger.ONE;
        for (int i = 2; i <= n + 10; i++) f = f.multiply(BigInteger.valueOf(i));
        return f.bitLength();
    }

    static long fibBig(int n) {
        BigInteger a = BigInteger.ZERO, b = BigInteger.ONE;
        for (int i = 0; i < n * 4; i++) {
            BigInteger t = a.add(b);
            a = b;
            b = t;
        }
        return b.bitLength();
    }

    static long modPow(int n) {
        BigInteger m = BigInteger.valueOf(1_000_000_007L);
        return BigInteger.valueOf(n + 2).modPow(BigInteger.valueOf(65537L * n), m).longValue();
    }

    static long digitSum(int n) {
        String s = BigInteger.valueOf(2).pow(n * 8).toString();
        long sum = 0;
        for (int i = 0; i < s.length(); i++) sum += s.charAt(i) - '0';
        return sum;
    }

    static long gcdBig(int n) {
        BigInteger a = BigInteger.valueOf(2).pow(n + 30).subtract(BigInteger.ONE);
        BigInteger b = BigInteger.valueOf(3).pow(n / 2 + 10).add(BigInteger.TEN);
        return a.gcd(b).longValue();
    }
}

final class Recur {
    static long fib(int n) {
        return fibRec(10 + n % 10);
    }

    static long fibRec(int n) {
        return n < 2 ? n : fibRec(n - 1) + fibRec(n - 2);
    }

    static long ackermann(int n) {
        return ack(2, n % 20);
    }

    static long ack(long m, long n) {
        if (m == 0) return n + 1;
        if (n == 0) return ack(m - 1, 1);
        return ack(m - 1, ack(m, n - 1));
    }

    static long hanoi(int n) {
        return moves(8 + n % 6, 1, 3, 2);
    }

    static long moves(int disks, int from, int to, int via) {
        if (disks == 0) return 0;
        return moves(disks - 1, from, via, to) + 1 + moves(disks - 1, via, to, from);
    }

    static long permutations(int n) {
        int[] a = {1, 2, 3, 4, 5, 6};
        return permute(a, 0);
    }

    static long permute(int[] a, int k) {
        if (k == a.length) return a[0] * 10L + a[a.length - 1];
        long s = 0;
        for (int i = k; i < a.length; i++) {
            int t = a[k]; a[k] = a[i]; a[i] = t;
            s += permute(a, k + 1);
            t = a[k]; a[k] = a[i]; a[i] = t;
        }
        return s;
    }

    static long treeDepth(int n) {
        return depth(0, n * 16);
    }

    static long depth(int lo, int hi) {
        if (hi - lo <= 1) return 1;
        int mid = (lo + hi) >>> 1;
        return 1 + Math.max(depth(lo, mid), depth(mid, hi));
    }

    static long floodFill(int n) {
        int size = 16 + n % 8;
        boolean[][] seen = new boolean[size][size];
        return fill(seen, 0, 0);
    }

    static long fill(boolean[][] g, int x, int y) {
        if (x < 0 || y < 0 || x >= g.length || y >= g.length || g[x][y] || (x * y) % 7 == 3) return 0;
        g[x][y] = true;
        return 1 + fill(g, x + 1, y) + fill(g, x, y + 1) + fill(g, x - 1, y) + fill(g, x, y - 1);
    }

    static long powerSet(int n) {
        return subsets(new int[] {3, 5, 7, 11, 13, 17, 19, 23, 29, 31}, 0, 0);
    }

    static long subsets(int[] a, int i, long sum) {
        if (i == a.length) return sum % 97;
        return subsets(a, i + 1, sum) + subsets(a, i + 1, sum + a[i]);
    }
}
