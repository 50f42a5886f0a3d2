package io.kes.connector.cluster;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Checks a SigV4 signature as AWS does, written from the specification (AWS's "Create a signed AWS
 * API request" steps), not from the SDK kes signs with: it recomputes the canonical request from what
 * arrived (method, raw path and query, the headers the signature names, the body's own SHA-256),
 * the string to sign and the signature, with the secret it knows for the access key, and refuses a
 * request whose signature differs, whose body does not hash to its {@code x-amz-content-sha256},
 * that leaves an {@code x-amz-*} header or {@code host} unsigned (or, for {@code aoss}, lacks
 * {@code x-amz-content-sha256}), or that is more than 5 minutes off. Paths are encoded once more as they arrive (AWS's rule for every service but S3).
 */
final class SigV4Verifier {

    private static final Pattern AUTHORIZATION =
            Pattern.compile("AWS4-HMAC-SHA256 Credential=([^/]+)/(\\d{8})/([^/]+)/([^/]+)/aws4_request, "
                    + "SignedHeaders=([a-z0-9;\\-]+), Signature=([0-9a-f]{64})");
    private static final DateTimeFormatter AMZ_DATE =
            DateTimeFormatter.ofPattern("yyyyMMdd'T'HHmmss'Z'").withZone(ZoneOffset.UTC);

    /** The request as it arrived; header names in any case, each occurrence once in the list. */
    record Arrived(
            String method, String rawPath, String rawQuery, List<Map.Entry<String, String>> headers, byte[] body) {

        List<String> values(String name) {
            return headers.stream()
                    .filter(h -> h.getKey().equalsIgnoreCase(name))
                    .map(Map.Entry::getValue)
                    .toList();
        }
    }

    private final String region;
    private final String service;
    private final Function<String, String> secrets;

    /** {@code secrets}: the secret key of an access key id, null for an unknown one. */
    SigV4Verifier(String region, String service, Function<String, String> secrets) {
        this.region = region;
        this.service = service;
        this.secrets = secrets;
    }

    /** Null when the signature holds, else why not (what AWS would answer with its 403). */
    String refusal(Arrived request, Instant now) {
        List<String> authorization = request.values("Authorization");
        if (authorization.size() != 1) {
            return "Missing Authentication Token";
        }
        Matcher m = AUTHORIZATION.matcher(authorization.get(0));
        if (!m.matches()) {
            return "Authorization header is not AWS4-HMAC-SHA256: " + authorization.get(0);
        }
        String secret = secrets.apply(m.group(1));
        if (secret == null) {
            return "The security token included in the request is invalid.";
        }
        if (!m.group(3).equals(region) || !m.group(4).equals(service)) {
            return "Credential should be scoped to region '" + region + "' and service '" + service + "'";
        }
        List<String> date = request.values("X-Amz-Date");
        if (date.size() != 1 || !date.get(0).startsWith(m.group(2))) {
            return "X-Amz-Date is missing or does not match the credential's date";
        }
        Instant signedAt = AMZ_DATE.parse(date.get(0), Instant::from);
        if (Duration.between(signedAt, now).abs().compareTo(Duration.ofMinutes(5)) > 0) {
            return "Signature expired: " + date.get(0) + " is more than 5 minutes from " + AMZ_DATE.format(now);
        }
        List<String> signed = List.of(m.group(5).split(";"));
        for (Map.Entry<String, String> header : request.headers()) {
            String name = header.getKey().toLowerCase(Locale.ROOT);
            if ((name.equals("host") || name.startsWith("x-amz-")) && !signed.contains(name)) {
                return "header " + name + " is not signed";
            }
        }
        String bodyHash = hex(sha256(request.body()));
        List<String> claimed = request.values("x-amz-content-sha256");
        if (claimed.isEmpty() && service.equals("aoss")) {
            return "OpenSearch Serverless requires the x-amz-content-sha256 header";
        }
        if (!claimed.isEmpty() && !claimed.get(0).equals(bodyHash)) {
            return "The provided 'x-amz-content-sha256' header does not match what was computed.";
        }
        StringBuilder canonical = new StringBuilder()
                .append(request.method())
                .append('\n')
                .append(canonicalPath(request.rawPath()))
                .append('\n')
                .append(canonicalQuery(request.rawQuery()))
                .append('\n');
        for (String name : signed) {
            canonical
                    .append(name)
                    .append(':')
                    .append(request.values(name).stream()
                            .map(v -> v.trim().replaceAll("\\s+", " "))
                            .collect(Collectors.joining(",")))
                    .append('\n');
        }
        canonical.append('\n').append(m.group(5)).append('\n').append(bodyHash);
        String scope = m.group(2) + "/" + region + "/" + service + "/aws4_request";
        String toSign = "AWS4-HMAC-SHA256\n" + date.get(0) + "\n" + scope + "\n"
                + hex(sha256(canonical.toString().getBytes(StandardCharsets.UTF_8)));
        byte[] key = hmac(("AWS4" + secret).getBytes(StandardCharsets.UTF_8), m.group(2));
        key = hmac(hmac(hmac(key, region), service), "aws4_request");
        String expected = hex(hmac(key, toSign));
        if (!MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.US_ASCII), m.group(6).getBytes(StandardCharsets.US_ASCII))) {
            return "The request signature we calculated does not match the signature you provided. Check your "
                    + "AWS Secret Access Key and signing method.";
        }
        return null;
    }

    /** Each segment of the path as it arrived, encoded once more; an empty path is {@code /}. */
    private static String canonicalPath(String rawPath) {
        if (rawPath == null || rawPath.isEmpty()) {
            return "/";
        }
        String[] segments = rawPath.split("/", -1);
        List<String> encoded = new ArrayList<>();
        for (String segment : segments) {
            encoded.add(encode(segment));
        }
        return String.join("/", encoded);
    }

    private static String canonicalQuery(String rawQuery) {
        if (rawQuery == null || rawQuery.isEmpty()) {
            return "";
        }
        List<String[]> pairs = new ArrayList<>();
        for (String pair : rawQuery.split("&")) {
            int eq = pair.indexOf('=');
            String name = eq < 0 ? pair : pair.substring(0, eq);
            String value = eq < 0 ? "" : pair.substring(eq + 1);
            pairs.add(new String[] {encode(decode(name)), encode(decode(value))});
        }
        pairs.sort((a, b) -> a[0].equals(b[0]) ? a[1].compareTo(b[1]) : a[0].compareTo(b[0]));
        return pairs.stream().map(p -> p[0] + "=" + p[1]).collect(Collectors.joining("&"));
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /** RFC 3986: everything but the unreserved characters, as %XY of its UTF-8 bytes. */
    private static String encode(String s) {
        StringBuilder out = new StringBuilder();
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || "-._~".indexOf(c) >= 0) {
                out.append(c);
            } else {
                out.append('%').append(String.format("%02X", b & 0xff));
            }
        }
        return out.toString();
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] hmac(byte[] key, String data) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(key, "HmacSHA256"));
            return mac.doFinal(data.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    static String hex(byte[] bytes) {
        return HexFormat.of().formatHex(bytes);
    }

    static String sha256Hex(byte[] bytes) {
        return hex(sha256(bytes));
    }
}
