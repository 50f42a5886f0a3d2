package io.kes.jobs.decode;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * An index name such as {@code logs-{service}-{@timestamp|yyyy.MM.dd}}, compiled once. A
 * placeholder is a field path of the record ({@code {http.status}}), {@code {_topic}},
 * {@code {_key}} or {@code {_header.<name>}}; with {@code |pattern} it formats the record's event
 * time (UTC) instead. Names are lowercased, as Elasticsearch requires.
 */
final class IndexNameTemplate {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([^}|]+)(?:\\|([^}]+))?}");

    private interface Part {
        void append(StringBuilder out, JsonNode doc, KafkaRecord record, Instant eventTime) throws DecodeException;
    }

    private final String template;
    private final List<Part> parts = new ArrayList<>();
    private final boolean literal;

    IndexNameTemplate(String template) {
        this.template = template;
        Matcher m = PLACEHOLDER.matcher(template);
        int last = 0;
        while (m.find()) {
            String text = template.substring(last, m.start());
            parts.add((out, doc, record, time) -> out.append(text));
            String field = m.group(1);
            String pattern = m.group(2);
            if (pattern != null) {
                DateTimeFormatter format = DateTimeFormatter.ofPattern(pattern).withZone(ZoneOffset.UTC);
                parts.add((out, doc, record, time) -> out.append(format.format(time)));
            } else {
                parts.add((out, doc, record, time) -> out.append(value(field, doc, record)));
            }
            last = m.end();
        }
        String tail = template.substring(last);
        parts.add((out, doc, record, time) -> out.append(tail));
        literal = !template.contains("{");
    }

    boolean isLiteral() {
        return literal;
    }

    String render(JsonNode doc, KafkaRecord record, Instant eventTime) throws DecodeException {
        if (literal) {
            return template;
        }
        StringBuilder out = new StringBuilder(template.length() + 16);
        for (Part part : parts) {
            part.append(out, doc, record, eventTime);
        }
        return out.toString().toLowerCase();
    }

    private String value(String field, JsonNode doc, KafkaRecord record) throws DecodeException {
        if ("_topic".equals(field)) {
            return record.topic();
        }
        if ("_key".equals(field)) {
            if (record.key() == null) {
                throw new DecodeException("missing_field", "index name " + template + " needs the record key, and the record has none");
            }
            return new String(record.key(), StandardCharsets.UTF_8);
        }
        if (field.startsWith("_header.")) {
            byte[] header = record.lastHeader(field.substring("_header.".length()));
            if (header == null) {
                throw new DecodeException("missing_field", "index name " + template + " needs header " + field.substring(8) + ", which the record lacks");
            }
            return new String(header, StandardCharsets.UTF_8);
        }
        JsonNode value = JsonPaths.get(doc, field);
        if (value == null || !value.isValueNode() || value.isNull() || value.asText().isEmpty()) {
            throw new DecodeException("missing_field", "index name " + template + " needs field " + field + ", which the record lacks or is not a plain value");
        }
        return value.asText();
    }
}
