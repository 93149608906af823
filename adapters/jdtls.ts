import type { Adapter } from "../src/servers/adapter.ts";
import { commandAdapter } from "../src/servers/command_adapter.ts";

const jdtls = commandAdapter({
  id: "jdtls",
  tested: false,
  command: ["jdtls"],
  languages: { ".java": "java" },
  rootMarkers: [
    "pom.xml",
    "build.gradle",
    "build.gradle.kts",
    "settings.gradle",
    "settings.gradle.kts",
    ".project",
  ],
  installHint: "Install Eclipse JDT Language Server so `jdtls` is on PATH " +
    "(e.g. `brew install jdtls`, or its release archive's bin/jdtls).",
  // It indexes the project before answering, and says so with progress.
  readiness: "progress",
});

/**
 * Importing a Gradle build runs its scripts (Groovy or Kotlin: the repository's code, and its
 * wrapper downloads and runs a Gradle of the repository's choice); importing Maven runs the
 * project's build plugins. For an untrusted root both imports are off: Java files are still
 * analysed, without the build's classpath.
 */
const NO_BUILD_IMPORT = {
  java: {
    import: {
      gradle: { enabled: false, wrapper: { enabled: false } },
      maven: { enabled: false },
    },
  },
};

/**
 * Eclipse JDT Language Server for Java. Untested here: written from its documentation. Its
 * `jdtls` launcher keeps per-project data in a folder of its own (`-data`).
 */
export const jdtlsAdapter: Adapter = {
  ...jdtls,
  async resolve(context) {
    const command = await jdtls.resolve(context);
    if (context.trusted) return command;
    return {
      ...command,
      initializationOptions: { settings: NO_BUILD_IMPORT },
      settings: NO_BUILD_IMPORT,
      note: "Gradle and Maven imports off (root not trusted)",
    };
  },
};
