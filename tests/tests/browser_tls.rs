//! `Server::tls` in a real browser: headless Chromium, with the test's own certificate
//! authority in its NSS database (added by `certutil`, as an administrator adds a
//! local CA) and a name that is not localhost mapped to 127.0.0.1
//! (`--host-resolver-rules`), loads the site over `https://`: the certificate is
//! trusted, the page is a secure context, h2 is chosen by ALPN, and its scripts come
//! br. Needs `chromium`, `chromedriver`, `certutil` (`libnss3-tools`) and `openssl`.

use std::process::Command;
use std::time::Duration;

use axum::Router;
use embed_assets::{Server, Tls};
use integration_tests::browser::{BrowserPrograms, in_browser};
use integration_tests::tls::{Authority, NAME};
use integration_tests::{SITE, programs};
use serde_json::json;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chromium_loads_the_site_over_https_by_name_as_a_secure_context() {
    let Some(mut browser) = BrowserPrograms::find() else {
        return;
    };
    let Some(certutil) = programs::require(&["certutil"], &[], "libnss3-tools") else {
        return;
    };
    let Some(authority) = Authority::new("browser") else {
        return;
    };
    let issued = authority.issue("server");
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
