//! `embed_assets_build::Npm` in a real build script, with the real npm and cargo: a
//! scratch crate whose `build.rs` builds a small npm package (no dependencies, so
//! nothing is downloaded) into the folder its `main.rs` embeds.
//!
//! npm is called through a wrapper that records each call, so the test sees exactly
//! when npm ran: the first build installs and builds, a no-op build runs nothing, a
//! build after only modification times changed runs nothing, an edited source builds
//! again and the binary serves the new bytes. Failures say what happened and how to
//! reproduce it.

use std::fs;
use std::time::Duration;

use integration_tests::npm::{NpmCalls, crate_building_frontend};

const PACKAGE_JSON: &str = r#"{
  "name": "frontend",
  "version": "1.0.0",
  "private": true,
  "scripts": { "build": "node build.mjs" }
}
"#;

const PACKAGE_LOCK: &str = r#"{
  "name": "frontend",
  "version": "1.0.0",
  "lockfileVersion": 3,
  "requires": true,
  "packages": {
    "": { "name": "frontend", "version": "1.0.0" }
  }
}
"#;

/// Writes dist/index.html from src/message.txt; a message of `FAIL` fails the build.
const BUILD_MJS: &str = r#"import { readFileSync, mkdirSync, writeFileSync } from "node:fs";
const message = readFileSync("src/message.txt", "utf8").trim();
if (message === "FAIL") {
  console.error("the build broke on purpose");
  process.exit(3);
}
mkdirSync("dist", { recursive: true });
writeFileSync("dist/index.html", `<p>${message}</p>`);
"#;

const MAIN_RS: &str = r#"use embed_assets::{embed_assets, Assets, Encoding};

static ASSETS: Assets = embed_assets!("frontend/dist");

fn main() {
    let page = ASSETS.get("/index.html").and_then(|a| a.body(Encoding::Identity));
    eprintln!("served: {}", String::from_utf8_lossy(page.unwrap_or_default()));
}
"#;

#[test]
fn npm_runs_only_when_the_frontend_changed_and_the_binary_serves_its_output() {
    let krate = crate_building_frontend("npm_build");
    let dir = krate.dir();
    let frontend = dir.join("frontend");
    fs::create_dir_all(frontend.join("src")).unwrap();
    fs::write(frontend.join("package.json"), PACKAGE_JSON).unwrap();
    fs::write(frontend.join("package-lock.json"), PACKAGE_LOCK).unwrap();
    fs::write(frontend.join("build.mjs"), BUILD_MJS).unwrap();
    fs::write(frontend.join("src/message.txt"), "hello v1\n").unwrap();
    fs::write(dir.join("src/main.rs"), MAIN_RS).unwrap();
    let Some(npm) = NpmCalls::install(dir) else {
        return;
    };
    let env = [("NPM", npm.program())];
    let run = |expect: &str| {
        let outcome = krate.cargo_with_env("run", &env);
        assert!(outcome.success, "cargo run failed:\n{}", outcome.stderr);
        assert!(
            outcome.stderr.contains(&format!("served: <p>{expect}</p>")),
            "expected the page to say {expect:?}:\n{}",
            outcome.stderr
        );
    };

    // First build: installs (no node_modules yet) and builds.
    run("hello v1");
    assert_eq!(
        npm.calls(),
        ["ci --no-audit --no-fund", "run build"],
        "the first build installs, then builds"
    );

    // Nothing changed: cargo does not even start the build script, nor relink.
    let binary = krate.binary_mtime();
    run("hello v1");
    assert_eq!(npm.calls().len(), 2, "a no-op build ran npm");
    assert_eq!(
        krate.binary_mtime(),
        binary,
        "a no-op build relinked the binary"
    );

    // Only modification times changed (as after a `git checkout`): no npm.
    std::thread::sleep(Duration::from_millis(1100));
    fs::write(frontend.join("src/message.txt"), "hello v1\n").unwrap();
    fs::write(frontend.join("package.json"), PACKAGE_JSON).unwrap();
    run("hello v1");
    assert_eq!(
        npm.calls().len(),
        2,
        "touching the sources without changing them ran npm: {:?}",
        npm.calls()
    );

    // An edited source: built again, and the binary serves the new output.
    fs::write(frontend.join("src/message.txt"), "hello v2\n").unwrap();
    run("hello v2");
    assert_eq!(
        npm.calls()[2..],
        ["run build"],
        "an edit must build, not install"
    );

    // The output deleted by hand: built again.
    fs::remove_dir_all(frontend.join("dist")).unwrap();
    run("hello v2");
    assert_eq!(npm.calls()[3..], ["run build"]);

    // A failing build script: the build fails with npm's output and how to reproduce it.
    fs::write(frontend.join("src/message.txt"), "FAIL\n").unwrap();
    let outcome = krate.cargo_with_env("build", &env);
    assert!(!outcome.success, "a failed npm build must fail cargo build");
    for expected in [
        "run build` failed",
        "To reproduce: cd ",
        "the build broke on purpose",
    ] {
        assert!(
            outcome.stderr.contains(expected),
            "the error should contain {expected:?}:\n{}",
            outcome.stderr
        );
    }

    // npm missing: says what to install.
    let outcome = krate.cargo_with_env("build", &[("NPM", "/nonexistent/npm")]);
    assert!(!outcome.success);
    assert!(
        outcome.stderr.contains("was not found") && outcome.stderr.contains("Install Node.js"),
        "a missing npm should say what to install:\n{}",
        outcome.stderr
    );

    // Built beforehand: EMBED_SKIP_NPM skips npm even though a source changed.
    let calls = npm.calls().len();
    let skip = [("NPM", npm.program()), ("EMBED_SKIP_NPM", "1")];
    let outcome = krate.cargo_with_env("run", &skip);
    assert!(outcome.success, "{}", outcome.stderr);
    assert!(outcome.stderr.contains("served: <p>hello v2</p>"));
    assert_eq!(npm.calls().len(), calls, "EMBED_SKIP_NPM ran npm");
    // … and with no output, says so.
    fs::remove_dir_all(frontend.join("dist")).unwrap();
    let outcome = krate.cargo_with_env("build", &skip);
    assert!(!outcome.success);
    assert!(
        outcome.stderr.contains("EMBED_SKIP_NPM is set, but"),
        "{}",
        outcome.stderr
    );
}
