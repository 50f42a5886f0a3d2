package io.kes.jobs.source;

import io.kes.jobs.config.KafkaSettings;
import io.kes.jobs.config.KesConfig;
import io.kes.jobs.decode.KafkaRecord;
import io.kes.jobs.decode.RawRecordDeserializer;
import java.util.Properties;
import org.apache.flink.connector.kafka.source.KafkaSource;
import org.apache.flink.connector.kafka.source.KafkaSourceBuilder;
import org.apache.flink.connector.kafka.source.enumerator.initializer.OffsetsInitializer;
import org.apache.kafka.clients.consumer.OffsetResetStrategy;

/** The first stage of the job: Flink's {@link KafkaSource} as the job config describes it. */
public final class KesKafkaSource {

    /**
     * The broker holds a fetch until this much is there or {@link #FETCH_MAX_WAIT_MS} passed.
     * Kafka's own default (1 byte) answers a fetch as soon as one record is there: at a moderate
     * rate the consumer then spends more CPU on the fetch cycle (request, metrics, poll, hand-over)
     * than kes on all its per-record work (profiled at 3,000 records/s, 2026-12-03). With a backlog
     * a fetch is full at once, so the wait costs nothing at full load.
     */
    static final String FETCH_MIN_BYTES = "65536";

    /**
     * The longest the broker holds a fetch: well inside the departure's own wait for the index's
     * refresh, so a record becomes searchable no later (Kafka's default: 500 ms).
     */
    static final String FETCH_MAX_WAIT_MS = "100";

    private KesKafkaSource() {}

    /** The job's source: every route's topics (or the pattern), from the configured offsets, bounded if the job is. */
    public static KafkaSource<KafkaRecord> of(KesConfig config) {
        KafkaSettings kafka = config.kafka;
        KafkaSourceBuilder<KafkaRecord> builder = KafkaSource.<KafkaRecord>builder()
                .setBootstrapServers(kafka.bootstrapServers())
                .setGroupId(kafka.groupId())
                .setProperties(sourceProperties(config))
                .setDeserializer(new RawRecordDeserializer())
                .setStartingOffsets(
                        switch (kafka.startingOffsets()) {
                            case COMMITTED -> OffsetsInitializer.committedOffsets(OffsetResetStrategy.EARLIEST);
                            case EARLIEST -> OffsetsInitializer.earliest();
                            case LATEST -> OffsetsInitializer.latest();
                            case TIMESTAMP -> OffsetsInitializer.timestamp(kafka.startingTimestampMillis());
                        });
        if (config.topicPattern() != null) {
            builder.setTopicPattern(config.topicPattern());
        } else {
            builder.setTopics(config.allTopics());
        }
        if (config.job.bounded()) {
            builder.setBounded(OffsetsInitializer.latest());
        }
        return builder.build();
    }

    /**
     * The source's consumer properties: kes's defaults, overridden by {@code kafka.properties}.
     * Defaults: offsets committed to the group with every checkpoint (consumer-lag monitoring then
     * sees what is durable in Elasticsearch; the offsets kes restores from are in Flink's state
     * either way); fewer, fuller fetches ({@link #FETCH_MIN_BYTES}); and with a topic pattern, new
     * matching topics join within 30 s.
     */
    public static Properties sourceProperties(KesConfig config) {
        Properties props = new Properties();
        props.setProperty("commit.offsets.on.checkpoint", "true");
        props.setProperty("fetch.min.bytes", FETCH_MIN_BYTES);
        props.setProperty("fetch.max.wait.ms", FETCH_MAX_WAIT_MS);
        if (config.topicPattern() != null) {
            props.setProperty("partition.discovery.interval.ms", "30000");
        }
        props.putAll(config.kafka.properties());
        return props;
    }
}
