package io.mm2checkpoint;

import java.lang.ref.Cleaner;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongConsumer;
import java.util.function.LongFunction;

/**
 * Owns one native handle and makes its destroy safe against calls still running on other
 * threads: every call holds the shared side of a lock, destroy takes the exclusive side. Closing
 * first runs {@code release} under the shared side (for a task: {@code mm_task_stop}, which makes
 * a blocked poll return), then waits for the in-flight calls and destroys. Also registered with
 * a {@link Cleaner}, so a handle whose owner is dropped unclosed is still released.
 */
final class NativeHandle implements Runnable {
    private static final Cleaner CLEANER = Cleaner.create(r -> {
        Thread t = new Thread(r, "mm2-checkpoint-cleaner");
        t.setDaemon(true);
        return t;
    });

    private final ReentrantReadWriteLock lock = new ReentrantReadWriteLock();
    private final String what;
    private final LongConsumer release;
    private final LongConsumer destroy;
    private long handle;
    private volatile boolean closed;
    private Cleaner.Cleanable cleanable;

    private NativeHandle(String what, long handle, LongConsumer release, LongConsumer destroy) {
        this.what = what;
        this.handle = handle;
        this.release = release;
        this.destroy = destroy;
    }

    /**
     * Takes ownership of {@code handle} for {@code owner}.
     *
     * @param release runs once before destroy, concurrently with calls in flight (may be a no-op)
     * @param destroy frees the handle; runs when no other call is using it
     */
    static NativeHandle register(Object owner, String what, long handle, LongConsumer release, LongConsumer destroy) {
        NativeHandle h = new NativeHandle(what, handle, release, destroy);
        h.cleanable = CLEANER.register(owner, h);
        return h;
    }

    /** Runs {@code call} with the live handle; many calls may run at once. */
    <T> T use(LongFunction<T> call) {
        ReentrantReadWriteLock.ReadLock shared = lock.readLock();
        shared.lock();
        try {
            if (closed) {
                throw new IllegalStateException(what + " is closed");
            }
            return call.apply(handle);
        } finally {
            shared.unlock();
        }
    }

    /** Runs {@code call} with the live handle. */
    void run(LongConsumer call) {
        use(h -> {
            call.accept(h);
            return null;
        });
    }

    boolean isClosed() {
        return closed;
    }

    /** Releases and destroys the handle once; later calls do nothing. Blocks until calls in flight end. */
    void close() {
        cleanable.clean();
    }

    /** The cleaning action (runs at most once, from {@link #close} or the cleaner thread). */
    @Override
    public void run() {
        RuntimeException releaseFailure = null;
        ReentrantReadWriteLock.ReadLock shared = lock.readLock();
        shared.lock();
        try {
            if (closed) {
                return;
            }
            release.accept(handle);
        } catch (RuntimeException e) {
            // The handle is freed regardless; the caller still learns why the release failed.
            releaseFailure = e;
        } finally {
            shared.unlock();
        }
        ReentrantReadWriteLock.WriteLock exclusive = lock.writeLock();
        exclusive.lock();
        try {
            if (closed) {
                return;
            }
            closed = true;
            destroy.accept(handle);
            handle = 0;
        } finally {
            exclusive.unlock();
        }
        if (releaseFailure != null) {
            throw releaseFailure;
        }
    }
}
