package io.kes.jobs.decode.registry;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FileDescriptor;
import com.google.protobuf.DynamicMessage;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.kes.jobs.config.RegistrySettings;
import io.kes.jobs.decode.DecodeException;
import io.kes.jobs.decode.avro.ValueDecoder;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;

/**
 * {@code format: protobuf} (and {@code key_format: protobuf}): Protobuf in Confluent's wire format
 * ({@link WireFrame}: the schema id or GUID, the message indexes, the message), decoded with
 * protobuf-java against descriptors built from the registry's .proto text ({@link ProtobufDescriptors},
 * cached per schema).
 *
 * <p>The JSON is protobuf's own mapping, {@link JsonFormat}, with two choices that keep the
 * documents close to what Kafka Connect's {@code ProtobufConverter} gave the Elasticsearch sink:
 * field names as declared in the .proto ({@code order_id}, not {@code orderId}), and fields without
 * presence written even at their default value (proto3's {@code 0}, {@code ""}, {@code false}).
 * Otherwise it is JsonFormat's: 64-bit integers as JSON strings ({@code "17"}, which an Elasticsearch
 * {@code long} field takes), enums by name, bytes as base64, {@code Timestamp} and {@code Duration} as
 * RFC 3339 text, maps as objects.
 *
 * <p>A record whose bytes do not fit (no magic byte, an unknown schema, message indexes that name no
 * message, a message that does not parse) is a {@link DecodeException}; a registry that cannot be
 * reached is not the record's fault ({@link RegisteredSchemas}).
 */
public final class ConfluentProtobufDecoder implements ValueDecoder {

    private static final String FORMAT = "message indexes, a Protobuf message";
    private static final JsonFormat.Printer PRINTER = JsonFormat.printer()
            .preservingProtoFieldNames()
            .alwaysPrintFieldsWithNoPresence()
            .omittingInsignificantWhitespace();

    private final RegisteredSchemas schemas;
    private final String what;
    private final Map<String, FileDescriptor> files = new HashMap<>();

    public ConfluentProtobufDecoder(RegisteredSchemas schemas, boolean keys) {
        this.schemas = schemas;
        this.what = keys ? "key" : "value";
    }

    public static ConfluentProtobufDecoder of(String registryUrls, RegistrySettings settings, boolean keys) {
        return new ConfluentProtobufDecoder(new RegisteredSchemas(registryUrls, settings), keys);
    }

    @Override
    public byte[] toJson(byte[] value) throws DecodeException {
        return toJson(value, null);
    }

    @Override
    public byte[] toJson(byte[] value, byte[] schemaIdHeader) throws DecodeException {
        WireFrame frame = WireFrame.read(value, schemaIdHeader, true, what, FORMAT);
        Descriptor type = ProtobufDescriptors.message(file(frame), frame.messageIndexes());
        if (type == null) {
            throw new DecodeException(
                    "protobuf_mismatch",
                    what + "'s message indexes " + frame.messageIndexes() + " name no message of " + frame.shown());
        }
        DynamicMessage message;
        try {
            message = DynamicMessage.parseFrom(
                    type, CodedInputStream.newInstance(value, frame.offset(), value.length - frame.offset()));
        } catch (IOException e) { // InvalidProtocolBufferException: truncated, a wrong wire type
            throw new DecodeException(
                    "protobuf_mismatch",
                    what + " is not a " + type.getFullName() + " message of " + frame.shown() + ": " + e.getMessage());
        }
        try {
            return PRINTER.print(message).getBytes(StandardCharsets.UTF_8);
        } catch (InvalidProtocolBufferException e) { // an Any whose type is not known
            throw new DecodeException(
                    "protobuf_mismatch",
                    what + " (" + type.getFullName() + ", " + frame.shown() + ") cannot be written as JSON: "
                            + e.getMessage());
        }
    }

    private FileDescriptor file(WireFrame frame) throws DecodeException {
        FileDescriptor file = files.get(frame.path());
        if (file == null) {
            RegisteredSchemas.Schema schema = schemas.get(frame);
            if (!"PROTOBUF".equals(schema.type())) {
                throw new DecodeException(
                        "unsupported_schema",
                        frame.shown() + " is a " + schema.type() + " schema; format: protobuf reads Protobuf only");
            }
            try {
                file = ProtobufDescriptors.file(schema.text(), RegisteredSchemas.texts(schema));
            } catch (IllegalArgumentException e) {
                throw new DecodeException(
                        "unsupported_schema",
                        frame.shown() + " from " + schemas.shown() + " is not a usable .proto schema: "
                                + e.getMessage());
            }
            files.put(frame.path(), file);
        }
        return file;
    }
}
