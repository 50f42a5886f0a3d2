package io.kes.connector.exchange;

import io.kes.connector.IndexNameTemplate;
import io.kes.connector.SinkSettings;
import io.kes.connector.cluster.ClusterMetadataClient;
import io.kes.connector.cluster.IndexMetadata;
import io.kes.connector.cluster.RestClients;
import java.util.List;
import org.elasticsearch.client.RestClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The most shards any of a job's targets writes to, read once while the job's graph is built, for
 * {@code bulk.topology: auto}: keyed writers buffer each shard once instead of once per writer,
 * which pays only where a target has several shards; with one shard every writer buffers it either
 * way and the exchange is a cost with nothing to gain (measured at 8 writers on a 1-shard index:
 * keyed 0.77x chained's docs/s).
 */
final class TargetShards {

    /** Some target is not known: a name template, an index that does not exist yet, a failed read. */
    static final int UNKNOWN = -1;

    private static final Logger LOG = LoggerFactory.getLogger(TargetShards.class);

    private TargetShards() {}

    /**
     * The most shards of {@code targets}' write indices; {@link #UNKNOWN} when one is not known (a
     * name template's indices are known only once records name them).
     */
    static int mostOf(SinkSettings settings, List<String> targets) {
        if (targets.isEmpty()
                || targets.stream().anyMatch(t -> !IndexNameTemplate.parse(t).isLiteral())) {
            return UNKNOWN;
        }
        try (RestClient client = RestClients.create(settings)) {
            ClusterMetadataClient cluster = new ClusterMetadataClient(client);
            int most = 0;
            for (String target : targets) {
                String index = cluster.writeIndex(target).orElse(target); // an index is its own write index
                IndexMetadata metadata = cluster.indices(List.of(index)).get(index);
                if (metadata == null) {
                    return UNKNOWN;
                }
                most = Math.max(most, metadata.numberOfShards());
            }
            return most;
        } catch (Exception e) {
            LOG.info(
                    "Could not read how many shards {} have ({}): bulk.topology auto decides by the number of writers alone",
                    targets,
                    e.toString());
            return UNKNOWN;
        }
    }
}
