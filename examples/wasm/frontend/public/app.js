// esbuild's browser API loads esbuild.wasm with `WebAssembly.instantiateStreaming`,
// which compiles the module while it downloads, when the response says
// `Content-Type: application/wasm` (else it falls back to downloading, then compiling).
// The wrapper counts the streamed instantiations, so the page shows which path ran.
(async () => {
  const out = document.getElementById("out");
  const instantiateStreaming = WebAssembly.instantiateStreaming;
  let streamed = 0;
  WebAssembly.instantiateStreaming = async (...args) => {
    const result = await instantiateStreaming(...args);
    streamed += 1;
    return result;
  };
  try {
    await esbuild.initialize({ wasmURL: "esbuild.wasm", worker: false });
    const result = await esbuild.transform("let answer: number = 42", { loader: "ts" });
    out.textContent = result.code;
    document.body.dataset.streamed = String(streamed);
    document.body.dataset.ready = "yes";
  } catch (error) {
    out.textContent = `error: ${error}`;
    document.body.dataset.ready = "error";
  }
})();
