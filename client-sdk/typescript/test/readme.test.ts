// The README's examples are the code the e2e tests run: every region of
// examples/readme_examples.ts must appear verbatim (dedented) in README.md.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const root = new URL("..", import.meta.url);

function regions(source: string): Map<string, string> {
  const out = new Map<string, string>();
  let name: string | undefined;
  let lines: string[] = [];
  for (const line of source.split("\n")) {
    const trimmed = line.trim();
    if (trimmed.startsWith("// region: ")) {
      name = trimmed.slice("// region: ".length);
      lines = [];
    } else if (trimmed === "// endregion") {
      assert.ok(name !== undefined, "endregion without region");
      const indent = Math.min(
        ...lines.filter((l) => l.trim() !== "").map((l) => l.length - l.trimStart().length),
      );
      out.set(name, lines.map((l) => l.slice(indent)).join("\n"));
      name = undefined;
    } else if (name !== undefined) {
      lines.push(line);
    }
  }
  assert.equal(name, undefined, "unterminated region");
  return out;
}

test("README shows every example verbatim", () => {
  const readme = readFileSync(new URL("README.md", root), "utf8");
  const found = regions(readFileSync(new URL("examples/readme_examples.ts", root), "utf8"));
  assert.ok(found.size >= 3);
  for (const [name, body] of found) {
    const block = "```ts\n" + body + "\n```";
    assert.ok(readme.includes(block), `README.md lacks the ${name} example:\n${block}`);
  }
});
