package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.Http;
import io.kes.stack.SearchNode;
import io.kes.stack.junit.SearchTarget;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 27 item 14: writes with an external version ({@code version: kafka-offset} in the job) as a
 * replay after a restore sends them: the newest records first (the previous run wrote them), then
 * the older ones again from the checkpoint. Elasticsearch refuses every older write (409), kes
 * counts it as an accepted replay, and no document goes back in time, deleted ones included.
 */
class ExternalVersionsIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int KEYS = 50;

    @ParameterizedTest(name = "{0}")
    @MethodSource("io.kes.stack.junit.SearchTarget#newestOrAll")
    void aReplayOfOlderRecordsNeverTakesADocumentBackInTime(SearchTarget target) throws Exception {
        SearchNode node = target.node();
        Http http = node.http();
        http.send("DELETE", "/versioned?ignore_unavailable=true", null);
        http.send("PUT", "/versioned", "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":0}}")
                .requireOk("create");
        ElasticsearchSink sink =
                ElasticsearchSink.builder().setHosts(node.url()).build();
        // "offsets" 100..149: key i ends on offset 100 + i (odd keys deleted by it); then the replay, offsets 0..99
        SinkPipelines.start(sink, KEYS * 3, 0, 1, null, i -> {
                    long offset = i < KEYS ? 100 + i : i - KEYS;
                    String id = "k" + (offset % KEYS);
                    if (offset >= 100 && offset % 2 == 1) {
                        return DocumentOperation.write(OpType.DELETE, "versioned")
                                .id(id)
                                .version(offset)
                                .build();
                    }
                    return DocumentOperation.write(OpType.INDEX, "versioned")
                            .id(id)
                            .version(offset)
                            .source(("{\"offset\":" + offset + "}").getBytes(StandardCharsets.UTF_8))
                            .build();
                })
                .getJobExecutionResult()
                .get();

        http.send("POST", "/versioned/_refresh", null).requireOk("refresh");
        JsonNode hits = JSON.readTree(
                        http.get("/versioned/_search?size=" + KEYS + "&filter_path=hits.hits._id,hits.hits._source")
                                .requireOk("search")
                                .body())
                .path("hits")
                .path("hits");
        java.util.Map<String, Long> stored = new java.util.TreeMap<>();
        hits.forEach(hit -> stored.put(
                hit.path("_id").asText(), hit.path("_source").path("offset").asLong()));
        java.util.Map<String, Long> expected = new java.util.TreeMap<>();
        for (int k = 0; k < KEYS; k += 2) {
            expected.put("k" + k, 100L + k);
        }
        assertThat(stored)
                .as("every key at its newest record; odd keys deleted by theirs")
                .isEqualTo(expected);
        assertThat(RecordingReporter.sum("kes.replaysAccepted"))
                .as("older writes refused, counted as replays")
                .isEqualTo(KEYS * 2);
    }
}
