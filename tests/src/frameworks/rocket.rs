//! Rocket 0.5: `AssetServer` mounted at `/` or at the mount point, beside a
//! `GET /api/health` route, on a thread with its own tokio runtime. The config is
//! built in code (no `Rocket.toml`, no `ROCKET_*` variables): port 0 on 127.0.0.1,
//! logging off, no signal handling; everything else, Shield and `Server: Rocket`
//! included, is Rocket's default.

use std::net::{Ipv4Addr, SocketAddr};
use std::sync::mpsc;

use embed_runtime::adapters::rocket::AssetServer;
use embed_runtime::ServeAssets;
use rocket::config::{LogLevel, Shutdown};
use rocket::fairing::AdHoc;
use rocket::{get, routes, Config};

#[get("/api/health")]
fn health() -> &'static str {
    "ok"
}

pub(super) fn spawn(service: ServeAssets, mount: Option<&'static str>) -> SocketAddr {
    let config = Config {
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
    };
    let (tx, rx) = mpsc::channel();
    let rocket = rocket::custom(config)
        .mount("/", routes![health])
        .mount(mount.unwrap_or("/"), AssetServer::from(service))
        .attach(AdHoc::on_liftoff("bound port", move |rocket| {
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
