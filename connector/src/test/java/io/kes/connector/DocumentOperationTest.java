package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class DocumentOperationTest {

    private static final byte[] DOC = "{}".getBytes(StandardCharsets.UTF_8);

    @Test
    void indexAndCreateNameAnIngestPipeline() {
        assertThat(DocumentOperation.write(OpType.INDEX, "logs")
                        .id("1")
                        .source(DOC)
                        .pipeline("geoip")
                        .build()
                        .pipeline())
                .isEqualTo("geoip");
        assertThat(DocumentOperation.write(OpType.CREATE, "logs")
                        .source(DOC)
                        .pipeline("geoip")
                        .build())
                .hasToString("create logs/null pipeline=geoip from " + RecordOrigin.NONE);
        assertThat(DocumentOperation.index("logs", "1", DOC).pipeline()).isNull();
    }

    @Test
    void upsertsAndDeletesCannotNameAPipelineBecauseTheirBulkActionsRunNone() {
        assertThatThrownBy(() -> DocumentOperation.write(OpType.UPSERT, "logs")
                        .id("1")
                        .source(DOC)
                        .pipeline("geoip")
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("UPSERT cannot name an ingest pipeline (geoip");
        assertThatThrownBy(() -> DocumentOperation.write(OpType.DELETE, "logs")
                        .id("1")
                        .pipeline("geoip")
                        .build())
                .hasMessageContaining("DELETE cannot name an ingest pipeline");
    }

    @Test
    void thePipelineIsPartOfEquality() {
        DocumentOperation plain = DocumentOperation.index("logs", "1", DOC);
        DocumentOperation piped = DocumentOperation.write(OpType.INDEX, "logs")
                .id("1")
                .source(DOC)
                .pipeline("geoip")
                .build();
        assertThat(piped).isNotEqualTo(plain);
        assertThat(piped)
                .isEqualTo(DocumentOperation.write(OpType.INDEX, "logs")
                        .id("1")
                        .source(DOC)
                        .pipeline("geoip")
                        .build());
    }
}
