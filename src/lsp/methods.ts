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

/** True when a server offers `method`: a dynamic registration, or its static capability. */
export function supportsMethod(
  capabilities: unknown,
  registeredMethods: Iterable<string>,
  method: string,
): boolean {
  for (const registered of registeredMethods) if (registered === method) return true;
  const path = serverCapabilityFor(method);
  if (path === undefined) return true;
  let value: unknown = capabilities;
  for (const key of path.split(".")) {
    if (value === null || typeof value !== "object") return false;
    value = (value as Record<string, unknown>)[key];
  }
  return value !== undefined && value !== null && value !== false;
}
