import { defineConfig } from "vite";

// The Rust server (`cargo run -p example-vite`) listens on 127.0.0.1:3000 by default;
// `npm run dev` serves the sources with hot reload and sends /api to it.
const api = `http://127.0.0.1:${process.env.API_PORT ?? "3000"}`;

export default defineConfig({
  build: {
    // dist/.vite/manifest.json: which files Vite content-hashed, and the entry points.
    manifest: true,
    outDir: "dist",
    emptyOutDir: true,
  },
  server: {
    host: "127.0.0.1",
    proxy: { "/api": api },
  },
});
