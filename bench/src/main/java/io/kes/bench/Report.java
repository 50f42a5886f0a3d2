package io.kes.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;
import java.util.stream.DoubleStream;

/** Medians per mode as a markdown table (latest.md), per-round rows (rounds.csv) and a bar chart (latest.png). */
final class Report {

    /** Medians over the rounds of one mode. */
    record Row(
            String mode,
            int rounds,
            long docs,
            double docsPerSecond,
            double cpuPerMillion,
            double clientCpuPerMillion,
            double jitPerMillion,
            double p50,
            double p99,
            double shardsPerBulk,
            double rejections,
            double checkpointMs,
            boolean countsMatch) {}

    private final BenchOptions options;
    private final List<Run> runs;
    private final Map<String, String> environment;
    private final String profileSummary;
    private final Map<String, String> notRun;
    /** The scale model's markdown, when this run measured its input. */
    String modelSummary;
    /** Where the single node's CPU went per mode ({@link NodeProfiler}), when it was profiled. */
    String nodeProfileSummary;

    /** @param notRun modes that could not run against this cluster, and why: their rows say so */
    Report(
            BenchOptions options,
            List<Run> runs,
            Map<String, String> environment,
            String profileSummary,
            Map<String, String> notRun) {
        this.options = options;
        this.runs = runs;
        this.environment = environment;
        this.profileSummary = profileSummary;
        this.notRun = notRun;
    }

    static final Map<String, String> DESCRIPTIONS = new LinkedHashMap<>();

    static {
        DESCRIPTIONS.put("kes", "kes job, shard-aware bulks + checkpoint fence (default)");
        DESCRIPTIONS.put("kes-30s", "kes job as above, checkpoints (and so fences) every 30 s instead of 10 s");
        DESCRIPTIONS.put("kes-mixed", "kes job, shard grouping off (mixed bulks)");
        DESCRIPTIONS.put("kes-request", "kes job, durability: request (translog fsync per request, no fence)");
        DESCRIPTIONS.put(
                "official",
                "the official Flink sink (" + OfficialRuns.CONNECTOR + "), own JVM, same topic, ids, bulk sizes");
        DESCRIPTIONS.put(
                "kes-long-w1",
                "long-running kes job over the whole topic: its first window (start-up and JIT included)");
        DESCRIPTIONS.put("kes-long", "long-running kes job: median of the later windows (steady state)");
        DESCRIPTIONS.put("official-long-w1", "long-running official sink job: its first window");
        DESCRIPTIONS.put("official-long", "long-running official sink job: median of the later windows (steady state)");
        DESCRIPTIONS.put(
                "ceiling-long-w1", "long-running direct loader over the whole topic into one index: its first window");
        DESCRIPTIONS.put("ceiling-long", "long-running direct loader: median of the later windows (steady state)");
        DESCRIPTIONS.put("ceiling", "direct loader, pre-serialized single-shard bulks, no Kafka/Flink");
        DESCRIPTIONS.put("3n-single", "3 nodes, direct loader, single-shard bulks, round-robin");
        DESCRIPTIONS.put("3n-mixed", "3 nodes, direct loader, mixed bulks, round-robin");
        DESCRIPTIONS.put("3n-single-pause", "3 nodes + pause injector, single-shard bulks");
        DESCRIPTIONS.put("3n-mixed-pause", "3 nodes + pause injector, mixed bulks");
        DESCRIPTIONS.put("3n-primary", "3 nodes, single-shard bulks sent to the primary's node");
        DESCRIPTIONS.put("3n-primary-pause", "3 nodes + pause injector, single-shard bulks to the primary's node");
        DESCRIPTIONS.put("3n-kes", "3 nodes, the kes job (shard-aware bulks to the primary's node)");
        DESCRIPTIONS.put("3n-kes-mixed", "3 nodes, the kes job with mixed bulks");
        DESCRIPTIONS.put("3n-official", "3 nodes, the official Flink sink");
        DESCRIPTIONS.put("3n-kes-pause", "3 nodes + pause injector, the kes job");
        DESCRIPTIONS.put("3n-kes-mixed-pause", "3 nodes + pause injector, the kes job with mixed bulks");
        DESCRIPTIONS.put("3n-official-pause", "3 nodes + pause injector, the official Flink sink");
        DESCRIPTIONS.put("3n-kes-aimd-pause", "3 nodes + pause injector, the kes job with bulk.adaptive_concurrency");
    }

    List<Row> rows() {
        Map<String, List<Run>> byMode = new LinkedHashMap<>();
        for (String m : DESCRIPTIONS.keySet()) {
            for (Run r : runs) {
                if (r.mode().equals(m)) {
                    byMode.computeIfAbsent(m, k -> new ArrayList<>()).add(r);
                }
            }
        }
        List<Row> rows = new ArrayList<>();
        byMode.forEach((mode, list) -> rows.add(new Row(
                mode,
                list.size(),
                list.get(0).docs(),
                median(list, Run::docsPerSecond),
                median(list, Run::cpuPerMillion),
                median(list, Run::clientCpuPerMillion),
                median(list, Run::jitPerMillion),
                median(list, Run::p50),
                median(list, Run::p99),
                median(list, Run::shardsPerBulk),
                median(list, r -> r.rejections()),
                median(list, Run::checkpointMs),
                list.stream().allMatch(r -> r.counted() == r.docs()))));
        return rows;
    }

    private static double median(List<Run> list, ToDoubleFunction<Run> f) {
        return median(list.stream().mapToDouble(f));
    }

    private static double median(DoubleStream values) {
        return Stats.median(values.toArray());
    }

    private static Row find(List<Row> rows, String mode) {
        return rows.stream().filter(r -> r.mode().equals(mode)).findFirst().orElse(null);
    }

    /** Writes latest.md, rounds.csv and latest.png under the results folder; returns the markdown. */
    String write() throws IOException {
        List<Row> rows = rows();
        Row ceiling = find(rows, "ceiling");
        Row official = find(rows, "official");
        StringBuilder md = new StringBuilder();
        md.append("# kes bench: latest result\n\n");
        environment.forEach(
                (k, v) -> md.append("- ").append(k).append(": ").append(v).append('\n'));
        md.append(String.format(
                "- records in Kafka: %,d (%d partitions); each single-node run indexes the last %,d of them; job parallelism %d, %d round(s); "
                        + "3-node runs: %,d docs, %d round(s); bulks of %d docs, %d shards, replicas 0, refresh -1 during load; loader threads %d%n",
                options.records,
                options.partitions,
                runs.stream()
                        .filter(r -> !r.mode().startsWith("3n"))
                        .mapToLong(Run::docs)
                        .findFirst()
                        .orElse(0),
                options.parallelism,
                options.rounds,
                options.multiNodeRecords,
                options.multiNodeRounds,
                Bench.DOCS_PER_BULK,
                Bench.SHARDS,
                options.loaderThreads));
        md.append(
                "\nMedians over rounds. docs/s: first record read (kes) or first request (loader) until Elasticsearch acknowledged "
                        + "every document and counted them all after a refresh. "
                        + "ES CPU: utime+stime of the Elasticsearch processes. Client CPU: utime+stime of what feeds them, the bench JVM "
                        + "(the kes job in its MiniCluster, or the direct loader) plus the Kafka broker, from the first record read; "
                        + "on a shared machine every client CPU second is taken from Elasticsearch. In brackets, the part of it that the bench "
                        + "JVM's JIT compiler threads took: each run submits a new job, which a long-running job does once. "
                        + "Shards/bulk: server-side shard bulk operations / `_bulk` HTTP requests. "
                        + "Checkpoint: end-to-end duration of the job's completed checkpoints (Flink's statistics), median; with the "
                        + "fence it includes the drain, the wait for the translog fsync and the primary-term check, which run while the job keeps writing.\n\n");
        md.append(
                "| mode | what | docs/s | x ceiling | x official | ES CPU s / M docs | client CPU s / M docs | bulk p50 ms | bulk p99 ms | shards/bulk | write rejections | checkpoint p50 ms | counts |\n");
        md.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|\n");
        for (Row r : rows) {
            boolean singleNode = !r.mode().startsWith("3n");
            Row officialHere = !singleNode
                    ? find(rows, r.mode().endsWith("-pause") ? "3n-official-pause" : "3n-official")
                    : r.mode().contains("-long")
                            ? find(rows, r.mode().replaceFirst("^[a-z]+-long", "official-long"))
                            : official;
            // a long-running window against the same window of the long-running ceiling: same index size
            Row ceilingHere = r.mode().contains("-long")
                    ? find(rows, r.mode().replaceFirst("^[a-z]+-long", "ceiling-long"))
                    : ceiling;
            md.append(String.format(
                    "| %s | %s | %,.0f | %s | %s | %.1f | %.1f%s | %s | %s | %s | %s | %s | %s |%n",
                    r.mode(),
                    DESCRIPTIONS.get(r.mode()),
                    r.docsPerSecond(),
                    ceilingHere != null && singleNode
                            ? String.format("%.2f", r.docsPerSecond() / ceilingHere.docsPerSecond())
                            : "-",
                    officialHere != null
                            ? String.format("%.2f", r.docsPerSecond() / officialHere.docsPerSecond())
                            : "-",
                    r.cpuPerMillion(),
                    r.clientCpuPerMillion(),
                    Double.isNaN(r.jitPerMillion()) ? "" : String.format(" (%.1f)", r.jitPerMillion()),
                    num(r.p50(), "%.0f"),
                    num(r.p99(), "%.0f"),
                    num(r.shardsPerBulk(), "%.2f"),
                    num(r.rejections(), "%.0f"),
                    num(r.checkpointMs(), "%.0f"),
                    r.countsMatch() ? "equal" : "MISMATCH"));
        }
        notRun.forEach((mode, why) -> md.append(String.format(
                "| %s | %s: **%s** | - | - | - | - | - | - | - | - | - | - | - |%n",
                mode, DESCRIPTIONS.getOrDefault(mode, mode), why)));
        md.append("\n## Ratios against the targets of issue 16\n\n");
        md.append("| ratio | value | paired rounds | target | met |\n|---|---:|---:|---:|---|\n");
        ratio(md, runs, "1 node: kes / official sink (docs/s)", "kes", "official", Run::docsPerSecond, 1.25, true);
        ratio(
                md,
                runs,
                "1 node: ES CPU per doc, kes / official sink",
                "kes",
                "official",
                Run::cpuPerMillion,
                0.85,
                false);
        ratio(md, runs, "1 node: kes / ceiling (docs/s)", "kes", "ceiling", Run::docsPerSecond, 0.95, true);
        ratio(
                md,
                runs,
                "3 nodes with pauses: kes / kes-mixed (docs/s)",
                "3n-kes-pause",
                "3n-kes-mixed-pause",
                Run::docsPerSecond,
                1.5,
                true);
        ratio(
                md,
                runs,
                "3 nodes with pauses: kes / official sink (docs/s)",
                "3n-kes-pause",
                "3n-official-pause",
                Run::docsPerSecond,
                2.0,
                true);
        ratio(
                md,
                runs,
                "client CPU per doc, streaming window: kes / ceiling",
                "kes-long",
                "ceiling",
                Run::clientCpuPerMillion,
                2.0,
                false);
        ratio(
                md,
                runs,
                "client CPU per doc, per-run: kes / ceiling",
                "kes",
                "ceiling",
                Run::clientCpuPerMillion,
                Double.NaN,
                false);
        // On one shared machine docs/s follows the inverse of these (see Run.totalCpuPerMillion)
        ratio(
                md,
                runs,
                "1 node: CPU per doc, ES + client, ceiling / kes",
                "ceiling",
                "kes",
                Run::totalCpuPerMillion,
                Double.NaN,
                true);
        ratio(
                md,
                runs,
                "1 node: CPU per doc, ES + client, official sink / kes",
                "official",
                "kes",
                Run::totalCpuPerMillion,
                Double.NaN,
                true);
        ratio(
                md,
                runs,
                "1 node, steady state (long-running windows): kes / ceiling (docs/s)",
                "kes-long",
                "ceiling-long",
                Run::docsPerSecond,
                Double.NaN,
                true);
        ratio(
                md,
                runs,
                "1 node, steady state (long-running windows): kes / official sink (docs/s)",
                "kes-long",
                "official-long",
                Run::docsPerSecond,
                Double.NaN,
                true);
        ratio(
                md,
                runs,
                "1 node, steady state: ES CPU per doc, kes / ceiling",
                "kes-long",
                "ceiling-long",
                Run::cpuPerMillion,
                Double.NaN,
                false);
        ratio(
                md,
                runs,
                "3 nodes without pauses: kes / kes-mixed (docs/s)",
                "3n-kes",
                "3n-kes-mixed",
                Run::docsPerSecond,
                Double.NaN,
                true);
        ratio(
                md,
                runs,
                "3 nodes without pauses: kes / official sink (docs/s)",
                "3n-kes",
                "3n-official",
                Run::docsPerSecond,
                Double.NaN,
                true);
        ratio(
                md,
                runs,
                "3 nodes with pauses: kes adaptive concurrency / kes (docs/s)",
                "3n-kes-aimd-pause",
                "3n-kes-pause",
                Run::docsPerSecond,
                Double.NaN,
                true);
        md.append("\n## Ratios against the targets of issue 7\n\n");
        md.append("| ratio | value | paired rounds | target | met |\n|---|---:|---:|---:|---|\n");
        ratio(md, runs, "kes / ceiling (docs/s)", "kes", "ceiling", Run::docsPerSecond, 0.9, true);
        ratio(
                md,
                runs,
                "3 nodes with pauses: single-shard / mixed (docs/s)",
                "3n-single-pause",
                "3n-mixed-pause",
                Run::docsPerSecond,
                1.5,
                true);
        ratio(
                md,
                runs,
                "3 nodes without pauses: single-shard / mixed (docs/s)",
                "3n-single",
                "3n-mixed",
                Run::docsPerSecond,
                Double.NaN,
                true);
        ratio(
                md,
                runs,
                "3 nodes with pauses: primary-aware / mixed (docs/s)",
                "3n-primary-pause",
                "3n-mixed-pause",
                Run::docsPerSecond,
                Double.NaN,
                true);
        ratio(
                md,
                runs,
                "3 nodes without pauses: primary-aware / mixed (docs/s)",
                "3n-primary",
                "3n-mixed",
                Run::docsPerSecond,
                Double.NaN,
                true);
        ratio(md, runs, "ES CPU per doc: kes / kes-mixed", "kes", "kes-mixed", Run::cpuPerMillion, 0.85, false);
        ratio(
                md,
                runs,
                "ES CPU per doc, 3 nodes with pauses: single-shard / mixed",
                "3n-single-pause",
                "3n-mixed-pause",
                Run::cpuPerMillion,
                0.85,
                false);
        ratio(
                md,
                runs,
                "ES CPU per doc, 3 nodes without pauses: single-shard / mixed",
                "3n-single",
                "3n-mixed",
                Run::cpuPerMillion,
                Double.NaN,
                false);
        ratio(
                md,
                runs,
                "ES CPU per doc, 3 nodes without pauses: primary-aware / mixed",
                "3n-primary",
                "3n-mixed",
                Run::cpuPerMillion,
                Double.NaN,
                false);
        ratio(
                md,
                runs,
                "ES CPU per doc, 3 nodes with pauses: primary-aware / mixed",
                "3n-primary-pause",
                "3n-mixed-pause",
                Run::cpuPerMillion,
                Double.NaN,
                false);
        ratio(md, runs, "kes / kes-mixed (docs/s)", "kes", "kes-mixed", Run::docsPerSecond, Double.NaN, true);
        ratio(
                md,
                runs,
                "kes with 30 s checkpoints / ceiling (docs/s)",
                "kes-30s",
                "ceiling",
                Run::docsPerSecond,
                Double.NaN,
                true);
        ratio(md, runs, "kes / kes-request (docs/s)", "kes", "kes-request", Run::docsPerSecond, Double.NaN, true);
        if (modelSummary != null) {
            md.append("\n")
                    .append(modelSummary.replaceFirst("^# ", "## ").replace("\n## ", "\n### "))
                    .append('\n');
        }
        md.append(
                "\n## Every round\n\nFence: the writer's wait for the translog fsync + primary-term check per checkpoint (`kes.fenceMs`), median. "
                        + "Job tail: how long the bounded job ran on after the clock stopped (its last drain and fence, the final checkpoint).\n\n"
                        + "| mode | round | docs | counted | seconds | docs/s | ES CPU s | ES CPU s / M | client CPU s / M | client JIT s / M | p50 | p99 | shards/bulk | rejections | checkpoint p50 ms | fence p50 ms | job tail s | bulks |\n");
        md.append("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
        StringBuilder csv = new StringBuilder(
                "mode,round,docs,counted,seconds,docs_per_s,es_cpu_s,es_cpu_s_per_m,client_cpu_s,client_jit_s,p50_ms,p99_ms,"
                        + "shards_per_bulk,rejections,fence_p50_ms,checkpoint_p50_ms,tail_s,bulks\n");
        for (Run r : runs) {
            md.append(String.format(
                    "| %s | %d | %d | %d | %.1f | %.0f | %.1f | %.1f | %.1f | %s | %s | %s | %s | %d | %s | %s | %s | %d |%n",
                    r.mode(),
                    r.round(),
                    r.docs(),
                    r.counted(),
                    r.seconds(),
                    r.docsPerSecond(),
                    r.cpuSeconds(),
                    r.cpuPerMillion(),
                    r.clientCpuPerMillion(),
                    num(r.jitPerMillion(), "%.1f"),
                    num(r.p50(), "%.0f"),
                    num(r.p99(), "%.0f"),
                    num(r.shardsPerBulk(), "%.2f"),
                    r.rejections(),
                    num(r.checkpointMs(), "%.0f"),
                    num(r.fenceMs(), "%.0f"),
                    num(r.tailSeconds(), "%.1f"),
                    r.bulks()));
            csv.append(String.format(
                    java.util.Locale.ROOT,
                    "%s,%d,%d,%d,%.3f,%.1f,%.3f,%.3f,%.3f,%.3f,%s,%s,%s,%d,%s,%s,%s,%d%n",
                    r.mode(),
                    r.round(),
                    r.docs(),
                    r.counted(),
                    r.seconds(),
                    r.docsPerSecond(),
                    r.cpuSeconds(),
                    r.cpuPerMillion(),
                    r.clientCpuSeconds(),
                    r.jitSeconds(),
                    r.p50(),
                    r.p99(),
                    r.shardsPerBulk(),
                    r.rejections(),
                    r.fenceMs(),
                    r.checkpointMs(),
                    r.tailSeconds(),
                    r.bulks()));
        }
        if (nodeProfileSummary != null) {
            md.append("\n## Where the Elasticsearch node's CPU went, per mode (profile of the node's JVM)\n\n")
                    .append(nodeProfileSummary);
        }
        if (profileSummary != null) {
            md.append("\n## Profile of one kes run (JFR)\n\n")
                    .append(profileSummary)
                    .append('\n');
        }
        Files.createDirectories(options.out);
        Files.writeString(options.out.resolve("latest.md"), md);
        Files.writeString(options.out.resolve("rounds.csv"), csv);
        ReportChart.draw(rows, options.out.resolve("latest.png"));
        return md.toString();
    }

    /**
     * One ratio of the medians of two modes' rounds (what the target is judged on), beside the median
     * of the per-round ratios: the modes alternate, so the runs of one round share the machine's
     * state, and on a machine whose speed drifts between rounds that pairing is the steadier estimate.
     */
    private static void ratio(
            StringBuilder md,
            List<Run> runs,
            String name,
            String a,
            String b,
            ToDoubleFunction<Run> f,
            double target,
            boolean atLeast) {
        List<Run> as = runs.stream().filter(r -> r.mode().equals(a)).toList();
        List<Run> bs = runs.stream().filter(r -> r.mode().equals(b)).toList();
        if (as.isEmpty() || bs.isEmpty()) {
            return;
        }
        double v = median(as, f) / median(bs, f);
        String t = Double.isNaN(target) ? "-" : (atLeast ? ">= " : "<= ") + target;
        String met = Double.isNaN(target) ? "-" : ((atLeast ? v >= target : v <= target) ? "yes" : "**no**");
        md.append(String.format(
                "| %s | %.2f | %s | %s | %s |%n", name, v, num(pairedRatio(runs, a, b, f), "%.2f"), t, met));
    }

    /**
     * Median over the rounds both modes ran of a's value / b's value in that round; NaN when no round
     * has both, or when a mode is a long-running job's windows (numbered like rounds, run apart).
     */
    static double pairedRatio(List<Run> runs, String a, String b, ToDoubleFunction<Run> f) {
        if (a.contains("-long") || b.contains("-long")) {
            return Double.NaN;
        }
        List<Double> ratios = new ArrayList<>();
        for (Run ra : runs) {
            if (!ra.mode().equals(a)) {
                continue;
            }
            runs.stream()
                    .filter(rb -> rb.mode().equals(b) && rb.round() == ra.round())
                    .findFirst()
                    .ifPresent(rb -> ratios.add(f.applyAsDouble(ra) / f.applyAsDouble(rb)));
        }
        return median(ratios.stream().mapToDouble(Double::doubleValue));
    }

    private static String num(double v, String format) {
        return Double.isNaN(v) ? "-" : String.format(format, v);
    }

    /** Redraws the chart from a rounds.csv (e.g. after a change to the drawing): {@code --chart-from rounds.csv}. */
    static void chartFromCsv(BenchOptions options, Path csv, Path png) throws IOException {
        ReportChart.draw(new Report(options, runsFromCsv(csv), Map.of(), null, Map.of()).rows(), png);
    }

    /** Median docs/s per mode of a rounds.csv. */
    static Map<String, Double> docsPerSecondFromCsv(Path csv) throws IOException {
        Map<String, Double> medians = new LinkedHashMap<>();
        new Report(new BenchOptions(), runsFromCsv(csv), Map.of(), null, Map.of())
                .rows()
                .forEach(r -> medians.put(r.mode(), r.docsPerSecond()));
        return medians;
    }

    private static List<Run> runsFromCsv(Path csv) throws IOException {
        List<String> lines = Files.readAllLines(csv);
        List<String> header = List.of(lines.get(0).split(","));
        List<Run> runs = new ArrayList<>();
        for (String line : lines.subList(1, lines.size())) {
            String[] f = line.split(",");
            // by column name: files written before client_cpu_s existed still load
            ToDoubleFunction<String> col =
                    name -> header.contains(name) ? Double.parseDouble(f[header.indexOf(name)]) : Double.NaN;
            runs.add(new Run(
                    f[0],
                    (int) col.applyAsDouble("round"),
                    (long) col.applyAsDouble("docs"),
                    (long) col.applyAsDouble("counted"),
                    col.applyAsDouble("seconds"),
                    col.applyAsDouble("es_cpu_s"),
                    col.applyAsDouble("client_cpu_s"),
                    col.applyAsDouble("client_jit_s"),
                    col.applyAsDouble("p50_ms"),
                    col.applyAsDouble("p99_ms"),
                    col.applyAsDouble("shards_per_bulk"),
                    (long) col.applyAsDouble("rejections"),
                    col.applyAsDouble("fence_p50_ms"),
                    col.applyAsDouble("checkpoint_p50_ms"),
                    col.applyAsDouble("tail_s"),
                    (long) col.applyAsDouble("bulks")));
        }
        return runs;
    }
}
