package io.kes.connector.table;

import static io.kes.connector.ElasticsearchSinkOptions.RETRY_INITIAL_BACKOFF;
import static io.kes.connector.ElasticsearchSinkOptions.RETRY_MAX_BACKOFF;
import static io.kes.connector.ElasticsearchSinkOptions.RETRY_MAX_TIME;
import static io.kes.connector.table.KesTableOptions.sqlOption;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.flink.annotation.Internal;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.ReadableConfig;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.types.logical.LogicalType;

/**
 * The options of Flink's own SQL connectors ({@code elasticsearch-6}, {@code -7}, {@code -8},
 * {@code opensearch}) that kes has no key of its own for, so that a table written for one of them
 * plans with only {@code 'connector'} changed to {@code 'kes'}. Where kes has the option under
 * another key (e.g. {@code sink.bulk-flush.max-actions}, {@code bulk.max-docs}), the official key
 * is a fallback key of kes's option, named in {@link SqlNames}. The options here
 * are taken where kes always behaves as their value asks, translated where kes measures the same
 * thing in other units ({@code sink.bulk-flush.backoff.max-retries}), accepted with one logged
 * line where kes keeps their promise its own way ({@link #KEPT_BY_KES}, and values that promise
 * less than kes gives), and refused, with one sentence saying what kes does instead, only where
 * kes would break what they mean. The option lists were read from
 * {@code ElasticsearchConnectorOptions}, {@code Elasticsearch6ConnectorOptions},
 * {@code Elasticsearch8ConnectorOptions} (apache/flink-connector-elasticsearch, main and the
 * legacy table sink) and {@code OpensearchConnectorOptions} (apache/flink-connector-opensearch).
 */
@Internal
final class OfficialOptions {

    private OfficialOptions() {}

    static final ConfigOption<String> DOCUMENT_TYPE = ConfigOptions.key("document-type")
            .stringType()
            .noDefaultValue()
            .withDescription("Ignored (elasticsearch-6's mapping type): Elasticsearch 8 and 9 and OpenSearch 2 and 3 "
                    + "have no mapping types, every document is `_doc`; a value other than `_doc` is logged.");

    static final ConfigOption<Boolean> FLUSH_ON_CHECKPOINT = ConfigOptions.key("sink.flush-on-checkpoint")
            .booleanType()
            .defaultValue(true)
            .withDescription("`true` is what kes always does (the checkpoint fence); `false`, which promises nothing "
                    + "kes breaks, is accepted and logged: kes still fences every checkpoint.");

    static final ConfigOption<String> BACKOFF_STRATEGY = ConfigOptions.key("sink.bulk-flush.backoff.strategy")
            .stringType()
            .noDefaultValue()
            .withDescription("`EXPONENTIAL` is what kes does (`retry.initial-backoff` doubling up to "
                    + "`retry.max-backoff`); `CONSTANT` and `NONE` (`DISABLED`) are refused.");

    static final ConfigOption<Integer> BACKOFF_MAX_RETRIES = ConfigOptions.key("sink.bulk-flush.backoff.max-retries")
            .intType()
            .noDefaultValue()
            .withDescription("Retries before the job fails. kes bounds retries by time: unless `retry.max-time` is "
                    + "set, it becomes the time kes's own backoff takes for that many retries (`retry.initial-backoff` "
                    + "doubling, each wait at most `retry.max-backoff`), e.g. 3: 700ms with the defaults.");

    static final ConfigOption<String> DELIVERY_GUARANTEE = ConfigOptions.key("sink.delivery-guarantee")
            .stringType()
            .defaultValue("at-least-once")
            .withDescription("`at-least-once` is what kes does; `none`, which promises nothing kes breaks, is accepted "
                    + "and logged (kes still loses no row); `exactly-once` is refused.");

    static final ConfigOption<Boolean> ALLOW_INSECURE = ConfigOptions.key("allow-insecure")
            .booleanType()
            .defaultValue(false)
            .withDescription("(OpenSearch) trust any certificate. kes always verifies: `false` is what kes does; "
                    + "`true` is refused: pin the certificate with `ssl.certificate-fingerprint` or `ssl.ca-file`.");

    /**
     * Options whose promise kes keeps by construction, whatever their value: accepted, and the
     * factory logs the sentence (what kes does) once per table that sets one.
     */
    static final Map<String, String> KEPT_BY_KES = kept();

    /** Options whose meaning kes would break (documents in other indices): set at all, they are refused with the sentence. */
    static final Map<String, String> WITHOUT_EQUIVALENT = without();

    private static Map<String, String> kept() {
        Map<String, String> kept = new LinkedHashMap<>();
        kept.put(
                "connection.request-timeout",
                "kes sizes its connection pool to twice the bulks in flight, so no request waits for a "
                        + "connection, and bounds each request with 'socket-timeout'");
        kept.put(
                "sink.bulk-flush.max-buffered-actions",
                "kes bounds the writes waiting for Elasticsearch by bytes ('bulk.max-queued-bytes') and holds "
                        + "its input back beyond that, so the buffer stays bounded whatever the count");
        kept.put(
                "sink.retry-on-conflicts",
                "kes sends each upsert with retry_on_conflict 3 and retries one still conflicting with its "
                        + "backoff for up to 'retry.max-time' ('index' and 'create' writes never conflict)");
        String lookup = "kes only writes: a lookup join on a kes table fails at planning, so lookup options "
                + "change nothing";
        for (String key : List.of(
                "lookup.cache",
                "lookup.partial-cache.expire-after-access",
                "lookup.partial-cache.expire-after-write",
                "lookup.partial-cache.max-rows",
                "lookup.partial-cache.cache-missing-key",
                "lookup.max-retries")) {
            kept.put(key, lookup);
        }
        return kept;
    }

    private static Map<String, String> without() {
        Map<String, String> refused = new LinkedHashMap<>();
        refused.put(
                "index.suffix.field.name",
                "kes writes a column's value into the index name with a template, "
                        + "e.g. 'index' = 'users-{region}'");
        refused.put(
                "index.suffix.field.length",
                "kes index templates take a column's whole value; compute a shorter suffix in "
                        + "the query (e.g. SUBSTRING) and name that column in 'index'");
        return refused;
    }

    /** Every option this class declares, for the factory's optional options. */
    static List<ConfigOption<?>> all() {
        List<ConfigOption<?>> options = new java.util.ArrayList<>(List.of(
                DOCUMENT_TYPE,
                FLUSH_ON_CHECKPOINT,
                BACKOFF_STRATEGY,
                BACKOFF_MAX_RETRIES,
                DELIVERY_GUARANTEE,
                ALLOW_INSECURE));
        KEPT_BY_KES.forEach((k, what) -> options.add(ConfigOptions.key(k)
                .stringType()
                .noDefaultValue()
                .withDescription("Accepted and logged, any value: " + what + ".")));
        WITHOUT_EQUIVALENT.forEach((k, what) -> options.add(
                ConfigOptions.key(k).stringType().noDefaultValue().withDescription("Refused: " + what + ".")));
        return options;
    }

    /** One sentence: what kes does instead, and that the option has to go. */
    static ValidationException noEquivalent(String whatKesDoes, String key, Object value) {
        return new ValidationException(whatKesDoes + "; '" + key + "'" + (value == null ? "" : " = '" + value + "'")
                + " has no kes equivalent, remove it");
    }

    /** What kes does at a checkpoint, said where a table asks for less. */
    static final String FENCE = "kes waits at each checkpoint for the writes before it (the checkpoint fence; writing "
            + "goes on meanwhile), so a completed checkpoint loses no row; give a slow Elasticsearch room with "
            + "execution.checkpointing.timeout";

    /**
     * Refuses the official options and values whose meaning kes would break, and returns, for each
     * one it accepts although kes does something of its own, one line saying what kes does, for
     * the factory to log. {@code written} are the table's options as written.
     */
    static List<String> check(ReadableConfig options, Map<String, String> written) {
        for (Map.Entry<String, String> refused : WITHOUT_EQUIVALENT.entrySet()) {
            if (written.containsKey(refused.getKey())) {
                throw noEquivalent(refused.getValue(), refused.getKey(), null);
            }
        }
        List<String> notes = new java.util.ArrayList<>();
        KEPT_BY_KES.forEach((key, what) -> {
            if (written.containsKey(key)) {
                notes.add("'" + key + "' = '" + written.get(key) + "' is accepted: " + what);
            }
        });
        options.getOptional(DOCUMENT_TYPE)
                .filter(type -> !"_doc".equals(type))
                .ifPresent(
                        type -> notes.add("'" + DOCUMENT_TYPE.key() + "' = '" + type + "' is ignored: Elasticsearch 8 "
                                + "and 9 and OpenSearch have no mapping types, every document is _doc"));
        if (!options.get(FLUSH_ON_CHECKPOINT)) {
            notes.add("'" + FLUSH_ON_CHECKPOINT.key() + "' = 'false' is accepted: " + FENCE);
        }
        if (options.get(ALLOW_INSECURE)) {
            throw new ValidationException(
                    "kes always verifies the node's certificate; '" + ALLOW_INSECURE.key()
                            + "' = 'true' has no kes equivalent: trust the certificate with 'ssl.certificate-fingerprint' or 'ssl.ca-file'");
        }
        String guarantee = options.get(DELIVERY_GUARANTEE);
        switch (guarantee.trim().toLowerCase().replace('_', '-')) {
            case "at-least-once" -> {}
            case "none" -> notes.add("'" + DELIVERY_GUARANTEE.key() + "' = '" + guarantee + "' is accepted: " + FENCE);
            case "exactly-once" ->
                throw new ValidationException("kes is at-least-once, its replays overwriting the same documents "
                        + "when ids come from a PRIMARY KEY or the Kafka metadata columns; '" + DELIVERY_GUARANTEE.key()
                        + "' = '"
                        + guarantee + "' has no kes equivalent, use 'at-least-once' or remove it");
            default ->
                throw new ValidationException(DELIVERY_GUARANTEE.key() + " '" + guarantee
                        + "' is not one of at-least-once, exactly-once, none");
        }
        Optional<String> strategy = options.getOptional(BACKOFF_STRATEGY);
        if (strategy.isPresent()) {
            String exponential =
                    "kes retries rejected and unavailable writes with exponential backoff (retry.initial-backoff, "
                            + "doubling up to retry.max-backoff) for up to retry.max-time";
            switch (strategy.get().trim().toUpperCase()) {
                case "EXPONENTIAL" -> {}
                case "CONSTANT", "NONE", "DISABLED" ->
                    throw noEquivalent(exponential, BACKOFF_STRATEGY.key(), strategy.get());
                default ->
                    throw new ValidationException(BACKOFF_STRATEGY.key() + " '" + strategy.get()
                            + "' is not one of EXPONENTIAL, CONSTANT, NONE");
            }
        }
        options.getOptional(BACKOFF_MAX_RETRIES).ifPresent(retries -> {
            if (retries < 1) {
                throw new ValidationException(BACKOFF_MAX_RETRIES.key() + " must be at least 1, got " + retries);
            }
        });
        return notes;
    }

    /**
     * {@code failure-handler} as the official connectors spell it: {@code retry-rejected} is what
     * kes's {@code fail} does (rejected writes, 429, are always retried; other refusals fail the
     * job); {@code ignore} and handler classes are refused.
     */
    static String failureHandler(String kind) {
        if ("retry-rejected".equalsIgnoreCase(kind)) {
            return KesTableOptions.FAIL;
        }
        String instead = "kes retries rejected (429) writes and does not drop refused rows silently";
        if ("ignore".equalsIgnoreCase(kind)) {
            throw new ValidationException(
                    instead + "; 'failure-handler' = 'ignore' has no kes equivalent: use 'fail', or "
                            + "'dead-letter' to send refused rows to a Kafka topic and go on");
        }
        if (kind.contains(".")) {
            throw new ValidationException(
                    instead + "; 'failure-handler' = '" + kind + "' (an ActionRequestFailureHandler class) has "
                            + "no kes equivalent: use 'fail', or 'dead-letter' to send refused rows to a Kafka topic and go on");
        }
        return kind;
    }

    /**
     * Puts the official options that kes measures differently into the sink's configuration:
     * {@code sink.bulk-flush.backoff.max-retries} N becomes, unless {@code retry.max-time} is set,
     * the time kes's own backoff schedule takes for N retries.
     */
    static void translate(ReadableConfig options, Configuration sink) {
        Optional<Integer> retries = options.getOptional(BACKOFF_MAX_RETRIES);
        if (retries.isPresent()
                && options.getOptional(sqlOption(RETRY_MAX_TIME)).isEmpty()) {
            sink.set(
                    RETRY_MAX_TIME,
                    retryTime(
                            retries.get(),
                            options.get(sqlOption(RETRY_INITIAL_BACKOFF)),
                            options.get(sqlOption(RETRY_MAX_BACKOFF))));
        }
    }

    /** The waits of {@code retries} retries: {@code initial}, doubling, each at most {@code max}. */
    static Duration retryTime(int retries, Duration initial, Duration max) {
        Duration total = Duration.ZERO;
        Duration wait = initial;
        for (int i = 0; i < retries; i++) {
            if (wait.compareTo(max) >= 0) {
                return total.plus(max.multipliedBy(retries - i));
            }
            total = total.plus(wait);
            wait = wait.multipliedBy(2);
        }
        return total;
    }

    // The official dynamic index syntax beyond kes's {column} and {column|pattern}.

    /** {@code {now()|...}}: the system time, as IndexGeneratorFactory spells it (now(), NOW(), current_timestamp, CURRENT_TIMESTAMP). */
    private static final Pattern SYSTEM_TIME =
            Pattern.compile("\\s*(now\\(\\s*\\)|NOW\\(\\s*\\)|current_timestamp|CURRENT_TIMESTAMP)\\s*");

    private static final Pattern EMPTY_PATTERN = Pattern.compile("\\{([^}|]+)\\|}");

    /** A placeholder name that stands for the system time, not a column. */
    static boolean isSystemTime(String placeholder) {
        return SYSTEM_TIME.matcher(placeholder).matches();
    }

    /**
     * {@code {column|}}, an empty pattern, takes the official connectors' default pattern of the
     * column's type: the index option with those patterns written out. Unknown columns stay as they
     * are for the factory's message.
     */
    static String withDefaultPatterns(String index, Map<String, LogicalType> columns) {
        Matcher m = EMPTY_PATTERN.matcher(index);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String name = m.group(1);
            LogicalType type = columns.get(name);
            String pattern = isSystemTime(name)
                    ? "yyyy_MM_dd_HH_mm_ssX"
                    : type == null
                            ? null
                            : switch (type.getTypeRoot()) {
                                case DATE -> "yyyy_MM_dd";
                                case TIME_WITHOUT_TIME_ZONE -> "HH_mm_ss";
                                case TIMESTAMP_WITHOUT_TIME_ZONE -> "yyyy_MM_dd_HH_mm_ss";
                                case TIMESTAMP_WITH_LOCAL_TIME_ZONE -> "yyyy_MM_dd_HH_mm_ssX";
                                default -> null;
                            };
            m.appendReplacement(
                    out, Matcher.quoteReplacement(pattern == null ? m.group() : "{" + name + "|" + pattern + "}"));
        }
        m.appendTail(out);
        return out.toString();
    }
}
