// Copies swagger-ui-dist into dist/ as the package ships it (source maps included: the
// macro's `exclude` leaves them out), without its npm metadata and Node entry points,
// and writes the initializer that points Swagger UI at this server's document.
import { cpSync, rmSync, writeFileSync } from "node:fs";
import { basename } from "node:path";

const from = "node_modules/swagger-ui-dist";
const skip = new Set(["package.json", "README.md", "index.js", "absolute-path.js", "swagger-initializer.js"]);
rmSync("dist", { recursive: true, force: true });
cpSync(from, "dist", { recursive: true, filter: (path) => !skip.has(basename(path)) });
writeFileSync(
  "dist/swagger-initializer.js",
  `window.onload = function () {
  window.ui = SwaggerUIBundle({
    url: "/openapi.json",
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
    plugins: [SwaggerUIBundle.plugins.DownloadUrl],
    layout: "StandaloneLayout",
  });
};
`,
);
