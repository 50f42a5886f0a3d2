package io.kes.jobs.restore;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.kes.jobs.config.ConfigException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;

/**
 * A Flink configuration file such as {@code checkpoints-config/local.yaml} (flat Flink 2.x keys),
 * applied to the embedded MiniCluster of {@code bin/kes run}. On a real cluster the same keys go
 * into Flink's own {@code config.yaml}.
 */
public record FlinkConf(Configuration configuration) {

    public static final Path LOCAL_DEFAULT = Path.of("checkpoints-config/local.yaml");

    public static FlinkConf load(Path file) {
        if (!Files.isRegularFile(file)) {
            throw new ConfigException("Flink configuration " + file.toAbsolutePath() + " does not exist");
        }
        try {
            JsonNode root = new ObjectMapper(new YAMLFactory()).readTree(file.toFile());
            Configuration conf = new Configuration();
            if (root != null) {
                for (Map.Entry<String, JsonNode> e : root.properties()) {
                    conf.setString(e.getKey(), e.getValue().asText());
                }
            }
            return new FlinkConf(conf);
        } catch (IOException e) {
            throw new ConfigException("cannot read Flink configuration " + file + ": " + e.getMessage(), e);
        }
    }

    public String checkpointDir() {
        String dir = configuration.get(CheckpointingOptions.CHECKPOINTS_DIRECTORY);
        if (dir == null) {
            throw new ConfigException(
                    CheckpointingOptions.CHECKPOINTS_DIRECTORY.key() + " is not set in the Flink configuration: "
                            + "restoring the latest checkpoint needs to know where they are");
        }
        return dir;
    }
}
