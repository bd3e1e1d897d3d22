//! Rocket 0.5: `AssetServer` mounted at `/` or at the mount point, beside a
//! `GET /api/health` route, on a thread with its own tokio runtime. The config is
//! built in code (no `Rocket.toml`, no `ROCKET_*` variables): port 0 on 127.0.0.1,
//! logging off, no signal handling; everything else, Shield and `Server: Rocket`
//! included, is Rocket's default.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::mpsc;

use embed_assets::ServeAssets;
use embed_assets::adapters::rocket::AssetServer;
use rocket::config::{LogLevel, Shutdown};
use rocket::fairing::AdHoc;
use rocket::{Build, Config, Rocket, get, routes};

#[get("/api/health")]
fn health() -> &'static str {
    "ok"
}

pub(super) fn spawn(service: ServeAssets, mount: Option<&'static str>) -> SocketAddr {
    let rocket = rocket::custom(config())
        .mount("/", routes![health])
        .mount(mount.unwrap_or("/"), AssetServer::from(service));
    launch(rocket)
}

/// Rocket's defaults but for where it listens, its logging and its signal handlers.
fn config() -> Config {
    Config {
        address: Ipv4Addr::LOCALHOST.into(),
        port: 0,
        log_level: LogLevel::Off,
        cli_colors: false,
        shutdown: Shutdown {
            ctrlc: false,
            #[cfg(unix)]
            signals: Default::default(),
            ..Shutdown::default()
        },
        ..Config::debug_default()
    }
}

/// Launches `rocket` on a thread with its own runtime; returns once it listens.
fn launch(rocket: Rocket<Build>) -> SocketAddr {
    let (tx, rx) = mpsc::channel();
    let rocket = rocket.attach(AdHoc::on_liftoff("bound port", move |rocket| {
        Box::pin(async move {
            // The listener is bound before liftoff; `port` is the real one now.
            let _ = tx.send(rocket.config().port);
        })
    }));
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("tokio runtime for rocket");
        runtime.block_on(async move {
            rocket.launch().await.expect("rocket server");
        });
    });
    let port = rx.recv().expect("rocket did not start listening");
    SocketAddr::from((Ipv4Addr::LOCALHOST, port))
}

/// What Rocket itself changes, as the adapter's documentation lists it.
#[cfg(test)]
mod tests {
    use http::header::{CONTENT_LENGTH, SERVER};
    use http::{HeaderName, Method, StatusCode};

    use super::*;
    use crate::{SITE, get, head, header, raw_request, send};

    #[tokio::test]
    async fn app_routes_answer_head_where_they_answer_get() {
        #[get("/tiny.txt")]
        fn shadow() -> &'static str {
            "the app"
        }
        let rocket = rocket::custom(config())
            .mount("/", routes![health, shadow])
            .mount("/", AssetServer::from(SITE.service()));
        let addr = launch(rocket);
        for path in ["/api/health", "/tiny.txt"] {
            let (get_status, get_headers, body) = get(addr, path, &[]).await;
            let (head_status, head_headers, head_body) = head(addr, path, &[]).await;
            assert_eq!((get_status, head_status), (StatusCode::OK, StatusCode::OK));
            let length = body.len().to_string();
            assert_eq!(
                header(&get_headers, CONTENT_LENGTH),
                Some(&*length),
                "{path}"
            );
            assert_eq!(
                header(&head_headers, CONTENT_LENGTH),
                Some(&*length),
                "{path}"
            );
            assert!(head_body.is_empty(), "{path}");
        }
        let (_, _, body) = get(addr, "/tiny.txt", &[]).await;
        assert_eq!(&body[..], b"the app");
        // Under a mount point too, and an asset's HEAD still comes from the core.
        let addr = spawn(SITE.service(), Some("/static"));
        let (status, headers, _) = head(addr, "/api/health", &[]).await;
        assert_eq!(
            (status, header(&headers, CONTENT_LENGTH)),
            (StatusCode::OK, Some("2"))
        );
        let (status, headers, body) = head(addr, "/static/tiny.txt", &[]).await;
        assert_eq!(
            (status, header(&headers, CONTENT_LENGTH)),
            (StatusCode::OK, Some("3"))
        );
        assert!(body.is_empty());
    }

    #[tokio::test]
    async fn rocket_adds_server_and_its_shield_headers() {
        let addr = spawn(SITE.service(), None);
        for (method, path) in [(Method::GET, "/tiny.txt"), (Method::POST, "/tiny.txt")] {
            let (_, headers, _) = send(addr, method, path, &[]).await;
            assert_eq!(header(&headers, SERVER), Some("Rocket"));
            for (name, value) in [
                ("x-content-type-options", "nosniff"),
                ("x-frame-options", "SAMEORIGIN"),
                ("permissions-policy", "interest-cohort=()"),
            ] {
                let name = HeaderName::from_static(name);
                assert_eq!(header(&headers, name), Some(value));
            }
        }
    }

    #[tokio::test]
    async fn rocket_hides_the_http_version_so_http_1_0_without_host_gets_400() {
        let addr = spawn(SITE.service(), None);
        let (status, _, _) = raw_request(addr, b"GET /tiny.txt HTTP/1.0\r\n\r\n").await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
        let request = b"GET /tiny.txt HTTP/1.0\r\nHost: a.test\r\n\r\n";
        let (status, _, body) = raw_request(addr, request).await;
        assert_eq!((status, &body[..]), (StatusCode::OK, &b"hi\n"[..]));
    }

    #[tokio::test]
    async fn rocket_answers_an_unknown_method_with_400_itself() {
        let addr = spawn(SITE.service(), None);
        let request = b"PROPFIND /tiny.txt HTTP/1.1\r\nHost: a.test\r\nConnection: close\r\n\r\n";
        let (status, _, _) = raw_request(addr, request).await;
        assert_eq!(status, StatusCode::BAD_REQUEST);
    }

    #[tokio::test]
    async fn rocket_turns_a_form_post_with_method_get_into_a_get() {
        let addr = spawn(SITE.service(), None);
        let request = b"POST /tiny.txt HTTP/1.1\r\nHost: a.test\r\n\
            Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 11\r\n\
            Connection: close\r\n\r\n_method=get";
        let (status, _, body) = raw_request(addr, request).await;
        assert_eq!((status, &body[..]), (StatusCode::OK, &b"hi\n"[..]));
    }

    #[tokio::test]
    async fn rocket_drops_a_field_whose_value_is_not_utf8() {
        let addr = spawn(SITE.service(), None);
        // An If-Match that matches nothing would be a 412; Rocket never passes it on.
        let request =
            b"GET /tiny.txt HTTP/1.1\r\nHost: a.test\r\nIf-Match: \"\xff\"\r\nConnection: close\r\n\r\n";
        let (status, _, _) = raw_request(addr, request).await;
        assert_eq!(status, StatusCode::OK);
        let request =
            b"GET /tiny.txt HTTP/1.1\r\nHost: a.test\r\nIf-Match: \"x\"\r\nConnection: close\r\n\r\n";
        let (status, _, _) = raw_request(addr, request).await;
        assert_eq!(status, StatusCode::PRECONDITION_FAILED);
    }
}
