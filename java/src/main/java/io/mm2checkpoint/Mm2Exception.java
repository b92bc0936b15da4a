package io.mm2checkpoint;

import java.util.Optional;

/**
 * A native call failed: carries the library's result code ({@code mm_result}), its name and the
 * library's message. Configuration errors name the key: {@link #configKey()} and
 * {@link #reason()} split the library's {@code "<key>: <reason>"} text.
 */
public class Mm2Exception extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** A required pointer parameter was NULL (a bug in the binding). */
    public static final int NULL_PARAMETER = 1;
    /** The library panicked; the panic was caught at the C boundary and the JVM lives on. */
    public static final int PANIC = 2;
    /** A configuration key or value was rejected. */
    public static final int INVALID_CONFIG = 3;
    /** A parameter was out of range, or text was not UTF-8. */
    public static final int INVALID_ARGUMENT = 4;
    /** Poll or stop before start. */
    public static final int NOT_STARTED = 5;
    /** Start on a running task. */
    public static final int ALREADY_STARTED = 6;
    /** The task is already stopped (start after stop). */
    public static final int ALREADY_STOPPED = 7;
    /** Another thread is inside poll on this task. */
    public static final int BUSY = 8;
    /** A Kafka client or request failed. */
    public static final int KAFKA = 9;
    /** A bounded wait ended before the broker answered. */
    public static final int TIMED_OUT = 10;
    /** A destination buffer was too small (not seen from Java: the bindings size their buffers). */
    public static final int BUFFER_TOO_SMALL = 11;
    /** The key or item asked for does not exist (e.g. an index past a batch's end). */
    public static final int NOT_FOUND = 12;
    /** The task hit a fatal error. */
    public static final int FATAL = 13;
    /** The task was stopped while the call waited. */
    public static final int STOPPED = 14;
    /** A library thread could not be started. */
    public static final int THREAD = 15;
    /** Not valid in the task's current state. */
    public static final int INVALID_STATE = 16;
    /** Another logger owns the process's Rust {@code log} facade; the log bridge is off. */
    public static final int LOGGER_TAKEN = 17;
    /** Called from inside the log callback (stop, destroy or replacing the callback), which would deadlock. */
    public static final int IN_LOG_CALLBACK = 18;
    /** Called from inside the statistics callback (stop or destroy), which would deadlock. */
    public static final int IN_STATS_CALLBACK = 19;

    private final int code;
    private final String resultName;
    private final String nativeMessage;
    private final int kafkaCode;

    /**
     * @param code          the {@code mm_result} value
     * @param resultName    its constant's name, e.g. {@code MM_RESULT_INVALID_CONFIG}
     * @param nativeMessage the library's message for this failure
     */
    public Mm2Exception(int code, String resultName, String nativeMessage) {
        this(code, resultName, nativeMessage, 0);
    }

    /**
     * @param code          the {@code mm_result} value
     * @param resultName    its constant's name, e.g. {@code MM_RESULT_KAFKA}
     * @param nativeMessage the library's message for this failure
     * @param kafkaCode     librdkafka's {@code rd_kafka_resp_err_t} ({@code mm_last_error_kafka_code}), or 0
     */
    public Mm2Exception(int code, String resultName, String nativeMessage, int kafkaCode) {
        super(nativeMessage + " (" + resultName + ")");
        this.code = code;
        this.resultName = resultName;
        this.nativeMessage = nativeMessage;
        this.kafkaCode = kafkaCode;
    }

    /**
     * For {@link #KAFKA}: librdkafka's error code ({@code rd_kafka_resp_err_t}, e.g. -185 for a local
     * timeout, 3 for an unknown topic or partition) when the client reported one; otherwise 0.
     */
    public int kafkaCode() {
        return kafkaCode;
    }

    /** The {@code mm_result} value (one of the constants of this class). */
    public int code() {
        return code;
    }

    /** The result's constant name, e.g. {@code MM_RESULT_INVALID_CONFIG}. */
    public String resultName() {
        return resultName;
    }

    /** The library's message, without the result name. */
    public String nativeMessage() {
        return nativeMessage;
    }

    /** For a configuration error, the MM2 property it is about. */
    public Optional<String> configKey() {
        if (code != INVALID_CONFIG) {
            return Optional.empty();
        }
        int colon = nativeMessage.indexOf(": ");
        return colon < 0 ? Optional.empty() : Optional.of(nativeMessage.substring(0, colon));
    }

    /** For a configuration error, why the value was rejected; otherwise the whole message. */
    public String reason() {
        int colon = nativeMessage.indexOf(": ");
        return code == INVALID_CONFIG && colon >= 0 ? nativeMessage.substring(colon + 2) : nativeMessage;
    }
}
