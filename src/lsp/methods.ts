// The protocol's request types carry the server capability they need; the table is generated from
// them (see methods_test.ts) so that no Worker loads the package at runtime.
import { METHOD_CAPABILITIES } from "./method_capabilities.ts";

/** The dotted server-capability path a request needs (`definitionProvider`), if the protocol names one. */
export function serverCapabilityFor(method: string): string | undefined {
  return Object.hasOwn(METHOD_CAPABILITIES, method) ? METHOD_CAPABILITIES[method] : undefined;
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
