package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import io.kes.jobs.config.KesConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * README.md is the project's front door: small, linking to nothing outside the repository, and
 * every relative link in it and in docs/ lands on a file that exists, and on a heading of it where
 * the link names one, so a doc moved or a section renamed cannot leave a dead link behind.
 * {@link ResultsCitedTest} keeps bench/results and the README's numbers in step. Tests run with the module's folder as working directory; the
 * repository is its parent.
 */
class DocsLinksTest {

    /** What the front door may weigh; everything else belongs in docs/. */
    private static final long README_MAX_BYTES = 12_288;

    /** A markdown link or image: its target, up to ')' or a title after whitespace. */
    private static final Pattern LINK = Pattern.compile("\\]\\(\\s*<?([^)\\s>]+)>?(?:\\s+[\"'(][^)]*)?\\)");

    /** A target with a scheme (https:, mailto:) leaves the repository; a relative one does not. */
    private static final Pattern SCHEME = Pattern.compile("^[A-Za-z][A-Za-z0-9+.-]*:");

    private static final Pattern WEB_ADDRESS = Pattern.compile("https?://[^\\s)>\\]]*", Pattern.CASE_INSENSITIVE);

    private static final Pattern INLINE_CODE = Pattern.compile("`[^`]*`");

    private static final Path ROOT = repositoryRoot();

    @Test
    void theReadmeStaysWithin12KiB() throws IOException {
        long size = Files.size(ROOT.resolve("README.md"));

        assertThat(size)
                .as(
                        "README.md is the front door: keep it within %d bytes and move the details into docs/",
                        README_MAX_BYTES)
                .isLessThanOrEqualTo(README_MAX_BYTES);
    }

    /**
     * Prose and links only: a value in a code block ({@code hosts: [http://127.0.0.1:9200]}) or a
     * code span is no link, and stays allowed.
     */
    @Test
    void theReadmeLinksToNothingOutsideTheRepository() throws IOException {
        List<String> lines = outsideCodeBlocks(ROOT.resolve("README.md"));
        List<String> found = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            Matcher address =
                    WEB_ADDRESS.matcher(INLINE_CODE.matcher(lines.get(i)).replaceAll(""));
            while (address.find()) {
                found.add("line " + (i + 1) + ": " + address.group());
            }
        }

        assertThat(found)
                .as("web links in README.md (name upstream projects instead of linking them)")
                .isEmpty();
    }

    @Test
    void everyRelativeLinkOfTheReadmeAndTheDocsLeadsToAFileThatExists() throws IOException {
        List<Path> files = readmeAndDocs();
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path file : files) {
            Matcher link = LINK.matcher(String.join("\n", outsideCodeBlocks(file)));
            while (link.find()) {
                String target = link.group(1);
                if (target.startsWith("#") || SCHEME.matcher(target).find()) {
                    continue;
                }
                int anchor = target.indexOf('#');
                String path = anchor >= 0 ? target.substring(0, anchor) : target;
                checked++;
                if (!Files.exists(file.getParent().resolve(path).normalize())) {
                    broken.add(ROOT.relativize(file) + ": " + target);
                }
            }
        }

        assertThat(checked)
                .as("relative links found in README.md and docs/*.md")
                .isPositive();
        assertThat(broken)
                .as("relative links to files that do not exist (resolved from the linking file's folder)")
                .isEmpty();
    }

    /**
     * A link's {@code #anchor} names a heading of the page it leads to (GitHub's slug of it: lower
     * case, punctuation dropped, spaces as hyphens), so a section renamed or removed cannot leave a
     * link that opens the page at its top.
     */
    @Test
    void everyAnchorOfALinkLeadsToAHeadingThatExists() throws IOException {
        List<String> broken = new ArrayList<>();
        int checked = 0;
        for (Path file : readmeAndDocs()) {
            Matcher link = LINK.matcher(String.join("\n", outsideCodeBlocks(file)));
            while (link.find()) {
                String target = link.group(1);
                int anchor = target.indexOf('#');
                if (anchor < 0 || SCHEME.matcher(target).find()) {
                    continue;
                }
                Path page = anchor == 0
                        ? file
                        : file.getParent().resolve(target.substring(0, anchor)).normalize();
                if (!page.getFileName().toString().endsWith(".md") || !Files.isRegularFile(page)) {
                    continue;
                }
                checked++;
                if (!anchors(page).contains(target.substring(anchor + 1))) {
                    broken.add(ROOT.relativize(file) + ": " + target);
                }
            }
        }

        assertThat(checked)
                .as("links with an #anchor in README.md and docs/*.md")
                .isPositive();
        assertThat(broken)
                .as("links whose #anchor is no heading of the page they lead to")
                .isEmpty();
    }

    private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");

    private static final Pattern NOT_IN_SLUG = Pattern.compile("[^\\p{L}\\p{N}\\p{M}\\p{Pc} -]");

    /** The anchors GitHub gives a page's headings; a repeated slug gets -1, -2, ... */
    private static List<String> anchors(Path page) throws IOException {
        List<String> anchors = new ArrayList<>();
        Map<String, Integer> seen = new java.util.HashMap<>();
        for (String line : outsideCodeBlocks(page)) {
            Matcher heading = HEADING.matcher(line);
            if (!heading.matches()) {
                continue;
            }
            String text = heading.group(1).replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1");
            String slug = NOT_IN_SLUG
                    .matcher(text.toLowerCase(java.util.Locale.ROOT))
                    .replaceAll("")
                    .replace(' ', '-');
            int n = seen.merge(slug, 1, Integer::sum) - 1;
            anchors.add(n == 0 ? slug : slug + "-" + n);
        }
        return anchors;
    }

    /** README.md and docs/*.md, in order. */
    private static List<Path> readmeAndDocs() throws IOException {
        List<Path> files = new ArrayList<>();
        files.add(ROOT.resolve("README.md"));
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            docs.filter(p -> p.getFileName().toString().endsWith(".md"))
                    .sorted()
                    .forEach(files::add);
        }
        return files;
    }

    /** A relative path in prose or a code span ({@code ../x/y.md}), where a link may hide as text. */
    private static final Pattern RELATIVE_PATH = Pattern.compile("(?<![\\w./-])((?:\\.\\./)+[\\w./-]*)");

    /**
     * Docs name nothing outside the repository, linked or not: a reader of a clone has only the
     * clone ({@code ../shared/DESIGN.md} in a code span pointed at a folder beside the checkout).
     * A {@code ../} path outside a code block must lead to a file of the repository.
     */
    @Test
    void theReadmeAndTheDocsNamePathsOnlyInsideTheRepository() throws IOException {
        List<Path> files = readmeAndDocs();
        List<String> outside = new ArrayList<>();
        for (Path file : files) {
            List<String> lines = outsideCodeBlocks(file);
            for (int i = 0; i < lines.size(); i++) {
                Matcher path = RELATIVE_PATH.matcher(lines.get(i));
                while (path.find()) {
                    Path named = file.getParent().resolve(path.group(1)).normalize();
                    if (!named.startsWith(ROOT) || !Files.exists(named)) {
                        outside.add(ROOT.relativize(file) + " line " + (i + 1) + ": " + path.group(1));
                    }
                }
            }
        }
        assertThat(outside)
                .as("../ paths in README.md and docs/*.md that lead outside the repository or to nothing")
                .isEmpty();
    }

    /** The README's YAML job in five minutes is one the job accepts, word for word. */
    @Test
    void theReadmesYamlJobIsAConfigTheJobAccepts() throws IOException {
        List<String> lines = Files.readAllLines(ROOT.resolve("README.md"));
        int start = lines.indexOf("```yaml");
        assertThat(start).as("a ```yaml block in README.md").isNotNegative();
        int end = lines.subList(start + 1, lines.size()).indexOf("```") + start + 1;
        assertThat(end).as("the end of README.md's ```yaml block").isGreaterThan(start);
        String yaml = String.join("\n", lines.subList(start + 1, end));

        assertThatCode(() -> KesConfig.parse(yaml, Map.of())).doesNotThrowAnyException();
    }

    /** The file's lines, those of fenced code blocks (``` or ~~~) blanked, so line numbers stay. */
    private static List<String> outsideCodeBlocks(Path file) throws IOException {
        List<String> out = new ArrayList<>();
        String fence = null;
        for (String line : Files.readAllLines(file)) {
            String trimmed = line.strip();
            if (fence == null && (trimmed.startsWith("```") || trimmed.startsWith("~~~"))) {
                fence = trimmed.substring(0, 3);
                out.add("");
            } else if (fence != null) {
                if (trimmed.startsWith(fence)) {
                    fence = null;
                }
                out.add("");
            } else {
                out.add(line);
            }
        }
        return out;
    }

    private static Path repositoryRoot() {
        Path here = Path.of("").toAbsolutePath();
        boolean atRoot = Files.isRegularFile(here.resolve("README.md")) && Files.isDirectory(here.resolve("docs"));
        return atRoot ? here : here.getParent();
    }
}
