package io.kes.jobs.decode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.kes.jobs.decode.connect.ConnectEnvelope;

/**
 * One of Debezium's change events, {@code {"before": ..., "after": ..., "op": ..., "source": ...}}
 * (the value as the route's {@code format} decoded it): {@code c} (insert), {@code r} (snapshot
 * read) and {@code u} (update) index the row's {@code after} image under the key's id; {@code d}
 * deletes it. Any other op is refused with what to do, never skipped: {@code t} (truncate) would
 * have to empty the index, and {@code m} (a logical decoding message) is no row.
 *
 * @param after the row to index, or null for a delete
 */
record DebeziumEvent(ObjectNode after) {

    boolean deletes() {
        return after == null;
    }

    static DebeziumEvent read(byte[] json) throws DecodeException {
        JsonNode event = ConnectEnvelope.parse(json, "value");
        JsonNode op = event.get("op");
        if (!event.isObject() || op == null || !op.isTextual()) {
            throw new DecodeException(
                    "malformed_cdc_event",
                    "value is not a Debezium change event: it has no op field (the route says cdc: debezium; for "
                            + "rows already unwrapped, e.g. by ExtractNewRecordState, leave cdc out)");
        }
        switch (op.textValue()) {
            case "c", "r", "u" -> {
                if (!(event.get("after") instanceof ObjectNode after)) {
                    throw new DecodeException(
                            "malformed_cdc_event",
                            "the change event (op " + op.textValue() + ") has no after image to index");
                }
                return new DebeziumEvent(after);
            }
            case "d" -> {
                return new DebeziumEvent(null);
            }
            case "t" ->
                throw new DecodeException(
                        "unknown_cdc_op",
                        "op 't' is a truncate event, which kes does not apply (it would empty the index); leave "
                                + "truncate events out at the source (Debezium's skipped.operations includes t by "
                                + "default)");
            default ->
                throw new DecodeException(
                        "unknown_cdc_op",
                        "op '" + op.textValue() + "' is not a Debezium row change kes applies: c, r and u index the "
                                + "after image, d deletes");
        }
    }
}
