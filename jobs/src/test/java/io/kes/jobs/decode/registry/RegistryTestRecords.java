package io.kes.jobs.decode.registry;

import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.UUID;

/**
 * Records laid out byte for byte as Confluent's {@code KafkaProtobufSerializer} writes them.
 * The layout is documented in Confluent's "Schema Registry: Formats, Serializers, and Deserializers"
 * (wire format: magic byte 0, 4-byte big-endian schema id, message indexes, message) and written by
 * {@code SchemaId.idToBytes} / {@code SchemaMessageIndexes.toByteArray} in confluentinc/schema-registry
 * (schema-serializer/src/main/java/io/confluent/kafka/serializers/schema/id/SchemaId.java): the
 * indexes are a count and the indexes as Kafka's zigzag varints ({@code ByteUtils.writeVarint}), and
 * {@code [0]} is written as the single byte 0. The messages are encoded field by field with
 * protobuf-java's {@link CodedOutputStream}, not through the descriptors kes builds.
 */
public final class RegistryTestRecords {

    /** io.kes.test.Order and friends; imports a reference and a well-known type. */
    public static final String ORDERS_PROTO = """
            syntax = "proto3";
            package io.kes.test;

            import "google/protobuf/timestamp.proto";
            import "common/money.proto";

            message Order {
              string order_id = 1;
              int64 quantity = 2;
              Status status = 3;
              google.protobuf.Timestamp created = 4;
              io.kes.common.Money price = 5;
              repeated Line lines = 6;
              bool gift = 7;

              enum Status {
                NEW = 0;
                SHIPPED = 1;
              }
              message Line {
                string sku = 1;
                int32 count = 2;
              }
            }

            message Customer {
              string name = 1;
            }
            """;

    public static final String MONEY_PROTO = """
            syntax = "proto3";
            package io.kes.common;

            message Money {
              string currency = 1;
              int64 units = 2;
            }
            """;

    /** The key of io.kes.test.Order. */
    public static final String ORDER_KEY_PROTO = """
            syntax = "proto3";
            package io.kes.test;

            message OrderKey {
              string order_id = 1;
            }
            """;

    private static final long CREATED = 1_795_255_200L; // 2026-11-21T10:00:00Z

    /** An Order of {@link #ORDERS_PROTO}, status SHIPPED, price 12 EUR, one line. */
    public static byte[] order(String id, long quantity) {
        return order(id, quantity, 1, CREATED, 12);
    }

    /** What {@link #order(String, long)} becomes as a document. */
    public static String orderJson(String id, long quantity) {
        return "{\"order_id\":\"" + id + "\",\"quantity\":\"" + quantity + "\",\"status\":\"SHIPPED\","
                + "\"created\":\"2026-11-21T10:00:00Z\",\"price\":{\"currency\":\"EUR\",\"units\":\"12\"},"
                + "\"lines\":[{\"sku\":\"sku-" + id + "\",\"count\":2}],\"gift\":false}";
    }

    /** An OrderKey of {@link #ORDER_KEY_PROTO} in the wire format, message indexes [0]. */
    public static byte[] protobufKey(int schemaId, String orderId) {
        return confluent(schemaId, FIRST_MESSAGE, message(out -> out.writeString(1, orderId)));
    }

    /** The header of a Protobuf record whose message is the file's first: the GUID and [0]. */
    public static byte[] guidHeader(UUID guid) {
        return guidHeader(guid, FIRST_MESSAGE);
    }

    /** The value of {@code [0]}, the file's first message: the single byte 0. */
    static final byte[] FIRST_MESSAGE = {0x00};

    private RegistryTestRecords() {}

    /** An io.kes.test.Order: order_id, quantity, status, created (seconds), price (EUR units), one line. */
    static byte[] order(String id, long quantity, int status, long createdSeconds, long euros) {
        return message(out -> {
            out.writeString(1, id);
            out.writeInt64(2, quantity);
            out.writeEnum(3, status);
            out.writeBytes(4, ByteString.copyFrom(message(ts -> ts.writeInt64(1, createdSeconds))));
            out.writeBytes(5, ByteString.copyFrom(message(m -> {
                m.writeString(1, "EUR");
                m.writeInt64(2, euros);
            })));
            out.writeBytes(6, ByteString.copyFrom(message(line -> {
                line.writeString(1, "sku-" + id);
                line.writeInt32(2, 2);
            })));
        });
    }

    interface Fields {
        void write(CodedOutputStream out) throws IOException;
    }

    static byte[] message(Fields fields) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        CodedOutputStream out = CodedOutputStream.newInstance(bytes);
        try {
            fields.write(out);
            out.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return bytes.toByteArray();
    }

    /** Magic byte 0, the schema id big-endian, the message indexes as given (already encoded), the message. */
    public static byte[] confluent(int schemaId, byte[] messageIndexes, byte[] message) {
        return ByteBuffer.allocate(5 + messageIndexes.length + message.length)
                .put((byte) 0)
                .putInt(schemaId)
                .put(messageIndexes)
                .put(message)
                .array();
    }

    /**
     * The {@code __value_schema_id} header of {@code HeaderSchemaIdSerializer}: {@code SchemaId.guidToBytes},
     * magic byte 1, the GUID's most then least significant long, then (Protobuf) the message indexes.
     */
    public static byte[] guidHeader(UUID guid, byte[] messageIndexes) {
        return ByteBuffer.allocate(17 + messageIndexes.length)
                .put((byte) 1)
                .putLong(guid.getMostSignificantBits())
                .putLong(guid.getLeastSignificantBits())
                .put(messageIndexes)
                .array();
    }
}
