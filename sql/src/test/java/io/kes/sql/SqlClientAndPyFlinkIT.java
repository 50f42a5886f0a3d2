package io.kes.sql;

import static io.kes.sql.PyFlinkEnvironment.REPOSITORY;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import io.kes.stack.KafkaBroker;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import java.io.IOException;
import java.math.BigDecimal;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Stream;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * kes-sql-connector.jar outside kes's own runner, in the Flink that users run: Flink 2.2's SQL
 * client against a standalone session cluster, and a PyFlink Table API program. Both come from
 * the apache-flink Python package (one install, {@link PyFlinkEnvironment}; skipped where it
 * cannot be made); both run the example files of sql/examples as users would, against the
 * shared real Kafka broker and Elasticsearch node, and every document is checked.
 */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
class SqlClientAndPyFlinkIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ORDERS = 200;
    private static final Duration JOB_TIMEOUT = Duration.ofMinutes(4);

    @Test
    void flinksSqlClientRunsTheExampleFileOnASessionClusterAndIndexesExactlyTheTopicsOrders(
            ElasticsearchNode es, KafkaBroker kafka) throws Exception {
        PyFlinkEnvironment flink = PyFlinkEnvironment.orSkip();
        String name = "sql-client-orders";
        Map<String, Map<String, Object>> expected = produceOrders(kafka, name);
        Http http = es.http();
        http.send("DELETE", "/" + name + "?ignore_unavailable=true", null);
        Path work = freshDir("target/sql-client-it");
        // The example as it is, but for the servers, the topic and the index; each replaced text
        // must be there once, so that the file and this test cannot drift apart unnoticed.
        Path script = work.resolve("kafka-to-kes.sql");
        Files.writeString(
                script,
                replaceEach(
                        Files.readString(REPOSITORY.resolve("sql/examples/kafka-to-kes.sql")),
                        Map.of(
                                "'topic' = 'kes-example-orders'", "'topic' = '" + name + "'",
                                "'properties.bootstrap.servers' = 'localhost:9092'",
                                        "'properties.bootstrap.servers' = '" + kafka.bootstrapServers() + "'",
                                "'hosts' = 'http://localhost:9200'", "'hosts' = '" + es.url() + "'",
                                "'index' = 'kes-example-orders'", "'index' = '" + name + "'")));

        try (FlinkSessionCluster cluster = FlinkSessionCluster.start(flink, work)) {
            List<String> command = new ArrayList<>(
                    List.of(flink.flinkHome().resolve("bin/sql-client.sh").toString()));
            command.addAll(cluster.clientOptions());
            // --history: the client's history file under target/, not in the home directory.
            command.addAll(List.of(
                    "--history",
                    work.resolve("sql-history").toAbsolutePath().toString(),
                    "-f",
                    script.toAbsolutePath().toString()));
            // From the repository's root, where the file's ADD JAR paths (sql/target/...) point.
            ChildRun client = ChildRun.of(
                    command, flink.sqlClientEnv(work), REPOSITORY, work.resolve("sql-client.out"), JOB_TIMEOUT);
            System.out.println("[kes] sql-client.sh -f took " + client.took().toMillis() + " ms");
            assertThat(client.succeeded()).as(client::describe).isTrue();
            assertThat(client.output()).as(client::describe).doesNotContain("[ERROR]");
            // The job ran on the session cluster (not in a local one inside the client), to its end.
            JsonNode jobs = JSON.readTree(cluster.rest()
                            .get("/jobs/overview")
                            .requireOk("job overview")
                            .body())
                    .path("jobs");
            assertThat(jobs).hasSize(1);
            assertThat(jobs.get(0).path("state").asText()).isEqualTo("FINISHED");
        }
        assertThat(documents(http, name)).isEqualTo(expected);
    }

    @Test
    void thePyFlinkExampleLoadsTheJarsThroughPipelineJarsAndIndexesExactlyTheTopicsOrders(
            ElasticsearchNode es, KafkaBroker kafka) throws Exception {
        PyFlinkEnvironment flink = PyFlinkEnvironment.orSkip();
        String name = "pyflink-orders";
        Map<String, Map<String, Object>> expected = produceOrders(kafka, name);
        Http http = es.http();
        http.send("DELETE", "/" + name + "?ignore_unavailable=true", null);
        Path work = freshDir("target/pyflink-it");

        ChildRun python = ChildRun.of(
                List.of(
                        flink.python().toString(),
                        "sql/examples/pyflink_kafka_to_kes.py",
                        "--bootstrap-servers",
                        kafka.bootstrapServers(),
                        "--topic",
                        name,
                        "--hosts",
                        es.url(),
                        "--index",
                        name),
                flink.processEnv(work.resolve("log")),
                REPOSITORY,
                work.resolve("pyflink.out"),
                JOB_TIMEOUT);
        System.out.println("[kes] pyflink_kafka_to_kes.py took " + python.took().toMillis() + " ms");
        assertThat(python.succeeded()).as(python::describe).isTrue();
        assertThat(python.output()).contains("pyflink_kafka_to_kes: " + name + " written to " + name);
        assertThat(documents(http, name)).isEqualTo(expected);
    }

    /** {@value #ORDERS} orders as JSON lines in a 2-partition topic; the documents they must become, by id. */
    private static Map<String, Map<String, Object>> produceOrders(KafkaBroker kafka, String topic) throws Exception {
        kafka.createTopic(topic, 2, Map.of());
        Map<String, Map<String, Object>> documents = new HashMap<>();
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
            for (int id = 1; id <= ORDERS; id++) {
                String customer = "customer-" + (id % 7);
                BigDecimal amount = BigDecimal.valueOf(id * 137L % 100_000, 2);
                producer.send(new ProducerRecord<>(
                        topic,
                        id % 2,
                        null,
                        "{\"order_id\":" + id + ",\"customer\":\"" + customer + "\",\"amount\":"
                                + amount.toPlainString() + "}"));
                documents.put(
                        Integer.toString(id),
                        Map.of("order_id", number(id), "customer", customer, "amount", number(amount)));
            }
            producer.flush();
        }
        return documents;
    }

    /**
     * Every document of the index, by id: its source's fields, numbers by value (Flink's JSON
     * writes the DECIMAL 137.00 as 137, as its Jackson node factory drops trailing zeros).
     */
    private static Map<String, Map<String, Object>> documents(Http http, String index) throws IOException {
        http.send("POST", "/" + index + "/_refresh", null).requireOk("refresh of " + index);
        JsonNode hits = JSON.readTree(http.send("POST", "/" + index + "/_search", "{\"size\":" + (ORDERS + 100) + "}")
                        .requireOk("search of " + index)
                        .body())
                .path("hits")
                .path("hits");
        Map<String, Map<String, Object>> documents = new HashMap<>();
        for (JsonNode hit : hits) {
            Map<String, Object> source = new HashMap<>();
            hit.path("_source")
                    .properties()
                    .forEach(field -> source.put(
                            field.getKey(),
                            field.getValue().isNumber()
                                    ? number(field.getValue().decimalValue())
                                    : field.getValue().asText()));
            documents.put(hit.path("_id").asText(), source);
        }
        return documents;
    }

    private static BigDecimal number(long value) {
        return number(BigDecimal.valueOf(value));
    }

    private static BigDecimal number(BigDecimal value) {
        return value.stripTrailingZeros();
    }

    private static String replaceEach(String text, Map<String, String> replacements) {
        String result = text;
        for (Map.Entry<String, String> r : replacements.entrySet()) {
            assertThat(result.split(java.util.regex.Pattern.quote(r.getKey()), -1))
                    .as("occurrences of " + r.getKey() + " in the example")
                    .hasSize(2);
            result = result.replace(r.getKey(), r.getValue());
        }
        return result;
    }

    private static Path freshDir(String dir) throws IOException {
        Path path = Path.of(dir);
        if (Files.exists(path)) {
            try (Stream<Path> files = Files.walk(path)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.delete(p);
                }
            }
        }
        return Files.createDirectories(path);
    }
}
