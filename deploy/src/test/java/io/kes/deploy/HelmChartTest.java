package io.kes.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.kes.jobs.config.KesConfig;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** helm/kes, rendered with `helm template` and read back as YAML. */
class HelmChartTest {

    static final String CHART = "helm/kes";
    static final String PRODUCTION_VALUES = "helm/kes/ci/production-values.yaml";
    static final String SECURED_VALUES = "helm/kes/ci/secured-values.yaml";

    /** helm template with the given extra arguments; fails the test when the render fails. */
    static List<JsonNode> render(String... args) {
        Tools.Result r = template(args);
        assertThat(r.exitCode()).as("helm template failed:\n%s", r.all()).isZero();
        return Tools.yamlDocuments(r.stdout());
    }

    static Tools.Result template(String... args) {
        List<String> cmd =
                new ArrayList<>(List.of(Tools.helm().toString(), "template", "kes", CHART, "--namespace", "streaming"));
        cmd.addAll(List.of(args));
        return Tools.run(cmd.toArray(String[]::new));
    }

    static List<JsonNode> ofKind(List<JsonNode> docs, String kind) {
        return docs.stream().filter(d -> kind.equals(d.path("kind").asText())).toList();
    }

    static JsonNode flinkDeployment(List<JsonNode> docs) {
        List<JsonNode> fds = ofKind(docs, "FlinkDeployment");
        assertThat(fds).as("FlinkDeployments rendered").hasSize(1);
        return fds.get(0);
    }

    static JsonNode mainContainer(JsonNode fd) {
        JsonNode containers = fd.at("/spec/podTemplate/spec/containers");
        for (JsonNode c : containers) {
            if ("flink-main-container".equals(c.path("name").asText())) {
                return c;
            }
        }
        throw new AssertionError("no flink-main-container in the pod template: " + containers);
    }

    static Map<String, JsonNode> envByName(JsonNode container) {
        Map<String, JsonNode> env = new HashMap<>();
        container.path("env").forEach(e -> env.put(e.path("name").asText(), e));
        return env;
    }

    @Test
    void helmLintPassesOnTheDefaultValues() {
        Tools.Result r = Tools.run(Tools.helm().toString(), "lint", "--strict", CHART);
        assertThat(r.exitCode()).as(r.all()).isZero();
        assertThat(r.all()).contains("0 chart(s) failed");
    }

    @Test
    void helmLintPassesOnTheProductionValues() {
        Tools.Result r = Tools.run(Tools.helm().toString(), "lint", "--strict", CHART, "-f", PRODUCTION_VALUES);
        assertThat(r.exitCode()).as(r.all()).isZero();
    }

    @Test
    void helmLintPassesOnTheSecuredValues() {
        Tools.Result r = Tools.run(Tools.helm().toString(), "lint", "--strict", CHART, "-f", SECURED_VALUES);
        assertThat(r.exitCode()).as(r.all()).isZero();
    }

    /**
     * secured-values.yaml: the Elasticsearch API key and CA, the Kafka SCRAM password and CA come
     * from two existing Secrets mounted read-only as files, and every path the mapping reads
     * (${file:...}, tls_ca_file, ssl.truststore.location) lies in one of those mounts, in the pods
     * of both JobManager and TaskManagers (the one pod template); nothing comes through the
     * environment; the mapping loads with the job's own loader once the files are there.
     */
    @Test
    void securedValuesMountTheSecretsAsFilesWhereTheMappingReadsThem(@TempDir Path dir) throws Exception {
        List<JsonNode> docs = render("-f", SECURED_VALUES);
        assertThat(ofKind(docs, "Secret")).as("the chart creates no Secret").isEmpty();
        JsonNode fd = flinkDeployment(docs);
        assertThat(fd.at("/spec/jobManager/podTemplate").isMissingNode()
                        && fd.at("/spec/taskManager/podTemplate").isMissingNode())
                .as("one pod template for JobManager and TaskManagers")
                .isTrue();

        Map<String, String> secretOfVolume = new HashMap<>();
        fd.at("/spec/podTemplate/spec/volumes").forEach(v -> {
            if (v.has("secret")) {
                secretOfVolume.put(
                        v.path("name").asText(), v.at("/secret/secretName").asText());
            }
        });
        Map<String, String> secretAtPath = new HashMap<>();
        mainContainer(fd).path("volumeMounts").forEach(m -> {
            String secret = secretOfVolume.get(m.path("name").asText());
            if (secret != null) {
                assertThat(m.path("readOnly").asBoolean())
                        .as(m + " is read-only")
                        .isTrue();
                secretAtPath.put(m.path("mountPath").asText(), secret);
            }
        });
        assertThat(secretAtPath)
                .isEqualTo(Map.of(
                        "/etc/kes/secrets/elasticsearch", "kes-elasticsearch", "/etc/kes/secrets/kafka", "kes-kafka"));
        assertThat(mainContainer(fd).path("env").toString())
                .as("no credential in the environment")
                .doesNotContain("secretKeyRef");

        String mapping =
                ofKind(docs, "ConfigMap").get(0).at("/data/mapping.yaml").asText();
        List<String> read = new ArrayList<>();
        Matcher m = Pattern.compile("\\$\\{file:([^}]+)}|(?:tls_ca_file|ssl\\.truststore\\.location):\\s*(\\S+)")
                .matcher(mapping);
        while (m.find()) {
            read.add(m.group(1) != null ? m.group(1) : m.group(2));
        }
        assertThat(read)
                .containsExactlyInAnyOrder(
                        "/etc/kes/secrets/elasticsearch/api-key",
                        "/etc/kes/secrets/elasticsearch/ca.crt",
                        "/etc/kes/secrets/kafka/password",
                        "/etc/kes/secrets/kafka/ca.crt");
        assertThat(read)
                .allSatisfy(path -> assertThat(secretAtPath.keySet()).anyMatch(mount -> path.startsWith(mount + "/")));

        // The Secrets' keys as kubelet writes them, under a temporary root instead of /etc/kes/secrets.
        for (String path : read) {
            Path file = dir.resolve(path.substring("/etc/kes/secrets/".length()));
            Files.createDirectories(file.getParent());
            Files.writeString(file, "from-" + file.getFileName() + "\n");
        }
        KesConfig config = KesConfig.parse(mapping.replace("/etc/kes/secrets/", dir + "/"), Map.of());
        assertThat(config.kafka.properties().get("sasl.jaas.config"))
                .endsWith("username=\"kes\" password=\"from-password\";");
        assertThat(config.kafka.properties())
                .containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("ssl.truststore.location", dir + "/kafka/ca.crt");
    }

    @Test
    void renderedFlinkDeploymentCarriesTheCheckpointSettingsOfCheckpointsConfig() {
        Map<String, String> production = Tools.checkpointsConfig("production");
        Map<String, String> rendered = Tools.flatMap(flinkDeployment(render()).at("/spec/flinkConfiguration"));

        assertThat(production)
                .containsKeys(
                        "execution.checkpointing.interval",
                        "execution.checkpointing.dir",
                        "execution.checkpointing.savepoint-dir",
                        "execution.checkpointing.externalized-checkpoint-retention");
        assertThat(rendered).containsAllEntriesOf(production);
    }

    @Test
    void productionValuesKeepTheCheckpointSettingsAndUseTheirOwnStorage() {
        Map<String, String> production = new HashMap<>(Tools.checkpointsConfig("production"));
        production.remove("execution.checkpointing.dir");
        production.remove("execution.checkpointing.savepoint-dir");
        Map<String, String> rendered =
                Tools.flatMap(flinkDeployment(render("-f", PRODUCTION_VALUES)).at("/spec/flinkConfiguration"));

        assertThat(rendered).containsAllEntriesOf(production);
        assertThat(rendered)
                .containsEntry("execution.checkpointing.dir", "s3://acme-flink/kes/checkpoints")
                .containsEntry("execution.checkpointing.savepoint-dir", "s3://acme-flink/kes/savepoints")
                .containsEntry("high-availability.storageDir", "s3://acme-flink/kes/ha")
                .containsEntry("kubernetes.operator.periodic.savepoint.interval", "6h");
    }

    @Test
    void flinkConfigurationValuesAreStringsAsFlinkWritesThem() {
        JsonNode conf =
                flinkDeployment(render("--set", "taskManager.taskSlots=4")).at("/spec/flinkConfiguration");
        for (Map.Entry<String, JsonNode> e : conf.properties()) {
            assertThat(e.getValue().isTextual()).as(e.getKey() + " is a string").isTrue();
        }
        assertThat(conf.path("taskmanager.numberOfTaskSlots").asText()).isEqualTo("4");
        assertThat(conf.path("restart-strategy.exponential-delay.attempts-before-reset-backoff")
                        .asText())
                .isEqualTo("1000000");
        assertThat(conf.path("restart-strategy.exponential-delay.backoff-multiplier")
                        .asText())
                .isEqualTo("2.0");
    }

    @Test
    void jobRunsKesJobInApplicationModeOnAFlink2Image() {
        JsonNode fd = flinkDeployment(render());
        assertThat(fd.path("apiVersion").asText()).isEqualTo("flink.apache.org/v1beta1");
        assertThat(fd.at("/spec/flinkVersion").asText()).isEqualTo("v2_2");
        assertThat(fd.at("/spec/image").asText()).isEqualTo("kes:0.1.0");
        assertThat(fd.at("/spec/job/jarURI").asText()).isEqualTo("local:///opt/flink/usrlib/kes-job.jar");
        assertThat(fd.at("/spec/job/entryClass").asText()).isEqualTo("io.kes.jobs.KesJob");
        assertThat(Files.isRegularFile(Tools.REPO.resolve("jobs/src/main/java/io/kes/jobs/KesJob.java")))
                .isTrue();
        assertThat(fd.at("/spec/job/parallelism").asInt()).isEqualTo(2);
        assertThat(fd.at("/spec/job/state").asText()).isEqualTo("running");
        assertThat(fd.at("/spec/jobManager/resource/memory").asText()).isEqualTo("1600m");
        assertThat(fd.at("/spec/taskManager/resource/cpu").asInt()).isEqualTo(2);
        assertThat(Tools.read("deploy/docker/Dockerfile"))
                .contains("/opt/flink/usrlib/kes-job.jar")
                .contains("FROM flink:" + Tools.pomProperty("flink.version") + "-");
    }

    @Test
    void mappingConfigMapHoldsTheMappingAndIsMountedWhereTheJobReadsIt() {
        List<JsonNode> docs = render();
        JsonNode fd = flinkDeployment(docs);
        List<JsonNode> configMaps = ofKind(docs, "ConfigMap");
        assertThat(configMaps).hasSize(1);
        JsonNode cm = configMaps.get(0);

        String valuesMapping =
                Tools.yaml(Tools.read("helm/kes/values.yaml")).path("mapping").asText();
        assertThat(cm.at("/data/mapping.yaml").asText().strip()).isEqualTo(valuesMapping.strip());

        List<String> args = StreamSupport.stream(fd.at("/spec/job/args").spliterator(), false)
                .map(JsonNode::asText)
                .toList();
        assertThat(args).containsSequence("--config", "/opt/kes/mapping.yaml");

        JsonNode volume = StreamSupport.stream(
                        fd.at("/spec/podTemplate/spec/volumes").spliterator(), false)
                .filter(v -> v.at("/configMap/name")
                        .asText()
                        .equals(cm.at("/metadata/name").asText()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the mapping ConfigMap is not a pod volume"));
        JsonNode mount = StreamSupport.stream(
                        mainContainer(fd).path("volumeMounts").spliterator(), false)
                .filter(m -> m.path("name").asText().equals(volume.path("name").asText()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("the mapping volume is not mounted"));
        assertThat(mount.path("mountPath").asText() + "/"
                        + volume.at("/configMap/items/0/path").asText())
                .isEqualTo("/opt/kes/mapping.yaml");
    }

    @Test
    void aChangedMappingChangesThePodTemplateSoTheOperatorUpgradesTheJob() {
        String before = flinkDeployment(render())
                .at("/spec/podTemplate/metadata/annotations")
                .toString();
        String after = flinkDeployment(render("--set-string", "mapping=kafka: {}"))
                .at("/spec/podTemplate/metadata/annotations")
                .toString();
        assertThat(after).isNotEqualTo(before);
    }

    @Test
    void upgradeModeIsLastStateWithKubernetesHighAvailabilityByDefault() {
        JsonNode fd = flinkDeployment(render());
        assertThat(fd.at("/spec/job/upgradeMode").asText()).isEqualTo("last-state");
        assertThat(fd.at("/spec/job/initialSavepointPath").isMissingNode())
                .as("no restore path by default")
                .isTrue();
        Map<String, String> conf = Tools.flatMap(fd.at("/spec/flinkConfiguration"));
        assertThat(conf)
                .containsEntry("high-availability.type", "kubernetes")
                .containsEntry("high-availability.storageDir", "s3://my-bucket/kes/ha");
    }

    @Test
    void lastStateWithoutHighAvailabilityIsRejected() {
        Tools.Result r = template("--set", "highAvailability.enabled=false");
        assertThat(r.exitCode()).isNotZero();
        assertThat(r.stderr()).contains("last-state needs highAvailability.enabled");

        JsonNode fd = flinkDeployment(
                render("--set", "highAvailability.enabled=false", "--set", "job.upgradeMode=savepoint"));
        assertThat(fd.at("/spec/flinkConfiguration").has("high-availability.type"))
                .isFalse();
    }

    @Test
    void initialSavepointPathIsPassedToTheOperatorForRestores() {
        String path = "s3://my-bucket/kes/checkpoints/6b657300000000000000000000000000/chk-42";
        JsonNode fd = flinkDeployment(render("--set", "job.initialSavepointPath=" + path));
        assertThat(fd.at("/spec/job/initialSavepointPath").asText()).isEqualTo(path);
        assertThat(flinkDeployment(render("-f", PRODUCTION_VALUES))
                        .at("/spec/job/initialSavepointPath")
                        .asText())
                .endsWith("/chk-1200");
    }

    @Test
    void credentialsAreReferencedFromExistingSecretsNeverInlined() {
        for (List<JsonNode> docs : List.of(render(), render("-f", PRODUCTION_VALUES))) {
            assertThat(ofKind(docs, "Secret")).as("the chart creates no Secret").isEmpty();
            JsonNode fd = flinkDeployment(docs);
            Map<String, JsonNode> env = envByName(mainContainer(fd));
            String mapping =
                    ofKind(docs, "ConfigMap").get(0).at("/data/mapping.yaml").asText();

            List<String> referenced = Tools.envReferences(mapping);
            assertThat(referenced)
                    .as("the mapping takes its credentials from the environment")
                    .isNotEmpty();
            for (String var : referenced) {
                assertThat(env)
                        .as("%s, referenced by the mapping, is set in the pods", var)
                        .containsKey(var);
                JsonNode ref = env.get(var).at("/valueFrom/secretKeyRef");
                assertThat(ref.isMissingNode())
                        .as("%s comes from a Secret", var)
                        .isFalse();
                assertThat(ref.path("name").asText()).isNotEmpty();
                assertThat(env.get(var).has("value"))
                        .as("%s has no inline value", var)
                        .isFalse();
            }
            assertThat(mapping).doesNotContainPattern("(?m)^\\s*(password|api_key):\\s*[^$\\s]");
        }
    }

    @Test
    void productionValuesTakeEachCredentialFromItsOwnSecret() {
        JsonNode fd = flinkDeployment(render("-f", PRODUCTION_VALUES));
        Map<String, String> secretOf = envByName(mainContainer(fd)).entrySet().stream()
                .filter(e -> e.getValue().has("valueFrom"))
                .collect(Collectors.toMap(
                        Map.Entry::getKey,
                        e -> e.getValue().at("/valueFrom/secretKeyRef/name").asText()));
        assertThat(secretOf)
                .containsEntry("ES_API_KEY", "kes-elasticsearch")
                .containsEntry("KAFKA_SASL_JAAS_CONFIG", "kes-kafka")
                .containsEntry("AWS_ACCESS_KEY_ID", "kes-s3")
                .containsEntry("AWS_SECRET_ACCESS_KEY", "kes-s3")
                .doesNotContainKeys("ES_PASSWORD", "ES_USERNAME");
    }

    @Test
    void mappingsOfTheChartLoadWithTheJobsConfigLoader() {
        for (String values : List.of("helm/kes/values.yaml", PRODUCTION_VALUES)) {
            String mapping = Tools.yaml(Tools.read(values)).path("mapping").asText();
            Map<String, String> env = new HashMap<>();
            Tools.envReferences(mapping).forEach(v -> env.put(v, "secret-from-" + v));
            KesConfig config = KesConfig.parse(mapping, env);
            assertThat(config.routes).as(values).isNotEmpty();
            assertThat(config.job.checkpointInterval())
                    .as("%s must leave job.checkpoint_interval unset so the chart's checkpointing applies", values)
                    .isNull();
        }
    }

    @Test
    void prometheusReporterIsConfiguredOnANamedPort() {
        JsonNode fd = flinkDeployment(render());
        Map<String, String> conf = Tools.flatMap(fd.at("/spec/flinkConfiguration"));
        assertThat(conf)
                .containsEntry(
                        "metrics.reporter.prom.factory.class",
                        "org.apache.flink.metrics.prometheus.PrometheusReporterFactory")
                .containsEntry("metrics.reporter.prom.port", "9249");
        JsonNode port = mainContainer(fd).path("ports").get(0);
        assertThat(port.path("name").asText()).isEqualTo("metrics");
        assertThat(port.path("containerPort").asInt()).isEqualTo(9249);
    }

    @Test
    void podMonitorRendersOnlyWhenEnabledAndSelectsThePods() {
        assertThat(ofKind(render(), "PodMonitor")).isEmpty();

        List<JsonNode> docs = render("--set", "metrics.podMonitor.enabled=true");
        List<JsonNode> monitors = ofKind(docs, "PodMonitor");
        assertThat(monitors).hasSize(1);
        JsonNode pm = monitors.get(0);
        assertThat(pm.path("apiVersion").asText()).isEqualTo("monitoring.coreos.com/v1");
        assertThat(pm.at("/spec/podMetricsEndpoints/0/port").asText()).isEqualTo("metrics");
        assertThat(pm.at("/spec/namespaceSelector/matchNames/0").asText()).isEqualTo("streaming");

        JsonNode podLabels = flinkDeployment(docs).at("/spec/podTemplate/metadata/labels");
        for (Map.Entry<String, JsonNode> e : pm.at("/spec/selector/matchLabels").properties()) {
            assertThat(podLabels.path(e.getKey()).asText())
                    .as("pod label " + e.getKey())
                    .isEqualTo(e.getValue().asText());
        }

        Tools.Result r =
                template("--set", "metrics.podMonitor.enabled=true", "--set", "metrics.prometheus.enabled=false");
        assertThat(r.exitCode()).isNotZero();
    }

    @Test
    void everyValueIsDocumented() {
        List<String> lines = Tools.read("helm/kes/values.yaml").lines().toList();
        List<String> undocumented = new ArrayList<>();
        String topLevel = "";
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.matches("^[A-Za-z].*")) {
                topLevel = line.substring(0, line.indexOf(':'));
            }
            // A leaf: a key with a value on the same line. Documented by the comment right above it;
            // the mapping text, the checkpointing options (documented as a group, named after Flink's
            // options) and environment variable names (UPPER_CASE, documented by their map) are exempt.
            boolean leaf = line.matches("^\\s*[A-Za-z][A-Za-z0-9_.-]*:\\s*[^\\s#|].*");
            boolean exempt = topLevel.equals("mapping")
                    || topLevel.equals("checkpointing")
                    || line.strip().matches("^[A-Z_]+:.*");
            if (leaf && !exempt && (i == 0 || !lines.get(i - 1).strip().startsWith("#"))) {
                undocumented.add((i + 1) + ": " + line);
            }
        }
        assertThat(undocumented).as("values without a comment right above them").isEmpty();
    }
}
