package io.kes.jobs.migrate;

import java.util.ArrayList;
import java.util.List;

/** One migration under way: the connector's config, the job being built and the problems found so far. */
final class Migration {

    final ConnectConfig config;
    final KesJobYaml job = new KesJobYaml();
    private final List<String> problems = new ArrayList<>();

    Migration(ConnectConfig config) {
        this.config = config;
    }

    /** An option kes cannot honour: the migration fails, listing every such problem. */
    void refuse(String problem) {
        problems.add(problem);
    }

    /** Runs a step; a {@link MigrationException} from it is kept as problems, so that one run lists them all. */
    void attempt(Runnable step) {
        try {
            step.run();
        } catch (MigrationException e) {
            problems.addAll(e.problems());
        }
    }

    List<String> problems() {
        return problems;
    }
}
