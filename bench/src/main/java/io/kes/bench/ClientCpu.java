package io.kes.bench;

import io.kes.stack.KafkaBroker;
import java.util.function.Supplier;

/**
 * CPU of everything that feeds Elasticsearch: this JVM (the kes job in its MiniCluster, or the
 * direct loader) plus the Kafka broker the job reads from. On a machine where the clients and the
 * node share the cores, every client CPU second is taken from Elasticsearch.
 */
final class ClientCpu {

    private final Supplier<KafkaBroker> broker;

    /** @param broker the broker this bench started, or null when it uses one that was already running */
    ClientCpu(Supplier<KafkaBroker> broker) {
        this.broker = broker;
    }

    long millis() {
        return EsStats.cpuMillis(ProcessHandle.current().pid()) + brokerMillis();
    }

    /** The Kafka broker's part: serving the fetches (and, for kes, the offset commits); 0 for a broker not started here. */
    long brokerMillis() {
        KafkaBroker b = broker.get();
        return b == null
                ? 0
                : b.process().map(p -> EsStats.treeCpuMillis(p.pid())).orElse(0L);
    }

    /**
     * CPU of this JVM's JIT compiler threads. Each kes run submits a new job, and the code that
     * runs per job (submission, deserialization, consumer start-up) keeps reaching compile
     * thresholds run after run: seconds of C2 time per run that a long-running job pays once.
     */
    static long jitMillis() {
        return Profiler.threadCpu().values().stream()
                .filter(t -> t.name().contains("CompilerThre"))
                .mapToLong(t -> t.ticks() * 1000 / EsStats.CLOCK_TICKS)
                .sum();
    }
}
