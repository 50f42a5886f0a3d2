package io.kes.connector.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The connector's layering, as docs/architecture.md draws it: the API package on top, the write
 * path below it (bulk), then the stages it uses (fence, routing, cluster), then internal helpers.
 * An arrow never runs back up, and every public class says whether users may depend on it.
 */
@AnalyzeClasses(packages = "io.kes.connector", importOptions = ImportOption.DoNotIncludeTests.class)
class ConnectorArchitectureTest {

    @ArchTest
    static final ArchRule everyPublicTopLevelClassSaysWhetherItIsApi = classes()
            .that().arePublic().and().areTopLevelClasses()
            .should().beAnnotatedWith(PublicEvolving.class).orShould().beAnnotatedWith(Internal.class)
            .because("users need to know what they may depend on (Flink's own convention)");

    @ArchTest
    static final ArchRule theConnectorNeverDependsOnTheJobOrTheTestStack = noClasses()
            .should().dependOnClassesThat().resideInAnyPackage("io.kes.jobs..", "io.kes.stack..", "io.kes.bench..", "io.kes.torture..");

    @ArchTest
    static final ArchRule routingDoesNotKnowTheWritePathOrTheFence = noClasses()
            .that().resideInAPackage("io.kes.connector.routing..")
            .should().dependOnClassesThat().resideInAnyPackage("io.kes.connector.bulk..", "io.kes.connector.fence..");

    @ArchTest
    static final ArchRule theFenceDoesNotKnowTheWritePath = noClasses()
            .that().resideInAPackage("io.kes.connector.fence..")
            .should().dependOnClassesThat().resideInAPackage("io.kes.connector.bulk..");

    @ArchTest
    static final ArchRule clusterAccessIsTheBottomLayer = noClasses()
            .that().resideInAPackage("io.kes.connector.cluster..")
            .should().dependOnClassesThat().resideInAnyPackage("io.kes.connector.bulk..", "io.kes.connector.fence..",
                    "io.kes.connector.routing..");

    @ArchTest
    static final ArchRule internalHelpersDependOnNoStage = noClasses()
            .that().resideInAPackage("io.kes.connector.internal..")
            .should().dependOnClassesThat().resideInAnyPackage("io.kes.connector.bulk..", "io.kes.connector.fence..",
                    "io.kes.connector.routing..", "io.kes.connector.cluster..");
}
