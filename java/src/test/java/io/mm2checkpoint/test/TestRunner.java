package io.mm2checkpoint.test;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * A minimal test runner (no JUnit jars offline): runs every {@link Test} method of the classes
 * named on the command line (all of {@link #SUITE} when none), one at a time in source-name order,
 * each with a timeout, prints one line per test and then {@code N passed, M failed}; exits 1 when
 * anything failed or nothing ran.
 *
 * <p>Filter with {@code -Dtest.filter=substring} (matched against {@code Class.method}).
 */
public final class TestRunner {
    /** The suite run against each binding. */
    static final String[] SUITE = {
        "io.mm2checkpoint.test.ApiTest",
        "io.mm2checkpoint.test.TaskTest",
        "io.mm2checkpoint.test.RemoteClusterUtilsTest",
        "io.mm2checkpoint.test.OffsetSyncWriterTest",
        "io.mm2checkpoint.test.LogTest",
        "io.mm2checkpoint.test.StopTest",
    };

    private TestRunner() {}

    public static void main(String[] args) throws Exception {
        List<String> classes = args.length == 0 ? Arrays.asList(SUITE) : Arrays.asList(args);
        String filter = System.getProperty("test.filter", "");
        int passed = 0;
        List<String> failed = new ArrayList<>();
        boolean hung = false;
        ExecutorService pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "test-main");
            t.setDaemon(true);
            return t;
        });
        long suiteStart = System.nanoTime();
        for (String className : classes) {
            Class<?> cls = Class.forName(className);
            List<Method> tests = new ArrayList<>();
            for (Method m : cls.getDeclaredMethods()) {
                if (m.isAnnotationPresent(Test.class) && Modifier.isPublic(m.getModifiers())
                        && m.getParameterCount() == 0) {
                    tests.add(m);
                }
            }
            tests.sort(Comparator.comparing(Method::getName));
            for (Method m : tests) {
                String name = cls.getSimpleName() + "." + m.getName();
                if (!name.contains(filter)) {
                    continue;
                }
                int timeout = m.getAnnotation(Test.class).timeoutSeconds();
                long start = System.nanoTime();
                Future<?> run = pool.submit(() -> {
                    Object instance = Modifier.isStatic(m.getModifiers())
                            ? null : cls.getDeclaredConstructor().newInstance();
                    m.invoke(instance);
                    return null;
                });
                String failure = null;
                try {
                    run.get(timeout, TimeUnit.SECONDS);
                } catch (ExecutionException e) {
                    Throwable cause = e.getCause();
                    if (cause instanceof InvocationTargetException ite) {
                        cause = ite.getCause();
                    }
                    failure = describe(cause);
                } catch (TimeoutException e) {
                    failure = "timed out after " + timeout + " s (hung)";
                    hung = true;
                    run.cancel(true);
                }
                long ms = (System.nanoTime() - start) / 1_000_000;
                if (failure == null) {
                    passed++;
                    System.out.printf("PASS %s (%d ms)%n", name, ms);
                } else {
                    failed.add(name);
                    System.out.printf("FAIL %s (%d ms): %s%n", name, ms, failure);
                }
                System.out.flush();
                if (hung) {
                    break;
                }
            }
            if (hung) {
                break;
            }
        }
        long total = (System.nanoTime() - suiteStart) / 1_000_000;
        System.out.printf("binding %s, java %s, %d ms%n", System.getProperty("mm2checkpoint.binding", "default"),
                Runtime.version(), total);
        if (!failed.isEmpty()) {
            System.out.println("failed: " + String.join(", ", failed));
        }
        System.out.println(passed + " passed, " + failed.size() + " failed");
        System.out.flush();
        // A hung test leaves its thread behind; exit without waiting for it.
        System.exit(failed.isEmpty() && passed > 0 ? 0 : 1);
    }

    private static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder(String.valueOf(t));
        for (StackTraceElement e : t.getStackTrace()) {
            sb.append("\n        at ").append(e);
            if (e.getClassName().startsWith("java.lang.reflect") || e.getClassName().startsWith("jdk.internal")) {
                break;
            }
        }
        if (t.getCause() != null) {
            sb.append("\n    caused by ").append(t.getCause());
        }
        return sb.toString();
    }
}
