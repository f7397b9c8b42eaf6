// What src/js imports from outside the package and has no types for in this
// repository (no @types/node; @cfworker/json-schema is not installed here):
// the parts it uses, for the type check of src/js. Not shipped.

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
declare module '@cfworker/json-schema' {
  export class Validator {
    constructor(schema: unknown, draft?: string, shortCircuit?: boolean);
    validate(value: unknown): { valid: boolean; errors: { instanceLocation: string; error: string }[] };
  }
}
