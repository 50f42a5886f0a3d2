package io.kes.connector;

import org.apache.flink.annotation.PublicEvolving;
import org.apache.flink.runtime.execution.SuppressRestartsException;

/**
 * Failures that no restart can cure, and how kes stops the job on them instead of restarting it
 * forever. A restart replays the same records against the same classpath, credentials and
 * configuration: a missing class, a 401/403, a record the route cannot decode fail again at once,
 * and with the restart strategy of {@code checkpoints-config/} (unbounded, exponential delay, so
 * that an Elasticsearch or Kafka outage of any length is waited out) the job would retry them for
 * ever while indexing nothing.
 *
 * <p>The mechanism is Flink's: its failover looks through the whole cause chain of a task
 * failure for an exception annotated as a non-recoverable error and, when it finds one, fails the
 * job without consulting the restart strategy. {@link SuppressRestartsException} is that exception.
 * So a failure wrapped by {@link #error} (at any depth) ends the job, with the message on the
 * console of {@code bin/kes run} and in the job's exception history on a cluster.
 *
 * <p>Flink's failover sees a task's failure only after serializing it. When one exception of the
 * chain cannot be serialized (the REST client's {@code ResponseException} holds its response),
 * Flink keeps the whole chain as text, the {@link SuppressRestartsException} is lost among it, and
 * the job restarts for ever: measured on a secured node, a revoked API key restarted the job every
 * few seconds. So causes that cannot be serialized are replaced by {@link SerializableCopy copies}
 * (class name, message and stack trace kept).
 */
@PublicEvolving
public final class NonRecoverable {

    private NonRecoverable() {}

    /** {@code message} (what is wrong and which setting fixes it) as a failure that ends the job. */
    public static SuppressRestartsException error(String message, Throwable cause) {
        return new SuppressRestartsException(new IllegalStateException(message, serializable(cause)));
    }

    public static SuppressRestartsException error(String message) {
        return new SuppressRestartsException(new IllegalStateException(message));
    }

    /**
     * Whether {@code failure} or one of its causes cannot be cured by a restart: it is already
     * marked, or it is a {@link LinkageError} (a class missing from the classpath or incompatible
     * with another: {@code NoClassDefFoundError}, {@code UnsatisfiedLinkError},
     * {@code NoSuchMethodError}); the restarted task loads the same classes again.
     */
    public static boolean isNonRecoverable(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof SuppressRestartsException || t instanceof LinkageError) {
                return true;
            }
        }
        return false;
    }

    /**
     * {@code failure} unchanged when a restart may cure it; otherwise wrapped so that it ends the
     * job, naming the missing class and the fix. Meant for a catch of {@code Throwable} around
     * code that runs in a task: {@code throw NonRecoverable.classify(e)}.
     */
    public static Exception classify(Throwable failure) {
        if (!isNonRecoverable(failure)) {
            return failure instanceof Exception e ? e : new RuntimeException(failure);
        }
        LinkageError linkage = linkageError(failure);
        if (linkage == null && failure instanceof Exception marked) {
            return (Exception) serializable(marked); // Flink finds the SuppressRestartsException in its causes
        }
        if (linkage != null) {
            return error(
                    "a class is missing from the job's classpath or does not fit the others (" + linkage
                            + "); restarting cannot load it. With bin/kes rebuild (./mvnw install) so that jobs/target/classpath.txt is "
                            + "complete; on a Flink cluster submit kes-job.jar as built, without a second copy of its libraries in Flink's lib/",
                    failure);
        }
        return new SuppressRestartsException(serializable(failure));
    }

    /** {@code t} itself when Java serialization can carry it, else a copy that it can, keeping every SuppressRestartsException. */
    static Throwable serializable(Throwable t) {
        if (t == null || canSerialize(t)) {
            return t;
        }
        return copy(t, new java.util.IdentityHashMap<>());
    }

    private static Throwable copy(Throwable t, java.util.IdentityHashMap<Throwable, Boolean> seen) {
        seen.put(t, Boolean.TRUE);
        Throwable cause = t.getCause() == null || seen.containsKey(t.getCause()) ? null : copy(t.getCause(), seen);
        Throwable copy = t instanceof SuppressRestartsException
                ? new SuppressRestartsException(cause)
                : new SerializableCopy(
                        t.getClass().getName() + (t.getMessage() == null ? "" : ": " + t.getMessage()), cause);
        copy.setStackTrace(t.getStackTrace());
        for (Throwable suppressed : t.getSuppressed()) {
            if (!seen.containsKey(suppressed)) {
                copy.addSuppressed(copy(suppressed, seen));
            }
        }
        return copy;
    }

    private static boolean canSerialize(Throwable t) {
        try (java.io.ObjectOutputStream out = new java.io.ObjectOutputStream(java.io.OutputStream.nullOutputStream())) {
            out.writeObject(t);
            return true;
        } catch (java.io.IOException | RuntimeException e) {
            return false;
        }
    }

    /** An exception that could not be serialized, as text: its class and message, and its stack trace. */
    public static final class SerializableCopy extends Exception {
        private static final long serialVersionUID = 1L;

        SerializableCopy(String classAndMessage, Throwable cause) {
            super(classAndMessage, cause);
        }

        @Override
        public String toString() {
            return getMessage(); // reads as the original: "org.elasticsearch.client.ResponseException: ..."
        }
    }

    private static LinkageError linkageError(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof LinkageError e) {
                return e;
            }
        }
        return null;
    }
}
