package io.kes.bench.official;

/** One Kafka record on its way to Elasticsearch: kes's id for it and its JSON value, untouched. */
public class KafkaDocument {

    public String id;
    public byte[] source;

    public KafkaDocument() {}

    KafkaDocument(String id, byte[] source) {
        this.id = id;
        this.source = source;
    }
}
