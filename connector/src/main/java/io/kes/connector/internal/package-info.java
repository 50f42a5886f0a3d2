/** Helpers with no stage of their own (serialization, backoff); never used outside the connector. */
package io.kes.connector.internal;
