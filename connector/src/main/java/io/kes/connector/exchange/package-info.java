/**
 * The exchange before the bulk writers: {@link io.kes.connector.exchange.SlotExchange} builds the
 * sink's pre-write topology, keyed by shard slot (a router chained to the input, one writer per
 * slot) or chained (a writer in each input subtask).
 */
package io.kes.connector.exchange;
