package io.kes.jobs.decode.avro;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;

/** Avro values for tests, written with Avro's own writer. */
public final class AvroTestData {

    public static final String ORDER_SCHEMA = """
            {"type": "record", "name": "Order", "namespace": "io.kes.test", "fields": [
              {"name": "id", "type": "string"},
              {"name": "amount", "type": "double"},
              {"name": "status", "type": {"type": "enum", "name": "Status", "symbols": ["NEW", "PAID", "SHIPPED"]}},
              {"name": "note", "type": ["null", "string"], "default": null},
              {"name": "ts", "type": {"type": "long", "logicalType": "timestamp-millis"}}
            ]}""";

    private AvroTestData() {}

    /** An Order: id, amount, status symbol, note (or null), ts epoch millis. */
    public static byte[] order(String id, double amount, String status, String note, long ts) {
        Schema schema = new Schema.Parser().parse(ORDER_SCHEMA);
        GenericRecord r = new GenericData.Record(schema);
        r.put("id", id);
        r.put("amount", amount);
        r.put("status", new GenericData.EnumSymbol(schema.getField("status").schema(), status));
        r.put("note", note);
        r.put("ts", ts);
        return write(schema, r);
    }

    public static byte[] write(Schema schema, Object datum) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(out, null);
        try {
            new GenericDatumWriter<>(schema).write(datum, encoder);
            encoder.flush();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }

    /** Magic byte 0, the schema id big-endian, then the Avro bytes. */
    public static byte[] confluent(int schemaId, byte[] avro) {
        return ByteBuffer.allocate(5 + avro.length)
                .put((byte) 0)
                .putInt(schemaId)
                .put(avro)
                .array();
    }
}
