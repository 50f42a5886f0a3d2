package io.kes.torture;

import java.util.Arrays;
import java.util.List;

/** The faults a schedule injects, named as the report prints them. */
public enum FaultKind {
    ES_KILL("es-kill", "kill -9 of Elasticsearch, restarted 1-3 s later"),
    CONNECTION_RESET("conn-reset", "every kes-Elasticsearch connection reset (TCP RST), 3 times 300 ms apart"),
    JOB_KILL("job-kill", "kill -9 of the job's JVM, restarted with --restore-latest"),
    LOST_RESPONSES("lost-responses", "1-6 bulks applied by Elasticsearch whose responses never reach kes"),
    KAFKA_RESTART("kafka-restart", "the Kafka broker stopped and started again"),
    REJECTION_STORM("429-storm", "every bulk answered 429 for 2-8 s"),
    HELD_BULK(
            "held-bulk",
            "a bulk of the deletes route held inside Elasticsearch past kes's socket timeout, applied after kes gave up on it"),
    ES_PAUSE("es-pause", "SIGSTOP of Elasticsearch for 1-5 s, then SIGCONT"),
    ROLLOVER("rollover", "the alias rolled over to a new index with a different shard count"),
    NODE_STALL(
            "node-stall",
            "SIGSTOP of the cluster node holding most primaries of the keyed routes for 12-18 s: the cluster drops it and"
                    + " promotes replicas elsewhere while kes's bulks for it hang and queue; then SIGCONT, and it rejoins"),
    // last: FaultPlan takes kinds in turn in declaration order
    PROXY_504(
            "proxy-504",
            "a bulk of the deletes route held inside Elasticsearch while the proxy answers it 504 after 2 s, as a load"
                    + " balancer does, and applied after kes got the 504");

    private final String label;
    private final String description;

    /**
     * The kinds a schedule on {@code nodes} search nodes can inject. One node: all but
     * {@link #NODE_STALL}. A cluster: kes sends its bulks straight to the primaries' nodes, around
     * the fault proxy, so the proxy's kinds would touch almost nothing and are left out; the node
     * kinds hit the first node, the one kes's configured host (the proxy) leads to.
     */
    static List<FaultKind> forNodes(int nodes) {
        if (nodes == 1) {
            return Arrays.stream(values()).filter(k -> k != NODE_STALL).toList();
        }
        return List.of(ES_KILL, JOB_KILL, KAFKA_RESTART, ES_PAUSE, ROLLOVER, NODE_STALL);
    }

    FaultKind(String label, String description) {
        this.label = label;
        this.description = description;
    }

    public String label() {
        return label;
    }

    public String description() {
        return description;
    }
}
