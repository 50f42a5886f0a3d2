package io.kes.bench;

/** A fixed-load run's result for the report and CSV tests: every field set, the ES CPU given. */
final class FixedLoadResults {

    private FixedLoadResults() {}

    static FixedLoadRuns.Result run(String mode, double esCpuSecondsPerThousandDocs) {
        IndexLag.Summary lag = new IndexLag.Summary(100, 200, 300, 400, 600, 50);
        return new FixedLoadRuns.Result(
                new FixedLoadScenario.Variant(mode, false),
                1,
                30_500,
                30_500,
                30_500,
                lag,
                new VisibleLag.Series(new long[0], new long[0], new long[0], lag),
                0,
                12.5,
                new BulkShape(30_000, 1_000, 1_000),
                2_000,
                new EsCpuPerDocs(Math.round(esCpuSecondsPerThousandDocs * 30_000), 30_000),
                0.4,
                20,
                0.5,
                new long[0],
                new long[0],
                new long[0]);
    }
}
