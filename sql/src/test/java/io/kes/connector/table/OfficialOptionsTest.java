package io.kes.connector.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.kes.connector.SinkSettings;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.table.api.DataTypes;
import org.apache.flink.table.api.Schema;
import org.apache.flink.table.api.ValidationException;
import org.apache.flink.table.catalog.CatalogTable;
import org.apache.flink.table.catalog.Column;
import org.apache.flink.table.catalog.ObjectIdentifier;
import org.apache.flink.table.catalog.ResolvedCatalogTable;
import org.apache.flink.table.catalog.ResolvedSchema;
import org.apache.flink.table.catalog.UniqueConstraint;
import org.apache.flink.table.connector.sink.DynamicTableSink;
import org.apache.flink.table.factories.FactoryUtil;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A table written for Flink's own {@code elasticsearch-6/7/8} or {@code opensearch} connector,
 * with only {@code 'connector'} changed to {@code 'kes'}: every official option is accepted and
 * means the kes setting it names, or is refused with one sentence saying what kes does instead.
 * (In the sql module, for the JSON format the factory discovers; in the factory's package, to read
 * the sink it built.)
 */
class OfficialOptionsTest {

    private static final ResolvedSchema SCHEMA = new ResolvedSchema(
            List.of(
                    Column.physical("user_id", DataTypes.STRING().notNull()),
                    Column.physical("uv", DataTypes.BIGINT()),
                    Column.physical("log_ts", DataTypes.TIMESTAMP(3)),
                    Column.physical("d", DataTypes.DATE()),
                    Column.physical("t", DataTypes.TIME())),
            List.of(),
            UniqueConstraint.primaryKey("pk", List.of("user_id")),
            List.of());

    private static KesDynamicSink sink(Map<String, String> options) {
        Map<String, String> all =
                new HashMap<>(Map.of("connector", "kes", "hosts", "http://localhost:9200", "index", "users"));
        all.putAll(options);
        CatalogTable table = CatalogTable.newBuilder()
                .schema(Schema.newBuilder().fromResolvedSchema(SCHEMA).build())
                .options(all)
                .build();
        DynamicTableSink sink = FactoryUtil.createDynamicTableSink(
                null,
                ObjectIdentifier.of("c", "d", "users"),
                new ResolvedCatalogTable(table, SCHEMA),
                Map.of(),
                new Configuration(),
                OfficialOptionsTest.class.getClassLoader(),
                false);
        return (KesDynamicSink) sink;
    }

    private static SinkSettings settings(Map<String, String> options) {
        return sink(options).elasticsearchSink().settings();
    }

    private static String refusal(Map<String, String> options) {
        Throwable failure = catchThrowable(() -> sink(options));
        assertThat(failure).as("planning %s should fail", options).isNotNull();
        return ExceptionUtils.findThrowable(failure, ValidationException.class)
                .map(OfficialOptionsTest::innermost)
                .orElseThrow(() -> new AssertionError(failure));
    }

    private static String innermost(Throwable t) {
        Throwable last = t;
        while (last.getCause() != null) {
            last = last.getCause();
        }
        return last.getMessage();
    }

    /** Official key, a value as its documentation writes it, and the kes setting it sets. */
    static Stream<Arguments> mappedOptions() {
        return Stream.of(
                row(
                        "hosts",
                        "http://es1:9200;http://es2:9200",
                        SinkSettings::hosts,
                        List.of(URI.create("http://es1:9200"), URI.create("http://es2:9200"))),
                row("username", "elastic", SinkSettings::username, "elastic", "password", "secret"),
                row("password", "secret", SinkSettings::authorization, basic("elastic:secret"), "username", "elastic"),
                row("sink.bulk-flush.max-actions", "500", SinkSettings::maxDocs, 500),
                row("sink.bulk-flush.max-size", "2mb", SinkSettings::maxBytes, 2L * 1024 * 1024),
                row("sink.bulk-flush.interval", "2s", SinkSettings::linger, Duration.ofSeconds(2)),
                row("sink.bulk-flush.max-in-flight-actions", "8", SinkSettings::maxInFlight, 8),
                row("sink.bulk-flush.backoff.delay", "200ms", SinkSettings::initialBackoff, Duration.ofMillis(200)),
                // three retries of kes's own schedule: 100ms + 200ms + 400ms
                row("sink.bulk-flush.backoff.max-retries", "3", SinkSettings::maxRetryTime, Duration.ofMillis(700)),
                row("connection.path-prefix", "/v1", SinkSettings::pathPrefix, "/v1"),
                row("connection.timeout", "3s", SinkSettings::connectTimeout, Duration.ofSeconds(3)),
                row("socket.timeout", "30s", SinkSettings::socketTimeout, Duration.ofSeconds(30)),
                row(
                        "ssl.certificate-fingerprint",
                        "AA:" + "ab".repeat(30) + "cd",
                        SinkSettings::tlsFingerprint,
                        "aa" + "ab".repeat(30) + "cd"));
    }

    /** The password is readable only as the REST client's {@code Authorization} header. */
    private static String basic(String credentials) {
        return "Basic " + Base64.getEncoder().encodeToString(credentials.getBytes(StandardCharsets.UTF_8));
    }

    private static Arguments row(
            String key, String value, Function<SinkSettings, Object> setting, Object expected, String... more) {
        Map<String, String> options = new HashMap<>(Map.of(key, value));
        for (int i = 0; i < more.length; i += 2) {
            options.put(more[i], more[i + 1]);
        }
        return Arguments.of(key, options, setting, expected);
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("mappedOptions")
    void anOfficialOptionSetsTheKesSettingItMeans(
            String key, Map<String, String> options, Function<SinkSettings, Object> setting, Object expected) {
        assertThat(setting.apply(settings(options))).isEqualTo(expected);
    }

    /** Official options (and values) whose meaning is what kes always does: accepted, nothing to set. */
    static Stream<Arguments> acceptedAsKesBehaves() {
        return Stream.of(
                Arguments.of("document-id.key-delimiter", "$"),
                Arguments.of("document-type", "_doc"),
                Arguments.of("document-type", "user"),
                Arguments.of("connection.request-timeout", "30s"),
                Arguments.of("sink.delivery-guarantee", "none"),
                Arguments.of("sink.flush-on-checkpoint", "false"),
                Arguments.of("failure-handler", "fail"),
                Arguments.of("failure-handler", "retry-rejected"),
                Arguments.of("sink.flush-on-checkpoint", "true"),
                Arguments.of("sink.bulk-flush.backoff.strategy", "EXPONENTIAL"),
                Arguments.of("sink.delivery-guarantee", "at-least-once"),
                Arguments.of("sink.delivery-guarantee", "AT_LEAST_ONCE"),
                Arguments.of("sink.parallelism", "2"),
                Arguments.of("format", "json"),
                Arguments.of("json.timestamp-format.standard", "ISO-8601"),
                Arguments.of("json.encode.decimal-as-plain-number", "true"),
                Arguments.of("allow-insecure", "false"));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("acceptedAsKesBehaves")
    void anOfficialOptionWithTheValueKesAlwaysHasIsAccepted(String key, String value) {
        assertThat(sink(Map.of(key, value))).isNotNull();
    }

    @Test
    void theDocumentedBackoffTrioMapsToKesRetries() {
        SinkSettings s = settings(Map.of(
                "sink.bulk-flush.backoff.strategy",
                "EXPONENTIAL",
                "sink.bulk-flush.backoff.max-retries",
                "5",
                "sink.bulk-flush.backoff.delay",
                "1s"));
        assertThat(s.initialBackoff()).isEqualTo(Duration.ofSeconds(1));
        // 1s + 2s + 4s + 8s + 10s (retry.max-backoff caps each wait)
        assertThat(s.maxRetryTime()).isEqualTo(Duration.ofSeconds(25));
    }

    @Test
    void kesKeysWinOverTheOfficialOnesAndRetryMaxTimeOverMaxRetries() {
        SinkSettings s = settings(Map.of(
                "bulk.max-docs",
                "10",
                "sink.bulk-flush.max-actions",
                "500",
                "retry.max-time",
                "1min",
                "sink.bulk-flush.backoff.max-retries",
                "3"));
        assertThat(s.maxDocs()).isEqualTo(10);
        assertThat(s.maxRetryTime()).isEqualTo(Duration.ofMinutes(1));
    }

    @Test
    void theSinksMessagesNameTheOfficialKeyTheTableUsed() {
        assertThat(refusal(Map.of("sink.bulk-flush.max-actions", "-1")))
                .isEqualTo("sink.bulk-flush.max-actions must be at least 1, got -1");
        assertThat(refusal(Map.of("sink.bulk-flush.backoff.delay", "20s")))
                .isEqualTo("retry.max-backoff (PT10S) must not be shorter than sink.bulk-flush.backoff.delay (PT20S)");
        assertThat(refusal(Map.of("connection.path-prefix", "v1")))
                .isEqualTo("connection.path-prefix must start with '/', got 'v1'");
        assertThat(refusal(Map.of("sink.bulk-flush.backoff.max-retries", "0")))
                .isEqualTo("sink.bulk-flush.backoff.max-retries must be at least 1, got 0");
    }

    /** Official option, value, and the one sentence kes answers with. */
    static Stream<Arguments> refused() {
        String exponential =
                "kes retries rejected and unavailable writes with exponential backoff (retry.initial-backoff, doubling "
                        + "up to retry.max-backoff) for up to retry.max-time; ";
        return Stream.of(
                Arguments.of(
                        "sink.bulk-flush.backoff.strategy",
                        "CONSTANT",
                        exponential
                                + "'sink.bulk-flush.backoff.strategy' = 'CONSTANT' has no kes equivalent, remove it"),
                Arguments.of(
                        "sink.bulk-flush.backoff.strategy",
                        "NONE",
                        exponential + "'sink.bulk-flush.backoff.strategy' = 'NONE' has no kes equivalent, remove it"),
                Arguments.of(
                        "sink.bulk-flush.backoff.strategy",
                        "DISABLED",
                        exponential
                                + "'sink.bulk-flush.backoff.strategy' = 'DISABLED' has no kes equivalent, remove it"),
                Arguments.of(
                        "sink.delivery-guarantee",
                        "exactly-once",
                        "kes is at-least-once, its replays overwriting the same documents "
                                + "when ids come from a PRIMARY KEY or the Kafka metadata columns; 'sink.delivery-guarantee' = 'exactly-once' has "
                                + "no kes equivalent, use 'at-least-once' or remove it"),
                Arguments.of(
                        "failure-handler",
                        "ignore",
                        "kes retries rejected (429) writes and does not drop refused rows silently; "
                                + "'failure-handler' = 'ignore' has no kes equivalent: use 'fail', or 'dead-letter' to send refused rows to a "
                                + "Kafka topic and go on"),
                Arguments.of(
                        "failure-handler",
                        "com.example.MyHandler",
                        "kes retries rejected (429) writes and does not drop refused "
                                + "rows silently; 'failure-handler' = 'com.example.MyHandler' (an ActionRequestFailureHandler class) has no kes "
                                + "equivalent: use 'fail', or 'dead-letter' to send refused rows to a Kafka topic and go on"),
                Arguments.of(
                        "allow-insecure",
                        "true",
                        "kes always verifies the node's certificate; 'allow-insecure' = 'true' has no kes "
                                + "equivalent: trust the certificate with 'ssl.certificate-fingerprint' or 'ssl.ca-file'"),
                Arguments.of(
                        "index.suffix.field.name",
                        "user_id",
                        "kes writes a column's value into the index name with a template, "
                                + "e.g. 'index' = 'users-{region}'; 'index.suffix.field.name' has no kes equivalent, remove it"),
                Arguments.of(
                        "index.suffix.field.length",
                        "3",
                        "kes index templates take a column's whole value; compute a shorter "
                                + "suffix in the query (e.g. SUBSTRING) and name that column in 'index'; 'index.suffix.field.length' has no kes "
                                + "equivalent, remove it"));
    }

    @ParameterizedTest(name = "{0} = {1}")
    @MethodSource("refused")
    void anOfficialOptionKesCannotHonourIsRefusedWithOneSentence(String key, String value, String sentence) {
        assertThat(refusal(Map.of(key, value))).isEqualTo(sentence);
    }

    /** How kes answers an official option (with the value in its row). */
    enum Verdict {
        /** Plans; kes reads it as its own option or does what it asks, nothing to say. */
        TAKEN,
        /** Plans; kes keeps the option's promise its own way and logs one line saying how. */
        LOGGED,
        /** Fails at planning: kes would break what the option means. */
        REFUSED
    }

    /**
     * Every option of Flink's official SQL connectors (read from {@code ElasticsearchConnectorOptions},
     * {@code Elasticsearch6ConnectorOptions}, {@code Elasticsearch8ConnectorOptions},
     * {@code OpensearchConnectorOptions} and the legacy es6/7 table sink), each with a value a table
     * would carry (and any option it needs beside it) and kes's verdict. A new official option is a new row here and in docs/sql.md.
     */
    static Stream<Arguments> everyOfficialOption() {
        return Stream.of(
                Arguments.of("hosts", "http://es1:9200", Verdict.TAKEN, Map.of()),
                Arguments.of("index", "users", Verdict.TAKEN, Map.of()),
                // basic auth needs both
                Arguments.of("username", "elastic", Verdict.TAKEN, Map.of("password", "secret")),
                Arguments.of("password", "secret", Verdict.TAKEN, Map.of("username", "elastic")),
                Arguments.of("document-id.key-delimiter", "$", Verdict.TAKEN, Map.of()),
                Arguments.of("document-type", "_doc", Verdict.TAKEN, Map.of()),
                Arguments.of("document-type", "user", Verdict.LOGGED, Map.of()),
                Arguments.of("format", "json", Verdict.TAKEN, Map.of()),
                Arguments.of("sink.parallelism", "2", Verdict.TAKEN, Map.of()),
                Arguments.of("sink.bulk-flush.max-actions", "1000", Verdict.TAKEN, Map.of()),
                Arguments.of("sink.bulk-flush.max-size", "2mb", Verdict.TAKEN, Map.of()),
                Arguments.of("sink.bulk-flush.interval", "1s", Verdict.TAKEN, Map.of()),
                Arguments.of("sink.bulk-flush.max-in-flight-actions", "4", Verdict.TAKEN, Map.of()),
                Arguments.of("sink.bulk-flush.max-buffered-actions", "10000", Verdict.LOGGED, Map.of()),
                Arguments.of("sink.bulk-flush.backoff.strategy", "EXPONENTIAL", Verdict.TAKEN, Map.of()),
                Arguments.of("sink.bulk-flush.backoff.strategy", "CONSTANT", Verdict.REFUSED, Map.of()),
                Arguments.of("sink.bulk-flush.backoff.strategy", "NONE", Verdict.REFUSED, Map.of()),
                Arguments.of("sink.bulk-flush.backoff.max-retries", "3", Verdict.TAKEN, Map.of()),
                Arguments.of("sink.bulk-flush.backoff.delay", "100ms", Verdict.TAKEN, Map.of()),
                Arguments.of("connection.path-prefix", "/v1", Verdict.TAKEN, Map.of()),
                Arguments.of("connection.request-timeout", "30s", Verdict.LOGGED, Map.of()),
                Arguments.of("connection.timeout", "3s", Verdict.TAKEN, Map.of()),
                Arguments.of("socket.timeout", "30s", Verdict.TAKEN, Map.of()),
                Arguments.of("ssl.certificate-fingerprint", "ab".repeat(32), Verdict.TAKEN, Map.of()),
                Arguments.of("sink.delivery-guarantee", "at-least-once", Verdict.TAKEN, Map.of()),
                Arguments.of("sink.delivery-guarantee", "none", Verdict.LOGGED, Map.of()),
                Arguments.of("sink.delivery-guarantee", "exactly-once", Verdict.REFUSED, Map.of()),
                Arguments.of("sink.retry-on-conflicts", "5", Verdict.LOGGED, Map.of()),
                Arguments.of("sink.flush-on-checkpoint", "true", Verdict.TAKEN, Map.of()),
                Arguments.of("sink.flush-on-checkpoint", "false", Verdict.LOGGED, Map.of()),
                Arguments.of("failure-handler", "fail", Verdict.TAKEN, Map.of()),
                Arguments.of("failure-handler", "retry-rejected", Verdict.TAKEN, Map.of()),
                Arguments.of("failure-handler", "ignore", Verdict.REFUSED, Map.of()),
                Arguments.of("allow-insecure", "false", Verdict.TAKEN, Map.of()),
                Arguments.of("allow-insecure", "true", Verdict.REFUSED, Map.of()),
                Arguments.of("index.suffix.field.name", "user_id", Verdict.REFUSED, Map.of()),
                Arguments.of("index.suffix.field.length", "3", Verdict.REFUSED, Map.of()),
                Arguments.of("lookup.cache", "PARTIAL", Verdict.LOGGED, Map.of()),
                Arguments.of("lookup.partial-cache.expire-after-access", "1h", Verdict.LOGGED, Map.of()),
                Arguments.of("lookup.partial-cache.expire-after-write", "1h", Verdict.LOGGED, Map.of()),
                Arguments.of("lookup.partial-cache.max-rows", "100", Verdict.LOGGED, Map.of()),
                Arguments.of("lookup.partial-cache.cache-missing-key", "true", Verdict.LOGGED, Map.of()),
                Arguments.of("lookup.max-retries", "3", Verdict.LOGGED, Map.of()));
    }

    /**
     * Issue 38 item 3: a DDL written for an official connector plans on kes unless kes would break
     * what one of its options means; where kes keeps the promise its own way, one log line (the
     * note) names the option and says what kes does.
     */
    @ParameterizedTest(name = "{0} = {1}: {2}")
    @MethodSource("everyOfficialOption")
    void everyOfficialOptionIsTakenLoggedOrRefused(
            String key, String value, Verdict verdict, Map<String, String> with) {
        Map<String, String> options = new HashMap<>(with);
        options.put(key, value);
        if (verdict == Verdict.REFUSED) {
            assertThat(refusal(options)).contains("'" + key + "'");
            return;
        }
        assertThat(sink(options)).isNotNull();
        List<String> notes = OfficialOptions.check(Configuration.fromMap(options), options);
        if (verdict == Verdict.LOGGED) {
            assertThat(notes).singleElement().asString().startsWith("'" + key + "' = '" + value + "' is ");
        } else {
            assertThat(notes).isEmpty();
        }
    }

    @Test
    void theRequestTimeoutOfEveryOfficialConnectorPlansAndSaysWhyKesNeedsNone() {
        Map<String, String> options = Map.of("connection.request-timeout", "30s");
        assertThat(sink(options)).isNotNull();
        assertThat(OfficialOptions.check(Configuration.fromMap(options), options))
                .containsExactly("'connection.request-timeout' = '30s' is accepted: kes sizes its connection pool to "
                        + "twice the bulks in flight, so no request waits for a connection, and bounds each request "
                        + "with 'socket-timeout'");
    }

    /**
     * Issue 27 item 8: kes's 'document-id.key-escape' reaches the id rule of the sink it builds, so
     * ('a_b', 'c') and ('a', 'b_c') no longer share an id; without it the ids stay the official
     * connectors'.
     */
    @Test
    void keyEscapeMakesTheSinksCompositeKeyIdsInjective() throws Exception {
        CompositeKeyId escaped =
                sink(Map.of("document-id.key-escape", "true")).spec.keyId();
        CompositeKeyId official = sink(Map.of()).spec.keyId();

        assertThat(escaped.of(new String[] {"a_b", "c"})).isNotEqualTo(escaped.of(new String[] {"a", "b_c"}));
        assertThat(official.of(new String[] {"a_b", "c"})).isEqualTo(official.of(new String[] {"a", "b_c"}));
    }

    @Test
    void theOfficialDynamicIndexSyntaxNeedsNoChange() {
        assertThat(sink(Map.of("index", "myusers-{log_ts|yyyy-MM-dd}"))).isNotNull();
        assertThat(sink(Map.of("index", "myusers-{d|yyyy-MM-dd}"))).isNotNull();
        assertThat(sink(Map.of("index", "myusers-{t|HH}"))).isNotNull();
        assertThat(sink(Map.of("index", "myusers-{user_id}"))).isNotNull();
        assertThat(OfficialOptions.withDefaultPatterns(
                        "users-{log_ts|}-{d|}-{t|}-{now()|}-{user_id}",
                        Map.of(
                                "log_ts",
                                DataTypes.TIMESTAMP(3).getLogicalType(),
                                "d",
                                DataTypes.DATE().getLogicalType(),
                                "t",
                                DataTypes.TIME().getLogicalType())))
                .isEqualTo(
                        "users-{log_ts|yyyy_MM_dd_HH_mm_ss}-{d|yyyy_MM_dd}-{t|HH_mm_ss}-{now()|yyyy_MM_dd_HH_mm_ssX}-{user_id}");
        for (String now : List.of("now()", "NOW()", "current_timestamp", "CURRENT_TIMESTAMP", " now( ) ")) {
            assertThat(OfficialOptions.isSystemTime(now)).as(now).isTrue();
        }
        assertThat(OfficialOptions.isSystemTime("now")).isFalse();
    }
}
