// The page of public/, and from esbuild-wasm the WebAssembly module and esbuild's
// browser API, in dist/.
import { cpSync, copyFileSync, rmSync } from "node:fs";

const from = "node_modules/esbuild-wasm";
rmSync("dist", { recursive: true, force: true });
cpSync("public", "dist", { recursive: true });
for (const [file, to] of [
  ["esbuild.wasm", "esbuild.wasm"],
  ["lib/browser.min.js", "esbuild.min.js"],
]) {
  copyFileSync(`${from}/${file}`, `dist/${to}`);
}
