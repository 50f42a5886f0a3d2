package io.kes.jobs.decode.connect;

import io.kes.jobs.decode.DecodeException;
import io.kes.jobs.decode.avro.ValueDecoder;

/**
 * {@code format: connect-json}: values in Kafka Connect's JSON envelope ({@code JsonConverter} with
 * {@code schemas.enable=true}); the document is the payload (see {@link ConnectEnvelope}). A null
 * payload is Connect's null value, so it is a tombstone, as Connect's Elasticsearch sink takes it.
 */
public final class ConnectJsonDecoder implements ValueDecoder {

    @Override
    public byte[] toJson(byte[] value) throws DecodeException {
        return ConnectEnvelope.objectBytes(ConnectEnvelope.payload(value, "value"), "value's payload");
    }
}
