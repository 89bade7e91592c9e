// Validates what the tests recorded against the official Milky schemas (@saltify/milky-types).
//
// Usage: node validate.mjs RECORD.jsonl [...]
// Each line is one of
//   {"kind": "call", "api": "<api>", "request": {...}, "response": {"status", "retcode", "data"|"message"}}
//   {"kind": "event", "event": {...}}
// A request must name a Milky API and match its input schema with no key the schema does not
// know; an ok response's `data` must match the API's output schema; an event must match `Event`.
// Prints one line per invalid record and a summary; exits 1 when anything is invalid.
import { readFileSync } from "node:fs";
import { Event, milkyVersion, zodApiCategories } from "@saltify/milky-types";

const apis = new Map();
for (const category of Object.values(zodApiCategories)) {
  for (const [name, api] of Object.entries(category.apis)) {
    apis.set(name, api);
  }
}

const issues = (error) =>
  error.issues.map((i) => `${i.path.join(".") || "(top)"}: ${i.message}`).join(", ");

// The schemas accept a segment they cannot read as text "[unknown]" instead of failing: such a
// rewrite counts as invalid here.
const UNKNOWN = '"[unknown]"';
const rewritten = (input, output) =>
  JSON.stringify(output).includes(UNKNOWN) && !JSON.stringify(input).includes(UNKNOWN);

const strict = (schema) => (typeof schema?.strict === "function" ? schema.strict() : schema);

function checkCall(rec, problems) {
  const api = apis.get(rec.api);
  if (!api) {
    problems.push(`unknown API ${JSON.stringify(rec.api)}`);
    return;
  }
  const request = rec.request ?? {};
  if (api.requestSchema) {
    const r = strict(api.requestSchema).safeParse(request);
    if (!r.success) problems.push(`request of ${rec.api}: ${issues(r.error)}`);
    else if (rewritten(request, r.data)) {
      problems.push(`request of ${rec.api}: a segment the schema cannot read`);
    }
  } else if (Object.keys(request).length > 0) {
    problems.push(`request of ${rec.api}: the API takes no input, got ${JSON.stringify(request)}`);
  }
  const response = rec.response;
  if (response === undefined || response === null) return; // an HTTP-level failure: nothing to check
  if (response.status !== "ok" && response.status !== "failed") {
    problems.push(`response of ${rec.api}: status ${JSON.stringify(response.status)}`);
  }
  if (!Number.isInteger(response.retcode)) {
    problems.push(`response of ${rec.api}: retcode ${JSON.stringify(response.retcode)}`);
  }
  if (response.status === "ok") {
    if (api.responseSchema) {
      const r = api.responseSchema.safeParse(response.data);
      if (!r.success) problems.push(`response of ${rec.api}: ${issues(r.error)}`);
      else if (rewritten(response.data, r.data)) {
        problems.push(`response of ${rec.api}: a segment the schema cannot read`);
      }
    }
  } else if (typeof response.message !== "string") {
    problems.push(`failed response of ${rec.api} without a message`);
  }
}

const files = process.argv.slice(2);
if (files.length === 0) {
  console.error("usage: node validate.mjs RECORD.jsonl [...]");
  process.exit(2);
}
let calls = 0;
let events = 0;
let invalid = 0;
const seen = new Set();
for (const file of files) {
  const lines = readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "");
  lines.forEach((line, i) => {
    const problems = [];
    let rec;
    try {
      rec = JSON.parse(line);
    } catch (e) {
      problems.push(`not JSON: ${e.message}`);
    }
    if (rec?.kind === "call") {
      calls += 1;
      seen.add(rec.api);
      checkCall(rec, problems);
    } else if (rec?.kind === "event") {
      events += 1;
      const r = Event.safeParse(rec.event);
      if (!r.success) problems.push(`event ${rec.event?.event_type}: ${issues(r.error)}`);
      else if (rewritten(rec.event, r.data)) {
        problems.push(`event ${rec.event.event_type}: a segment the schema cannot read`);
      } else seen.add(`event:${rec.event.event_type}`);
    } else if (rec) {
      problems.push(`unknown record kind ${JSON.stringify(rec.kind)}`);
    }
    if (problems.length > 0) {
      invalid += 1;
      console.log(`${file}:${i + 1}: ${problems.join("; ")}`);
    }
  });
}
console.log(
  `Milky ${milkyVersion} schemas: ${calls} calls and ${events} events checked, ${invalid} invalid; ` +
    `covered: ${[...seen].sort().join(", ")}`,
);
process.exit(invalid > 0 ? 1 : 0);
