package io.kes.torture;

import io.kes.stack.FaultProxy;
import io.kes.stack.Http;
import io.kes.stack.KafkaBroker;
import io.kes.stack.Ports;
import io.kes.torture.FaultPlan.Fault;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * One schedule: fresh topics and indices, 30% of the change stream produced up front, the job
 * started as a child process, then the rest of the stream produced evenly over the fault window
 * while the plan's faults are injected at their moments; then the job catches up (its group's lag
 * reaches zero: every record is durable in Elasticsearch), is stopped, and the final state is
 * checked against Kafka.
 */
final class Schedule {

    /** The outcome of one schedule, as the report prints it. */
    record Result(
            int index,
            long seed,
            String prefix,
            FaultPlan plan,
            Map<FaultKind, Integer> injected,
            int keysChecked,
            long recordsChecked,
            long duplicatesAcrossRollover,
            long movedPrimaryRuns,
            List<Mismatch> mismatches,
            List<String> notes,
            Duration took) {}

    private static final double UP_FRONT = 0.3;
    /** bulk.topology by schedule: even ones keyed by shard slot, odd ones chained, so a run tortures both. */
    private static final String[] TOPOLOGIES = {"keyed", "chained"};

    private final TortureServers servers;
    private final TortureOptions options;
    private final Path root;
    private final PrintStream out;

    Schedule(TortureServers servers, TortureOptions options, Path root, PrintStream out) {
        this.servers = servers;
        this.options = options;
        this.root = root;
        this.out = out;
    }

    Result run(int index, long seed) throws Exception {
        long started = System.nanoTime();
        // Stream first, plan last: --no-faults gives the same stream as the faulted run of the same seed.
        Random random = new Random(seed);
        int keyedPartitions = 4 + random.nextInt(3);
        long streamSeed = random.nextLong();
        Names names = new Names("torture-" + Long.toString(seed & 0xffffffffL, 36) + "-" + index);
        long windowMillis = options.window().toMillis();
        FaultPlan plan = options.soak()
                ? FaultPlan.periodic(windowMillis, options.soakPeriod().toMillis())
                : FaultPlan.draw(
                        random, index, windowMillis, options.extraFaults(), servers.nodes.size(), options.kinds());
        String topology = JobFiles.topology(options.bulk(), topologyFor(index, plan));
        out.printf(
                "schedule %d seed %d (%s, %s writers): plan %s%n",
                index, seed, names.prefix(), topology, plan.faults());

        Path dir = Files.createDirectories(options.workDir().resolve(names.prefix()));
        deleteRecursively(dir.resolve("checkpoints")); // an earlier run's checkpoints must never be restored
        Files.deleteIfExists(dir.resolve("job.log")); // nor its log lines counted
        Files.deleteIfExists(dir.resolve("kes.log"));
        int[] shards = {2};
        int restPort = Ports.free();
        ScheduleResources resources = new ScheduleResources(servers, names);
        resources.create(keyedPartitions, shards[0]);
        JobProcess job = new JobProcess(
                root,
                parallelism -> JobFiles.writeJobConfig(dir, names, servers, options.bulk(), topology, parallelism),
                JobFiles.PARALLELISM,
                JobFiles.writeFlinkConf(dir, restPort),
                restPort,
                dir.resolve("checkpoints"),
                dir.resolve("job.log"));

        List<ChangeStream.Out> stream = ChangeStream.draw(names, streamSeed, options.keys(), options.updates());
        int upFront = (int) (stream.size() * UP_FRONT);
        List<String> notes = new ArrayList<>();
        Map<FaultKind, Integer> injected = new EnumMap<>(FaultKind.class);
        FaultProxy.Stats proxyBefore = servers.proxy.stats();
        SoakSampler soak = null;
        try (KafkaProducer<String, String> producer = producer(servers.kafka)) {
            for (ChangeStream.Out r : stream.subList(0, upFront)) {
                producer.send(new ProducerRecord<>(r.topic(), r.key(), r.value()));
            }
            producer.flush();
            job.start(false);
            awaitFirstCheckpoint(job, notes);
            soak = options.soak() ? SoakSampler.start(job, servers.kafka.bootstrapServers(), names.group(), dir) : null;
            AtomicReference<Throwable> produceFailure = new AtomicReference<>();
            Thread producing = new Thread(
                    () -> produceEvenly(producer, stream.subList(upFront, stream.size()), windowMillis, produceFailure),
                    "kes-torture-producer");
            producing.start();
            FaultInjector faults = new FaultInjector(servers, out);
            long windowStart = System.nanoTime();
            try {
                for (Fault fault : plan.faults()) {
                    sleepUntil(windowStart, fault.atMillis(), job, notes);
                    faults.inject(fault, names, job, shards);
                    injected.merge(fault.kind(), 1, Integer::sum);
                }
            } finally {
                servers.proxy.heal();
                producing.join();
            }
            if (produceFailure.get() != null) {
                throw new IllegalStateException("producing the stream failed", produceFailure.get());
            }
            sleepUntil(windowStart, windowMillis, job, notes);
            long lag = catchUp(names, job, notes);
            if (lag != 0) {
                notes.add("did not catch up within " + options.catchUp().toSeconds() + " s: lag " + lag + " (see "
                        + job.log() + ")");
            }
        } finally {
            if (soak != null) {
                soak.close();
                notes.addAll(SoakSampler.summary(soak.samples()));
                notes.add("soak: every sample in " + dir.resolve("soak.csv"));
            }
            job.stop();
            servers.proxy.heal();
        }
        FaultProxy.Stats proxyAfter = servers.proxy.stats();
        notes.add(String.format(
                "proxy: %d responses lost, %d bulks rejected 429, %d connections reset",
                proxyAfter.lostResponses() - proxyBefore.lostResponses(),
                proxyAfter.rejectedBulks() - proxyBefore.rejectedBulks(),
                proxyAfter.resetConnections() - proxyBefore.resetConnections()));

        long movedPrimaryRuns = movedPrimaryRuns(dir.resolve("kes.log"));
        if (servers.cluster()) {
            notes.add(movedPrimaryRuns + " runs of a slot's bulks queued behind a primary that moved (kes.log)");
        }
        FinalStateCheck check = check(names);
        if (check.mismatches.isEmpty() && notes.stream().noneMatch(n -> n.startsWith("did not catch up"))) {
            resources.delete(out);
            deleteRecursively(dir.resolve("checkpoints"));
        } else {
            notes.add("kept for inspection: topics and indices " + names.prefix() + "-*, job log " + job.log());
        }
        return new Result(
                index,
                seed,
                names.prefix(),
                plan,
                injected,
                check.keysChecked,
                check.recordsChecked,
                check.duplicatesAcrossRollover,
                movedPrimaryRuns,
                check.mismatches,
                notes,
                Duration.ofNanos(System.nanoTime() - started));
    }

    /**
     * {@code bulk.topology} of schedule {@code index} unless {@code --bulk} names one: {@code auto}
     * when it rescales, as users who scale run it (chained at 2 writers, keyed at 4: a restore
     * crosses topologies both ways), else alternately keyed and chained.
     */
    private static String topologyFor(int index, FaultPlan plan) {
        boolean rescales = plan.faults().stream().anyMatch(f -> f.kind() == FaultKind.RESCALE);
        return rescales ? "auto" : TOPOLOGIES[index % 2];
    }

    /** Waits until {@code atMillis} into the window, restarting a job that died on its own (and saying so). */
    private void sleepUntil(long windowStart, long atMillis, JobProcess job, List<String> notes)
            throws InterruptedException {
        while (true) {
            long left = atMillis - (System.nanoTime() - windowStart) / 1_000_000;
            if (left <= 0) {
                return;
            }
            reviveIfDead(job, notes);
            Thread.sleep(Math.min(left, 500));
        }
    }

    private void reviveIfDead(JobProcess job, List<String> notes) {
        if (!job.isAlive()) {
            notes.add("the job exited on its own with code " + job.exitValue()
                    + "; restarted with --restore-latest (see " + job.log() + ")");
            job.start(true);
        }
    }

    /** Faults are meant to land mid-stream, not on a JVM still starting: the window opens once the job checkpointed. */
    private void awaitFirstCheckpoint(JobProcess job, List<String> notes) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (!job.hasCompletedCheckpoint()) {
            if (System.nanoTime() > deadline) {
                notes.add("no checkpoint within 90 s of the start: faults began anyway");
                return;
            }
            reviveIfDead(job, notes);
            Thread.sleep(250);
        }
    }

    /** Polls the group's lag until it is zero (every record committed, i.e. durable in Elasticsearch) or time is up. */
    private long catchUp(Names names, JobProcess job, List<String> notes) throws InterruptedException {
        KafkaTopics kafka = new KafkaTopics(servers.kafka.bootstrapServers());
        long deadline = System.nanoTime() + options.catchUp().toNanos();
        long lag = -1;
        while (System.nanoTime() < deadline) {
            reviveIfDead(job, notes);
            lag = kafka.lag(names.group(), names.jobTopics());
            if (lag == 0) {
                return 0;
            }
            Thread.sleep(1000);
        }
        if (lag < 0) {
            notes.add("the group's lag could not be read: " + kafka.lagError);
        }
        return lag;
    }

    private FinalStateCheck check(Names names) throws IOException {
        KafkaTopics kafka = new KafkaTopics(servers.kafka.bootstrapServers());
        Http es = es();
        FinalStateCheck check = new FinalStateCheck();
        check.keyed("deletes", kafka.readAll(names.deletes()), IndexedDocuments.read(es, names.deletes(), true));
        check.keyed("upserts", kafka.readAll(names.upserts()), IndexedDocuments.read(es, names.upserts(), true));
        check.coordinates(
                "appends", kafka.readAll(names.appends()), IndexedDocuments.read(es, names.appends(), false), false);
        check.coordinates(
                "events", kafka.readAll(names.events()), IndexedDocuments.read(es, names.events(), false), false);
        check.coordinates(
                "rolled", kafka.readAll(names.rolled()), IndexedDocuments.read(es, names.rolled() + "-*", false), true);
        check.deadLetters(kafka.readAll(names.deadLetters()));
        return check;
    }

    /** How often a slot's bulks waited for the node its primary left ({@code NodeBudgets} logs each run once). */
    private static long movedPrimaryRuns(Path kesLog) throws IOException {
        if (!Files.exists(kesLog)) {
            return 0;
        }
        try (var lines = Files.lines(kesLog)) {
            return lines.filter(l -> l.contains("The primary of") && l.contains("of its bulks wait for"))
                    .count();
        }
    }

    private Http es() {
        return servers.node.http();
    }

    /**
     * acks=all, one request in flight: a key's records stay in order. No idempotence: it has raced
     * topic creation before; a retried send may then store a record twice, which the check reads
     * back from Kafka as it is.
     */
    private static KafkaProducer<String, String> producer(KafkaBroker kafka) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        props.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "1");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "none");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    /** The rest of the stream spread over the window, in 50 steps, so faults land mid-stream. */
    private static void produceEvenly(
            KafkaProducer<String, String> producer,
            List<ChangeStream.Out> rest,
            long windowMillis,
            AtomicReference<Throwable> failure) {
        try {
            int steps = 50;
            long start = System.nanoTime();
            for (int s = 0; s < steps; s++) {
                int from = rest.size() * s / steps;
                int to = rest.size() * (s + 1) / steps;
                for (ChangeStream.Out r : rest.subList(from, to)) {
                    producer.send(new ProducerRecord<>(r.topic(), r.key(), r.value()), (meta, e) -> {
                        if (e != null) {
                            failure.compareAndSet(null, e);
                        }
                    });
                }
                long due = start + (long) ((s + 1) * (windowMillis * 0.9 / steps)) * 1_000_000;
                long wait = (due - System.nanoTime()) / 1_000_000;
                if (wait > 0) {
                    Thread.sleep(wait);
                }
            }
            producer.flush();
        } catch (Throwable e) {
            failure.compareAndSet(null, e);
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (var paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder())
                    .forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
