package io.kes.connector.bulk;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import io.kes.connector.RecordOrigin;
import io.kes.connector.routing.PredictedShard;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * With {@code version: kafka-offset} a 409 is taken as an accepted replay; one whose stored
 * version is far above its partition's offsets came from elsewhere (records that moved partition)
 * and its newer value is lost: the writer says so once.
 */
class VersionConflictsTest {

    private static DocumentOperation versioned(String id, int partition, long offset) {
        return DocumentOperation.write(OpType.INDEX, "cdc")
                .id(id)
                .source("{}".getBytes(StandardCharsets.UTF_8))
                .version(offset)
                .origin(new RecordOrigin("orders", partition, offset, null, null))
                .build();
    }

    private static BulkBody body(DocumentOperation... ops) {
        BulkBody body = new BulkBody(1024);
        for (DocumentOperation op : ops) {
            body.add(op, PredictedShard.UNKNOWN);
        }
        return body;
    }

    private static String conflict(long stored, long provided) {
        return "{\"index\":{\"status\":409,\"error\":{\"type\":\"version_conflict_engine_exception\",\"reason\":"
                + "\"[k]: version conflict, current version [" + stored + "] is higher or equal to the one provided ["
                + provided + "]\"}}}";
    }

    private static BulkResponse response(String... items) throws IOException {
        String json = "{\"items\":[" + String.join(",", items) + "]}";
        return BulkResponse.parse(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)), items.length);
    }

    @Test
    void aReplayAfterARestoreIsNotReported() throws IOException {
        VersionConflicts conflicts = new VersionConflicts();
        // restored at offset 100_000; the job had written up to 100_450 before it failed
        String warning = conflicts.check(body(versioned("k", 0, 100_000)), response(conflict(100_450, 100_000)));

        assertThat(warning).isNull();
    }

    @Test
    void aConflictFarAboveItsPartitionsOffsetsIsReportedOnce() throws IOException {
        VersionConflicts conflicts = new VersionConflicts();
        conflicts.check(body(versioned("x", 3, 1_000)), response("{\"index\":{\"status\":200}}"));
        // partition 3 was added: id k wrote offset 2_000_000 of partition 0 before, now offset 1_200 of partition 3
        String warning = conflicts.check(body(versioned("k", 3, 1_200)), response(conflict(2_000_000, 1_200)));

        assertThat(warning)
                .contains("cdc", "id k", "2000000", "orders-3", "offset 1200", "version: kafka-offset")
                .contains("not applied");
        assertThat(conflicts.check(body(versioned("m", 3, 1_300)), response(conflict(3_000_000, 1_300))))
                .as("once per writer")
                .isNull();
    }

    @Test
    void writesKesDidNotVersionAreNotItsConcern() throws IOException {
        VersionConflicts conflicts = new VersionConflicts();
        String warning =
                conflicts.check(body(DocumentOperation.index("cdc", "k", "{}")), response(conflict(2_000_000, 1)));

        assertThat(warning).isNull();
    }
}
