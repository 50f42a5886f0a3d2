/** Helpers with no stage of their own (serialization, backoff, operator factories); never used outside the connector. */
package io.kes.connector.internal;
