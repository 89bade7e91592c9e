package dev.onebotgateway.client;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The README's examples are the code E2eTest runs: every region appears verbatim in README.md. */
class ReadmeTest {
  static Map<String, String> regions(String source) {
    Map<String, String> out = new LinkedHashMap<>();
    String name = null;
    List<String> lines = new ArrayList<>();
    for (String line : source.split("\n", -1)) {
      String trimmed = line.strip();
      if (trimmed.startsWith("// region: ")) {
        name = trimmed.substring("// region: ".length());
        lines = new ArrayList<>();
      } else if (trimmed.equals("// endregion")) {
        int indent =
            lines.stream()
                .filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length())
                .min()
                .orElse(0);
        StringBuilder body = new StringBuilder();
        for (int i = 0; i < lines.size(); i++) {
          String l = lines.get(i);
          body.append(l.length() >= indent ? l.substring(indent) : "");
          if (i < lines.size() - 1) {
            body.append('\n');
          }
        }
        out.put(name, body.toString());
        name = null;
      } else if (name != null) {
        lines.add(line);
      }
    }
    assertNull(name, "unterminated region");
    return out;
  }

  @Test
  void readmeShowsEveryExampleVerbatim() throws IOException {
    String readme = Files.readString(Path.of("README.md"), StandardCharsets.UTF_8);
    String source =
        Files.readString(
            Path.of("src/test/java/dev/onebotgateway/client/ReadmeExamples.java"), StandardCharsets.UTF_8);
    Map<String, String> found = regions(source);
    assertTrue(found.size() >= 3, "found only " + found.size() + " regions");
    for (Map.Entry<String, String> e : found.entrySet()) {
      String block = "```java\n" + e.getValue() + "\n```";
      assertTrue(readme.contains(block), "README.md lacks the " + e.getKey() + " example:\n" + block);
    }
  }
}
