package io.kes.connector.fence;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.apache.flink.annotation.Internal;

/**
 * Which checkpoint each bulk belongs to. The bulks sent, and the buffers started, between two
 * checkpoint barriers form an epoch (the writer counts a buffer as one of its bulks from its first
 * document on); a barrier closes the current epoch, and a closed epoch is drained once every one of its
 * bulks is done (acknowledged, retried to success, or handed to the failure handler). Writes after
 * the barrier go on in the next epoch meanwhile: the checkpoint waits for its own bulks, the
 * pipeline does not.
 *
 * <p>Drained epochs come out in barrier order, never an epoch before an older one: a checkpoint
 * covers everything before its barrier, so it can only complete after every older bulk is done.
 * Task thread only.
 */
@Internal
public final class Epochs {

    /** The bulks of one epoch and what Elasticsearch acknowledged of them. */
    public static final class Epoch {
        final long number;
        public final AcknowledgedWrites acknowledged = new AcknowledgedWrites();
        /** Completes when the epoch's writes are as durable as the durability mode makes them. */
        public final CompletableFuture<Void> durable = new CompletableFuture<>();
        /** The epoch that ends a bounded input: nothing follows it to share a sync, and its fence vouches for the epochs still waiting. */
        public volatile boolean endsInput;

        private int outstanding;

        Epoch(long number) {
            this.number = number;
        }

        int outstanding() {
            return outstanding;
        }

        @Override
        public String toString() {
            return "epoch " + number + " (" + outstanding + " bulks outstanding)";
        }
    }

    private Epoch current = new Epoch(0);
    private final ArrayDeque<Epoch> closed = new ArrayDeque<>();

    /** A new bulk or buffer (not a retry: a retry stays in its first attempt's epoch) joins the current epoch. */
    public Epoch bulkSent() {
        current.outstanding++;
        return current;
    }

    /** One bulk of {@code epoch} is done for good; returns the epochs that this drained, oldest first. */
    public List<Epoch> bulkDone(Epoch epoch) {
        if (epoch.outstanding <= 0) {
            throw new IllegalStateException(epoch + ": a bulk finished twice");
        }
        epoch.outstanding--;
        return drained();
    }

    /** A barrier: closes the current epoch and opens the next; returns the epochs this drained, oldest first. */
    public List<Epoch> closeCurrent() {
        closed.add(current);
        current = new Epoch(current.number + 1);
        return drained();
    }

    /** The epoch that writes go to now. */
    public Epoch current() {
        return current;
    }

    /** Closed epochs still waiting for bulks. */
    public int closedOutstanding() {
        return closed.size();
    }

    private List<Epoch> drained() {
        List<Epoch> done = List.of();
        while (!closed.isEmpty() && closed.peek().outstanding == 0) {
            if (done.isEmpty()) {
                done = new ArrayList<>();
            }
            done.add(closed.poll());
        }
        return done;
    }
}
