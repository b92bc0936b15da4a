package io.mm2checkpoint.test;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The jar's native files are built for the platform whose directory holds them: for
 * {@code linux-x86_64} and {@code linux-aarch64}, the library and the JNI bridge are 64-bit
 * little-endian ELF files of that machine (e_machine 62, 183), the library carries the SONAME
 * {@code libmm2_checkpoint.so.<MM2_CHECKPOINT_ABI_VERSION>} and is stored under it, and the bridge
 * needs that name and finds it beside itself (runpath {@code $ORIGIN}). The SONAME and the
 * dynamic entries are read with {@code readelf -d}, as ffi-tests/run.sh reads them.
 *
 * <p>The jar's library is the one users run: it exports no function of the test-only mock
 * clusters ({@code mm_embedded_*}). The test kit (classifier {@code testkit}) holds the same
 * files under {@code native-test/}, its library with the mock clusters.
 *
 * <p>linux-aarch64 is required when the build was given {@code mm2.native.lib.aarch64} (CI);
 * a developer build without it skips that half.
 */
@Timeout(60)
public final class NativeEntriesTest {
    private static final int EM_X86_64 = 62;
    private static final int EM_AARCH64 = 183;

    @Test
    public void theX8664EntryHoldsX8664Files(@TempDir Path dir) throws Exception {
        checkPlatform(jar(), "native/", "linux-x86_64", EM_X86_64, dir, false);
    }

    @Test
    public void theTestKitsX8664EntryHoldsTheLibraryWithTheMockClusters(@TempDir Path dir) throws Exception {
        checkPlatform(testKitJar(), "native-test/", "linux-x86_64", EM_X86_64, dir, true);
    }

    @Test
    public void theAarch64EntryHoldsAarch64FilesWithTheSoname(@TempDir Path dir) throws Exception {
        requireAarch64(jar(), "native/");
        checkPlatform(jar(), "native/", "linux-aarch64", EM_AARCH64, dir, false);
    }

    @Test
    public void theTestKitsAarch64EntryHoldsTheLibraryWithTheMockClusters(@TempDir Path dir) throws Exception {
        requireAarch64(testKitJar(), "native-test/");
        checkPlatform(testKitJar(), "native-test/", "linux-aarch64", EM_AARCH64, dir, true);
    }

    /** Skips without linux-aarch64 files, unless the build was told to carry them. */
    private static void requireAarch64(String jarPath, String root) throws IOException {
        String given = System.getProperty("mm2checkpoint.expectAarch64", "");
        try (JarFile jar = new JarFile(jarPath)) {
            boolean present = jar.getEntry(root + "linux-aarch64/index.properties") != null;
            if (given.isEmpty()) {
                Assumptions.assumeTrue(present, "built without mm2.native.lib.aarch64: " + jarPath + " carries no linux-aarch64 files");
            } else {
                Check.isTrue(present, "mm2.native.lib.aarch64=" + given + " was given, yet " + jarPath + " has no "
                        + root + "linux-aarch64");
            }
        }
    }

    private static void checkPlatform(String jarPath, String root, String platform, int machine, Path dir,
            boolean mockClusters) throws Exception {
        String soname = "libmm2_checkpoint.so." + abiVersion();
        try (JarFile jar = new JarFile(jarPath)) {
            Properties index = new Properties();
            JarEntry indexEntry = jar.getJarEntry(root + platform + "/index.properties");
            Check.isTrue(indexEntry != null, root + platform + "/index.properties in " + jarPath);
            try (InputStream in = jar.getInputStream(indexEntry)) {
                index.load(in);
            }
            Check.equal(soname, index.getProperty("library"), platform + ": the library is stored under its SONAME");
            Path library = extract(jar, root, platform, index.getProperty("library"), dir);
            Path bridge = extract(jar, root, platform, index.getProperty("bridge"), dir);

            for (Path file : List.of(library, bridge)) {
                checkElfHeader(file, machine, platform);
            }
            String libraryDynamic = readelf(library, "-d");
            Check.equal(soname, single(libraryDynamic, "Library soname: \\[(.*)\\]"), platform + ": SONAME of the library");
            String bridgeDynamic = readelf(bridge, "-d");
            Check.isTrue(bridgeDynamic.contains("Shared library: [" + soname + "]"),
                    platform + ": the bridge needs " + soname + ": " + bridgeDynamic);
            Check.equal("$ORIGIN", single(bridgeDynamic, "Library r(?:un)?path: \\[(.*)\\]"),
                    platform + ": the bridge finds the library beside itself");
            // Defined dynamic symbols (a section index, not UND) named mm_embedded_*.
            long mockExports = readelf(library, "--dyn-syms", "-W").lines()
                    .map(l -> l.trim().split("\\s+"))
                    .filter(f -> f.length >= 8 && !f[6].equals("UND") && f[7].startsWith("mm_embedded_"))
                    .count();
            if (mockClusters) {
                Check.isTrue(mockExports >= 8, root + platform + ": the test kit's library exports the mock clusters ("
                        + mockExports + " mm_embedded_* functions)");
            } else {
                Check.equal(0L, mockExports, root + platform + ": mm_embedded_* functions the jar's library exports");
            }
        }
    }

    /** ELF magic, 64-bit class, little-endian data and e_machine (bytes 18-19). */
    private static void checkElfHeader(Path file, int machine, String platform) throws IOException {
        byte[] header = new byte[20];
        try (InputStream in = Files.newInputStream(file)) {
            Check.equal(header.length, in.readNBytes(header, 0, header.length), file + ": ELF header length");
        }
        Check.isTrue(header[0] == 0x7f && header[1] == 'E' && header[2] == 'L' && header[3] == 'F', file + " is an ELF file");
        Check.equal(2, (int) header[4], platform + ": " + file.getFileName() + " is 64-bit (EI_CLASS)");
        Check.equal(1, (int) header[5], platform + ": " + file.getFileName() + " is little-endian (EI_DATA)");
        int eMachine = (header[18] & 0xff) | (header[19] & 0xff) << 8;
        Check.equal(machine, eMachine, platform + ": e_machine of " + file.getFileName());
    }

    private static Path extract(JarFile jar, String root, String platform, String name, Path dir) throws IOException {
        JarEntry entry = jar.getJarEntry(root + platform + "/" + name);
        Check.isTrue(entry != null, root + platform + "/" + name + " in " + jar.getName());
        Path out = dir.resolve(root.replace("/", "") + "-" + platform + "-" + name);
        try (InputStream in = jar.getInputStream(entry)) {
            Files.copy(in, out);
        }
        return out;
    }

    private static String readelf(Path file, String... options) throws Exception {
        List<String> cmd = new java.util.ArrayList<>(List.of("readelf"));
        cmd.addAll(List.of(options));
        cmd.add(file.toString());
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Check.isTrue(p.waitFor(30, TimeUnit.SECONDS), "readelf finished");
        Check.equal(0, p.exitValue(), String.join(" ", cmd) + ": " + out);
        return out;
    }

    private static String single(String text, String regex) {
        Matcher m = Pattern.compile(regex).matcher(text);
        Check.isTrue(m.find(), "/" + regex + "/ in: " + text);
        return m.group(1);
    }

    /** MM2_CHECKPOINT_ABI_VERSION from include/mm2_checkpoint.h (the SONAME's number). */
    private static String abiVersion() throws IOException {
        String header = Files.readString(Path.of(System.getProperty("mm2checkpoint.header")));
        return single(header, "#define MM2_CHECKPOINT_ABI_VERSION ([0-9]+)");
    }

    private static String jar() {
        String jar = System.getProperty("mm2checkpoint.jar");
        Check.isTrue(jar != null && new File(jar).isFile(), "-Dmm2checkpoint.jar names the built jar: " + jar);
        return jar;
    }

    private static String testKitJar() {
        String jar = System.getProperty("mm2checkpoint.testkitJar");
        Check.isTrue(jar != null && new File(jar).isFile(), "-Dmm2checkpoint.testkitJar names the test kit: " + jar);
        return jar;
    }
}
