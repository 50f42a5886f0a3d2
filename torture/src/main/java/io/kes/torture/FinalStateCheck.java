package io.kes.torture;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.connector.KafkaCoordinateId;
import io.kes.torture.IndexedDocuments.Doc;
import io.kes.torture.KafkaTopics.Stored;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Compares what Elasticsearch holds with what Kafka holds, route by route, document by document.
 * <ul>
 *   <li>keyed routes ({@code id: key}): for every key, the document's {@code _source} equals the
 *       value of the key's last record in Kafka, or there is no document when that record is a
 *       tombstone; no document for a key Kafka never had;</li>
 *   <li>append-only routes ({@code id: kafka}) and the data stream: every record's document
 *       ({@code _id} = its Kafka coordinates) is there, exactly once, and nothing else;</li>
 *   <li>the rolled-over alias ({@code id: kafka}): every record's document is in at least one of
 *       the alias's indices and nothing else is. A record whose document is in two of them is
 *       counted, not failed: a record written before a rollover and replayed after it (the job
 *       restored from a checkpoint taken before the rollover) is rightly written again, through
 *       the alias, to the new write index; at-least-once holds, ids are unique per index only.</li>
 * </ul>
 */
final class FinalStateCheck {

    private static final ObjectMapper JSON = new ObjectMapper();

    final List<Mismatch> mismatches = new ArrayList<>();
    int keysChecked;
    long recordsChecked;
    long duplicatesAcrossRollover;

    /** {@code id: key}: the last record of each key decides. */
    void keyed(String route, List<Stored> records, List<Doc> docs) {
        Map<String, Stored> last = new LinkedHashMap<>();
        for (Stored r : records) {
            last.put(r.key(), r); // one key, one partition: offset order is the key's order
        }
        Map<String, Doc> byId = new HashMap<>();
        for (Doc d : docs) {
            Doc before = byId.put(d.id(), d);
            if (before != null) {
                mismatches.add(new Mismatch(
                        route,
                        Mismatch.Kind.DUPLICATE,
                        d.id(),
                        "one document",
                        "one in " + before.index() + " and one in " + d.index()));
            }
        }
        for (Map.Entry<String, Stored> e : last.entrySet()) {
            String key = e.getKey();
            Stored r = e.getValue();
            Doc doc = byId.remove(key);
            keysChecked++;
            if (r.value() == null) {
                if (doc != null) {
                    mismatches.add(new Mismatch(
                            route,
                            Mismatch.Kind.RESURRECTED,
                            key,
                            "absent (tombstone at " + r.where() + ")",
                            "v=" + doc.source().path("v").asText()));
                }
                continue;
            }
            JsonNode expected = parse(r.value());
            if (doc == null) {
                mismatches.add(new Mismatch(
                        route,
                        Mismatch.Kind.MISSING,
                        key,
                        "v=" + expected.path("v").asText() + " (" + r.where() + ")",
                        "no document"));
            } else if (!expected.equals(doc.source())) {
                long want = expected.path("v").asLong();
                long got = doc.source().path("v").asLong(-1);
                Mismatch.Kind kind = got < want && got >= 0 ? Mismatch.Kind.STALE : Mismatch.Kind.WRONG_VALUE;
                mismatches.add(new Mismatch(
                        route,
                        kind,
                        key,
                        "v=" + want + " (" + r.where() + ")",
                        "v=" + doc.source().path("v").asText() + (got == want ? " with a different body" : "")));
            }
        }
        for (Doc extra : byId.values()) {
            mismatches.add(new Mismatch(
                    route, Mismatch.Kind.UNEXPECTED, extra.id(), "no such key", "a document in " + extra.index()));
        }
    }

    /** {@code id: kafka}: each record's document, once; {@code duplicatesAllowed} only across a rollover. */
    void coordinates(String route, List<Stored> records, List<Doc> docs, boolean acrossRollover) {
        Map<String, Stored> expected = new HashMap<>();
        for (Stored r : records) {
            expected.put(KafkaCoordinateId.of(r.topic(), r.partition(), r.offset()), r);
        }
        recordsChecked += records.size();
        Set<String> seen = new HashSet<>();
        for (Doc d : docs) {
            if (!expected.containsKey(d.id())) {
                mismatches.add(new Mismatch(
                        route, Mismatch.Kind.UNEXPECTED, d.id(), "no such record", "a document in " + d.index()));
            } else if (!seen.add(d.id())) {
                if (acrossRollover) {
                    duplicatesAcrossRollover++;
                } else {
                    mismatches.add(new Mismatch(
                            route,
                            Mismatch.Kind.DUPLICATE,
                            d.id(),
                            "once (" + expected.get(d.id()).where() + ")",
                            "again in " + d.index()));
                }
            }
        }
        for (Map.Entry<String, Stored> e : expected.entrySet()) {
            if (!seen.contains(e.getKey())) {
                mismatches.add(new Mismatch(
                        route,
                        Mismatch.Kind.MISSING,
                        e.getKey(),
                        "record " + e.getValue().where(),
                        "no document"));
            }
        }
    }

    /** A clean stream has no dead letters: each one is reported with kes's reason. */
    void deadLetters(List<Stored> letters) {
        for (Stored l : letters) {
            Map<String, String> h = l.headers();
            mismatches.add(new Mismatch(
                    "dlq",
                    Mismatch.Kind.DEAD_LETTER,
                    h.get("kes.source.topic") + "/" + h.get("kes.source.partition") + "@" + h.get("kes.source.offset"),
                    "indexed",
                    h.get("kes.stage") + " " + h.get("kes.error.type") + " " + h.get("kes.error.status") + ": "
                            + h.get("kes.error.reason")));
        }
    }

    private static JsonNode parse(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
