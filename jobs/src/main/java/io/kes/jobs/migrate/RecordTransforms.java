package io.kes.jobs.migrate;

import java.util.List;
import java.util.Set;

/**
 * The connector's transforms that change what a record is rather than where it goes (those are
 * {@link Targets}'): Debezium's {@code ExtractNewRecordState}, which becomes {@code cdc: debezium};
 * {@code ExtractField$Key}, which becomes {@code id: {key_field: ...}}; and {@code ValueToKey}
 * followed by it, which becomes {@code id: {field: ...}}.
 *
 * @param debezium   whether ExtractNewRecordState unwraps Debezium's change events
 * @param valueToKey the fields ValueToKey copies from the value into the key, or empty
 * @param keyField   the field ExtractField$Key takes out of the key, or null
 * @param deletes    with ExtractNewRecordState: whether delete events reach the sink as null values
 *                   (delete handling none or tombstone) rather than being dropped
 */
record RecordTransforms(boolean debezium, List<String> valueToKey, String keyField, boolean deletes) {

    static final String UNWRAP = "io.debezium.transforms.ExtractNewRecordState";
    static final String KEY_FIELD = "org.apache.kafka.connect.transforms.ExtractField$Key";
    static final String VALUE_TO_KEY = "org.apache.kafka.connect.transforms.ValueToKey";

    /** ExtractNewRecordState's options kes reads; any other is refused, so none is lost unnoticed. */
    private static final Set<String> UNWRAP_OPTIONS = Set.of(
            "type",
            "drop.tombstones",
            "delete.handling.mode",
            "delete.tombstone.handling.mode",
            "add.fields",
            "add.headers",
            "add.headers.prefix",
            "route.by.field");

    static boolean handles(String type) {
        return type.equals(UNWRAP) || type.equals(KEY_FIELD) || type.equals(VALUE_TO_KEY);
    }

    static RecordTransforms read(Migration m) {
        ConnectConfig c = m.config;
        boolean debezium = false;
        boolean deletes = false;
        List<String> valueToKey = List.of();
        String keyField = null;
        for (String alias : c.list("transforms")) {
            String prefix = "transforms." + alias + ".";
            switch (c.get(prefix + "type", "")) {
                case UNWRAP -> {
                    debezium = true;
                    deletes = unwrap(m, prefix);
                }
                case KEY_FIELD -> keyField = c.get(prefix + "field", "");
                case VALUE_TO_KEY -> {
                    if (keyField != null) {
                        m.refuse(prefix + "type ValueToKey after ExtractField$Key: kes reads the key's field from "
                                + "the key as it is in Kafka; put ValueToKey first, as Connect needs it to build the "
                                + "key that ExtractField$Key reads");
                    }
                    valueToKey = c.list(prefix + "fields");
                }
                default -> {
                    // names the index: Targets reads it, or refuses it
                }
            }
        }
        return new RecordTransforms(debezium, valueToKey, keyField, deletes);
    }

    /** Checks the unwrap's options; true when Debezium's delete events reach the sink as tombstones. */
    private static boolean unwrap(Migration m, String prefix) {
        ConnectConfig c = m.config;
        for (String key : c.values().keySet()) {
            if (key.startsWith(prefix) && !UNWRAP_OPTIONS.contains(key.substring(prefix.length()))) {
                m.refuse(key + ": kes reads Debezium's events itself (routes[].cdc: debezium) and knows no such "
                        + "option of ExtractNewRecordState; remove it, or keep the transform outside kes");
            }
        }
        if (!c.get(prefix + "add.fields", "").isBlank()) {
            m.refuse(prefix + "add.fields = " + c.get(prefix + "add.fields", "") + ": kes indexes the row's after "
                    + "image as it is and adds no fields of the change event (__op, __table, ...); remove add.fields, "
                    + "or add those columns to the table");
        }
        if (!c.get(prefix + "route.by.field", "").isBlank()) {
            m.refuse(prefix + "route.by.field: kes names the index by the route, not by a field of the row; remove it");
        }
        String legacy = c.get(prefix + "delete.handling.mode", "drop");
        String mode = c.get(prefix + "delete.tombstone.handling.mode", legacy.equals("none") ? "tombstone" : legacy);
        if (mode.startsWith("rewrite")) {
            m.refuse(prefix + (c.has(prefix + "delete.tombstone.handling.mode") ? "delete.tombstone." : "delete.")
                    + "handling.mode = " + mode + " keeps deleted rows as documents marked __deleted: true; kes "
                    + "deletes a deleted row's document instead. Set delete.handling.mode=none (deletes become "
                    + "deletes) to migrate");
            return false;
        }
        return !mode.equals("drop"); // drop.tombstones only drops the tombstone that follows a delete event
    }
}
