package io.kes.sql;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;

import org.apache.flink.table.api.EnvironmentSettings;
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
                ? rootMessage(failure) : ExceptionUtils.stringifyException(failure);
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
        tables.executeSql("CREATE TABLE ok (" + COLUMNS + ", PRIMARY KEY (id) NOT ENFORCED) WITH ('connector' = 'kes', " + HOSTS
                + ", 'index' = 'logs-{name}-{ts|yyyy.MM.dd}', 'routing' = 'name', 'bulk.max-docs' = '10')");
        assertThat(tables.explainSql("INSERT INTO ok SELECT id, name, ts, n, bin FROM src")).contains("Sink(table=[default_catalog.default_database.ok]");
    }

    @Test
    void missingIndexAndHostsAreNamed() {
        assertThat(failureOf(COLUMNS, "'format' = 'json'")).contains("Missing required options are:", "hosts", "index");
    }

    @Test
    void unknownOptionsAreListed() {
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'bulk.max_docs' = '5'")).contains("Unsupported options", "bulk.max_docs", "bulk.max-docs");
    }

    @Test
    void sinkValidationSpeaksInTheTablesOptionNames() {
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'bulk.max-docs' = '0'")).isEqualTo("bulk.max-docs must be at least 1, got 0");
        assertThat(failureOf(COLUMNS, "'hosts' = 'localhost:9200', 'index' = 'x'"))
                .isEqualTo("hosts entry 'localhost:9200' must look like http://host:9200 or https://host:9200");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'username' = 'elastic'")).isEqualTo("username is set but password is not");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'durability' = 'sometimes'"))
                .isEqualTo("durability must be checkpoint-fence or request, got 'sometimes'");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'retry.initial-backoff' = '20s'"))
                .isEqualTo("retry.max-backoff (PT10S) must not be shorter than retry.initial-backoff (PT20S)");
    }

    @Test
    void indexTemplatesMustNameColumnsOfTheRightType() {
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'logs-{service}'"))
                .isEqualTo("index 'logs-{service}' names column service, which the table does not have: its columns are id, name, ts, n, bin");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'logs-{n|yyyy.MM}'"))
                .isEqualTo("index 'logs-{n|yyyy.MM}' formats column n as a date with {n|yyyy.MM}, but it is INT: use a DATE, TIMESTAMP or "
                        + "TIMESTAMP_LTZ column, or {n} for its value");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'logs-{ts|yyyy.bb}'")).startsWith("index has an invalid date pattern 'yyyy.bb'");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'Logs'")).startsWith("index 'Logs' is not a valid Elasticsearch index name");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'logs-{bin}'"))
                .isEqualTo("column bin (BYTES) cannot be a index name column: use a character string, number, boolean, date or time column");
    }

    @Test
    void routingMustBeAColumn() {
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'routing' = 'tenant'"))
                .isEqualTo("routing names column tenant, which the table does not have: its columns are id, name, ts, n, bin");
    }

    @Test
    void upsertNeedsAPrimaryKey() {
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'op' = 'upsert'")).startsWith("op 'upsert' needs a PRIMARY KEY");
    }

    @Test
    void opAndFormatAndFailureHandlerAcceptOnlyWhatKesDoes() {
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'op' = 'merge'")).isEqualTo("op 'merge' is not one of index, create, upsert");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'format' = 'csv'"))
                .isEqualTo("format 'csv' is not supported: kes writes JSON documents; use 'format' = 'json'");
        assertThat(failureOf(COLUMNS, HOSTS + ", 'index' = 'x', 'failure-handler' = 'dead-letter'"))
                .startsWith("failure-handler 'dead-letter' is not supported");
    }

    @Test
    void withoutAPrimaryKeyTheTableIsAppendOnly() {
        tables.executeSql("CREATE TABLE counts_src (k INT) WITH ('connector' = 'datagen')");
        String failure = failureOf("k INT, c BIGINT", HOSTS + ", 'index' = 'x'", "SELECT k, COUNT(*) FROM counts_src GROUP BY k");
        assertThat(failure).contains("doesn't support consuming update changes");
    }

    @Test
    void kafkaMetadataComesAsAllThreeOrNone() {
        assertThat(failureOf("id BIGINT, t STRING METADATA FROM 'kafka.topic'", HOSTS + ", 'index' = 'x'", "SELECT id, name FROM src"))
                .contains("declares Kafka metadata [kafka.topic] but not all of kafka.topic, kafka.partition and kafka.offset");
    }
}
