package io.kes.connector.table;

import static io.kes.connector.ElasticsearchSinkOptions.*;

import io.kes.connector.ElasticsearchSinkOptions;
import io.kes.connector.internal.OptionText;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.apache.flink.configuration.ConfigOption;
import org.apache.flink.configuration.ConfigOptions;

/**
 * The name a SQL table gives each option of {@link ElasticsearchSinkOptions}, by one rule in Flink
 * SQL's dotted style: the key without its {@code elasticsearch.} section, {@code _} written
 * {@code -} ({@code elasticsearch.api_key} is {@code api-key}, {@code bulk.max_docs} is
 * {@code bulk.max-docs}). The exceptions are listed below, each with its reason; everything else
 * about a SQL option (type, default, description) is the sink's declaration, so the two cannot
 * drift apart. {@code SqlNamesTest} holds every name users write today.
 */
final class SqlNames {

    private SqlNames() {}

    private static final String SECTION_DROPPED = "elasticsearch.";

    /** Names the rule does not give. */
    private static final Map<ConfigOption<?>, String> RENAMED = Map.of(
            // es8's name of the fingerprint, and the CA file next to it.
            TLS_FINGERPRINT, "ssl.certificate-fingerprint",
            TLS_CA_FILE, "ssl.ca-file",
            // A detail of the checkpoint fence, so under durability.
            FENCE_SYNC_WAIT, "durability.fence-sync-wait");

    /**
     * The names Flink's own Elasticsearch and OpenSearch connectors give an option (read from their
     * {@code *ConnectorOptions}; docs/sql.md's migration table): fallback keys of kes's name, so
     * their tables plan unchanged and kes's name wins where a table gives both.
     */
    private static final Map<ConfigOption<?>, List<String>> OFFICIAL = Map.of(
            PATH_PREFIX, List.of("connection.path-prefix"),
            CONNECT_TIMEOUT, List.of("connection.timeout"),
            SOCKET_TIMEOUT, List.of("socket.timeout"),
            BULK_MAX_DOCS, List.of("sink.bulk-flush.max-actions"),
            BULK_MAX_BYTES, List.of("sink.bulk-flush.max-size"),
            BULK_LINGER, List.of("sink.bulk-flush.interval"),
            BULK_MAX_IN_FLIGHT, List.of("sink.bulk-flush.max-in-flight-actions"),
            RETRY_INITIAL_BACKOFF, List.of("sink.bulk-flush.backoff.delay"));

    /**
     * Options a table takes as text and the sink parses, so that it accepts the spellings the job's
     * YAML does ({@code checkpoint_fence}) and refuses others with the sink's message.
     */
    private static final Set<ConfigOption<?>> AS_TEXT = Set.of(DURABILITY);

    /** The SQL name of a sink option. */
    static String of(ConfigOption<?> sinkOption) {
        String renamed = RENAMED.get(sinkOption);
        if (renamed != null) {
            return renamed;
        }
        String key = sinkOption.key();
        return (key.startsWith(SECTION_DROPPED) ? key.substring(SECTION_DROPPED.length()) : key).replace('_', '-');
    }

    /** Every sink option under its SQL name, in declaration order. */
    static List<KesTableOptions.SinkOption<?>> sinkOptions() {
        return ElasticsearchSinkOptions.all().stream()
                .<KesTableOptions.SinkOption<?>>map(SqlNames::sinkOption)
                .toList();
    }

    private static <T> KesTableOptions.SinkOption<?> sinkOption(ConfigOption<T> sink) {
        String description = inSqlTerms(OptionText.asWritten(sink));
        String[] official = OFFICIAL.getOrDefault(sink, List.of()).toArray(String[]::new);
        if (AS_TEXT.contains(sink)) {
            ConfigOption<String> table = ConfigOptions.key(of(sink))
                    .stringType()
                    .defaultValue(String.valueOf(sink.defaultValue()))
                    .withFallbackKeys(official)
                    .withDescription(description);
            return new KesTableOptions.SinkOption<>(
                    table, ConfigOptions.key(sink.key()).stringType().noDefaultValue());
        }
        ConfigOption<T> table = ElasticsearchSinkOptions.underKey(sink, of(sink))
                .withFallbackKeys(official)
                .withDescription(description);
        return new KesTableOptions.SinkOption<>(table, sink);
    }

    /** A sink option's description with the options it names as a SQL table names them. */
    private static String inSqlTerms(String text) {
        Map<String, String> names = new LinkedHashMap<>();
        ElasticsearchSinkOptions.all().forEach(o -> names.put(o.key(), of(o)));
        return replaceKeys(text, names);
    }

    /** One pass, longest key first: no key is replaced inside another's replacement. */
    static String replaceKeys(String text, Map<String, String> names) {
        Pattern keys = Pattern.compile(names.keySet().stream()
                .sorted(Comparator.comparingInt(String::length).reversed())
                .map(Pattern::quote)
                .collect(Collectors.joining("|")));
        return keys.matcher(text).replaceAll(m -> Matcher.quoteReplacement(names.get(m.group())));
    }
}
