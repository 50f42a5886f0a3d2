package io.kes.jobs.decode.registry;

import io.kes.jobs.decode.DecodeException;
import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.common.utils.ByteUtils;

/**
 * Where a record's schema is named and where its payload starts, as Confluent's serializers lay
 * them out. The layout is Confluent's {@code SchemaId.fromBytes} and {@code SchemaMessageIndexes}
 * (schema-serializer/src/main/java/io/confluent/kafka/serializers/schema/id/SchemaId.java) and
 * {@code DualSchemaIdDeserializer} (same folder), which kes follows:
 * <ul>
 *   <li>With a header {@code __value_schema_id} (keys: {@code __key_schema_id}), written by the
 *       newer serializers' {@code HeaderSchemaIdSerializer}: the header is magic byte 1 then the
 *       schema's 16-byte GUID (most significant long first, big-endian), or magic byte 0 then a
 *       4-byte id; for Protobuf the message indexes follow in the header. The value is the bare
 *       payload.</li>
 *   <li>Without one, the value itself starts so: magic byte 0, a 4-byte big-endian schema id (the
 *       classic wire format), for Protobuf the message indexes, then the payload.</li>
 * </ul>
 * The message indexes (Protobuf only) name the message within the .proto file: a count and then
 * each index, all as Kafka's zigzag varints ({@code ByteUtils.writeVarint}); a count of 0, the
 * single byte 0, stands for {@code [0]}, the file's first message.
 *
 * @param path           the registry path that holds the schema: {@code /schemas/ids/7} or {@code /schemas/guids/<guid>}
 * @param shown          how messages name the schema: {@code schema id 7} or {@code schema guid <guid>}
 * @param offset         where the payload starts in the value
 * @param messageIndexes Protobuf's message indexes, else empty
 */
public record WireFrame(String path, String shown, int offset, List<Integer> messageIndexes) {

    public static final String VALUE_HEADER = "__value_schema_id";
    public static final String KEY_HEADER = "__key_schema_id";
    private static final List<Integer> FIRST_MESSAGE = List.of(0);

    /**
     * @param header      the last schema-id header of the record's side, or null
     * @param protobuf    whether message indexes follow the id
     * @param what        "value" or "key", for messages
     * @param format      the format's name and its payload, for messages
     */
    public static WireFrame read(byte[] value, byte[] header, boolean protobuf, String what, String format)
            throws DecodeException {
        if (header != null) {
            ByteBuffer buffer = ByteBuffer.wrap(header);
            WireFrame fromHeader =
                    id(buffer, protobuf, what, "header " + (what.equals("key") ? KEY_HEADER : VALUE_HEADER), format);
            return new WireFrame(fromHeader.path, fromHeader.shown, 0, fromHeader.messageIndexes);
        }
        ByteBuffer buffer = ByteBuffer.wrap(value);
        if (value.length < 5 || value[0] != 0) {
            throw new DecodeException(
                    "not_confluent_wire_format",
                    what + " is not in the Confluent wire format (magic byte 0, a 4-byte schema id, " + format
                            + ") and has no header " + (what.equals("key") ? KEY_HEADER : VALUE_HEADER) + ": "
                            + (value.length < 5
                                    ? "it has only " + value.length + " bytes"
                                    : "it starts with byte 0x" + String.format("%02x", value[0] & 0xff)
                                            + (value[0] == '{' ? " ('{', JSON?)" : "")));
        }
        WireFrame frame = id(buffer, protobuf, what, what, format);
        return new WireFrame(frame.path, frame.shown, buffer.position(), frame.messageIndexes);
    }

    private static WireFrame id(ByteBuffer buffer, boolean protobuf, String what, String where, String format)
            throws DecodeException {
        try {
            byte magic = buffer.get();
            String path;
            String shown;
            if (magic == 0) {
                String id = Integer.toUnsignedString(buffer.getInt());
                path = "/schemas/ids/" + id;
                shown = "schema id " + id;
            } else if (magic == 1) {
                String guid = new UUID(buffer.getLong(), buffer.getLong()).toString();
                path = "/schemas/guids/" + guid;
                shown = "schema guid " + guid;
            } else {
                throw new DecodeException(
                        "not_confluent_wire_format",
                        where + " starts with byte 0x" + String.format("%02x", magic & 0xff)
                                + ", neither 0 (a 4-byte schema id follows) nor 1 (a 16-byte schema GUID)");
            }
            return new WireFrame(path, shown, buffer.position(), protobuf ? indexes(buffer, where) : List.of());
        } catch (BufferUnderflowException | IllegalArgumentException e) {
            throw new DecodeException(
                    "not_confluent_wire_format",
                    where + " is cut short inside its schema id" + (protobuf ? " or message indexes" : "") + " ("
                            + buffer.limit() + " bytes; " + format + ")");
        }
    }

    private static List<Integer> indexes(ByteBuffer buffer, String where) throws DecodeException {
        int count = ByteUtils.readVarint(buffer);
        if (count == 0) {
            return FIRST_MESSAGE;
        }
        if (count < 0 || count > buffer.remaining()) {
            throw new DecodeException(
                    "not_confluent_wire_format",
                    where + "'s Protobuf message indexes count " + count + " entries, and only " + buffer.remaining()
                            + " bytes follow");
        }
        Integer[] indexes = new Integer[count];
        for (int i = 0; i < count; i++) {
            indexes[i] = ByteUtils.readVarint(buffer);
        }
        return List.of(indexes);
    }
}
