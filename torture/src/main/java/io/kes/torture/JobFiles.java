package io.kes.torture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The job's two files of one schedule: its kes config (routes) and its Flink configuration. */
final class JobFiles {

    /**
     * {@code elasticsearch.socket_timeout} of the tortured job: short, so that a held bulk
     * ({@link FaultKind#HELD_BULK}) or a pause makes kes give up on requests within a schedule.
     */
    static final Duration SOCKET_TIMEOUT = Duration.ofSeconds(5);

    /** {@code job.parallelism} a schedule's job starts at. */
    static final int PARALLELISM = 2;

    /**
     * The parallelism a {@link FaultKind#RESCALE rescale} restores the job at, and back from: with
     * {@code bulk.topology: auto}, chained at {@link #PARALLELISM}, keyed here.
     */
    static final int RESCALED_PARALLELISM = 4;

    private static final Pattern NAMED_TOPOLOGY = Pattern.compile("topology\\s*:\\s*([a-z]+)");

    private JobFiles() {}

    /**
     * The job's routes. On one node {@code primary_node_routing: false}: with it on, kes would read
     * the node's own address from {@code _nodes/http} and send bulks straight there, around the
     * proxy. On a cluster it is on, as users run it: bulks go to the primaries' nodes, so a stalled
     * node holds bulks and queues of its own, and a replica each lets its primaries move.
     * {@code socket_timeout}: {@link #SOCKET_TIMEOUT}.
     * Default bulk settings except {@code max_docs: 250} (unless {@code --bulk} says otherwise),
     * lowered so that this small stream still makes many concurrent bulks. {@code topology}: the
     * writers' ({@code bulk.topology}) unless {@code --bulk} names one; schedules alternate, so both
     * are tortured. {@code job.parallelism}: {@code parallelism}, written over the file at each start
     * as a user scaling a job edits it before restoring ({@link FaultKind#RESCALE}).
     */
    static Path writeJobConfig(
            Path dir, Names names, TortureServers servers, String bulk, String topology, int parallelism)
            throws IOException {
        if (namedTopology(bulk) == null) { // else it names this very topology
            String inner = bulk.trim().replaceAll("^\\{|\\}$", "").trim();
            bulk = "{" + (inner.isEmpty() ? "" : inner + ", ") + "topology: " + topology + "}";
        }
        String yaml = String.join(
                "\n",
                "elasticsearch:",
                "  hosts: [" + servers.proxy.url() + "]",
                "  primary_node_routing: " + servers.cluster(),
                "  socket_timeout: " + SOCKET_TIMEOUT.toSeconds() + "s",
                "kafka:",
                "  bootstrap_servers: " + servers.kafka.bootstrapServers(),
                "  group_id: " + names.group(),
                "  starting_offsets: earliest",
                "routes:",
                "  - topics: [" + names.deletes() + "]",
                "    index: " + names.deletes(),
                "    id: key",
                "    op: delete-on-tombstone",
                "    pipeline: " + names.deletesPipeline(),
                "    index_template: {shards: 3, replicas: " + servers.replicas() + "}",
                "  - topics: [" + names.upserts() + "]",
                "    index: " + names.upserts(),
                "    id: key",
                "    op: upsert",
                "    index_template: {shards: 3, replicas: " + servers.replicas() + "}",
                "  - topics: [" + names.appends() + "]",
                "    index: " + names.appends(),
                "    id: kafka",
                "    index_template: {shards: 2, replicas: " + servers.replicas() + "}",
                "  - topics: [" + names.events() + "]",
                "    data_stream: " + names.events(),
                "    index_template: {shards: 2, replicas: " + servers.replicas() + "}",
                "  - topics: [" + names.rolled() + "]",
                "    index: " + names.rolled(),
                "    id: kafka",
                "errors:",
                "  tolerance: all",
                "  dead_letter_topic: " + names.deadLetters(),
                "bulk: " + bulk,
                "retry:",
                "  max_backoff: 2s",
                "job:",
                "  name: " + names.prefix(),
                "  parallelism: " + parallelism,
                "");
        Path file = dir.resolve("job.yaml");
        Files.writeString(file, yaml);
        return file;
    }

    /** The writers' topology a schedule runs: the one {@code --bulk} names, else {@code alternate}. */
    static String topology(String bulk, String alternate) {
        String named = namedTopology(bulk);
        return named != null ? named : alternate;
    }

    private static String namedTopology(String bulk) {
        Matcher m = NAMED_TOPOLOGY.matcher(bulk);
        return m.find() ? m.group(1) : null;
    }

    /** checkpoints-config/local.yaml's keys, with a short interval and a checkpoint folder of this schedule's own. */
    static Path writeFlinkConf(Path dir, int restPort) throws IOException {
        String yaml = String.join(
                "\n",
                "rest.port: " + restPort, // the stop-savepoint fault stops the job through it
                "execution.checkpointing.interval: 2s",
                "execution.checkpointing.min-pause: 1s",
                "execution.checkpointing.timeout: 10min",
                "execution.checkpointing.max-concurrent-checkpoints: 1",
                "execution.checkpointing.mode: AT_LEAST_ONCE",
                "execution.checkpointing.externalized-checkpoint-retention: RETAIN_ON_CANCELLATION",
                "execution.checkpointing.num-retained: 3",
                "execution.checkpointing.dir: " + dir.resolve("checkpoints").toUri(),
                "state.backend.type: hashmap",
                "restart-strategy.type: fixed-delay",
                "restart-strategy.fixed-delay.attempts: 100000",
                "restart-strategy.fixed-delay.delay: 1s",
                "");
        Path file = dir.resolve("flink.yaml");
        Files.writeString(file, yaml);
        return file;
    }
}
