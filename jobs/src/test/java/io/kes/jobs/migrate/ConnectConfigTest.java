package io.kes.jobs.migrate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ConnectConfigTest {

    @Test
    void readsTheConfigMapTheCreateBodyAndProperties() {
        assertThat(ConnectConfig.parseJson("{\"topics\":\"a\",\"tasks.max\":2}").values())
                .containsEntry("topics", "a")
                .containsEntry("tasks.max", "2");
        assertThat(ConnectConfig.parseJson("{\"name\":\"n\",\"config\":{\"topics\":\"a\"}}")
                        .values())
                .containsEntry("name", "n")
                .containsEntry("topics", "a");
        assertThat(ConnectConfig.parseProperties("# c\nname=n\ntopics = a, b\n")
                        .values()
                        .keySet())
                .containsExactly("name", "topics");
        assertThat(ConnectConfig.parseProperties("topics = a, b\n").list("topics"))
                .containsExactly("a", "b");
    }

    @Test
    void nestedValuesAndBadBooleansAreRefused() {
        assertThatThrownBy(() -> ConnectConfig.parseJson("{\"topics\":[\"a\"]}"))
                .hasMessageContaining("connector option topics is a JSON array");
        assertThatThrownBy(() -> ConnectConfig.parseProperties("key.ignore=yes").bool("key.ignore", false))
                .hasMessage("key.ignore must be true or false, got 'yes'");
    }
}
