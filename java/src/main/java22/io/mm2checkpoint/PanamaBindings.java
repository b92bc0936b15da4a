package io.mm2checkpoint;

/** Opens the {@code java.lang.foreign} binding (this class is the jar's Java 22+ version). */
final class PanamaBindings {
    private PanamaBindings() {}

    static NativeBinding open(String library) {
        return new PanamaBinding(library);
    }
}
