package io.kes.stack;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Elasticsearch refuses to run as root ("can not run elasticsearch as root"). When this JVM is
 * root, nodes run as the system user {@value #NAME}, created on first use.
 */
public final class UnprivilegedUser {

    public static final String NAME = "kes";

    private UnprivilegedUser() {}

    public static boolean currentIsRoot() {
        return "root".equals(System.getProperty("user.name"));
    }

    /** The user to run Elasticsearch as: null when we are not root. */
    public static synchronized String ensureForElasticsearch() {
        if (!currentIsRoot()) {
            return null;
        }
        if (run(List.of("id", "-u", NAME)) != 0) {
            int rc = run(List.of(
                    "useradd", "--system", "--user-group", "--no-create-home", "--shell", "/usr/sbin/nologin", NAME));
            if (rc != 0 && run(List.of("id", "-u", NAME)) != 0) {
                throw new IllegalStateException("running as root and could not create the unprivileged user '" + NAME
                        + "' for Elasticsearch (useradd exit " + rc + "); create it, or run as a normal user");
            }
        }
        return NAME;
    }

    public static void chownRecursively(Path dir) {
        if (currentIsRoot()) {
            require(run(List.of("chown", "-R", NAME + ":" + NAME, dir.toString())), "chown -R " + NAME + " " + dir);
        }
    }

    /** Whether the unprivileged user can read and traverse {@code dir} (a checkout under /root is not). */
    public static boolean canRead(Path dir) {
        return !currentIsRoot()
                || run(List.of("runuser", "-u", NAME, "--", "test", "-r", dir.toString(), "-a", "-x", dir.toString()))
                        == 0;
    }

    static void require(int rc, String what) {
        if (rc != 0) {
            throw new IllegalStateException(what + " failed with exit code " + rc);
        }
    }

    static int run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (!p.waitFor(120, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return -1;
            }
            return p.exitValue();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }
}
