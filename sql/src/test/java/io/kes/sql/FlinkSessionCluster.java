package io.kes.sql;

import io.kes.stack.Http;
import io.kes.stack.Ports;
import io.kes.stack.ServerProcess;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A Flink standalone session cluster, one jobmanager and one taskmanager, started with a
 * distribution's own {@code bin/jobmanager.sh} and {@code bin/taskmanager.sh} in the foreground
 * (so that each is one process this JVM owns). Its conf/ is the distribution's unchanged; the
 * ports are free ones passed as -D options (also to the SQL client, {@link #clientOptions()}),
 * the memory smaller than the distribution's defaults (two JVMs beside Elasticsearch and Kafka).
 * {@link #close()} stops both process trees.
 */
final class FlinkSessionCluster implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(120);

    private final int restPort;
    /** Taskmanager first, jobmanager last: the order they are stopped in. */
    private final List<ServerProcess> processes = new ArrayList<>();

    private FlinkSessionCluster(int restPort) {
        this.restPort = restPort;
    }

    static FlinkSessionCluster start(PyFlinkEnvironment flink, Path workDir) throws Exception {
        int rpcPort = Ports.free();
        FlinkSessionCluster cluster = new FlinkSessionCluster(Ports.free());
        List<String> ports = List.of(
                "-D",
                "jobmanager.rpc.address=localhost",
                "-D",
                "jobmanager.rpc.port=" + rpcPort,
                "-D",
                "rest.port=" + cluster.restPort);
        Map<String, String> env = flink.processEnv(workDir.resolve("log"));
        try {
            cluster.processes.add(
                    0,
                    ServerProcess.start(
                            "Flink jobmanager",
                            command(
                                    flink.flinkHome().resolve("bin/jobmanager.sh"),
                                    ports,
                                    "jobmanager.memory.process.size=1024m"),
                            env,
                            workDir,
                            workDir.resolve("jobmanager.out"),
                            null,
                            false,
                            null));
            cluster.processes.add(
                    0,
                    ServerProcess.start(
                            "Flink taskmanager",
                            command(
                                    flink.flinkHome().resolve("bin/taskmanager.sh"),
                                    ports,
                                    "taskmanager.memory.process.size=1280m"),
                            env,
                            workDir,
                            workDir.resolve("taskmanager.out"),
                            null,
                            false,
                            null));
            cluster.awaitTaskManager();
            return cluster;
        } catch (Exception | Error e) {
            cluster.close();
            throw e;
        }
    }

    private static List<String> command(Path script, List<String> ports, String memory) {
        List<String> command = new ArrayList<>(List.of(script.toString(), "start-foreground"));
        command.addAll(ports);
        command.addAll(List.of("-D", memory));
        return command;
    }

    /** What the SQL client needs to find this cluster beside the distribution's conf/. */
    List<String> clientOptions() {
        return List.of("-D", "rest.port=" + restPort);
    }

    Http rest() {
        return new Http("http://localhost:" + restPort);
    }

    private void awaitTaskManager() throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            for (ServerProcess process : processes) {
                if (!process.isAlive()) {
                    throw new IllegalStateException(
                            process + " exited while the cluster started:\n" + process.logTail(40));
                }
            }
            try {
                Http.Response answer = rest().get("/taskmanagers");
                if (answer.status() == 200 && answer.body().contains("\"id\"")) {
                    return;
                }
            } catch (IOException notListeningYet) {
                // the jobmanager's REST endpoint is not up yet
            }
            Thread.sleep(500);
        }
        throw new IllegalStateException("no taskmanager registered with the jobmanager within " + START_TIMEOUT + "; "
                + processes.stream().map(p -> p + ":\n" + p.logTail(30)).reduce("", (a, b) -> a + "\n" + b));
    }

    @Override
    public void close() {
        RuntimeException failure = null;
        for (ServerProcess process : processes) {
            try {
                process.stop(Duration.ofSeconds(15));
            } catch (RuntimeException e) { // the other process is still stopped
                if (failure == null) {
                    failure = e;
                } else {
                    failure.addSuppressed(e);
                }
            }
        }
        if (failure != null) {
            throw failure;
        }
    }
}
