package io.kes.jobs.migrate;

import io.kes.jobs.cli.ExitCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code bin/kes migrate --from-connect CONNECTOR.json|.properties [--out FILE] [--bootstrap-servers
 * HOSTS]}: prints (or writes) the kes job that does what a Kafka Connect Elasticsearch sink does,
 * each setting carried over and commented. An option kes cannot honour ends it with every such
 * option listed and exit code 2, as a wrong config does for {@code bin/kes run}.
 */
public final class Migrate {

    static final String USAGE = "usage: bin/kes migrate --from-connect CONNECTOR.json|CONNECTOR.properties "
            + "[--out mapping.yaml] [--bootstrap-servers HOST:PORT,...]\n"
            + "  --from-connect       the connector's config: what `curl http://CONNECT:8083/connectors/NAME/config` "
            + "prints, {\"name\": ..., \"config\": {...}}, or a .properties file\n"
            + "  --out                write the job there instead of printing it\n"
            + "  --bootstrap-servers  Kafka's brokers (the Connect worker's bootstrap.servers); default: "
            + "${KAFKA_BOOTSTRAP_SERVERS} when the job starts\n"
            + "Then: bin/kes check --config mapping.yaml, and bin/kes run --config mapping.yaml. "
            + "Every option and what kes makes of it: docs/migration-from-kafka-connect.md\n";

    private Migrate() {}

    public static void main(String[] args) {
        System.exit(run(args).code);
    }

    static ExitCode run(String[] args) {
        Path from = null;
        Path out = null;
        String bootstrap = null;
        for (int i = 0; i < args.length; i++) {
            String flag = args[i];
            if (flag.equals("--help") || flag.equals("-h")) {
                System.out.print(USAGE);
                return ExitCode.OK;
            }
            if (i + 1 >= args.length || !flag.startsWith("--")) {
                return usage("kes: " + flag + (flag.startsWith("--") ? " needs a value" : " is not a flag"));
            }
            String value = args[++i];
            switch (flag) {
                case "--from-connect" -> from = Path.of(value);
                case "--out" -> out = Path.of(value);
                case "--bootstrap-servers" -> bootstrap = value;
                default -> {
                    return usage("kes: unknown flag " + flag);
                }
            }
        }
        if (from == null) {
            return usage("kes: --from-connect is required");
        }
        String yaml;
        try {
            yaml = Migrator.migrate(ConnectConfig.read(from).values(), bootstrap);
        } catch (MigrationException e) {
            System.err.println("kes: " + from + " cannot be migrated as it is ("
                    + e.problems().size() + (e.problems().size() == 1 ? " problem" : " problems") + "):");
            e.problems().forEach(p -> System.err.println("kes:   - " + p));
            System.err.println("kes: every option and what kes makes of it: docs/migration-from-kafka-connect.md");
            return ExitCode.CONFIG;
        }
        if (out == null) {
            System.out.print(yaml);
            return ExitCode.OK;
        }
        try {
            Files.writeString(out, yaml);
        } catch (IOException e) {
            System.err.println("kes: cannot write " + out.toAbsolutePath() + ": " + e.getMessage());
            return ExitCode.CONFIG;
        }
        System.out.println(
                "[kes] wrote " + out + "; next: bin/kes check --config " + out + ", then bin/kes run --config " + out);
        return ExitCode.OK;
    }

    private static ExitCode usage(String problem) {
        System.err.println(problem);
        System.err.print(USAGE);
        return ExitCode.CONFIG;
    }
}
