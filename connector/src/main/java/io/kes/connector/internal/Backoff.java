package io.kes.connector.internal;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.flink.annotation.Internal;

/**
 * Exponential backoff with "equal jitter": the n-th retry waits between half and all of
 * min(max, initial * 2^n). Jitter keeps many writers that were rejected together from coming back
 * together; the floor keeps a rejected writer from hammering a busy node.
 */
@Internal
public final class Backoff {

    private final long initialMillis;
    private final long maxMillis;

    public Backoff(Duration initial, Duration max) {
        this.initialMillis = initial.toMillis();
        this.maxMillis = max.toMillis();
    }

    public long delayMillis(int attempt) {
        long ceiling = initialMillis << Math.min(attempt, 30);
        if (ceiling <= 0 || ceiling > maxMillis) {
            ceiling = maxMillis;
        }
        long half = ceiling / 2;
        return half + ThreadLocalRandom.current().nextLong(ceiling - half + 1);
    }
}
