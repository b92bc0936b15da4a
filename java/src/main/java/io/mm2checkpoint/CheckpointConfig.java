package io.mm2checkpoint;

import java.io.IOException;
import java.io.Reader;
import java.io.StringWriter;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * A checkpoint task's configuration: MM2 property names and values, connector style
 * ({@code source.cluster.alias}, {@code source.cluster.bootstrap.servers}, ...) or dedicated
 * {@code mm2.properties} style ({@code clusters}, {@code A.bootstrap.servers},
 * {@code A->B.enabled}, ...). Immutable; build one with {@link #builder()}.
 *
 * <p>{@link Builder#build()} checks every value the key alone can judge (numbers, booleans,
 * intervals, policy classes, regexes) in the native library and throws an {@link Mm2Exception}
 * naming the key; rules that need several keys are checked when a {@link CheckpointTask} is
 * created.
 */
public final class CheckpointConfig {
    private final Map<String, String> properties;

    private CheckpointConfig(Map<String, String> properties) {
        this.properties = Collections.unmodifiableMap(new LinkedHashMap<>(properties));
    }

    /** A new, empty builder. */
    public static Builder builder() {
        return new Builder();
    }

    /** The properties in the order they were set (later sets of a key replace its value). */
    public Map<String, String> properties() {
        return properties;
    }

    /** A builder that starts from these properties. */
    public Builder toBuilder() {
        return new Builder().setAll(properties);
    }

    /**
     * The resolved configuration as a {@link CheckpointTask} would read it, in the library's one
     * canonical text ({@code mm_conf_describe}): every typed setting, then the final librdkafka
     * settings of every client the task makes, with the values of secret keys (passwords,
     * {@code sasl.jaas.config}, tokens) shown as {@code [hidden]}. The same properties give the
     * same text through the Rust, C and Java APIs, so it shows what a file means and can be
     * compared across them.
     *
     * @throws Mm2Exception with code {@link Mm2Exception#INVALID_CONFIG} when a task would refuse
     *                      this configuration (a rule across several keys), with the same message
     */
    public String describe() {
        NativeBinding binding = NativeLibrary.binding();
        long conf = toNative(binding, properties);
        try {
            return binding.confDescribe(conf);
        } finally {
            binding.confDestroy(conf);
        }
    }

    @Override
    public String toString() {
        return "CheckpointConfig" + properties;
    }

    /** Collects properties; not thread-safe. */
    public static final class Builder {
        private final Map<String, String> properties = new LinkedHashMap<>();

        private Builder() {}

        /**
         * Sets an MM2 property. Keys are trimmed as MM2 trims them. Text containing a NUL
         * character cannot cross the C boundary, so it is rejected here, with the message the
         * Rust and C APIs give for the same text (the Java suite's {@code ConfigParityTest}
         * checks that they agree).
         *
         * @throws Mm2Exception with code {@link Mm2Exception#INVALID_CONFIG} when the key or the
         *                      value contains a NUL character
         */
        public Builder set(String key, String value) {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(value, "value");
            String trimmed = key.trim();
            if (trimmed.indexOf('\0') >= 0) {
                throw invalid(trimmed.replace("\0", "\\0") + ": the key contains a NUL character");
            }
            if (value.indexOf('\0') >= 0) {
                throw invalid(trimmed + ": the value contains a NUL character, which no Kafka client"
                        + " setting or cluster alias may hold");
            }
            properties.put(trimmed, value);
            return this;
        }

        private static Mm2Exception invalid(String message) {
            return new Mm2Exception(Mm2Exception.INVALID_CONFIG, "MM_RESULT_INVALID_CONFIG", message);
        }

        /** Sets a numeric or boolean property from its Java value. */
        public Builder set(String key, Object value) {
            return set(key, String.valueOf(value));
        }

        /** Sets every entry of {@code props}, in its iteration order. */
        public Builder setAll(Map<String, String> props) {
            props.forEach(this::set);
            return this;
        }

        /**
         * Sets every entry of an {@code mm2.properties} text, read as the native library reads it
         * ({@code mm_conf_load_properties}: the Rust and C APIs' parser, so one text means the same
         * through every API): {@code java.util.Properties} syntax, a key given twice takes its last
         * value, and each value is checked as {@link #set} would check it. All or nothing: on a
         * failure nothing of the text is set.
         *
         * @throws IOException when reading fails
         * @throws Mm2Exception with code {@link Mm2Exception#INVALID_CONFIG} naming the key (or
         *                      line) and why, when the text or a value is rejected
         */
        public Builder load(Reader reader) throws IOException {
            StringWriter text = new StringWriter();
            reader.transferTo(text);
            NativeBinding binding = NativeLibrary.binding();
            long conf = binding.confNew();
            Map<String, String> loaded = new LinkedHashMap<>();
            try {
                // C text ends at a NUL; written as the escape the parser decodes to the same
                // character, a NUL in the text meets the check the Rust API gives it.
                binding.confLoadProperties(conf, text.toString().replace("\0", "\\u0000"));
                long count = binding.confCount(conf);
                for (long i = 0; i < count; i++) {
                    String key = binding.confKey(conf, i);
                    loaded.put(key, binding.confGet(conf, key));
                }
            } finally {
                binding.confDestroy(conf);
            }
            return setAll(loaded);
        }

        /**
         * Checks each value in the native library and returns the configuration.
         *
         * @throws Mm2Exception with code {@link Mm2Exception#INVALID_CONFIG} naming the first key
         *                      whose value is rejected
         */
        public CheckpointConfig build() {
            NativeBinding binding = NativeLibrary.binding();
            long conf = toNative(binding, properties);
            binding.confDestroy(conf);
            return new CheckpointConfig(properties);
        }
    }

    /** A native {@code mm_conf_t} holding these properties; the caller owns it. */
    long toNative(NativeBinding binding) {
        return toNative(binding, properties);
    }

    /** A native {@code mm_conf_t} holding {@code properties}, each checked as set; the caller owns it. */
    static long toNative(NativeBinding binding, Map<String, String> properties) {
        long conf = binding.confNew();
        try {
            for (Map.Entry<String, String> e : properties.entrySet()) {
                binding.confSet(conf, e.getKey(), e.getValue());
            }
            return conf;
        } catch (RuntimeException | Error e) {
            binding.confDestroy(conf);
            throw e;
        }
    }
}
