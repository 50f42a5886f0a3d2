package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.jobs.config.KesConfig;
import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Http;
import io.kes.stack.KafkaBroker;
import io.kes.stack.KafkaSecurity;
import io.kes.stack.Ports;
import io.kes.stack.SharedServers;
import io.kes.stack.junit.ElasticsearchExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.core.execution.JobClient;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The job against a secured broker ({@link KafkaSecurity}): its Kafka source and both dead-letter
 * producers (decode and index stage) authenticate with nothing but {@code kafka.properties}, whose
 * secrets come from files ({@code ${file:...}}), as a Kubernetes Secret mounts them. Secrets stay
 * out of the logs and of the job's configuration as Flink's REST API shows it; a wrong password
 * ends the job with one error naming {@code kafka.properties}.
 */
@ExtendWith(ElasticsearchExtension.class)
@Timeout(value = 4, unit = TimeUnit.MINUTES)
class SecuredKafkaIT {

    private static final int GOOD = 200;

    private static KafkaBroker kafka;
    private static KafkaSecurity security;

    @BeforeAll
    static void startSecuredBroker() {
        kafka = SharedServers.securedKafka();
        security = kafka.security();
    }

    @Test
    void theSourceAndTheDeadLetterProducersAuthenticateWithScramOverTls(ElasticsearchNode es, @TempDir Path dir)
            throws Exception {
        String topic = "sec-scram";
        produce(topic, security.saslSslClientProperties());
        Path password = secretFile(dir, "kafka-password", security.scramPassword());
        // The form of helm/kes/ci/secured-values.yaml: the password in a file, the broker's CA as PEM.
        KesConfig config = KesConfig.parse(
                config(
                        es,
                        dir,
                        topic,
                        security.saslSslBootstrapServers(),
                        String.join(
                                "\n",
                                "    security.protocol: SASL_SSL",
                                "    sasl.mechanism: SCRAM-SHA-512",
                                "    sasl.jaas.config: org.apache.kafka.common.security.scram.ScramLoginModule required username=\"kes\""
                                        + " password=\"${file:" + password + "}\";",
                                "    ssl.truststore.type: PEM",
                                "    ssl.truststore.location: " + security.caCertificatePem()),
                        false),
                Map.of());

        int restPort = Ports.free();
        Configuration flink = new Configuration();
        flink.set(RestOptions.BIND_PORT, Integer.toString(restPort));
        StreamExecutionEnvironment env = StreamExecutionEnvironment.createLocalEnvironment(1, flink);
        KesJob.build(env, config);
        JobClient job = env.executeAsync("secured-scram");
        try {
            awaitCount(es, topic, GOOD);
            assertDeadLetters(topic, security.saslSslClientProperties());
            // What Flink's web UI shows of the running job: its configuration, plan and details.
            Http rest = new Http("http://127.0.0.1:" + restPort);
            String id = job.getJobID().toString();
            for (String path : List.of(
                    "/jobs/" + id + "/config",
                    "/jobs/" + id + "/jobmanager/config",
                    "/jobs/" + id,
                    "/jobs/" + id + "/plan")) {
                String body = rest.get(path).requireOk(path).body();
                assertThat(body).as(path).doesNotContain(security.scramPassword());
            }
        } finally {
            job.cancel().get(60, TimeUnit.SECONDS);
        }
        assertThat(es.http().refreshAndCount(topic)).isEqualTo(GOOD);
    }

    /**
     * Through {@code kes-job}'s main in its own JVM with every logger at INFO (a Flink cluster's
     * default), so that anything that prints a client configuration would show in the log.
     */
    @Test
    void theSourceAndTheDeadLetterProducersAuthenticateWithMutualTls(ElasticsearchNode es, @TempDir Path home)
            throws Exception {
        String topic = "sec-mtls";
        produce(topic, security.mtlsClientProperties());
        Path storePassword = secretFile(home, "keystore-password", security.clientKeystorePassword());
        Path config = home.resolve("mapping.yaml");
        Files.writeString(
                config,
                config(
                        es,
                        home,
                        topic,
                        security.mtlsBootstrapServers(),
                        String.join(
                                "\n",
                                "    security.protocol: SSL",
                                "    ssl.truststore.location: " + security.truststore(),
                                "    ssl.truststore.type: PKCS12",
                                "    ssl.truststore.password: ${file:" + storePassword + "}",
                                "    ssl.keystore.location: " + security.clientKeystore(),
                                "    ssl.keystore.type: PKCS12",
                                "    ssl.keystore.password: ${file:" + storePassword + "}",
                                "    ssl.key.password: ${file:" + storePassword + "}"),
                        true));
        Path log = home.resolve("logs/kes.log");
        Path log4j = home.resolve("log4j2-info.properties");
        Files.writeString(
                log4j,
                String.join(
                        "\n",
                        "appender.file.type = File",
                        "appender.file.name = file",
                        "appender.file.fileName = " + log,
                        "appender.file.layout.type = PatternLayout",
                        "appender.file.layout.pattern = %d %-5p %c [%t] %m%n%ex",
                        "rootLogger.level = info",
                        "rootLogger.appenderRef.file.ref = file",
                        ""));

        try (KesProcess job = KesProcess.java(
                home,
                log4j,
                "--config",
                config.toString(),
                "--flink-conf",
                KesProcess.localFlinkConf(home).toString())) {
            assertThat(job.awaitExit(Duration.ofMinutes(2)))
                    .as("the bounded job ended; console:\n%s", job.console())
                    .isTrue();
            assertThat(job.exitCode())
                    .as("exit code; console:\n%s", job.console())
                    .isZero();
            assertThat(job.console()).doesNotContain(security.clientKeystorePassword());
        }
        assertThat(es.http().refreshAndCount(topic)).isEqualTo(GOOD);
        assertDeadLetters(topic, security.mtlsClientProperties());
        String logged = Files.readString(log);
        assertThat(logged)
                .as("the Kafka clients logged their configuration at INFO")
                .contains("ssl.keystore.password = [hidden]");
        assertThat(logged).as(log.toString()).doesNotContain(security.clientKeystorePassword());
    }

    /**
     * A wrong SCRAM password cannot be cured by a restart; under checkpoints-config/local.yaml's
     * unbounded restarts the job would retry it for ever while reading nothing. It ends at once.
     */
    @Test
    void aWrongScramPasswordEndsTheJobWithOneErrorNamingKafkaProperties(ElasticsearchNode es, @TempDir Path home)
            throws Exception {
        String topic = "sec-wrong-password";
        produce(topic, security.saslSslClientProperties());
        String wrong = "wrong-" + security.scramPassword();
        Path password = secretFile(home, "kafka-password", wrong);
        Path config = home.resolve("mapping.yaml");
        Files.writeString(
                config,
                config(
                        es,
                        home,
                        topic,
                        security.saslSslBootstrapServers(),
                        String.join(
                                "\n",
                                "    security.protocol: SASL_SSL",
                                "    sasl.mechanism: SCRAM-SHA-512",
                                "    sasl.jaas.config: 'org.apache.kafka.common.security.scram.ScramLoginModule required username=\"kes\""
                                        + " password=\"${file:" + password + "}\";'",
                                "    ssl.truststore.location: " + security.truststore(),
                                "    ssl.truststore.type: PKCS12",
                                "    ssl.truststore.password: " + security.truststorePassword()),
                        false));

        // bin/kes run's preflight check asks Kafka first: refused, it exits with 3 (cannot connect)
        // before the job starts, naming kafka.properties.
        try (KesProcess check = KesProcess.binKesRun(
                home,
                "--config",
                config.toString(),
                "--flink-conf",
                KesProcess.localFlinkConf(home).toString())) {
            assertThat(check.awaitExit(Duration.ofSeconds(90)))
                    .as("the check ended; console:\n%s", check.console())
                    .isTrue();
            String console = check.console();
            assertThat(check.exitCode()).as(console).isEqualTo(3);
            assertThat(console)
                    .contains("kafka.properties", "SaslAuthenticationException")
                    .doesNotContain(wrong);
        }
        // Without the check (or when the password changes while the job runs), the job itself ends.
        try (KesProcess job = KesProcess.binKesRun(
                home,
                "--config",
                config.toString(),
                "--no-check",
                "--flink-conf",
                KesProcess.localFlinkConf(home).toString())) {
            assertThat(job.awaitExit(Duration.ofSeconds(90)))
                    .as("the job ended; console:\n%s", job.console())
                    .isTrue();
            String console = job.console();
            assertThat(job.exitCode()).as(console).isEqualTo(1);
            assertThat(console)
                    .contains(
                            "[kes] the job failed: Kafka refused",
                            "kafka.properties",
                            "SaslAuthenticationException",
                            "not restarted");
            assertThat(console.lines().filter(l -> l.startsWith("\tat ")).count())
                    .as("stack frames on the console:\n%s", console)
                    .isZero();
            assertThat(console).doesNotContain(wrong);
        }
        assertThat(Files.readString(home.resolve("logs/kes.log"))).doesNotContain(wrong);
    }

    /**
     * The job's config: {@code GOOD} documents by {@code id}, one record that is not JSON (a decode
     * dead letter) and one the mapping refuses (an index dead letter).
     */
    private static String config(
            ElasticsearchNode es, Path dir, String topic, String bootstrap, String properties, boolean bounded)
            throws Exception {
        Path mappings = dir.resolve("mappings.json");
        Files.writeString(mappings, "{\"properties\":{\"id\":{\"type\":\"keyword\"},\"n\":{\"type\":\"integer\"}}}");
        return String.join(
                "\n",
                "elasticsearch: {hosts: [" + es.url() + "]}",
                "kafka:",
                "  bootstrap_servers: \"" + bootstrap + "\"",
                "  group_id: " + topic,
                "  starting_offsets: earliest",
                "  properties:",
                properties,
                "job: {name: " + topic + ", parallelism: 1, checkpoint_interval: 1s, bounded: " + bounded + "}",
                "routes:",
                "  - {topics: [" + topic + "], index: " + topic + ", id: {field: id},"
                        + " index_template: {replicas: 0, mappings_file: \"" + mappings + "\"}}",
                "errors: {tolerance: all, dead_letter_topic: " + topic + "-dead}",
                "");
    }

    /** The topic (and its dead-letter topic, created on the set-up listener), written through a secured listener. */
    private static void produce(String topic, Map<String, String> client) throws Exception {
        kafka.createTopic(topic, 2, Map.of());
        kafka.createTopic(topic + "-dead", 1, Map.of());
        try (var producer =
                new KafkaProducer<>(properties(client), new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = 0; i < GOOD; i++) {
                producer.send(new ProducerRecord<>(
                        topic, i % 2, utf8("d" + i), utf8("{\"id\":\"d" + i + "\",\"n\":" + i + "}")));
            }
            producer.send(new ProducerRecord<>(topic, 0, utf8("malformed"), utf8("{\"id\":\"malformed\", oops")));
            producer.send(new ProducerRecord<>(topic, 1, utf8("refused"), utf8("{\"id\":\"refused\",\"n\":\"five\"}")));
            producer.flush();
        }
    }

    /** Both dead letters, read back with an authenticated consumer. */
    private static void assertDeadLetters(String topic, Map<String, String> client) {
        Properties props = properties(client);
        props.put("group.id", topic + "-dead-reader");
        props.put("auto.offset.reset", "earliest");
        Map<String, String> stageByKey = new HashMap<>();
        List<String> values = new ArrayList<>();
        try (var consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic + "-dead"));
            long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < deadline && stageByKey.size() < 2) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    Header stage = r.headers().lastHeader("kes.stage");
                    stageByKey.put(
                            new String(r.key(), StandardCharsets.UTF_8),
                            new String(stage.value(), StandardCharsets.UTF_8));
                    values.add(new String(r.value(), StandardCharsets.UTF_8));
                }
            }
        }
        assertThat(stageByKey).isEqualTo(Map.of("malformed", "decode", "refused", "index"));
        assertThat(values).contains("{\"id\":\"malformed\", oops");
    }

    private static void awaitCount(ElasticsearchNode es, String index, long expected) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        long count = -1;
        while (System.nanoTime() < deadline) {
            if (es.http().get("/" + index + "/_count").status() == 200) {
                count = es.http().refreshAndCount(index);
                if (count == expected) {
                    return;
                }
            }
            Thread.sleep(500);
        }
        throw new AssertionError(index + " holds " + count + " documents after 120 s, expected " + expected);
    }

    private static Path secretFile(Path dir, String name, String secret) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, secret + "\n"); // as `kubectl create secret --from-file` or an editor leaves it
        return file;
    }

    private static Properties properties(Map<String, String> client) {
        Properties props = new Properties();
        props.putAll(client);
        return props;
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
