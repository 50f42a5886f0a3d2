package io.kes.jobs.migrate;

import io.kes.jobs.migrate.ConnectOption.Handler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/** The handlers of {@link ConnectOptions}' rows, and the TLS settings that are read together. */
final class Values {

    /** Options that change nothing in the job (the table's note says why), or that a planner reads. */
    static final Handler NOTHING = (m, k, v) -> {};

    /** kes's default {@code retry.max_backoff}, the cap of each wait in {@link #maxRetries}. */
    private static final Duration KES_MAX_BACKOFF = Duration.ofSeconds(10);

    private Values() {}

    static Handler carry(String section, String key) {
        return (m, k, v) -> m.job.set(section, key, v.trim());
    }

    static Handler millis(String section, String key) {
        return (m, k, v) -> m.job.set(section, key, atLeast(m, k, v, 0) + "ms");
    }

    static Handler bool(String section, String key) {
        return (m, k, v) -> m.job.set(section, key, m.config.bool(k, false));
    }

    /** Refused when it holds a value; Connect's empty defaults pass. */
    static Handler refusedIfSet() {
        return (m, k, v) -> {
            if (!v.isBlank()) {
                m.refuse(k + " = " + Comments.shown(k, v) + ": "
                        + ConnectOptions.find(k).orElseThrow().note());
            }
        };
    }

    static long atLeast(Migration m, String key, String value, long min) {
        long n = m.config.number(key, min);
        if (n < min) {
            throw new MigrationException(key + " must be at least " + min + ", got " + value);
        }
        return n;
    }

    static void name(Migration m, String key, String value) {
        m.job.set("job", "name", value);
        if (!m.config.has("consumer.override.group.id")) {
            m.job.set("kafka", "group_id", "connect-" + value); // Connect's sink group, so committed offsets carry over
        }
    }

    static void connectorClass(Migration m, String key, String value) {
        String v = value.trim();
        if (!v.equals(ConnectOptions.CONNECTOR_CLASS) && !v.equals("ElasticsearchSinkConnector")) {
            m.refuse("connector.class = " + v + ": kes migrates Confluent's Elasticsearch sink ("
                    + ConnectOptions.CONNECTOR_CLASS + ") only");
        }
    }

    static void autoOffsetReset(Migration m, String key, String value) {
        if (!value.trim().equalsIgnoreCase("earliest")) {
            m.refuse(key + " = " + value + ": kes starts a job without committed offsets at the earliest record "
                    + "(kafka.starting_offsets: committed); 'latest' in kes would also skip the offsets Connect "
                    + "committed. Remove the option, or set kafka.starting_offsets yourself after migrating");
        }
    }

    static void hosts(Migration m, String key, String value) {
        List<String> urls = m.config.list(key);
        if (urls.isEmpty()) {
            throw new MigrationException("connection.url is empty: give the Elasticsearch URLs, e.g. http://es1:9200");
        }
        boolean https = urls.stream().anyMatch(u -> u.toLowerCase().startsWith("https:"));
        List<String> hosts = new ArrayList<>();
        for (String url : urls) {
            String rest = url.replaceFirst("(?i)^https?://", "");
            hosts.add((https ? "https://" : "http://") + rest);
        }
        m.job.set("elasticsearch", "hosts", hosts);
    }

    static void password(Migration m, String key, String value) {
        if (value.matches(".*\\$\\{[A-Za-z0-9_.-]+:[^}]*:[^}]*}.*")) {
            m.refuse(key + " is a Connect config provider reference (" + value + "), which kes cannot resolve: "
                    + "put the password in a file of its own and write ${file:/path/to/that/file}, or ${ES_PASSWORD} "
                    + "to read it from the environment");
            return;
        }
        m.job.set("elasticsearch", "password", value);
    }

    static void securityProtocol(Migration m, String key, String value) {
        m.config.choice(key, "plaintext", List.of("plaintext", "ssl"));
    }

    static void endpoint(Migration m, String key, String value) {
        if (value.isBlank()
                && m.config.get("elastic.security.protocol", "PLAINTEXT").equalsIgnoreCase("SSL")) {
            m.refuse(key + " is empty (no host name verification): "
                    + ConnectOptions.find(key).orElseThrow().note() + "; list the nodes in connection.url by a name "
                    + "their certificates hold");
        }
    }

    /** {@code elastic.https.ssl.truststore.*} with {@code elastic.security.protocol=SSL}: kes takes a PEM CA file. */
    static void tls(Migration m) {
        ConnectConfig c = m.config;
        if (!c.get("elastic.security.protocol", "PLAINTEXT").equalsIgnoreCase("SSL")
                || !c.has("elastic.https.ssl.truststore.location")) {
            return;
        }
        String location = c.get("elastic.https.ssl.truststore.location", "");
        String type = c.get("elastic.https.ssl.truststore.type", "JKS");
        if (type.equalsIgnoreCase("PEM")) {
            m.job.set("elasticsearch", "tls_ca_file", location);
            return;
        }
        m.refuse("elastic.https.ssl.truststore.location = " + location + " is a " + type + " trust store; kes "
                + "trusts a PEM file with the CA (elasticsearch.tls_ca_file) or a certificate fingerprint. Export "
                + "the CA: keytool -exportcert -rfc -keystore " + location + " -storetype " + type
                + " -alias <the CA's alias> -file ca.pem, then set elastic.https.ssl.truststore.location to ca.pem "
                + "and elastic.https.ssl.truststore.type to PEM and migrate again");
    }

    static void bulkBytes(Migration m, String key, String value) {
        long bytes = m.config.number(key, 5L << 20);
        if (bytes < 1024 || bytes > (100L << 20)) {
            m.refuse(key + " = " + value + ": " + (bytes < 0 ? "no limit" : "that size")
                    + " is beyond kes's bulk.max_bytes (1kb..100mb, Elasticsearch's default "
                    + "http.max_content_length); give a size in that range");
            return;
        }
        m.job.set("bulk", "max_bytes", bytes + "b");
        if (bytes > (16L << 20)) {
            m.job.set("bulk", "max_buffered_bytes", (2 * bytes) + "b"); // kes wants room for two full buffers
        }
    }

    /** {@code max.retries} N: the waits of N retries, from {@code retry.backoff.ms} doubling, each at most 10 s. */
    static void maxRetries(Migration m, String key, String value) {
        long retries = atLeast(m, key, value, 0);
        Duration wait = Duration.ofMillis(m.config.number("retry.backoff.ms", 100));
        Duration total = Duration.ZERO;
        for (long i = 0; i < retries; i++) {
            if (wait.compareTo(KES_MAX_BACKOFF) >= 0) {
                total = total.plus(KES_MAX_BACKOFF.multipliedBy(retries - i));
                break;
            }
            total = total.plus(wait);
            wait = wait.multipliedBy(2);
        }
        // kes needs a positive time: zero retries still lets one retry happen after the first backoff
        m.job.set("retry", "max_time", Math.max(total.toMillis(), 1) + "ms");
    }
}
