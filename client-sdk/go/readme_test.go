package onebotgateway_test

import (
	"os"
	"strings"
	"testing"
)

// regions returns the dedented bodies of the "// region: <name>" blocks of source.
func regions(t *testing.T, source string) map[string]string {
	out := map[string]string{}
	name := ""
	var lines []string
	for _, line := range strings.Split(source, "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "// region: "):
			name, lines = strings.TrimPrefix(trimmed, "// region: "), nil
		case trimmed == "// endregion":
			if name == "" {
				t.Fatal("endregion without region")
			}
			indent := -1
			for _, l := range lines {
				if strings.TrimSpace(l) == "" {
					continue
				}
				n := len(l) - len(strings.TrimLeft(l, "\t "))
				if indent < 0 || n < indent {
					indent = n
				}
			}
			body := make([]string, len(lines))
			for i, l := range lines {
				if len(l) >= indent && indent >= 0 {
					body[i] = l[indent:]
				}
			}
			out[name] = strings.Join(body, "\n")
			name = ""
		case name != "":
			lines = append(lines, line)
		}
	}
	if name != "" {
		t.Fatalf("unterminated region %s", name)
	}
	return out
}

// TestReadmeShowsEveryExample checks that the README's examples are the code the e2e tests
// run: every region of readme_examples_test.go appears verbatim (dedented) in README.md.
func TestReadmeShowsEveryExample(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	source, err := os.ReadFile("readme_examples_test.go")
	if err != nil {
		t.Fatal(err)
	}
	found := regions(t, string(source))
	if len(found) < 3 {
		t.Fatalf("found only %d regions", len(found))
	}
	for name, body := range found {
		block := "```go\n" + body + "\n```"
		if !strings.Contains(string(readme), block) {
			t.Errorf("README.md lacks the %s example:\n%s", name, block)
		}
	}
}
