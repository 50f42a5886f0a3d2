package io.kes.jobs.decode.avro;

import io.kes.jobs.decode.DecodeException;

/**
 * Turns a record value of a route's {@code format} into the bytes of a JSON object, which
 * {@link io.kes.jobs.decode.DocumentBuilder} then treats exactly like a JSON record. Instances are
 * made on the task manager (one per route and subtask), are not thread-safe and reuse their
 * buffers between records.
 */
public interface ValueDecoder {

    /**
     * @return the JSON object, or null when the value stands for no value (Connect's envelope with a
     *         null payload), which is then taken as a tombstone
     * @throws DecodeException when the value itself cannot be decoded (it then goes to the
     *                         dead-letter topic or stops the job, per {@code errors.tolerance})
     */
    byte[] toJson(byte[] value) throws DecodeException;

    /**
     * The same, for a record that may name its schema in a header, as Confluent's newer serializers
     * do ({@code __value_schema_id} or {@code __key_schema_id}: {@link
     * io.kes.jobs.decode.registry.WireFrame}); formats without a registry ignore it.
     *
     * @param schemaIdHeader the value of the record's last schema-id header of this side, or null
     */
    default byte[] toJson(byte[] value, byte[] schemaIdHeader) throws DecodeException {
        return toJson(value);
    }
}
