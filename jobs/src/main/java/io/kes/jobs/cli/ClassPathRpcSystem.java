package io.kes.jobs.cli;

import java.util.Iterator;
import java.util.ServiceLoader;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.rpc.RpcSystem;
import org.apache.flink.runtime.rpc.RpcSystemLoader;
import org.apache.flink.runtime.rpc.exceptions.RpcLoaderException;

/**
 * Flink's RPC system (Pekko) from the class path, for the MiniCluster of {@code bin/kes run}. Flink's
 * own loader copies the 21 MB {@code flink-rpc-akka.jar} it embeds to a temporary file on every
 * start (deleted only when the RPC system is closed, which a run that ends by exiting never does)
 * and loads Pekko from it through a class loader of its own, which a class-data-sharing archive
 * cannot hold: every run parses and verifies Pekko's classes again. {@code bin/kes} puts
 * that jar, unpacked once by the build ({@code jobs/target/rpc/}), on the class path, where the
 * archive maps them in like Flink's other classes; this loader, tried before Flink's (a lower
 * priority number), then finds it there. Anywhere else (a Flink cluster, whose class path has no
 * such jar) it finds nothing and Flink's loader is used as always.
 */
public final class ClassPathRpcSystem implements RpcSystemLoader {

    private final ClassLoader classPath;

    /** For Flink's ServiceLoader: the class path Flink's own classes come from. */
    public ClassPathRpcSystem() {
        this(RpcSystem.class.getClassLoader());
    }

    ClassPathRpcSystem(ClassLoader classPath) {
        this.classPath = classPath;
    }

    @Override
    public int getLoadPriority() {
        return -1; // Flink's PekkoRpcSystemLoader: 0, its fallback for Flink's own tests: 1
    }

    @Override
    public RpcSystem loadRpcSystem(Configuration config) {
        Iterator<RpcSystem> found =
                ServiceLoader.load(RpcSystem.class, classPath).iterator();
        if (!found.hasNext()) {
            throw new RpcLoaderException("flink-rpc-akka.jar is not on the class path; Flink's own loader comes next");
        }
        return found.next();
    }
}
