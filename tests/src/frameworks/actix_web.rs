//! actix-web 4: the service as `default_service`, or under `Mount::new(mount, ..)`,
//! on a thread of its own with actix's runtime (one worker, no signal handlers).

use std::net::{SocketAddr, TcpListener};
use std::sync::mpsc;

use actix_web::{App, HttpServer, web};
use embed_assets::ServeAssets;
use embed_assets::adapters::actix_web::Mount;

pub(super) fn spawn(service: ServeAssets, mount: Option<&'static str>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
    let addr = listener.local_addr().expect("local address");
    let (started, start) = mpsc::channel();
    std::thread::spawn(move || {
        actix_web::rt::System::new().block_on(async move {
            let server = HttpServer::new(move || {
                let app = App::new().route("/api/health", web::get().to(|| async { "ok" }));
                match mount {
                    Some(mount) => app.service(Mount::new(mount, service.clone())),
                    None => app.default_service(service.clone()),
                }
            })
            .workers(1)
            .disable_signals()
            .listen(listener);
            let server = match server {
                Ok(server) => server.run(),
                Err(err) => {
                    let _ = started.send(Err(err));
                    return;
                }
            };
            let _ = started.send(Ok(()));
            server.await.expect("actix-web server");
        });
    });
    start
        .recv()
        .expect("the actix-web thread ended")
        .expect("actix-web listens");
    addr
}
