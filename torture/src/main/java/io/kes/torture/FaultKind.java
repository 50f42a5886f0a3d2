package io.kes.torture;

import java.util.Arrays;
import java.util.List;
import java.util.OptionalInt;

/** The faults a schedule injects, named as the report prints them. */
public enum FaultKind {
    ES_KILL("es-kill", 0, "kill -9 of Elasticsearch, restarted 1-3 s later"),
    CONNECTION_RESET("conn-reset", 0, "every kes-Elasticsearch connection reset (TCP RST), 3 times 300 ms apart"),
    JOB_KILL("job-kill", 1, "kill -9 of the job's JVM, restarted with --restore-latest"),
    LOST_RESPONSES("lost-responses", 1, "1-6 bulks applied by Elasticsearch whose responses never reach kes"),
    KAFKA_RESTART("kafka-restart", 2, "the Kafka broker stopped and started again"),
    REJECTION_STORM("429-storm", 2, "every bulk answered 429 for 2-8 s"),
    HELD_BULK(
            "held-bulk",
            3,
            "a bulk of the deletes route held inside Elasticsearch past kes's socket timeout, applied after kes gave up on it"),
    ES_PAUSE("es-pause", 3, "SIGSTOP of Elasticsearch for 1-5 s, then SIGCONT"),
    ROLLOVER("rollover", "the alias rolled over to a new index with a different shard count"),
    NODE_STALL(
            "node-stall",
            "SIGSTOP of the cluster node holding most primaries of the keyed routes for 12-18 s: the cluster drops it and"
                    + " promotes replicas elsewhere while kes's bulks for it hang and queue; then SIGCONT, and it rejoins"),
    PROXY_504(
            "proxy-504",
            0,
            "a bulk of the deletes route held inside Elasticsearch while the proxy answers it 504 after 2 s, as a load"
                    + " balancer does, and applied after kes got the 504"),
    STOP_SAVEPOINT(
            "stop-savepoint",
            3,
            "flink stop: a savepoint without drain through the job's REST API, which must complete within 60 s,"
                    + " then the job started again from it, as before an upgrade"),
    RESCALE(
            "rescale",
            2,
            "kill -9 of the job's JVM, restarted with --restore-latest at another parallelism (2 -> 4 writers, then back),"
                    + " as users scale a job; drawn in pairs, there and back");

    private final String label;
    private final OptionalInt turn;
    private final String description;

    /**
     * The kinds a schedule on {@code nodes} search nodes can inject. One node: all but
     * {@link #NODE_STALL}. A cluster: kes sends its bulks straight to the primaries' nodes, around
     * the fault proxy, so the proxy's kinds would touch almost nothing and are left out; the node
     * kinds hit the first node, the one kes's configured host (the proxy) leads to; the job's own
     * kinds (job-kill, rescale, stop-savepoint) are the same on both.
     */
    static List<FaultKind> forNodes(int nodes) {
        if (nodes == 1) {
            return Arrays.stream(values()).filter(k -> k != NODE_STALL).toList();
        }
        return List.of(ES_KILL, JOB_KILL, KAFKA_RESTART, ES_PAUSE, ROLLOVER, NODE_STALL, RESCALE, STOP_SAVEPOINT);
    }

    /** The kind printed as {@code label}; a message listing every label when there is none. */
    static FaultKind byLabel(String label) {
        return Arrays.stream(values())
                .filter(k -> k.label.equals(label))
                .findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no fault kind '" + label + "': the kinds are "
                        + Arrays.stream(values()).map(FaultKind::label).toList()));
    }

    /** A kind a schedule injects in its turn: {@code turn} is its place in {@link FaultPlan#TURNS}, fixed per kind. */
    FaultKind(String label, int turn, String description) {
        this(label, OptionalInt.of(turn), description);
    }

    /** A kind in every schedule the nodes allow (rollover, node-stall): it takes no turn. */
    FaultKind(String label, String description) {
        this(label, OptionalInt.empty(), description);
    }

    FaultKind(String label, OptionalInt turn, String description) {
        this.label = label;
        this.turn = turn;
        this.description = description;
    }

    /** The kind's name in plans and reports, and its stable id: every draw of a plan hangs on it, never on the declaration order. */
    public String label() {
        return label;
    }

    /**
     * Which schedules inject this kind for sure: those whose index is {@code turn} modulo
     * {@link FaultPlan#TURNS}. Declared with the kind and never derived from its position, so that a
     * kind added later joins the schedules of its turn and moves no other kind; empty for the kinds
     * in every schedule.
     */
    OptionalInt turn() {
        return turn;
    }

    public String description() {
        return description;
    }
}
