import * as proto from "vscode-languageserver-protocol";

// The protocol's request types carry the server capability they need; index them by method.
const capabilityByMethod = new Map<string, string>();
for (const value of Object.values(proto)) {
  const type = value as { method?: unknown; capabilities?: { server?: unknown } };
  if (
    type && typeof type === "object" && typeof type.method === "string" &&
    typeof type.capabilities?.server === "string"
  ) {
    capabilityByMethod.set(type.method, type.capabilities.server);
  }
}

/** The dotted server-capability path a request needs (`definitionProvider`), if the protocol names one. */
export function serverCapabilityFor(method: string): string | undefined {
  return capabilityByMethod.get(method);
}
