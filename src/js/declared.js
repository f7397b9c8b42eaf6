// The type check's tie between the JS layer and the package's public
// declarations: what each entry exports of the layer must be assignable to
// what the .d.ts files declare under the same name, and every such name
// must be declared (an undeclared one is typed `never` here). tsc reads
// this file (tsc -p src/js); no entry imports it, so nothing of it ships.
// tests/js/exports.test.mjs checks the other direction on the package:
// every declared value is exported.

import * as layer from './layer.js';
import * as otel from './otel.js';
import * as viewer from './viewer.js';
import * as report from './report.js';
import { vitestMatchers } from './vitest.js';
import { aiSdkAdapters } from './models.js';
import { writeArtifacts } from './node-entry.js';

/**
 * What index.d.ts declares of the JS layer.
 * @typedef {typeof import('./generate-types') & typeof import('./ai-sdk-types') & typeof import('./mastra-types')
 *   & typeof import('./background-types') & typeof import('./trajectory-index-types') & typeof import('./judge-types')} Declared
 */
/**
 * Each export of `M` as `D` declares it (`never` where `D` does not).
 * @template M, D
 * @typedef {{ [K in keyof M]: K extends keyof D ? D[K] : never }} AsDeclared
 */

/** node.mjs, web.js and workerd.js: the layer. @type {AsDeclared<Omit<typeof layer, 'TrajectoryIndex'>, Declared>} */
export const mainEntries = layer;
/**
 * TrajectoryIndex, whose declared constructor is private: its instances
 * are checked by `@implements` in trajectory-index.js, its way in here.
 * @type {Pick<Declared['TrajectoryIndex'], 'fromJsonl' | 'prototype'>}
 */
export const indexClass = layer.TrajectoryIndex;
/** node.mjs alone. @type {AsDeclared<{ writeArtifacts: typeof writeArtifacts }, typeof import('./node-types')>} */
export const nodeEntry = { writeArtifacts };
/** agent-trajectories/ai. @type {Pick<Declared, 'withAISdkAgent' | 'fromAISdkModel'>} */
export const aiEntry = aiSdkAdapters(() => undefined);
/** agent-trajectories/otel (setOtelApi is the entry's own). @type {AsDeclared<Omit<typeof otel, 'setOtelApi'>, typeof import('./otel-types')>} */
export const otelEntry = otel;
/** agent-trajectories/viewer. @type {AsDeclared<typeof viewer, typeof import('./viewer-types')>} */
export const viewerEntry = viewer;
/** agent-trajectories/report. @type {AsDeclared<typeof report, typeof import('./report-types')>} */
export const reportEntry = report;
/** agent-trajectories/vitest, its matchers made from the main entries' functions. @type {AsDeclared<{ matchers: ReturnType<typeof vitestMatchers> }, typeof import('./vitest-types')>} */
export const vitestEntry = { matchers: vitestMatchers(layer) };
