// Starting one server: its command resolved (a project's own programs refused where they may not
// run), wrapped in its sandbox, its client options, the client started; what the sandbox leaves
// is cleaned up once the server exits.
import { refuseSpecialConfigs } from "./config_files.ts";
import { LspGateError, toLspGateError } from "../errors.ts";
import { LspClient } from "../lsp/client.ts";
import type { ExitInfo, ServerClient } from "../lsp/server_client.ts";
import { WorkerClient } from "../lsp/worker_client.ts";
import { clientOptions } from "./server_options.ts";
import { checkProgram } from "./check_program.ts";
import { withMemoryCap } from "./memory_cap.ts";
import type { CommandWrapper, ManagerOptions, ServerEntry } from "./manager_types.ts";

/** What the manager does around a start. */
export interface StartHooks {
  /** True once the manager is shutting down: a server that starts meanwhile is shut down. */
  closed(): boolean;
  /** Opens, in a server restarted after a crash, the files its predecessor had open. */
  reopen(entry: ServerEntry, client: ServerClient, paths: string[]): Promise<void>;
  /** Hears a started server's exit. */
  exited(entry: ServerEntry, client: ServerClient, info: ExitInfo): void;
  /** Hears that `entry`'s server is about to be spawned (what held it back is done). */
  spawning?(entry: ServerEntry): void;
}

/** Starts servers for the manager's entries and cleans up after them. */
export class ServerStarter {
  /** Each running client's sandbox cleanup, run once when it exits or is stopped. */
  readonly #cleanups = new Map<ServerClient, () => Promise<void>>();

  /** Starts with the manager's `options`; `hooks` are the manager's part. */
  constructor(readonly options: ManagerOptions, readonly hooks: StartHooks) {}

  /** Starts `entry`'s server; its state becomes running, or failed with the error thrown. */
  async start(entry: ServerEntry): Promise<ServerClient> {
    const config = this.options.serverConfig?.[entry.adapter.id];
    const telemetry = this.options.telemetry;
    const startedAt = performance.now();
    telemetry?.emit("server.start", { server: entry.adapter.id, root: entry.root });
    let wrapped: Awaited<ReturnType<CommandWrapper>> | undefined;
    try {
      const trusted = (this.options.trustedRoots ?? []).some((t) =>
        entry.root === t || entry.root.startsWith(t + "/")
      );
      const command = await entry.adapter.resolve({
        root: entry.root,
        workspace: this.options.workspace,
        configuredCommand: config?.command,
        trusted,
      });
      await checkProgram(entry.adapter, command, this.options.workspace);
      refuseSpecialConfigs(entry.adapter, entry.root);
      // A Worker allowed to spawn one binary cannot be handed a shell: uncapped there.
      const cap = this.options.isolate && !this.options.wrap ? undefined : config?.memoryCapMiB;
      const run = cap === undefined ? command : await withMemoryCap(command, cap);
      wrapped = this.options.wrap ? await this.options.wrap(run, entry) : { command: run.command };
      const reopen = [...entry.disk.values()].map((known) => known.path);
      entry.disk.clear();
      const options = clientOptions(entry, command, wrapped, {
        ...this.options,
        config,
        memoryCapMiB: cap,
      });
      // The client runs on this thread, the sandbox its wall (see permissions.md); `clientWorkers`
      // puts it in a Worker allowed to spawn that one binary and nothing else.
      const binary = wrapped.command[0];
      this.hooks.spawning?.(entry);
      const client = this.options.isolate
        ? await WorkerClient.start(options, { run: [binary] })
        : await LspClient.start(options).catch((error) => {
          throw runDenied(error, options.serverName, binary);
        });
      entry.state = { kind: "running", client, since: Date.now(), command };
      telemetry?.emit("server.ready", {
        server: entry.adapter.id,
        pid: client.pid,
        duration_ms: Math.round(performance.now() - startedAt),
      });
      const cleanup = wrapped.cleanup;
      if (cleanup) {
        let done: Promise<void> | undefined;
        this.#cleanups.set(client, () => done ??= cleanup());
      }
      client.onExit((info) => {
        this.cleanup(client);
        this.hooks.exited(entry, client, info);
      });
      if (this.hooks.closed()) await client.shutdown();
      else await this.hooks.reopen(entry, client, reopen);
      this.options.budget?.started();
      return client;
    } catch (error) {
      await wrapped?.cleanup?.();
      const converted = toLspGateError(error);
      entry.state = { kind: "failed", at: Date.now(), error: converted };
      telemetry?.emit("server.exit", {
        server: entry.adapter.id,
        reason: "failed to start",
        error: converted.code,
        duration_ms: Math.round(performance.now() - startedAt),
      });
      throw converted;
    }
  }

  /** Removes what `client`'s sandbox left (once; later calls wait for the same cleanup). */
  async cleanup(client: ServerClient): Promise<void> {
    const cleanup = this.#cleanups.get(client);
    if (!cleanup) return;
    await cleanup();
    this.#cleanups.delete(client);
  }
}

/** A spawn Deno refused, said as the Worker's refusal is: the server, its binary, the flag. */
function runDenied(error: unknown, server: string, binary: string): unknown {
  const converted = toLspGateError(error);
  if (converted.code !== "PERMISSION_DENIED") return error;
  return new LspGateError(
    "PERMISSION_DENIED",
    `${server}'s binary ${binary} is outside lspgate's own Deno permissions: ` +
      `${converted.message} (grant it with --allow-run=${binary})`,
    { server, run: [binary] },
  );
}
