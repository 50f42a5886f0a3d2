package io.kes.jobs.architecture;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.properties.CanBeAnnotated.Predicates.annotatedWith;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import org.apache.flink.annotation.Internal;

/** The job uses the connector the way any user would: through its API, never its internals. */
@AnalyzeClasses(packages = "io.kes.jobs", importOptions = ImportOption.DoNotIncludeTests.class)
class JobsArchitectureTest {

    @ArchTest
    static final ArchRule theJobUsesOnlyTheConnectorsApi = noClasses()
            .should().dependOnClassesThat().resideInAPackage("io.kes.connector.internal..")
            .orShould().dependOnClassesThat(resideInAPackage("io.kes.connector..").and(annotatedWith(Internal.class)))
            .because("what the job needs from the connector, any user may need: make it @PublicEvolving");

    @ArchTest
    static final ArchRule onlyTheQuickStartStartsLocalServers = noClasses()
            .that().resideOutsideOfPackage("io.kes.jobs.quickstart..")
            .should().dependOnClassesThat().resideInAPackage("io.kes.stack..")
            .because("the job runs against any cluster; only the quick start brings its own Kafka and Elasticsearch");

    @ArchTest
    static final ArchRule theJobDoesNotDependOnToolsBuiltOnIt = noClasses()
            .should().dependOnClassesThat().resideInAnyPackage("io.kes.bench..", "io.kes.torture..");
}
