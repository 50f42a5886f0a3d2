/**
 * The write path, per writer subtask: predict each document's shard (through {@code routing}),
 * buffer it in its (index, shard) slot ({@code SlotBuffers}, {@code SlotTable}, {@code BulkBody}),
 * send each full slot as one single-shard {@code _bulk} to its primary's node ({@code BulkDispatcher}),
 * sort the items of each response ({@code ItemOutcomes}) and retry, hand over or acknowledge them
 * ({@code BulkAnswers}, {@code Retries}); {@code BulkWriter} coordinates them on the task thread.
 * At a checkpoint barrier the writer closes an epoch ({@code CheckpointDrain}) and hands it to the
 * {@code fence}. Batching and bulk requests share this package because they share the buffers'
 * encoded bytes package-privately; nothing outside it needs them.
 */
package io.kes.connector.bulk;
