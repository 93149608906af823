// What a workspace-wide answer may miss beyond its server's project: the workspace's other projects
// (other_projects.ts), components and notebooks embedding its language (embedded_files.ts), and the
// declaration files standing in for the code asked about (stub_declarations.ts). A function's own name is exempted by the caller (local_name.ts).
import type { CoverageAnswer } from "../../adapters/coverage.ts";
import type { Adapter } from "../servers/adapter.ts";
import { fromFileUrl } from "../servers/uri.ts";
import { embeddedHolding } from "./embedded_files.ts";
import { otherProjectsHolding } from "./other_projects.ts";
import { stubsHolding } from "./stub_declarations.ts";
import type { ActionContext } from "./types.ts";

/** See the file comment. */
export async function beyondProject(
  context: ActionContext,
  target: { adapter: Adapter; root: string; name: string; uri: string },
  readText: (path: string) => Promise<string | undefined>,
): Promise<CoverageAnswer> {
  const { adapter, root, name, uri } = target;
  const found = await otherProjectsHolding(context, { adapter, root, name }, readText);
  if (found.partial) return found;
  const embedded = await embeddedHolding(context, { adapter, name }, readText);
  const asked = fromFileUrl(uri);
  if (embedded.partial || !asked) return embedded;
  return await stubsHolding(context, { adapter, root, name, asked }, readText);
}
