package io.kes.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.apache.flink.table.api.EnvironmentSettings;
import org.apache.flink.table.api.ExplainDetail;
import org.apache.flink.table.api.TableEnvironment;
import org.apache.flink.util.ExceptionUtils;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The messages a SQL user sees for a wrong {@code 'connector' = 'kes'} table: planning an INSERT
 * (no servers needed) fails naming the option or column to change.
 */
class KesTableValidationTest {

    private static TableEnvironment tables;

    @BeforeAll
    static void planner() {
        tables = TableEnvironment.create(EnvironmentSettings.inStreamingMode());
        tables.executeSql("CREATE TABLE src (id BIGINT NOT NULL, name STRING, ts TIMESTAMP(3), n INT, bin BYTES) "
                + "WITH ('connector' = 'datagen')");
    }

    private static String failureOf(String columns, String options) {
        return failureOf(columns, options, "SELECT id, name, ts, n, bin FROM src");
    }

    private static String failureOf(String columns, String options, String query) {
        String table = "t" + System.nanoTime();
        tables.executeSql("CREATE TABLE " + table + " (" + columns + ") WITH ('connector' = 'kes', " + options + ")");
        Throwable failure = catchThrowable(() -> tables.explainSql("INSERT INTO " + table + " " + query));
        assertThat(failure).as("planning should fail").isNotNull();
        return ExceptionUtils.findThrowableWithMessage(failure, "kes").isPresent()
                ? rootMessage(failure)
                : ExceptionUtils.stringifyException(failure);
    }

    private static String rootMessage(Throwable t) {
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t.getMessage();
    }

    private static final String COLUMNS = "id BIGINT NOT NULL, name STRING, ts TIMESTAMP(3), n INT, bin BYTES";
    private static final String HOSTS = "'hosts' = 'http://localhost:9200'";

    @Test
    void aValidTablePlansWithTheWriterAfterAKeyedShuffle() {
        tables.executeSql("CREATE TABLE ok (" + COLUMNS + ", PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'kes', "
                + HOSTS + ", 'index' = 'logs-{name}-{ts|yyyy.MM.dd}', 'routing' = 'name', 'bulk.max-docs' = '10')");
        assertThat(tables.explainSql("INSERT INTO ok SELECT id, name, ts, n, bin FROM src"))
                .contains("Sink(table=[default_catalog.default_database.ok]");
    }

    @Test
    void missingIndexAndHostsAreNamed() {
        assertThat(failureOf(COLUMNS, "'format' = 'json'")).contains("Missing required options are:", "hosts", "index");
    }

    @Test
    void unknownOptionsAreListed() {
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'bulk.max_docs' = '5'"))
                .contains("Unsupported options", "bulk.max_docs", "bulk.max-docs");
    }

    @Test
    void anEscapedKeyNeedsADelimiterWhoseFirstCharacterCanBeEscaped() {
        assertThat(
                        failureOf(
                                COLUMNS + ", PRIMARY KEY (id, name) NOT ENFORCED",
                                HOSTS
                                        + ", 'index' = 'x', 'document-id.key-escape' = 'true', 'document-id.key-delimiter' = '\\|'"))
                .isEqualTo(
                        "document-id.key-escape needs a document-id.key-delimiter that is not empty and does not start with a "
                                + "backslash (it is '\\|'): use the default '_' or another text");
    }

    @Test
    void sinkValidationSpeaksInTheTablesOptionNames() {
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'bulk.max-docs' = '0'"))
                .isEqualTo("bulk.max-docs must be at least 1, got 0");
        assertThat(failureOf(COLUMNS, "'hosts' = 'localhost:9200', 'index' = 'x'"))
                .isEqualTo("hosts entry 'localhost:9200' must look like http://host:9200 or https://host:9200");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'username' = 'elastic'"))
                .isEqualTo("username is set but password is not");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'durability' = 'sometimes'"))
                .isEqualTo("durability must be checkpoint-fence or request, got 'sometimes'");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'retry.initial-backoff' = '20s'"))
                .isEqualTo("retry.max-backoff (PT10S) must not be shorter than retry.initial-backoff (PT20S)");
    }

    @Test
    void indexTemplatesMustNameColumnsOfTheRightType() {
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'logs-{service}'"))
                .isEqualTo(
                        "index 'logs-{service}' names column service, which the table does not have: its columns are id, name, ts, n, bin");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'logs-{n|yyyy.MM}'"))
                .isEqualTo(
                        "index 'logs-{n|yyyy.MM}' formats column n as a date with {n|yyyy.MM}, but it is INT: use a DATE, TIME, TIMESTAMP or "
                                + "TIMESTAMP_LTZ column, or {n} for its value");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'logs-{ts|yyyy.bb}'"))
                .startsWith("index has an invalid date pattern 'yyyy.bb'");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'Logs'"))
                .startsWith("index 'Logs' is not a valid Elasticsearch index name");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'logs-{bin}'"))
                .isEqualTo(
                        "column bin (BYTES) cannot be a index name column: use a character string, number, boolean, date or time column");
    }

    @Test
    void aTableWrittenForFlinksElasticsearch7ConnectorPlansWithOnlyTheConnectorsNameChanged() {
        tables.executeSql("""
                CREATE TABLE official (user_id STRING, user_name STRING, uv BIGINT, pv BIGINT, log_ts TIMESTAMP(3),
                  PRIMARY KEY (user_id) NOT ENFORCED
                ) WITH (
                  'connector' = 'kes', 'hosts' = 'http://localhost:9200', 'index' = 'users-{log_ts|yyyy-MM-dd}',
                  'document-id.key-delimiter' = '$', 'username' = 'elastic', 'password' = 'secret', 'failure-handler' = 'retry-rejected',
                  'sink.flush-on-checkpoint' = 'true', 'sink.bulk-flush.max-actions' = '500', 'sink.bulk-flush.max-size' = '2mb',
                  'sink.bulk-flush.interval' = '1s', 'sink.bulk-flush.backoff.strategy' = 'EXPONENTIAL',
                  'sink.bulk-flush.backoff.max-retries' = '3', 'sink.bulk-flush.backoff.delay' = '100ms',
                  'connection.path-prefix' = '/v1', 'connection.timeout' = '5s', 'socket.timeout' = '30s',
                  'sink.delivery-guarantee' = 'at-least-once', 'sink.parallelism' = '1', 'format' = 'json',
                  'json.timestamp-format.standard' = 'ISO-8601')""");
        tables.executeSql(
                "CREATE TEMPORARY VIEW users AS SELECT name AS user_id, name AS user_name, n AS uv, id AS pv, ts AS log_ts FROM src");
        assertThat(tables.explainSql("INSERT INTO official SELECT * FROM users"))
                .contains("Sink(table=[default_catalog.default_database.official]");
    }

    @Test
    void aSystemTimeIndexNeedsAnAppendOnlyStream() {
        tables.executeSql("CREATE TABLE by_day (" + COLUMNS + ") WITH ('connector' = 'kes', " + HOSTS
                + ", 'index' = 'logs-{now()|yyyy-MM-dd}')");
        assertThat(tables.explainSql("INSERT INTO by_day SELECT id, name, ts, n, bin FROM src"))
                .contains("by_day");
        tables.executeSql(
                "CREATE TABLE counts_by_day (k INT, c BIGINT, PRIMARY KEY (k) NOT ENFORCED) WITH ('connector' = 'kes', "
                        + HOSTS + ", 'index' = 'counts-{now()|yyyy-MM-dd}')");
        tables.executeSql("CREATE TABLE keys_src (k INT) WITH ('connector' = 'datagen')");
        Throwable failure = catchThrowable(
                () -> tables.explainSql("INSERT INTO counts_by_day SELECT k, COUNT(*) FROM keys_src GROUP BY k"));
        assertThat(rootMessage(failure))
                .isEqualTo("index 'counts-{now()|yyyy-MM-dd}' takes its name from the system time, which works only "
                        + "on an append-only stream: an update or delete of a key would go to another index than the key's document; name a "
                        + "column of the row in 'index' instead");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'logs-{now()}'"))
                .isEqualTo(
                        "index 'logs-{now()}' names the system time with {now()} but no date pattern: write it as {now()|yyyy-MM-dd}");
    }

    @Test
    void routingMustBeAColumn() {
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'routing' = 'tenant'"))
                .isEqualTo(
                        "routing names column tenant, which the table does not have: its columns are id, name, ts, n, bin");
    }

    @Test
    void upsertNeedsAPrimaryKey() {
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'op' = 'upsert'"))
                .startsWith("op 'upsert' needs a PRIMARY KEY");
    }

    @Test
    void opAndFormatAndFailureHandlerAcceptOnlyWhatKesDoes() {
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'op' = 'merge'"))
                .isEqualTo("op 'merge' is not one of index, create, upsert");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'format' = 'csv'"))
                .isEqualTo("format 'csv' is not supported: kes writes JSON documents; use 'format' = 'json'");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'failure-handler' = 'skip'"))
                .isEqualTo("failure-handler 'skip' is not one of fail, dead-letter");
    }

    @Test
    void aDeadLetterHandlerNeedsItsTopicAndBrokers() {
        String dlq = HOSTS + ", 'index' = 'x', 'failure-handler' = 'dead-letter'";
        assertThat(failureOf(COLUMNS, dlq + ", 'failure-handler.dead-letter.bootstrap-servers' = 'localhost:9092'"))
                .isEqualTo(
                        "failure-handler 'dead-letter' needs failure-handler.dead-letter.topic: the Kafka topic refused rows go to");
        assertThat(failureOf(COLUMNS, dlq + ", 'failure-handler.dead-letter.topic' = 'dlq'"))
                .isEqualTo(
                        "failure-handler 'dead-letter' needs failure-handler.dead-letter.bootstrap-servers: the Kafka brokers of topic "
                                + "dlq, e.g. localhost:9092");
        assertThat(
                        failureOf(
                                COLUMNS,
                                dlq + ", 'failure-handler.dead-letter.topic' = 'dlq', "
                                        + "'failure-handler.dead-letter.bootstrap-servers' = 'k:9092', 'failure-handler.dead-letter.properties.bootstrap.servers' = 'k:1'"))
                .isEqualTo("failure-handler.dead-letter.properties.bootstrap.servers cannot be set: kes sets it; use "
                        + "failure-handler.dead-letter.bootstrap-servers");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'failure-handler.dead-letter.topic' = 'dlq'"))
                .isEqualTo(
                        "failure-handler.dead-letter.topic is set but failure-handler is 'fail': set 'failure-handler' = 'dead-letter' "
                                + "to send refused rows to the topic, or remove failure-handler.dead-letter.topic");
        assertThat(
                        failureOf(
                                COLUMNS,
                                dlq + ", 'failure-handler.dead-letter.topic' = 'dlq', "
                                        + "'failure-handler.dead-letter.bootstrap-servers' = 'k:9092', 'failure-handler.dead-letter.topik' = 'x'"))
                .contains("Unsupported options", "failure-handler.dead-letter.topik");
        // Producer settings pass through under failure-handler.dead-letter.properties.
        tables.executeSql("CREATE TABLE dlq_ok (" + COLUMNS + ") WITH ('connector' = 'kes', " + dlq
                + ", 'failure-handler.dead-letter.topic' = 'dlq', 'failure-handler.dead-letter.bootstrap-servers' = 'k:9092', "
                + "'failure-handler.dead-letter.properties.security.protocol' = 'SASL_SSL')");
        assertThat(tables.explainSql("INSERT INTO dlq_ok SELECT id, name, ts, n, bin FROM src"))
                .contains("Sink(table=[default_catalog.default_database.dlq_ok]");
    }

    @Test
    void aPipelineIsANameAndRunsOnlyForIndexAndCreate() {
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'pipeline' = ' '"))
                .startsWith("pipeline is empty: name an ingest pipeline, or leave the option out");
        assertThat(failureOf(
                        COLUMNS + ", PRIMARY KEY (id) NOT ENFORCED",
                        HOSTS + ", 'index' = 'x', 'op' = 'upsert', 'pipeline' = 'p'"))
                .isEqualTo(
                        "pipeline 'p' cannot be used with 'op' = 'upsert': Elasticsearch runs no ingest pipeline for a bulk update; "
                                + "use 'op' = 'index', or set the pipeline as the index's index.final_pipeline");
    }

    @Test
    void sinkParallelismSetsTheWritersParallelism() {
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'sink.parallelism' = '0'"))
                .isEqualTo(
                        "sink.parallelism must be at least 1, got 0; leave it out to run the writers at the input's parallelism");
        tables.executeSql(
                "CREATE TABLE par (" + COLUMNS + ", PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'kes', " + HOSTS
                        + ", 'index' = 'x', 'sink.parallelism' = '3')");
        String plan = tables.explainSql(
                "INSERT INTO par SELECT id, name, ts, n, bin FROM src", ExplainDetail.JSON_EXECUTION_PLAN);
        // The source runs at 2 (parallelism.default of the test's MiniCluster); the rows reach the
        // three converters by id (HASH), and each converter feeds its own writer (FORWARD; three
        // writers are chained under bulk.topology: auto).
        assertThat(plan)
                .containsPattern(
                        "\"type\" : \"kes: rows to documents\",[^}]*\"parallelism\" : 3,\\s*\"predecessors\" : \\[ \\{[^}]*\"HASH\"");
        assertThat(plan)
                .containsPattern(
                        "\"type\" : \"kes: [^\"]*: kes: bulk writer\",[^}]*\"parallelism\" : 3,\\s*\"predecessors\" : \\[ \\{[^}]*\"FORWARD\"");
        // Keyed, the converters feed their slot routers (FORWARD) and the routers the writers by shard slot (CUSTOM).
        tables.executeSql(
                "CREATE TABLE par_keyed (" + COLUMNS + ", PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'kes', "
                        + HOSTS + ", 'index' = 'x', 'sink.parallelism' = '3', 'bulk.topology' = 'keyed')");
        String keyed = tables.explainSql(
                "INSERT INTO par_keyed SELECT id, name, ts, n, bin FROM src", ExplainDetail.JSON_EXECUTION_PLAN);
        assertThat(keyed)
                .containsPattern(
                        "\"type\" : \"kes: [^\"]*: kes: shard slots\",[^}]*\"parallelism\" : 3,\\s*\"predecessors\" : \\[ \\{[^}]*\"FORWARD\"");
        assertThat(keyed)
                .containsPattern(
                        "\"type\" : \"kes: [^\"]*: kes: bulk writer\",[^}]*\"parallelism\" : 3,\\s*\"predecessors\" : \\[ \\{[^}]*\"CUSTOM\"");
    }

    @Test
    void withoutAPrimaryKeyTheTableIsAppendOnly() {
        tables.executeSql("CREATE TABLE counts_src (k INT) WITH ('connector' = 'datagen')");
        String failure = failureOf(
                "k INT, c BIGINT", HOSTS + ", 'index' = 'x'", "SELECT k, COUNT(*) FROM counts_src GROUP BY k");
        assertThat(failure).contains("doesn't support consuming update changes");
    }

    @Test
    void kafkaMetadataComesAsAllThreeOrNone() {
        assertThat(failureOf(
                        "id BIGINT, t STRING METADATA FROM 'kafka.topic'",
                        HOSTS + ", 'index' = 'x'",
                        "SELECT id, name FROM src"))
                .contains(
                        "declares Kafka metadata [kafka.topic] but not all of kafka.topic, kafka.partition and kafka.offset");
    }
}
