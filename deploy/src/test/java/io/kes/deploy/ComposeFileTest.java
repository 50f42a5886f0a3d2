package io.kes.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kes.jobs.config.KesConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** docker-compose.yml as `docker-compose config` resolves it, and the compose assets under deploy/compose. */
class ComposeFileTest {

    private static JsonNode resolved;

    /** docker-compose.yml resolved by `docker-compose config` (which needs no Docker engine); skips without docker-compose. */
    static synchronized JsonNode config() {
        if (resolved == null) {
            Tools.Result r = Tools.run(Tools.dockerCompose().toString(), "-f", "docker-compose.yml", "config");
            assertThat(r.exitCode())
                    .as("docker-compose config failed:\n%s", r.all())
                    .isZero();
            resolved = Tools.yaml(r.stdout());
        }
        return resolved;
    }

    static JsonNode service(String name) {
        JsonNode s = config().path("services").path(name);
        assertThat(s.isMissingNode()).as("service " + name).isFalse();
        return s;
    }

    /** The Flink configuration a Flink service gets through FLINK_PROPERTIES, as the image's entrypoint reads it. */
    static Map<String, String> flinkProperties(String service) {
        String text = service(service).at("/environment/FLINK_PROPERTIES").asText();
        assertThat(text).as(service + " FLINK_PROPERTIES").isNotBlank();
        Map<String, String> props = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            if (line.isBlank()) {
                continue;
            }
            assertThat(line)
                    .as("FLINK_PROPERTIES line (no comments: the entrypoint does not skip them)")
                    .doesNotStartWith("#")
                    .contains(": ");
            int colon = line.indexOf(':');
            props.put(
                    line.substring(0, colon).strip(), line.substring(colon + 1).strip());
        }
        return props;
    }

    record Mount(String source, String target, boolean namedVolume) {}

    /** Volumes of a service, from the short (docker-compose 1.x) or long (compose v2) syntax. */
    static List<Mount> mounts(String service) {
        List<Mount> mounts = new ArrayList<>();
        for (JsonNode v : service(service).path("volumes")) {
            if (v.isTextual()) {
                String[] parts = v.asText().split(":");
                String source = parts[0];
                mounts.add(new Mount(source, parts[1], !source.startsWith("/") && !source.startsWith(".")));
            } else {
                mounts.add(new Mount(
                        v.path("source").asText(),
                        v.path("target").asText(),
                        "volume".equals(v.path("type").asText())));
            }
        }
        return mounts;
    }

    @Test
    void dockerComposeConfigPasses() {
        assertThat(config().path("services").size()).isGreaterThanOrEqualTo(6);
        assertThat(config().path("services").has("jobmanager")).isTrue();
        assertThat(config().path("services").has("taskmanager")).isTrue();
    }

    @Test
    void everyImageIsPinnedToAVersion() {
        for (Map.Entry<String, JsonNode> e : config().path("services").properties()) {
            String image = e.getValue().path("image").asText();
            assertThat(image).as(e.getKey() + " has an image").isNotEmpty();
            String tag = image.substring(image.lastIndexOf('/') + 1);
            assertThat(tag).as(e.getKey() + ": " + image + " has a tag").contains(":");
            tag = tag.substring(tag.indexOf(':') + 1);
            assertThat(tag).as(e.getKey() + ": " + image).isNotEqualTo("latest").matches("v?\\d+\\.\\d+\\.\\d+.*");
        }
    }

    @Test
    void imagesRunTheVersionsTheBuildIsTestedWith() {
        assertThat(service("kafka").path("image").asText())
                .isEqualTo("apache/kafka:" + Tools.pomProperty("kafka.version"));
        String es = Tools.pomProperty("elasticsearch9.version");
        assertThat(service("elasticsearch").path("image").asText())
                .isEqualTo("docker.elastic.co/elasticsearch/elasticsearch:" + es);
        assertThat(service("kibana").path("image").asText()).isEqualTo("docker.elastic.co/kibana/kibana:" + es);
        String flink = "flink:" + Tools.pomProperty("flink.version") + "-scala_2.12-java17";
        assertThat(service("jobmanager").path("image").asText()).isEqualTo(flink);
        assertThat(service("taskmanager").path("image").asText()).isEqualTo(flink);
    }

    @Test
    void flinkPropertiesCarryTheSettingsOfLocalCheckpointsConfig() {
        Map<String, String> local = new HashMap<>(Tools.checkpointsConfig("local"));
        assertThat(local).containsKeys("execution.checkpointing.dir", "execution.checkpointing.savepoint-dir");
        local.remove("execution.checkpointing.dir");
        local.remove("execution.checkpointing.savepoint-dir");
        for (String s : List.of("jobmanager", "taskmanager")) {
            assertThat(flinkProperties(s)).as(s).containsAllEntriesOf(local);
        }
        assertThat(flinkProperties("jobmanager")).isEqualTo(flinkProperties("taskmanager"));
    }

    @Test
    void checkpointsAndSavepointsAreOnANamedVolumeOfJobManagerAndTaskManager() {
        Map<String, String> props = flinkProperties("jobmanager");
        String checkpoints = props.get("execution.checkpointing.dir");
        String savepoints = props.get("execution.checkpointing.savepoint-dir");
        assertThat(checkpoints).startsWith("file:///");
        assertThat(savepoints).startsWith("file:///");

        assertThat(config().path("volumes").has("flink-state"))
                .as("top-level named volume flink-state")
                .isTrue();
        for (String s : List.of("jobmanager", "taskmanager")) {
            Mount state = mounts(s).stream()
                    .filter(m -> m.source().equals("flink-state"))
                    .findFirst()
                    .orElseThrow(() -> new AssertionError(s + " does not mount flink-state"));
            assertThat(state.namedVolume()).isTrue();
            assertThat(checkpoints.substring("file://".length())).startsWith(state.target() + "/");
            assertThat(savepoints.substring("file://".length())).startsWith(state.target() + "/");
        }
        assertThat(service("jobmanager").at("/environment/KES_CHECKPOINT_DIR").asText())
                .isEqualTo(checkpoints.substring("file://".length()));
        assertThat(service("jobmanager").at("/environment/KES_SAVEPOINT_DIR").asText())
                .isEqualTo(savepoints.substring("file://".length()));
    }

    @Test
    void theJobIsSubmittedInApplicationModeWithTheMappingAsConfig() {
        JsonNode jm = service("jobmanager");
        List<String> entrypoint = new ArrayList<>();
        jm.path("entrypoint").forEach(n -> entrypoint.add(n.asText()));
        assertThat(entrypoint).containsExactly("bash", "/opt/kes/jobmanager.sh");

        Map<String, String> mounted = new HashMap<>();
        mounts("jobmanager").forEach(m -> mounted.put(m.target(), m.source()));
        assertThat(Path.of(mounted.get("/opt/kes/jobmanager.sh")))
                .isEqualTo(Tools.REPO.resolve("deploy/compose/jobmanager.sh"));
        assertThat(Path.of(mounted.get("/opt/kes/mapping.yaml")))
                .isEqualTo(Tools.REPO.resolve("deploy/compose/mapping.yaml"));
        assertThat(Path.of(mounted.get("/opt/flink/usrlib/kes-job.jar")))
                .isEqualTo(Tools.REPO.resolve("jobs/target/kes-job.jar"));
        assertThat(mounts("taskmanager")).anyMatch(m -> m.target().equals("/opt/flink/usrlib/kes-job.jar"));
        assertThat(jm.at("/environment/KES_CONFIG").asText()).isEqualTo("/opt/kes/mapping.yaml");

        List<String> command = jobManagerCommand(Map.of(
                "KES_CONFIG",
                "/opt/kes/mapping.yaml",
                "KES_CHECKPOINT_DIR",
                "/nonexistent",
                "KES_SAVEPOINT_DIR",
                "/nonexistent"));
        assertThat(command.get(0)).isEqualTo("standalone-job");
        assertThat(command)
                .containsSequence("--job-classname", "io.kes.jobs.KesJob")
                .doesNotContain("--fromSavepoint")
                .endsWith("--", "--config", "/opt/kes/mapping.yaml");
    }

    @Test
    void jobManagerRestoresTheNewestCompletedCheckpoint(@TempDir Path dir) throws Exception {
        Path job = dir.resolve("6b657300000000000000000000000000");
        Path chk7 = checkpoint(job, "chk-7", 1_000);
        Path chk8 = checkpoint(job, "chk-8", 2_000);
        Files.createDirectories(job.resolve("chk-9")); // in progress: no _metadata
        Files.createDirectories(job.resolve("shared"));
        Path otherJob = checkpoint(dir.resolve("0123456789abcdef0123456789abcdef"), "chk-3", 500);

        Path savepoints = Files.createDirectories(dir.resolve("savepoints"));
        Map<String, String> dirs =
                Map.of("KES_CHECKPOINT_DIR", "file://" + dir, "KES_SAVEPOINT_DIR", "file://" + savepoints);

        List<String> command = jobManagerCommand(dirs);
        assertThat(command).containsSequence("--fromSavepoint", chk8.toString());
        assertThat(command)
                .doesNotContain(
                        chk7.toString(),
                        otherJob.toString(),
                        job.resolve("chk-9").toString());
        assertThat(command).containsSequence("--job-id", "6b657300000000000000000000000000");

        // `flink stop` left a savepoint newer than the last checkpoint: that is where the job stopped.
        Path stopped = savepoints.resolve("savepoint-6b6573-0123456789ab");
        Files.createDirectories(stopped);
        Files.setLastModifiedTime(
                Files.writeString(stopped.resolve("_metadata"), "x"), FileTime.from(Instant.ofEpochSecond(3_000)));
        assertThat(jobManagerCommand(dirs)).containsSequence("--fromSavepoint", stopped.toString());

        List<String> explicit = jobManagerCommand(Map.of(
                "KES_CHECKPOINT_DIR",
                dir.toString(),
                "KES_SAVEPOINT_DIR",
                savepoints.toString(),
                "KES_RESTORE_PATH",
                "file:///flink-data/savepoints/savepoint-6b6573-aaaa"));
        assertThat(explicit).containsSequence("--fromSavepoint", "file:///flink-data/savepoints/savepoint-6b6573-aaaa");

        List<String> fresh = jobManagerCommand(Map.of(
                "KES_CHECKPOINT_DIR",
                dir.toString(),
                "KES_SAVEPOINT_DIR",
                savepoints.toString(),
                "KES_RESTORE_LATEST",
                "false"));
        assertThat(fresh).doesNotContain("--fromSavepoint");
    }

    private static Path checkpoint(Path jobDir, String name, long epochSecond) throws Exception {
        Path chk = Files.createDirectories(jobDir.resolve(name));
        Path metadata = Files.writeString(chk.resolve("_metadata"), "x");
        Files.setLastModifiedTime(metadata, FileTime.from(Instant.ofEpochSecond(epochSecond)));
        return chk;
    }

    /** The arguments deploy/compose/jobmanager.sh passes to the Flink image's entrypoint (its dry run). */
    private static List<String> jobManagerCommand(Map<String, String> env) {
        Map<String, String> all = new HashMap<>(env);
        all.put("KES_DRY_RUN", "1");
        Tools.Result r = Tools.run(all, Tools.bash().toString(), "deploy/compose/jobmanager.sh");
        assertThat(r.exitCode()).as(r.all()).isZero();
        return r.stdout().lines().filter(l -> !l.startsWith("[kes]")).toList();
    }

    @Test
    void composeMappingPointsAtTheComposeServicesAndLoads() {
        String mapping = Tools.read("deploy/compose/mapping.yaml");
        KesConfig kes = KesConfig.parse(withSecretsOfTheRepository(mapping), Map.of());
        assertThat(kes.kafka.bootstrapServers()).isEqualTo("kafka:9095");
        assertThat(mapping).contains("http://elasticsearch:9200");
        assertThat(config().path("services").has("kafka")).isTrue();
        assertThat(config().path("services").has("elasticsearch")).isTrue();
        assertThat(kes.job.checkpointInterval())
                .as("the compose stack's Flink configuration sets the interval")
                .isNull();
        assertThat(kes.job.parallelism())
                .isLessThanOrEqualTo(
                        Integer.parseInt(flinkProperties("taskmanager").get("taskmanager.numberOfTaskSlots")));
    }

    /** The mapping as the jobmanager reads it: /run/secrets/<name> is the compose secret's file. */
    private static String withSecretsOfTheRepository(String mapping) {
        return mapping.replace("${file:/run/secrets/", "${file:" + Tools.REPO.resolve("deploy/compose/secrets") + "/");
    }

    /** The names of the compose secrets a service mounts (short or long syntax). */
    static List<String> secrets(String service) {
        List<String> names = new ArrayList<>();
        service(service)
                .path("secrets")
                .forEach(s ->
                        names.add(s.isTextual() ? s.asText() : s.path("source").asText()));
        return names;
    }

    /**
     * Every credential of the mapping is a compose secret's file, mounted in both Flink services;
     * the job logs in to Kafka with SCRAM-SHA-512 on a SASL listener whose user the kafka-users
     * service creates from the same secret before the job starts.
     */
    @Test
    void credentialsAreComposeSecretsMountedAsFilesWhereTheMappingReadsThem() throws Exception {
        String mapping = Tools.read("deploy/compose/mapping.yaml");
        List<String> referenced = new ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\$\\{file:/run/secrets/([^}]+)}")
                .matcher(mapping);
        while (m.find()) {
            referenced.add(m.group(1));
        }
        assertThat(referenced).containsExactlyInAnyOrder("es-password", "kafka-password");
        for (String name : referenced) {
            Path file = Path.of(config().at("/secrets/" + name + "/file").asText());
            assertThat(file)
                    .as("compose secret " + name)
                    .isEqualTo(Tools.REPO.resolve("deploy/compose/secrets/" + name));
            assertThat(Files.readString(file).strip()).as(name).isNotEmpty();
            assertThat(secrets("jobmanager")).as("jobmanager secrets").contains(name);
            assertThat(secrets("taskmanager")).as("taskmanager secrets").contains(name);
        }
        assertThat(mapping).as("no credential inline").doesNotContainPattern("(?m)^\\s*password:\\s*[^$\\s]");

        Map<String, String> kafka = KesConfig.parse(withSecretsOfTheRepository(mapping), Map.of())
                .kafka
                .properties();
        assertThat(kafka)
                .containsEntry("security.protocol", "SASL_PLAINTEXT")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512");
        String password = Files.readString(Tools.REPO.resolve("deploy/compose/secrets/kafka-password"))
                .strip();
        assertThat(kafka.get("sasl.jaas.config"))
                .isEqualTo("org.apache.kafka.common.security.scram.ScramLoginModule required "
                        + "username=\"kes\" password=\"" + password + "\";");

        JsonNode broker = service("kafka").path("environment");
        assertThat(broker.path("KAFKA_LISTENERS").asText()).contains("SASL://:9095");
        assertThat(broker.path("KAFKA_ADVERTISED_LISTENERS").asText()).contains("SASL://kafka:9095");
        assertThat(broker.path("KAFKA_LISTENER_SECURITY_PROTOCOL_MAP").asText()).contains("SASL:SASL_PLAINTEXT");
        assertThat(broker.path("KAFKA_SASL_ENABLED_MECHANISMS").asText()).isEqualTo("SCRAM-SHA-512");
        assertThat(Tools.read("deploy/compose/kafka_server_jaas.conf"))
                .contains("KafkaServer {", "ScramLoginModule required;");
        assertThat(mounts("kafka"))
                .anyMatch(v -> broker.path("KAFKA_OPTS").asText().endsWith("=" + v.target())
                        && Path.of(v.source()).equals(Tools.REPO.resolve("deploy/compose/kafka_server_jaas.conf")));

        assertThat(secrets("kafka-users")).containsExactly("kafka-password");
        assertThat(service("kafka-users").path("entrypoint").toString())
                .contains(
                        "--entity-type users --entity-name kes",
                        "SCRAM-SHA-512=[password=",
                        "/run/secrets/kafka-password");
        assertThat(service("jobmanager").at("/depends_on/kafka-users/condition").asText())
                .isEqualTo("service_completed_successfully");
        assertThat(service("elasticsearch")
                        .at("/environment/ELASTIC_PASSWORD_FILE")
                        .asText())
                .isEqualTo("/run/secrets/es-password");
        assertThat(secrets("elasticsearch")).containsExactly("es-password");
    }

    @Test
    void elasticsearchIsSingleNodeWithoutSecurityAndHasAHealthcheck() {
        JsonNode es = service("elasticsearch");
        assertThat(es.at("/environment/discovery.type").asText()).isEqualTo("single-node");
        assertThat(es.at("/environment/xpack.security.enabled").asText()).isEqualTo("false");
        assertThat(es.at("/healthcheck/test").toString()).contains("_cluster/health");
        assertThat(service("jobmanager")
                        .at("/depends_on/elasticsearch/condition")
                        .asText())
                .isEqualTo("service_healthy");
        assertThat(service("kafka").at("/environment/KAFKA_PROCESS_ROLES").asText())
                .isEqualTo("broker,controller");
    }

    @Test
    void prometheusScrapesTheFlinkReporterAndTheDashboardShowsTheKesMetrics() {
        String port = flinkProperties("jobmanager").get("metrics.reporter.prom.port");
        assertThat(flinkProperties("jobmanager"))
                .containsEntry(
                        "metrics.reporter.prom.factory.class",
                        "org.apache.flink.metrics.prometheus.PrometheusReporterFactory");
        JsonNode prometheus = Tools.yaml(Tools.read("deploy/compose/prometheus.yml"));
        assertThat(prometheus.toString()).contains("jobmanager:" + port).contains("\"port\":" + port);

        JsonNode dashboard = Tools.yaml(Tools.read("deploy/compose/grafana/dashboards/kes.json"));
        StringBuilder exprs = new StringBuilder();
        dashboard
                .path("panels")
                .forEach(p -> p.path("targets")
                        .forEach(t -> exprs.append(t.path("expr").asText()).append('\n')));
        for (String metric : List.of(
                "numRecordsSend",
                "kes_bulksSent",
                "kes_bulkLatencyMs",
                "kes_itemRetriesRejected",
                "kes_itemRetriesUnavailable",
                "kes_requestRetries",
                "kes_permanentFailures",
                "pendingRecords",
                "kes_inFlightBulks",
                "kes_bufferedDocs",
                "kes_docsWithUnknownShard")) {
            assertThat(exprs.toString()).as("the dashboard queries " + metric).contains(metric);
        }
        assertThat(Tools.yaml(Tools.read("deploy/compose/grafana/provisioning/datasources/prometheus.yaml"))
                        .at("/datasources/0/uid")
                        .asText())
                .isEqualTo(dashboard.at("/panels/0/datasource/uid").asText());
    }
}
