package io.mm2checkpoint.test;

import io.mm2checkpoint.CheckpointConfig;
import io.mm2checkpoint.Mm2Exception;
import java.io.IOException;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * One text, one meaning: a {@code .properties} text loaded through the Java API
 * ({@link CheckpointConfig.Builder#load}, then {@link CheckpointConfig#describe()}) resolves to the
 * same configuration as through the Rust API, and a rejected text fails with the same message.
 * The Rust results are committed under {@code tests/config_parity/} by the Rust test
 * {@code tests/config_parity.rs}, which also checks them for drift.
 */
@Timeout(120)
public final class ConfigParityTest {
    private static final Path REPO = Path.of(System.getProperty("mm2checkpoint.repo"));
    private static final Path GOLDEN = REPO.resolve("tests/config_parity");

    /** The files directly in {@code dir} whose name ends with {@code suffix}, sorted. */
    private static List<Path> filesEnding(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted()
                    .collect(Collectors.toList());
        }
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    /** The text as a Java user loads it: properties read by the builder, then described. */
    private static String describeThroughJava(String text) throws IOException {
        return CheckpointConfig.builder().load(new StringReader(text)).build().describe();
    }

    private static String stem(Path file) {
        String name = file.getFileName().toString();
        return name.substring(0, name.lastIndexOf('.'));
    }

    @Test
    public void everyShippedPropertiesFileIsDescribedThroughJavaAsThroughRust() throws IOException {
        List<Path> shipped = filesEnding(REPO.resolve("examples"), ".properties");
        Check.isTrue(shipped.size() >= 3, "shipped properties files: " + shipped);
        for (Path file : shipped) {
            Path golden = GOLDEN.resolve(stem(file) + ".describe.txt");
            Check.isTrue(Files.exists(golden), golden + " is missing: run the Rust test config_parity "
                    + "with MM2_BLESS=1");
            String described = describeThroughJava(read(file));
            Check.equal(read(golden), described, file.getFileName() + " described through Java");
        }
    }

    @Test
    public void aDescriptionShowsNoSecret() throws IOException {
        String described = describeThroughJava("clusters = A, B\nA->B.enabled = true\n"
                + "A.bootstrap.servers = 127.0.0.1:1\nB.bootstrap.servers = 127.0.0.1:1\n"
                + "B.security.protocol = SASL_SSL\nB.sasl.mechanism = PLAIN\n"
                + "B.sasl.jaas.config = org.apache.kafka.common.security.plain.PlainLoginModule required "
                + "username=\"u\" password=\"planted-secret-42\";\n"
                + "B.ssl.key.password = planted-secret-43\n");
        Check.isTrue(!described.contains("planted-secret"), "a secret in the description:\n" + described);
        Check.isTrue(described.contains("[hidden]"), "secret values shown as [hidden]:\n" + described);
    }

    @Test
    public void aRejectedTextFailsThroughJavaWithTheRustMessage() throws IOException {
        List<Path> cases = filesEnding(GOLDEN.resolve("rejected"), ".properties");
        Check.isTrue(cases.size() >= 7, "rejected texts: " + cases);
        for (Path file : cases) {
            String expected = read(file.resolveSibling(stem(file) + ".error"));
            String text = read(file);
            Mm2Exception e = Check.throwsType(Mm2Exception.class, () -> describeThroughJava(text),
                    file.getFileName().toString());
            Check.equal(Mm2Exception.INVALID_CONFIG, e.code(), file.getFileName() + ": result");
            Check.equal(expected, e.nativeMessage(), file.getFileName() + ": message");
        }
    }
}
