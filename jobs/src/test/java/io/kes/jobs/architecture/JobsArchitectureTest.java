package io.kes.jobs.architecture;

import static com.tngtech.archunit.base.DescribedPredicate.not;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAnyPackage;
import static com.tngtech.archunit.core.domain.properties.CanBeAnnotated.Predicates.annotatedWith;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.kes.connector.SinkSettings;
import org.apache.flink.annotation.Internal;

/** The job uses the connector the way any user would: through its API, never its internals. */
@AnalyzeClasses(packages = "io.kes.jobs", importOptions = ImportOption.DoNotIncludeTests.class)
class JobsArchitectureTest {

    /**
     * kes's own operator tools, not the data path: {@code bin/kes check} ({@code preflight/}) and the
     * index templates put at start ({@code template/}). To say whether a route's index exists, how
     * it routes and whether kes's user may write, they read the cluster the way the connector does
     * (its REST client, metadata reads, privilege check and routing table). Those classes are
     * {@code @Internal} on purpose: a user of the sink has no need for them, and they change with
     * the connector. So these two packages, and only they, may use the connector's {@code cluster}
     * and {@code routing} packages; a change there is a change to kes's own tools, released with it.
     */
    private static final String[] KES_OWN_CLUSTER_TOOLS = {"io.kes.jobs.preflight..", "io.kes.jobs.template.."};

    private static final String[] CLUSTER_READS = {"io.kes.connector.cluster..", "io.kes.connector.routing.."};

    @ArchTest
    static final ArchRule theJobUsesOnlyTheConnectorsApi = noClasses()
            .that()
            .resideOutsideOfPackages(KES_OWN_CLUSTER_TOOLS)
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.kes.connector.internal..")
            .orShould()
            .dependOnClassesThat(resideInAPackage("io.kes.connector..").and(annotatedWith(Internal.class)))
            .because("what the job needs from the connector, any user may need: make it @PublicEvolving");

    @ArchTest
    static final ArchRule kesOwnToolsReadTheClusterButUseNoOtherInternals = noClasses()
            .that()
            .resideInAnyPackage(KES_OWN_CLUSTER_TOOLS)
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.kes.connector.internal..")
            .orShould()
            .dependOnClassesThat(resideInAPackage("io.kes.connector..")
                    .and(annotatedWith(Internal.class))
                    .and(not(resideInAnyPackage(CLUSTER_READS))))
            .because("bin/kes check and the index templates may read the cluster like the connector, nothing more");

    @ArchTest
    static final ArchRule theJobDoesNotReadTheCredentials = noClasses()
            .should()
            .callMethod(SinkSettings.class, "authorization")
            .because("only the connector's REST client puts the password or API key in a header");

    @ArchTest
    static final ArchRule onlyTheQuickStartStartsLocalServers = noClasses()
            .that()
            .resideOutsideOfPackage("io.kes.jobs.quickstart..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.kes.stack..")
            .because("the job runs against any cluster; only the quick start brings its own Kafka and Elasticsearch");

    /**
     * The quick start runs the job; the job, {@code bin/kes run}'s progress and the checks never
     * need it (its progress reporter served {@code run} from {@code quickstart/}: a package loop).
     */
    @ArchTest
    static final ArchRule nothingButTheQuickStartDependsOnIt = noClasses()
            .that()
            .resideOutsideOfPackage("io.kes.jobs.quickstart..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.kes.jobs.quickstart..")
            .because("the quick start is built on the job, not the other way round");

    @ArchTest
    static final ArchRule theJobDoesNotDependOnToolsBuiltOnIt =
            noClasses().should().dependOnClassesThat().resideInAnyPackage("io.kes.bench..", "io.kes.torture..");

    /**
     * The JDK's {@code HttpClient} keeps a selector thread waiting in native code for as long as the
     * JVM runs (it has no {@code close()} before JDK 21), and a JVM's exit waits up to 300 ms for
     * threads in native code to stop: {@code bin/kes run}'s exit took ~0.4 s after the job's end with
     * one, ~0.1 s without. The job's JVM reads HTTP with {@code HttpURLConnection} (or the connector's
     * REST client) instead.
     */
    @ArchTest
    static final ArchRule theJobsJvmStartsNoHttpClientThatOutlivesIt = noClasses()
            .should()
            .dependOnClassesThat()
            .resideInAPackage("java.net.http..")
            .because("its selector thread holds bin/kes run's exit back by up to 300 ms");
}
