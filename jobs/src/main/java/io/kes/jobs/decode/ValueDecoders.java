package io.kes.jobs.decode;

import io.kes.jobs.config.RegistrySettings;
import io.kes.jobs.config.Route;
import io.kes.jobs.decode.avro.AvroDecoder;
import io.kes.jobs.decode.avro.ConfluentAvroDecoder;
import io.kes.jobs.decode.avro.ValueDecoder;
import io.kes.jobs.decode.connect.ConnectJsonDecoder;
import io.kes.jobs.decode.connect.StringDecoder;
import io.kes.jobs.decode.registry.ConfluentJsonSchemaDecoder;
import io.kes.jobs.decode.registry.ConfluentProtobufDecoder;

/** The {@link ValueDecoder} of each route {@code format}. */
final class ValueDecoders {

    private ValueDecoders() {}

    /** The decoder of a route's format, or null for {@code format: json} (values are JSON already). */
    static ValueDecoder of(Route route, RegistrySettings registry) {
        Route.ValueFormat format = route.format();
        return switch (format.kind()) {
            case JSON -> null;
            case CONNECT_JSON -> new ConnectJsonDecoder();
            case STRING -> new StringDecoder(format.stringField());
            case AVRO -> new AvroDecoder(format.schemaJson());
            case CONFLUENT_AVRO -> new ConfluentAvroDecoder(format.registryUrl(), registry);
            case PROTOBUF -> ConfluentProtobufDecoder.of(format.registryUrl(), registry, false);
            case JSON_SCHEMA -> ConfluentJsonSchemaDecoder.of(format.registryUrl(), registry, false);
        };
    }
}
