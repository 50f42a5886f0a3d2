package io.kes.connector.examples;

import io.kes.connector.DocumentOperation;
import io.kes.connector.ElasticsearchSink;
import io.kes.connector.ElasticsearchSinkOptions;
import io.kes.connector.deadletter.DeadLetterFailureHandler;
import java.time.Duration;
import java.util.Map;
import org.apache.flink.streaming.api.datastream.DataStream;

/**
 * The "After" of docs/datastream-migration.md: a job that wrote customer changes through Flink's
 * {@code Elasticsearch7SinkBuilder} and an emitter, moved to kes's sink. It lives in the test
 * sources so that the build compiles the guide's code against the real API (the official
 * connector is not on the classpath, so the guide's "Before" is not compiled). The guide shows the
 * lines between the two markers as they are; {@code DataStreamMigrationExampleTest} checks that,
 * and what the mapping and the sink come out as.
 */
public final class DataStreamMigrationExample {

    private DataStreamMigrationExample() {}

    // docs/datastream-migration.md, "After": begin
    /** A change to one customer, as decoded from Kafka: the whole document, some fields, or none (deleted). */
    public record CustomerChange(String customerId, byte[] json, boolean partial) {}

    /** The emitter's work, as a function before the sink: one write per change, JSON bytes untouched. */
    static DocumentOperation toOperation(CustomerChange change) {
        if (change.json() == null) { // was a DeleteRequest
            return DocumentOperation.delete("customers", change.customerId());
        }
        if (change.partial()) { // was an UpdateRequest, docAsUpsert(true)
            return DocumentOperation.upsert("customers", change.customerId(), change.json());
        }
        return DocumentOperation.index("customers", change.customerId(), change.json()); // was an IndexRequest
    }

    static ElasticsearchSink sink(String password) {
        return ElasticsearchSink.builder()
                .setHosts("http://es-1:9200", "http://es-2:9200")
                .setBasicAuth("writer", password) // setConnectionUsername/Password
                .setBulkMaxDocs(1000) // setBulkFlushMaxActions(1000), per shard
                .setBulkLinger(Duration.ofSeconds(1)) // setBulkFlushInterval(1000)
                // setBulkFlushMaxSizeMb(5): kes's 1mb default kept, as each bulk holds one shard's documents
                // setBulkFlushBackoffStrategy(EXPONENTIAL, 5, 1000): kes counts time, not retries;
                // five waits from 1 s, doubling, at most 10 s each: 1 + 2 + 4 + 8 + 10 = 25 s
                .setRetry(Duration.ofSeconds(1), Duration.ofSeconds(10), Duration.ofSeconds(25))
                .set(ElasticsearchSinkOptions.SOCKET_TIMEOUT, Duration.ofSeconds(30)) // setSocketTimeout(30_000)
                // setDeliveryGuarantee(AT_LEAST_ONCE): what kes always does, with the checkpoint fence
                // refused writes (a 400: a value the mapping cannot parse) to a Kafka topic; without
                // this line the job fails naming the record, as the official sink's default does
                .setFailureHandler(new DeadLetterFailureHandler("kafka:9092", Map.of(), "customers-refused"))
                .build();
    }

    static void writeCustomers(DataStream<CustomerChange> changes, String password) {
        changes.map(DataStreamMigrationExample::toOperation)
                .name("customers to documents")
                .sinkTo(sink(password))
                .name("Elasticsearch: customers");
    }
    // docs/datastream-migration.md, "After": end
}
