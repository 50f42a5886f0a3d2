package io.kes.connector.bulk;

import io.kes.connector.DocumentOperation;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.flink.annotation.Internal;

/**
 * Documents a router hands to a writer of its own JVM without serializing them: the router queues
 * the operation here and sends only its place through the slot exchange ({@link RoutedOperation}
 * without the operation), and the writer takes it from here when that place arrives. Measured
 * before (nineteenth session, 48 shards keyed, steady state): the exchange's serialization, copies
 * into network buffers and deserialization were 18% of the job's CPU, for documents that never
 * left the JVM.
 *
 * <p>Order and checkpoints stay the exchange's: each router has one queue per writer, filled in
 * the order it emits into its one channel to that writer, so the places arrive in the order their
 * operations were queued, with every checkpoint barrier between them where it was. A writer
 * registers under the attempt its tasks run as ({@link io.kes.connector.routing.ShardPredictor#keyOf}:
 * a keyed sink's routers and writers restart together), so a router finds only a writer of its own
 * attempt in its JVM; a writer in another JVM, or one not open yet, is not found, and the document
 * crosses serialized as before. Memory stays bounded: above {@link #MAX_WAITING_BYTES} waiting for
 * one writer, a router sends the document itself, and the exchange's buffers hold it back as they
 * always did.
 */
@Internal
public final class SameJvmHandOver {

    /** What may wait for one writer here, about what its channels' network buffers held before. */
    static final long MAX_WAITING_BYTES = 2 << 20;

    /** Open hand-overs by {@link #key}. */
    private static final Map<String, SameJvmHandOver> OPEN = new ConcurrentHashMap<>();

    private final String key;
    /** One queue per router subtask, in the order that router sent their places. */
    private final Queue<DocumentOperation>[] fromRouter;

    private final AtomicLong waitingBytes = new AtomicLong();
    private volatile boolean closed;

    @SuppressWarnings("unchecked")
    private SameJvmHandOver(String key, int routers) {
        this.key = key;
        this.fromRouter = new Queue[routers];
        for (int i = 0; i < routers; i++) {
            fromRouter[i] = new ConcurrentLinkedQueue<>();
        }
    }

    /** The key of writer {@code writer} of the sink's tasks running as {@code attempt} (ShardPredictor.keyOf). */
    public static String key(String attempt, int writer) {
        return attempt + "#" + writer;
    }

    /** Registers a writer's hand-over, from {@code routers} routers; {@link #close} removes it. */
    static SameJvmHandOver open(String key, int routers) {
        SameJvmHandOver handOver = new SameJvmHandOver(key, routers);
        OPEN.put(key, handOver);
        return handOver;
    }

    /** The writer's hand-over when that writer runs open in this JVM, else null. */
    public static SameJvmHandOver find(String key) {
        return OPEN.get(key);
    }

    /**
     * Queues {@code op} from router {@code router}; false when it must cross serialized instead (too
     * much waits for this writer, or it closed). The router then sends its place at once, before
     * anything else into the same channel.
     */
    public boolean offer(int router, DocumentOperation op) {
        long bytes = bytesOf(op);
        if (closed || waitingBytes.get() + bytes > MAX_WAITING_BYTES) {
            return false;
        }
        waitingBytes.addAndGet(bytes);
        fromRouter[router].add(op);
        return true;
    }

    /** The operation router {@code router} queued first and the writer has not taken yet. */
    DocumentOperation take(int router) {
        DocumentOperation op = fromRouter[router].poll();
        if (op == null) {
            // a place arrived for nothing queued: the exchange and this would have lost order
            throw new IllegalStateException("kes: a document handed over by router " + router + " to writer " + key
                    + " is missing; the job restarts from its last checkpoint");
        }
        waitingBytes.addAndGet(-bytesOf(op));
        return op;
    }

    /** What the writer waits for, in bytes (estimated as the memory bound counts them). */
    long waitingBytes() {
        return waitingBytes.get();
    }

    /** Unregisters it; what still waits is dropped with the task (the job restarts from its checkpoint). */
    void close() {
        closed = true;
        OPEN.remove(key, this);
    }

    /** The source, two bytes a character of id and routing, and the objects around them. */
    private static long bytesOf(DocumentOperation op) {
        byte[] source = op.source();
        return (source == null ? 0 : source.length)
                + 2L * (op.id() == null ? 0 : op.id().length())
                + 2L * (op.routing() == null ? 0 : op.routing().length())
                + 128;
    }
}
