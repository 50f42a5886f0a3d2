package io.kes.sql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.connector.KafkaCoordinateId;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import io.kes.stack.KafkaBroker;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Tables written for Flink's own {@code 'connector' = 'elasticsearch-7'}, as its documentation
 * writes them, with only the connector's name (and the host) changed, through {@code bin/kes sql}
 * ({@link SqlFile#run}) against a real broker and the default Elasticsearch line (9.x with a JDK
 * 21, as the other SQL ITs): every document is checked, id by id. And a statement set that feeds
 * two kes tables from one Kafka table runs as one job.
 */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
class SqlOfficialDdlIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String TOPIC = "sql-official-users";
    /** One partition, so the rows' order (and so the upserts' last values) is the topic's. */
    private static final List<String> ROWS = List.of(
            "{\"user_id\":\"u1\",\"user_name\":\"Ann\",\"uv\":1,\"pv\":10,\"log_ts\":\"2020-03-27 12:25:55\"}",
            "{\"user_id\":\"u2\",\"user_name\":\"Bob\",\"uv\":2,\"pv\":20,\"log_ts\":\"2020-03-28 08:00:00\"}",
            "{\"user_id\":\"u1\",\"user_name\":\"Ann\",\"uv\":3,\"pv\":30,\"log_ts\":\"2020-03-28 23:59:59\"}",
            "{\"user_id\":\"u3\",\"user_name\":\"Cid\",\"uv\":4,\"pv\":40,\"log_ts\":\"2020-03-27 00:00:00\"}");

    @BeforeAll
    static void topic(KafkaBroker kafka) throws Exception {
        kafka.createTopic(TOPIC, 1, Map.of());
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (String row : ROWS) {
                producer.send(new ProducerRecord<>(TOPIC, 0, null, row)).get();
            }
        }
    }

    private static String kafkaTable(KafkaBroker kafka) {
        return """
                CREATE TABLE kafka_users (
                  user_id STRING, user_name STRING, uv BIGINT, pv BIGINT, log_ts TIMESTAMP(3),
                  `topic` STRING METADATA VIRTUAL, `partition` INT METADATA VIRTUAL, `offset` BIGINT METADATA VIRTUAL
                ) WITH (
                  'connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
                  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json'
                );
                """.formatted(TOPIC, kafka.bootstrapServers());
    }

    @Test
    void theOfficialConnectorsDdlExamplesWriteTheDocumentsTheirDocumentationDescribes(
            ElasticsearchNode es, KafkaBroker kafka) throws Exception {
        Http http = es.http();
        http.send("DELETE", "/users,myusers-*,users-tuned,users-now-*?ignore_unavailable=true", null);
        String today = LocalDate.now(ZoneOffset.UTC).toString();

        SqlFile.run(kafkaTable(kafka) + """
                -- "How to create an Elasticsearch table", upserts by PRIMARY KEY
                CREATE TABLE myUserTable (
                  user_id STRING,
                  user_name STRING,
                  uv BIGINT,
                  pv BIGINT,
                  PRIMARY KEY (user_id) NOT ENFORCED
                ) WITH (
                  'connector' = 'kes',
                  'hosts' = '%1$s',
                  'index' = 'users'
                );
                INSERT INTO myUserTable SELECT user_id, LAST_VALUE(user_name), SUM(uv), SUM(pv) FROM kafka_users GROUP BY user_id;

                -- "Dynamic Index": a record with log_ts 2020-03-27 12:25:55 is written into myusers-2020-03-27
                CREATE TABLE myUsersByDay (
                  user_id STRING,
                  user_name STRING,
                  uv BIGINT,
                  pv BIGINT,
                  log_ts TIMESTAMP(3),
                  PRIMARY KEY (user_id) NOT ENFORCED
                ) WITH (
                  'connector' = 'kes',
                  'hosts' = '%1$s',
                  'index' = 'myusers-{log_ts|yyyy-MM-dd}'
                );
                INSERT INTO myUsersByDay SELECT user_id, user_name, uv, pv, log_ts FROM kafka_users;

                -- Every bulk-flush, backoff, connection and delivery option of the options table, with its documented value
                CREATE TABLE myUsersTuned (
                  user_id STRING,
                  user_name STRING,
                  uv BIGINT,
                  pv BIGINT,
                  PRIMARY KEY (user_id, user_name) NOT ENFORCED
                ) WITH (
                  'connector' = 'kes',
                  'hosts' = '%1$s',
                  'index' = 'users-tuned',
                  'document-id.key-delimiter' = '$',
                  'failure-handler' = 'fail',
                  'sink.flush-on-checkpoint' = 'true',
                  'sink.bulk-flush.max-actions' = '1000',
                  'sink.bulk-flush.max-size' = '2mb',
                  'sink.bulk-flush.interval' = '1s',
                  'sink.bulk-flush.backoff.strategy' = 'EXPONENTIAL',
                  'sink.bulk-flush.backoff.max-retries' = '3',
                  'sink.bulk-flush.backoff.delay' = '100ms',
                  'connection.request-timeout' = '30s',
                  'connection.timeout' = '5s',
                  'socket.timeout' = '30s',
                  'sink.delivery-guarantee' = 'at-least-once',
                  'sink.parallelism' = '1',
                  'format' = 'json'
                );
                INSERT INTO myUsersTuned SELECT user_id, user_name, uv, pv FROM kafka_users;

                -- The system-time form of the dynamic index: append-only, ids from the Kafka coordinates
                CREATE TABLE myUsersNow (
                  user_id STRING,
                  uv BIGINT,
                  kafka_topic STRING METADATA FROM 'kafka.topic',
                  kafka_partition INT METADATA FROM 'kafka.partition',
                  kafka_offset BIGINT METADATA FROM 'kafka.offset'
                ) WITH (
                  'connector' = 'kes',
                  'hosts' = '%1$s',
                  'index' = 'users-now-{now()|yyyy-MM-dd}'
                );
                INSERT INTO myUsersNow SELECT user_id, uv, `topic`, `partition`, `offset` FROM kafka_users;
                """.formatted(es.url()));

        assertThat(documents(http, "users"))
                .isEqualTo(Map.of(
                        "users/u1", "{\"user_id\":\"u1\",\"user_name\":\"Ann\",\"uv\":4,\"pv\":40}",
                        "users/u2", "{\"user_id\":\"u2\",\"user_name\":\"Bob\",\"uv\":2,\"pv\":20}",
                        "users/u3", "{\"user_id\":\"u3\",\"user_name\":\"Cid\",\"uv\":4,\"pv\":40}"));
        // u1 moved to another day: its first document stays where it was, as with Flink's own connector
        assertThat(documents(http, "myusers-*"))
                .isEqualTo(
                        Map.of(
                                "myusers-2020-03-27/u1",
                                        "{\"user_id\":\"u1\",\"user_name\":\"Ann\",\"uv\":1,\"pv\":10,\"log_ts\":\"2020-03-27 12:25:55\"}",
                                "myusers-2020-03-28/u2",
                                        "{\"user_id\":\"u2\",\"user_name\":\"Bob\",\"uv\":2,\"pv\":20,\"log_ts\":\"2020-03-28 08:00:00\"}",
                                "myusers-2020-03-28/u1",
                                        "{\"user_id\":\"u1\",\"user_name\":\"Ann\",\"uv\":3,\"pv\":30,\"log_ts\":\"2020-03-28 23:59:59\"}",
                                "myusers-2020-03-27/u3",
                                        "{\"user_id\":\"u3\",\"user_name\":\"Cid\",\"uv\":4,\"pv\":40,\"log_ts\":\"2020-03-27 00:00:00\"}"));
        assertThat(documents(http, "users-tuned"))
                .isEqualTo(Map.of(
                        "users-tuned/u1$Ann", "{\"user_id\":\"u1\",\"user_name\":\"Ann\",\"uv\":3,\"pv\":30}",
                        "users-tuned/u2$Bob", "{\"user_id\":\"u2\",\"user_name\":\"Bob\",\"uv\":2,\"pv\":20}",
                        "users-tuned/u3$Cid", "{\"user_id\":\"u3\",\"user_name\":\"Cid\",\"uv\":4,\"pv\":40}"));
        Map<String, String> now = documents(http, "users-now-*");
        String day = now.keySet().stream()
                .findFirst()
                .map(k -> k.substring("users-now-".length(), k.indexOf('/')))
                .orElse("none");
        assertThat(day)
                .as("the day the rows were written (UTC)")
                .isIn(today, LocalDate.now(ZoneOffset.UTC).toString());
        Map<String, String> expectedNow = new HashMap<>();
        for (int offset = 0; offset < ROWS.size(); offset++) {
            JsonNode row = JSON.readTree(ROWS.get(offset));
            expectedNow.put(
                    "users-now-" + day + "/" + KafkaCoordinateId.of(TOPIC, 0, offset),
                    "{\"user_id\":\"" + row.path("user_id").asText() + "\",\"uv\":"
                            + row.path("uv").asLong() + "}");
        }
        assertThat(now).isEqualTo(expectedNow);
    }

    @Test
    void aStatementSetFeedsTwoKesTablesFromOneKafkaTableInOneJob(ElasticsearchNode es, KafkaBroker kafka)
            throws Exception {
        Http http = es.http();
        http.send("DELETE", "/set-totals,set-events?ignore_unavailable=true", null);

        String out = Stdout.of(() -> SqlFile.run(kafkaTable(kafka) + """
                SET 'parallelism.default' = '2';
                CREATE TABLE es_totals (user_id STRING, user_name STRING, uv BIGINT, pv BIGINT, PRIMARY KEY (user_id) NOT ENFORCED)
                WITH ('connector' = 'kes', 'hosts' = '%1$s', 'index' = 'set-totals', 'sink.bulk-flush.interval' = '200ms');
                CREATE TABLE es_events (
                  user_id STRING, uv BIGINT,
                  kafka_topic STRING METADATA FROM 'kafka.topic', kafka_partition INT METADATA FROM 'kafka.partition',
                  kafka_offset BIGINT METADATA FROM 'kafka.offset'
                ) WITH ('connector' = 'kes', 'hosts' = '%1$s', 'index' = 'set-events');
                /* One job: both INSERTs read the topic through one source. */
                EXECUTE STATEMENT SET BEGIN
                  INSERT INTO es_totals SELECT user_id, LAST_VALUE(user_name), SUM(uv), SUM(pv) FROM kafka_users GROUP BY user_id;
                  INSERT INTO es_events SELECT user_id, CASE WHEN uv > 2 THEN uv ELSE 0 END, `topic`, `partition`, `offset` FROM kafka_users;
                END;
                """.formatted(es.url())));

        assertThat(Stdout.finishedJobs(out)).as("one job for the statement set").isEqualTo(1);
        assertThat(documents(http, "set-totals"))
                .isEqualTo(Map.of(
                        "set-totals/u1", "{\"user_id\":\"u1\",\"user_name\":\"Ann\",\"uv\":4,\"pv\":40}",
                        "set-totals/u2", "{\"user_id\":\"u2\",\"user_name\":\"Bob\",\"uv\":2,\"pv\":20}",
                        "set-totals/u3", "{\"user_id\":\"u3\",\"user_name\":\"Cid\",\"uv\":4,\"pv\":40}"));
        assertThat(documents(http, "set-events"))
                .isEqualTo(Map.of(
                        "set-events/" + KafkaCoordinateId.of(TOPIC, 0, 0), "{\"user_id\":\"u1\",\"uv\":0}",
                        "set-events/" + KafkaCoordinateId.of(TOPIC, 0, 1), "{\"user_id\":\"u2\",\"uv\":0}",
                        "set-events/" + KafkaCoordinateId.of(TOPIC, 0, 2), "{\"user_id\":\"u1\",\"uv\":3}",
                        "set-events/" + KafkaCoordinateId.of(TOPIC, 0, 3), "{\"user_id\":\"u3\",\"uv\":4}"));
    }

    /** Every document of {@code indices}: "index/id" to its source, as compact JSON. */
    private static Map<String, String> documents(Http http, String indices) throws Exception {
        http.send("POST", "/" + indices + "/_refresh", null).requireOk("refresh");
        JsonNode hits = JSON.readTree(http.send("POST", "/" + indices + "/_search", "{\"size\":100}")
                        .requireOk("search")
                        .body())
                .path("hits")
                .path("hits");
        Map<String, String> documents = new TreeMap<>();
        for (JsonNode hit : hits) {
            documents.put(
                    hit.path("_index").asText() + "/" + hit.path("_id").asText(),
                    JSON.writeValueAsString(hit.path("_source")));
        }
        return documents;
    }
}
