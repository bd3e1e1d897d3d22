//! `Server::tls` in a real browser: headless Chromium, with the test's own certificate
//! authority in its NSS database (added by `certutil`, as an administrator adds a
//! local CA) and a name that is not localhost mapped to 127.0.0.1
//! (`--host-resolver-rules`), loads the site over `https://`: the certificate is
//! trusted, the page is a secure context, h2 is chosen by ALPN, and its scripts come
//! br; and, the server restarted on the next release, the new bundle comes
//! dictionary-compressed against the one the browser kept (RFC 9842 reaches Chromium
//! over HTTPS only, or on localhost). Needs `chromium`, `chromedriver`, `certutil`
//! (`libnss3-tools`) and `openssl`.

use std::process::Command;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Router;
use embed_assets::{Assets, Server, Tls};
use integration_tests::browser::{BrowserPrograms, in_browser};
use integration_tests::tls::{Authority, Issued, NAME};
use integration_tests::{SITE, events, programs};
use serde_json::json;

use integration_tests::dictionary_releases::{release_1, release_2};

/// Chromium's programs with a HOME whose NSS database trusts `authority`, and
/// [`NAME`] mapped to 127.0.0.1; `None` (the test skipped) without them.
fn trusting_browser(authority: &Authority) -> Option<BrowserPrograms> {
    let mut browser = BrowserPrograms::find()?;
    let certutil = programs::require(&["certutil"], &[], "libnss3-tools")?;
    // The browser's own HOME, whose NSS database trusts the test authority.
    let home = authority.dir().join("home");
    let database = home.join(".pki/nssdb");
    std::fs::create_dir_all(&database).unwrap();
    let database = format!("sql:{}", database.display());
    for args in [
        vec!["-N", "-d", &database, "--empty-password"],
        vec![
            "-A",
            "-d",
            &database,
            "-n",
            "embed-assets test CA",
            "-t",
            "C,,",
        ],
    ] {
        let mut command = Command::new(&certutil);
        command.args(&args);
        if args[0] == "-A" {
            command.arg("-i").arg(authority.certificate());
        }
        let output = command.output().expect("run certutil");
        assert!(
            output.status.success(),
            "certutil {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    browser.home = Some(home);
    browser.args = vec![format!("--host-resolver-rules=MAP {NAME} 127.0.0.1")];
    Some(browser)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_loads_the_site_over_https_by_name_as_a_secure_context() {
    let Some(authority) = Authority::new("browser") else {
        return;
    };
    let Some(browser) = trusting_browser(&authority) else {
        return;
    };
    let issued = authority.issue("server");
    let server = Server::bind("127.0.0.1:0")
        .unwrap()
        .workers(1)
        .shutdown_on_signals(false)
        .tls(Tls::from_pem_files(&issued.certificate, &issued.key).unwrap());
    let port = server.local_addr().port();
    std::thread::spawn(move || server.serve(SITE.service(), Router::new()).expect("serve"));

    let url = format!("https://{NAME}:{port}/index.html");
    let seen = in_browser(&browser, Duration::from_secs(120), move |session| {
        let url = url.clone();
        async move {
            session.navigate(&url).await;
            session
                .execute(
                    "const navigation = performance.getEntriesByType('navigation')[0]; \
                     const script = performance.getEntriesByType('resource') \
                       .find(entry => entry.name.endsWith('.js')); \
                     return [location.href, window.isSecureContext, navigation.nextHopProtocol, \
                       document.title, script ? script.encodedBodySize < script.decodedBodySize : null];",
                )
                .await
        }
    })
    .await;
    let index = String::from_utf8(integration_tests::fixture("/index.html")).unwrap();
    let title = index
        .split("<title>")
        .nth(1)
        .and_then(|rest| rest.split("</title>").next())
        .expect("the fixture page has a title");
    // A page behind an untrusted certificate would be Chromium's error page instead.
    assert_eq!(
        seen,
        json!([
            format!("https://{NAME}:{port}/index.html"),
            true,
            "h2",
            title,
            // The script came compressed (br over h2).
            true
        ])
    );
}

/// `serve` over TLS on 127.0.0.1:`port` with `site`, one worker, until its handle
/// stops it.
fn serve_release(
    site: &'static Assets,
    port: u16,
    issued: &Issued,
) -> (embed_assets::ShutdownHandle, std::thread::JoinHandle<()>) {
    let deadline = Instant::now() + Duration::from_secs(10);
    // The port of the release before, closed a moment ago.
    let server = loop {
        match Server::bind(("127.0.0.1", port)) {
            Ok(server) => break server,
            Err(error) if Instant::now() < deadline => {
                let _ = error;
                std::thread::sleep(Duration::from_millis(100));
            }
            Err(error) => panic!("bind 127.0.0.1:{port}: {error}"),
        }
    };
    let server = server
        .workers(1)
        .shutdown_on_signals(false)
        .drain_timeout(Duration::from_secs(1))
        .tls(Tls::from_pem_files(&issued.certificate, &issued.key).unwrap());
    let stop = server.shutdown_handle();
    let thread = std::thread::spawn(move || {
        server.serve(site.service(), Router::new()).expect("serve");
    });
    (stop, thread)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_gets_the_next_releases_bundle_as_a_dictionary_delta_over_https() {
    let Some(authority) = Authority::new("browser-dictionary") else {
        return;
    };
    let Some(mut browser) = trusting_browser(&authority) else {
        return;
    };
    // Chromium uses dictionaries over HTTPS only with a certificate from a publicly
    // trusted root (or on localhost): behind a root an administrator added, as the
    // test's, it sends no `Available-Dictionary` (checked: the bundle then comes br).
    // The switch lifts that rule for the test's authority alone.
    browser
        .args
        .push("--disable-features=CompressionDictionaryTransportRequireKnownRootCert".to_owned());
    let issued = authority.issue("server");
    events::record();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .unwrap()
        .port();
    let url = format!("https://{NAME}:{port}/index.html");
    let ran = |n: u32| format!("document.documentElement.dataset.release === '{n}'");
    let first = serve_release(&release_1::SITE, port, &issued);
    let first = Arc::new(Mutex::new(Some(first)));
    let restart = Arc::clone(&first);
    let issued_again = issued.clone();
    let seen = in_browser(&browser, Duration::from_secs(180), move |session| {
        let url = url.clone();
        let (ran_1, ran_2) = (ran(1), ran(2));
        let (restart, issued_again) = (Arc::clone(&restart), issued_again.clone());
        async move {
            session.navigate(&url).await;
            assert!(session.wait_until(&ran_1).await, "release 1 ran");
            let secure = session.execute("return window.isSecureContext;").await;
            // Chromium stores a dictionary once its response is complete, off the
            // page's path: give it a moment before the next navigation needs it.
            tokio::time::sleep(Duration::from_millis(500)).await;
            // The deploy: the server stops, and the next release starts on its port.
            let (stop, thread) = restart.lock().unwrap().take().expect("release 1");
            stop.shutdown();
            thread.join().expect("release 1 ended");
            *restart.lock().unwrap() = Some(serve_release(&release_2::SITE, port, &issued_again));
            session.navigate(&url).await;
            assert!(session.wait_until(&ran_2).await, "release 2 ran");
            secure
        }
    })
    .await;
    assert_eq!(seen, json!(true), "a secure context");
    let bundle = release_2::SITE
        .iter()
        .find(|asset| asset.path() == "/js/app.js" && asset.earlier_release().is_none())
        .and_then(|asset| asset.fingerprinted_path())
        .expect("release 2's bundle");
    let lines = events::messages("embed_assets::access");
    let line = lines
        .iter()
        .find(|line| line.starts_with(&format!("GET {bundle} ")))
        .unwrap_or_else(|| panic!("release 2's bundle {bundle} in {lines:#?}"));
    let fields: Vec<&str> = line.split(' ').collect();
    assert_eq!(fields[2], "200", "{line}");
    assert!(
        matches!(fields[4], "dcb" | "dcz"),
        "release 2's bundle arrives compressed against release 1's over https: {line}"
    );
    if let Some((stop, thread)) = first.lock().unwrap().take() {
        stop.shutdown();
        thread.join().unwrap();
    }
}
