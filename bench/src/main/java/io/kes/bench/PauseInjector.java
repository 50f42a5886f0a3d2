package io.kes.bench;

import io.kes.stack.ElasticsearchNode;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Stands in for the GC pauses, refreshes on write threads and translog rolls that the seeds blame
 * for tail latency: SIGSTOP of one node's process tree for 200 ms every 2 s (the fixed-load
 * scenario: 1 s every 5 s), always resumed (in a {@code finally}, on {@link #stop}, and by
 * {@link BenchServers#stopAll} on exit).
 */
final class PauseInjector {

    /** How long each pause lasts, and how often one starts (the scale model simulates the same pattern). */
    static final int PAUSE_MS = 200;

    static final int PERIOD_MS = 2000;

    private final ElasticsearchNode node;
    private final BenchServers servers;
    private final int pauseMs;
    private final int periodMs;
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final Thread thread;
    private int pauses;

    PauseInjector(ElasticsearchNode node, BenchServers servers) {
        this(node, servers, PAUSE_MS, PERIOD_MS);
    }

    PauseInjector(ElasticsearchNode node, BenchServers servers, int pauseMs, int periodMs) {
        this.node = node;
        this.servers = servers;
        this.pauseMs = pauseMs;
        this.periodMs = periodMs;
        this.thread = new Thread(this::loop, "kes-bench-pause-injector");
        this.thread.setDaemon(true);
    }

    void start() {
        servers.pausing(node);
        thread.start();
    }

    private void loop() {
        // Never interrupted: an interrupt while the kill -CONT runs would leave the node frozen.
        while (running.get()) {
            try {
                for (int i = 0; i < (periodMs - pauseMs) / 100 && running.get(); i++) {
                    Thread.sleep(100);
                }
                if (!running.get()) {
                    break;
                }
                node.pause();
                try {
                    Thread.sleep(pauseMs);
                } finally {
                    node.resume();
                }
                pauses++;
            } catch (InterruptedException e) {
                break;
            } catch (RuntimeException e) {
                System.err.println("  pause injector: " + e);
            }
        }
    }

    void stop() throws InterruptedException {
        running.set(false);
        thread.join(10_000);
        node.resume();
        servers.resumed(node);
        System.out.println("  pause injector: " + pauses + " pauses of " + pauseMs + " ms");
    }
}
