package io.kes.connector.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.cluster.IndexMetadata;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * What rules an index out of shard prediction before any probe is sent: a decision on the index's
 * settings and its index pipelines' verdicts alone, one row per case.
 */
class IndexCalibratorTest {

    private static final PipelineVerdicts.Verdict HARMLESS = new PipelineVerdicts.Verdict(Optional.empty(), false);
    private static final PipelineVerdicts.Verdict SETS_ROUTING =
            new PipelineVerdicts.Verdict(Optional.of("ingest pipeline 'moves' sets _routing"), false);
    private static final PipelineVerdicts.Verdict UNREADABLE =
            new PipelineVerdicts.Verdict(Optional.of("ingest pipeline 'down' could not be read"), true);

    private static final Map<String, PipelineVerdicts.Verdict> VERDICTS =
            Map.of("harmless", HARMLESS, "moves", SETS_ROUTING, "down", UNREADABLE);

    private record Row(
            boolean routedByDocument, List<String> pipelines, boolean probed, String why, boolean unreadable) {}

    private static final List<Row> ROWS = List.of(
            new Row(true, List.of(), true, null, false),
            new Row(true, List.of("harmless"), true, null, false),
            new Row(false, List.of(), false, "routes on document fields", false),
            new Row(false, List.of("moves"), false, "routes on document fields", false),
            new Row(true, List.of("harmless", "moves"), false, "sets _routing", false),
            new Row(true, List.of("down"), false, "could not be read", true),
            new Row(true, List.of("moves", "down"), false, "sets _routing", false));

    private static IndexMetadata index(boolean routedByDocument, List<String> pipelines) {
        return new IndexMetadata(
                "idx",
                "u1",
                2,
                2,
                1,
                routedByDocument,
                new long[] {1, 1},
                IndexMetadata.DEFAULT_TRANSLOG_SYNC_INTERVAL,
                pipelines,
                IndexMetadata.DEFAULT_REFRESH_INTERVAL);
    }

    @Test
    void anIndexIsProbedOnlyWhenItRoutesByDocumentAndNoIndexPipelineMayMoveDocuments() {
        for (Row row : ROWS) {
            Optional<IndexCalibrator.Outcome> outcome = IndexCalibrator.unpredictableWithoutProbes(
                    index(row.routedByDocument(), row.pipelines()), VERDICTS::get);

            String as = row.toString();
            assertThat(outcome.isEmpty()).as(as).isEqualTo(row.probed());
            if (!row.probed()) {
                assertThat(outcome.get().routing()).as(as).isNull();
                assertThat(outcome.get().unpredictableWhy()).as(as).contains(row.why());
                assertThat(outcome.get().unreadable())
                        .as(as + ": calibrated again soon only when a pipeline could not be read")
                        .isEqualTo(row.unreadable());
            }
        }
    }
}
