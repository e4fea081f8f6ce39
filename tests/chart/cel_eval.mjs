// Evaluates a webhook's matchCondition expression as kube-apiserver would before calling the webhook, with a
// CEL interpreter from npm (scripts/deps.sh). Usage: node cel_eval.mjs CEL_JS_DIR < {"expression", "cases":
// [{"request": {...}, "object": {...}}]}; prints a JSON array: true, false, or {"error": message} per case.
import {readFileSync} from 'node:fs';
import {pathToFileURL} from 'node:url';

const {parse} = await import(pathToFileURL(process.argv[2] + '/lib/index.js').href);
const input = JSON.parse(readFileSync(0, 'utf8'));
const program = parse(input.expression);
const out = input.cases.map((c) => {
  try {
    return program({object: c.object, oldObject: c.oldObject ?? null, request: c.request});
  } catch (err) {
    return {error: String(err.message)};
  }
});
process.stdout.write(JSON.stringify(out) + '\n');
