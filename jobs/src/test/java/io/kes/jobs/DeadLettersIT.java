package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.stack.ElasticsearchNode;
import io.kes.stack.KafkaBroker;
import io.kes.stack.junit.ElasticsearchExtension;
import io.kes.stack.junit.KafkaExtension;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * A dead letter can be replayed: it holds the record's key, value and headers exactly as they were
 * in Kafka, whatever path the record took (the untouched fast path, the parsed path, a decode
 * failure, a tombstone), followed by kes's own {@code kes.*} headers.
 */
@ExtendWith({ElasticsearchExtension.class, KafkaExtension.class})
class DeadLettersIT {

    @Test
    void deadLettersKeepTheRecordsKeyValueAndHeadersByteForByte(
            ElasticsearchNode es, KafkaBroker kafka, @TempDir Path dir) throws Exception {
        Path strict = dir.resolve("strict.json");
        Files.writeString(
                strict,
                "{\"dynamic\":\"strict\",\"properties\":{\"id\":{\"type\":\"keyword\"},\"n\":{\"type\":\"integer\"}}}");
        // Header values that no text round trip keeps: binary, a repeated name, a null value.
        List<Header> odd = List.of(
                new RecordHeader("trace", new byte[] {0, 1, (byte) 0xff}),
                new RecordHeader("trace", utf8("second")),
                new RecordHeader("empty", (byte[]) null));
        List<ProducerRecord<byte[], byte[]>> fast = List.of(
                record("it-dlk-fast", "k-good", "{\"n\":1}", List.of()),
                record("it-dlk-fast", "k-type", "{ \"n\" :  \"five\" }", odd),
                record("it-dlk-fast", "k-strict", "{\"extra\":true}", List.of(new RecordHeader("h", utf8("v")))));
        List<ProducerRecord<byte[], byte[]>> parsed = List.of(
                record("it-dlk-parsed", "p-good", "{\"id\":\"p0\",\"n\":0,\"drop\":1}", List.of()),
                record("it-dlk-parsed", "p-type", "{\"id\":\"p1\",  \"n\":\"five\",\"drop\":1}", odd),
                record("it-dlk-parsed", "p-json", "{\"id\":\"p2\", oops", List.of(new RecordHeader("h", utf8("json")))),
                record("it-dlk-parsed", "p-tomb", null, List.of(new RecordHeader("h", utf8("tomb")))));
        TestTopics.produceRecords(kafka, "it-dlk-fast", fast);
        TestTopics.produceRecords(kafka, "it-dlk-parsed", parsed);
        kafka.createTopic("it-dlk-dead", 1, Map.of());

        TestTopics.runBounded(
                es,
                kafka,
                "  - {topics: [it-dlk-fast], index: it-dlk-fast, id: key,"
                        + " index_template: {replicas: 0, mappings_file: \"" + strict + "\"}}\n"
                        + "  - {topics: [it-dlk-parsed], index: it-dlk-parsed, id: {field: id}, exclude: [drop],"
                        + " index_template: {replicas: 0, mappings_file: \"" + strict + "\"}}\n"
                        + "errors:\n  tolerance: all\n  dead_letter_topic: it-dlk-dead");

        assertThat(es.http().refreshAndCount("it-dlk-fast")).isEqualTo(1);
        assertThat(es.http().refreshAndCount("it-dlk-parsed")).isEqualTo(1);
        Map<String, ConsumerRecord<byte[], byte[]>> dead = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : TestTopics.consume(kafka, "it-dlk-dead", 5)) {
            dead.put(header(r, "kes.source.topic") + "@" + header(r, "kes.source.offset"), r);
        }
        assertThat(dead.keySet())
                .containsExactlyInAnyOrder(
                        "it-dlk-fast@1", "it-dlk-fast@2", "it-dlk-parsed@1", "it-dlk-parsed@2", "it-dlk-parsed@3");
        assertSameRecord(dead.get("it-dlk-fast@1"), fast.get(1), "index");
        assertSameRecord(dead.get("it-dlk-fast@2"), fast.get(2), "index");
        assertSameRecord(dead.get("it-dlk-parsed@1"), parsed.get(1), "index");
        assertSameRecord(dead.get("it-dlk-parsed@2"), parsed.get(2), "decode");
        assertSameRecord(dead.get("it-dlk-parsed@3"), parsed.get(3), "decode");
    }

    private static void assertSameRecord(
            ConsumerRecord<byte[], byte[]> dead, ProducerRecord<byte[], byte[]> original, String stage) {
        String what = "dead letter of " + new String(original.key(), StandardCharsets.UTF_8);
        assertThat(dead.key()).as(what + ": key").isEqualTo(original.key());
        assertThat(dead.value()).as(what + ": value").isEqualTo(original.value());
        List<Header> headers = new ArrayList<>();
        dead.headers().forEach(headers::add);
        List<Header> originals = new ArrayList<>();
        original.headers().forEach(originals::add);
        assertThat(headers.size()).as(what + ": header count").isGreaterThan(originals.size());
        // The original headers come first, in their order (RecordHeader compares names and value bytes),
        // then only kes's own.
        assertThat(headers.subList(0, originals.size()))
                .as(what + ": original headers")
                .isEqualTo(originals);
        assertThat(headers.subList(originals.size(), headers.size()))
                .as(what + ": kes headers")
                .allSatisfy(h -> assertThat(h.key()).startsWith("kes."));
        assertThat(header(dead, "kes.stage")).as(what + ": stage").isEqualTo(stage);
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, String key, String value, List<Header> headers) {
        return new ProducerRecord<>(topic, 0, utf8(key), utf8(value), headers);
    }

    private static String header(ConsumerRecord<byte[], byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    private static byte[] utf8(String s) {
        return TestTopics.utf8(s);
    }
}
