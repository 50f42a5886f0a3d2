package io.kes.jobs.config;

import java.io.IOException;
import java.io.Serializable;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;

/**
 * {@code index_template:} of a route: kes puts a composable index template for the route's
 * indices at start, so indices it causes to be created get these settings. Existing indices are
 * never changed; kes says so when their settings differ.
 *
 * @param shards             {@code shards}, default 1
 * @param replicas           {@code replicas}, default 1
 * @param refreshInterval    {@code refresh_interval}, default 1s
 * @param translogDurability {@code translog_durability}: async (default; kes's checkpoint fence makes it safe) or request
 * @param codec              {@code codec}: default or best_compression (ZSTD in current Elasticsearch)
 * @param mappingsJson       {@code mappings_file}: JSON of the {@code mappings} object, read at load time
 * @param dataStream         whether the template makes data streams
 */
public record IndexTemplateSettings(
        int shards,
        int replicas,
        String refreshInterval,
        String translogDurability,
        String codec,
        String mappingsJson,
        boolean dataStream)
        implements Serializable {

    static final Set<String> KEYS =
            Set.of("shards", "replicas", "refresh_interval", "translog_durability", "codec", "mappings_file");

    static IndexTemplateSettings from(ConfigNode node, boolean dataStream) {
        if (!node.isPresent()) {
            return null;
        }
        node.allowOnly(KEYS);
        String mappings = null;
        if (node.has("mappings_file")) {
            Path file = Path.of(node.string("mappings_file", null));
            try {
                mappings = Files.readString(file);
            } catch (IOException e) {
                throw new ConfigException(node.keyPath("mappings_file") + " " + file.toAbsolutePath()
                        + " cannot be read: " + e.getMessage());
            }
        }
        return new IndexTemplateSettings(
                node.integer("shards", 1, 1),
                node.integer("replicas", 1, 0),
                node.string("refresh_interval", "1s"),
                node.choice("translog_durability", "async", s -> s, Set.of("async", "request")),
                node.choice("codec", "default", s -> s, Set.of("default", "best_compression")),
                mappings,
                dataStream);
    }
}
