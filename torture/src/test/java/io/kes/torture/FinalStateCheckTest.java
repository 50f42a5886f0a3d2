package io.kes.torture;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.connector.KafkaCoordinateId;
import io.kes.torture.IndexedDocuments.Doc;
import io.kes.torture.KafkaTopics.Stored;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FinalStateCheckTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void theLastRecordOfEachKeyDecides() throws Exception {
        List<Stored> records = List.of(
                record("t", 0, 0, "a", "{\"k\":\"a\",\"v\":1}"),
                record("t", 0, 1, "a", "{\"k\":\"a\",\"v\":2}"),
                record("t", 1, 0, "b", "{\"k\":\"b\",\"v\":1}"),
                record("t", 1, 1, "b", null),
                record("t", 1, 2, "c", "{\"k\":\"c\",\"v\":1}"),
                record("t", 1, 3, "d", "{\"k\":\"d\",\"v\":1}"),
                record("t", 1, 4, "e", "{\"k\":\"e\",\"v\":3}"));
        List<Doc> docs = List.of(
                doc("a", "{\"k\":\"a\",\"v\":1}"),
                doc("b", "{\"k\":\"b\",\"v\":1}"),
                doc("d", "{\"k\":\"d\",\"v\":1}"),
                doc("e", "{\"k\":\"e\",\"v\":3,\"extra\":true}"),
                doc("zzz", "{\"k\":\"zzz\",\"v\":1}"));

        FinalStateCheck check = new FinalStateCheck();
        check.keyed("r", records, docs);

        assertThat(check.keysChecked).isEqualTo(5);
        assertThat(check.mismatches)
                .extracting(Mismatch::kind, Mismatch::subject)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple(Mismatch.Kind.STALE, "a"),
                        org.assertj.core.groups.Tuple.tuple(Mismatch.Kind.RESURRECTED, "b"),
                        org.assertj.core.groups.Tuple.tuple(Mismatch.Kind.MISSING, "c"),
                        org.assertj.core.groups.Tuple.tuple(Mismatch.Kind.WRONG_VALUE, "e"),
                        org.assertj.core.groups.Tuple.tuple(Mismatch.Kind.UNEXPECTED, "zzz"));
        assertThat(check.mismatches.stream()
                        .filter(m -> m.subject().equals("a"))
                        .findFirst()
                        .orElseThrow()
                        .expected())
                .as("names the last record's place")
                .isEqualTo("v=2 (t/0@1)");
    }

    @Test
    void kafkaIdsMustBeThereOnceExceptAcrossARollover() {
        List<Stored> records =
                List.of(record("t", 0, 0, "a", "{}"), record("t", 0, 1, "a", "{}"), record("t", 1, 0, "b", "{}"));
        String first = KafkaCoordinateId.of("t", 0, 0);
        String second = KafkaCoordinateId.of("t", 0, 1);
        List<Doc> docs = List.of(
                new Doc("i-1", first, null),
                new Doc("i-2", first, null),
                new Doc("i-1", second, null),
                new Doc("i-1", "nonsense", null));

        FinalStateCheck strict = new FinalStateCheck();
        strict.coordinates("appends", records, docs, false);
        FinalStateCheck rolled = new FinalStateCheck();
        rolled.coordinates("rolled", records, docs, true);

        assertThat(strict.mismatches)
                .extracting(Mismatch::kind)
                .containsExactlyInAnyOrder(Mismatch.Kind.DUPLICATE, Mismatch.Kind.MISSING, Mismatch.Kind.UNEXPECTED);
        assertThat(rolled.mismatches)
                .extracting(Mismatch::kind)
                .containsExactlyInAnyOrder(Mismatch.Kind.MISSING, Mismatch.Kind.UNEXPECTED);
        assertThat(rolled.duplicatesAcrossRollover).isEqualTo(1);
        assertThat(strict.recordsChecked).isEqualTo(3);
    }

    @Test
    void everyDeadLetterIsAMismatch() {
        FinalStateCheck check = new FinalStateCheck();
        check.deadLetters(List.of(new Stored(
                "dlq",
                0,
                0,
                "k",
                "{}",
                Map.of(
                        "kes.source.topic",
                        "t",
                        "kes.source.partition",
                        "2",
                        "kes.source.offset",
                        "7",
                        "kes.stage",
                        "index",
                        "kes.error.type",
                        "mapper_parsing_exception",
                        "kes.error.status",
                        "400",
                        "kes.error.reason",
                        "bad"))));

        assertThat(check.mismatches).singleElement().satisfies(m -> {
            assertThat(m.kind()).isEqualTo(Mismatch.Kind.DEAD_LETTER);
            assertThat(m.subject()).isEqualTo("t/2@7");
            assertThat(m.found()).contains("mapper_parsing_exception 400: bad");
        });
    }

    private static Stored record(String topic, int partition, long offset, String key, String value) {
        return new Stored(topic, partition, offset, key, value, Map.of());
    }

    private static Doc doc(String id, String source) throws Exception {
        return new Doc("idx", id, JSON.readTree(source));
    }
}
