/**
 * The Kafka dead-letter topic: {@code DeadLetterQueue} writes failed records with their origin and
 * reason, {@code DeadLetterFailureHandler} is the sink's {@link io.kes.connector.FailureHandler}
 * over it. Used by the kes job (decode and index stages) and by {@code 'failure-handler' =
 * 'dead-letter'} tables. The only classes that need {@code kafka-clients}.
 */
package io.kes.connector.deadletter;
