package io.kes.torture;

import io.kes.stack.FaultProxy;
import io.kes.stack.Http;
import io.kes.torture.FaultPlan.Fault;
import java.io.PrintStream;
import java.time.Duration;

/**
 * Injects one fault of a plan and returns when it is over: a killed Elasticsearch is running
 * again, a paused one resumed (always, even on failure), a storm has passed, a killed job started
 * again with {@code --restore-latest}.
 */
final class FaultInjector {

    private final TortureServers servers;
    private final PrintStream out;

    FaultInjector(TortureServers servers, PrintStream out) {
        this.servers = servers;
        this.out = out;
    }

    /** @param rolledShards the shard count of the alias's write index, updated by a rollover */
    void inject(Fault fault, Names names, JobProcess job, int[] rolledShards) throws Exception {
        long began = System.nanoTime();
        try {
            injectNow(fault, names, job, rolledShards);
        } finally {
            out.printf(
                    "  %6.1f s  %s took %.1f s%n", fault.atMillis() / 1000.0, fault, (System.nanoTime() - began) / 1e9);
        }
    }

    private void injectNow(Fault fault, Names names, JobProcess job, int[] rolledShards) throws Exception {
        FaultProxy proxy = servers.proxy;
        switch (fault.kind()) {
            case ES_KILL -> {
                servers.node.kill();
                Thread.sleep(fault.amount() * 1000L);
                servers.node.start();
            }
            case ES_PAUSE -> {
                servers.node.pause();
                try {
                    Thread.sleep(fault.amount() * 1000L);
                } finally {
                    servers.node.resume();
                }
            }
            case KAFKA_RESTART -> {
                servers.kafka.stop();
                Thread.sleep(1000);
                servers.kafka.start();
            }
            case JOB_KILL -> {
                job.kill();
                job.start(true);
            }
            case REJECTION_STORM -> {
                proxy.rejectBulksFor(Duration.ofSeconds(fault.amount()));
                Thread.sleep(fault.amount() * 1000L);
            }
            case CONNECTION_RESET -> {
                for (int i = 0; i < 3; i++) {
                    proxy.resetConnections();
                    Thread.sleep(300);
                }
            }
            case LOST_RESPONSES -> {
                long before = proxy.stats().lostResponses();
                proxy.loseBulkResponses(fault.amount());
                long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
                while (proxy.stats().lostResponses() - before < fault.amount() && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                proxy.heal();
            }
            case HELD_BULK -> holdABulk(names.deletes(), proxy);
            case ROLLOVER -> {
                int next = rolledShards[0] % 4 + 1; // 2 -> 3 -> 4 -> 1 -> 2: always a different shard count
                servers.node
                        .http()
                        .send(
                                "POST",
                                "/" + names.rolled() + "/_rollover",
                                "{\"settings\":" + Schedule.indexSettings(next) + "}")
                        .requireOk("rollover of " + names.rolled());
                rolledShards[0] = next;
            }
        }
    }

    /**
     * One bulk of {@code index} is held inside Elasticsearch (it waits for a replica that one node
     * cannot assign) until kes gave up waiting for it ({@link JobFiles#SOCKET_TIMEOUT}) and had time
     * to send its documents again; then the replica is dropped and the held bulk is applied, late.
     * Unless kes waited for it to end before writing its ids again, they go back to older values.
     */
    private void holdABulk(String index, FaultProxy proxy) throws Exception {
        Http http = servers.node.http();
        Http.Response replica = http.send("PUT", "/" + index + "/_settings", "{\"index\":{\"number_of_replicas\":1}}");
        if (replica.status() == 404) {
            out.println("  (held-bulk: " + index + " not created yet, nothing held)");
            return;
        }
        replica.requireOk("adding a replica to " + index);
        long before = proxy.stats().heldBulks();
        try {
            proxy.holdBulksInElasticsearch(1, Duration.ofSeconds(60), "\"_index\":\"" + index + "\"");
            long deadline = System.nanoTime() + Duration.ofSeconds(15).toNanos();
            while (proxy.stats().heldBulks() == before && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            if (proxy.stats().heldBulks() > before) {
                Thread.sleep(JobFiles.SOCKET_TIMEOUT.toMillis() + 2_000);
            }
        } finally {
            proxy.heal();
            http.send("PUT", "/" + index + "/_settings", "{\"index\":{\"number_of_replicas\":0}}")
                    .requireOk("dropping the replica of " + index);
        }
    }
}
