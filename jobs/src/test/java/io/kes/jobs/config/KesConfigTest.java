package io.kes.jobs.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class KesConfigTest {

    private static final String BASE =
            "elasticsearch: {hosts: [http://localhost:9200]}\nkafka: {bootstrap_servers: localhost:9092}\n";

    private static KesConfig parse(String yaml) {
        return KesConfig.parse(yaml, Map.of("ES_PASSWORD", "s3cret"));
    }

    @Test
    void unknownKeysAreRejectedWithADidYouMeanHint() {
        assertThatThrownBy(() -> parse(BASE + "routes: [{topics: [a], index: a}]\nbulk: {max_doc: 10}"))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("unknown key 'bulk.max_doc'. Did you mean 'max_docs'?");
        assertThatThrownBy(() -> parse(BASE + "routes: [{topic: [a], index: a}]"))
                .hasMessageStartingWith("unknown key 'routes[0].topic'. Did you mean 'topics'?");
    }

    @Test
    void everyErrorOfTheConfigIsReportedInOneRun() {
        assertThatThrownBy(() -> parse(BASE + "bulk: {max_doc: 10}\nroutes: [{topics: [a], indx: a, id: kafak}]"))
                .isInstanceOfSatisfying(
                        ConfigException.class,
                        e -> assertThat(e.problems())
                                .containsExactly(
                                        "unknown key 'bulk.max_doc'. Did you mean 'max_docs'? Allowed here: "
                                                + String.join(
                                                        ", ",
                                                        new java.util.TreeSet<>(
                                                                KesConfig.sinkOptionsByKey().keySet().stream()
                                                                        .filter(k -> k.startsWith("bulk."))
                                                                        .map(k -> k.substring(5))
                                                                        .toList())),
                                        "unknown key 'routes[0].indx'. Did you mean 'index'? Allowed here: "
                                                + String.join(", ", new java.util.TreeSet<>(Route.KEYS)),
                                        "routes[0].id must be one of kafka, kafka-connect, key, none, {field: path}, {hash: [paths]} or {key_field: name}, got 'kafak'. Did you mean 'kafka'?"))
                .hasMessageStartingWith("3 errors in the config:\n  unknown key 'bulk.max_doc'");
    }

    @Test
    void aMissingHostIsReportedBesideProblemsElsewhere() {
        assertThatThrownBy(() -> parse(
                        "kafka: {bootstrap_servers: localhost:9092}\nroutes: [{topics: [a], index: a, op: upsrt}]"))
                .isInstanceOfSatisfying(
                        ConfigException.class,
                        e -> assertThat(e.problems())
                                .hasSize(2)
                                .anySatisfy(p -> assertThat(p).startsWith("routes[0].op must be one of"))
                                .anySatisfy(p -> assertThat(p).startsWith("elasticsearch.hosts is not set")));
    }

    @Test
    void invalidValuesNameTheKeyTheValueAndTheFix() {
        assertThatThrownBy(() -> parse(BASE + "routes: [{topics: [a], index: Logs}]"))
                .hasMessage(
                        "routes[0].index 'Logs' is not a valid Elasticsearch index name: use lowercase, no spaces, commas or *, not starting with _ or -");
        assertThatThrownBy(() -> parse(BASE + "routes: [{topics: [a], index: a, op: upsert, id: none}]"))
                .hasMessage(
                        "routes[0].id none cannot upsert: those need the document's id; use id: key, {field: ...} or {hash: [...]}");
        assertThatThrownBy(() -> parse(BASE + "routes: [{topics: [a], index: a, op: delete-on-tombstone}]"))
                .hasMessageStartingWith("routes[0].id must be key or {key_field: ...} with op delete-on-tombstone");
        assertThatThrownBy(() -> parse(
                        BASE + "routes: [{topics: [a], index: a, id: key, op: delete-on-tombstone, routing: tenant}]"))
                .hasMessage(
                        "routes[0].routing cannot be used with op delete-on-tombstone: a tombstone has no value to read "
                                + "the routing field 'tenant' from, so its delete would go to the wrong shard (Elasticsearch answers 404) "
                                + "and the document would stay; remove routing (with id: key, Elasticsearch already places each "
                                + "document by its key), or keep routing and use op: index or upsert without deletes");
        assertThatThrownBy(() -> parse(BASE + "routes: [{topics: [a], index: a}]\nerrors: {tolerance: all}"))
                .hasMessageStartingWith("errors.dead_letter_topic is required with errors.tolerance: all");
        assertThatThrownBy(() -> parse(BASE + "routes: [{topics: [a], index: a}]\njob: {checkpoint_interval: soon}"))
                .hasMessage("job.checkpoint_interval must be a duration like 500ms, 10s or 5min, got 'soon'");
        assertThatThrownBy(() -> parse(BASE + "routes: [{topics: [a], index: \"a-{@timestamp|yyyy.bb}\"}]"))
                .hasMessageContaining("invalid date pattern 'yyyy.bb'");
        assertThatThrownBy(() -> parse(BASE + "routes: [{topics: [a], index: a, op: delete}]"))
                .hasMessageStartingWith("routes[0].op must be one of");
    }

    @Test
    void startingOffsetsCanBeATimestamp() {
        assertThat(parse(
                                "elasticsearch: {hosts: [http://h:9200]}\nkafka: {bootstrap_servers: b:9092, starting_offsets: \"timestamp:2026-11-01T00:00:00Z\"}\n"
                                        + "routes: [{topics: [a], index: a}]")
                        .kafka
                        .startingTimestampMillis())
                .isEqualTo(1793491200000L);
        assertThatThrownBy(() -> parse(
                        "elasticsearch: {hosts: [http://h:9200]}\nkafka: {bootstrap_servers: b:9092, starting_offsets: \"timestamp:yesterday\"}\n"
                                + "routes: [{topics: [a], index: a}]"))
                .hasMessage(
                        "kafka.starting_offsets timestamp 'yesterday' must be epoch milliseconds or an ISO-8601 time with offset, e.g. timestamp:2026-11-01T00:00:00Z");
    }

    @Test
    void aRouteNamesItsIngestPipelineWhichUpsertsCannotUse() {
        assertThat(parse(BASE + "routes: [{topics: [a], index: a, pipeline: geoip}]")
                        .routes
                        .get(0)
                        .pipeline())
                .isEqualTo("geoip");
        assertThat(parse(BASE + "routes: [{topics: [a], index: a}]")
                        .routes
                        .get(0)
                        .pipeline())
                .isNull();
        assertThatThrownBy(
                        () -> parse(BASE + "routes: [{topics: [a], index: a, id: key, op: upsert, pipeline: geoip}]"))
                .hasMessageContaining("routes[0].pipeline 'geoip' cannot be used with op upsert")
                .hasMessageContaining("index.default_pipeline");
        assertThatThrownBy(() -> parse(BASE + "routes: [{topics: [a], index: a, pipeline: _none}]"))
                .hasMessageContaining("routes[0].pipeline '_none' is not a pipeline id");
    }

    @Test
    void versionByKafkaOffsetNeedsIdsThatRepeatAndAnOpElasticsearchVersions() {
        assertThat(parse(
                                BASE
                                        + "routes: [{topics: [a], index: a, id: key, op: delete-on-tombstone, version: kafka-offset}]")
                        .routes
                        .get(0)
                        .versionByOffset())
                .isTrue();
        assertThat(parse(BASE + "routes: [{topics: [a], index: a}]")
                        .routes
                        .get(0)
                        .versionByOffset())
                .isFalse();
        assertThatThrownBy(() ->
                        parse(BASE + "routes: [{topics: [a], index: a, id: key, op: upsert, version: kafka-offset}]"))
                .hasMessageContaining(
                        "routes[0].version kafka-offset needs op index or delete-on-tombstone: Elasticsearch versions "
                                + "no op upsert");
        assertThatThrownBy(() -> parse(BASE + "routes: [{topics: [a], index: a, version: kafka-offset}]"))
                .hasMessageContaining("routes[0].version kafka-offset needs ids that repeat");
        assertThatThrownBy(() -> parse(BASE + "routes: [{topics: [a], index: a, id: key, version: offset}]"))
                .hasMessageContaining("routes[0].version must be one of");
    }

    @Test
    void versionByKafkaOffsetIsRefusedWhereTheOffsetsOfOneIdCanComeFromSeveralTopics() {
        // another topic's offsets are unrelated: its newer value may carry a lower version, get a 409 and be lost
        assertThatThrownBy(() -> parse(BASE + "routes: [{topics: [a, b], index: a, id: key, version: kafka-offset}]"))
                .hasMessageContaining("routes[0].version kafka-offset needs a route of one topic")
                .hasMessageContaining("one route per topic");
        assertThatThrownBy(() ->
                        parse(BASE + "routes: [{topic_pattern: 'cdc-.*', index: a, id: key, version: kafka-offset}]"))
                .hasMessageContaining("routes[0].version kafka-offset needs a route of one topic")
                .hasMessageContaining("topic_pattern");
        assertThatThrownBy(() -> parse(BASE + "routes: [{topics: [a], index: x, id: key, version: kafka-offset},"
                        + " {topics: [b], index: x, id: key}]"))
                .hasMessageContaining("routes[0] and routes[1] write 'x'")
                .hasMessageContaining("an index of its own");
    }

    @Test
    void aBadPipelineIsReportedBesideTheRoutesOtherErrors() {
        assertThatThrownBy(() -> parse(BASE + "routes: [{topics: [a], index: a, op: upsrt, pipeline: _none}]"))
                .isInstanceOfSatisfying(
                        ConfigException.class,
                        e -> assertThat(e.problems())
                                .hasSize(2)
                                .anySatisfy(p -> assertThat(p).startsWith("routes[0].op must be one of"))
                                .anySatisfy(p ->
                                        assertThat(p).startsWith("routes[0].pipeline '_none' is not a pipeline id")));
    }

    @Test
    void aTopicBelongsToOneRoute() {
        assertThatThrownBy(() -> parse(BASE + "routes: [{topics: [a], index: a}, {topics: [a], index: b}]"))
                .hasMessage("topic 'a' appears in more than one route; each topic goes to one route");
    }

    @Test
    void secretsComeFromTheEnvironmentOrFiles() {
        KesConfig config =
                parse("elasticsearch: {hosts: [http://h:9200], username: kes, password: \"${ES_PASSWORD}\"}\n"
                        + "kafka: {bootstrap_servers: localhost:9092}\nroutes: [{topics: [a], index: a}]");
        assertThat(config.sinkOptions.toMap()).containsEntry("elasticsearch.password", "s3cret");
        assertThatThrownBy(() -> parse("elasticsearch: {hosts: [http://h:9200], api_key: \"${NOPE}\"}\n"
                        + "kafka: {bootstrap_servers: localhost:9092}\nroutes: [{topics: [a], index: a}]"))
                .hasMessage("elasticsearch.api_key refers to the environment variable NOPE, which is not set");
    }

    @Test
    void topicPatternsAndListsCombineIntoOneSubscription() {
        KesConfig config =
                parse(BASE + "routes: [{topic_pattern: \"logs-.*\", index: logs}, {topics: [orders], index: orders}]");
        assertThat(config.topicPattern().matcher("logs-web").matches()).isTrue();
        assertThat(config.topicPattern().matcher("orders").matches()).isTrue();
        assertThat(config.topicPattern().matcher("other").matches()).isFalse();
        assertThat(config.routeFor("logs-web").index()).isEqualTo("logs");
    }

    @Test
    void theExampleConfigLoads() {
        KesConfig config = KesConfig.load(java.nio.file.Path.of("config/example.yaml"));
        assertThat(config.routes).hasSize(1);
    }

    @Test
    void theSinkSettingsAreValidatedAtLoadAndKept() {
        KesConfig config = parse("elasticsearch: {hosts: [http://h:9200], durability: request}\nbulk: {max_docs: 50}\n"
                + "kafka: {bootstrap_servers: localhost:9092}\nroutes: [{topics: [a], index: a}]");
        assertThat(config.sink.durability()).isEqualTo(io.kes.connector.Durability.REQUEST);
        assertThat(config.sink.maxDocs()).isEqualTo(50);
        assertThat(config.sink.hosts()).containsExactly(java.net.URI.create("http://h:9200"));
    }

    @Test
    void awsSigV4IsAMappingInsideElasticsearch() {
        KesConfig config = parse("elasticsearch: {hosts: [https://search-logs.eu-west-1.es.amazonaws.com],"
                + " aws_sigv4: {region: eu-west-1, service: aoss}}\n"
                + "kafka: {bootstrap_servers: localhost:9092}\nroutes: [{topics: [a], index: a}]");
        assertThat(config.sink.awsSigV4()).isEqualTo(new io.kes.connector.cluster.AwsSigV4("eu-west-1", "aoss"));
        assertThat(config.sink.shardGrouping()).isFalse();
        assertThatThrownBy(() -> parse("elasticsearch: {hosts: [http://h:9200], aws_sigv4: {regoin: eu-west-1}}\n"
                        + "kafka: {bootstrap_servers: localhost:9092}\nroutes: [{topics: [a], index: a}]"))
                .hasMessageContaining(
                        "unknown key 'elasticsearch.aws_sigv4.regoin'. Did you mean 'region'? Allowed here: region, service");
    }

    /** Older configs spelt durability by the enum's name; they load as before the option was typed. */
    @Test
    void durabilityKeepsTheSpellingsOlderConfigsUse() {
        KesConfig config = parse("elasticsearch: {hosts: [http://h:9200], durability: CHECKPOINT_FENCE}\n"
                + "kafka: {bootstrap_servers: localhost:9092}\nroutes: [{topics: [a], index: a}]");
        assertThat(config.sink.durability()).isEqualTo(io.kes.connector.Durability.CHECKPOINT_FENCE);
        assertThatThrownBy(() -> parse("elasticsearch: {hosts: [http://h:9200], durability: sometimes}\n"
                        + "kafka: {bootstrap_servers: localhost:9092}\nroutes: [{topics: [a], index: a}]"))
                .hasMessage("elasticsearch.durability must be checkpoint-fence or request, got 'sometimes'");
    }
}
