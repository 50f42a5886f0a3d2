package io.kes.connector;

import org.apache.flink.annotation.PublicEvolving;

/** What a {@link DocumentOperation} does to its document. */
@PublicEvolving
public enum OpType {
    /** Create or overwrite: replays overwrite, so ids make them idempotent. */
    INDEX,
    /** Create only; a 409 "already exists" on replay counts as success. Data streams need this. */
    CREATE,
    /** Partial update that creates the document when missing ({@code doc_as_upsert}). */
    UPSERT,
    /** Delete by id (e.g. a Kafka tombstone); deleting a missing document is a success. */
    DELETE;

    /** The action name in a {@code _bulk} body. */
    public String bulkAction() {
        return switch (this) {
            case INDEX -> "index";
            case CREATE -> "create";
            case UPSERT -> "update";
            case DELETE -> "delete";
        };
    }
}
