package io.kes.jobs.cli;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.flink.client.deployment.executors.LocalExecutor;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.configuration.CoreOptions;
import org.apache.flink.configuration.DeploymentOptions;
import org.apache.flink.configuration.RestOptions;
import org.apache.flink.configuration.TaskManagerOptions;
import org.apache.flink.core.execution.PipelineExecutor;
import org.apache.flink.core.execution.PipelineExecutorFactory;
import org.apache.flink.core.execution.PipelineExecutorServiceLoader;
import org.apache.flink.runtime.minicluster.MiniCluster;
import org.apache.flink.runtime.minicluster.MiniClusterConfiguration;
import org.apache.flink.runtime.minicluster.RpcServiceSharing;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;

/**
 * bin/kes run's MiniCluster, started on a thread of its own while the job is checked and built
 * (the preflight check and the index templates: network round trips), instead of after them as
 * {@code executeAsync} on a local environment does. The environment it gives submits to this
 * cluster through Flink's own local executor, which then waits for the start instead of making
 * one; should the job want other slots than the cluster was started with (its operators' largest
 * parallelism, as Flink's per-job MiniCluster counts them), the early one is closed and the
 * executor starts one as it always did.
 */
public final class EarlyMiniCluster {

    private final Configuration environmentConfiguration;
    private final StartedElsewhere cluster;
    private volatile boolean taken;

    private EarlyMiniCluster(Configuration environmentConfiguration, MiniClusterConfiguration clusterConfiguration) {
        this.environmentConfiguration = environmentConfiguration;
        this.cluster = new StartedElsewhere(clusterConfiguration);
    }

    /**
     * Starts the cluster a local environment over {@code flink} would start for a job of
     * {@code parallelism} (0: the environment's default), on a daemon thread.
     */
    public static EarlyMiniCluster start(Configuration flink, int parallelism) {
        Configuration environment = new Configuration(flink);
        environment.set(DeploymentOptions.TARGET, LocalExecutor.NAME);
        environment.set(DeploymentOptions.ATTACHED, true);
        if (parallelism > 0) {
            environment.set(CoreOptions.DEFAULT_PARALLELISM, parallelism);
        } else if (!environment.contains(CoreOptions.DEFAULT_PARALLELISM)) {
            environment.set(
                    CoreOptions.DEFAULT_PARALLELISM, Runtime.getRuntime().availableProcessors());
        }
        int writers = environment.get(CoreOptions.DEFAULT_PARALLELISM);
        NetworkBuffers.choose(environment, writers);
        EarlyMiniCluster early = new EarlyMiniCluster(environment, clusterConfiguration(environment, writers));
        Thread starter = new Thread(early.cluster::startHere, "kes-minicluster-start");
        starter.setDaemon(true);
        starter.start();
        return early;
    }

    /** A local environment whose jobs run on this cluster. */
    public StreamExecutionEnvironment environment() {
        return new StreamExecutionEnvironment(new ThisCluster(), environmentConfiguration, null);
    }

    /** Whether a job was submitted to this cluster (false: it did not fit the job, or none came). */
    boolean taken() {
        return taken;
    }

    /** Whether the cluster runs: started, and not closed since. */
    boolean running() {
        return cluster.isRunning();
    }

    /** Closes the cluster when no job was submitted to it (the check failed). */
    public void discard() {
        try {
            cluster.started
                    .handle((ok, failure) -> null) // a failed start has nothing running, but close tidies up alike
                    .thenCompose(none -> cluster.closeAsync())
                    .get(20, TimeUnit.SECONDS);
        } catch (Exception e) {
            // the JVM is about to end: its shutdown hooks clean up what is left
        }
    }

    /**
     * What {@code PerJobMiniClusterFactory} builds for a job of {@code parallelism}: one task
     * manager with a slot per parallel instance, a shared RPC service, the REST endpoint on a free
     * port unless the configuration names one.
     */
    static MiniClusterConfiguration clusterConfiguration(Configuration environment, int parallelism) {
        Configuration configuration = new Configuration(environment);
        if (!configuration.contains(RestOptions.BIND_PORT)) {
            configuration.set(RestOptions.BIND_PORT, "0");
        }
        int taskManagers = configuration.get(TaskManagerOptions.MINI_CLUSTER_NUM_TASK_MANAGERS);
        int slots = configuration
                .getOptional(TaskManagerOptions.NUM_TASK_SLOTS)
                .orElse((parallelism + taskManagers - 1) / taskManagers);
        return new MiniClusterConfiguration.Builder()
                .setConfiguration(configuration)
                .setNumTaskManagers(taskManagers)
                .setRpcServiceSharing(RpcServiceSharing.SHARED)
                .setNumSlotsPerTaskManager(slots)
                .build();
    }

    private static int slotsOf(MiniClusterConfiguration configuration) {
        return configuration.getConfiguration().get(TaskManagerOptions.NUM_TASK_SLOTS);
    }

    /** The executor for this cluster: Flink's local one, handed this cluster when it fits the job. */
    private final class ThisCluster implements PipelineExecutorServiceLoader, PipelineExecutorFactory {
        @Override
        public PipelineExecutorFactory getExecutorFactory(Configuration configuration) {
            return this;
        }

        @Override
        public Stream<String> getExecutorNames() {
            return Stream.of(LocalExecutor.NAME);
        }

        @Override
        public String getName() {
            return LocalExecutor.NAME;
        }

        @Override
        public boolean isCompatibleWith(Configuration configuration) {
            return true;
        }

        @Override
        public PipelineExecutor getExecutor(Configuration configuration) {
            return LocalExecutor.createWithFactory(configuration, wanted -> {
                if (wanted.getNumTaskManagers() == cluster.taskManagers()
                        && slotsOf(wanted) == cluster.slotsPerTaskManager()) {
                    taken = true;
                    return cluster;
                }
                discard();
                return new MiniCluster(wanted);
            });
        }
    }

    /** A MiniCluster whose {@link #start} is made by {@link #startHere} on another thread and only awaited here. */
    private static final class StartedElsewhere extends MiniCluster {
        private final CompletableFuture<Void> started = new CompletableFuture<>();
        private final int taskManagers;
        private final int slotsPerTaskManager;

        StartedElsewhere(MiniClusterConfiguration configuration) {
            super(configuration);
            this.taskManagers = configuration.getNumTaskManagers();
            this.slotsPerTaskManager = slotsOf(configuration);
        }

        int taskManagers() {
            return taskManagers;
        }

        int slotsPerTaskManager() {
            return slotsPerTaskManager;
        }

        void startHere() {
            try {
                super.start();
                started.complete(null);
            } catch (Throwable e) {
                started.completeExceptionally(e);
            }
        }

        /** The executor's start: waits for the one already under way; its failure is this one's. */
        @Override
        public void start() throws Exception {
            try {
                started.get();
            } catch (ExecutionException e) {
                if (e.getCause() instanceof Exception cause) {
                    throw cause;
                }
                throw e;
            }
        }
    }
}
