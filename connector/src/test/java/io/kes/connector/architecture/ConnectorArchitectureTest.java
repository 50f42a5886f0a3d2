package io.kes.connector.architecture;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.domain.JavaCodeUnit;
import com.tngtech.archunit.core.domain.JavaField;
import com.tngtech.archunit.core.domain.JavaMember;
import com.tngtech.archunit.core.domain.JavaModifier;
import com.tngtech.archunit.core.domain.JavaType;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import io.kes.connector.SinkSettings;
import io.kes.connector.cluster.RestClients;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.flink.annotation.Internal;
import org.apache.flink.annotation.PublicEvolving;

/**
 * The connector's layering, as docs/architecture.md draws it: the API package on top, the exchange
 * that builds the writer topology (exchange), the write path below it (bulk), then the stages it
 * uses (fence, routing, cluster), then internal helpers. An arrow never runs back up, and every
 * public class says whether users may depend on it.
 */
@AnalyzeClasses(packages = "io.kes.connector", importOptions = ImportOption.DoNotIncludeTests.class)
class ConnectorArchitectureTest {

    @ArchTest
    static final ArchRule everyPublicTopLevelClassSaysWhetherItIsApi = classes()
            .that()
            .arePublic()
            .and()
            .areTopLevelClasses()
            .should()
            .beAnnotatedWith(PublicEvolving.class)
            .orShould()
            .beAnnotatedWith(Internal.class)
            .because("users need to know what they may depend on (Flink's own convention)");

    /**
     * The public API, exactly: what a user needs to build the sink, feed it, handle what it refuses
     * and configure it from SQL. docs/architecture.md says why each class is here. Adding one is a
     * promise to users, so it is a change to this list and to that table, never a side effect of
     * marking a class {@code @PublicEvolving}; routing and cluster reads stay {@code @Internal}.
     */
    static final Set<String> THE_API = Set.of(
            "io.kes.connector.ElasticsearchSink",
            "io.kes.connector.ElasticsearchSinkBuilder",
            "io.kes.connector.ElasticsearchSinkOptions",
            "io.kes.connector.SinkSettings",
            "io.kes.connector.Durability",
            "io.kes.connector.DocumentOperation",
            "io.kes.connector.OpType",
            "io.kes.connector.RecordOrigin",
            "io.kes.connector.FailureHandler",
            "io.kes.connector.FailedOperation",
            "io.kes.connector.NonRecoverable",
            "io.kes.connector.IndexNameTemplate",
            "io.kes.connector.KafkaCoordinateId",
            "io.kes.connector.table.KesTableOptions",
            "io.kes.connector.deadletter.DeadLetterQueue",
            "io.kes.connector.deadletter.DeadLetterFailureHandler");

    @ArchTest
    static void theApiIsExactlyTheListedClasses(JavaClasses classes) {
        Set<String> marked = new TreeSet<>();
        for (JavaClass c : classes) {
            if (c.isTopLevelClass() && c.isAnnotatedWith(PublicEvolving.class)) {
                marked.add(c.getName());
            }
        }
        assertThat(marked).as("top-level classes marked @PublicEvolving").isEqualTo(new TreeSet<>(THE_API));
    }

    /**
     * An API class does not hand out or take an internal one: a public or protected member of the
     * API (or of a public class nested in it) names only API types, the JDK's, Flink's and other
     * libraries'. A member kes itself needs across packages is marked {@code @Internal}
     * ({@code SinkSettings.authorization()}) and is not part of the promise.
     */
    @ArchTest
    static void theApiExposesNoInternalClass(JavaClasses classes) {
        List<String> exposed = new ArrayList<>();
        for (JavaClass c : classes) {
            if (!isApi(c) || !c.getModifiers().contains(JavaModifier.PUBLIC)) {
                continue;
            }
            c.getRawSuperclass()
                    .filter(t -> !isApiOrForeign(t))
                    .ifPresent(t -> exposed.add(c.getName() + " extends " + t.getName()));
            c.getRawInterfaces().stream()
                    .filter(t -> !isApiOrForeign(t))
                    .forEach(t -> exposed.add(c.getName() + " implements " + t.getName()));
            for (JavaMember m : c.getMembers()) {
                Set<JavaModifier> mod = m.getModifiers();
                if (!(mod.contains(JavaModifier.PUBLIC) || mod.contains(JavaModifier.PROTECTED))
                        || m.isAnnotatedWith(Internal.class)) {
                    continue;
                }
                List<JavaType> types = new ArrayList<>();
                if (m instanceof JavaField f) {
                    types.add(f.getType());
                } else if (m instanceof JavaCodeUnit u) {
                    types.add(u.getReturnType());
                    types.addAll(u.getParameterTypes());
                }
                for (JavaType t : types) {
                    for (JavaClass raw : t.getAllInvolvedRawTypes()) {
                        if (!isApiOrForeign(raw)) {
                            exposed.add(m.getFullName() + " names " + raw.getName());
                        }
                    }
                }
            }
        }
        assertThat(exposed).as("API members naming internal classes").isEmpty();
    }

    private static boolean isApi(JavaClass c) {
        JavaClass top = c;
        while (top.getEnclosingClass().isPresent()) {
            top = top.getEnclosingClass().get();
        }
        return THE_API.contains(top.getName());
    }

    private static boolean isApiOrForeign(JavaClass c) {
        return !c.getPackageName().startsWith("io.kes.") || isApi(c);
    }

    @ArchTest
    static final ArchRule onlyTheRestClientReadsTheCredentials = noClasses()
            .that()
            .doNotHaveFullyQualifiedName(RestClients.class.getName())
            .should()
            .callMethod(SinkSettings.class, "authorization")
            .because("the password and the API key go to Elasticsearch in the REST client's header, nowhere else");

    @ArchTest
    static final ArchRule theConnectorNeverDependsOnTheJobOrTheTestStack = noClasses()
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.kes.jobs..", "io.kes.stack..", "io.kes.bench..", "io.kes.torture..");

    /** The exchange is built by the sink and builds the writers: nothing below it knows it. */
    @ArchTest
    static final ArchRule onlyTheSinkKnowsTheExchange = noClasses()
            .that()
            .resideInAnyPackage(
                    "io.kes.connector.bulk..",
                    "io.kes.connector.fence..",
                    "io.kes.connector.routing..",
                    "io.kes.connector.cluster..",
                    "io.kes.connector.internal..",
                    "io.kes.connector.deadletter..",
                    "io.kes.connector.table..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.kes.connector.exchange..")
            .because("the exchange sits between the sink's API and the bulk writers: documents reach the writers "
                    + "through it, and no stage below reaches back");

    @ArchTest
    static final ArchRule routingDoesNotKnowTheWritePathOrTheFence = noClasses()
            .that()
            .resideInAPackage("io.kes.connector.routing..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.kes.connector.bulk..", "io.kes.connector.fence..");

    @ArchTest
    static final ArchRule theFenceDoesNotKnowTheWritePath = noClasses()
            .that()
            .resideInAPackage("io.kes.connector.fence..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("io.kes.connector.bulk..");

    @ArchTest
    static final ArchRule clusterAccessIsTheBottomLayer = noClasses()
            .that()
            .resideInAPackage("io.kes.connector.cluster..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("io.kes.connector.bulk..", "io.kes.connector.fence..", "io.kes.connector.routing..");

    @ArchTest
    static final ArchRule internalHelpersDependOnNoStage = noClasses()
            .that()
            .resideInAPackage("io.kes.connector.internal..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                    "io.kes.connector.bulk..",
                    "io.kes.connector.fence..",
                    "io.kes.connector.routing..",
                    "io.kes.connector.cluster..");
}
