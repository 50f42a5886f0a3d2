/**
 * The write path, per writer subtask: predict each document's shard (through {@code routing}),
 * buffer it in its (index, shard) slot ({@code SlotBuffers}, {@code SlotTable}, {@code BulkBody}),
 * send each slot's buffer as one single-shard {@code _bulk} to its primary's node ({@code BulkDispatcher}).
 * One class decides when a buffer leaves ({@code Departures}: full, or when the pure
 * {@code DepartureRule} says so, queued per node in {@code NodeBudgets}); from the moment it went out
 * one class owns the bulk ({@code BulkLifecycle}) and applies what pure deciders say its answer
 * does ({@code ItemOutcomes} per item, {@code BulkAnswers}, {@code Retries}): acknowledge, retry,
 * split, hand over, give up, or wait for its node.
 * At a checkpoint barrier the writer closes an epoch ({@code CheckpointDrain}) and hands it to the
 * {@code fence}. Batching and bulk requests share this package because they share the buffers'
 * encoded bytes package-privately; nothing outside it needs them.
 */
package io.kes.connector.bulk;
