package io.kes.connector;

import java.time.format.DateTimeFormatter;
import java.time.temporal.TemporalAccessor;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.annotation.PublicEvolving;

/**
 * An index name such as {@code logs-{service}-{@timestamp|yyyy.MM.dd}}, parsed once: the one
 * grammar of index name templates in kes (the job's routes, the SQL table's {@code index} option,
 * index template patterns). A placeholder {@code {name}} stands for a value of the record;
 * {@code {name|pattern}} for a point in time formatted (UTC) with a
 * {@link DateTimeFormatter} pattern. What the names mean is the caller's business: fields or
 * {@code _topic} in the job, columns in SQL.
 */
@PublicEvolving
public final class IndexNameTemplate {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\{([^}|]+)(?:\\|([^}]+))?}");

    /** One {@code {name}} or {@code {name|pattern}} of the template. */
    public static final class Placeholder {
        private final String name;
        private final String datePattern;
        private final DateTimeFormatter format;

        private Placeholder(String name, String datePattern, DateTimeFormatter format) {
            this.name = name;
            this.datePattern = datePattern;
            this.format = format;
        }

        /** The field, column or {@code _topic}-like name between the braces. */
        public String name() {
            return name;
        }

        /** The date pattern after {@code |}, or null. */
        public String datePattern() {
            return datePattern;
        }

        public boolean isDate() {
            return datePattern != null;
        }

        /** Formats a point in time with this placeholder's pattern, in UTC. */
        public String format(TemporalAccessor time) {
            return format.format(time);
        }

        @Override
        public String toString() {
            return "{" + name + (datePattern == null ? "" : "|" + datePattern) + "}";
        }
    }

    /** Gives a placeholder its value for one record. */
    @FunctionalInterface
    public interface Values<E extends Exception> {
        String of(Placeholder placeholder) throws E;
    }

    private final String template;
    /** Literal text and placeholders, in order: String or Placeholder. */
    private final List<Object> parts;

    private final List<Placeholder> placeholders;

    private IndexNameTemplate(String template, List<Object> parts, List<Placeholder> placeholders) {
        this.template = template;
        this.parts = parts;
        this.placeholders = placeholders;
    }

    /**
     * Parses {@code template}; an {@link IllegalArgumentException} says what is wrong with it (the
     * caller puts the option's name in front).
     */
    public static IndexNameTemplate parse(String template) {
        if (template == null || template.isBlank()) {
            throw new IllegalArgumentException("is empty: give an index name, e.g. logs or logs-{service}");
        }
        if (template.chars().filter(c -> c == '{').count()
                != template.chars().filter(c -> c == '}').count()) {
            throw new IllegalArgumentException("'" + template
                    + "' has unbalanced braces; placeholders look like {service} or {@timestamp|yyyy.MM.dd}");
        }
        List<Object> parts = new ArrayList<>();
        List<Placeholder> placeholders = new ArrayList<>();
        Matcher m = PLACEHOLDER.matcher(template);
        int last = 0;
        while (m.find()) {
            if (m.start() > last) {
                parts.add(template.substring(last, m.start()));
            }
            String name = m.group(1);
            String pattern = m.group(2);
            DateTimeFormatter format = null;
            if (pattern != null) {
                try {
                    format = DateTimeFormatter.ofPattern(pattern).withZone(java.time.ZoneOffset.UTC);
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("has an invalid date pattern '" + pattern + "' in {" + name + "|"
                            + pattern + "}: " + e.getMessage()
                            + " (patterns as in java.time.format.DateTimeFormatter, e.g. yyyy.MM.dd)");
                }
            }
            Placeholder placeholder = new Placeholder(name, pattern, format);
            parts.add(placeholder);
            placeholders.add(placeholder);
            last = m.end();
        }
        if (last < template.length()) {
            parts.add(template.substring(last));
        }
        return new IndexNameTemplate(template, List.copyOf(parts), List.copyOf(placeholders));
    }

    public String template() {
        return template;
    }

    /** No placeholder: every record goes to {@link #template()} as it is. */
    public boolean isLiteral() {
        return placeholders.isEmpty();
    }

    public List<Placeholder> placeholders() {
        return placeholders;
    }

    /** The names of the placeholders, each once, in order. */
    public List<String> names() {
        return List.copyOf(
                new LinkedHashSet<>(placeholders.stream().map(Placeholder::name).toList()));
    }

    /** Every name this template can render: {@code logs-{service}-{@timestamp|yyyy.MM.dd}} → {@code logs-*-*}. */
    public String wildcardPattern() {
        return fill("*").replaceAll("\\*+", "*");
    }

    /**
     * The template with every placeholder replaced by {@code filler}, e.g. to check the literal
     * parts against Elasticsearch's index name rules.
     */
    public String fill(String filler) {
        StringBuilder out = new StringBuilder();
        for (Object part : parts) {
            out.append(part instanceof Placeholder ? filler : (String) part);
        }
        return out.toString();
    }

    /** The index name of one record, lowercased as Elasticsearch requires. */
    public <E extends Exception> String render(Values<E> values) throws E {
        if (isLiteral()) {
            return template;
        }
        StringBuilder out = new StringBuilder(template.length() + 16);
        for (Object part : parts) {
            out.append(part instanceof Placeholder p ? values.of(p) : (String) part);
        }
        return out.toString().toLowerCase();
    }

    @Override
    public String toString() {
        return template;
    }
}
