// A session whose only server is the fault-injection fake (fake_server.ts), over a workspace of
// one `a.fake` file, with its log: what the robustness tests each opened for themselves.
import { join } from "node:path";
import { defaultConfig, Session } from "../../mod.ts";
import { fakeAdapter, type FakeAdapterOptions, type FakeMode } from "./fake_server.ts";

/** The session, its root, the fake's log, and `close()`, which removes them all. */
export interface FakeSession {
  session: Session;
  root: string;
  log: string;
  close(): Promise<void>;
}

/** Opens a session over a fresh workspace whose `.fake` files the fake serves in `mode`. */
export async function fakeSession(
  mode: FakeMode,
  options: Omit<FakeAdapterOptions, "log"> = {},
): Promise<FakeSession> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "lspgate_fake_" }));
  const log = await Deno.makeTempFile({ prefix: "lspgate_fake_log_" });
  await Deno.writeTextFile(join(root, "a.fake"), "one two three\n");
  const session = await Session.open({
    root,
    role: "main",
    allowMutations: false,
    adapters: [fakeAdapter(mode, { ...options, log })],
    config: { ...defaultConfig(), timeoutMs: 5000, startTimeoutMs: 5000 },
  });
  return {
    session,
    root,
    log,
    async close() {
      await session.close();
      await Deno.remove(root, { recursive: true });
      await Deno.remove(log);
      await Deno.remove(`${log}.wedged`).catch(() => {});
    },
  };
}
