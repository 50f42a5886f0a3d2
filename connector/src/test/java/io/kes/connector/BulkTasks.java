package io.kes.connector;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.kes.stack.Http;
import java.time.Duration;

/** The bulk tasks a node runs, for tests that hold a bulk inside Elasticsearch (test support). */
final class BulkTasks {

    private static final ObjectMapper JSON = new ObjectMapper();

    private BulkTasks() {}

    /** Until no bulk runs any more (a held one applied or refused), so that what the test reads is final. */
    static void awaitNone(Http http) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            JsonNode tasks = JSON.readTree(http.get("/_tasks?actions=indices:data/write/bulk*&group_by=none")
                            .requireOk("tasks")
                            .body())
                    .path("tasks");
            if (tasks.isEmpty()) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("a bulk still runs in Elasticsearch after 60 s");
    }
}
