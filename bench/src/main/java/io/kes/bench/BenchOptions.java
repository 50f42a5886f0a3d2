package io.kes.bench;

import io.kes.connector.ElasticsearchSinkOptions;
import java.nio.file.Path;
import java.util.List;

/** The options of one {@code bin/kes bench} run, with their defaults; {@link #parse} reads the command line. */
final class BenchOptions {

    long records = 2_000_000;
    /** Documents each timed single-node run indexes: the last ones of the topic (all when >= records). */
    long docsPerRun = 500_000;

    int rounds = 5;
    int partitions = 6;
    int parallelism = 2;
    /** Bulks the direct loader keeps in flight; by default as many as the kes job does (parallelism x bulk.max_in_flight). */
    int loaderThreads = -1;
    /** CPU quota per node of the 3-node cluster, in cores; 0 = none. */
    double nodeCpus = 0.6;

    List<String> modes = Bench.DEFAULT_MODES;
    boolean skipMultiNode;
    long multiNodeRecords = 500_000;
    boolean multiNodeRecordsGiven;
    double budgetMinutes = 24;
    int multiNodeRounds = -1;
    String esUrl;
    String kafka;
    String esVersion;
    Path out = Path.of("bench/results");
    Path work = Path.of("bench/target/bench-run");
    boolean profile = true;
    boolean quick;
    /** An untimed round of every mode before the measured ones; --quick leaves it out (a smoke, not a measurement). */
    boolean warmUpRound = true;

    boolean primaryAware = true;
    /** kes, kes-mixed and the official sink on the 3-node cluster too (with and without pauses). */
    boolean multiNodeJobs = true;
    /**
     * The long-running mode: kes and the official sink once more each, one job over the whole topic,
     * measured in this many windows of equal documents (the first carries the job's start-up); 0 = off.
     */
    int windows = 4;
    /** {@code users-path}: kes through {@code bin/kes run} as a process, per setup of {@link #usersPathShards} ({@link UsersPathScenario}). */
    String scenario = "rounds";
    /** The users-path scenario's setups, by the index's shards: 6 (parallelism 2), 48 and 96 (parallelism 8). */
    List<Integer> usersPathShards = List.of(6, 48, 96);
    /** {@code users-path}: what the kes modes write to, {@code index} or {@code data-stream} (one per run, created from a template). */
    String usersPathTarget = "index";
    /** {@code users-path}: a field of the records whose value routes each document ({@code routes[].routing}), or null. */
    String routingField;
    /** {@code fixed-load}: records a second the producer writes, for {@link #seconds} seconds. */
    int rate = 3_000;

    int seconds = 60;
    /** {@code fixed-load}: with the stall (true), without it (false), or both. */
    List<Boolean> stalls = List.of(true, false);
    /** {@code fixed-load}: sink options added to every kes mode's {@code bulk:} map, e.g. {@code topology: keyed}. */
    String kesBulk = "";
    /** {@code fixed-load}: the index's shards ({@code --shards N}, one number); the writers are {@link #parallelism}. */
    int shards = Bench.SHARDS;

    static BenchOptions parse(String[] args) {
        BenchOptions o = new BenchOptions();
        boolean recordsGiven = false;
        boolean roundsGiven = false;
        boolean profileGiven = false;
        boolean perRunGiven = false;
        boolean windowsGiven = false;
        boolean modesGiven = false;
        boolean outGiven = false;
        boolean shardsGiven = false;
        boolean partitionsGiven = false;
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "--records" -> {
                    o.records = parseCount(args[++i]);
                    recordsGiven = true;
                }
                case "--docs-per-run" -> {
                    o.docsPerRun = parseCount(args[++i]);
                    perRunGiven = true;
                }
                case "--rounds" -> {
                    o.rounds = Integer.parseInt(args[++i]);
                    roundsGiven = true;
                }
                case "--partitions" -> {
                    o.partitions = Integer.parseInt(args[++i]);
                    partitionsGiven = true;
                }
                // the writers are the job's parallelism: --writers says what it means for a sink
                case "--parallelism", "--writers" -> o.parallelism = Integer.parseInt(args[++i]);
                case "--loader-threads" -> o.loaderThreads = Integer.parseInt(args[++i]);
                case "--node-cpus" -> o.nodeCpus = Double.parseDouble(args[++i]);
                case "--modes" -> {
                    o.modes = List.of(args[++i].split(","));
                    modesGiven = true;
                }
                case "--skip-multinode" -> o.skipMultiNode = true;
                case "--multinode-records" -> {
                    o.multiNodeRecords = parseCount(args[++i]);
                    o.multiNodeRecordsGiven = true;
                }
                case "--multinode-rounds" -> o.multiNodeRounds = Integer.parseInt(args[++i]);
                case "--es-url" -> o.esUrl = args[++i];
                case "--kafka" -> o.kafka = args[++i];
                case "--es-version" -> o.esVersion = args[++i];
                case "--out" -> {
                    o.out = Path.of(args[++i]);
                    outGiven = true;
                }
                case "--rate" -> o.rate = Integer.parseInt(args[++i]);
                case "--seconds" -> o.seconds = Integer.parseInt(args[++i]);
                case "--stall" ->
                    o.stalls = switch (args[++i]) {
                        case "on" -> List.of(true);
                        case "off" -> List.of(false);
                        case "both" -> List.of(true, false);
                        default -> {
                            System.err.println("--stall takes on, off or both, not " + args[i]);
                            usage(2);
                            yield List.of();
                        }
                    };
                case "--kes-bulk" -> o.kesBulk = args[++i];
                case "--work" -> o.work = Path.of(args[++i]);
                case "--no-profile" -> o.profile = false;
                case "--profile" -> profileGiven = true;
                case "--no-primary-aware" -> o.primaryAware = false;
                case "--no-multinode-jobs" -> o.multiNodeJobs = false;
                case "--windows" -> {
                    o.windows = Integer.parseInt(args[++i]);
                    windowsGiven = true;
                }
                case "--budget-minutes" -> o.budgetMinutes = Double.parseDouble(args[++i]);
                case "--quick" -> o.quick = true;
                case "--scenario" -> o.scenario = args[++i];
                case "--shards" -> {
                    o.usersPathShards = java.util.Arrays.stream(args[++i].split(","))
                            .map(Integer::valueOf)
                            .toList();
                    shardsGiven = true;
                }
                case "--target" -> o.usersPathTarget = args[++i];
                case "--routing-field" -> o.routingField = args[++i];
                case "-h", "--help" -> usage(0);
                default -> {
                    System.err.println("unknown option " + a);
                    usage(2);
                }
            }
        }
        if (o.scenario.equals("users-path")) {
            // every run reads the whole topic, with a process start each for kes: 1M records x 3 rounds fit ~25 minutes
            // on 2 cores
            o.records = recordsGiven ? o.records : 1_000_000;
            o.rounds = roundsGiven ? o.rounds : 3;
            if (!List.of("index", "data-stream").contains(o.usersPathTarget)) {
                System.err.println("--target takes index or data-stream, not " + o.usersPathTarget);
                usage(2);
            }
            if ((o.routingField != null || !o.usersPathTarget.equals("index"))
                    && (!modesGiven || o.modes.stream().anyMatch(m -> !m.startsWith("kes")))) {
                // the official sink and the loaders write an index by the id only
                System.err.println(
                        "--target data-stream and --routing-field apply to the kes modes only: give --modes kes-keyed,kes-chained");
                usage(2);
            }
        } else if (o.scenario.equals("fixed-load")) {
            o.rounds = roundsGiven ? o.rounds : 3;
            o.modes = modesGiven ? o.modes : FixedLoadScenario.DEFAULT_MODES;
            o.profile = false;
            // every run of every mode on the same Elasticsearch, whether the official sink (8 only) is among them or
            // not
            o.esVersion = o.esVersion != null
                    ? o.esVersion
                    : io.kes.stack.StackLayout.fromBuild().elasticsearch8Version();
            if (o.esUrl != null) {
                System.err.println("--scenario fixed-load starts its own 3 nodes (it stops one of them): no --es-url");
                usage(2);
            }
            if (shardsGiven) {
                if (o.usersPathShards.size() != 1) {
                    System.err.println("--scenario fixed-load runs one index shape: --shards takes one number");
                    usage(2);
                }
                o.shards = o.usersPathShards.get(0);
            }
            // a partition per writer at least, so that the official sink (its source chained to its writer) and kes
            // chained have every writer busy
            o.partitions = partitionsGiven ? o.partitions : Math.max(o.partitions, o.parallelism);
        } else if (!o.scenario.equals("rounds")) {
            System.err.println(
                    "unknown scenario " + o.scenario + "; scenarios: rounds (the default), users-path, fixed-load");
            usage(2);
        }
        if (o.quick) {
            if (!recordsGiven) {
                o.records = 50_000;
            }
            if (!roundsGiven) {
                o.rounds = 1;
            }
            if (!o.multiNodeRecordsGiven) {
                o.multiNodeRecords = Math.min(o.records, 50_000);
            }
            o.profile = false;
            o.warmUpRound = false;
            if (!windowsGiven) {
                o.windows = 0;
            }
        }
        if (!perRunGiven && (o.quick || o.records < o.docsPerRun)) {
            o.docsPerRun = o.records;
        }
        o.docsPerRun = Math.min(o.docsPerRun, o.records);
        if (profileGiven) {
            o.profile = true;
        } else if ("users-path".equals(o.scenario)) {
            o.profile = false; // its runs are the measurement: an agent in them only when asked for
        }
        if (!o.multiNodeRecordsGiven) {
            o.multiNodeRecords = Math.min(o.multiNodeRecords, o.records);
        }
        if (o.loaderThreads < 0) {
            o.loaderThreads = o.parallelism * ElasticsearchSinkOptions.BULK_MAX_IN_FLIGHT.defaultValue();
        }
        if (o.multiNodeRounds < 0) {
            o.multiNodeRounds =
                    Math.min(o.rounds, 3); // six 3-node modes: more rounds would leave fewer documents per run
        }
        if (o.esVersion == null && o.esUrl == null && o.modes.contains("official")) {
            // the official sink runs on Elasticsearch 8 only (OfficialRuns.whyNot): the comparison needs 8.19
            o.esVersion = io.kes.stack.StackLayout.fromBuild().elasticsearch8Version();
        }
        if (!outGiven) {
            o.out = freeFolder(o.out, runFolder(o, java.time.LocalDate.now()));
        }
        if ((o.esUrl == null) != (o.kafka == null)) {
            System.err.println("--es-url and --kafka go together");
            usage(2);
        }
        List<String> known = switch (o.scenario) {
            case "users-path" -> UsersPathScenario.MODES;
            case "fixed-load" -> FixedLoadScenario.MODES;
            default -> Bench.SINGLE_NODE_MODES;
        };
        for (String m : o.modes) {
            if (o.modes != Bench.DEFAULT_MODES && !known.contains(m)) {
                System.err.println("unknown mode " + m + "; modes: " + known);
                usage(2);
            }
        }
        return o;
    }

    /** The same run for one setup of the users-path scenario: its topic's partitions and the jobs' parallelism, every record per run. */
    BenchOptions forSetup(int partitions, int parallelism) {
        BenchOptions o = new BenchOptions();
        o.records = records;
        o.docsPerRun = records;
        o.partitions = partitions;
        o.parallelism = parallelism;
        o.loaderThreads = parallelism * ElasticsearchSinkOptions.BULK_MAX_IN_FLIGHT.defaultValue();
        o.work = work;
        o.out = out;
        o.profile = profile;
        return o;
    }

    /**
     * The folder a run's results go to under {@code bench/results}: the scenario, the date and what
     * was run, so that a published run is named by what it measured ({@code
     * users-path-2026-11-30-48-96-shards}, {@code fixed-load-2026-11-30}, {@code full-2026-11-24}).
     */
    static String runFolder(BenchOptions o, java.time.LocalDate date) {
        return switch (o.scenario) {
            case "users-path" ->
                "users-path-" + date + "-"
                        + String.join(
                                "-",
                                o.usersPathShards.stream().map(String::valueOf).toList())
                        + "-shards"
                        + (o.usersPathTarget.equals("index") ? "" : "-" + o.usersPathTarget)
                        + (o.routingField == null ? "" : "-routing-" + o.routingField);
            case "fixed-load" -> "fixed-load-" + date;
            default -> (o.quick ? "quick-" : "full-") + date;
        };
    }

    /** {@code parent/name}, or {@code parent/name-2}, {@code -3}... when a run of the same name is there already. */
    static Path freeFolder(Path parent, String name) {
        Path folder = parent.resolve(name);
        for (int n = 2; java.nio.file.Files.exists(folder); n++) {
            folder = parent.resolve(name + "-" + n);
        }
        return folder;
    }

    /** A count with an optional {@code k} or {@code m} suffix: 500k, 2m, 2_000_000. */
    static long parseCount(String s) {
        s = s.replace("_", "").toLowerCase();
        if (s.endsWith("k")) {
            return Long.parseLong(s.substring(0, s.length() - 1)) * 1_000;
        }
        if (s.endsWith("m")) {
            return Long.parseLong(s.substring(0, s.length() - 1)) * 1_000_000;
        }
        return Long.parseLong(s);
    }

    /** The topic the records are loaded into once; its name says how, so a later run can reuse it. */
    String topic() {
        return Bench.TOPIC_PREFIX + "-p" + partitions + "-s" + Bench.SEED;
    }

    static void usage(int code) {
        System.err.println(String.join(
                "\n",
                "usage: kes bench [--records N] [--docs-per-run N] [--rounds R] [--partitions P] [--parallelism P] [--modes kes,kes-30s,kes-mixed,kes-request,official,ceiling]",
                "                 [--skip-multinode] [--multinode-records N] [--multinode-rounds R] [--loader-threads T] [--node-cpus C] [--no-primary-aware]",
                "                 [--no-multinode-jobs] [--windows W] [--scenario users-path [--shards 6,48,96]]",
                "                 [--quick] [--no-profile] [--budget-minutes M] [--out DIR] [--es-url URL --kafka BOOTSTRAP] [--es-version V]",
                "defaults: 2,000,000 records in Kafka, each single-node run indexes the last 500,000 of them, 5 rounds, 6 partitions, parallelism 2,",
                "modes kes,kes-mixed,kes-request,official,ceiling (kes-30s when asked for; with official, Elasticsearch 8.19 unless --es-version), 3-node scenario with 3 rounds of up to 500,000 docs",
                "per run (fewer when the single-node part left less than enough of the --budget-minutes 24 for it; 0 = no budget),",
                "kes, kes-mixed and official on 3 nodes too (--no-multinode-jobs: loader only), long-running mode: one kes and one",
                "official job over the whole topic in --windows 4 windows (0 = off; off with --quick).",
                "--scenario users-path: kes through bin/kes run as its own process (keyed, and chained beside it at 48 and 96 shards) against the",
                "official sink and three loaders (loader-topic: reads the topic and sends single-shard bulks as a process of its own;",
                "loader-topic-durable: the same, ending with a _refresh and a _flush as kes does; loader: the same bulks pre-serialized,",
                "sent only), 6 shards at parallelism 2 and 48/96 shards at parallelism 8; 1,000,000 records,",
                "3 rounds by default; [--target data-stream] [--routing-field level] (kes modes only): a data stream per run, routing by a field",
                "--scenario fixed-load [--rate 3000] [--seconds 60] [--shards 6] [--writers 2] [--stall on|off|both] [--kes-bulk 'topology: keyed']",
                "                 [--modes kes,kes-keyed,kes-mixed,kes-linger,kes-eager-fetch,official]: indexed and search-visible lag, Elasticsearch CPU per 1,000 documents,",
                "documents per _bulk and per shard operation at a steady load on 3 nodes, one data node stopped 1 s every 5 s (--stall),",
                "3 rounds; at least one partition per writer unless --partitions.",
                "Results go to bench/results/<scenario>-<date>-<what> (users-path-<date>-<shards>-shards, fixed-load-<date>,",
                "full-<date>, quick-<date>; -2, -3 for a second run of the day), or --out DIR."));
        System.exit(code);
    }
}
