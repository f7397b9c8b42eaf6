// The run viewer (www/) in Chromium over the tarball's web build, and the
// one-file viewer. Each module below holds the tests of one part; they are
// registered here, in this order:
//   viewer-sample-runs.mjs   the sample runs: cards, findings, budget, search,
//                            filters, keyboard, hash links, step graph,
//                            compare, files by picker and drop, live runs
//   viewer-long-run.mjs      a run of 3,000 turns
//   viewer-integrations.mjs  the streams the AI SDK and Mastra integrations record
//   viewer-crafted-runs.mjs  the user-reported defects, on runs written for each
//   viewer-one-file.mjs      writeViewerHtml, opened from file://
//   viewer-judged.mjs        a judged run's judgements and checks; two
//                            saved batches side by side
// What they share (the served site, reading records, page helpers) is in
// viewer-site.mjs.
import { testSampleRuns } from './viewer-sample-runs.mjs';
import { testLongRun } from './viewer-long-run.mjs';
import { testIntegrationStreams } from './viewer-integrations.mjs';
import { testCraftedRuns } from './viewer-crafted-runs.mjs';
import { testOneFile } from './viewer-one-file.mjs';
import { testJudged } from './viewer-judged.mjs';

testSampleRuns();
testLongRun();
testIntegrationStreams();
testCraftedRuns();
testOneFile();
testJudged();
