package io.kes.bench;

import io.kes.bench.UsersPathScenario.PathRun;
import io.kes.bench.UsersPathScenario.Setup;
import io.kes.connector.ElasticsearchSinkOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;

/**
 * The users-path scenario's results: {@code users-path.md} (one row per setup and mode, medians over
 * rounds; the targets) and {@code users-path.csv} (every run).
 */
final class UsersPathReport {

    private final BenchOptions options;
    private final List<PathRun> runs;
    private final Map<String, String> environment;

    UsersPathReport(BenchOptions options, List<PathRun> runs, Map<String, String> environment) {
        this.options = options;
        this.runs = runs;
        this.environment = environment;
    }

    /** Writes both files; returns the markdown. */
    String write() throws IOException {
        Files.createDirectories(options.out);
        StringBuilder md = new StringBuilder("# bin/kes bench --scenario users-path\n\n");
        environment.forEach(
                (k, v) -> md.append("- ").append(k).append(": ").append(v).append('\n'));
        md.append(String.format(
                "- %,d records per topic, every run indexes all of them; %d round(s), medians over rounds (heap: the"
                        + " largest of the rounds); kes: `bin/kes run` as its own process, KES_HEAP=1g, clock from process start to exit; official"
                        + " sink: a JVM of its own per run (1 GB heap), timed the same way (process start to its job's end, CPU of the whole"
                        + " process: start-up and a fresh JVM's JIT included for both); loader-topic: a plain Kafka consumer and"
                        + " single-shard bulks (kes's ids and routing) as a process of its own, timed and its CPU read as kes's;"
                        + " loader-topic-durable: the same, ending as a bounded kes job does (a `_refresh` and a `_flush` of its"
                        + " index, awaited), so that at its exit, as at kes's, the documents are durable and searchable;"
                        + " loader: the sender ceiling, single-shard bulks pre-serialized before its clock starts, sent from the"
                        + " bench JVM. `x loader`: against loader-topic where it ran, else against loader%n%n",
                options.records, options.rounds));
        md.append(
                "| setup | mode | docs/s | x official | x loader | steady docs/s | steady x official | steady x loader | start-up s | end s"
                        + " | docs per _bulk | shard ops per _bulk | docs per shard op | model: docs per bulk | heap MB before / after GC | OOM"
                        + " | index_total - records | ES CPU s/M | client CPU s/M | client CPU x loader"
                        + " | steady client CPU s/M | steady client CPU x loader |\n");
        md.append(
                "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|\n");
        for (Setup setup : setups()) {
            for (String mode : setup.modes()) {
                List<PathRun> of = of(setup, mode);
                if (of.isEmpty()) {
                    continue;
                }
                double steady = median(of, PathRun::steadyDocsPerSecond);
                md.append(String.format(
                        "| %s | %s | %,.0f | %s | %s | %s | %s | %s | %s | %s | %.0f | %.2f | %.0f | %s | %s | %s | %s | %.1f | %.1f | %s | %s | %s |%n",
                        setup.name(),
                        mode,
                        median(of, PathRun::docsPerSecond),
                        ratio(setup, mode, "official", PathRun::docsPerSecond),
                        ratio(setup, mode, loader(setup), PathRun::docsPerSecond),
                        num(steady, "%,.0f"),
                        ratio(setup, mode, "official", PathRun::steadyDocsPerSecond),
                        ratio(setup, mode, loader(setup), PathRun::steadyDocsPerSecond),
                        num(median(of, PathRun::startupSeconds), "%.1f"),
                        num(median(of, PathRun::tailSeconds), "%.1f"),
                        median(of, r -> Stats.ratio(r.docs(), r.bulks())),
                        median(of, r -> Stats.ratio(r.shardOps(), r.bulks())),
                        median(of, r -> Stats.ratio(r.docs(), r.shardOps())),
                        model(setup, mode, steady),
                        heap(of),
                        mode.startsWith("kes") ? (of.stream().anyMatch(PathRun::outOfMemory) ? "**yes**" : "no") : "-",
                        of.stream()
                                .map(r -> String.valueOf(r.indexTotal() - r.docs()))
                                .distinct()
                                .reduce((a, b) -> a + "/" + b)
                                .orElse("-"),
                        median(of, r -> r.esCpuSeconds() / (r.docs() / 1e6)),
                        median(of, r -> clientCpuPerMillion(r)),
                        ratio(setup, mode, loader(setup), UsersPathReport::clientCpuPerMillion),
                        num(median(of, UsersPathReport::steadyClientCpuPerMillion), "%.1f"),
                        ratio(setup, mode, loader(setup), UsersPathReport::steadyClientCpuPerMillion)));
            }
        }
        md.append(
                "\n`steady`: the middle half of the documents (25% to 75% indexed, from the index's `index_total`) over the time it"
                        + " took, ending sooner where the client may have read every record: kes by the indexed count of its last progress"
                        + " line still reading (and records minus what any line showed read but not indexed), loader-topic at records minus"
                        + " what it can hold (one body per shard, two per sender); `-` when that leaves less than a quarter of the records"
                        + " (official: its middle two of four windows;"
                        + " loader: its whole run); `steady client CPU`: the client's"
                        + " CPU over the same documents (kes and loader-topic: their process tree and the broker, read"
                        + " every 100 ms; loader: the bench JVM and the broker, read every 100 ms while it sends). `end s`: from every document indexed to the process's exit (a bounded job's end: its durable last writes, the final checkpoint, shutdown). `model: docs per bulk`: `ScaleModel.docsPerBulk`"
                        + " at the steady rate, bulk.linger 1 s. `index_total - records` over the rounds: 0 = no document written twice.\n\n");
        targets(md);
        Files.writeString(options.out.resolve("users-path.md"), md);
        StringBuilder csv = new StringBuilder(
                "setup,mode,round,docs,counted,index_total,seconds,startup_seconds,steady_docs_per_s,"
                        + "bulk_requests,shard_ops,es_cpu_s,client_cpu_s,steady_client_cpu_s,peak_heap_mb,live_heap_mb,oom,end_seconds\n");
        for (PathRun r : runs) {
            csv.append(String.format(
                    Locale.ROOT,
                    "%s,%s,%d,%d,%d,%d,%.3f,%.3f,%.1f,%d,%d,%.3f,%.3f,%.3f,%.0f,%.0f,%b,%.3f%n",
                    r.setup().name().replace(",", ";"),
                    r.mode(),
                    r.round(),
                    r.docs(),
                    r.counted(),
                    r.indexTotal(),
                    r.seconds(),
                    r.startupSeconds(),
                    r.steadyDocsPerSecond(),
                    r.bulks(),
                    r.shardOps(),
                    r.esCpuSeconds(),
                    r.clientCpuSeconds(),
                    r.steadyClientCpuSeconds(),
                    r.peakHeapMb(),
                    r.liveHeapMb(),
                    r.outOfMemory(),
                    r.tailSeconds()));
        }
        Files.writeString(options.out.resolve("users-path.csv"), csv);
        return md.toString();
    }

    /** The targets, judged on the topology {@code auto} picks for the setup; the other beside it. */
    private void targets(StringBuilder md) {
        md.append("| target | setup | measured | met |\n|---|---|---|---|\n");
        for (Setup setup : setups()) {
            target(
                    md,
                    setup,
                    "kes / official sink (docs/s, process start to exit) >= 1.3",
                    value(setup, "official", PathRun::docsPerSecond),
                    1.3,
                    true);
            target(
                    md,
                    setup,
                    "kes / " + loader(setup) + " (docs/s) >= 0.9",
                    value(setup, loader(setup), PathRun::docsPerSecond),
                    0.9,
                    true);
            if (!of(setup, UsersPathScenario.TOPIC_LOADER_DURABLE).isEmpty()) {
                target(
                        md,
                        setup,
                        "kes / " + UsersPathScenario.TOPIC_LOADER_DURABLE
                                + " (docs/s; both exit with every document durable and searchable) >= 0.9",
                        value(setup, UsersPathScenario.TOPIC_LOADER_DURABLE, PathRun::docsPerSecond),
                        0.9,
                        true);
            }
            if (setup.shards() != Bench.SHARDS) {
                boolean oom = runs.stream().anyMatch(r -> r.setup().equals(setup) && r.outOfMemory())
                        || environment.getOrDefault("failures", "").contains("OutOfMemoryError");
                boolean twice = runs.stream().anyMatch(r -> r.setup().equals(setup) && r.indexTotal() > r.docs());
                md.append(String.format(
                        "| no OutOfMemoryError, no document written twice | %s | %s, %s | %s |%n",
                        setup.name(),
                        oom ? "OutOfMemoryError" : "no OOM",
                        twice ? "index_total above records" : "index_total = records",
                        oom || twice ? "**no**" : "yes"));
                target(
                        md,
                        setup,
                        "docs per single-shard bulk >= 900",
                        topologies(setup, r -> Stats.ratio(r.docs(), r.shardOps()), "%.0f"),
                        900,
                        true);
            }
            target(
                    md,
                    setup,
                    "client CPU per doc, steady window, kes / " + loader(setup) + " <= 1.5",
                    value(setup, loader(setup), UsersPathReport::steadyClientCpuPerMillion),
                    1.5,
                    false);
            target(
                    md,
                    setup,
                    "client CPU per doc, whole run, kes / " + loader(setup) + " <= 2",
                    value(setup, loader(setup), UsersPathReport::clientCpuPerMillion),
                    2,
                    false);
        }
    }

    /**
     * The judged kes mode's value against the other mode's, as ratios of medians, the other kes
     * topology's in brackets: judged is what {@code bulk.topology: auto} runs for the setup's
     * writers (chained below {@value ElasticsearchSinkOptions#KEYED_FROM_WRITERS}, keyed from
     * there), when it ran; the first number is judged.
     */
    private String value(Setup setup, String other, ToDoubleFunction<PathRun> f) {
        return judgedFirst(setup, mode -> ratio(setup, mode, other, f));
    }

    private String topologies(Setup setup, ToDoubleFunction<PathRun> f, String format) {
        return judgedFirst(setup, mode -> num(median(of(setup, mode), f), format));
    }

    private static String judgedFirst(Setup setup, Function<String, String> valueOf) {
        List<String> kesModes = setup.parallelism() >= ElasticsearchSinkOptions.KEYED_FROM_WRITERS
                ? List.of("kes-keyed", "kes-chained")
                : List.of("kes-chained", "kes-keyed");
        List<String> parts = new ArrayList<>();
        for (String mode : kesModes) {
            if (setup.modes().contains(mode)) {
                parts.add(
                        parts.isEmpty()
                                ? valueOf.apply(mode)
                                : "(" + mode.substring("kes-".length()) + " " + valueOf.apply(mode) + ")");
            }
        }
        return parts.isEmpty() ? "-" : String.join(" ", parts); // "-": no kes mode among --modes
    }

    private static void target(
            StringBuilder md, Setup setup, String name, String measured, double bound, boolean atLeast) {
        double v = parse(measured);
        boolean met = !Double.isNaN(v) && (atLeast ? v >= bound : v <= bound);
        String verdict = met ? "yes" : Double.isNaN(v) ? "not measured" : "**no**";
        md.append(String.format("| %s | %s | %s | %s |%n", name, setup.name(), measured, verdict));
    }

    private static double parse(String measured) {
        try {
            return Double.parseDouble(measured.split(" ")[0].replace(",", ""));
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    /** ScaleModel's documents per bulk for a kes topology at the measured steady rate; "-" for the others. */
    private static String model(Setup setup, String mode, double docsPerSecond) {
        if (!mode.startsWith("kes")) {
            return "-";
        }
        return String.format(
                "%.0f",
                ScaleModel.docsPerBulk(
                        Bench.DOCS_PER_BULK,
                        docsPerSecond,
                        UsersPathScenario.lingerSeconds(mode),
                        setup.shards(),
                        setup.parallelism(),
                        UsersPathScenario.topology(mode).equals("keyed")));
    }

    /** The largest heap occupancy before and after a GC over the rounds. */
    private static String heap(List<PathRun> of) {
        double before = of.stream().mapToDouble(PathRun::peakHeapMb).max().orElse(Double.NaN);
        return Double.isNaN(before)
                ? "-"
                : String.format(
                        "%.0f / %.0f",
                        before,
                        of.stream().mapToDouble(PathRun::liveHeapMb).max().orElse(Double.NaN));
    }

    /**
     * The loader kes is held against in {@code setup}: the topic-reading one when it ran (it does the
     * client's whole work, as kes does), else the sender ceiling.
     */
    private String loader(Setup setup) {
        return of(setup, UsersPathScenario.TOPIC_LOADER).isEmpty()
                ? UsersPathScenario.SENDER_LOADER
                : UsersPathScenario.TOPIC_LOADER;
    }

    private String ratio(Setup setup, String mode, String other, ToDoubleFunction<PathRun> f) {
        return num(median(of(setup, mode), f) / median(of(setup, other), f), "%.2f");
    }

    private static double clientCpuPerMillion(PathRun r) {
        return r.clientCpuSeconds() / (r.docs() / 1e6);
    }

    /** Client CPU seconds per million documents in the steady window (its CPU is scaled to half the documents: {@link ProcessClock}). */
    private static double steadyClientCpuPerMillion(PathRun r) {
        return r.steadyClientCpuSeconds() / (r.docs() / 2 / 1e6);
    }

    private List<Setup> setups() {
        return runs.stream().map(PathRun::setup).distinct().toList();
    }

    private List<PathRun> of(Setup setup, String mode) {
        return runs.stream()
                .filter(r -> r.setup().equals(setup) && r.mode().equals(mode))
                .toList();
    }

    private static double median(List<PathRun> of, ToDoubleFunction<PathRun> f) {
        return Stats.median(of.stream().mapToDouble(f).toArray());
    }

    private static String num(double v, String format) {
        return Double.isNaN(v) ? "-" : String.format(format, v);
    }
}
