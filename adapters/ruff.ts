import { commandAdapter } from "../src/servers/command_adapter.ts";

/**
 * Ruff's own server (`ruff server`), as a linter beside the Python language server, for projects
 * that configure Ruff (ruff.toml, .ruff.toml, or a `[tool.ruff]` table in pyproject.toml): its
 * lint findings are merged into `diagnostics`. It reads the project's Ruff config itself.
 */
export const ruffAdapter = commandAdapter({
  id: "ruff",
  kind: "linter",
  command: ["ruff", "server"],
  languages: { ".py": "python", ".pyi": "python" },
  rootMarkers: ["ruff.toml", ".ruff.toml", "pyproject.toml"],
  rootMarkerContains: { "pyproject.toml": "[tool.ruff" },
  priority: 0,
  installHint: "Install Ruff: `pipx install ruff` (or `pip install ruff`, `uv tool install ruff`).",
  // Ruff takes its client settings only here; the project's own ruff.toml / pyproject.toml win.
  initializationOptions: { settings: { lint: { enable: true }, logLevel: "warn" } },
});
