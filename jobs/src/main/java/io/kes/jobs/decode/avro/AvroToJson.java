package io.kes.jobs.decode.avro;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.StreamWriteFeature;
import io.kes.jobs.decode.DecodeException;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.ZoneOffset;
import java.util.Base64;
import java.util.Collection;
import java.util.Map;
import org.apache.avro.AvroRuntimeException;
import org.apache.avro.LogicalType;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericFixed;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.util.Utf8;

/**
 * Converts Avro binary values of one writer schema to natural JSON objects: records become
 * objects, a union is its plain value (not Avro's {@code {"type": value}} wrapping), enums their
 * symbol, bytes and fixed standard base64 strings; timestamps ({@code timestamp-millis/micros/nanos})
 * ISO-8601 instants, local timestamps ISO-8601 date-times without zone, {@code date} yyyy-MM-dd,
 * {@code time-millis/micros} HH:mm:ss[.fraction]; {@code decimal} a JSON number when its precision is
 * at most 15 digits (exact as a double) and a string beyond (so Elasticsearch does not round it),
 * decided by the schema so one field always has one JSON type; {@code duration} an object of
 * months, days and milliseconds. NaN and infinite floats become strings.
 *
 * <p>The top-level schema must be a record (or a map): documents are JSON objects. One instance
 * reuses its reader, decoder, datum and output buffer; it is not thread-safe.
 */
public final class AvroToJson {

    private static final JsonFactory JSON = JsonFactory.builder()
            .enable(StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
            .build();
    private static final Base64.Encoder BASE64 = Base64.getEncoder();
    private static final int MAX_EXACT_DECIMAL_PRECISION = 15;

    private final Schema schema;
    private final String name;
    private final GenericDatumReader<Object> reader;
    private final BoundedBinaryDecoder decoder = new BoundedBinaryDecoder();
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(256);
    private final CharsetDecoder utf8Decoder = StandardCharsets.UTF_8.newDecoder();
    private final String subject;
    private Object reuse;

    /** @throws IllegalArgumentException when the schema's top level is not a record or a map */
    public AvroToJson(Schema schema) {
        this(schema, "value");
        if (schema.getType() != Schema.Type.RECORD && schema.getType() != Schema.Type.MAP) {
            throw new IllegalArgumentException("the schema must be a record (documents are JSON objects), got a "
                    + schema.getType().getName());
        }
    }

    private AvroToJson(Schema schema, String subject) {
        this.schema = schema;
        this.subject = subject;
        this.name = schema.getType() == Schema.Type.RECORD
                ? schema.getFullName()
                : schema.getType() == Schema.Type.MAP
                        ? "map<" + schema.getValueType().getType().getName() + ">"
                        : schema.getType().getName();
        this.reader = new GenericDatumReader<>(schema, schema, GenericData.get());
    }

    /** For record keys, which are ids rather than documents: any schema, a string or a long as much as a record. */
    public static AvroToJson forKeys(Schema schema) {
        return new AvroToJson(schema, "key");
    }

    /** Parses a schema, failing with Avro's reason. */
    public static Schema parse(String schemaJson) {
        return new Schema.Parser().parse(schemaJson);
    }

    public Schema schema() {
        return schema;
    }

    public byte[] toJson(byte[] value) throws DecodeException {
        return toJson(value, 0, value.length, "");
    }

    /** Converts {@code length} bytes from {@code offset}; {@code what} describes the schema's origin in messages. */
    public byte[] toJson(byte[] value, int offset, int length, String what) throws DecodeException {
        Object datum;
        try {
            datum = reader.read(reuse, decoder.reset(value, offset, length));
        } catch (IOException | AvroRuntimeException | IndexOutOfBoundsException | NegativeArraySizeException e) {
            reuse = null; // may be half filled
            throw mismatch(what, "cannot be read: " + e.getMessage());
        }
        if (decoder.remaining() != 0) {
            reuse = null;
            throw mismatch(
                    what, "has " + decoder.remaining() + " bytes left over after the record (of " + length + ")");
        }
        reuse = datum;
        out.reset();
        try (JsonGenerator gen = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            write(gen, datum, schema);
        } catch (IOException | RuntimeException e) {
            throw mismatch(what, "cannot be rendered as JSON: " + e);
        }
        return out.toByteArray();
    }

    private DecodeException mismatch(String what, String problem) {
        return new DecodeException(
                "avro_mismatch", subject + " does not match the Avro schema " + name + what + ": it " + problem);
    }

    private void write(JsonGenerator gen, Object datum, Schema s) throws IOException {
        switch (s.getType()) {
            case RECORD -> {
                GenericRecord record = (GenericRecord) datum;
                gen.writeStartObject();
                for (Schema.Field f : s.getFields()) {
                    gen.writeFieldName(f.name());
                    write(gen, record.get(f.pos()), f.schema());
                }
                gen.writeEndObject();
            }
            case UNION -> {
                int branch = GenericData.get().resolveUnion(s, datum);
                write(gen, datum, s.getTypes().get(branch));
            }
            case ARRAY -> {
                gen.writeStartArray();
                for (Object item : (Collection<?>) datum) {
                    write(gen, item, s.getElementType());
                }
                gen.writeEndArray();
            }
            case MAP -> {
                gen.writeStartObject();
                for (Map.Entry<?, ?> e : ((Map<?, ?>) datum).entrySet()) {
                    gen.writeFieldName(e.getKey().toString());
                    write(gen, e.getValue(), s.getValueType());
                }
                gen.writeEndObject();
            }
            case STRING -> {
                if (datum instanceof Utf8 utf8) {
                    // strict: bytes that are not UTF-8 mean the value does not match its schema
                    gen.writeString(utf8Decoder
                            .decode(ByteBuffer.wrap(utf8.getBytes(), 0, utf8.getByteLength()))
                            .toString());
                } else {
                    gen.writeString(datum.toString());
                }
            }
            case ENUM -> gen.writeString(datum.toString());
            case BYTES -> {
                ByteBuffer b = ((ByteBuffer) datum).duplicate();
                byte[] bytes = new byte[b.remaining()];
                b.get(bytes);
                writeBytes(gen, bytes, s);
            }
            case FIXED -> writeBytes(gen, ((GenericFixed) datum).bytes(), s);
            case INT -> writeInt(gen, (Integer) datum, s.getLogicalType());
            case LONG -> writeLong(gen, (Long) datum, s.getLogicalType());
            case FLOAT -> writeFloating(gen, (Float) datum);
            case DOUBLE -> writeFloating(gen, (Double) datum);
            case BOOLEAN -> gen.writeBoolean((Boolean) datum);
            case NULL -> gen.writeNull();
        }
    }

    private static void writeBytes(JsonGenerator gen, byte[] bytes, Schema s) throws IOException {
        LogicalType logical = s.getLogicalType();
        if (logical instanceof LogicalTypes.Decimal decimal) {
            BigDecimal value = new BigDecimal(new BigInteger(bytes), decimal.getScale());
            if (decimal.getPrecision() <= MAX_EXACT_DECIMAL_PRECISION) {
                gen.writeNumber(value);
            } else {
                gen.writeString(value.toPlainString());
            }
        } else if (logical != null && "duration".equals(logical.getName()) && bytes.length == 12) {
            ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            gen.writeStartObject();
            gen.writeNumberField("months", Integer.toUnsignedLong(b.getInt()));
            gen.writeNumberField("days", Integer.toUnsignedLong(b.getInt()));
            gen.writeNumberField("milliseconds", Integer.toUnsignedLong(b.getInt()));
            gen.writeEndObject();
        } else {
            gen.writeString(BASE64.encodeToString(bytes));
        }
    }

    private static void writeInt(JsonGenerator gen, int value, LogicalType logical) throws IOException {
        if (logical instanceof LogicalTypes.Date) {
            gen.writeString(LocalDate.ofEpochDay(value).toString());
        } else if (logical instanceof LogicalTypes.TimeMillis) {
            gen.writeString(LocalTime.ofNanoOfDay(value * 1_000_000L).toString());
        } else {
            gen.writeNumber(value);
        }
    }

    private static void writeLong(JsonGenerator gen, long value, LogicalType logical) throws IOException {
        if (logical instanceof LogicalTypes.TimestampMillis) {
            gen.writeString(Instant.ofEpochMilli(value).toString());
        } else if (logical instanceof LogicalTypes.TimestampMicros) {
            gen.writeString(micros(value).toString());
        } else if (logical instanceof LogicalTypes.TimestampNanos) {
            gen.writeString(nanos(value).toString());
        } else if (logical instanceof LogicalTypes.LocalTimestampMillis) {
            gen.writeString(LocalDateTime.ofInstant(Instant.ofEpochMilli(value), ZoneOffset.UTC)
                    .toString());
        } else if (logical instanceof LogicalTypes.LocalTimestampMicros) {
            gen.writeString(
                    LocalDateTime.ofInstant(micros(value), ZoneOffset.UTC).toString());
        } else if (logical instanceof LogicalTypes.LocalTimestampNanos) {
            gen.writeString(
                    LocalDateTime.ofInstant(nanos(value), ZoneOffset.UTC).toString());
        } else if (logical instanceof LogicalTypes.TimeMicros) {
            gen.writeString(LocalTime.ofNanoOfDay(value * 1_000L).toString());
        } else {
            gen.writeNumber(value);
        }
    }

    private static Instant micros(long value) {
        return Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000L), Math.floorMod(value, 1_000_000L) * 1_000L);
    }

    private static Instant nanos(long value) {
        return Instant.ofEpochSecond(Math.floorDiv(value, 1_000_000_000L), Math.floorMod(value, 1_000_000_000L));
    }

    private static void writeFloating(JsonGenerator gen, double value) throws IOException {
        if (Double.isNaN(value) || Double.isInfinite(value)) {
            gen.writeString(Double.toString(value));
        } else {
            gen.writeNumber(value);
        }
    }

    private static void writeFloating(JsonGenerator gen, float value) throws IOException {
        if (Float.isNaN(value) || Float.isInfinite(value)) {
            gen.writeString(Float.toString(value));
        } else {
            gen.writeNumber(value);
        }
    }
}
