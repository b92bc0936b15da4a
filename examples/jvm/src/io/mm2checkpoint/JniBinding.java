package io.mm2checkpoint;

/**
 * {@link NativeBinding} over JNI (Java 17+): each native method is one C function of
 * {@code native/mm2_checkpoint_jni.c}, which calls the same-named {@code mm_*} function and
 * nothing else. Text crosses as byte arrays — NUL-terminated UTF-8 going in (built by
 * {@link NativeText#cString}), UTF-8 coming out — so no text depends on JNI's modified UTF-8.
 * Failed calls throw {@link Mm2Exception} from C through {@link #failure}.
 */
final class JniBinding implements NativeBinding {

    /**
     * Loads the bridge: {@code bridgePath} when given, else {@code libmm2_checkpoint_jni.so} from
     * {@code java.library.path}.
     */
    JniBinding(String bridgePath) {
        if (bridgePath != null) {
            System.load(bridgePath);
        } else {
            System.loadLibrary("mm2_checkpoint_jni");
        }
        init();
    }

    @Override
    public String name() {
        return "jni";
    }

    @Override
    public String version() {
        return NativeText.decode(nVersion());
    }

    @Override
    public String resultStr(int code) {
        return NativeText.decode(nResultStr(code));
    }

    @Override
    public long[] diagnostics() {
        long[] out = new long[3];
        nDiagnostics(out);
        return out;
    }

    @Override
    public void setLogBridge(int maxLevel) {
        nSetLogBridge(maxLevel);
    }

    @Override
    public long confNew() {
        return nConfNew();
    }

    @Override
    public void confSet(long conf, String key, String value) {
        nConfSet(conf, NativeText.cString(key), NativeText.cString(value));
    }

    @Override
    public void confDestroy(long conf) {
        nConfDestroy(conf);
    }

    @Override
    public long taskNew(long conf) {
        return nTaskNew(conf);
    }

    @Override
    public void taskStart(long task) {
        nTaskStart(task);
    }

    @Override
    public long taskPoll(long task, int timeoutMs) {
        return nTaskPoll(task, timeoutMs);
    }

    @Override
    public boolean taskStop(long task) {
        return nTaskStop(task);
    }

    @Override
    public void taskDestroy(long task) {
        nTaskDestroy(task);
    }

    @Override
    public String taskFatalError(long task) {
        return NativeText.decode(nTaskFatalError(task));
    }

    @Override
    public long[] taskStats(long task) {
        long[] out = new long[11];
        nTaskStats(task, out);
        return out;
    }

    @Override
    public int batchStatus(long batch) {
        return nBatchStatus(batch);
    }

    @Override
    public int batchLen(long batch) {
        return Math.toIntExact(nBatchLen(batch));
    }

    @Override
    public String batchGroup(long batch, int index) {
        return NativeText.decode(nBatchText(batch, index, 0));
    }

    @Override
    public String batchTopic(long batch, int index) {
        return NativeText.decode(nBatchText(batch, index, 1));
    }

    @Override
    public String batchMetadata(long batch, int index) {
        return NativeText.decode(nBatchText(batch, index, 2));
    }

    @Override
    public int batchPartition(long batch, int index) {
        return nBatchPartition(batch, index);
    }

    @Override
    public long batchUpstreamOffset(long batch, int index) {
        return nBatchUpstreamOffset(batch, index);
    }

    @Override
    public long batchDownstreamOffset(long batch, int index) {
        return nBatchDownstreamOffset(batch, index);
    }

    @Override
    public void batchDestroy(long batch) {
        nBatchDestroy(batch);
    }

    @Override
    public long embeddedNew() {
        return nEmbeddedNew();
    }

    @Override
    public void embeddedDestroy(long embedded) {
        nEmbeddedDestroy(embedded);
    }

    @Override
    public String embeddedBootstrap(long embedded, int side) {
        return NativeText.decode(nEmbeddedBootstrap(embedded, side));
    }

    @Override
    public void embeddedCreateTopic(long embedded, int side, String topic, int partitions) {
        nEmbeddedCreateTopic(embedded, side, NativeText.cString(topic), partitions);
    }

    @Override
    public void embeddedProduceData(long embedded, int side, String topic, int partition, long count) {
        nEmbeddedProduceData(embedded, side, NativeText.cString(topic), partition, count);
    }

    @Override
    public void embeddedProduceOffsetSyncs(long embedded, int side, String syncsTopic, String topic, int partition,
            long[] upstreamOffsets, long[] downstreamOffsets) {
        nEmbeddedProduceOffsetSyncs(embedded, side, NativeText.cString(syncsTopic), NativeText.cString(topic),
                partition, upstreamOffsets, downstreamOffsets);
    }

    @Override
    public void embeddedCommitOffset(long embedded, int side, String group, String topic, int partition, long offset,
            String metadata) {
        nEmbeddedCommitOffset(embedded, side, NativeText.cString(group), NativeText.cString(topic), partition, offset,
                NativeText.cString(metadata));
    }

    @Override
    public long embeddedReadCheckpoints(long embedded, String checkpointsTopic) {
        return nEmbeddedReadCheckpoints(embedded, NativeText.cString(checkpointsTopic));
    }

    // ---- called from C ------------------------------------------------------------------

    /** Builds the exception C throws for a failed call (C then throws it with {@code Throw}). */
    static Mm2Exception failure(int code, byte[] message) {
        return NativeLibrary.failure(code, NativeText.decode(message));
    }

    /** As {@link #failure}, for a constructor that returned NULL (see {@link NativeLibrary#constructorFailure}). */
    static Mm2Exception constructorFailure(int usualCode, byte[] message) {
        return NativeLibrary.constructorFailure(usualCode, NativeText.decode(message));
    }

    /** The log callback's Java half; runs on the logging thread (attached by C if needed). Never throws. */
    static void onLog(int level, byte[] target, byte[] message) {
        try {
            LogBridge.deliver(level, NativeText.decode(target), NativeText.decode(message));
        } catch (Throwable t) {
            LogBridge.deliveryFailed(t);
        }
    }

    // ---- the C bridge ---------------------------------------------------------------------

    /** Caches the class and method IDs C calls back into; checks the bridge matches this class. */
    private static native void init();

    private static native byte[] nVersion();

    private static native byte[] nResultStr(int code);

    private static native void nDiagnostics(long[] out);

    private static native void nSetLogBridge(int maxLevel);

    private static native long nConfNew();

    private static native void nConfSet(long conf, byte[] key, byte[] value);

    private static native void nConfDestroy(long conf);

    private static native long nTaskNew(long conf);

    private static native void nTaskStart(long task);

    private static native long nTaskPoll(long task, int timeoutMs);

    private static native boolean nTaskStop(long task);

    private static native void nTaskDestroy(long task);

    private static native byte[] nTaskFatalError(long task);

    private static native void nTaskStats(long task, long[] out);

    private static native int nBatchStatus(long batch);

    private static native long nBatchLen(long batch);

    /** {@code which}: 0 group, 1 topic, 2 metadata. */
    private static native byte[] nBatchText(long batch, long index, int which);

    private static native int nBatchPartition(long batch, long index);

    private static native long nBatchUpstreamOffset(long batch, long index);

    private static native long nBatchDownstreamOffset(long batch, long index);

    private static native void nBatchDestroy(long batch);

    private static native long nEmbeddedNew();

    private static native void nEmbeddedDestroy(long embedded);

    private static native byte[] nEmbeddedBootstrap(long embedded, int side);

    private static native void nEmbeddedCreateTopic(long embedded, int side, byte[] topic, int partitions);

    private static native void nEmbeddedProduceData(long embedded, int side, byte[] topic, int partition, long count);

    private static native void nEmbeddedProduceOffsetSyncs(long embedded, int side, byte[] syncsTopic, byte[] topic,
            int partition, long[] upstreamOffsets, long[] downstreamOffsets);

    private static native void nEmbeddedCommitOffset(long embedded, int side, byte[] group, byte[] topic,
            int partition, long offset, byte[] metadata);

    private static native long nEmbeddedReadCheckpoints(long embedded, byte[] checkpointsTopic);
}
