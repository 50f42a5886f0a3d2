package io.kes.torture;

import java.util.List;

/**
 * The topics, indices and job name of one schedule, all under one prefix so schedules never see
 * each other's data. One topic per route (kes maps each topic to one route).
 */
record Names(String prefix) {

    /** Keyed changes with tombstones: {@code id: key} + {@code op: delete-on-tombstone}. */
    String deletes() {
        return prefix + "-deletes";
    }

    /** The same changes without tombstones: {@code id: key} + {@code op: upsert}. */
    String upserts() {
        return prefix + "-upserts";
    }

    /** Append-only: {@code id: kafka}. */
    String appends() {
        return prefix + "-appends";
    }

    /** A data stream, written with {@code create}. */
    String events() {
        return prefix + "-events";
    }

    /** An alias, written through its name and rolled over mid-run: {@code id: kafka}. */
    String rolled() {
        return prefix + "-rolled";
    }

    /**
     * The ingest pipeline of the deletes route: its index operations name it, its tombstones'
     * deletes name none (issue 27 item 1: the two must still meet in one buffer).
     */
    String deletesPipeline() {
        return prefix + "-mark";
    }

    String deadLetters() {
        return prefix + "-dead-letters";
    }

    String group() {
        return prefix;
    }

    List<String> jobTopics() {
        return List.of(deletes(), upserts(), appends(), events(), rolled());
    }
}
