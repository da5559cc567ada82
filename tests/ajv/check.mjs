// Compile each contract version's exported JSON Schema with Ajv (draft 2020-12) in strict mode,
// then validate packs with it. Reads a JSON request on standard input:
//   {"schemas": {"0.5": {...}, ...}, "packs": [{"id": "...", "version": "0.5", "data": {...}}, ...]}
// and writes {"errors": {version: message}, "warnings": {version: [messages]}, "verdicts": {id: bool}}.
// tests/test_ajv.py runs it; the versions of Ajv are locked in package-lock.json (npm ci).
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";

const request = JSON.parse(readFileSync(0, "utf8"));
const result = { errors: {}, warnings: {}, verdicts: {} };
const validators = {};

function logger(into) {
  return { log() {}, warn: (...args) => into.push(args.join(" ")), error: (...args) => into.push(args.join(" ")) };
}

for (const [version, schema] of Object.entries(request.schemas)) {
  const warnings = [];
  try {
    // Strict: unknown keywords, strictTypes, strictTuples and strictRequired are errors.
    const strict = new Ajv2020({ strict: true, allErrors: true, logger: logger(warnings) });
    validators[version] = strict.compile(schema);
    // Ajv's default mode only logs what strict mode refuses: it must log nothing either.
    new Ajv2020({ logger: logger(warnings) }).compile(schema);
  } catch (error) {
    result.errors[version] = String(error && error.message ? error.message : error);
  }
  result.warnings[version] = warnings;
}

for (const pack of request.packs) {
  const validate = validators[pack.version];
  result.verdicts[pack.id] = validate ? Boolean(validate(pack.data)) : null;
}
process.stdout.write(JSON.stringify(result));
