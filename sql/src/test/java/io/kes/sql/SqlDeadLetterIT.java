package io.kes.sql;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import io.kes.stack.KafkaBroker;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code 'failure-handler' = 'dead-letter'}: rows Elasticsearch refuses for good (here: a value
 * a strict mapping cannot parse, a 400 item) go to a real Kafka topic with the reason, and the job
 * goes on: every good row is indexed, every refused one is in the topic, once.
 */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
class SqlDeadLetterIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void refusedRowsGoToTheDeadLetterTopicAndTheGoodRowsAreIndexed(ElasticsearchNode es, KafkaBroker kafka)
            throws Exception {
        String topic = "sql-dlq-orders";
        String deadLetters = "sql-dlq-orders-refused";
        int rows = 1_000;
        kafka.createTopic(topic, 2, Map.of());
        kafka.createTopic(deadLetters, 1, Map.of());
        Set<Long> refused = new TreeSet<>();
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (var producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
            for (long i = 0; i < rows; i++) {
                boolean bad = i % 7 == 3;
                if (bad) {
                    refused.add(i);
                }
                String amount = bad ? "\"lots\"" : "\"" + (i % 100) + "\"";
                producer.send(new ProducerRecord<>(
                        topic, (int) (i % 2), null, "{\"seq\":" + i + ",\"amount\":" + amount + "}"));
            }
            producer.flush();
        }
        Http http = es.http();
        http.send("DELETE", "/sql-dlq-orders?ignore_unavailable=true", null);
        http.send(
                        "PUT",
                        "/sql-dlq-orders",
                        "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":0},"
                                + "\"mappings\":{\"dynamic\":\"strict\",\"properties\":{\"seq\":{\"type\":\"long\"},\"amount\":{\"type\":\"integer\"}}}}")
                .requireOk("create index");

        SqlFile.run("""
                SET 'parallelism.default' = '2';
                CREATE TABLE orders (
                  seq BIGINT, amount STRING,
                  `topic` STRING METADATA VIRTUAL, `partition` INT METADATA VIRTUAL, `offset` BIGINT METADATA VIRTUAL
                ) WITH (
                  'connector' = 'kafka', 'topic' = '%s', 'properties.bootstrap.servers' = '%s',
                  'scan.startup.mode' = 'earliest-offset', 'scan.bounded.mode' = 'latest-offset', 'format' = 'json'
                );
                CREATE TABLE es_orders (
                  seq BIGINT, amount STRING,
                  kafka_topic STRING METADATA FROM 'kafka.topic', kafka_partition INT METADATA FROM 'kafka.partition',
                  kafka_offset BIGINT METADATA FROM 'kafka.offset'
                ) WITH ('connector' = 'kes', 'hosts' = '%s', 'index' = 'sql-dlq-orders', 'bulk.linger' = '200ms',
                        'failure-handler' = 'dead-letter', 'failure-handler.dead-letter.topic' = '%s',
                        'failure-handler.dead-letter.bootstrap-servers' = '%s',
                        'failure-handler.dead-letter.properties.client.id' = 'kes-sql-dlq');
                INSERT INTO es_orders SELECT seq, amount, `topic`, `partition`, `offset` FROM orders;
                """.formatted(topic, kafka.bootstrapServers(), es.url(), deadLetters, kafka.bootstrapServers()));

        assertThat(http.refreshAndCount("sql-dlq-orders"))
                .as("good rows indexed")
                .isEqualTo(rows - refused.size());
        JsonNode indexed = JSON.readTree(http.send(
                        "POST",
                        "/sql-dlq-orders/_search",
                        "{\"size\":0,\"query\":{\"terms\":{\"seq\":" + refused + "}}}")
                .requireOk("search")
                .body());
        assertThat(indexed.path("hits").path("total").path("value").asLong())
                .as("refused rows in the index")
                .isZero();

        Map<Long, ConsumerRecord<byte[], byte[]>> letters = new HashMap<>();
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        try (var consumer = new KafkaConsumer<>(c, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            TopicPartition partition = new TopicPartition(deadLetters, 0);
            consumer.assign(List.of(partition));
            consumer.seekToBeginning(List.of(partition));
            long end = consumer.endOffsets(List.of(partition)).get(partition);
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (consumer.position(partition) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> letter : consumer.poll(Duration.ofMillis(500))) {
                    long seq = JSON.readTree(letter.value()).path("seq").asLong();
                    assertThat(letters.put(seq, letter))
                            .as("dead letter of seq " + seq + " twice")
                            .isNull();
                }
            }
        }
        assertThat(new TreeSet<>(letters.keySet()))
                .as("seq of the dead letters")
                .isEqualTo(refused);
        ConsumerRecord<byte[], byte[]> one = letters.get(refused.iterator().next());
        assertThat(JSON.readTree(one.value()).path("amount").asText()).isEqualTo("lots");
        assertThat(header(one, "kes.stage")).isEqualTo("index");
        assertThat(header(one, "kes.error.status")).isEqualTo("400");
        assertThat(header(one, "kes.error.type")).isEqualTo("document_parsing_exception");
        assertThat(header(one, "kes.error.reason")).contains("amount");
        assertThat(header(one, "kes.source.topic")).isEqualTo(topic);
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
