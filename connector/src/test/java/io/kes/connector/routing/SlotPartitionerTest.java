package io.kes.connector.routing;

import static org.assertj.core.api.Assertions.assertThat;

import io.kes.connector.DocumentOperation;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class SlotPartitionerTest {

    private final SlotPartitioner partitioner = new SlotPartitioner();

    private static DocumentOperation doc(String index, String id, int shard, int shards) {
        return DocumentOperation.index(index, id, "{}").withShard(shard, shards);
    }

    @Test
    void allDocumentsOfOneShardGoToOneSubtaskWhenShardsOutnumberSubtasks() {
        Map<Integer, Set<Integer>> subtasksByShard = new HashMap<>();
        for (int i = 0; i < 10_000; i++) {
            int shard = i % 12;
            subtasksByShard.computeIfAbsent(shard, s -> new HashSet<>())
                    .add(partitioner.partition(doc("logs", "id-" + i, shard, 12), 4));
        }
        subtasksByShard.values().forEach(subtasks -> assertThat(subtasks).hasSize(1));
    }

    @Test
    void shardsOfOneIndexAreSpreadEvenlyOverSubtasks() {
        int[] slotsPerSubtask = new int[4];
        for (int shard = 0; shard < 12; shard++) {
            slotsPerSubtask[partitioner.partition(doc("logs", "x", shard, 12), 4)]++;
        }
        assertThat(slotsPerSubtask).containsOnly(3);
    }

    @Test
    void everySubtaskGetsWorkWhenTheIndexHasFewerShardsThanSubtasks() {
        Set<Integer> used = new HashSet<>();
        for (int i = 0; i < 10_000; i++) {
            used.add(partitioner.partition(doc("small", "id-" + i, i % 2, 2), 6));
        }
        assertThat(used).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
    }

    @Test
    void documentsWithUnknownShardAreSpreadByIdAndStable() {
        DocumentOperation unknown = DocumentOperation.index("logs", "abc", "{}");
        int first = partitioner.partition(unknown, 8);
        assertThat(partitioner.partition(unknown, 8)).isEqualTo(first);
        Set<Integer> used = new HashSet<>();
        for (int i = 0; i < 1000; i++) {
            used.add(partitioner.partition(DocumentOperation.index("logs", "id-" + i, "{}"), 8));
        }
        assertThat(used).hasSize(8);
    }
}
