package io.kes.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NodeProfilerTest {

    @Test
    void samplesGoToTheFirstStageOnTheirStackAndTheRestToAnythingElse() {
        Map<String, Long> stages = NodeProfiler.byStage(List.of(
                // a merge thread's stack holds IndexWriter frames too: merges win, they come first
                "Thread::run;org/apache/lucene/index/ConcurrentMergeScheduler$MergeThread.run;org/apache/lucene/index/IndexWriter.merge;foo 7",
                "java/lang/Thread.run;org/elasticsearch/action/bulk/TransportShardBulkAction.dispatchedShardOperationOnPrimary;"
                        + "org/elasticsearch/index/engine/InternalEngine.index;org/apache/lucene/index/IndexWriter.softUpdateDocument;x 11",
                "java/lang/Thread.run;org/elasticsearch/action/bulk/TransportShardBulkAction.executeBulkItemRequest;y 3",
                "thread_native_entry;WorkerThread::run;G1ParScanThreadState::trim_queue_to_threshold 5",
                "java/lang/Thread.run;something/Unknown.run 2",
                "not a collapsed line"));
        assertEquals(7L, stages.get("Lucene merges"));
        assertEquals(11L, stages.get("Lucene: index the document"));
        assertEquals(3L, stages.get("shard bulk: the rest"));
        assertEquals(5L, stages.get("GC"));
        assertEquals(2L, stages.get(NodeProfiler.OTHER));
        assertEquals(28L, stages.values().stream().mapToLong(Long::longValue).sum());
    }
}
