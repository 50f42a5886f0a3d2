package io.kes.stack;

import java.nio.charset.StandardCharsets;

/**
 * The answers {@link FaultProxy} gives a client itself, instead of relaying Elasticsearch's: whole
 * HTTP/1.1 responses, byte for byte as Elasticsearch or a load balancer in front of it sends them.
 */
final class ProxyAnswers {

    /** What Elasticsearch answers when its write thread pool queue is full. */
    private static final String REJECTION_BODY =
            "{\"error\":{\"root_cause\":[{\"type\":\"es_rejected_execution_exception\","
                    + "\"reason\":\"rejected execution of coordinating operation [kes fault proxy: 429 storm]\"}],"
                    + "\"type\":\"es_rejected_execution_exception\","
                    + "\"reason\":\"rejected execution of coordinating operation [kes fault proxy: 429 storm]\"},\"status\":429}";

    private ProxyAnswers() {}

    /** What nginx answers when its upstream did not answer in time (504) or failed (502). */
    static byte[] gateway(int status) {
        String reason = status == 504 ? "Gateway Time-out" : status == 502 ? "Bad Gateway" : "Error";
        return message(
                status + " " + reason,
                "text/html",
                "<html>\r\n<head><title>" + status + " " + reason + "</title></head>\r\n<body>\r\n<center><h1>" + status
                        + " " + reason + "</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n");
    }

    /** Elasticsearch's 429 when its write thread pool queue is full. */
    static byte[] rejection() {
        return message("429 Too Many Requests", "application/json", REJECTION_BODY);
    }

    private static byte[] message(String statusLine, String contentType, String text) {
        byte[] body = text.getBytes(StandardCharsets.UTF_8);
        String head = "HTTP/1.1 " + statusLine + "\r\n"
                + "content-type: " + contentType + "\r\n"
                + "content-length: " + body.length + "\r\n\r\n";
        byte[] headBytes = head.getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[headBytes.length + body.length];
        System.arraycopy(headBytes, 0, all, 0, headBytes.length);
        System.arraycopy(body, 0, all, headBytes.length, body.length);
        return all;
    }
}
