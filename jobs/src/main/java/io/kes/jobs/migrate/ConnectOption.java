package io.kes.jobs.migrate;

/**
 * One option of Kafka Connect's Elasticsearch sink (or of Connect itself) and what kes makes of it:
 * a row of {@link ConnectOptions#ALL}, which both {@code bin/kes migrate} and the table in
 * docs/migration-from-kafka-connect.md are made from.
 *
 * @param key     the Connect option, or with {@code prefix} the start of a family of them
 * @param prefix  whether {@code key} names every option that starts with it
 * @param family  the group it is listed and tested in
 * @param kes     what it becomes in the kes job (a key of docs/config-reference.md), or "—"
 * @param note    what kes does differently, or why it is refused; empty when kes means the same
 * @param handler carries the value into the job, or refuses it
 */
record ConnectOption(String key, boolean prefix, Family family, String kes, String note, Handler handler) {

    /** The groups of the migration guide's table; each has its own unit test. */
    enum Family {
        GENERAL("The connector"),
        TOPICS("Topics and the Kafka consumer"),
        CONNECTION("Connection to Elasticsearch"),
        TLS("TLS"),
        WRITES("Ids, writes, deletes, versions"),
        DATA_STREAMS("Data streams"),
        BULK("Bulks and retries"),
        ERRORS("Errors and the dead-letter queue"),
        CONVERTERS("Converters"),
        TRANSFORMS("Transforms");

        final String title;

        Family(String title) {
            this.title = title;
        }
    }

    /** Applies one present option's value to the job; options read together are applied by the planners. */
    @FunctionalInterface
    interface Handler {
        void apply(Migration migration, String key, String value);
    }

    boolean matches(String k) {
        return prefix ? k.startsWith(key) : k.equals(key);
    }
}
