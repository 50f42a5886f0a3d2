package io.kes.connector.internal;

import java.util.concurrent.ThreadFactory;
import org.apache.flink.annotation.Internal;

/**
 * The one thread of a writer's helper executor (fence, primary locations, layout reads): named so
 * that a thread dump says whose it is, and a daemon so that it never keeps a JVM alive after the
 * task that owned it (the executor is shut down at close; this is for the paths that miss it).
 */
@Internal
public final class DaemonThreads {

    private DaemonThreads() {}

    public static ThreadFactory named(String name) {
        return r -> {
            Thread t = new Thread(r, name);
            t.setDaemon(true);
            return t;
        };
    }
}
