import { commandAdapter } from "../src/servers/command_adapter.ts";
import { refusingProjectCode } from "../src/servers/project_code.ts";

/** HashiCorp's terraform-ls. Untested here: written from its documentation. */
export const terraformAdapter = refusingProjectCode(
  commandAdapter({
    id: "terraform",
    tested: false,
    command: ["terraform-ls", "serve"],
    languages: { ".tf": "terraform", ".tfvars": "terraform-vars" },
    rootMarkers: [".terraform.lock.hcl", ".terraform"],
    installHint:
      "Install terraform-ls so it is on PATH (e.g. `brew install hashicorp/tap/terraform-ls`).",
  }),
  // terraform-ls asks `terraform providers schema`, which runs the provider binaries installed
  // there: programs the repository may have put in place.
  { files: /^\.terraform$/, what: "runs the provider programs under .terraform" },
);
