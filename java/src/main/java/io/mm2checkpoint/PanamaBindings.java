package io.mm2checkpoint;

/**
 * Opens the {@code java.lang.foreign} binding. This is the Java 17 class: the binding itself
 * exists only in the jar's {@code META-INF/versions/22}, whose own {@code PanamaBindings} a Java
 * 22+ runtime loads instead of this one.
 */
final class PanamaBindings {
    private PanamaBindings() {}

    static NativeBinding open(String library) {
        throw new UnsupportedOperationException("the Panama binding needs Java 22+ and the multi-release jar"
                + " (META-INF/versions/22); this is Java " + Runtime.version());
    }
}
