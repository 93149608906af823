import { commandAdapter } from "../src/servers/command_adapter.ts";

/** HashiCorp's terraform-ls. Untested here: written from its documentation. */
export const terraformAdapter = commandAdapter({
  id: "terraform",
  tested: false,
  command: ["terraform-ls", "serve"],
  languages: { ".tf": "terraform", ".tfvars": "terraform-vars" },
  rootMarkers: [".terraform.lock.hcl", ".terraform"],
  installHint:
    "Install terraform-ls so it is on PATH (e.g. `brew install hashicorp/tap/terraform-ls`).",
});
