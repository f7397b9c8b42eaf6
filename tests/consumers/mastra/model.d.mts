import type { MastraModelConfig } from '@mastra/core/llm';

/** Each model call as the model saw it: its prompt messages' roles and texts. */
export type Seen = { role: string; text: string }[];
/** A model that calls `book` the same way on every step until call `answerAt` (which answers); call `failAt` throws. */
export function repeatingModel(calls: Seen[], answerAt: number, failAt?: number): MastraModelConfig;
