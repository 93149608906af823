// basedpyright on pyright's fixture, chosen as the user's config prefers it over pyright.
import type { Row } from "../row.ts";
import pyright from "./pyright.ts";

const row: Row = {
  ...pyright,
  name: "basedpyright (preferred in the user's config)",
  server: "basedpyright",
  servers: { basedpyright: { preferred: true } },
};

export default row;
