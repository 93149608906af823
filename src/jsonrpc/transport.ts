/** A byte stream pair to talk over: a child process's stdout/stdin, or one end of a memory pair. */
export interface Transport {
  readable: ReadableStream<Uint8Array>;
  writable: WritableStream<Uint8Array>;
}
