//! Headless Firefox (Debian's `firefox-esr`), a browser without compression
//! dictionaries, driven over Marionette: the remote protocol built into Firefox, JSON
//! messages each prefixed with its length in bytes and a colon, over TCP on
//! 127.0.0.1. It speaks WebDriver's commands (`WebDriver:Navigate`, ...), so no
//! geckodriver is needed between the test and the browser.
//!
//! Each [`Firefox`] has a profile of its own in the temp folder, which asks for a free
//! Marionette port (`marionette.port` 0; Firefox writes the port it took to the
//! profile's `MarionetteActivePort`) and turns off what would reach the network
//! (updates, telemetry, the start page's services). Every wait is bounded.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::sync::Mutex;

use crate::browser::{COMMAND_TIMEOUT, PAGE_TIMEOUT, poll_script};
use crate::programs;

/// How long Firefox may take to start and open its Marionette port.
const START_TIMEOUT: Duration = Duration::from_secs(60);

/// The preferences of the test profile: a free Marionette port, and nothing that
/// would reach the network or ask a question.
const PREFS: &str = r#"user_pref("marionette.port", 0);
user_pref("browser.shell.checkDefaultBrowser", false);
user_pref("browser.startup.homepage_override.mstone", "ignore");
user_pref("browser.startup.page", 0);
user_pref("app.update.disabledForTesting", true);
user_pref("app.normandy.enabled", false);
user_pref("datareporting.policy.dataSubmissionEnabled", false);
user_pref("datareporting.healthreport.uploadEnabled", false);
user_pref("toolkit.telemetry.reportingpolicy.firstRun", false);
user_pref("browser.safebrowsing.update.enabled", false);
user_pref("browser.safebrowsing.downloads.remote.enabled", false);
user_pref("network.captive-portal-service.enabled", false);
user_pref("network.connectivity-service.enabled", false);
user_pref("extensions.getAddons.cache.enabled", false);
user_pref("browser.newtabpage.enabled", false);
user_pref("browser.topsites.contile.enabled", false);
user_pref("browser.cache.disk.enable", true);
user_pref("browser.cache.memory.enable", true);
user_pref("remote.prefs.recommended", false);
"#;

/// A headless Firefox with a Marionette session; the browser is killed and its
/// profile removed on drop.
#[derive(Debug)]
pub struct Firefox {
    child: Child,
    profile: PathBuf,
    stream: Mutex<TcpStream>,
    next_id: AtomicU64,
}

impl Firefox {
    /// `firefox-esr` (or `firefox`) on `PATH`, or `None` after skipping the calling
    /// test (see [`programs`]).
    pub fn find() -> Option<PathBuf> {
        programs::require(&["firefox-esr", "firefox"], &[], "firefox-esr")
    }

    /// Starts `program` headless with a fresh profile and opens a session.
    ///
    /// # Panics
    /// When it does not start, or gives no Marionette port, within a minute.
    pub async fn start(program: &Path) -> Firefox {
        let profile = std::env::temp_dir().join(format!(
            "embed-firefox-{}-{}",
            std::process::id(),
            PROFILES.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&profile);
        std::fs::create_dir_all(&profile).expect("create the profile folder");
        std::fs::write(profile.join("user.js"), PREFS).expect("write the preferences");
        let child = Command::new(program)
            .args(["--headless", "--marionette", "--no-remote", "--profile"])
            .arg(&profile)
            .arg("about:blank")
            .env("MOZ_HEADLESS", "1")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|err| panic!("start {}: {err}", program.display()));
        let mut browser = PartialStart {
            child: Some(child),
            profile: Some(profile.clone()),
        };
        let port_file = profile.join("MarionetteActivePort");
        let deadline = Instant::now() + START_TIMEOUT;
        let port: u16 = loop {
            if let Some(port) = std::fs::read_to_string(&port_file)
                .ok()
                .and_then(|text| text.trim().parse().ok())
            {
                break port;
            }
            assert!(
                Instant::now() < deadline,
                "Firefox wrote no Marionette port within {START_TIMEOUT:?}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        let stream = loop {
            match TcpStream::connect(("127.0.0.1", port)).await {
                Ok(stream) => break stream,
                Err(err) => {
                    assert!(
                        Instant::now() < deadline,
                        "Marionette on port {port}: {err}"
                    );
                    tokio::time::sleep(Duration::from_millis(100)).await;
                }
            }
        };
        let firefox = Firefox {
            child: browser.child.take().expect("the child"),
            profile: browser.profile.take().expect("the profile"),
            stream: Mutex::new(stream),
            next_id: AtomicU64::new(1),
        };
        {
            let mut stream = firefox.stream.lock().await;
            let hello = tokio::time::timeout(COMMAND_TIMEOUT, read_message(&mut stream))
                .await
                .expect("Marionette's greeting in time");
            assert_eq!(hello["marionetteProtocol"], json!(3), "{hello}");
        }
        firefox
            .command("WebDriver:NewSession", json!({ "capabilities": {} }))
            .await;
        firefox
    }

    /// Loads `url` and waits for its load event.
    pub async fn navigate(&self, url: &str) {
        self.command("WebDriver:Navigate", json!({ "url": url }))
            .await;
    }

    /// Reloads the page, as the reload button does, and waits for its load event.
    pub async fn refresh(&self) {
        self.command("WebDriver:Refresh", json!({})).await;
    }

    /// Runs `script` as a function body in the page and returns its result.
    pub async fn execute(&self, script: &str) -> Value {
        self.command(
            "WebDriver:ExecuteScript",
            json!({ "script": script, "args": [] }),
        )
        .await["value"]
            .take()
    }

    /// Polls the JavaScript expression `condition` in the page, every 50 ms, until it
    /// is truthy (`true`) or [`PAGE_TIMEOUT`] has passed (`false`).
    pub async fn wait_until(&self, condition: &str) -> bool {
        let script = poll_script(condition);
        let reply = self
            .command(
                "WebDriver:ExecuteAsyncScript",
                json!({ "script": script, "args": [], "scriptTimeout": PAGE_TIMEOUT.as_millis() as u64 + 5000 }),
            )
            .await;
        reply["value"] == true
    }

    /// Sends one command and returns its result.
    ///
    /// # Panics
    /// When Firefox answers with an error, or not within [`COMMAND_TIMEOUT`].
    async fn command(&self, name: &str, parameters: Value) -> Value {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let message = json!([0, id, name, parameters]).to_string();
        let mut stream = self.stream.lock().await;
        let exchange = async {
            let framed = format!("{}:{message}", message.len());
            stream.write_all(framed.as_bytes()).await?;
            // Replies come in the order of the commands; a stale one is skipped.
            loop {
                let reply = read_message(&mut stream).await;
                if reply[1] == json!(id) {
                    return std::io::Result::Ok(reply);
                }
            }
        };
        let reply = tokio::time::timeout(COMMAND_TIMEOUT, exchange)
            .await
            .unwrap_or_else(|_| panic!("{name} took more than {COMMAND_TIMEOUT:?}"))
            .unwrap_or_else(|err| panic!("{name}: {err}"));
        assert!(reply[2].is_null(), "{name} failed: {}", reply[2]);
        reply[3].clone()
    }
}

impl Drop for Firefox {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.profile);
    }
}

/// Numbers the profiles of one test process.
static PROFILES: AtomicU64 = AtomicU64::new(0);

/// A browser being started: killed and its profile removed if the start fails.
struct PartialStart {
    child: Option<Child>,
    profile: Option<PathBuf>,
}

impl Drop for PartialStart {
    fn drop(&mut self) {
        if let Some(child) = &mut self.child {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Some(profile) = &self.profile {
            let _ = std::fs::remove_dir_all(profile);
        }
    }
}

/// One Marionette message: `<length>:<JSON>`.
///
/// # Panics
/// When the stream ends or the message is not JSON.
async fn read_message(stream: &mut TcpStream) -> Value {
    let mut length = Vec::new();
    loop {
        let byte = stream.read_u8().await.expect("a Marionette message");
        if byte == b':' {
            break;
        }
        assert!(
            byte.is_ascii_digit() && length.len() < 12,
            "not a length: {length:?}"
        );
        length.push(byte);
    }
    let length: usize = std::str::from_utf8(&length)
        .ok()
        .and_then(|digits| digits.parse().ok())
        .expect("a length");
    let mut body = vec![0; length];
    stream
        .read_exact(&mut body)
        .await
        .expect("the whole message");
    serde_json::from_slice(&body)
        .unwrap_or_else(|err| panic!("not JSON ({err}): {}", String::from_utf8_lossy(&body)))
}
