package io.kes.jobs.migrate;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * docs/migration-from-kafka-connect.md's option table is {@link MigrationGuide#table()}: the guide
 * says what the command does. Run with {@code -Dkes.docs.update=true} to rewrite it after changing
 * a row of {@link ConnectOptions}.
 */
class MigrationGuideTest {

    private static final Path GUIDE = Path.of("../docs/migration-from-kafka-connect.md");

    @Test
    void theGuidesTableIsTheOneTheCommandUses() throws Exception {
        String guide = Files.readString(GUIDE);
        int begin = guide.indexOf(MigrationGuide.BEGIN);
        int end = guide.indexOf(MigrationGuide.END);
        assertThat(begin).as("the guide holds the generated table's markers").isNotNegative();
        assertThat(end).isGreaterThan(begin);
        String current = guide.substring(begin, end + MigrationGuide.END.length());
        String expected = MigrationGuide.table();
        if (!current.equals(expected) && Boolean.getBoolean("kes.docs.update")) {
            Files.writeString(GUIDE, guide.replace(current, expected));
            return;
        }
        assertThat(current)
                .as("docs/migration-from-kafka-connect.md's table; rerun with -Dkes.docs.update=true to rewrite it")
                .isEqualTo(expected);
    }

    @Test
    void noTwoRowsShareAKey() {
        assertThat(ConnectOptions.ALL).extracting(ConnectOption::key).doesNotHaveDuplicates();
    }

    /** A prefix row listed before a row it also matches would take that row's options: the first match wins. */
    @Test
    void everyRowIsTheOneItsOptionsFind() {
        for (ConnectOption o : ConnectOptions.ALL) {
            String option = o.prefix() ? o.key() + "some.option" : o.key();
            assertThat(ConnectOptions.find(option)).as(option).contains(o);
        }
    }
}
