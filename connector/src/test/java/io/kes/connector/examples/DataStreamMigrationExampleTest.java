package io.kes.connector.examples;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.DocumentOperation;
import io.kes.connector.OpType;
import io.kes.connector.SinkSettings;
import io.kes.connector.examples.DataStreamMigrationExample.CustomerChange;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.graph.StreamNode;
import org.junit.jupiter.api.Test;

/**
 * The guide's "After" (docs/datastream-migration.md) does what the guide says: each change becomes
 * the write the official emitter made, the sink carries the official builder's settings in kes's
 * units, the job plans without a server, and the guide shows the example as it is compiled.
 */
class DataStreamMigrationExampleTest {

    private static final byte[] ADA = "{\"name\":\"Ada\",\"tier\":\"gold\"}".getBytes(UTF_8);

    @Test
    void aWholeDocumentIsIndexedUnderTheCustomersIdWithItsJsonUntouched() {
        DocumentOperation op = DataStreamMigrationExample.toOperation(new CustomerChange("c-42", ADA, false));

        assertThat(op.opType()).isEqualTo(OpType.INDEX);
        assertThat(op.index()).isEqualTo("customers");
        assertThat(op.id()).isEqualTo("c-42");
        assertThat(op.source()).isEqualTo(ADA);
    }

    @Test
    void someFieldsAreUpsertedAndNoDocumentDeletesTheId() {
        DocumentOperation upsert = DataStreamMigrationExample.toOperation(new CustomerChange("c-42", ADA, true));
        DocumentOperation delete = DataStreamMigrationExample.toOperation(new CustomerChange("c-42", null, false));

        assertThat(upsert).isEqualTo(DocumentOperation.upsert("customers", "c-42", ADA));
        assertThat(upsert.opType().bulkAction())
                .as("doc_as_upsert, as UpdateRequest.docAsUpsert(true)")
                .isEqualTo("update");
        assertThat(delete).isEqualTo(DocumentOperation.delete("customers", "c-42"));
        assertThat(delete.source()).isNull();
    }

    @Test
    void theSinkCarriesTheOfficialBuildersSettingsInKesUnits() {
        SinkSettings s = DataStreamMigrationExample.sink("secret").settings();

        assertThat(s.hosts()).containsExactly(URI.create("http://es-1:9200"), URI.create("http://es-2:9200"));
        assertThat(s.username()).isEqualTo("writer");
        assertThat(s.authorization())
                .as("the password, readable only as the REST client's header")
                .isEqualTo("Basic " + Base64.getEncoder().encodeToString("writer:secret".getBytes(UTF_8)));
        assertThat(s.maxDocs()).isEqualTo(1000);
        assertThat(s.maxBytes()).as("kes's default, not the official 5 MB").isEqualTo(1024 * 1024);
        assertThat(s.linger()).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.initialBackoff()).isEqualTo(Duration.ofSeconds(1));
        assertThat(s.maxBackoff()).isEqualTo(Duration.ofSeconds(10));
        assertThat(s.maxRetryTime())
                .as("what a SQL table makes of 'sink.bulk-flush.backoff.max-retries' = '5' with a 1 s delay")
                .isEqualTo(Duration.ofSeconds(25));
        assertThat(s.socketTimeout()).isEqualTo(Duration.ofSeconds(30));
    }

    /**
     * Building the plan extracts the map's output type and expands the sink into its own operators
     * (named after the sink, as the guide says); no cluster, no server. Two writers: chained, no slot router.
     */
    @Test
    void theJobPlansTheMappingThenKesBulkWriterBeforeAnIdleSinkWriter() {
        StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
        env.setParallelism(2);
        DataStreamMigrationExample.writeCustomers(env.fromData(new CustomerChange("c-42", ADA, false)), "secret");

        List<String> operators = env.getStreamGraph().getStreamNodes().stream()
                .map(StreamNode::getOperatorName)
                .toList();

        assertThat(operators)
                .containsExactly(
                        "Source: Collection Source",
                        "customers to documents",
                        "Elasticsearch: customers: kes: bulk writer",
                        "Elasticsearch: customers: Writer");
    }

    /** The guide's "After" block is the example between its markers, plus its imports: a change to one is a change to both. */
    @Test
    void theGuideShowsTheExampleAsTheBuildCompilesIt() throws IOException {
        List<String> example =
                Files.readAllLines(Path.of("src/test/java/io/kes/connector/examples/DataStreamMigrationExample.java"));
        int begin = example.indexOf("    // docs/datastream-migration.md, \"After\": begin");
        int end = example.indexOf("    // docs/datastream-migration.md, \"After\": end");
        assertThat(begin).as("the example's begin marker").isNotNegative();
        assertThat(end).as("the example's end marker").isGreaterThan(begin);
        List<String> region = example.subList(begin + 1, end).stream()
                .map(l -> l.startsWith("    ") ? l.substring(4) : l)
                .toList();

        List<String> after = afterBlock(Files.readAllLines(Path.of("../docs/datastream-migration.md")));
        List<String> imports =
                after.stream().filter(l -> l.startsWith("import ")).toList();

        assertThat(example).as("the guide's imports, in the example").containsAll(imports);
        assertThat(after.subList(imports.size(), after.size()).stream()
                        .dropWhile(String::isBlank)
                        .toList())
                .as("the guide's \"After\" code, line by line, against the example between its markers")
                .isEqualTo(region);
    }

    /** The first ```java block after the "### After" heading. */
    private static List<String> afterBlock(List<String> guide) {
        int heading = guide.indexOf("### After");
        assertThat(heading)
                .as("a '### After' heading in docs/datastream-migration.md")
                .isNotNegative();
        List<String> block = new ArrayList<>();
        boolean inside = false;
        for (String line : guide.subList(heading + 1, guide.size())) {
            if (!inside && line.equals("```java")) {
                inside = true;
            } else if (inside && line.equals("```")) {
                return block;
            } else if (inside) {
                block.add(line);
            }
        }
        throw new AssertionError("no ```java block after '### After' in docs/datastream-migration.md");
    }
}
