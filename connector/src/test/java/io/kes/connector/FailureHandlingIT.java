package io.kes.connector;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.kes.stack.ElasticsearchNode;
import io.kes.stack.Engine;
import io.kes.stack.Http;
import io.kes.stack.junit.ElasticsearchExtension;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.apache.flink.connector.datagen.source.GeneratorFunction;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Writes that can never succeed: handed over at once, never retried, never dropped. */
@ExtendWith(ElasticsearchExtension.class)
class FailureHandlingIT {

    static final Queue<FailedOperation> COLLECTED = new ConcurrentLinkedQueue<>();
    static final Queue<FailedOperation> FAILURE_STORED = new ConcurrentLinkedQueue<>();
    private static final int DOCS = 1000;

    /** Every 10th document has a string where the mapping wants an integer. */
    private static final GeneratorFunction<Long, DocumentOperation> TENTH_IS_BAD = i -> DocumentOperation.index(
            "strict",
            "doc-" + i,
            (i % 10 == 0 ? "{\"n\":\"not a number\"}" : "{\"n\":" + i + "}").getBytes(StandardCharsets.UTF_8));

    /** Test handler: keeps what it is given. */
    static final class Collecting implements FailureHandler {
        private static final long serialVersionUID = 1L;

        @Override
        public void onFailures(List<FailedOperation> failures) {
            COLLECTED.addAll(failures);
        }

        @Override
        public void onFailureStored(List<FailedOperation> stored) {
            FAILURE_STORED.addAll(stored);
        }
    }

    @BeforeEach
    void strictIndex(ElasticsearchNode es) throws Exception {
        COLLECTED.clear();
        FAILURE_STORED.clear();
        Http http = es.http();
        http.send("DELETE", "/strict?ignore_unavailable=true", null);
        http.send(
                        "PUT",
                        "/strict",
                        "{\"settings\":{\"number_of_shards\":3,\"number_of_replicas\":0},"
                                + "\"mappings\":{\"dynamic\":\"strict\",\"properties\":{\"n\":{\"type\":\"integer\"}}}}")
                .requireOk("create");
    }

    @Test
    void mappingErrorsGoToTheFailureHandlerWithTheirReasonAndTheRestIsIndexed(ElasticsearchNode es) throws Exception {
        for (FailedOperation f : everyTenthRefused(es, TENTH_IS_BAD)) {
            assertThat(f.status()).isEqualTo(400);
            assertThat(f.errorType()).isIn("document_parsing_exception", "mapper_parsing_exception");
            assertThat(f.reason()).contains("[n]");
            assertThat(Long.parseLong(f.operation().id().substring("doc-".length())) % 10)
                    .isZero();
        }
        assertThat(RecordingReporter.sum("kes.permanentFailures")).isEqualTo(DOCS / 10);
        assertThat(RecordingReporter.sum("kes.itemRetriesRejected")
                        + RecordingReporter.sum("kes.itemRetriesUnavailable"))
                .isZero();
    }

    /**
     * A body keeps a plain item's operation as parts and a unique id not at all (it reads the id back
     * out of the action line): a refused document still reaches the handler as the operation sent,
     * id (escapes and all), index, source and record coordinates.
     */
    @Test
    void aRefusedDocumentWithAUniqueIdReachesTheHandlerAsItWasSent(ElasticsearchNode es) throws Exception {
        GeneratorFunction<Long, DocumentOperation> uniqueIds = i -> DocumentOperation.write(OpType.INDEX, "strict")
                .id("t\"\\\u00e9-" + i)
                .idUnique(true)
                .source((i % 10 == 0 ? "{\"n\":\"not a number\"}" : "{\"n\":" + i + "}")
                        .getBytes(StandardCharsets.UTF_8))
                .origin(RecordOrigin.kafka("it-topic", (int) (i % 3), i))
                .build();
        for (FailedOperation f : everyTenthRefused(es, uniqueIds)) {
            assertThat(f.status()).isEqualTo(400);
            assertThat(f.operation())
                    .isEqualTo(uniqueIds.map(f.operation().origin().offset()));
        }
    }

    /**
     * Runs {@code documents} (every tenth refused by the strict mapping) through a sink with a
     * collecting failure handler, checks the other nine tenths were indexed and a tenth handed
     * over, and returns those.
     */
    private static List<FailedOperation> everyTenthRefused(
            ElasticsearchNode es, GeneratorFunction<Long, DocumentOperation> documents) throws Exception {
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(es.url())
                .setFailureHandler(new Collecting())
                .build();
        SinkPipelines.start(sink, DOCS, 0, 2, null, documents)
                .getJobExecutionResult()
                .get();

        assertThat(es.http().refreshAndCount("strict")).isEqualTo(DOCS - DOCS / 10);
        List<FailedOperation> failures = new ArrayList<>(COLLECTED);
        assertThat(failures).hasSize(DOCS / 10);
        return failures;
    }

    @Test
    void byDefaultTheJobFailsNamingTheDocumentAndTheReason(ElasticsearchNode es) {
        ElasticsearchSink sink = ElasticsearchSink.builder().setHosts(es.url()).build();
        assertThatThrownBy(() -> SinkPipelines.start(sink, DOCS, 0, 1, null, TENTH_IS_BAD)
                        .getJobExecutionResult()
                        .get())
                .rootCause()
                .isInstanceOf(FailureHandler.PermanentWriteException.class)
                .hasMessageContaining("index of strict/doc-")
                .hasMessageContaining("failed with 400")
                .hasMessageContaining("[n]")
                .hasMessageContaining("configure a dead-letter topic");
    }

    @Test
    void strictMappingRejectsUnknownFieldsAsPermanentFailures(ElasticsearchNode es) throws Exception {
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(es.url())
                .setFailureHandler(new Collecting())
                .build();
        SinkPipelines.start(
                        sink,
                        10,
                        0,
                        1,
                        null,
                        i -> DocumentOperation.index(
                                "strict", "x-" + i, "{\"unexpected\":true}".getBytes(StandardCharsets.UTF_8)))
                .getJobExecutionResult()
                .get();
        assertThat(COLLECTED)
                .hasSize(10)
                .allSatisfy(f -> assertThat(f.errorType()).isEqualTo("strict_dynamic_mapping_exception"));
    }

    /**
     * Issue 27 item 7: a write block ({@code PUT idx/_block/write}, or an ILM read-only index)
     * answers 403 {@code cluster_block_exception}. That is no missing privilege: the writes go to
     * the failure handler (the dead-letter topic, when configured) like any refused write, and the
     * default handler's message names the block.
     */
    @Test
    void writesRefusedByAWriteBlockGoToTheFailureHandlerNotToAPrivilegeError(ElasticsearchNode es) throws Exception {
        es.http().send("PUT", "/strict/_block/write", null).requireOk("write block");
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(es.url())
                .setFailureHandler(new Collecting())
                .build();
        SinkPipelines.start(sink, 20, 0, 1, null, TENTH_IS_BAD)
                .getJobExecutionResult()
                .get();

        assertThat(COLLECTED).hasSize(20).allSatisfy(f -> {
            assertThat(f.status()).isEqualTo(403);
            assertThat(f.errorType()).isEqualTo("cluster_block_exception");
        });
        assertThatThrownBy(() -> SinkPipelines.start(
                                ElasticsearchSink.builder().setHosts(es.url()).build(), 20, 0, 1, null, TENTH_IS_BAD)
                        .getJobExecutionResult()
                        .get())
                .rootCause()
                .isInstanceOf(FailureHandler.PermanentWriteException.class)
                .hasMessageContaining("failed with 403")
                .hasMessageContaining("index write");
    }

    /**
     * Issue 27 item 9: Elasticsearch 9.1+ keeps a document its data stream refuses in the data
     * stream's failure store and answers success ({@code failure_store: used}). kes counts them,
     * warns, and hands them to the failure handler (the dead-letter topic, when configured); not
     * as refused writes: they are kept, and the job goes on.
     *
     * <p>The integ-test-zip lacks the data-streams and mapper-extras modules; kes-stack adds a
     * plugin standing in for the one feature and the one field type the failure store needs
     * (PluginShims), and the redirect is the node's own server code. Without the module there is
     * no {@code DELETE _data_stream}: each run writes to a data stream of its own.
     */
    @Test
    void documentsKeptInADataStreamsFailureStoreAreCountedAndHandedToTheFailureHandler(ElasticsearchNode es)
            throws Exception {
        assumeTrue(
                es.engine() == Engine.ELASTICSEARCH && es.versionAtLeast(9, 1),
                "failure stores: Elasticsearch 9.1+, this is " + es.displayName());
        Http http = es.http();
        String stream = "kes-fs-" + UUID.randomUUID().toString().substring(0, 8);
        http.send(
                        "PUT",
                        "/_index_template/kes-fs",
                        "{\"index_patterns\":[\"kes-fs-*\"],\"data_stream\":{},\"template\":{"
                                + "\"settings\":{\"number_of_shards\":2,\"number_of_replicas\":0},\"mappings\":{\"properties\":{\"n\":{\"type\":"
                                + "\"integer\"}}},\"data_stream_options\":{\"failure_store\":{\"enabled\":true}}}}")
                .requireOk("template");
        ElasticsearchSink sink = ElasticsearchSink.builder()
                .setHosts(es.url())
                .setFailureHandler(new Collecting())
                .build();
        SinkPipelines.start(
                        sink,
                        DOCS,
                        0,
                        2,
                        null,
                        i -> DocumentOperation.create(
                                stream,
                                "doc-" + i,
                                ("{\"@timestamp\":\"2026-11-25T00:00:00Z\",\"n\":"
                                                + (i % 10 == 0 ? "\"not a number\"" : i) + "}")
                                        .getBytes(StandardCharsets.UTF_8)))
                .getJobExecutionResult()
                .get();

        assertThat(http.refreshAndCount(stream)).as("the good ones indexed").isEqualTo(DOCS - DOCS / 10);
        assertThat(http.refreshAndCount(stream + "::failures"))
                .as("the bad ones kept by the node")
                .isEqualTo(DOCS / 10);
        assertThat(COLLECTED).as("not refused: kept").isEmpty();
        assertThat(FAILURE_STORED).hasSize(DOCS / 10).allSatisfy(f -> {
            assertThat(f.errorType()).isEqualTo("failure_store");
            assertThat(f.reason()).contains("failure store").contains(".fs-" + stream);
            assertThat(Long.parseLong(f.operation().id().substring("doc-".length())) % 10)
                    .isZero();
        });
        assertThat(RecordingReporter.sum("kes.failureStoreRedirects")).isEqualTo(DOCS / 10);
        assertThat(RecordingReporter.sum("kes.permanentFailures")).isZero();
    }
}
