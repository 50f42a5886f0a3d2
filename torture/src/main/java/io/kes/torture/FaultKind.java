package io.kes.torture;

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
    ROLLOVER("rollover", "the alias rolled over to a new index with a different shard count");

    private final String label;
    private final String description;

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
