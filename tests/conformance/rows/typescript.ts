// typescript-language-server (TypeScript 5) on a tsconfig.json project.
import { type Row, spot } from "../row.ts";

const INDEX = "src/index.ts";
const FORMAT = "src/format.ts";
const MODELS = "src/models.ts";
const CART = "src/cart.ts";
const CJK_LINE = 'const 名前 = "🍎 りんご", apple = new Product(名前, 120);';

const definition = spot(FORMAT, "function formatPrice(", "formatPrice");
const price = (context: string, nth = 1) => spot(MODELS, context, "price", nth);

/** The checks on tests/fixtures/typescript, for any server of TypeScript. */
export const typescriptChecks: Omit<Row, "name" | "server"> = {
  fixture: "typescript",
  coldStart: { from: spot(INDEX, "  formatPrice(basket", "formatPrice"), to: [definition] },
  // tsserver answers a `new` expression with the class and its constructor.
  unicode: {
    from: spot(INDEX, CJK_LINE, "Product"),
    to: [
      spot(MODELS, "class Product ", "Product"),
      spot(MODELS, "constructor(readonly name: string, readonly cents: number) {}"),
    ],
  },
  references: {
    at: definition,
    expect: [
      definition,
      spot(CART, "import { formatPrice }", "formatPrice"),
      spot(CART, "${formatPrice(", "formatPrice"),
      spot(INDEX, "import { formatPrice }", "formatPrice"),
      spot(INDEX, "  formatPrice(basket", "formatPrice"),
      spot(MODELS, "import { formatPrice }", "formatPrice"),
      spot(MODELS, "${formatPrice(", "formatPrice"),
    ],
  },
  hover: {
    at: definition,
    matches: [
      /function formatPrice\(cents: number\): string/,
      /Formats cents as dollars — always with two decimals\./,
    ],
  },
  symbols: {
    file: MODELS,
    expect: [
      { name: "Item", kind: "interface", at: spot(MODELS, "interface Item", "Item") },
      { name: "price", kind: "method", container: "Item", at: price("  price(): number;") },
      { name: "Product", kind: "class", at: spot(MODELS, "class Product ", "Product") },
      { name: "price", kind: "method", container: "Product", at: price("  price(): number {") },
      {
        name: "label",
        kind: "method",
        container: "Product",
        at: spot(MODELS, "  label(): string", "label"),
      },
      { name: "price", kind: "method", container: "Bundle", at: price("  price(): number {", 2) },
    ],
  },
  workspaceSymbols: {
    query: "price",
    expect: [
      { name: "price", kind: "method", container: "Item", at: price("  price(): number;") },
      { name: "price", kind: "method", container: "Product", at: price("  price(): number {") },
      { name: "price", kind: "method", container: "Bundle", at: price("  price(): number {", 2) },
    ],
  },
  rename: { at: definition, newName: "showPrice" },
  diagnostics: {
    file: CART,
    replace: ["/** A one-line", 'export const broken: number = "not a number";\n/** A one-line'],
    error: spot(CART, 'export const broken: number = "not a number";', "broken"),
    code: 2322,
  },
};

const row: Row = {
  name: "typescript-language-server",
  server: "typescript",
  encoding: "utf-16",
  ...typescriptChecks,
  workspaceSymbols: {
    // typescript-language-server names no container in a workspace search (TypeScript 7 does).
    query: "price",
    expect: typescriptChecks.workspaceSymbols!.expect.map(({ container: _, ...symbol }) => symbol),
  },
};

export default row;
