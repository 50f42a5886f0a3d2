package io.kes.jobs.migrate;

import java.util.Map;
import java.util.Optional;

/**
 * Turns a Kafka Connect Elasticsearch sink config into a kes job: each setting through its row of
 * {@link ConnectOptions}, then the settings read together ({@link ErrorPlanner}, {@link
 * RoutePlanner}, TLS). Every problem is collected, so one run names all the options to change.
 */
public final class Migrator {

    /** Kafka's bootstrap servers are the Connect worker's, not the connector's: asked for, or from the environment. */
    static final String BOOTSTRAP_FROM_ENV = "${KAFKA_BOOTSTRAP_SERVERS}";

    private Migrator() {}

    /**
     * The kes job YAML for a connector config.
     *
     * @param bootstrapServers Kafka's bootstrap servers, or null for {@value #BOOTSTRAP_FROM_ENV}
     * @throws MigrationException listing every option kes cannot honour
     */
    public static String migrate(Map<String, String> connectConfig, String bootstrapServers) {
        ConnectConfig config = new ConnectConfig(connectConfig);
        Migration m = new Migration(config);
        m.job.comment("kes job migrated from the Kafka Connect connector '" + config.get("name", "?")
                + "' by bin/kes migrate (docs/migration-from-kafka-connect.md).");
        m.job.comment("Each connector setting, what it became in kes and, in brackets, what kes does differently:");
        m.job.set("kafka", "bootstrap_servers", bootstrapServers != null ? bootstrapServers : BOOTSTRAP_FROM_ENV);
        if (!config.has("connection.url")) {
            m.refuse("connection.url is missing: the connector config names no Elasticsearch");
        }
        if (!config.has("connector.class")) {
            m.refuse("connector.class is missing: is this a connector's config? (GET /connectors/NAME/config)");
        }
        config.values().forEach((key, value) -> {
            Optional<ConnectOption> option = ConnectOptions.find(key);
            if (option.isEmpty()) {
                m.refuse(key + " is not an option of Confluent's Elasticsearch sink (16.x) or of Kafka Connect that "
                        + "kes knows, so it cannot say what kes should do with it; remove it if it has no effect, or "
                        + "see docs/migration-from-kafka-connect.md");
                return;
            }
            String v = value == null ? "" : value;
            m.job.comment("  " + Comments.line(option.get(), key, v));
            m.attempt(() -> option.get().handler().apply(m, key, v));
        });
        if (bootstrapServers == null) {
            m.job.comment("kafka.bootstrap_servers is the Connect worker's (not in a connector config): set "
                    + "KAFKA_BOOTSTRAP_SERVERS, or migrate with --bootstrap-servers.");
        }
        if (!config.has("value.converter")) {
            m.job.comment("value.converter is not set, so the worker's applied: kes reads JSON values; for Avro, add "
                    + "value.converter and value.converter.schema.registry.url and migrate again.");
        }
        m.attempt(() -> Values.tls(m));
        m.attempt(() -> ErrorPlanner.plan(m));
        m.attempt(() -> RoutePlanner.plan(m, ErrorPlanner.deadLetters(config)));
        if (!m.problems().isEmpty()) {
            throw new MigrationException(m.problems());
        }
        return m.job.render();
    }
}
