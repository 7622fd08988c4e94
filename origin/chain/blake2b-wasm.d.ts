// Types for the parts of blake2b-wasm (2.4.0, CommonJS, ships no types) that origin/chain uses.
declare module "blake2b-wasm" {
  interface Blake2bHash {
    update(input: Uint8Array): Blake2bHash;
    digest(out?: "binary"): Uint8Array;
  }
  interface Blake2bFactory {
    (
      outLen?: number,
      key?: Uint8Array | null,
      salt?: Uint8Array | null,
      personal?: Uint8Array | null,
      noAssert?: boolean,
    ): Blake2bHash;
    /** Resolves once the WebAssembly module is compiled (never rejects; see SUPPORTED). */
    ready(): Promise<void>;
    readonly SUPPORTED: boolean;
  }
  const blake2b: Blake2bFactory;
  export default blake2b;
}
