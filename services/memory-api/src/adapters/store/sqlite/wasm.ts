/**
 * The few WebAssembly pieces the embedded store's k-NN uses (code-cache.ts, int8-scan.ts): each is
 * one function written as bytes (no toolchain), over a memory the caller makes and imports.
 */

/** The WebAssembly globals used here (the project's lib declares none: no DOM types). */
export interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface Wasm {
  Module: new (bytes: Uint8Array) => object;
  Memory: new (descriptor: { initial: number }) => WasmMemory;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}
export const wasm = (globalThis as unknown as { WebAssembly: Wasm }).WebAssembly;

/** Bytes of one page of WebAssembly memory. */
export const WASM_PAGE = 65536;

export const I32 = 0x7f;
export const I64 = 0x7e;
export const F64 = 0x7c;

/** local.get, local.set and local.tee of a function's local (its parameters first). */
export const get = (local: number) => [0x20, local];
export const set = (local: number) => [0x21, local];
export const tee = (local: number) => [0x22, local];
export const V128 = 0x7b;

/**
 * A module exporting one function `name` of `params` i32 parameters and no result, importing its
 * memory as env.memory. `locals` declares the body's locals past the parameters, as (count, type)
 * runs; `body` is its instructions, without the final `end`.
 */
export function oneFunctionModule(
  name: string,
  params: number,
  locals: ReadonlyArray<readonly [number, number]>,
  body: readonly number[],
): object {
  const bytes: number[] = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  const section = (id: number, content: number[]) => bytes.push(id, ...uleb(content.length), ...content);
  const text = (value: string) => [value.length, ...Array.from(value, (c) => c.charCodeAt(0))];
  section(1, [0x01, 0x60, params, ...Array.from({ length: params }, () => I32), 0x00]);
  section(2, [0x01, ...text('env'), ...text('memory'), 0x02, 0x00, 0x01]);
  section(3, [0x01, 0x00]);
  section(7, [0x01, ...text(name), 0x00, 0x00]);
  const code = [...uleb(locals.length), ...locals.flatMap(([count, type]) => [...uleb(count), type]), ...body, 0x0b];
  section(10, [0x01, ...uleb(code.length), ...code]);
  return new wasm.Module(Uint8Array.from(bytes));
}

export function uleb(value: number): number[] {
  const out: number[] = [];
  let v = value;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}
