package io.kes.torture;

/**
 * One way Elasticsearch's final state differs from Kafka's: which route, what kind, which key or
 * id, what Kafka says it should be (with the last record's partition/offset) and what was found.
 */
record Mismatch(String route, Kind kind, String subject, String expected, String found) {

    enum Kind {
        /** the document holds an older value than its key's last record */
        STALE,
        /** the document holds a value its key never had last (newer than the last, or a different body) */
        WRONG_VALUE,
        /** the key's last record is a value, but there is no document */
        MISSING,
        /** the key's last record is a tombstone, but the document is there */
        RESURRECTED,
        /** a document no record accounts for */
        UNEXPECTED,
        /** a record's document is there more than once (append-only and data stream routes) */
        DUPLICATE,
        /** a record went to the dead-letter topic */
        DEAD_LETTER
    }

    @Override
    public String toString() {
        return String.format("%-8s %-12s %-16s expected %s, found %s", route, kind, subject, expected, found);
    }
}
