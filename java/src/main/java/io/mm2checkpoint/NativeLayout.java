package io.mm2checkpoint;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;

/**
 * The layout of the C header's structs and enums, read from {@code include/mm2_checkpoint.layout}
 * (the file ffi-tests/test_abi.c checks against the C compiler), so the Java bindings never
 * hard-code a size or offset. Found through the system property {@code mm2checkpoint.layout},
 * else next to {@code mm2checkpoint.header}, else as the class-path resource
 * {@code /io/mm2checkpoint/mm2_checkpoint.layout} (where a packaged jar carries it).
 */
final class NativeLayout {
    private static final Properties LAYOUT = load();

    private NativeLayout() {}

    private static Properties load() {
        Properties p = new Properties();
        try {
            String explicit = System.getProperty("mm2checkpoint.layout");
            String header = System.getProperty("mm2checkpoint.header");
            Path file = explicit != null ? Path.of(explicit)
                    : header != null ? Path.of(header).resolveSibling("mm2_checkpoint.layout") : null;
            if (file != null && Files.isRegularFile(file)) {
                try (InputStream in = Files.newInputStream(file)) {
                    p.load(in);
                }
                return p;
            }
            try (InputStream in = NativeLayout.class.getResourceAsStream("mm2_checkpoint.layout")) {
                if (in == null) {
                    throw new IllegalStateException("mm2_checkpoint.layout not found: set -Dmm2checkpoint.layout");
                }
                p.load(in);
            }
            return p;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A value of the file: {@code "<struct>.size"}, {@code "<struct>.<field>"} or an enum constant. */
    static long value(String key) {
        String v = LAYOUT.getProperty(key);
        if (v == null) {
            throw new IllegalStateException("mm2_checkpoint.layout has no " + key);
        }
        return Long.parseLong(v.trim());
    }

    /** {@code sizeof(struct)}. */
    static long size(String struct) {
        return value(struct + ".size");
    }

    /** {@code offsetof(struct, field)}. */
    static long offset(String struct, String field) {
        return value(struct + "." + field);
    }
}
