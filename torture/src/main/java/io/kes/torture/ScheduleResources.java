package io.kes.torture;

import io.kes.stack.Http;
import io.kes.stack.KafkaBroker;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * What one schedule writes to, made fresh before its job starts under names of its own
 * ({@link Names}): six topics, the first index of the rolled alias and the deletes route's ingest
 * pipeline (the job's routes create the other indices and the data stream).
 */
final class ScheduleResources {

    private final TortureServers servers;
    private final Names names;

    ScheduleResources(TortureServers servers, Names names) {
        this.servers = servers;
        this.names = names;
    }

    private Http es() {
        return servers.node.http();
    }

    /** Topics ({@code keyedPartitions} for the keyed ones), the rolled alias on {@code shards} shards, the pipeline. */
    void create(int keyedPartitions, int shards) throws IOException {
        createTopics(keyedPartitions);
        createRolledAlias(shards);
        createDeletesPipeline();
    }

    private void createTopics(int keyedPartitions) {
        List<NewTopic> topics = new ArrayList<>();
        topics.add(new NewTopic(names.deletes(), keyedPartitions, (short) 1));
        topics.add(new NewTopic(names.upserts(), keyedPartitions, (short) 1));
        topics.add(new NewTopic(names.appends(), 3, (short) 1));
        topics.add(new NewTopic(names.events(), 3, (short) 1));
        topics.add(new NewTopic(names.rolled(), 3, (short) 1));
        topics.add(new NewTopic(names.deadLetters(), 1, (short) 1));
        KafkaBroker.createTopicsAt(servers.kafka.bootstrapServers(), topics);
    }

    private void createRolledAlias(int shards) throws IOException {
        es().send(
                        "PUT",
                        "/" + names.rolled() + "-000001",
                        "{\"settings\":" + indexSettings(shards, servers.replicas()) + ",\"aliases\":{\""
                                + names.rolled() + "\":{\"is_write_index\":true}}}")
                .requireOk("creating " + names.rolled() + "-000001");
    }

    /**
     * The deletes route's pipeline. Where the engine has ingest processors (OpenSearch 3.x with
     * the build's ingest-common), one kes flags as "may move documents" (a templated field name)
     * while it changes nothing: a {@code remove} of a field no document has. The final state is
     * checked byte for byte, so the pipeline must leave the source as it is. Elsewhere an empty one.
     */
    private void createDeletesPipeline() throws IOException {
        String processors = servers.node.engine() == io.kes.stack.Engine.OPENSEARCH
                ? "[{\"remove\":{\"field\":\"absent{{no_such_field}}\",\"ignore_missing\":true}}]"
                : "[]";
        es().send(
                        "PUT",
                        "/_ingest/pipeline/" + names.deletesPipeline(),
                        "{\"description\":\"kes torture: flagged, changes nothing\"," + "\"processors\":" + processors
                                + "}")
                .requireOk("creating pipeline " + names.deletesPipeline());
    }

    /** As kes's index templates set them: async translog (the checkpoint fence makes writes durable). */
    static String indexSettings(int shards, int replicas) {
        return "{\"index.number_of_shards\":" + shards + ",\"index.number_of_replicas\":" + replicas + ","
                + "\"index.translog.durability\":\"async\",\"index.refresh_interval\":\"1s\"}";
    }

    /**
     * Deletes them all (the schedule passed: nothing to inspect); a failure is only printed to
     * {@code out}, as leftovers of one schedule do not disturb the next (its names are its own).
     */
    void delete(PrintStream out) {
        try {
            es().send("DELETE", "/_data_stream/" + names.events(), null);
            es().send("DELETE", "/" + names.prefix() + "-*?expand_wildcards=all", null);
            es().send("DELETE", "/_ingest/pipeline/" + names.deletesPipeline(), null);
            try (var admin = servers.kafka.admin()) {
                admin.deleteTopics(List.of(
                        names.deletes(),
                        names.upserts(),
                        names.appends(),
                        names.events(),
                        names.rolled(),
                        names.deadLetters()));
            }
        } catch (IOException | RuntimeException e) {
            out.println("  (clean-up of " + names.prefix() + " failed: " + e + ")");
        }
    }
}
