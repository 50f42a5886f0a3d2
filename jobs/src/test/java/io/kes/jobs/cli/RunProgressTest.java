package io.kes.jobs.cli;

import static io.kes.jobs.config.KafkaSettings.StartingOffsets.COMMITTED;
import static io.kes.jobs.config.KafkaSettings.StartingOffsets.EARLIEST;
import static io.kes.jobs.config.KafkaSettings.StartingOffsets.LATEST;
import static io.kes.jobs.config.KafkaSettings.StartingOffsets.TIMESTAMP;
import static org.assertj.core.api.Assertions.assertThat;

import io.kes.jobs.cli.RouteLag.Partition;
import java.util.List;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

/**
 * The lag {@code bin/kes run} prints: end offset minus the next offset the source reads. Issue 38
 * item 4: a partition the source has not read a record from yet (position -1) lags from where the
 * source resumes (the offset it committed, the group's committed offset after a restore, or its
 * starting offset), not from offset 0: a job restored at its topics' end showed {@code lag
 * 150,000} forever.
 */
class RunProgressTest {

    private static final OptionalLong NONE = OptionalLong.empty();

    private static OptionalLong at(long offset) {
        return OptionalLong.of(offset);
    }

    @Test
    void aPartitionReadFromLagsFromItsPosition() {
        assertThat(new Partition(1_000, 399, NONE).lag()).isEqualTo(at(600));
        assertThat(new Partition(1_000, 999, NONE).lag()).isEqualTo(at(0));
    }

    @Test
    void aRestoredPartitionNotReadYetLagsFromTheOffsetItResumesAt() {
        // restored at the topic's end: the group's committed offset (kes commits on every checkpoint) is the end
        OptionalLong resume = RouteLag.resumeAt(true, COMMITTED, NONE, false, at(50_000), NONE);
        assertThat(new Partition(50_000, -1, resume).lag()).isEqualTo(at(0));
        // the source's own committed offset (its first checkpoint after the restore) wins over the group's
        assertThat(RouteLag.resumeAt(true, EARLIEST, at(49_000), true, at(40_000), at(0)))
                .isEqualTo(at(49_000));
        // a restored job reads from its state, never from starting_offsets
        assertThat(RouteLag.resumeAt(true, EARLIEST, NONE, false, at(40_000), at(0)))
                .isEqualTo(at(40_000));
    }

    /**
     * A checkpoint taken before a partition's first record holds its starting rule, not an offset:
     * restored, the source resolves it as a fresh start does, and so does the lag (an empty
     * partition lags 0, not "unknown"), once the source's first commit shows that the partition
     * had no offset to commit.
     */
    @Test
    void aRestoredPartitionTheCheckpointHeldNoOffsetForResumesWhereStartingOffsetsSays() {
        assertThat(RouteLag.resumeAt(true, EARLIEST, NONE, true, NONE, at(0))).isEqualTo(at(0));
        assertThat(new Partition(0, -1, RouteLag.resumeAt(true, COMMITTED, NONE, true, NONE, at(0))).lag())
                .isEqualTo(at(0));
    }

    /**
     * Restored, with no offset committed to the group (the job before was killed before its
     * commit): the offset is in the checkpoint, known once the source commits it. Until then no
     * lag rather than the whole partition (RestoreLatestIT showed 'lag 200' for a job at its end).
     */
    @Test
    void aPartitionWhoseNextOffsetIsUnknownHasNoLagToShowRatherThanAFalseOne() {
        OptionalLong resume = RouteLag.resumeAt(true, COMMITTED, NONE, false, NONE, at(0));
        assertThat(resume).isEmpty();
        assertThat(new Partition(150_000, -1, resume).lag()).isEmpty();
    }

    @Test
    void aFreshStartResumesWhereStartingOffsetsSays() {
        // committed: the group's offset, else earliest (the start offset given for it)
        assertThat(RouteLag.resumeAt(false, COMMITTED, NONE, false, at(700), at(100)))
                .isEqualTo(at(700));
        assertThat(RouteLag.resumeAt(false, COMMITTED, NONE, false, NONE, at(100)))
                .isEqualTo(at(100));
        // earliest, latest, timestamp: the start offset, whatever the group committed before
        assertThat(RouteLag.resumeAt(false, EARLIEST, NONE, false, at(700), at(100)))
                .isEqualTo(at(100));
        assertThat(RouteLag.resumeAt(false, LATEST, NONE, false, at(700), at(5_000)))
                .isEqualTo(at(5_000));
        assertThat(RouteLag.resumeAt(false, TIMESTAMP, NONE, false, at(700), at(2_500)))
                .isEqualTo(at(2_500));
    }

    @Test
    void aRouteWithAPartitionOfUnknownLagShowsItsKnownLagAsALowerBound() {
        assertThat(RouteLag.total(List.of(at(10), at(5)))).isEqualTo("15");
        assertThat(RouteLag.total(List.of(at(1_200), NONE))).isEqualTo(">= 1,200");
    }
}
