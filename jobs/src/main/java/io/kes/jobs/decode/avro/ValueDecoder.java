package io.kes.jobs.decode.avro;

import io.kes.jobs.decode.DecodeException;

/**
 * Turns a record value of a route's {@code format} into the bytes of a JSON object, which
 * {@link io.kes.jobs.decode.DocumentBuilder} then treats exactly like a JSON record. Instances are
 * made on the task manager (one per route and subtask), are not thread-safe and reuse their
 * buffers between records.
 */
public interface ValueDecoder {

    /**
     * @return the JSON object, or null when the value stands for no value (Connect's envelope with a
     *         null payload), which is then taken as a tombstone
     * @throws DecodeException when the value itself cannot be decoded (it then goes to the
     *                         dead-letter topic or stops the job, per {@code errors.tolerance})
     */
    byte[] toJson(byte[] value) throws DecodeException;
}
