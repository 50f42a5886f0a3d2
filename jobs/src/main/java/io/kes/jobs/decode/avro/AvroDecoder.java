package io.kes.jobs.decode.avro;

import io.kes.jobs.decode.DecodeException;

/**
 * {@code format: avro}: values are plain Avro binary (no framing) written with the route's
 * {@code avro_schema_file}. The schema text was read and checked when the config was loaded; it is
 * parsed here, once, on first use.
 */
public final class AvroDecoder implements ValueDecoder {

    private final String schemaJson;
    private AvroToJson converter;

    public AvroDecoder(String schemaJson) {
        this.schemaJson = schemaJson;
    }

    @Override
    public byte[] toJson(byte[] value) throws DecodeException {
        if (converter == null) {
            converter = new AvroToJson(AvroToJson.parse(schemaJson));
        }
        return converter.toJson(value);
    }
}
