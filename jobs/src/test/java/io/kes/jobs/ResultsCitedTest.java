package io.kes.jobs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * bench/results holds the raw data of the runs the docs publish, and nothing else: every folder in
 * it is cited by README.md or a page under docs/, and every number the README quotes beside a
 * link to a results file is in that file, so a table rerun or a folder removed cannot leave the
 * README's claim behind. Text only, no servers.
 */
class ResultsCitedTest {

    private static final Path ROOT = repositoryRoot();

    /** A link to a file under bench/results: its target. */
    private static final Pattern RESULTS_LINK = Pattern.compile("\\]\\((bench/results/[^)\\s#]+)\\)");

    /** Any markdown link target, left out when numbers are read from the prose. */
    private static final Pattern LINK_TARGET = Pattern.compile("\\]\\([^)]*\\)");

    /** A decimal number of the prose: 1.64, 0.02, 8.19. */
    private static final Pattern DECIMAL = Pattern.compile("(?<![\\d.])\\d+\\.\\d+(?![\\d])");

    @Test
    void everyFolderOfBenchResultsIsCitedByADoc() throws IOException {
        String docs = String.join("\n", docsText());
        List<String> uncited = new ArrayList<>();
        try (Stream<Path> folders = Files.list(ROOT.resolve("bench/results"))) {
            for (Path folder : folders.sorted().toList()) {
                String name = folder.getFileName().toString();
                if (!Pattern.compile("bench/results/" + Pattern.quote(name) + "(?![\\w.-])")
                        .matcher(docs)
                        .find()) {
                    uncited.add(name);
                }
            }
        }

        assertThat(uncited)
                .as("bench/results entries no doc cites: cite each published run from the doc that shows its"
                        + " table, or remove it (git history keeps it)")
                .isEmpty();
    }

    @Test
    void everyNumberTheReadmeQuotesBesideAResultsLinkIsInTheFilesItCites() throws IOException {
        int paragraphsChecked = 0;
        List<String> missing = new ArrayList<>();
        for (String paragraph : paragraphs(ROOT.resolve("README.md"))) {
            Matcher link = RESULTS_LINK.matcher(paragraph);
            StringBuilder cited = new StringBuilder();
            List<String> files = new ArrayList<>();
            while (link.find()) {
                Path file = ROOT.resolve(link.group(1));
                assertThat(file).as("the README cites %s", link.group(1)).isRegularFile();
                cited.append(Files.readString(file)).append('\n');
                files.add(link.group(1));
            }
            if (files.isEmpty()) {
                continue;
            }
            paragraphsChecked++;
            Matcher number = DECIMAL.matcher(LINK_TARGET.matcher(paragraph).replaceAll("]"));
            while (number.find()) {
                String quoted = number.group();
                Pattern inFile = Pattern.compile("(?<![\\d.])" + Pattern.quote(quoted) + "(?!\\d)");
                if (!inFile.matcher(cited).find()) {
                    missing.add(quoted + " (cites " + files + ")");
                }
            }
        }

        assertThat(paragraphsChecked)
                .as("README paragraphs that cite a file under bench/results")
                .isPositive();
        assertThat(missing)
                .as("numbers the README quotes that the results files it cites beside them do not hold")
                .isEmpty();
    }

    /** README.md and every page under docs/, code blocks included (a command may name a results file). */
    private static List<String> docsText() throws IOException {
        List<String> texts = new ArrayList<>();
        texts.add(Files.readString(ROOT.resolve("README.md")));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            for (Path doc :
                    docs.filter(p -> p.toString().endsWith(".md")).sorted().toList()) {
                texts.add(Files.readString(doc));
            }
        }
        return texts;
    }

    /** The file's paragraphs outside fenced code blocks, each joined into one line. */
    private static List<String> paragraphs(Path file) throws IOException {
        List<String> paragraphs = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        boolean inCode = false;
        for (String line : Files.readAllLines(file)) {
            String trimmed = line.strip();
            if (trimmed.startsWith("```") || trimmed.startsWith("~~~")) {
                inCode = !inCode;
                continue;
            }
            if (inCode) {
                continue;
            }
            if (trimmed.isEmpty()) {
                if (!current.isEmpty()) {
                    paragraphs.add(current.toString());
                    current.setLength(0);
                }
            } else {
                current.append(current.isEmpty() ? "" : " ").append(trimmed);
            }
        }
        if (!current.isEmpty()) {
            paragraphs.add(current.toString());
        }
        return paragraphs;
    }

    private static Path repositoryRoot() {
        Path here = Path.of("").toAbsolutePath();
        boolean atRoot = Files.isRegularFile(here.resolve("README.md")) && Files.isDirectory(here.resolve("docs"));
        return atRoot ? here : here.getParent();
    }
}
