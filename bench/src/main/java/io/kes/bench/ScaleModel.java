package io.kes.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Single-shard against mixed bulks beyond this machine, on paper: a Monte Carlo simulation of bulk
 * latencies fed by the per-bulk latencies the 3-node runs measured ({@code latency-3n.csv}),
 * predicting the single-shard / mixed throughput ratio for 3, 10, 30 and 100 data nodes.
 *
 * <p>Assumptions (docs/benchmark.md names them too):
 * <ol>
 *   <li>Weak scaling: every node carries the load one node carried here, and the clients' bulks in
 *       flight grow with the nodes; throughput is then bulks in flight x documents per bulk / mean
 *       bulk latency (Little's law), so the ratio of two modes is the inverse ratio of their mean
 *       latencies. Node CPU saturation beyond what the 3-node latencies contain is not modelled, nor
 *       the extra Elasticsearch CPU per document that mixed bulks cost (measured 1.2-1.3x on 3 nodes),
 *       so the model understates single-shard's gain.</li>
 *   <li>A shard request's service time (no pause) is a draw from the single-shard bulks measured on 3
 *       nodes without pauses; for a share of {@code k} of a bulk's {@code B} documents it is
 *       {@code x (f + (1 - f) k / B)}: a fixed part {@code f} per request, the rest per document.
 *       {@code f} is fitted so that 6-shard mixed bulks on 3 nodes without pauses have their measured
 *       mean latency; the runs with pauses are the check.</li>
 *   <li>Pauses: one node in three stops for {@value PauseInjector#PAUSE_MS} ms every
 *       {@value PauseInjector#PERIOD_MS} ms at a phase of its own (the injector's pattern); a request
 *       on a paused node, or a bulk whose coordinating node is paused, waits out the pause. Every
 *       other source of latency is in the measured draws.</li>
 *   <li>The index has two shards per data node (6 on 3, as in the bench); shard {@code i} lives on
 *       node {@code i mod N}. Single-shard bulks go to the primary's node (no coordinating hop);
 *       a mixed bulk goes to a random node and touches {@code n} distinct random shards with
 *       {@code B / n} documents each, and answers when its slowest shard request does.</li>
 *   <li>Shard requests are independent apart from sharing a node's pauses.</li>
 * </ol>
 */
final class ScaleModel {

    static final int[] NODES = {3, 10, 30, 100};
    private static final int DOCS = Bench.DOCS_PER_BULK;
    private static final int SAMPLES = 200_000;

    /** Predicted mean latencies (ms) of single-shard and mixed bulks. */
    record Prediction(int nodes, int shardsPerBulk, boolean pauses, double singleMs, double mixedMs) {
        double ratio() {
            return mixedMs / singleMs;
        }
    }

    private final long[] base;
    private final double fixedShare;
    private final SplittableRandom random = new SplittableRandom(42);

    /** @param base single-shard bulk latencies (ms) on 3 nodes without pauses */
    ScaleModel(long[] base, double mixedMeasuredMs) {
        this.base = base.clone();
        Arrays.sort(this.base);
        this.fixedShare = fit(mixedMeasuredMs);
    }

    /**
     * Documents a single-shard bulk holds when bulk.linger sends it, for a stream of
     * {@code docsPerSecond} spread evenly over the shards: each buffer collects its share of the
     * stream for at most {@code lingerSeconds} after its first document, and is sent full at
     * {@code maxDocs}. Keyed, a shard has one buffer (its one writer); chained, it has one in every
     * writer, each filling at 1/(shards x writers) of the stream. The users-path scenario checks it
     * against the documents per shard operation it measures; not modelled: checkpoints, which send
     * every buffer, and bulk.max_buffered_bytes, which sends the largest buffer early.
     */
    static double docsPerBulk(
            int maxDocs, double docsPerSecond, double lingerSeconds, int shards, int writers, boolean keyed) {
        int buffers = keyed ? shards : shards * writers;
        return Math.min(maxDocs, docsPerSecond * lingerSeconds / buffers);
    }

    double fixedShare() {
        return fixedShare;
    }

    /** f in [0, 1] such that 6-shard mixed bulks on 3 nodes without pauses come out at their measured mean (bisection). */
    private double fit(double mixedMeasuredMs) {
        double lo = 0;
        double hi = 1;
        for (int i = 0; i < 30; i++) {
            double mid = (lo + hi) / 2;
            if (mixed(3, 6, false, mid, new SplittableRandom(7), 20_000) < mixedMeasuredMs) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return (lo + hi) / 2;
    }

    Prediction predict(int nodes, int shardsPerBulk, boolean pauses) {
        return new Prediction(
                nodes,
                shardsPerBulk,
                pauses,
                single(nodes, pauses, random.split(), SAMPLES),
                mixed(nodes, shardsPerBulk, pauses, fixedShare, random.split(), SAMPLES));
    }

    private double single(int nodes, boolean pauses, SplittableRandom r, int samples) {
        Pauses p = new Pauses(nodes, pauses, r);
        double sum = 0;
        for (int i = 0; i < samples; i++) {
            double t = r.nextDouble() * PauseInjector.PERIOD_MS;
            int node = r.nextInt(2 * nodes) % nodes;
            sum += p.finish(node, t, draw(r)) - t;
        }
        return sum / samples;
    }

    private double mixed(int nodes, int shardsPerBulk, boolean pauses, double f, SplittableRandom r, int samples) {
        Pauses p = new Pauses(nodes, pauses, r);
        int shards = 2 * nodes;
        int n = Math.min(shardsPerBulk, shards);
        int[] pick = new int[shards];
        double sum = 0;
        for (int i = 0; i < samples; i++) {
            double t = r.nextDouble() * PauseInjector.PERIOD_MS;
            // the coordinating node must be running to take the bulk in
            double start = p.finish(r.nextInt(nodes), t, 0);
            for (int s = 0; s < shards; s++) {
                pick[s] = s;
            }
            double end = start;
            for (int s = 0; s < n; s++) {
                int j = s + r.nextInt(shards - s);
                int shard = pick[j];
                pick[j] = pick[s];
                double service = draw(r) * (f + (1 - f) / n);
                end = Math.max(end, p.finish(shard % nodes, start, service));
            }
            sum += end - t;
        }
        return sum / samples;
    }

    private double draw(SplittableRandom r) {
        return base[r.nextInt(base.length)];
    }

    /** Which nodes pause (one in three), each at a phase of its own. */
    private static final class Pauses {
        private final double[] phase;

        Pauses(int nodes, boolean on, SplittableRandom r) {
            phase = new double[nodes];
            for (int i = 0; i < nodes; i++) {
                phase[i] = on && i % 3 == 2 ? r.nextDouble() * PauseInjector.PERIOD_MS : Double.NaN;
            }
        }

        /** When work of {@code service} ms that starts at {@code t} on {@code node} ends: pauses stop the clock of the work. */
        double finish(int node, double t, double service) {
            double ph = phase[node];
            if (Double.isNaN(ph)) {
                return t + service;
            }
            double now = t;
            double left = service;
            int period = PauseInjector.PERIOD_MS;
            while (true) {
                double inCycle = ((now - ph) % period + period) % period; // a pause covers [0, PAUSE_MS) of each cycle
                if (inCycle < PauseInjector.PAUSE_MS) {
                    now += PauseInjector.PAUSE_MS - inCycle;
                    continue;
                }
                double runFor = period - inCycle;
                if (left <= runFor) {
                    return now + left;
                }
                left -= runFor;
                now += runFor;
            }
        }
    }

    /**
     * Reads {@code latency-3n.csv}, fits, predicts, checks against the 3-node measurement, and writes
     * {@code scale-model.md} and {@code scale-model.png} beside it; returns the markdown.
     */
    static String write(Path latencyCsv, Map<String, Double> measuredDocsPerSecond) throws IOException {
        Map<String, List<Long>> byMode = new LinkedHashMap<>();
        for (String line : Files.readAllLines(latencyCsv)
                .subList(1, Files.readAllLines(latencyCsv).size())) {
            String[] f = line.split(",");
            byMode.computeIfAbsent(f[0], k -> new ArrayList<>()).add(Long.parseLong(f[2]));
        }
        long[] single = values(byMode, "3n-single");
        long[] mixed = values(byMode, "3n-mixed");
        if (single.length == 0 || mixed.length == 0) {
            return "scale model: no 3n-single and 3n-mixed latencies in " + latencyCsv;
        }
        ScaleModel model = new ScaleModel(single, mean(mixed));
        StringBuilder md = new StringBuilder("# Scale model: single-shard vs mixed bulks on N data nodes\n\n");
        md.append(String.format(
                Locale.ROOT,
                "Input: %,d single-shard and %,d mixed bulk latencies measured on 3 nodes without pauses "
                        + "(`%s`); fitted fixed share of a shard request's time f = %.2f. Assumptions: see `ScaleModel` and docs/benchmark.md.%n%n",
                single.length,
                mixed.length,
                latencyCsv.getFileName(),
                model.fixedShare()));
        if (model.fixedShare() > 0.99 || model.fixedShare() < 0.01) {
            md.append(String.format(
                    Locale.ROOT,
                    "**The fit hit its bound (f = %.2f): the measured mixed latency (%.0f ms) is outside what the model "
                            + "can produce from the single-shard draws (%.0f ms mean). Too few bulks, or a stall in the measurement: the "
                            + "predictions below are not worth much; measure more bulks (`--multinode-records`).**%n%n",
                    model.fixedShare(),
                    mean(mixed),
                    mean(single)));
        }
        md.append(
                "## Check against the 3-node measurement (mean bulk latency, ms)\n\n| what | measured | model |\n|---|---:|---:|\n");
        Prediction p3 = model.predict(3, 6, false);
        Prediction p3p = model.predict(3, 6, true);
        md.append(row("single-shard, no pauses", mean(single), p3.singleMs()));
        md.append(row("mixed (6 shards), no pauses (fitted)", mean(mixed), p3.mixedMs()));
        md.append(row("single-shard, pauses", mean(values(byMode, "3n-single-pause")), p3p.singleMs()));
        md.append(row("mixed (6 shards), pauses", mean(values(byMode, "3n-mixed-pause")), p3p.mixedMs()));
        md.append(row("kes job (single-shard), no pauses", mean(values(byMode, "3n-kes")), p3.singleMs()));
        md.append(row("kes job (single-shard), pauses", mean(values(byMode, "3n-kes-pause")), p3p.singleMs()));
        md.append(row("kes job, mixed bulks, pauses", mean(values(byMode, "3n-kes-mixed-pause")), p3p.mixedMs()));
        md.append("\nThroughput ratio single-shard / mixed on 3 nodes: measured (docs/s, loader) ");
        md.append(ratioText(measuredDocsPerSecond, "3n-single", "3n-mixed")).append(" without pauses, ");
        md.append(ratioText(measuredDocsPerSecond, "3n-single-pause", "3n-mixed-pause"))
                .append(" with; kes job / kes mixed ");
        md.append(ratioText(measuredDocsPerSecond, "3n-kes", "3n-kes-mixed")).append(" without, ");
        md.append(ratioText(measuredDocsPerSecond, "3n-kes-pause", "3n-kes-mixed-pause"))
                .append(" with. Model: ");
        md.append(String.format(Locale.ROOT, "%.2f without, %.2f with.%n%n", p3.ratio(), p3p.ratio()));
        md.append(
                "## Predicted single-shard / mixed throughput ratio\n\n| data nodes | index shards | shards per mixed bulk | no pauses | pauses (1 node in 3) |\n|---:|---:|---:|---:|---:|\n");
        List<double[]> all = new ArrayList<>();
        List<double[]> six = new ArrayList<>();
        for (int n : NODES) {
            for (int shardsPerBulk : n == 3 ? new int[] {6} : new int[] {6, 2 * n}) {
                Prediction quiet = model.predict(n, shardsPerBulk, false);
                Prediction paused = model.predict(n, shardsPerBulk, true);
                md.append(String.format(
                        Locale.ROOT,
                        "| %d | %d | %d | %.2f | %.2f |%n",
                        n,
                        2 * n,
                        shardsPerBulk,
                        quiet.ratio(),
                        paused.ratio()));
                if (shardsPerBulk == 2 * n || n == 3) {
                    all.add(new double[] {n, quiet.ratio(), paused.ratio()});
                }
                if (shardsPerBulk == 6) {
                    six.add(new double[] {n, quiet.ratio(), paused.ratio()});
                }
            }
        }
        Path dir = latencyCsv.toAbsolutePath().getParent();
        Files.writeString(dir.resolve("scale-model.md"), md);
        ScaleModelChart.draw(all, six, dir.resolve("scale-model.png"));
        return md.toString();
    }

    private static String ratioText(Map<String, Double> docsPerSecond, String a, String b) {
        Double x = docsPerSecond.get(a);
        Double y = docsPerSecond.get(b);
        return x == null || y == null ? "-" : String.format(Locale.ROOT, "%.2f", x / y);
    }

    private static String row(String what, double measured, double model) {
        return String.format(
                Locale.ROOT,
                "| %s | %s | %.0f |%n",
                what,
                Double.isNaN(measured) ? "-" : String.format(Locale.ROOT, "%.0f", measured),
                model);
    }

    private static long[] values(Map<String, List<Long>> byMode, String mode) {
        return byMode.getOrDefault(mode, List.of()).stream()
                .mapToLong(Long::longValue)
                .toArray();
    }

    private static double mean(long[] v) {
        return v.length == 0 ? Double.NaN : Arrays.stream(v).average().orElse(Double.NaN);
    }
}
