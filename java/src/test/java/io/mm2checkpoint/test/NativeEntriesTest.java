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
 * The jar's native files are built for the platform whose directory holds them (issue 25): for
 * {@code linux-x86_64} and {@code linux-aarch64}, the library and the JNI bridge are 64-bit
 * little-endian ELF files of that machine (e_machine 62, 183), the library carries the SONAME
 * {@code libmm2_checkpoint.so.<MM2_CHECKPOINT_ABI_VERSION>} and is stored under it, and the bridge
 * needs that name and finds it beside itself (runpath {@code $ORIGIN}). The SONAME and the
 * dynamic entries are read with {@code readelf -d}, as ffi-tests/run.sh reads them.
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
        checkPlatform("linux-x86_64", EM_X86_64, dir);
    }

    @Test
    public void theAarch64EntryHoldsAarch64FilesWithTheSoname(@TempDir Path dir) throws Exception {
        String given = System.getProperty("mm2checkpoint.expectAarch64", "");
        try (JarFile jar = new JarFile(jar())) {
            boolean present = jar.getEntry("native/linux-aarch64/index.properties") != null;
            if (given.isEmpty()) {
                Assumptions.assumeTrue(present, "built without mm2.native.lib.aarch64: the jar carries no linux-aarch64 files");
            } else {
                Check.isTrue(present, "mm2.native.lib.aarch64=" + given + " was given, yet the jar has no native/linux-aarch64");
            }
        }
        checkPlatform("linux-aarch64", EM_AARCH64, dir);
    }

    private static void checkPlatform(String platform, int machine, Path dir) throws Exception {
        String soname = "libmm2_checkpoint.so." + abiVersion();
        try (JarFile jar = new JarFile(jar())) {
            Properties index = new Properties();
            JarEntry indexEntry = jar.getJarEntry("native/" + platform + "/index.properties");
            Check.isTrue(indexEntry != null, "native/" + platform + "/index.properties in the jar");
            try (InputStream in = jar.getInputStream(indexEntry)) {
                index.load(in);
            }
            Check.equal(soname, index.getProperty("library"), platform + ": the library is stored under its SONAME");
            Path library = extract(jar, platform, index.getProperty("library"), dir);
            Path bridge = extract(jar, platform, index.getProperty("bridge"), dir);

            for (Path file : List.of(library, bridge)) {
                checkElfHeader(file, machine, platform);
            }
            String libraryDynamic = readelfDynamic(library);
            Check.equal(soname, single(libraryDynamic, "Library soname: \\[(.*)\\]"), platform + ": SONAME of the library");
            String bridgeDynamic = readelfDynamic(bridge);
            Check.isTrue(bridgeDynamic.contains("Shared library: [" + soname + "]"),
                    platform + ": the bridge needs " + soname + ": " + bridgeDynamic);
            Check.equal("$ORIGIN", single(bridgeDynamic, "Library r(?:un)?path: \\[(.*)\\]"),
                    platform + ": the bridge finds the library beside itself");
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

    private static Path extract(JarFile jar, String platform, String name, Path dir) throws IOException {
        JarEntry entry = jar.getJarEntry("native/" + platform + "/" + name);
        Check.isTrue(entry != null, "native/" + platform + "/" + name + " in the jar");
        Path out = dir.resolve(platform + "-" + name);
        try (InputStream in = jar.getInputStream(entry)) {
            Files.copy(in, out);
        }
        return out;
    }

    private static String readelfDynamic(Path file) throws Exception {
        Process p = new ProcessBuilder("readelf", "-d", file.toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        Check.isTrue(p.waitFor(30, TimeUnit.SECONDS), "readelf finished");
        Check.equal(0, p.exitValue(), "readelf -d " + file + ": " + out);
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
}
