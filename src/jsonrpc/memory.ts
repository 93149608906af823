import type { Transport } from "./transport.ts";

/** Two linked in-memory transports: what one writes the other reads, for in-process tests. */
export function createMemoryPair(): [Transport, Transport] {
  const aToB = new TransformStream<Uint8Array, Uint8Array>();
  const bToA = new TransformStream<Uint8Array, Uint8Array>();
  return [
    { readable: bToA.readable, writable: aToB.writable },
    { readable: aToB.readable, writable: bToA.writable },
  ];
}
