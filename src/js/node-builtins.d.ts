// The parts of Node's built-in modules that src/js/node-entry.js uses, for
// the type check of src/js (which runs without @types/node). Not shipped.

declare module 'node:fs' {
  export function readFileSync(path: URL | string): Uint8Array;
}
declare module 'node:fs/promises' {
  export function mkdir(path: string, options: { recursive: true }): Promise<string | undefined>;
  export function writeFile(path: string, data: string): Promise<void>;
}
declare module 'node:path' {
  export function join(...paths: string[]): string;
}
