package io.kes.jobs.decode.connect;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;
import io.kes.jobs.decode.DecodeException;
import io.kes.jobs.decode.avro.ValueDecoder;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CharsetDecoder;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * {@code format: string}: values are UTF-8 text, as Kafka Connect's {@code StringConverter} reads
 * them, and each becomes a document of one field, {@code {"<string_field>": "<the text>"}}
 * ({@code message} unless the route says otherwise: ECS's field for a log line). The text is never
 * looked into, so every record of the route has the same shape, whether its text is a log line or
 * happens to be JSON; values that are JSON objects belong in {@code format: json}. Bytes that are
 * not UTF-8 are refused rather than replaced, so no text is changed on its way in.
 */
public final class StringDecoder implements ValueDecoder {

    private static final JsonFactory JSON = new JsonFactory();

    private final String field;
    private final CharsetDecoder utf8 = StandardCharsets.UTF_8
            .newDecoder()
            .onMalformedInput(CodingErrorAction.REPORT)
            .onUnmappableCharacter(CodingErrorAction.REPORT);
    private final ByteArrayOutputStream out = new ByteArrayOutputStream(256);

    public StringDecoder(String field) {
        this.field = field;
    }

    @Override
    public byte[] toJson(byte[] value) throws DecodeException {
        String text;
        try {
            text = utf8.decode(ByteBuffer.wrap(value)).toString();
        } catch (CharacterCodingException e) {
            throw new DecodeException(
                    "not_utf8",
                    "value is not UTF-8 text (format string reads values as StringConverter does): " + e.getMessage());
        }
        out.reset();
        try (JsonGenerator gen = JSON.createGenerator(out, JsonEncoding.UTF8)) {
            gen.writeStartObject();
            gen.writeStringField(field, text);
            gen.writeEndObject();
        } catch (IOException e) {
            throw new IllegalStateException("writing JSON to memory failed", e);
        }
        return out.toByteArray();
    }
}
