package io.mm2checkpoint;

import java.nio.charset.StandardCharsets;

/** Text crossing the C boundary: NUL-terminated UTF-8 going in, UTF-8 bytes coming out. */
final class NativeText {
    private NativeText() {}

    /** Rejects text that C would silently cut at its first NUL. */
    static void requireNoNul(String what, String text) {
        if (text.indexOf('\0') >= 0) {
            throw new IllegalArgumentException(what + " contains a NUL character, which C text cannot carry");
        }
    }

    /** {@code text} as UTF-8 followed by one NUL byte. */
    static byte[] cString(String text) {
        requireNoNul("text", text);
        byte[] utf8 = text.getBytes(StandardCharsets.UTF_8);
        byte[] out = new byte[utf8.length + 1];
        System.arraycopy(utf8, 0, out, 0, utf8.length);
        return out;
    }

    /** Decodes UTF-8 from the library (which only hands out valid UTF-8). */
    static String decode(byte[] utf8) {
        return utf8 == null ? null : new String(utf8, StandardCharsets.UTF_8);
    }
}
